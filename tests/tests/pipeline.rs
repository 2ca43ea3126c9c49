//! Issue #17: pipeline parallelism (`engine.pp_size`) through `tpsim memory` and `tpsim run`.

use crate::common::*;

fn memory_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["memory", file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("JSON")
}

fn write(name: &str, text: &str) -> String {
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// tests/data/engine-memory.tsv line 24: vLLM 0.19, Llama-3.1-8B, H100 (torch total 79.19 GiB), pp 4,
/// gpu_memory_utilization 0.95, max_model_len 8192, logged 141,079 blocks (2,257,264 tokens). Each
/// stage holds 8 of the 32 layers: cell 8 × 4,096 = 32,768 B. The binding worker is PP3 (the log's
/// "Memory profiling" lines: weights 4.26, activation 2.01, non-torch 0.07 GiB, as in
/// engine_memory_rows.rs), given as `[engine.observed]`. With memory_total_mib 81,091 (79.1904 GiB):
/// requested 75.2309 GiB; KV 75.2309 − 6.34 = 68.8909 GiB = 141,088 blocks of 512 KiB (× 2,048 per
/// GiB): 9 blocks (0.006 %) above the log, inside the inputs' ± 41-block band.
#[test]
fn vllm_pp4_llama_8b_reproduces_the_logged_blocks() {
    let f = write(
        "vllm-pp4",
        "[hardware]\npreset = \"h200-8x-nvlink\"\n[hardware.gpu]\nmemory_total_mib = 81091\n\
         [model]\npreset = \"llama-3.1-8b\"\n\
         [engine]\nname = \"vllm\"\ntp = 1\npp_size = 4\ngpu_memory_utilization = 0.95\nmax_model_len = 8192\n\
         [engine.observed]\nfree_at_start_gib = 77.71\nweights_gib = 4.26\npeak_activation_gib = 2.01\nnon_torch_gib = 0.07\n\
         [workload]\nconcurrency = 1\nprompt_len = 1024\noutput_len = 128\n",
    );
    let j = memory_json(&f);
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 32_768);
    let tokens = j["kv_tokens"].as_u64().expect("tokens");
    assert_eq!(tokens, 141_088 * 16);
    assert!((tokens / 16).abs_diff(141_079) <= 41);
}

/// SGLang's default fraction counts tp × pp (server_args.py `reserved_mem += tp_size * pp_size / 8 *
/// 1024`): RTX PRO 6000 (97,887 MiB, tp 4: chunked 8192, cuda_graph_max_bs 512) at pp 2: 512 +
/// 12,288 + 1,024 + 1,024 = 14,848 MiB → round(83,039 / 97,887, 3) = 0.848. Each rank of a 70B stage
/// holds 40 layers of 2 KV heads: 2 × 256 × 40 × 2 = 40,960 B per token.
#[test]
fn sglang_pp2_fraction_and_stage_cell() {
    let j = memory_json(&scenario("examples/llama-3.1-70b-pp2-tp4-rtx6000x8.toml"));
    assert_eq!(j["mem_fraction_static"], 0.848);
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 40_960);
}

/// `tpsim run` costs the send between the stages (`pp_send` in the breakdown).
#[test]
fn run_reports_the_pipeline_send() {
    let j = run_json(&scenario("examples/llama-3.1-70b-pp2-tp4-rtx6000x8.toml"));
    assert!(
        f(&j["breakdown_by_op"]["pp_send"]) > 0.0,
        "{}",
        j["breakdown_by_op"]
    );
}

/// Issue #17 point 4: pp 2 × tp 8 on two H200 boxes sends between the boxes over the NICs
/// (`pp_send_net` in the breakdown, no intra-box `pp_send`), under both engines.
#[test]
fn run_reports_the_send_between_boxes() {
    for e in ["vllm", "sglang"] {
        let j = run_json(&scenario(&format!(
            "examples/deepseek-v3-pp2-tp8-{e}-h200x16-2node.toml"
        )));
        let by = &j["breakdown_by_op"];
        assert!(f(&by["pp_send_net"]) > 0.0, "{e}: {by}");
        assert!(by.get("pp_send").is_none(), "{e}: {by}");
    }
}

/// vllmkv (issue #17): the pipeline terms of vLLM's profile run on the binding (last) stage of
/// `validation/llama-3.3-70b-awq-rtx4090x2-vllm-0.11-pp2-c400.toml` (vLLM 0.11.0, 2048 tokens / 256
/// sequences on a 24 GB card, hidden 8192, vocabulary 128,256, fp16), by hand:
/// - activation: installkind: the scenario runs the vllm/vllm-openai image (`engine.install =
///   "docker"`), so the dummy sampler goes through FlashInfer: (2048 + 2 × 256) × 8192 × 2 =
///   41,943,040 + 256 × 128,256 × 14 = 459,669,504, the cuBLAS workspace of SM 8.9, 8,519,680, and
///   the buffers the stage receives its input into, 2 × 2048 × 8192 × 2 = 67,108,864 (vLLM 0.11.0
///   `_dummy_run` `make_empty_intermediate_tensors`): 577,241,088 B = 550.5 MiB (the sorting
///   sampler's 1,365,245,952 B before installkind; 1238.0 MiB before vllmkv);
/// - non-torch: 0.07 GiB, the pp figure of engine-memory.tsv line 24 (0.25 before);
/// - KV: 23.64 × 0.9 − 18.5496 (weights) − 0.5376 − 0.07 = 2.1188 GiB → ⌊2.1188 × 2^30 / (16 ×
///   81,920)⌋ = 1,735 blocks = 27,760 tokens (18,144 with the sort, 16,608 before vllmkv).
#[test]
fn vllm_pp2_last_stage_terms_on_a_24gb_card() {
    let j = memory_json(&scenario(
        "validation/llama-3.3-70b-awq-rtx4090x2-vllm-0.11-pp2-c400.toml",
    ));
    let mib = |name: &str| {
        j["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .find(|e| e["name"] == name)
            .and_then(|e| e["mib"].as_f64())
            .expect(name)
    };
    // Exact to the byte: the JSON carries MiB as a float, so compare within half a byte.
    let activation_bytes = mib("peak activation (profile run)") * 1_048_576.0;
    assert!(
        (activation_bytes - 577_241_088.0).abs() < 0.5,
        "activation {activation_bytes} B"
    );
    assert!((mib("non-torch growth") / 1024.0 - 0.07).abs() < 1e-6);
    assert_eq!(j["kv_tokens"], 27_760);
}

//! Issue #17 point 1 (vllmdp): vLLM's data parallelism on a MoE model — `--data-parallel-size D`
//! with or without `--enable-expert-parallel` (`scenario::vllm_dp`, `decode::passes::vllm_dp`,
//! `tpsim_model::vllm_dp`). Expected figures are computed by hand from the bundled model configs
//! (`scenarios/models/*/config.json`) and vLLM's rules named in those modules; no public vLLM DP + EP
//! throughput or start-up log for a comparable box was found (searched: issues and pages for
//! "--data-parallel-size --enable-expert-parallel tokens/s", "GPU KV cache size" with DP), so none is
//! compared here.

use crate::common::*;

fn write(name: &str, text: &str) -> String {
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// Qwen3-235B-A22B (bf16) under vLLM 0.19.0 on 8× RTX PRO 6000 (one PCIe switch), with `engine`.
fn qwen3(engine: &str, workload: &str) -> String {
    format!(
        "seed = 1\n[hardware]\npreset = \"rtx-pro-6000-8x-1switch\"\n[model]\npreset = \"qwen3-235b-a22b\"\n\
         [engine]\nname = \"vllm\"\nversion = \"0.19.0\"\ngpu_memory_utilization = 0.9\nmax_model_len = 8192\n\
         {engine}\n[workload]\n{workload}\n"
    )
}

const WORKLOAD: &str = "concurrency = 64\nprompt_len = 1024\noutput_len = 256";

fn memory_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["memory", file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("JSON")
}

fn weights_mib(j: &serde_json::Value) -> f64 {
    j["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .find(|e| e["name"] == "target weights")
        .and_then(|e| e["mib"].as_f64())
        .expect("target weights")
}

/// Qwen3-235B-A22B (hidden 4,096; 94 layers; 64 query / 4 KV heads of 128; 128 experts of
/// 3 × 4,096 × 1,536; vocab 151,936 untied; bf16), per rank, by hand:
/// - dp 4 × tp 2 (EP or not: the same bytes): routed experts over 8 ranks 94 × 128 × 18,874,368 ×
///   2 B / 8 = 56,774,098,944; attention (q 33,554,432 + k, v 2 × 2,097,152 + o 33,554,432 =
///   71,303,168 parameters a layer) / 2 × 2 B × 94 = 6,702,497,792; embedding + LM head
///   2 × 151,936 × 4,096 / 2 × 2 B = 1,244,659,712; routers 94 × 128 × 4,096 × 2 B = 98,566,144;
///   norms (94 × (2 × 4,096 + 2 × 128) + 4,096) × 2 B = 1,596,416; vLLM's RoPE cache 40,960 × 128 ×
///   2 B = 10,485,760 → 64,831,904,768 B = 61,828.5224609375 MiB (plain tp 8 would hold the
///   attention and embeddings at 1/8);
/// - dp 8 × tp 1: attention 13,404,995,584, embeddings 2,489,319,424, the rest as above →
///   72,779,062,272 B = 69,407.5224609375 MiB.
///
/// KV cell per rank: 94 layers × K and V × (4 / tp) heads × 128 × 2 B = 96,256 B at tp 2, 192,512 B
/// at tp 1; each DP rank has its own pool, so the box holds dp × the rank's tokens. Exact.
#[test]
fn memory_per_rank_by_hand() {
    for (engine, weights, cell, dp) in [
        (
            "tp = 2\ndp_size = 4\nenable_expert_parallel = true",
            64_831_904_768_u64,
            96_256,
            4,
        ),
        ("tp = 2\ndp_size = 4", 64_831_904_768, 96_256, 4),
        (
            "tp = 1\ndp_size = 8\nenable_expert_parallel = true",
            72_779_062_272,
            192_512,
            8,
        ),
    ] {
        let j = memory_json(&write("mem", &qwen3(engine, WORKLOAD)));
        // The MiB figure is exact in binary (bytes / 2^20): compared as bytes.
        assert_eq!((weights_mib(&j) * 1_048_576.0) as u64, weights, "{engine}");
        assert_eq!(j["cell_size_bytes"], cell, "{engine}");
        let tokens = j["kv_tokens"].as_u64().expect("tokens");
        assert_eq!(
            j["kv_tokens_all_replicas"].as_u64(),
            Some(dp * tokens),
            "{engine}"
        );
    }
}

/// The bytes of one MoE layer's exchange, by hand: DeepSeek-V3 (hidden 7,168, 256 routed experts,
/// bf16 activations) at dp 8 × tp 1 with 64 requests: 8 per rank, 64 rows gathered, each hidden +
/// router logits = (7,168 + 256) × 2 = 14,848 B → 950,272 B in; 64 × 7,168 × 2 = 917,504 B back
/// (SGLang's DP-attention gather of the same batch moves the same 917,504 B of hidden states,
/// `passes::dp_attention`). dp 4 × tp 2 with EP (sequence parallel), 60 requests: 15 on the busiest
/// rank, ⌈15 / 2⌉ = 8 rows from each of the 8 ranks = 64 rows; without EP, 15 × 4 = 60 rows.
#[test]
fn exchange_volumes_by_hand() {
    let text =
        std::fs::read_to_string(scenario("examples/deepseek-v3-dcp8-vllm-h200x8.toml")).expect("example");
    let s = tpsim::scenario::load_str(
        &text.replacen(
            "tp = 8\ndcp_size = 8",
            "tp = 1\ndp_size = 8\nenable_expert_parallel = true",
            1,
        ),
        std::path::Path::new("dsv3-dp8.toml"),
    )
    .expect("scenario");
    let v = s.engine.vllm_dp.expect("vLLM DP");
    assert_eq!(tpsim::decode::vllm_dp_moe_rows(&v, 64), (64, 8));
    assert_eq!(
        tpsim::decode::vllm_dp_exchange_bytes(&s.model, 64),
        (950_272, 917_504)
    );
    let sp = tpsim::scenario::vllm_dp::VllmDp {
        dp: 4,
        tp: 2,
        sequence_parallel: true,
        ..v
    };
    assert_eq!(tpsim::decode::vllm_dp_moe_rows(&sp, 60), (64, 15));
    let no_ep = tpsim::scenario::vllm_dp::VllmDp {
        ep: false,
        sequence_parallel: false,
        ..sp
    };
    assert_eq!(tpsim::decode::vllm_dp_moe_rows(&no_ep, 60), (60, 15));
}

/// Lock-step DP ranks (vLLM `DPEngineCoreProc`, `dp_utils` padding to the largest rank): 9 requests
/// over 8 DP ranks put 2 on one rank, and every rank is padded to 2 — each decode step costs what
/// 16 requests cost (exactly: the same iteration graph), so the time per output token equals the
/// 16-request one and exceeds the 8-request one.
#[test]
fn uneven_split_costs_the_busiest_rank() {
    let tpot = |c: u32| {
        let w = format!("concurrency = {c}\nnum_requests = {c}\nprompt_len = 128\noutput_len = 16");
        let j = run_json(&write(&format!("pad{c}"), &qwen3("tp = 1\ndp_size = 8", &w)));
        f(&j["throughput"]["tpot_ms"])
    };
    let (t8, t9, t16) = (tpot(8), tpot(9), tpot(16));
    // Exact: the same iteration graph.
    assert_eq!(t9.to_bits(), t16.to_bits(), "9 requests run as 16: {t9} vs {t16}");
    assert!(t9 > t8, "{t9} vs {t8}");
}

/// What vLLM refuses (its text) and what tpsim does not model, each with the key (exit 2).
#[test]
fn refusals() {
    let refused = |name: &str, engine: &str| {
        let o = tpsim(&["validate", &write(name, &qwen3(engine, WORKLOAD))]);
        assert_eq!(o.code, 2, "{engine}: {}", o.stderr);
        o.stderr
    };
    let e = refused("too-many", "tp = 2\ndp_size = 8");
    assert!(
        e.contains("engine.dp_size") && e.contains("= 16 GPUs, more than the box's 8"),
        "{e}"
    );
    let e = refused(
        "deepep",
        "tp = 1\ndp_size = 8\nenable_expert_parallel = true\nall2all_backend = \"deepep_low_latency\"",
    );
    assert!(
        e.contains("engine.all2all_backend") && e.contains("NVLink for intranode communication"),
        "{e}"
    );
    let e = refused(
        "pplx",
        "tp = 1\ndp_size = 8\nenable_expert_parallel = true\nall2all_backend = \"pplx\"",
    );
    assert!(
        e.contains("engine.all2all_backend") && e.contains("not modelled"),
        "{e}"
    );
    let e = refused("name", "tp = 1\ndp_size = 8\nall2all_backend = \"ring\"");
    assert!(
        e.contains("engine.all2all_backend") && e.contains("expected one of"),
        "{e}"
    );
    let e = refused("pp", "tp = 2\ndp_size = 2\npp_size = 2");
    assert!(e.contains("engine.pp_size") && e.contains("not modelled"), "{e}");
    // SGLang's keys stay refused under vLLM.
    let e = refused("dp-attn", "tp = 1\ndp_size = 8\nenable_dp_attention = true");
    assert!(e.contains("engine.enable_dp_attention"), "{e}");
}

/// `tpsim engine-args` prints one DP rank's tp, the DP size, the EP flag and the backend variable.
#[test]
fn engine_args_print_the_vllm_command() {
    let o = tpsim(&[
        "engine-args",
        &write(
            "args",
            &qwen3(
                "tp = 2\ndp_size = 4\nenable_expert_parallel = true\nall2all_backend = \"naive\"",
                WORKLOAD,
            ),
        ),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for want in [
        "VLLM_ALL2ALL_BACKEND=naive",
        "--tensor-parallel-size 2",
        "--data-parallel-size 4",
        "--enable-expert-parallel",
    ] {
        assert!(o.stdout.contains(want), "{want}: {}", o.stdout);
    }
}

/// `tpsim run` says the engine's own flags: `-tp 2 -dp 4` is tp 2 and dp 4 in the header and the JSON
/// (vLLM 0.19 `--tensor-parallel-size` is one DP rank's tp); the flattened MoE size is in the dp line.
#[test]
fn run_reports_the_engines_tp_and_dp() {
    let file = write(
        "flags",
        &qwen3("tp = 2\ndp_size = 4\nenable_expert_parallel = true", WORKLOAD),
    );
    let j = run_json(&file);
    assert_eq!(j["scenario"]["tp"], 2);
    assert_eq!(j["scenario"]["dp"], 4);
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("tp=2 dp=4"), "{}", o.stdout);
    assert!(o.stdout.contains("MoE over the 8 ranks"), "{}", o.stdout);
}

/// dpep17: launch command 59 (`vllm serve nvidia/Qwen3.5-397B-A17B-NVFP4 -dp 4
/// --enable-expert-parallel …`, tests/data/launch-commands/59.sh) imported on the GB200 slice, as
/// `tests/tests/presets12.rs` does, then planned. Four DP ranks of tp 1: each GPU holds the whole
/// attention, embedding, LM head, shared experts and routers of tp 1 plus 512 / 4 = 128 whole
/// NVFP4 experts (`tpsim_model::vllm_dp` `qwen3_5_nvfp4_dp4_tp1_ep_by_hand`: 73,956,895,872 B, not
/// tp 4's 59,479,652,832), plus vLLM's RoPE cache (rope17): 256 × `partial_rotary_factor` 0.25 = 64
/// rotary dims, and the text config's `mrope_section` makes it an M-RoPE cache of 4 × 262,144
/// positions (vLLM `rotary_embedding/mrope.py`): 1,048,576 × 64 × 2 B = 134,217,728 — the same bytes
/// as the whole head over 262,144 positions that tpsim counted before → 74,091,113,600 B =
/// 70,659.0859375 MiB (exact in binary). KV cell at tp 1: 2 KV
/// heads × (256 + 256) × 15 full-attention layers × 1 B (fp8, the checkpoint's
/// `kv_cache_quant_algo`) = 15,360 B, each rank its own pool (the box: 4 ×). The iteration graph: no
/// TP allreduce (tp 1), one all-gather dispatch and one reduce-scatter combine per MoE layer (60),
/// `allgather_reducescatter` being vLLM's default backend.
#[test]
fn launch_command_59_dp4_ep_per_rank_by_hand() {
    let cmd = std::fs::read_to_string(format!(
        "{}/../tests/data/launch-commands/59.sh",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("59.sh");
    let dir = scratch("dpep59");
    let file = dir.join("scenario.toml").display().to_string();
    let o = tpsim(&[
        "import-command",
        "--hardware",
        "gb200-nvl72-8x-slice",
        "-o",
        &file,
        &cmd,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j = memory_json(&file);
    assert_eq!((weights_mib(&j) * 1_048_576.0) as u64, 74_091_113_600);
    assert_eq!(j["cell_size_bytes"], 15_360);
    let tokens = j["kv_tokens"].as_u64().expect("tokens");
    assert_eq!(j["kv_tokens_all_replicas"].as_u64(), Some(4 * tokens));
    let m = tpsim(&["memory", &file]);
    assert!(m.stdout.contains("(tp 1 × dp 4, vllm"), "{}", m.stdout);
    let r = run_json(&file);
    assert_eq!(
        (&r["scenario"]["tp"], &r["scenario"]["dp"]),
        (&1.into(), &4.into())
    );
    let ops = r["breakdown_by_op"].as_object().expect("by op");
    assert!(ops["moe_dispatch"].as_f64() > Some(0.0), "{ops:?}");
    assert!(ops["moe_combine"].as_f64() > Some(0.0), "{ops:?}");
    assert!(!ops.contains_key("allreduce"), "{ops:?}");
    assert_eq!(r["collectives"]["allreduces_per_pass"], 0);
}

/// rope17 (issue #17): `tpsim run --json` gives the MoE exchange in `collectives.moe_exchange`.
/// Qwen3-235B-A22B at dp 8 × tp 1 with EP, 64 requests: 8 per rank, 64 rows in the group's buffer;
/// each of the 94 MoE layers all-gathers 64 × (4,096 hidden + 128 router logits) × 2 B = 540,672 B
/// over the 8 ranks and reduce-scatters 64 × 4,096 × 2 B = 524,288 B (vLLM's default
/// `allgather_reducescatter`); nothing after the combine at tp 1. The per-call times are the box's
/// 8-GPU NCCL all-gather of those sizes (`tpsim collective --op allgather`; the reduce-scatter is
/// costed on the same ring steps). dp 4 × tp 2 with EP: 16 requests per DP rank, ⌈16 / 2⌉ = 8 rows
/// from each of the 8 EP ranks (sequence-parallel MoE), the same 64 rows, then each TP pair
/// all-gathers its 16 × 4,096 × 2 B = 131,072 B of rows. dp 4 × tp 2 without EP: the DP group of 4
/// gathers 16 × 4 = 64 rows, and each TP pair all-reduces the partial expert sums, 131,072 B. Off
/// vLLM DP (plain tp 8): null.
#[test]
fn json_reports_the_moe_exchange() {
    let j = run_json(&write(
        "json-ex",
        &qwen3("tp = 1\ndp_size = 8\nenable_expert_parallel = true", WORKLOAD),
    ));
    let x = &j["collectives"]["moe_exchange"];
    assert_eq!(x["backend"], "allgather_reducescatter");
    assert_eq!(
        (&x["group_ranks"], &x["rows"], &x["calls_per_pass"]),
        (&8.into(), &64.into(), &94.into())
    );
    assert_eq!(
        (&x["dispatch"], &x["dispatch_bytes"]),
        (&"all-gather".into(), &540_672.into())
    );
    assert_eq!(
        (&x["combine"], &x["combine_bytes"]),
        (&"reduce-scatter".into(), &524_288.into())
    );
    assert!(
        x["tp_after_combine"].is_null() && x["tp_after_combine_bytes"].is_null(),
        "{x}"
    );
    let o = tpsim(&[
        "collective",
        "--hardware",
        "rtx-pro-6000-8x-1switch",
        "--gpus",
        "8",
        "--op",
        "allgather",
        "--sizes",
        "540672,524288",
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let c: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
    let us = |i: usize| c["rows"][i]["time_us"].as_f64().expect("time_us");
    assert!(
        (x["dispatch_us"].as_f64().unwrap() - us(0)).abs() < 1e-6,
        "{x} vs {}",
        us(0)
    );
    assert!(
        (x["combine_us"].as_f64().unwrap() - us(1)).abs() < 1e-6,
        "{x} vs {}",
        us(1)
    );

    let j = run_json(&write(
        "json-ex-sp",
        &qwen3("tp = 2\ndp_size = 4\nenable_expert_parallel = true", WORKLOAD),
    ));
    let x = &j["collectives"]["moe_exchange"];
    assert_eq!((&x["group_ranks"], &x["rows"]), (&8.into(), &64.into()));
    assert_eq!(
        (&x["dispatch_bytes"], &x["combine_bytes"]),
        (&540_672.into(), &524_288.into())
    );
    assert_eq!(
        (&x["tp_after_combine"], &x["tp_after_combine_bytes"]),
        (&"all-gather".into(), &131_072.into())
    );
    assert!(x["tp_after_combine_us"].as_f64() > Some(0.0), "{x}");

    let j = run_json(&write("json-ex-dp", &qwen3("tp = 2\ndp_size = 4", WORKLOAD)));
    let x = &j["collectives"]["moe_exchange"];
    assert_eq!((&x["group_ranks"], &x["rows"]), (&4.into(), &64.into()));
    assert_eq!(
        (&x["tp_after_combine"], &x["tp_after_combine_bytes"]),
        (&"allreduce".into(), &131_072.into())
    );

    let j = run_json(&write("json-ex-tp", &qwen3("tp = 8", WORKLOAD)));
    assert!(j["collectives"]["moe_exchange"].is_null());
}

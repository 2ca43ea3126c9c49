//! Issue #17 (qwenhyb): Qwen3-Next (`Qwen3NextForCausalLM`) and the dense Qwen3.5 as whole models
//! through the scenario path: the example runs, SGLang's state pool is carved out of the budget, the
//! MTP draft is one gated full-attention + MoE layer, and vLLM's MTP for these targets is refused as
//! not modelled. The weights' arithmetic is in `model/src/llm/tests_qwenhyb.rs`; the public log of the
//! dense Qwen3.5-9B in `engine_memory_logs` (engine-memory.tsv line 45).

use crate::common::*;

const EXAMPLE: &str = "examples/qwen3-next-80b-a3b-fp8-rtx6000x2.toml";

/// The example with `from` replaced by `to` (once), written to a scratch file.
#[track_caller]
fn example_with(name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scenario(EXAMPLE)).expect("scenario");
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    p.display().to_string()
}

fn entry(j: &serde_json::Value, prefix: &str) -> u64 {
    j["memory"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` entry"))["bytes"]
        .as_u64()
        .unwrap()
}

/// The example: Qwen3-Next FP8 at tp 2. Weights per rank (e4m3 + one fp32 scale per 128×128 block on
/// the decoder linears, the rest bf16), in bytes: embedding + LM head 622,329,856 and the final norm
/// 4096; a linear layer: in_proj_qkvz 6144 × 2048 + 768 scales = 12,585,984, in_proj_ba 32 × 2048 +
/// 16 scales = 65,600, out_proj 4,195,328, conv1d 32,768, norms, A_log, dt_bias, gated norm 8544,
/// the MoE block 809,177,472 (bf16 router 2,097,152 and gate 4096, 512 experts × 1,573,248, shared
/// expert 1,573,248) → 826,065,696, × 36 = 29,738,365,056; a full layer 822,821,504 (next test) × 12
/// = 9,873,858,048. Total 40,234,557,056 B (37.47 GiB). The KV cell is 12 full layers × 1 KV head (2 heads replicated at tp 2) ×
/// 256 × 2 × 2 B = 12,288 B; SGLang's state pool (36 linear layers × 1,073,152 B = 38,633,472 B per
/// request) is carved out of rest first, and max_running_requests is slots / 3.
#[test]
fn qwen3_next_fp8_example_runs_with_a_state_pool() {
    let j = run_json(&scenario(EXAMPLE));
    assert_eq!(j["verdict"], "ok");
    assert_eq!(j["memory"]["cell_size_bytes"], 12_288);
    assert_eq!(entry(&j, "target weights"), 40_234_557_056);
    let pool = entry(&j, "state pool");
    assert_eq!(pool % 38_633_472, 0, "whole request states");
    let slots = pool / 38_633_472;
    assert_eq!(j["memory"]["max_running_requests"], slots / 3);
    assert_eq!(j["throughput"]["output_tokens"], 8 * 512);
    // The report names the architecture's coverage row.
    assert_eq!(j["model_checks"]["architecture"], "Qwen3Next");
}

/// SGLang MTP on Qwen3-Next (the checkpoint's `mtp.*` layer; the config names no count, one is
/// taken): the draft is the gated full-attention layer with the target's MoE (FP8 like the target)
/// plus `fc` 2H → H and two norms in bf16, the final norm, the embedding and LM head shared. Per rank
/// at tp 2, in bytes: attention q 8,390,656 + k, v 2 × 524,416 + o 4,195,328 (FP8 + fp32 block
/// scales), experts 512 × 1,573,248 = 805,502,976 and the shared expert 1,573,248, bf16 router
/// 2,097,152, shared_expert_gate 4096, layer and q/k norms 9216 → 822,821,504; `fc` 16,777,216, its
/// two norms 8192 and the final norm 4096 → 839,611,008.
#[test]
fn qwen3_next_mtp_draft_under_sglang() {
    let p = example_with(
        "mtp",
        "[workload]",
        "[speculative]\nalgorithm = \"mtp\"\nnum_steps = 3\ntopk = 1\nnum_draft_tokens = 4\n\
         acceptance = { alpha = 0.8 }\n\n[workload]",
    );
    let j = run_json(&p);
    assert_eq!(entry(&j, "draft weights"), 839_611_008);
}

/// vLLM's Qwen3-Next MTP (`models/qwen3_next_mtp.py`, mapped from 0.10.2; vllmmtp64): the same layer
/// as SGLang's draft above, 822,821,504 bytes a rank at tp 2, but `fc` is a `ColumnParallelLinear`
/// (`gather_output=True`): 16,777,216 / 2 = 8,388,608; three norms in the predictor
/// (`pre_fc_norm_embedding`, `pre_fc_norm_hidden`, `norm`) 3 × 4096 = 12,288; the embedding and the
/// top-level `lm_head` the target's (`eagle.py` `load_model`) → 822,821,504 + 8,388,608 + 12,288 =
/// 831,222,400. vLLM 0.10.1 maps no module for `qwen3_next` and refuses with its "draft model" text.
#[test]
fn qwen3_next_mtp_under_vllm_loads_a_column_parallel_fc() {
    let vllm = |name: &str, version: &str| {
        example_with(
            name,
            "name = \"sglang\"\ntp = 2\nmem_fraction_static = 0.85        # assumed (a common setting on 96 GB cards)",
            &format!(
                "name = \"vllm\"\nversion = \"{version}\"\ntp = 2\n\n[speculative]\nalgorithm = \"mtp\"\n\
                 num_speculative_tokens = 2\nacceptance = {{ alpha = 0.8 }}"
            ),
        )
    };
    let j = run_json(&vllm("vllm-mtp", "0.10.2"));
    assert_eq!(entry(&j, "draft weights"), 831_222_400);
    let o = tpsim(&["run", &vllm("vllm-mtp-0101", "0.10.1")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("speculative.algorithm")
            && o.stderr
                .contains("vLLM refuses: \"Speculative decoding with draft model is not supported yet.")
            && o.stderr.contains("`qwen3_next_mtp` arrives in vLLM 0.10.2"),
        "{}",
        o.stderr
    );
}

//! h200_63 (issue #18 decode fidelity): vLLM 0.11.0's untuned fused-MoE tile on the GLM-4.6 bf16
//! 8× H200 rows.
//!
//! vLLM 0.11.0 ships no `E=160,N=192,device_name=NVIDIA_H200.json` (the 0.11.0 wheel's
//! `fused_moe/configs/`, listed in `scenarios/engines/moe-configs/vllm.toml`; the H200 has only
//! `E=160,N=192` for the A800 and H20-3e), so GLM-4.6 bf16 at TP 8 (160 experts, moe_intermediate
//! 1536 ÷ 8 = 192) runs `get_default_config`: at M ≤ E the 16 × 32 × 64 tile, GROUP_SIZE_M 1
//! (0.11.0 `fused_moe.py` line 905), SGLang 0.5.2's default, which sglang PR 10404 timed against a
//! tuned file on H200 at 15.69 µs a MoE layer (`sim/src/decode/passes/moe_call.rs`
//! `UNTUNED_BF16_CALL_US`; not fitted to these rows). DeepSeek-R1's block-FP8 call finds its
//! shipped `E=256,N=256,…NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128,128]` file.

use crate::common::*;

const GLM_C1: &str = "validation/glm-4.6-h200x8-vllm-0.11-tp8-c1.toml";

/// The GLM-4.6 c 1 row against the same file with `engine.moe_tuned_config = true`: its `moe` op a
/// step is 89 MoE layers (92 layers, `first_k_dense_replace` 3) × 15.69 µs = 1.3964 ms longer
/// (± 0.002 ms: integer-ps rounding over 89 layers), and the engine's own log line is warned.
#[test]
fn glm46_vllm_0110_c1_carries_the_untuned_tile() {
    let untuned = run_json(&scenario(GLM_C1));
    let tuned = run_json(&edited_variant(GLM_C1, "h200_63-tuned", |t| {
        t.replacen("[engine]\n", "[engine]\nmoe_tuned_config = true\n", 1)
    }));
    let moe = |v: &serde_json::Value| f(&v["breakdown_by_op"]["moe"]);
    let d = moe(&untuned) - moe(&tuned);
    assert!((d - 89.0 * 0.01569).abs() < 0.002, "{d}");
    assert!(
        warned(
            &untuned,
            "Using default MoE config. Performance might be sub-optimal! Config file not found at \
             ['…/fused_moe/configs/E=160,N=192,device_name=NVIDIA_H200.json']"
        ),
        "{untuned}"
    );
}

/// A closed batch of GLM-4.6 bf16 on 8× H200 under vLLM 0.11.0 (TP 8, `install = "docker"` as
/// the rows), `conc` requests of 16 prompt and 101 output tokens, untuned (default) and with
/// `moe_tuned_config = true`: the mean iteration's difference, ms. All prompts prefill in one step
/// (conc × 16 ≤ 8,192, 0.11.0's token budget on an H200) and the batch decodes together.
fn tile_cost_ms(conc: u32) -> f64 {
    let mean = |extra: &str, name: &str| {
        let d = scratch(name);
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"glm-4.6\"\n[engine]\n\
             name = \"vllm\"\nversion = \"0.11.0\"\ninstall = \"docker\"\ntp = 8\n{extra}[workload]\n\
             concurrency = {conc}\nnum_requests = {conc}\nprompt_len = 16\noutput_len = 101\n"
        );
        let p = d.join("s.toml");
        std::fs::write(&p, text).expect("write scenario");
        f(&run_json(&p.display().to_string())["throughput"]["mean_iteration_ms"])
    };
    mean("", &format!("glm-c{conc}-untuned"))
        - mean("moe_tuned_config = true\n", &format!("glm-c{conc}-tuned"))
}

/// vLLM 0.11.0's default is the measured tile at M ≤ E = 160 only: a batch of 160 pays 89 ×
/// 15.69 µs = 1.3964 ms a decode step (the one prefill step, 2,560 tokens, pays none: the mean
/// over the run's iterations is 1.3964 × the decode steps' share, ≥ 100 / 101; ± 0.002 ms), a
/// batch of 512 (M > E: the unmeasured 64 × 64 × 32 default) nothing (|difference| < 1e-9 ms).
#[test]
fn glm46_vllm_0110_tile_is_charged_up_to_e_tokens() {
    let at_160 = tile_cost_ms(160);
    assert!(
        at_160 > 1.3964 * 100.0 / 101.0 - 0.002 && at_160 < 1.3964 + 0.002,
        "{at_160}"
    );
    let at_512 = tile_cost_ms(512);
    assert!(at_512.abs() < 1e-9, "{at_512}");
}

/// DeepSeek-R1-0528 block FP8 under vLLM 0.11.0 on H200 finds its shipped
/// `E=256,N=256,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128,128].json`: no log line;
/// and a vLLM release whose default tile was not read (0.19.0) refuses `moe_tuned_config = false`.
#[test]
fn shipped_fp8_file_and_unread_releases_keep_the_tuned_call() {
    let ds = run_json(&scenario(
        "validation/deepseek-r1-h200x8-vllm-0.11-tp8-sharegpt-c4.toml",
    ));
    assert!(!warned(&ds, "Using default MoE config"), "{ds}");
    let v19 = edited_variant(GLM_C1, "h200_63-v019", |t| {
        t.replacen("[engine]\n", "[engine]\nmoe_tuned_config = false\n", 1)
            .replace("version = \"0.11.0\"", "version = \"0.19.0\"")
    });
    let o = tpsim(&["run", &v19]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("engine.moe_tuned_config") && o.stderr.contains("0.11.0"),
        "{}",
        o.stderr
    );
}

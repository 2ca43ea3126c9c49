//! b200moe62 (issue #18): SGLang's untuned triton fused-MoE tile on SM 10.0 (B200).
//!
//! Source (tests/data/moe-untuned-b200.tsv line 2): sglang PR 7004, Llama-4-Scout-17B-16E bf16 on
//! 8× B200 at c 16 (1000 / 1000 tokens, 128 prompts), TPOT 9.67 ms with `get_default_config`'s
//! 16 × 32 × 64 tile and 8.97 ms with the PR's `triton_3_3_0/E=16,N=1024,device_name=NVIDIA_B200.json`.
//! Scout has 48 MoE layers (`num_hidden_layers` 48, `interleave_moe_layer_step` 1), so the tile costs
//! (9.67 − 8.97) ms ÷ 48 = 14.583 µs a MoE layer, the figure `sim/src/decode/passes/moe_call.rs`
//! charges a bf16 / fp16 triton MoE layer on SM 10.0 under `engine.moe_tuned_config = false`.

use crate::common::*;

/// By hand: 0.70 ms ÷ 48 = 0.0145833 ms = 14.583 µs (± 0.001 µs, the rounding of the tsv's
/// per-layer column). The row's `per_layer_us` column, its TPOTs and its layer count agree, and its
/// config file (E 16, N 1024) is the one `triton_3_3_0` file every tabled SGLang release ships.
#[test]
fn pr7004_pair_gives_the_sm100_untuned_charge() {
    let t = read_tsv(&data_path("moe-untuned-b200.tsv"));
    let c = |n: &str| t.col(n);
    let r = t
        .rows
        .iter()
        .find(|r| r.cells[c("source")].starts_with("https://github.com/sgl-project/sglang/pull/7004"))
        .expect("PR 7004 row");
    let num = |n: &str| -> f64 { r.cells[c(n)].parse().expect("number") };
    let per_layer = (num("default_ms") - num("tuned_ms")) * 1000.0 / num("moe_layers");
    assert!((per_layer - 14.583).abs() < 0.001, "{per_layer}");
    assert!((num("per_layer_us") - per_layer).abs() < 0.001);
    assert_eq!((num("e_per_rank"), num("n_per_rank")), (16.0, 1024.0));
    let shipped = std::fs::read_to_string(scenario("engines/moe-configs/sglang.toml")).expect("sglang.toml");
    assert!(shipped.contains("\"E=16,N=1024,device_name=NVIDIA_B200.json\""));
    // Only one row of the file is used: the rest lack a figure or sit outside batch 1–100.
    let used = t
        .rows
        .iter()
        .filter(|r| r.cells[c("regime")].starts_with("used"))
        .count();
    assert_eq!(used, 1);
}

/// The charge on a bundled row: Qwen3-235B-A22B bf16 under SGLang 0.5.6 on 8× B200 at TP 8, c 1
/// (triton fused MoE, no `E=128,N=192` B200 file). Against the same file with
/// `engine.moe_tuned_config = true` its `moe` op a step is 94 MoE layers × 14.583 µs = 1.3708 ms
/// longer (± 0.002 ms: integer-ns rounding over 94 layers), and the engine's log line is warned
/// with the B200 pair named.
#[test]
fn qwen3_235b_b200_row_carries_the_untuned_tile() {
    let file = "validation/qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml";
    let untuned = run_json(&scenario(file));
    let tuned = run_json(&edited_variant(file, "b200moe62-tuned", |t| {
        t.replacen("[engine]\n", "[engine]\nmoe_tuned_config = true\n", 1)
    }));
    let moe = |v: &serde_json::Value| f(&v["breakdown_by_op"]["moe"]);
    let d = moe(&untuned) - moe(&tuned);
    assert!((d - 94.0 * 0.014583).abs() < 0.002, "{d}");
    assert!(
        warned(&untuned, "measured at c 16 on 8× B200 (sglang PR 7004"),
        "{untuned}"
    );
}

/// Block FP8 experts on SM 10.0 take no untuned charge (PR 7004 is bf16; FP8's default is a
/// 64-row tile with no B200 pair): MiniMax-M2.5 FP8 under SGLang 0.5.8 on 8× B200, whose
/// `E=32,N=1536` fp8 file is not shipped, keeps its `moe` op at 3.8693 ms a step at c 1
/// (± 0.001 ms), as before this change, and is told it is not charged.
#[test]
fn block_fp8_b200_row_takes_no_untuned_charge() {
    let v = run_json(&scenario(
        "validation/minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c1.toml",
    ));
    let moe = f(&v["breakdown_by_op"]["moe"]);
    assert!((moe - 3.8693).abs() < 0.001, "{moe}");
    assert!(warned(&v, "not charged"), "{v}");
}

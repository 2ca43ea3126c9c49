//! mmnorm61 (issue #17): the kernels SGLang launches for MiniMax-M2's q and k norms, by release
//! (`sim/src/decode/passes/sgl_minimax_qk_norm.rs`, read in the sglang 0.5.5 – 0.5.11 wheels'
//! `models/minimax_m2.py`; book/src/validation.md "MiniMax-M2's q/k-norm kernels (mmnorm61)").
//!
//! tpsim's layer template counted one q/k-norm kernel a layer. SGLang 0.5.5 – 0.5.7 runs each norm
//! through `@torch.compile` (inductor), split at its allreduce: a reduction and a normalize, four a
//! layer at TP > 1; from 0.5.8 `forward_qk` launches `rms_sumsq_serial` and `rms_apply_serial`, two.
//! Beyond one token each release also copies the q and k column slices (`.contiguous()`): two more.
//! The kernels per decode step are read off the simulator as rocm61 does (the step's growth when the
//! MI300X's `kernel_overhead` goes from 4.3 to 5.3 µs: `rocm61::step_and_kernels`).

use crate::common::{edited_variant, f, run_json, scenario};
use crate::rocm61::step_and_kernels;

/// MiniMax-M2.5 / M2 / M2.7 have 62 layers, each with the q/k norm (presets `minimax-m2.5`,
/// `minimax-m2.7`: `num_hidden_layers` 62 of the published configs).
const LAYERS: f64 = 62.0;

/// The MiniMax-M2 c 1 row (SGLang 0.5.7, 4× MI300X TP 4) ran 1,615 kernels a step before mmnorm61
/// (rocm61's table); it now runs 3 more a layer (4 launched, the template's 1 kept): 1,615 + 62 × 3
/// = 1,801. The MiniMax-M2.7 c 1 row (SGLang 0.5.13, 2× MI300X TP 2) ran 1,739; from 0.5.8 the
/// norms are 2 kernels, 1 more a layer: 1,739 + 62 = 1,801. Read off the mean TPOT (every step
/// grows by its kernels × 1 µs; the median picks a step whose context may differ): ± 1.
#[test]
fn kernels_a_step_by_release() {
    for (name, before, extra) in [
        ("minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c1", 1615.0, 3.0),
        ("minimax-m2.7-mi300x2-sglang-0.5.13-tp2-ep2-1k1k-c1", 1739.0, 1.0),
    ] {
        let (_, k) = step_and_kernels(name, false);
        let want = before + LAYERS * extra;
        assert!((k - want).abs() < 1.0, "{name}: {k} kernels a step, want {want}");
    }
}

/// The same MiniMax-M2 c 1 file under 0.5.8: two launches a layer fewer than 0.5.7 (4 → 2) and one
/// allreduce fewer (mi300x59). The 0.5.7 step's three extra kernels move 14,352 B, the 0.5.8 one
/// 14,368 B (`sgl_minimax_qk_norm` unit test): the same traffic, so the mean TPOT differs by
/// 62 × (the reported 16 B allreduce + 2 × the MI300X's 4.3 µs a kernel, amd-instinct.toml) =
/// 62 × (6.70 + 8.60) µs = 0.949 ms (± 0.005 ms); before mmnorm61 it was the allreduces alone,
/// 0.415 ms (mi300x59).
#[test]
fn minimax_m2_0_5_7_against_0_5_8() {
    let file = "validation/minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c1.toml";
    let early = run_json(&scenario(file));
    let late = run_json(&edited_variant(file, "mmnorm61-minimax-058", |t| {
        t.replace("version = \"0.5.7\"", "version = \"0.5.8\"")
    }));
    let tpot = |r: &serde_json::Value| f(&r["serving"]["tpot_ms"]["mean"]);
    let qk_us = f(&early["collectives"]["qk_norm_allreduce_us"]);
    assert!((qk_us - 6.70).abs() < 0.01, "{qk_us}");
    let diff = tpot(&early) - tpot(&late);
    let want = LAYERS * (qk_us + 2.0 * 4.3) / 1000.0;
    assert!(
        (diff - want).abs() < 0.005,
        "0.5.7 − 0.5.8: {diff} ms, want {want}"
    );
    assert!((diff - 0.949).abs() < 0.005, "0.5.7 − 0.5.8: {diff} ms");
}

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
/// = 1,801 (± 3: the TPOT is a median of integer-nanosecond steps). The MiniMax-M2.7 c 1 row
/// (SGLang 0.5.13, 2× MI300X TP 2) ran 1,739; from 0.5.8 the norms are 2 kernels, 1 more a layer:
/// 1,739 + 62 = 1,801. At c 16 the 0.5.7 row adds the two copies: 1,602 + 62 × 5 = 1,912.
#[test]
fn kernels_a_step_by_release() {
    for (name, before, extra) in [
        ("minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c1", 1615.0, 3.0),
        ("minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c16", 1602.0, 5.0),
        ("minimax-m2.7-mi300x2-sglang-0.5.13-tp2-ep2-1k1k-c1", 1739.0, 1.0),
    ] {
        let (_, k) = step_and_kernels(name, true);
        let want = before + LAYERS * extra;
        assert!((k - want).abs() < 3.0, "{name}: {k} kernels a step, want {want}");
    }
}

/// The same MiniMax-M2 c 1 file under 0.5.8: two launches a layer fewer than 0.5.7 (4 → 2) and one
/// allreduce fewer (mi300x59). The TPOT difference is 62 × (the reported 16 B allreduce, 6.70 µs
/// + two kernels at the MI300X's 4.3 µs fixed cost and their 16 kB of traffic): pinned at 0.956 ms
/// (± 0.01), 0.415 ms of it the allreduces, so 0.541 ÷ 124 = 4.36 µs a kernel, 4.3 µs + under
/// 0.1 µs of bytes (± 0.1 µs).
#[test]
fn minimax_m2_0_5_7_against_0_5_8() {
    let file = "validation/minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c1.toml";
    let early = run_json(&scenario(file));
    let late = run_json(&edited_variant(file, "mmnorm61-minimax-058", |t| {
        t.replace("version = \"0.5.7\"", "version = \"0.5.8\"")
    }));
    let tpot = |r: &serde_json::Value| f(&r["serving"]["tpot_ms"]["p50"]);
    let qk_us = f(&early["collectives"]["qk_norm_allreduce_us"]);
    let diff = tpot(&early) - tpot(&late);
    assert!((diff - 0.956).abs() < 0.01, "0.5.7 − 0.5.8: {diff} ms");
    let per_kernel_us = (diff - LAYERS * qk_us / 1000.0) * 1000.0 / (2.0 * LAYERS);
    assert!((per_kernel_us - 4.36).abs() < 0.1, "{per_kernel_us} µs a kernel");
}

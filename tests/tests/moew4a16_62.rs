//! moew4a16_62 (issue #17): vLLM's fused Marlin MoE call on W4A16 routed experts
//! (`tpsim_model::llm::w4a16_moe_cost`, `tpsim::scenario::vllm_w4a16_moe`, `tpsim::decode::passes::
//! w4a16_moe`). FlagGems PR 3609 times vLLM's `fused_marlin_moe` on an H20 (SM 9.0) at 1–4,096
//! tokens (tests/data/w4a16-moe-kernels.tsv); over its nine weight-streaming rows the call is 50.60 µs
//! plus the touched experts' int4 bytes at 1.665 TB/s (0.520 of the 0.80 × 4.0 TB/s tpsim streams an
//! H20's weights at). On SM 9.0 each MoE layer of such a checkpoint under vLLM costs that.

use crate::common::*;
use tpsim_model::llm::w4a16_moe_cost;

/// cloudrift's Qwen3-Coder-480B AWQ on 8× H200 as two TP 4 EP engines, one stream (deploys24).
const CODER_H200_C1: &str = "validation/qwen3-coder-480b-awq-h200x8-vllm-0.11-tp4-ep-replica-of-2-c1.toml";

/// awq57's GLM-4.5-Air AWQ (int4 g32 experts) on 4× RTX 5090 at TP 4 with expert parallelism.
const GLM_AIR_TP4_EP: &str = "validation/glm-4.5-air-awq-rtx5090x4-vllm-0.11-tp4-ep-c200.toml";

/// The H200 run names the kernel and the fit's figures (50.6 µs, 0.520, 1.665 TB/s, 9 rows).
#[test]
fn h200_run_names_fused_marlin_moe_and_its_fit() {
    let j = run_json(&scenario(CODER_H200_C1));
    assert!(
        warned(
            &j,
            "vLLM's fused_marlin_moe on SM 90: tpsim costs each MoE layer's routed experts at 50.6 µs a call \
             over its 5 kernels plus their int4 weights streamed at 0.520 of the op class's efficiency \
             (1.665 TB/s on an H20's 4.0)"
        ),
        "{}",
        j["warnings"]
    );
    assert!(warned(&j, "a fit to 9 timings on an H20, SM 9.0, transferred"));
}

/// At one stream a rank's MoE layer is the fitted call plus the router: per layer (62 layers) the MoE
/// op must exceed the call's fixed part plus the two experts a rank expects (8 picks over 4 EP ranks)
/// at the H200's full 4.8 TB/s, 50.60 + 2 × 3 × 6,144 × 2,560 × 0.515625 B / 4.8 TB/s = 60.74 µs, and
/// stay under the fixed part plus four experts (a rank drawing twice its share) streamed at the fit's
/// factor of a 0.5 class efficiency, 50.60 + 97.32 MB / (0.520 × 0.5 × 4.8 TB/s) = 128.6 µs, plus ten
/// 3 µs kernels (router, top-k, norm) = 158.6 µs. Without the fit it was 46.5 µs (2.88 ms a step).
#[test]
fn h200_c1_moe_layer_lies_between_the_fits_bounds() {
    let j = run_json(&scenario(CODER_H200_C1));
    let per_layer_us = f(&j["breakdown_by_op"]["moe"]) * 1e3 / 62.0;
    let expert = 3.0 * 6144.0 * 2560.0 * 0.515625;
    let fit = w4a16_moe_cost::fit(90).unwrap();
    let lo = fit.fixed_us + 2.0 * expert / 4.8e12 * 1e6;
    let hi = fit.fixed_us + 4.0 * expert / (fit.factor * 0.5 * 4.8e12) * 1e6 + 30.0;
    assert!((lo - 60.74).abs() < 0.01 && (hi - 158.6).abs() < 0.1, "{lo} {hi}");
    assert!((lo..=hi).contains(&per_layer_us), "{per_layer_us} µs a layer");
}

/// Without expert parallelism GLM-4.5-Air's experts split 1,408 / 4 = 352 a rank, not a multiple of
/// max(64, group 32) = 64: vLLM 0.11.0 warns that AWQMoeMarlin does not support the layer and falls
/// back to `moe_wna16` (awq_marlin.py), which tpsim says it does not measure. With it (whole experts,
/// 1,408 % 64 = 0) the experts run `fused_marlin_moe`; on SM 12.0 no timing is bundled and the run
/// says so.
#[test]
fn glm_air_falls_back_to_moe_wna16_without_expert_parallelism() {
    let no_ep = edited_variant(GLM_AIR_TP4_EP, "moew4a16_62_glm_no_ep", |t| {
        t.replace("enable_expert_parallel = true\n", "")
    });
    let j = run_json(&no_ep);
    assert!(
        warned(
            &j,
            "vLLM 0.11.0 logs: \"Layer '…experts' is not supported by AWQMoeMarlin. Falling back to Moe WNA16 \
             kernels.\" (hidden 4096, expert intermediate 352 a rank, group 32"
        ),
        "{}",
        j["warnings"]
    );
    let ep = run_json(&scenario(GLM_AIR_TP4_EP));
    assert!(warned(
        &ep,
        "vLLM's fused_marlin_moe on SM 120: no timing of it is bundled for this SM"
    ));
    assert!(!warned(&ep, "Falling back to Moe WNA16"));
}

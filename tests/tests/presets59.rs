//! presets59 (issue #17): presets and an alias for models users launched that tpsim refused for want
//! of a preset (tests/data/launch-commands.tsv): `qwen3-vl-32b-instruct` (row 177; config.json
//! byte-for-byte from ai-dynamo/aiconfigurator 095f58a5), `llama-2-7b-chat` (rows 153 and 154; a public
//! quoted copy, see its README) and the alias `Qwen/Qwen3.6-35B-A3B` → `qwen3.5-35b-a3b` (row 167; the
//! checkpoint's config.json, vendored on an aiconfigurator branch, kept in tests/data/models). Weights
//! and KV cells by hand: exact integers, no tolerance.

use crate::cmdsurvey55::{options, row};
use crate::common::*;
use std::path::Path;
use tpsim::import_command_build as build;
use tpsim::scenario::Scenario;

/// `preset` under SGLang at `tp` on the hardware preset `hw`, loaded.
fn load(name: &str, preset: &str, tp: u32, hw: &str) -> Scenario {
    let p = scenario_for(name, preset, "sglang", tp, hw);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

/// Qwen/Qwen3-VL-32B-Instruct (`qwen3-vl-32b-instruct`) at tp 2, one rank, in parameters (bf16, 2 B):
/// - text tower (`qwen3-32b`'s geometry): a layer q 32 heads × 128 × 5,120 = 20,971,520, k + v 2 × 4 ×
///   128 × 5,120 = 5,242,880, o 5,120 × 4,096 = 20,971,520, q/k norms 128 + 128 = 256, MLP 3 × 5,120 ×
///   12,800 = 196,608,000, two norms 10,240 → 243,804,416, × 64 = 15,603,482,624; embedding and LM head
///   2 × 75,968 × 5,120 = 777,912,320; final norm 5,120 → 16,381,400,064;
/// - vision tower: `qwen3-vl-8b-instruct`'s 290,523,064 a rank at tp 2 (model/src/llm/tests_qwenhyb.rs
///   `qwen3_vl_8b_weights_per_rank_at_tp2`, mergers out to 4,096) with its four mergers' fc2 (the main
///   one and three DeepStack, each out × 2,304 + out a rank) out to 5,120: 4 × 1,024 × 2,305 =
///   9,441,280 more → 299,964,344.
///
/// Total (16,381,400,064 + 299,964,344) × 2 B = **33,362,728,816 B** (31.07 GiB) a rank. KV cell at tp 2:
/// 64 layers × 4 KV heads × 128 × 2 (K and V) × 2 B = 131,072.
#[test]
fn qwen3_vl_32b_weights_by_hand() {
    let layer = 20_971_520u64 + 5_242_880 + 20_971_520 + 256 + 196_608_000 + 10_240;
    assert_eq!(layer, 243_804_416);
    let text = 64 * layer + 777_912_320 + 5_120;
    assert_eq!(text, 16_381_400_064);
    let tower = 290_523_064u64 + 4 * 1_024 * 2_305;
    assert_eq!(tower, 299_964_344);
    let vl = load("p59-vl32-tp2", "qwen3-vl-32b-instruct", 2, "h200-8x-nvlink");
    assert_eq!(vl.model.weight_bytes_per_rank(2).0, 2 * (text + tower));
    assert_eq!(2 * (text + tower), 33_362_728_816);
    assert_eq!(vl.model.kv_cell_bytes(2), 131_072);
    // The text tower is Qwen3-32B's: the preset weighs exactly the text part.
    assert_eq!(preset_spec("qwen3-32b").weight_bytes_per_rank(2).0, 2 * text);
    assert_eq!(vl.model.context_len, Some(262_144));
}

/// meta-llama/Llama-2-7b-chat-hf (`llama-2-7b-chat`): 32 layers, hidden 4,096, 32 heads and 32 KV heads
/// of 128, SwiGLU 11,008, untied 32,000 vocabulary, fp16 (2 B). Parameters at tp 1: a layer q, k, v, o
/// 4 × 4,096 × 4,096 = 67,108,864, MLP 3 × 4,096 × 11,008 = 135,266,304, two norms 8,192 →
/// 202,383,360, × 32 = 6,476,267,520; embedding and LM head 2 × 32,000 × 4,096 = 262,144,000; final norm
/// 4,096 → **6,738,415,616** (the "7B"; Meta's model card: 7B) → 13,476,831,232 B. At tp 2 a rank: a
/// layer 4 × 2,048 × 4,096 + 3 × 4,096 × 5,504 + 8,192 = 101,195,776, × 32 = 3,238,264,832; embedding
/// and head 2 × 16,000 × 4,096 = 131,072,000; final norm 4,096 → 3,369,340,928 × 2 B = 6,738,681,856.
/// KV cell: 32 × 32 × 128 × 2 × 2 B = 524,288 at tp 1, 262,144 at tp 2.
#[test]
fn llama_2_7b_chat_parameters_and_weights_by_hand() {
    let layer = 67_108_864u64 + 135_266_304 + 8_192;
    assert_eq!(layer, 202_383_360);
    let total = 32 * layer + 262_144_000 + 4_096;
    assert_eq!(total, 6_738_415_616);
    let s1 = load("p59-l2-7b-tp1", "llama-2-7b-chat", 1, "h100-sxm-1x");
    assert_eq!(s1.model.weight_bytes_per_rank(1).0, 2 * total);
    assert_eq!(s1.model.kv_cell_bytes(1), 524_288);
    let layer2 = 4 * 2_048 * 4_096u64 + 3 * 4_096 * 5_504 + 8_192;
    assert_eq!(layer2, 101_195_776);
    let rank = 32 * layer2 + 131_072_000 + 4_096;
    let s2 = load("p59-l2-7b-tp2", "llama-2-7b-chat", 2, "h200-8x-nvlink");
    assert_eq!(s2.model.weight_bytes_per_rank(2).0, 2 * rank);
    assert_eq!(2 * rank, 6_738_681_856);
    assert_eq!(s2.model.kv_cell_bytes(2), 262_144);
    assert_eq!(s2.model.context_len, Some(4_096));
}

/// Qwen/Qwen3.6-35B-A3B's config.json (tests/data/models/qwen3.6-35b-a3b, its README lists the keys that
/// differ) lowers to the model `qwen3.5-35b-a3b`'s does, field for field of the `ModelSpec`. Both files
/// give the rotary factor 0.25 in `text_config.rope_parameters` (Qwen3.6's also at
/// `text_config.partial_rotary_factor`); since the lead's follow-up tpsim reads it from either
/// (`llm::partial_rotary`, as vLLM 0.17 / 0.19 `get_rope` and SGLang 0.5.9 `qwen3_5.py` do), so both
/// caches are 256 × 0.25 = 64 wide. The alias gives Qwen3.6 the preset's figures; and it resolves.
#[test]
fn qwen3_6_35b_a3b_is_the_qwen3_5_preset() {
    let q36 = bf16_spec(data_path("models/qwen3.6-35b-a3b/config.json"));
    let q35 = preset_spec("qwen3.5-35b-a3b");
    assert_eq!((q36.rotary_dim, q35.rotary_dim), (Some(64), Some(64)));
    assert_eq!(q36, q35);
    assert_eq!(
        build::preset_of("Qwen/Qwen3.6-35B-A3B").as_deref(),
        Ok("qwen3.5-35b-a3b")
    );
}

/// The new presets resolve by their repository ids (hf-ids.toml `[ids]`), and a local directory by its
/// last component (row 177's `//Qwen3-VL-32B-Instruct/`).
#[test]
fn new_ids_resolve() {
    for (id, preset) in [
        ("Qwen/Qwen3-VL-32B-Instruct", "qwen3-vl-32b-instruct"),
        ("meta-llama/Llama-2-7b-chat-hf", "llama-2-7b-chat"),
        ("//Qwen3-VL-32B-Instruct/", "qwen3-vl-32b-instruct"),
    ] {
        assert_eq!(build::preset_of(id).as_deref(), Ok(preset), "{id}");
    }
}

/// Survey rows that the new presets unlock import as their preset: 153 (SGLang 0.4.3,
/// `meta-llama/Llama-2-7b-chat-hf` on 1× H100), 167 (vLLM, `Qwen/Qwen3.6-35B-A3B`, through the alias,
/// noted) and 177 (vLLM 0.11.0, `//Qwen3-VL-32B-Instruct/ --tensor-parallel-size=2`). Row 153 starts
/// (`tpsim memory`: 12.55 GiB of fp16 weights on an 80 GB H100). Row 154 (the same model with the EAGLE
/// draft `lmzheng/sglang-EAGLE-llama2-chat-7B`) is still refused, now for the draft alone.
#[test]
fn survey_rows_that_now_import() {
    for (n, preset) in [
        (153, "llama-2-7b-chat"),
        (167, "qwen3.5-35b-a3b"),
        (177, "qwen3-vl-32b-instruct"),
    ] {
        let r = row(n);
        assert_eq!(r.class, "ok", "row {n}");
        let i = build::import(&r.command, &options(&r)).unwrap_or_else(|e| panic!("row {n}: {e}"));
        assert!(
            i.text.contains(&format!("preset = \"{preset}\"")),
            "row {n}: {}",
            i.text
        );
    }
    let r = row(167);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(
        i.notes
            .iter()
            .any(|x| x.contains("`Qwen/Qwen3.6-35B-A3B` has the same config.json")),
        "{:?}",
        i.notes
    );
    let r = row(153);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    let f = scratch("p59-row153").join("s.toml");
    std::fs::write(&f, &i.text).expect("write");
    let o = tpsim(&["memory", f.to_str().expect("utf-8")]);
    assert!(o.stdout.contains("Verdict: starts"), "{}{}", o.stdout, o.stderr);
    let e = build::import(&row(154).command, &options(&row(154))).expect_err("the draft");
    assert!(
        e.contains("`lmzheng/sglang-EAGLE-llama2-chat-7B` is no bundled model preset"),
        "{e}"
    );
}

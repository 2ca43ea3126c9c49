//! presets61 (issue #17): presets for models the surveyed launch commands name and tpsim refused for
//! want of one (tests/data/launch-commands.tsv): `qwen3-0.6b` (row 212) and `deepseek-v4-flash`
//! (rows 99, 100, 197, 198, 199), both config.json byte-for-byte from ai-dynamo/aiconfigurator
//! 095f58a5 (the presets' READMEs). Parameters, weights and KV cells by hand: exact integers, no
//! tolerance.

use crate::cmdsurvey55::{has_line, options, row};
use crate::common::*;
use std::path::Path;
use tpsim::import_command_build as build;
use tpsim::scenario::Scenario;
use tpsim_model::llm::ModelConfig;
use tpsim_model::llm::deepseek_v4::Geometry;

/// `preset` under `engine` at `tp` on the hardware preset `hw`, loaded.
fn load(name: &str, preset: &str, engine: &str, tp: u32, hw: &str) -> Scenario {
    let p = scenario_for(name, preset, engine, tp, hw);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

fn json(path: impl AsRef<Path>) -> serde_json::Value {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Qwen/Qwen3-0.6B (`qwen3-0.6b`; hidden 1,024, 28 layers, 16 query / 8 KV heads of 128, SwiGLU
/// 3,072, vocabulary 151,936 tied to the LM head), in parameters:
/// - a layer: q 1,024 × 2,048 = 2,097,152, k + v 2 × 1,024 × 1,024 = 2,097,152, o 2,048 × 1,024 =
///   2,097,152, q/k norms 128 + 128 = 256, MLP 3 × 1,024 × 3,072 = 9,437,184, two norms 2,048 →
///   15,730,944, × 28 = 440,466,432;
/// - embedding (the LM head is the same tensor) 151,936 × 1,024 = 155,582,464; final norm 1,024.
///
/// Total **596,049,920** (the card's "0.6B"; 440,467,456 without the embedding), × 2 B (bf16) =
/// 1,192,099,840 B at tp 1. At tp 2 a rank holds 8 query / 4 KV heads and 1,536 of the MLP: a layer
/// 3 × 1,048,576 + 256 + 3 × 1,024 × 1,536 + 2,048 = 7,866,624, × 28 = 220,265,472, plus half the
/// vocabulary 75,968 × 1,024 = 77,791,232 and the final norm → 298,057,728 × 2 B = 596,115,456 B.
/// KV cell: 28 layers × 8 KV heads × 128 × 2 (K and V) × 2 B = 114,688 at tp 1, 57,344 at tp 2.
#[test]
fn qwen3_0_6b_parameters_and_weights_by_hand() {
    let layer = 3 * 2_097_152u64 + 256 + 9_437_184 + 2_048;
    assert_eq!(layer, 15_730_944);
    let total = 28 * layer + 155_582_464 + 1_024;
    assert_eq!(total, 596_049_920);
    assert_eq!(total - 155_582_464, 440_467_456);
    let s1 = load("p61-q06-tp1", "qwen3-0.6b", "vllm", 1, "rtx-4090-1x");
    assert_eq!(s1.model.weight_bytes_per_rank(1).0, 2 * total);
    assert_eq!(s1.model.kv_cell_bytes(1), 114_688);
    assert_eq!(s1.model.context_len, Some(40_960));
    let layer2 = 3 * 1_048_576u64 + 256 + 3 * 1_024 * 1_536 + 2_048;
    assert_eq!(layer2, 7_866_624);
    let rank = 28 * layer2 + 75_968 * 1_024 + 1_024;
    assert_eq!(rank, 298_057_728);
    let s2 = load("p61-q06-tp2", "qwen3-0.6b", "sglang", 2, "rtx-4090-2x-no-p2p");
    assert_eq!(s2.model.weight_bytes_per_rank(2).0, 2 * rank);
    assert_eq!(s2.model.kv_cell_bytes(2), 57_344);
}

/// The `deepseek-v4-flash` preset's config.json (the release's, aiconfigurator 095f58a5) is the model
/// families29 counted from the later `DeepSeek-V4-Flash-0731` revision (tests/data/models): key for key
/// the same but for that revision's DSpark draft keys (`dspark_*`) and its extra `compress_ratios`
/// entries past the 43 decoder layers, so the same geometry and the same parameters by hand
/// (model/src/llm/tests_families29.rs): 284,332,240,471 in all, 13,799,632,471 touched by a token.
#[test]
fn deepseek_v4_flash_preset_is_the_families29_model() {
    let preset = json(scenario("models/deepseek-v4-flash/config.json"));
    let later = json(data_path("models/deepseek-v4-flash/config.json"));
    let (p, l) = (
        preset.as_object().expect("object"),
        later.as_object().expect("object"),
    );
    for (k, v) in l {
        if k.starts_with("dspark_") {
            assert!(!p.contains_key(k), "{k}");
        } else if k == "compress_ratios" {
            let (a, b) = (p[k].as_array().expect("list"), v.as_array().expect("list"));
            assert_eq!((a.len(), b.len()), (44, 46));
            assert_eq!(a[..43], b[..43]);
        } else {
            assert_eq!(p.get(k), Some(v), "{k}");
        }
    }
    assert!(p.keys().all(|k| l.contains_key(k)));
    let text = std::fs::read_to_string(scenario("models/deepseek-v4-flash/config.json")).expect("config");
    let g = Geometry::read(&ModelConfig::from_json(&text).expect("parses")).expect("reads");
    assert_eq!(
        (g.layers_of_ratio(0), g.layers_of_ratio(4), g.layers_of_ratio(128)),
        (2, 21, 20)
    );
    assert_eq!(g.params(), 284_332_240_471);
    assert_eq!(g.active_params(), 13_799_632_471);
}

/// The new presets resolve by their repository ids (hf-ids.toml `[ids]`) and a local directory by its
/// last component.
#[test]
fn new_ids_resolve() {
    for (id, preset) in [
        ("Qwen/Qwen3-0.6B", "qwen3-0.6b"),
        ("deepseek-ai/DeepSeek-V4-Flash", "deepseek-v4-flash"),
        ("/data/pretrained/DeepSeek-V4-Flash", "deepseek-v4-flash"),
    ] {
        assert_eq!(build::preset_of(id).as_deref(), Ok(preset), "{id}");
    }
}

/// Survey rows the presets unlock. Row 212 (gpustack issue 4280, vLLM 0.14.1, `tini -- vllm serve
/// …/Qwen/Qwen3-0.6B --pipeline-parallel-size 2 …`) imports as `qwen3-0.6b` and starts (`tpsim memory`
/// on 24 GB RTX 4090s). Row 100 (sglang PR 28620, SGLang 0.5.23, `-v …/DeepSeek-V4-Flash:/model …
/// --tp 8 --mem-fraction-static 0.91` on 8× RTX 4090) imports as `deepseek-v4-flash` and gets the
/// engine's verdict: the DeepSeek-V4 pool sizing finds no memory after 22.2 GiB of weights a rank.
/// Rows 99 and 197 (vLLM 0.22.1) and 198, 199 (vLLM's DeepSeek-V4 images, read as 0.20.0, the first
/// release registering `DeepseekV4ForCausalLM`) reach the model and are refused as not modelled
/// (tpsim models DeepSeek-V4 under SGLang only).
#[test]
fn survey_rows_that_now_reach_their_model() {
    for (n, preset) in [(212, "qwen3-0.6b"), (100, "deepseek-v4-flash")] {
        let r = row(n);
        assert_eq!(r.class, "ok", "row {n}");
        let i = build::import(&r.command, &options(&r)).unwrap_or_else(|e| panic!("row {n}: {e}"));
        assert!(
            has_line(&i.text, &format!("preset = \"{preset}\"")),
            "row {n}: {}",
            i.text
        );
        let f = scratch(&format!("p61-row{n}")).join("s.toml");
        std::fs::write(&f, &i.text).expect("write");
        let o = tpsim(&["memory", f.to_str().expect("utf-8")]);
        let verdict = if n == 212 {
            "Verdict: starts"
        } else {
            "Verdict: OOM at DSV4 pool sizing"
        };
        assert!(o.stdout.contains(verdict), "row {n}: {}{}", o.stdout, o.stderr);
    }
    for n in [99, 197, 198, 199] {
        let r = row(n);
        assert_eq!(r.class, "refused: not modelled", "row {n}");
        let e = build::import(&r.command, &options(&r)).expect_err("vLLM");
        assert!(
            e.contains("preset = \"deepseek-v4-flash\"")
                && e.contains("DeepSeek-V4 under vLLM (from 0.20.0) is not modelled"),
            "row {n}: {e}"
        );
    }
}

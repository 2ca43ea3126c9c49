//! presets64 (issue #17): Qwen's FP8 releases of models tpsim has, which launch commands of the survey
//! (tests/data/launch-commands.tsv) name: `qwen3-8b-fp8`, `qwen3-4b-fp8`, `qwen3-vl-32b-instruct-fp8`,
//! `qwen3-coder-next-fp8`, `qwen3.6-35b-a3b-fp8`, `qwen3.6-27b-fp8`. Each config.json is its base's with
//! the `quantization_config` block of Qwen/Qwen3-32B-FP8's published file appended (the presets'
//! READMEs); parameters by hand against the model cards, weights and KV cells by hand; exact integers.

use crate::common::*;
use crate::presets62::{differing_keys, json};
use std::path::Path;
use tpsim::scenario::Scenario;

/// `preset` under `engine` at `tp` on the hardware preset `hw`, loaded.
fn load(name: &str, preset: &str, engine: &str, tp: u32, hw: &str) -> Scenario {
    let p = scenario_for(name, preset, engine, tp, hw);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

/// Each FP8 preset and the bundled preset whose network it reuses.
const PAIRS: [(&str, &str); 6] = [
    ("qwen3-8b-fp8", "qwen3-8b"),
    ("qwen3-4b-fp8", "qwen3-vl-4b-instruct"),
    ("qwen3-vl-32b-instruct-fp8", "qwen3-vl-32b-instruct"),
    ("qwen3-coder-next-fp8", "qwen3-coder-next"),
    ("qwen3.6-35b-a3b-fp8", "qwen3.5-35b-a3b"),
    ("qwen3.6-27b-fp8", "qwen3.5-27b"),
];

/// Every preset's `quantization_config` is Qwen/Qwen3-32B-FP8's block (`quant_method` fp8, fmt e4m3,
/// dynamic activations, 128 × 128 blocks), and every other key is its base file's: the Qwen3-8B file
/// (ai-dynamo/aiconfigurator 095f58a5) differs from the `qwen3-8b` preset's in none, the Qwen3.6-35B-A3B
/// file is tests/data/models/qwen3.6-35b-a3b's, the others are the bundled bases'.
#[test]
fn each_config_is_its_base_with_qwens_fp8_block() {
    let block = json("models/qwen3-32b-fp8/config.json")["quantization_config"].clone();
    assert_eq!(block["weight_block_size"], serde_json::json!([128, 128]));
    let bases = [
        ("qwen3-8b-fp8", scenario("models/qwen3-8b/config.json")),
        (
            "qwen3-vl-32b-instruct-fp8",
            scenario("models/qwen3-vl-32b-instruct/config.json"),
        ),
        (
            "qwen3-coder-next-fp8",
            scenario("models/qwen3-coder-next/config.json"),
        ),
        (
            "qwen3.6-35b-a3b-fp8",
            data_path("models/qwen3.6-35b-a3b/config.json")
                .display()
                .to_string(),
        ),
        ("qwen3.6-27b-fp8", scenario("models/qwen3.5-27b/config.json")),
    ];
    for (fp8, base) in bases {
        let mut v = json(&format!("models/{fp8}/config.json"));
        assert_eq!(v["quantization_config"], block, "{fp8}");
        let text = std::fs::read_to_string(&base).unwrap();
        let b: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(differing_keys(&v, &b), ["quantization_config"], "{fp8}");
        v.as_object_mut().unwrap().remove("quantization_config");
        assert_eq!(v, b, "{fp8}");
    }
    let v = json("models/qwen3-4b-fp8/config.json");
    assert_eq!(v["quantization_config"], block);
}

/// Qwen/Qwen3-8B-FP8 (`qwen3-8b-fp8`). Parameters (card: 8.2B, 6.95B non-embedding): a layer q 4,096 ×
/// 4,096 = 16,777,216, k + v 2 × 1,024 × 4,096 = 8,388,608, o 16,777,216, q/k norms 256, MLP 3 × 4,096 ×
/// 12,288 = 150,994,944, two norms 8,192 → 192,946,432, × 36 = 6,946,071,552; embedding and LM head (untied)
/// 2 × 151,936 × 4,096 = 1,244,659,712; final norm 4,096 → **8,190,735,360**.
///
/// Weights at tp 1, fp8 with an fp32 scale per 128 × 128 block on the decoder Linears: fp8 bytes a layer
/// 16,777,216 × 2 + 4,194,304 × 2 + 50,331,648 × 3 = 192,937,984; blocks q 32 × 32 = 1,024, k and v 8 × 32
/// = 256 each, o 1,024, gate and up 96 × 32 = 3,072 each, down 32 × 96 = 3,072 → 11,776 × 4 B = 47,104;
/// norms bf16 (256 + 8,192) × 2 = 16,896 → 193,001,984 a layer, × 36 = 6,948,071,424; embedding and head
/// bf16 1,244,659,712 × 2 = 2,489,319,424; final norm 8,192 → **9,437,399,040 B** (9,000.2 MiB, `tpsim
/// memory` of survey row 173). KV cell 36 × 8 × 128 × 2 × 2 B = 147,456 at tp 1.
#[test]
fn qwen3_8b_fp8_parameters_weights_and_kv_by_hand() {
    let layer = 16_777_216 + 8_388_608 + 16_777_216 + 256 + 150_994_944 + 8_192u64;
    assert_eq!(layer, 192_946_432);
    let params = 36 * layer + 1_244_659_712 + 4_096;
    assert_eq!(params, 8_190_735_360);
    assert_eq!(preset_spec("qwen3-8b-fp8").weight_bytes_per_rank(1).0, 2 * params);
    let fp8_layer = 192_937_984 + 11_776 * 4 + 16_896u64;
    assert_eq!(fp8_layer, 193_001_984);
    let s = load("p64-q8-tp1", "qwen3-8b-fp8", "sglang", 1, "h200-8x-nvlink");
    assert_eq!(
        s.model.weight_bytes_per_rank(1).0,
        36 * fp8_layer + 2_489_319_424 + 8_192
    );
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 9_437_399_040);
    assert_eq!(s.model.kv_cell_bytes(1), 147_456);
}

/// Qwen/Qwen3-4B-FP8 (`qwen3-4b-fp8`). Parameters (card: 4.0B, 3.6B non-embedding): a layer q 4,096 ×
/// 2,560 = 10,485,760, k + v 2 × 1,024 × 2,560 = 5,242,880, o 10,485,760, q/k norms 256, MLP 3 × 2,560 ×
/// 9,728 = 74,711,040, two norms 5,120 → 100,930,816, × 36 = 3,633,509,376; embedding tied to the head
/// 151,936 × 2,560 = 388,956,160; final norm 2,560 → **4,022,468,096** (the text tower of
/// `qwen3-vl-4b-instruct`, tests/tests/presets63.rs).
///
/// Weights at tp 1: fp8 bytes a layer 10,485,760 × 2 + 2,621,440 × 2 + 24,903,680 × 3 = 100,925,440;
/// blocks q 32 × 20 = 640, k and v 8 × 20 = 160 each, o 20 × 32 = 640, gate and up 76 × 20 = 1,520 each,
/// down 20 × 76 = 1,520 → 6,160 × 4 B = 24,640; norms bf16 (256 + 5,120) × 2 = 10,752 → 100,960,832 a
/// layer, × 36 = 3,634,589,952; the tied embedding bf16 777,912,320; final norm 5,120 → **4,412,507,392 B**.
/// KV cell 36 × 8 × 128 × 2 × 2 B = 147,456 at tp 1.
#[test]
fn qwen3_4b_fp8_parameters_weights_and_kv_by_hand() {
    let layer = 10_485_760 * 2 + 5_242_880 + 256 + 74_711_040 + 5_120u64;
    assert_eq!(layer, 100_930_816);
    let params = 36 * layer + 388_956_160 + 2_560;
    assert_eq!(params, 4_022_468_096);
    assert_eq!(preset_spec("qwen3-4b-fp8").weight_bytes_per_rank(1).0, 2 * params);
    let fp8_layer = 100_925_440 + 6_160 * 4 + 10_752u64;
    assert_eq!(fp8_layer, 100_960_832);
    let s = load("p64-q4-tp1", "qwen3-4b-fp8", "sglang", 1, "h200-8x-nvlink");
    assert_eq!(
        s.model.weight_bytes_per_rank(1).0,
        36 * fp8_layer + 777_912_320 + 5_120
    );
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 4_412_507_392);
    assert_eq!(s.model.kv_cell_bytes(1), 147_456);
}

/// The other four keep their bases' networks: the same parameters (bf16 lowering, tp 1), and the KV cells
/// by hand at tp 2 (bf16 KV, `kv_cache_dtype` auto): Qwen3-VL-32B 64 layers × 4 KV heads a rank × 128 × 2 ×
/// 2 B = 131,072; Qwen3-Coder-Next 12 full-attention layers × 1 KV head a rank × 256 × 2 × 2 B = 12,288;
/// Qwen3.6-35B-A3B 10 full layers × 1 × 256 × 2 × 2 B = 10,240 (survey row 200's "tokens of 10240 B");
/// Qwen3.6-27B 16 full layers × 2 × 256 × 2 × 2 B = 32,768. The fp8 presets weigh less than their bases
/// at tp 2; Qwen3-4B-FP8's text tower is `qwen3-vl-4b-instruct`'s (its bf16 weight less the vision tower,
/// 2 × 415,347,712 B, tests/tests/presets63.rs).
#[test]
fn the_other_presets_keep_their_bases_networks() {
    for (fp8, base) in PAIRS {
        let (a, b) = (preset_spec(fp8), preset_spec(base));
        if fp8 == "qwen3-4b-fp8" {
            let tower = 2 * 415_347_712u64;
            assert_eq!(a.weight_bytes_per_rank(1).0 + tower, b.weight_bytes_per_rank(1).0);
            continue;
        }
        assert_eq!(a.weight_bytes_per_rank(1), b.weight_bytes_per_rank(1), "{fp8}");
        let (sa, sb) = (
            load(&format!("p64-{fp8}"), fp8, "sglang", 2, "h200-8x-nvlink"),
            load(&format!("p64-{base}"), base, "sglang", 2, "h200-8x-nvlink"),
        );
        assert!(
            sa.model.weight_bytes_per_rank(2).0 < sb.model.weight_bytes_per_rank(2).0,
            "{fp8}"
        );
        assert_eq!(sa.model.kv_cell_bytes(2), sb.model.kv_cell_bytes(2), "{fp8}");
        let want = match fp8 {
            "qwen3-8b-fp8" => 73_728,
            "qwen3-vl-32b-instruct-fp8" => 131_072,
            "qwen3-coder-next-fp8" => 12_288,
            "qwen3.6-35b-a3b-fp8" => 10_240,
            "qwen3.6-27b-fp8" => 32_768,
            _ => unreachable!(),
        };
        assert_eq!(sa.model.kv_cell_bytes(2), want, "{fp8}");
    }
}

/// The survey rows these presets unlock import and load (cmdsurvey55's
/// `every_surveyed_command_gives_its_recorded_outcome` checks each against its recorded outcome); here
/// `tpsim memory` of row 173 (SGLang 0.4.6, `/mnt/llms/models/Qwen/Qwen3-8B-FP8/` on one RTX 5090, context
/// 8,000) prints the weights by hand above, 9,437,399,040 B = 9,000.2 MiB (÷ 1,048,576, one decimal), and
/// the KV cell 147,456 B, and starts.
#[test]
fn survey_row_173_starts_with_the_weights_by_hand() {
    let r = crate::cmdsurvey55::row(173);
    assert_eq!(r.class, "ok");
    let i = tpsim::import_command_build::import(&r.command, &crate::cmdsurvey55::options(&r))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(i.text.contains("preset = \"qwen3-8b-fp8\""), "{}", i.text);
    let p = scratch("p64-row173").join("s.toml");
    std::fs::write(&p, &i.text).unwrap();
    let out = tpsim(&["memory", p.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = &out.stdout;
    assert!(
        text.contains("target weights                             9000.2"),
        "{text}"
    );
    assert!(text.contains("tokens of 147456 B"), "{text}");
    assert!(text.contains("Verdict: starts"), "{text}");
}

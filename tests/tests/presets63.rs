//! presets63 (issue #17 coverage): presets for checkpoints deployed at the end of 2026 whose
//! config.json ai-dynamo/aiconfigurator vendors at 095f58a5, byte-for-byte (each preset's README names
//! the file, its size, git blob and SHA-256): `qwen3-vl-2b-instruct`, `qwen3-vl-4b-instruct`,
//! `deepseek-v4-pro` and `glm-5.1-nvfp4`; the alias nvidia/Kimi-K2.7-Code-NVFP4 → `kimi-k2.6-nvfp4`.
//! Parameters counted by hand against each model card; exact integers, no tolerance.

use crate::common::*;
use crate::presets62::{differing_keys, json};
use std::path::Path;
use tpsim::import_command_build as build;
use tpsim::scenario::Scenario;
use tpsim_model::llm::deepseek_v4::Geometry;
use tpsim_model::llm::quant_hf::from_checkpoint;
use tpsim_model::llm::{KvCacheDtype, ModelConfig, ModelSpec};

/// `preset` under `engine` at `tp` on the hardware preset `hw`, loaded.
fn load(name: &str, preset: &str, engine: &str, tp: u32, hw: &str) -> Scenario {
    let p = scenario_for(name, preset, engine, tp, hw);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

/// Parameters of the small Qwen3-VL ViT (24 blocks of 1,024, 16 heads, MLP 4,096, patch 16 ×
/// temporal 2 × 3 channels, 2,304 positions, 2 × 2 merge, DeepStack mergers after blocks 5, 11, 17;
/// transformers `Qwen3VLVisionModel`), its four mergers out to `out`, at tp 1:
/// - a block: two LayerNorms 4 × 1,024 = 4,096, qkv 3,072 × 1,024 + 3,072 = 3,148,800, proj 1,024 ×
///   1,024 + 1,024 = 1,049,600, fc1 4,096 × 1,024 + 4,096 = 4,198,400, fc2 1,024 × 4,096 + 1,024 =
///   4,195,328 → 12,596,224, × 24 = 302,309,376;
/// - patch Conv3d 1,024 × 1,536 + 1,024 = 1,573,888; position table 2,304 × 1,024 = 2,359,296;
/// - the main merger: LayerNorm over 1,024 (2,048), fc1 4,096 × 4,096 + 4,096 = 16,781,312, fc2
///   `out` × 4,096 + `out`; each DeepStack merger the same with its LayerNorm over the merged 4,096
///   (8,192).
fn small_qwen3_vit(out: u64) -> u64 {
    let block = 4_096 + 3_148_800 + 1_049_600 + 4_198_400 + 4_195_328u64;
    assert_eq!(block, 12_596_224);
    let fc2 = out * 4_096 + out;
    let mergers = (2_048 + 16_781_312 + fc2) + 3 * (8_192 + 16_781_312 + fc2);
    24 * block + 1_573_888 + 2_359_296 + mergers
}

/// Qwen/Qwen3-VL-2B-Instruct (`qwen3-vl-2b-instruct`), bf16 (2 B):
/// - text tower: `qwen3-1.7b`'s geometry and count (tests/tests/presets62.rs
///   `qwen3_1_7b_parameters_and_weights_by_hand`): 1,720,574,976 with the LM head tied to the embedding;
/// - vision tower, mergers out to 2,048: fc2 2,048 × 4,096 + 2,048 = 8,390,656; mergers 25,174,016 + 3 ×
///   25,180,160 = 100,714,496; 302,309,376 + 1,573,888 + 2,359,296 + 100,714,496 = 406,957,056.
///
/// Total **2,127,532,032** (the model card's "2B"), × 2 B = 4,255,064,064 B at tp 1 (4,057.9 MiB,
/// `tpsim memory` on one H200). KV cell: 28 layers × 8 KV heads × 128 × 2 (K and V) × 2 B = 114,688 at
/// tp 1.
#[test]
fn qwen3_vl_2b_parameters_and_weights_by_hand() {
    let tower = small_qwen3_vit(2_048);
    assert_eq!(tower, 406_957_056);
    let text = 1_720_574_976u64;
    assert_eq!(text + tower, 2_127_532_032);
    let s = load(
        "p63-vl2-tp1",
        "qwen3-vl-2b-instruct",
        "sglang",
        1,
        "h200-8x-nvlink",
    );
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 2 * (text + tower));
    assert_eq!(s.model.kv_cell_bytes(1), 114_688);
    assert_eq!(s.model.context_len, Some(262_144));
    // The text tower is Qwen3-1.7B's: that preset weighs exactly the text part.
    assert_eq!(preset_spec("qwen3-1.7b").weight_bytes_per_rank(1).0, 2 * text);
}

/// Qwen/Qwen3-VL-4B-Instruct (`qwen3-vl-4b-instruct`), bf16 (2 B):
/// - text tower (Qwen3-4B's geometry: hidden 2,560, 36 layers, 32 query / 8 KV heads of 128, SwiGLU
///   9,728, tied 151,936 vocabulary): a layer q 4,096 × 2,560 = 10,485,760, k + v 2 × 1,024 × 2,560 =
///   5,242,880, o 10,485,760, q/k norms 256, MLP 3 × 2,560 × 9,728 = 74,711,040, two norms 5,120 →
///   100,930,816, × 36 = 3,633,509,376; embedding (= LM head) 151,936 × 2,560 = 388,956,160; final norm
///   2,560 → 4,022,468,096;
/// - vision tower, mergers out to 2,560: fc2 2,560 × 4,096 + 2,560 = 10,488,320; mergers 27,271,680 + 3
///   × 27,277,824 = 109,105,152; 302,309,376 + 1,573,888 + 2,359,296 + 109,105,152 = 415,347,712.
///
/// Total **4,437,815,808** (the model card's "4B"), × 2 B = 8,875,631,616 B at tp 1. KV cell: 36 × 8 ×
/// 128 × 2 × 2 B = 147,456 at tp 1, 73,728 at tp 2.
#[test]
fn qwen3_vl_4b_parameters_and_weights_by_hand() {
    let layer = 10_485_760u64 + 5_242_880 + 10_485_760 + 256 + 74_711_040 + 5_120;
    assert_eq!(layer, 100_930_816);
    let text = 36 * layer + 388_956_160 + 2_560;
    assert_eq!(text, 4_022_468_096);
    let tower = small_qwen3_vit(2_560);
    assert_eq!(tower, 415_347_712);
    assert_eq!(text + tower, 4_437_815_808);
    let s = load("p63-vl4-tp1", "qwen3-vl-4b-instruct", "vllm", 1, "h200-8x-nvlink");
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 2 * (text + tower));
    assert_eq!(s.model.kv_cell_bytes(1), 147_456);
    assert_eq!(s.model.kv_cell_bytes(2), 73_728);
    assert_eq!(s.model.context_len, Some(262_144));
}

/// deepseek-ai/DeepSeek-V4-Pro (`deepseek-v4-pro`), in parameters, by families29's layout
/// (model/src/llm/deepseek_v4.rs; hidden 7,168, 128 heads of 512, q rank 1,536, 16 output groups of
/// rank 1,024, 384 experts of 3,072 top-6 and one shared, `hc_mult` 4, indexer 64 heads of 128, vocabulary
/// 129,280, 61 layers: 30 at compress ratio 4, 31 at 128, the first 3 hash-routed):
/// - attention: wq_a 7,168 × 1,536 = 11,010,048, q_norm 1,536, wkv 7,168 × 512 = 3,670,016, kv_norm
///   512, sink 128 (replicated, 14,682,240) + wq_b 1,536 × 65,536 = 100,663,296, wo_a 4,096 × 16,384 =
///   67,108,864, wo_b 16,384 × 7,168 = 117,440,512 (split, 285,212,672) → 299,894,912;
/// - two norms 14,336, mHC 2 × (24 × 4 × 7,168 + 24 + 3) = 1,376,310, router 384 × 7,168 = 2,752,512 →
///   4,143,158 (+ 384 correction bias past the hash layers);
/// - an expert 3 × 7,168 × 3,072 = 66,060,288, 385 a layer (384 routed + 1 shared) = 25,433,210,880;
/// - ratio 4: compressor 4 × 2 × 512 + 7,168 × 4 × 512 + 512 = 14,684,672, indexer wq_b 1,536 × 64 ×
///   128 = 12,582,912, weights_proj 7,168 × 64 = 458,752, its compressor 4 × 2 × 128 + 7,168 × 4 × 128 +
///   128 = 3,671,168 → 31,397,504; ratio 128: 128 × 512 + 7,168 × 2 × 512 + 512 = 7,406,080;
/// - top: embedding and head 2 × 129,280 × 7,168 = 1,853,358,080, final norm 7,168, hc_head 4 × 4 ×
///   7,168 + 4 + 1 = 114,693 → 1,853,479,941.
///
/// A layer 299,894,912 + 4,143,158 + 25,433,210,880 = 25,737,248,950; 61 × it + 58 × 384 + 30 ×
/// 31,397,504 + 31 × 7,406,080 + 1,853,479,941 = **1,572,997,201,763** (card: 1.6T); a token touches
/// 378 fewer experts a layer: − 61 × 378 × 66,060,288 = **49,779,081,059** (card: 49B activated).
/// A rank under SGLang tp 8: replicated 14,682,240 + 4,143,158, split (285,212,672 + 25,433,210,880) /
/// 8 = 3,214,802,944 → 3,233,628,342 a layer; 61 × it + 58 × 384 + the compression above + top 2 ×
/// 129,280 / 8 × 7,168 + 7,168 + 114,693 = 231,791,621 → 198,654,656,355.
#[test]
fn deepseek_v4_pro_parameters_by_hand() {
    let text = std::fs::read_to_string(scenario("models/deepseek-v4-pro/config.json")).expect("config");
    let g = Geometry::read(&ModelConfig::from_json(&text).expect("parses")).expect("reads");
    assert_eq!(
        (g.layers(), g.layers_of_ratio(4), g.layers_of_ratio(128)),
        (61, 30, 31)
    );
    assert_eq!(g.all_ratios.len(), 62);
    assert_eq!(g.attention_params(), 14_682_240 + 285_212_672);
    assert_eq!(g.attention_params(), 299_894_912);
    assert_eq!(
        (g.compression_params(4), g.compression_params(128)),
        (31_397_504, 7_406_080)
    );
    let layer = 299_894_912u64 + 4_143_158 + 385 * 66_060_288;
    assert_eq!(layer, 25_737_248_950);
    let total = 61 * layer + 58 * 384 + 30 * 31_397_504 + 31 * 7_406_080 + 1_853_479_941;
    assert_eq!(total, 1_572_997_201_763);
    assert_eq!(g.params(), total);
    assert_eq!(g.active_params(), total - 61 * 378 * 66_060_288);
    assert_eq!(g.active_params(), 49_779_081_059);
    let rank_layer = 14_682_240u64 + 4_143_158 + (285_212_672 + 25_433_210_880) / 8;
    assert_eq!(rank_layer, 3_233_628_342);
    let rank = 61 * rank_layer + 58 * 384 + 30 * 31_397_504 + 31 * 7_406_080 + 231_791_621;
    assert_eq!(rank, 198_654_656_355);
    assert_eq!(g.sglang_rank_params(8).expect("tp 8"), rank);
}

/// The new presets resolve by their repository ids (hf-ids.toml `[ids]`) and a local directory by its
/// last component.
#[test]
fn new_ids_resolve() {
    for (id, preset) in [
        ("Qwen/Qwen3-VL-2B-Instruct", "qwen3-vl-2b-instruct"),
        ("Qwen/Qwen3-VL-4B-Instruct", "qwen3-vl-4b-instruct"),
        ("deepseek-ai/DeepSeek-V4-Pro", "deepseek-v4-pro"),
        ("/data00/models/DeepSeek-V4-Pro", "deepseek-v4-pro"),
        ("nvidia/GLM-5.1-NVFP4", "glm-5.1-nvfp4"),
        ("nvidia/Kimi-K2.7-Code-NVFP4", "kimi-k2.6-nvfp4"),
        ("/models/Kimi-K2.7-Code-NVFP4", "kimi-k2.6-nvfp4"),
    ] {
        assert_eq!(build::preset_of(id).as_deref(), Ok(preset), "{id}");
    }
}

/// zai-org/GLM-5 (the network of `glm-5`, `glm-5-nvfp4` and `glm-5.1-nvfp4`; hidden 6,144, 78 layers: 3
/// dense of 12,288 then 75 MoE of 256 experts × 2,048 top 8 plus a shared one; MLA 64 heads, q_lora
/// 2,048, kv_lora 512, nope 192, rope 64, v 256; DSA indexer 32 heads × 128; vocabulary 154,880), in
/// parameters without the MTP layer:
/// - attention: q_a 6,144 × 2,048 = 12,582,912, q_a norm 2,048, q_b 2,048 × 64 × 256 = 33,554,432, kv_a
///   6,144 × 576 = 3,538,944, kv_a norm 512, kv_b 512 × 64 × 448 = 14,680,064, o 64 × 256 × 6,144 =
///   100,663,296 → 165,022,208; indexer wq_b 2,048 × 4,096 = 8,388,608, wk 6,144 × 128 = 786,432, k_norm
///   (LayerNorm) 256, weights_proj 6,144 × 32 = 196,608 → 9,371,904; 174,394,112 a layer;
/// - two norms 12,288; a dense MLP 3 × 6,144 × 12,288 = 226,492,416; a MoE layer's router 256 × 6,144 +
///   256 bias = 1,573,120 and 257 experts × 3 × 6,144 × 2,048 (37,748,736) = 9,701,425,152;
/// - embedding and head 2 × 154,880 × 6,144 = 1,903,165,440, final norm 6,144.
///
/// 3 × 400,898,816 + 75 × 9,877,404,672 + 1,903,171,584 = **743,911,218,432** (GLM-5's card: 744B); a
/// token touches 248 fewer experts in each MoE layer: 41,784,728,832, 39,881,563,392 without the
/// embedding and head (the card's "40B active"). Bytes at tp 1 as SGLang holds them (`llm::weights`): bf16
/// twice that, plus the `w_kc` / `w_vc` copies of each layer's kv_b (78 × 14,680,064 × 2 B =
/// 2,290,089,984) and the fp32 score-correction biases and indexer k_norms (2 B more each: (75 + 78) ×
/// 256 × 2 = 78,336) → 1,490,112,605,184 B.
#[test]
fn glm_5_parameters_by_hand() {
    let attention = 12_582_912u64 + 2_048 + 33_554_432 + 3_538_944 + 512 + 14_680_064 + 100_663_296;
    assert_eq!(attention, 165_022_208);
    let layer_attention = attention + 8_388_608 + 786_432 + 256 + 196_608;
    assert_eq!(layer_attention, 174_394_112);
    let dense = layer_attention + 12_288 + 226_492_416;
    let moe = layer_attention + 12_288 + 1_573_120 + 257 * 37_748_736;
    assert_eq!((dense, moe), (400_898_816, 9_877_404_672));
    let total = 3 * dense + 75 * moe + 1_903_165_440 + 6_144;
    assert_eq!(total, 743_911_218_432);
    let active = total - 75 * 248 * 37_748_736;
    assert_eq!((active, active - 1_903_165_440), (41_784_728_832, 39_881_563_392));
    let sglang = 2 * total + 78 * 14_680_064 * 2 + (75 + 78) * 256 * 2;
    assert_eq!(sglang, 1_490_112_605_184);
    assert_eq!(preset_spec("glm-5").weight_bytes_per_rank(1).0, sglang);
}

/// nvidia/GLM-5.1-NVFP4 (`glm-5.1-nvfp4`): GLM-5's network (its config.json against `glm-5-nvfp4`'s adds
/// `indexer_types`, all `full`, `mlp_layer_types`, a `quantization_config`, `bos_token_id`, and drops
/// `head_dim`), the parameters of `glm_5_parameters_by_hand`. Its exclude list keeps the three dense
/// layers whole and every MoE layer's attention and shared expert bf16, so at tp 8 against
/// `glm-5-nvfp4` (tests/tests/presets62.rs `glm_5_nvfp4_mlps_by_hand_rest_as_glm_5`):
/// - dense MLPs bf16: 3 × 3 × 6,144 × 1,536 × 2 = 169,869,312 (NVFP4 there: 47,775,792);
/// - shared experts bf16: 75 × 3 × 6,144 × 256 × 2 = 707,788,800 (NVFP4 there: 199,066,800);
/// - routed experts NVFP4 (50,961,100,800), attention with indexer, embedding, head, norms and routers as
///   there.
///
/// **+630,815,520 B** a rank (601.6 MiB: `tpsim memory` on 8× B200 prints 56,953.2 MiB of weights
/// against 56,351.6). KV cell and fp8 KV as `glm-5-nvfp4`'s.
#[test]
fn glm_5_1_nvfp4_keeps_dense_layers_and_shared_experts_bf16() {
    let diff = differing_keys(
        &json("models/glm-5.1-nvfp4/config.json"),
        &json("models/glm-5-nvfp4/config.json"),
    );
    assert_eq!(
        diff,
        [
            "bos_token_id",
            "head_dim",
            "indexer_types",
            "mlp_layer_types",
            "quantization_config",
            "transformers_version"
        ]
    );
    let cfg = json("models/glm-5.1-nvfp4/config.json");
    let kinds = cfg["indexer_types"].as_array().expect("list");
    assert!(kinds.len() == 78 && kinds.iter().all(|k| k == "full"));
    let hw = "b200-8x-nvlink";
    let s = load("p63-glm51n-tp8", "glm-5.1-nvfp4", "sglang", 8, hw);
    let base = load("p63-glm5n-tp8", "glm-5-nvfp4", "sglang", 8, hw);
    let (b, g) = (s.model.weight_breakdown(8), base.model.weight_breakdown(8));
    assert_eq!(3 * 3 * 6_144 * 1_536 * 2u64, 169_869_312);
    assert_eq!(75 * 3 * 6_144 * 256 * 2u64, 707_788_800);
    assert_eq!((b.dense_mlp, b.shared_experts), (169_869_312, 707_788_800));
    assert_eq!((g.dense_mlp, g.shared_experts), (47_775_792, 199_066_800));
    assert_eq!(b.routed_experts, 50_961_100_800);
    assert_eq!(
        (b.attention, b.embedding, b.lm_head, b.norms, b.router),
        (g.attention, g.embedding, g.lm_head, g.norms, g.router)
    );
    let added = (169_869_312 - 47_775_792) + (707_788_800 - 199_066_800);
    assert_eq!(added, 630_815_520);
    assert_eq!(
        s.model.weight_bytes_per_rank(8).0,
        base.model.weight_bytes_per_rank(8).0 + added
    );
    assert_eq!(s.model.kv_cell_bytes(8), base.model.kv_cell_bytes(8));
    assert_eq!(s.model.quantization.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
}

/// nvidia/Kimi-K2.7-Code-NVFP4 is an alias of `kimi-k2.6-nvfp4` (hf-ids.toml `[aliases]`): its
/// config.json (tests/data/models/kimi-k2.7-code-nvfp4, aiconfigurator 095f58a5) has every key of the
/// preset's with the same value but the ones listed below; its `ignore` list is the preset's plus the
/// embedding, its hf_quant_config.json's `exclude_modules` the same list, its YaRN values the preset's
/// under transformers 5's name. Lowered with the quantization it declares it weighs the preset's
/// 76,533,436,316 B a rank at tp 8 (tests/tests/presets62.rs
/// `kimi_k2_6_nvfp4_is_kimi_k2_5_with_bf16_layer0_and_shared_experts`).
#[test]
fn kimi_k2_7_code_nvfp4_is_an_alias_of_kimi_k2_6_nvfp4() {
    let dir = data_path("models/kimi-k2.7-code-nvfp4");
    let read = |name: &str| -> serde_json::Value {
        let p = dir.join(name);
        serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json")
    };
    let (cfg, hf) = (read("config.json"), read("hf_quant_config.json"));
    let preset = json("models/kimi-k2.6-nvfp4/config.json");
    let generation_defaults = [
        "bad_words_ids",
        "begin_suppress_tokens",
        "diversity_penalty",
        "do_sample",
        "early_stopping",
        "encoder_no_repeat_ngram_size",
        "exponential_decay_length_penalty",
        "forced_bos_token_id",
        "forced_eos_token_id",
        "length_penalty",
        "max_length",
        "min_length",
        "no_repeat_ngram_size",
        "num_beam_groups",
        "num_beams",
        "num_return_sequences",
        "output_scores",
        "remove_invalid_values",
        "repetition_penalty",
        "return_dict_in_generate",
        "suppress_tokens",
        "temperature",
        "top_k",
        "top_p",
        "typical_p",
    ];
    let mut expected: Vec<String> = generation_defaults
        .iter()
        .chain(&["rope_parameters", "rope_scaling"])
        .map(|k| format!("text_config.{k}"))
        .collect();
    expected.extend(["quantization_config".into(), "transformers_version".into()]);
    expected.sort();
    assert_eq!(differing_keys(&cfg, &preset), expected);
    let (ours, theirs) = (&preset["text_config"], &cfg["text_config"]);
    for k in generation_defaults {
        assert!(theirs.get(k).is_none() && ours.get(k).is_some(), "{k}");
    }
    let mut rope = theirs["rope_parameters"].clone();
    let extra = rope.as_object_mut().expect("object");
    assert_eq!(extra.remove("rope_theta"), Some(theirs["rope_theta"].clone()));
    assert_eq!(
        extra.remove("rope_type").as_ref().and_then(|v| v.as_str()),
        Some("yarn")
    );
    assert_eq!(rope, ours["rope_scaling"]);
    let (q, p) = (&cfg["quantization_config"], &preset["quantization_config"]);
    let mut ignore = p["ignore"].as_array().expect("list").clone();
    ignore.push("language_model.model.embed_tokens".into());
    let mut theirs_ignore = q["ignore"].as_array().expect("list").clone();
    let key = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    ignore.sort_by_key(key);
    theirs_ignore.sort_by_key(key);
    assert_eq!(theirs_ignore, ignore);
    assert_eq!(hf["quantization"]["exclude_modules"], q["ignore"]);
    for k in ["config_groups", "kv_cache_scheme", "quant_algo", "quant_method"] {
        assert_eq!(q[k], p[k], "{k}");
    }
    let text = std::fs::read_to_string(dir.join("config.json")).expect("read");
    let m =
        ModelSpec::from_config_json(&text, from_checkpoint(&cfg, Some(&hf)).expect("reads")).expect("lowers");
    let s = load(
        "p63-k27-tp8",
        "kimi-k2.6-nvfp4",
        "sglang",
        8,
        "rtx-pro-6000-8x-1switch",
    );
    assert_eq!(m.weight_bytes_per_rank(8).0, 76_533_436_316);
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 76_533_436_316);
    assert_eq!(m.kv_cell_bytes(8), s.model.kv_cell_bytes(8));
}

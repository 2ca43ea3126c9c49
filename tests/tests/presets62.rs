//! presets62 (issue #17): presets for checkpoints deployed in 2026 whose config.json (and ModelOpt
//! hf_quant_config.json) ai-dynamo/aiconfigurator vendors at 095f58a5, byte-for-byte (each preset's
//! README names the file, its size and SHA-256): `qwen3-1.7b`, `kimi-k2.6-nvfp4`, `deepseek-v3.2-nvfp4`,
//! `glm-5-nvfp4`, `qwen3.5-122b-a10b-nvfp4`, `gemma-4-31b-it-nvfp4`; the aliases
//! nvidia/MiniMax-M2.7-NVFP4 → `minimax-m2.5-nvfp4` and Qwen/Qwen3-VL-32B-Thinking →
//! `qwen3-vl-32b-instruct`; GLM-5.2's shared indexers refused. The DSA indexer's GEMMs now follow a
//! ModelOpt exclude list on their own (quant.toml `[projections] indexer`).
//! Parameters and weights by hand: exact integers, no tolerance.

use crate::common::*;
use std::path::Path;
use tpsim::import_command_build as build;
use tpsim::scenario::Scenario;
use tpsim_model::llm::quant_hf::from_checkpoint;
use tpsim_model::llm::{KvCacheDtype, ModelSpec, Quantization, WeightDtype, WeightFormat};

/// `preset` under `engine` at `tp` on the hardware preset `hw`, loaded.
fn load(name: &str, preset: &str, engine: &str, tp: u32, hw: &str) -> Scenario {
    let p = scenario_for(name, preset, engine, tp, hw);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

pub(crate) fn json(rel: &str) -> serde_json::Value {
    let p = scenario(rel);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The keys (at the top level and under `text_config`) whose values differ between two configs, or
/// that one of them lacks.
pub(crate) fn differing_keys(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    let (a, b) = (a.as_object().expect("object"), b.as_object().expect("object"));
    let mut out: Vec<String> = Vec::new();
    for k in a.keys().chain(b.keys()) {
        let (x, y) = (a.get(k), b.get(k));
        if k == "text_config"
            && let (Some(x), Some(y)) = (x, y)
        {
            out.extend(
                differing_keys(x, y)
                    .into_iter()
                    .map(|s| format!("text_config.{s}")),
            );
        } else if x != y && !out.contains(k) {
            out.push(k.clone());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// NVFP4 bytes of one rows × cols tensor: 0.5 B an element, one fp8 scale per 16 inputs, two fp32
/// per-tensor scales (model/src/llm/quant.rs `tensor_bytes`; ModelOpt's NVFP4 layout).
pub(crate) fn nv(rows: u64, cols: u64) -> u64 {
    rows * cols / 2 + rows * cols.div_ceil(16) + 8
}

/// Qwen/Qwen3-1.7B (`qwen3-1.7b`; hidden 2,048, 28 layers, 16 query / 8 KV heads of 128, SwiGLU 6,144,
/// vocabulary 151,936 tied to the LM head), in parameters:
/// - a layer: q 2,048 × 2,048 = 4,194,304, k + v 2 × 2,048 × 1,024 = 4,194,304, o 4,194,304, q/k norms
///   128 + 128 = 256, MLP 3 × 2,048 × 6,144 = 37,748,736, two norms 4,096 → 50,336,000, × 28 =
///   1,409,408,000;
/// - embedding (the LM head is the same tensor) 151,936 × 2,048 = 311,164,928; final norm 2,048.
///
/// Total **1,720,574,976** (the card's "1.7B"; 1,409,410,048 without the embedding, the card's "1.4B"
/// non-embedding), × 2 B (bf16) = 3,441,149,952 B at tp 1. At tp 2 a rank holds 8 query / 4 KV heads and
/// 3,072 of the MLP: a layer 3 × 2,097,152 + 256 + 3 × 2,048 × 3,072 + 4,096 = 25,170,176, × 28 =
/// 704,764,928, plus half the vocabulary 75,968 × 2,048 = 155,582,464 and the final norm → 860,349,440 ×
/// 2 B = 1,720,698,880 B. KV cell: 28 layers × 8 KV heads × 128 × 2 (K and V) × 2 B = 114,688 at tp 1,
/// 57,344 at tp 2.
#[test]
fn qwen3_1_7b_parameters_and_weights_by_hand() {
    let layer = 3 * 4_194_304u64 + 256 + 37_748_736 + 4_096;
    assert_eq!(layer, 50_336_000);
    let total = 28 * layer + 311_164_928 + 2_048;
    assert_eq!(total, 1_720_574_976);
    assert_eq!(total - 311_164_928, 1_409_410_048);
    let s1 = load("p62-q17-tp1", "qwen3-1.7b", "vllm", 1, "rtx-4090-1x");
    assert_eq!(s1.model.weight_bytes_per_rank(1).0, 2 * total);
    assert_eq!(s1.model.kv_cell_bytes(1), 114_688);
    assert_eq!(s1.model.context_len, Some(40_960));
    let layer2 = 3 * 2_097_152u64 + 256 + 3 * 2_048 * 3_072 + 4_096;
    assert_eq!(layer2, 25_170_176);
    let rank = 28 * layer2 + 75_968 * 2_048 + 2_048;
    assert_eq!(rank, 860_349_440);
    let s2 = load("p62-q17-tp2", "qwen3-1.7b", "sglang", 2, "rtx-4090-2x-no-p2p");
    assert_eq!(s2.model.weight_bytes_per_rank(2).0, 2 * rank);
    assert_eq!(s2.model.kv_cell_bytes(2), 57_344);
}

/// nvidia/Kimi-K2.6-NVFP4 (`kimi-k2.6-nvfp4`): its config.json is nvidia/Kimi-K2.5-NVFP4's
/// (`kimi-k2.5-nvfp4`) but the end-of-sequence id, `transformers_version` and the
/// `quantization_config` (producer and `ignore`), so the network and its parameters are
/// `kimi-k2.5`'s (the card's "1T total, 32B activated"). Its `ignore` list keeps layer 0 whole
/// (`layers.0*`) and every later layer's `mlp.shared_experts*` bf16 besides the attention. At tp 8, from
/// `kimi-k2.5-nvfp4`'s figures (tests/tests/presets12.rs `survey_command_2_kimi_k2_5_nvfp4_imports`,
/// 75,987,407,724 B a rank):
/// - layer 0's dense MLP bf16: 3 × 2,304 × 7,168 × 2 = 99,090,432 (NVFP4 there: 27,869,200);
/// - the 60 shared experts bf16: 3 × 256 × 7,168 × 2 × 60 = 660,602,880 (NVFP4 there: 3,096,592 × 60 =
///   185,795,520);
/// - routed experts NVFP4 as there: 71,345,479,680; attention bf16 as there: 3,286,106,112.
///
/// Total 75,987,407,724 + (99,090,432 − 27,869,200) + (660,602,880 − 185,795,520) = **76,533,436,316 B**
/// (71.28 GiB). KV fp8 e4m3 (`kv_cache_scheme`): (512 + 64) × 61 × 1 B = 35,136.
#[test]
fn kimi_k2_6_nvfp4_is_kimi_k2_5_with_bf16_layer0_and_shared_experts() {
    let diff = differing_keys(
        &json("models/kimi-k2.6-nvfp4/config.json"),
        &json("models/kimi-k2.5-nvfp4/config.json"),
    );
    assert_eq!(
        diff,
        [
            "eos_token_id",
            "quantization_config",
            "text_config.eos_token_id",
            "transformers_version"
        ]
    );
    assert_eq!(3 * 2_304 * 7_168 * 2u64, 99_090_432);
    assert_eq!(3 * 256 * 7_168 * 2 * 60u64, 660_602_880);
    let total = 75_987_407_724u64 + (99_090_432 - 27_869_200) + (660_602_880 - 185_795_520);
    assert_eq!(total, 76_533_436_316);
    let s = load(
        "p62-k26-tp8",
        "kimi-k2.6-nvfp4",
        "sglang",
        8,
        "rtx-pro-6000-8x-1switch",
    );
    let b = s.model.weight_breakdown(8);
    assert_eq!(b.routed_experts, 71_345_479_680);
    assert_eq!((b.dense_mlp, b.shared_experts), (99_090_432, 660_602_880));
    assert_eq!(b.attention, 3_286_106_112);
    assert_eq!(s.model.weight_bytes_per_rank(8).0, total);
    assert_eq!(s.model.kv_cell_bytes(8), 35_136);
    assert_eq!(s.model.quantization.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
    assert_eq!(
        tpsim::engine_args::preset_trust_remote_code("kimi-k2.6-nvfp4"),
        Some(true)
    );
}

/// nvidia/DeepSeek-V3.2-NVFP4 (`deepseek-v3.2-nvfp4`): its config.json is the `deepseek-v3.2` preset's
/// (deepseek-ai/DeepSeek-V3.2) without the fp8 `quantization_config`; its hf_quant_config.json excludes
/// nvidia/DeepSeek-V3.1-NVFP4's projections (q_a, q_b, kv_a, kv_b) plus every layer's
/// `self_attn.indexer*`. So a rank at tp 8 holds `deepseek-v3.1-nvfp4`'s 50,357,700,024 B
/// (tests/tests/presets58.rs `deepseek_v3_1_nvfp4_weights_tp8_by_hand`) plus 61 bf16 indexers
/// (replicated; index_n_heads 64 × index_head_dim 128, q_lora 1,536, hidden 7,168):
/// wq_b 8,192 × 1,536 × 2 = 25,165,824, wk 128 × 7,168 × 2 = 1,835,008, weights_proj 64 × 7,168 × 2 =
/// 917,504, k_norm (fp32 weight and bias) 256 × 4 = 1,024 → 27,919,360 a layer, 1,703,080,960 in all.
/// Total **52,060,780,984 B** (48.49 GiB). Before presets62 the exclusion was dropped and the indexer
/// counted NVFP4: wq_b nv(8,192, 1,536) = 7,077,896, wk nv(128, 7,168) = 516,104 → 8,512,528 a layer,
/// 1,183,816,752 B a rank less.
#[test]
fn deepseek_v3_2_nvfp4_weights_tp8_by_hand() {
    assert_eq!(
        differing_keys(
            &json("models/deepseek-v3.2-nvfp4/config.json"),
            &json("models/deepseek-v3.2/config.json")
        ),
        ["quantization_config"]
    );
    let indexer = 8_192 * 1_536 * 2 + 128 * 7_168 * 2 + 64 * 7_168 * 2 + 256 * 4u64;
    assert_eq!(indexer, 27_919_360);
    let total = 50_357_700_024 + 61 * indexer;
    assert_eq!(total, 52_060_780_984);
    let s = load(
        "p62-dsv32-tp8",
        "deepseek-v3.2-nvfp4",
        "sglang",
        8,
        "b200-8x-nvlink",
    );
    assert_eq!(s.model.weight_bytes_per_rank(8).0, total);
    assert_eq!(s.model.quantization.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
    let old = nv(8_192, 1_536) + nv(128, 7_168) + 64 * 7_168 * 2 + 256 * 4;
    assert_eq!(old, 8_512_528);
    assert_eq!(61 * (indexer - old), 1_183_816_752);
}

/// The indexer's format read from nvidia/DeepSeek-V3.2-NVFP4's exclude list: bf16 (quant.toml
/// `[projections] indexer`), the rest as `deepseek-v3.1-nvfp4`; the same description written out gives
/// the same bytes; a list keeping the indexer in 60 of 61 layers is refused (one format for all).
#[test]
fn dsa_indexer_follows_the_exclude_list() {
    let dir = "models/deepseek-v3.2-nvfp4";
    let cfg = json(&format!("{dir}/config.json"));
    let hf = json(&format!("{dir}/hf_quant_config.json"));
    let q = from_checkpoint(&cfg, Some(&hf)).expect("reads");
    let bf16 = WeightFormat::plain(WeightDtype::Bf16);
    assert_eq!(q.weights, WeightFormat::plain(WeightDtype::Nvfp4));
    assert_eq!(q.projections.indexer, Some(bf16));
    assert_eq!(
        (q.projections.q_b_proj, q.projections.kv_b_proj),
        (Some(bf16), Some(bf16))
    );
    assert_eq!((q.mla_down, q.projections.o_proj), (Some(bf16), None));
    let written: Quantization = toml::from_str(
        "dtype = \"nvfp4\"\nkv_cache_dtype = \"fp8_e4m3\"\nmla_down = { dtype = \"bf16\" }\nmtp = { dtype = \"bf16\" }\n\
         [projections]\nq_b_proj = { dtype = \"bf16\" }\nkv_b_proj = { dtype = \"bf16\" }\nindexer = { dtype = \"bf16\" }\n",
    )
    .expect("quant.toml syntax");
    assert_eq!(written, q);
    let text = std::fs::read_to_string(scenario(&format!("{dir}/config.json"))).expect("config");
    let m = ModelSpec::from_config_json(&text, written).expect("lowers");
    assert_eq!(m.weight_bytes_per_rank(8).0, 52_060_780_984);
    let mut cut = hf.clone();
    let list = cut["quantization"]["exclude_modules"]
        .as_array_mut()
        .expect("list");
    list.retain(|v| v.as_str() != Some("model.layers.60.self_attn.indexer*"));
    let e = from_checkpoint(&cfg, Some(&cut)).expect_err("60 of 61");
    assert!(
        e.to_string()
            .contains("the indexer kept unquantized in 60 of 61 layers"),
        "{e}"
    );
}

/// nvidia/GLM-5-NVFP4 (`glm-5-nvfp4`): its config.json is the `glm-5` preset's key for key; the
/// exclude list keeps every layer's whole attention (q_a, q_b, kv_a, kv_b, o_proj, indexer) bf16, so
/// only the MLPs are NVFP4. At tp 8 (hidden 6,144):
/// - dense MLP of layers 0–2, 12,288 / 8 = 1,536 a rank: nv(3,072, 6,144) = 9,437,184 + 1,179,648 + 8 =
///   10,616,840, nv(6,144, 1,536) = 4,718,592 + 589,824 + 8 = 5,308,424 → 15,925,264 a layer, 47,775,792;
/// - an expert's shard, 2,048 / 8 = 256: nv(512, 6,144) = 1,572,864 + 196,608 + 8 = 1,769,480,
///   nv(6,144, 256) = 786,432 + 98,304 + 8 = 884,744 → 2,654,224; × 256 routed × 75 MoE layers =
///   50,961,100,800; the shared expert × 75 = 199,066,800;
/// - attention, embedding, LM head, norms and routers: `glm-5`'s bf16 bytes.
#[test]
fn glm_5_nvfp4_mlps_by_hand_rest_as_glm_5() {
    assert!(
        differing_keys(
            &json("models/glm-5-nvfp4/config.json"),
            &json("models/glm-5/config.json")
        )
        .is_empty()
    );
    assert_eq!(nv(3_072, 6_144) + nv(6_144, 1_536), 15_925_264);
    let expert = nv(512, 6_144) + nv(6_144, 256);
    assert_eq!(expert, 2_654_224);
    let hw = "b200-8x-nvlink";
    let s = load("p62-glm5n-tp8", "glm-5-nvfp4", "sglang", 8, hw);
    let base = load("p62-glm5-tp8", "glm-5", "sglang", 8, hw);
    let (b, g) = (s.model.weight_breakdown(8), base.model.weight_breakdown(8));
    assert_eq!(b.dense_mlp, 3 * 15_925_264);
    assert_eq!(b.routed_experts, 75 * 256 * expert);
    assert_eq!(b.routed_experts, 50_961_100_800);
    assert_eq!(b.shared_experts, 75 * expert);
    assert_eq!(
        (b.attention, b.embedding, b.lm_head, b.norms, b.router),
        (g.attention, g.embedding, g.lm_head, g.norms, g.router)
    );
    assert_eq!(s.model.quantization.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
}

/// nvidia/MiniMax-M2.7-NVFP4 is an alias of `minimax-m2.5-nvfp4` (hf-ids.toml `[aliases]`): its
/// hf_quant_config.json (tests/data/models/minimax-m2.7-nvfp4, aiconfigurator 095f58a5) is the preset's
/// byte copy of nvidia/MiniMax-M2.5-NVFP4's but the producer version, and its config.json has every key
/// of the preset's with the same value (196,608 positions) but `torch_dtype` (spelt `dtype`) and
/// `transformers_version`, adding the same quantization, token ids, training-only keys, `sliding_window`
/// null (none, as the preset's absent key) and `partial_rotary_factor` 0.5 (= `rotary_dim` 64 / `head_dim`
/// 128).
#[test]
fn new_ids_and_alias_resolve() {
    for (id, preset) in [
        ("Qwen/Qwen3-1.7B", "qwen3-1.7b"),
        ("nvidia/Kimi-K2.6-NVFP4", "kimi-k2.6-nvfp4"),
        ("nvidia/DeepSeek-V3.2-NVFP4", "deepseek-v3.2-nvfp4"),
        ("nvidia/GLM-5-NVFP4", "glm-5-nvfp4"),
        ("nvidia/MiniMax-M2.7-NVFP4", "minimax-m2.5-nvfp4"),
        ("/models/MiniMax-M2.7-NVFP4", "minimax-m2.5-nvfp4"),
    ] {
        assert_eq!(build::preset_of(id).as_deref(), Ok(preset), "{id}");
    }
    let read = |p: std::path::PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&p).expect("read")).expect("json")
    };
    let dir = data_path("models/minimax-m2.7-nvfp4");
    let (mut hf, mut ours) = (
        read(dir.join("hf_quant_config.json")),
        json("models/minimax-m2.5-nvfp4/hf_quant_config.json"),
    );
    assert_ne!(hf["producer"]["version"], ours["producer"]["version"]);
    hf["producer"]["version"] = serde_json::Value::Null;
    ours["producer"]["version"] = serde_json::Value::Null;
    assert_eq!(hf, ours);
    let cfg = read(dir.join("config.json"));
    let preset = json("models/minimax-m2.5-nvfp4/config.json");
    let added = [
        "attention_dropout",
        "bos_token_id",
        "dtype",
        "eos_token_id",
        "initializer_range",
        "output_router_logits",
        "partial_rotary_factor",
        "quantization_config",
        "router_aux_loss_coef",
        "router_jitter_noise",
        "sliding_window",
    ];
    let mut expected: Vec<&str> = added.to_vec();
    expected.extend(["torch_dtype", "transformers_version"]);
    expected.sort_unstable();
    assert_eq!(differing_keys(&cfg, &preset), expected);
    for k in added {
        assert!(preset.get(k).is_none(), "{k}");
    }
    assert_eq!(
        (cfg["dtype"].as_str(), preset["torch_dtype"].as_str()),
        (Some("bfloat16"), Some("bfloat16"))
    );
    assert_eq!(cfg["max_position_embeddings"], 196_608);
    assert_eq!(cfg["partial_rotary_factor"].as_f64(), Some(0.5));
    assert_eq!(
        (preset["rotary_dim"].as_u64(), preset["head_dim"].as_u64()),
        (Some(64), Some(128))
    );
}

/// nvidia/Qwen3.5-122B-A10B-NVFP4 (`qwen3.5-122b-a10b-nvfp4`): the network is `qwen3.5-122b-a10b`'s
/// (the keys compared below); its ignore list keeps everything but the routed experts bf16. At tp 4 an
/// expert's shard is 1,024 / 4 = 256 wide (hidden 3,072): nv(512, 3,072) = 786,432 + 98,304 + 8 = 884,744,
/// nv(3,072, 256) = 393,216 + 49,152 + 8 = 442,376 → 1,327,120 (bf16: 3 × 256 × 3,072 × 2 = 4,718,592);
/// × 256 experts × 48 layers = **16,307,650,560 B** (bf16: 57,982,058,496). Every other group is
/// `qwen3.5-122b-a10b`'s bf16 bytes; the read quantization is the written-out description; the KV cell
/// fp8 (`kv_cache_scheme`), half the bf16 preset's.
#[test]
fn qwen3_5_122b_a10b_nvfp4_routed_experts_by_hand() {
    assert_eq!(
        differing_keys(
            &json("models/qwen3.5-122b-a10b-nvfp4/config.json"),
            &json("models/qwen3.5-122b-a10b/config.json")
        ),
        [
            "dtype",
            "quantization_config",
            "text_config.bos_token_id",
            "text_config.output_router_logits",
            "text_config.pad_token_id",
            "text_config.partial_rotary_factor",
            "text_config.tie_word_embeddings",
            "transformers_version",
            "vision_config"
        ]
    );
    let expert = nv(512, 3_072) + nv(3_072, 256);
    assert_eq!(expert, 1_327_120);
    assert_eq!(48 * 256 * expert, 16_307_650_560);
    assert_eq!(48 * 256 * 3 * 256 * 3_072 * 2u64, 57_982_058_496);
    let hw = "rtx-pro-6000-4x-turin-same-numa";
    let s = load("p62-q122n-tp4", "qwen3.5-122b-a10b-nvfp4", "sglang", 4, hw);
    let base = load("p62-q122-tp4", "qwen3.5-122b-a10b", "sglang", 4, hw);
    let (b, g) = (s.model.weight_breakdown(4), base.model.weight_breakdown(4));
    assert_eq!(b.routed_experts, 16_307_650_560);
    assert_eq!(g.routed_experts, 57_982_058_496);
    assert_eq!(
        (
            b.attention,
            b.shared_experts,
            b.embedding,
            b.lm_head,
            b.norms,
            b.router
        ),
        (
            g.attention,
            g.shared_experts,
            g.embedding,
            g.lm_head,
            g.norms,
            g.router
        )
    );
    assert_eq!(
        s.model.weight_bytes_per_rank(4).0,
        base.model.weight_bytes_per_rank(4).0 - 57_982_058_496 + 16_307_650_560
    );
    let written: Quantization = toml::from_str(
        "dtype = \"bf16\"\nexperts = { dtype = \"nvfp4\" }\nkv_cache_dtype = \"fp8_e4m3\"\nmtp = { dtype = \"bf16\" }\n",
    )
    .expect("quant.toml syntax");
    assert_eq!(s.model.quantization, written);
    // KV: 12 full layers × 1 KV head a rank (2 at tp 4, replicated) × 256 × 2 (K, V) × 1 B (fp8).
    assert_eq!(s.model.kv_cell_bytes(4), 12 * 256 * 2);
    assert_eq!(base.model.kv_cell_bytes(4), 2 * 12 * 256 * 2);
}

/// Qwen/Qwen3-VL-32B-Thinking is an alias of `qwen3-vl-32b-instruct`: aiconfigurator 095f58a5's copy of
/// its config.json has the preset file's SHA-256 (both READMEs name it), so it resolves there.
#[test]
fn qwen3_vl_32b_thinking_is_the_instruct_file() {
    assert_eq!(
        build::preset_of("Qwen/Qwen3-VL-32B-Thinking").as_deref(),
        Ok("qwen3-vl-32b-instruct")
    );
    assert_eq!(
        build::preset_of("nvidia/Qwen3.5-122B-A10B-NVFP4").as_deref(),
        Ok("qwen3.5-122b-a10b-nvfp4")
    );
    let text = std::fs::read(scenario("models/qwen3-vl-32b-instruct/config.json")).expect("read");
    assert_eq!(text.len(), 1_474);
}

/// zai-org/GLM-5.2 (tests/data/models/glm-5.2, aiconfigurator 095f58a5) names GLM-5's architecture but
/// shares the DSA indexer across layers (`indexer_types`: 57 of 78 `shared`): tpsim, which gives every
/// DSA layer its own indexer, refuses it as not modelled; GLM-5's own file (no `indexer_types`) and
/// nvidia/GLM-5-NVFP4's still lower.
#[test]
fn glm_5_2_shared_indexers_are_refused() {
    let text = std::fs::read_to_string(data_path("models/glm-5.2/config.json")).expect("read");
    let e = ModelSpec::from_config_json(&text, Quantization::bf16()).expect_err("shared indexers");
    let msg = e.to_string();
    assert!(
        msg.contains("architecture `GlmMoeDsaForCausalLM` is not modelled")
            && msg.contains("gives 57 of 78 layers an indexer kind `shared`"),
        "{msg}"
    );
    let glm5 = std::fs::read_to_string(scenario("models/glm-5/config.json")).expect("read");
    assert!(ModelSpec::from_config_json(&glm5, Quantization::bf16()).is_ok());
}

/// nvidia/Gemma-4-31B-IT-NVFP4 (`gemma-4-31b-it-nvfp4`): the network is `gemma-4-31b-it`'s; its ignore list
/// keeps every layer's `self_attn*`, lm_head and the vision side bf16, so only the gated MLPs are NVFP4. At
/// tp 2 (hidden 5,376, MLP 21,504 → 10,752 a rank): gate_up nv(21,504, 5,376) = 57,802,752 + 7,225,344 + 8 =
/// 65,028,104, down nv(5,376, 10,752) = 28,901,376 + 3,612,672 + 8 = 32,514,056 → 97,542,160 a layer, × 60 =
/// **5,852,529,600 B** (bf16: 3 × 10,752 × 5,376 × 2 × 60 = 20,808,990,720). The other groups are
/// `gemma-4-31b-it`'s bytes (vLLM 0.19.0, the first release serving Gemma 4).
#[test]
fn gemma_4_31b_it_nvfp4_mlps_by_hand() {
    let diff = differing_keys(
        &json("models/gemma-4-31b-it-nvfp4/config.json"),
        &json("models/gemma-4-31b-it/config.json"),
    );
    let preset = json("models/gemma-4-31b-it/config.json");
    for k in &diff {
        // Every key the preset states has the same value: the differences are additions, and
        // `vision_config`, whose preset keys all keep their value (checked below).
        if k == "vision_config" {
            let (a, b) = (
                json("models/gemma-4-31b-it-nvfp4/config.json")[k].clone(),
                &preset[k],
            );
            for (kk, v) in b.as_object().expect("object") {
                assert_eq!(&a[kk], v, "vision_config.{kk}");
            }
        } else if let Some(t) = k.strip_prefix("text_config.") {
            assert!(preset["text_config"].get(t).is_none(), "{k}");
        } else {
            assert!(preset.get(k).is_none(), "{k}");
        }
    }
    let layer = nv(21_504, 5_376) + nv(5_376, 10_752);
    assert_eq!(layer, 97_542_160);
    assert_eq!(60 * layer, 5_852_529_600);
    let hw = "rtx-pro-6000-2x-turin-same-numa";
    let s = load("p62-g4n-tp2", "gemma-4-31b-it-nvfp4", "vllm", 2, hw);
    let base = load("p62-g4-tp2", "gemma-4-31b-it", "vllm", 2, hw);
    let (b, g) = (s.model.weight_breakdown(2), base.model.weight_breakdown(2));
    assert_eq!(b.dense_mlp, 5_852_529_600);
    assert_eq!(g.dense_mlp, 3 * 10_752 * 5_376 * 2 * 60);
    assert_eq!(
        (b.attention, b.embedding, b.lm_head, b.norms, b.vision),
        (g.attention, g.embedding, g.lm_head, g.norms, g.vision)
    );
    assert_eq!(s.model.quantization.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
}

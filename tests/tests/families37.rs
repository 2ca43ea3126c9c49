//! families37 (issue #17): MiniMax-M3 (`MiniMaxM3SparseForConditionalGeneration`,
//! `tpsim_model::llm::minimax_m3`) read from its published config (tests/data/models/minimax-m3,
//! transcribed from a public dump of MiniMaxAI/MiniMax-M3's config.json; see its README), its
//! parameters counted by hand from SGLang 0.5.23 `models/minimax_m3.py` and checked against a public
//! weight inventory of the checkpoint, then refused under both engines as not modelled (exit 2, no
//! throughput or memory plan); and Hy3's preset config, now the full key set quoted from
//! tencent/Hy3's config.json.

use crate::common::*;
use tpsim_model::llm::ModelConfig;
use tpsim_model::llm::minimax_m3::Geometry;

/// The published MiniMax-M3 config, read.
fn m3() -> Geometry {
    let text = std::fs::read_to_string(data_path("models/minimax-m3/config.json")).expect("read");
    let cfg = ModelConfig::from_json(&text).expect("parses");
    Geometry::read(&cfg, "MiniMaxM3SparseForConditionalGeneration").expect("MiniMax-M3 reads")
}

/// Parameters by hand (exact integers; tolerance none). h = 6,144, 64 query / 4 KV heads of 128.
/// - attention a layer: qkv_proj 6,144 × (64 + 8) × 128 = 56,623,104; o_proj 8,192 × 6,144 =
///   50,331,648; q/k norms 2 × 128 → 106,955,008; layer norms 2 × 6,144 = 12,288;
/// - sparse layers (3 – 59, none with an index value): index_qkv_proj 6,144 × (4 + 1) × 128 =
///   3,932,160, index q/k norms 256 → 3,932,416;
/// - dense MLP (layers 0 – 2): 3 × 6,144 × 12,288 = 226,492,416;
/// - MoE layer: router 128 × 6,144 = 786,432; fp32 bias 128; 128 experts × 3 × 6,144 × 3,072 =
///   7,247,757,312; shared MLP 56,623,104 → 7,305,166,976;
/// - embedding and head 2 × 200,064 × 6,144 = 2,458,386,432; final norm 6,144.
///
/// 60 × (106,955,008 + 12,288) = 6,418,037,760; 57 × 3,932,416 = 224,147,712; 3 × 226,492,416 =
/// 679,477,248; 57 × 7,305,166,976 = 416,394,517,632 → 426,174,572,928. A public weight inventory
/// of the checkpoint (code index file id 62774369633: 23,416 tensors) totals 427,040,140,160; its
/// vision tower (patch embedding 1,280 × 3 × 2 × 14 × 14 = 15,052,800; 32 layers × 19,676,160;
/// pre-norm 2,560 → 631,185,920), projector (45,625,344) and patch-merge MLP (188,755,968) are
/// 865,567,232, leaving exactly the 426,174,572,928 counted here. Active: less 57 × 124 × 56,623,104
/// = 400,211,103,072 → 25,962,473,856; without embedding and head 23,504,087,424 (a public summary
/// quotes "~23B", code index file id 69586683899).
#[test]
fn minimax_m3_parameters_by_hand() {
    let g = m3();
    assert_eq!(
        (g.layers.len(), g.sparse_layers(), g.moe_layers(), g.mtp_modules),
        (60, 57, 57, 7)
    );
    assert!(g.layers.iter().all(|l| !l.index_value));
    assert_eq!(g.moe_params(), 7_305_166_976);
    assert_eq!(g.params(), 426_174_572_928);
    assert_eq!(g.params() + 865_567_232, 427_040_140_160);
    assert_eq!(g.active_params(), 25_962_473_856);
    assert_eq!(g.active_params() - 2 * 200_064 * 6_144, 23_504_087_424);
}

/// SGLang 0.5.23 `MiniMaxSparseKVPool` at a bf16 cache (tolerance none): the main pool holds K and V
/// of all 60 layers at max(1, 4 / tp) KV heads a rank, the index-K pool one 128-wide head for the
/// 57 sparse layers (all marked `sparse_disable_index_value`, so no index-K/V pool). tp 1: 60 × 2 ×
/// 4 × 128 × 2 = 122,880 + 57 × 128 × 2 = 14,592 → 137,472 B; tp 8 (one KV head a rank, replicated):
/// 30,720 + 14,592 = 45,312 B. With index values on every sparse layer the index pool doubles:
/// 122,880 + 29,184 = 152,064 B at tp 1.
#[test]
fn minimax_m3_sglang_cache_bytes_by_hand() {
    let g = m3();
    assert_eq!(g.sglang_kv_bytes_per_token(1), 137_472);
    assert_eq!(g.sglang_kv_bytes_per_token(8), 45_312);
    let src = std::fs::read_to_string(data_path("models/minimax-m3/config.json")).expect("read");
    let cfg = ModelConfig::from_json(&src).expect("parses");
    let mut valued = cfg.clone();
    if let Some(t) = valued.text_config.as_deref_mut()
        && let Some(s) = t.sparse_attention_config.as_mut()
    {
        s.sparse_disable_index_value = None;
    }
    let v = Geometry::read(&valued, "MiniMaxM3SparseForCausalLM").expect("reads");
    assert_eq!(v.sglang_kv_bytes_per_token(1), 152_064);
    // Index value and index_o_proj: 57 × (6,144 × 128 + 512 × 6,144) = 57 × 3,932,160.
    assert_eq!(v.params() - g.params(), 57 * 3_932_160);
}

/// `run`, `memory` and `validate` refuse with exit 2 under SGLang 0.5.16 / 0.5.23 and vLLM 0.34.0,
/// naming what was read (the figures above) and the first releases (SGLang 0.5.16: 0.5.15 has no
/// srt/models/minimax_m3.py; vLLM 0.24.0: 0.23.0 registers no MiniMaxM3 name; families34).
/// families38: the published config is the vision-language wrapper, still refused — for its vision
/// tower, the text model (`MiniMaxM3SparseForCausalLM`) being lowered (suite families38).
#[test]
fn minimax_m3_refused_as_not_modelled() {
    let config = data_path("models/minimax-m3/config.json");
    for (engine, version) in [("sglang", "0.5.16"), ("sglang", "0.5.23"), ("vllm", "0.34.0")] {
        let f = config_scenario(&format!("m3-{engine}-{version}"), &config, engine, version);
        for cmd in ["run", "memory", "validate"] {
            let o = tpsim(&[cmd, &f]);
            assert_eq!(o.code, 2, "{cmd} {engine}: {} {}", o.stdout, o.stderr);
            assert!(!o.stdout.contains("tok/s"), "{}", o.stdout);
            for part in [
                "architecture `MiniMaxM3SparseForConditionalGeneration` is not modelled",
                "60 layers of GQA (64 query / 4 KV heads of 128) with MiniMax sparse attention (MSA) on 57 layers: an \
                 indexer of 4 heads x 128 choosing 16 blocks of 128 tokens",
                "426174572928 parameters",
                "137472 B a token at tp 1 and 45312 B a rank at tp 8",
                "SGLang serves both names from 0.5.16",
                "vLLM from 0.24.0",
                // families38: the text model is lowered; the wrapper is refused for its vision tower.
                "tpsim lowers the text model (name MiniMaxM3SparseForCausalLM",
                "but not this wrapper's vision tower",
            ] {
                assert!(
                    o.stderr.contains(part),
                    "{cmd} {engine}: {part} not in {}",
                    o.stderr
                );
            }
        }
    }
}

/// A sparse model whose q/k norm is not per head breaks SGLang 0.5.23 `MiniMaxM3Attention`'s assert
/// ("sparse attention only supports qk_norm_type='per_head'") and is refused for that key, not as
/// "not modelled".
#[test]
fn minimax_m3_per_layer_qk_norm_names_its_key() {
    let src = std::fs::read_to_string(data_path("models/minimax-m3/config.json")).expect("read");
    let from = "\"qk_norm_type\": \"per_head\"";
    assert!(src.contains(from), "{from}");
    let dir = scratch("m3-per-layer-norm");
    let cfg = dir.join("config.json");
    std::fs::write(&cfg, src.replacen(from, "\"qk_norm_type\": \"per_layer\"", 1)).expect("write");
    let f = config_scenario("m3-per-layer-norm-s", &cfg, "sglang", "0.5.23");
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("`qk_norm_type` = \"per_layer\""),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("is not modelled"), "{}", o.stderr);
}

/// Hy3's preset config holds the full key set quoted from tencent/Hy3's config.json (code index
/// file id 71008660077): 40 keys, `dtype` "bfloat16", `hidden_act` "silu", `route_norm` true; the
/// count families34 pinned (295,033,543,488) is unchanged because no added key is one the engines
/// size a tensor by.
#[test]
fn hy3_preset_config_is_the_quoted_key_set() {
    let text = std::fs::read_to_string(scenario("models/hy3/config.json")).expect("read");
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let o = v.as_object().expect("object");
    assert_eq!(o.len(), 40);
    assert_eq!(o["dtype"], "bfloat16");
    assert_eq!(o["hidden_act"], "silu");
    assert_eq!(o["route_norm"], true);
    let cfg = ModelConfig::from_json(&text).expect("parses");
    let g = tpsim_model::llm::hy3::Geometry::read(&cfg).expect("reads");
    assert_eq!(g.params(), 295_033_543_488);
}

/// Qwen4-Exp's refusal says where vLLM keeps the n-gram table, read from the wheels: 0.29.0 on the
/// GPU split over TP (`models/qwen4_exp/common/ple.py` `PLEVocabParallelEmbedding`), 0.30.0 – 0.34.0
/// in pinned host memory by default (`config/engram.py` `EngramConfig.cpu_offload`), and its size at
/// bf16: 320,001,536 rows × 160 = 51,200,245,760 parameters × 2 B = 102,400,491,520 B.
#[test]
fn qwen4_exp_refusal_places_the_ngram_table_by_vllm_release() {
    let text = std::fs::read_to_string(data_path("models/qwen3.8-flash-next/config.json")).expect("read");
    let e = tpsim_model::llm::ModelSpec::from_config_json(&text, tpsim_model::llm::Quantization::bf16())
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains(
            "0.29.0 holds the n-gram table on the GPU split over TP, 102400491520 B at bf16 in all, 0.30.0 - 0.34.0 in \
             pinned host memory by default"
        ),
        "{e}"
    );
}

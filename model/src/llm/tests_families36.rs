//! families36 (issue #17): Hunyuan V3 / Hy3 (`HYV3ForCausalLM`) lowered as `Architecture::Hy3`, by hand
//! from the preset's reconstructed config (scenarios/models/hy3) and the engines' model files (SGLang
//! 0.5.11 – 0.5.23 `models/hunyuan_v3.py`, vLLM 0.20.0 – 0.34.0 `models/hy_v3.py`).
use super::*;

const HY3: &str = include_str!("../../../scenarios/models/hy3/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("Hy3 lowers")
}

/// The lowered shape and the bytes (integers, no tolerance). Parameters as families34 counted them
/// (`tests_families34::hy3_parameters_by_hand`: 295,033,543,488), at 2 B each in bf16, but the router
/// (79 MoE layers × 192 × 4,096 = 62,128,128) and the expert bias (79 × 192 = 15,168) are fp32 in both
/// engines (`ReplicatedLinear(..., params_dtype=torch.float32)` / `GateLinear(..., params_dtype=
/// torch.float32)`; `torch.empty(num_experts, dtype=torch.float32)`): 2 B more each →
/// 590,067,086,976 + 124,256,256 + 30,336 = 590,191,373,568 B at tp 1.
///
/// At tp 8 (`QKVParallelLinear` / `RowParallelLinear`, `MergedColumnParallelLinear`, `FusedMoE`
/// shard by 8; router, bias and norms replicated; `VocabParallelEmbedding` / `ParallelLMHead` split
/// 120,832 rows into 15,104 a rank, a multiple of 64 so no padding):
/// - attention a layer: qkv 4,096 × 80 × 128 / 8 = 5,242,880, o 8,192 × 4,096 / 8 = 4,194,304, q/k
///   norms 256, two layer norms 8,192 → 9,445,632 × 2 B = 18,891,264, × 80 = 1,511,301,120;
/// - layer 0's dense MLP 3 × 4,096 × 13,312 / 8 = 20,447,232 × 2 B = 40,894,464;
/// - a MoE layer: 192 routed + 1 shared expert of 3 × 4,096 × 1,536 / 8 = 2,359,296 → 455,344,128 ×
///   2 B = 910,688,256, router 786,432 × 4 B = 3,145,728, bias 192 × 4 B = 768 → 913,834,752, × 79 =
///   72,192,945,408;
/// - embedding and head 2 × 15,104 × 4,096 × 2 B = 247,463,936; final norm 8,192
///
/// → 73,992,613,120 B. KV cell: 80 layers × (K + V) × 128 × 2 B × KV heads a rank (8 at tp 1: 327,680
/// B; 1 at tp 8: 40,960 B).
#[test]
// Exact equality is the point: the FLOP count is an integer well inside f64's exact range.
#[allow(clippy::float_cmp)]
fn hy3_lowered_by_hand() {
    let s = spec(HY3);
    assert_eq!(s.arch, Architecture::Hy3);
    assert_eq!(
        (s.num_layers, s.hidden, s.vocab, s.heads, s.kv_heads, s.head_dim),
        (80, 4_096, 120_832, 64, 8, 128)
    );
    assert_eq!(
        s.attention,
        Attention::Gqa {
            heads: 64,
            kv_heads: 8,
            head_dim: 128
        }
    );
    let moe = s.moe.expect("MoE");
    assert_eq!(moe, MoeShape::new(192, 8, 1_536, 1));
    assert_eq!(s.layers[0], Ffn::Dense { intermediate: 13_312 });
    assert_eq!(s.layers.iter().filter(|f| **f == Ffn::Moe(moe)).count(), 79);
    assert_eq!((s.first_k_dense_replace, s.num_nextn_predict_layers), (1, 1));
    assert!(s.qk_norm && s.routing_bias && s.router_gate_fp32() && !s.tie_word_embeddings);
    assert!(!s.attention_bias);
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * 295_033_543_488 + 124_256_256 + 30_336
    );
    assert_eq!(s.weight_bytes_per_rank(1).0, 590_191_373_568);
    let attn = 80 * 2 * (5_242_880 + 4_194_304 + 256 + 8_192);
    let moe_layer = 2 * 193 * 2_359_296 + 4 * 786_432 + 4 * 192;
    assert_eq!((attn, moe_layer), (1_511_301_120_u64, 913_834_752_u64));
    assert_eq!(
        s.weight_bytes_per_rank(8).0,
        attn + 40_894_464 + 79 * moe_layer + 247_463_936 + 8_192
    );
    assert_eq!(s.weight_bytes_per_rank(8).0, 73_992_613_120);
    assert_eq!(s.kv_cell_bytes(1), 327_680);
    assert_eq!(s.kv_cell_bytes(8), 40_960);
    // The router's fp32 GEMM a MoE layer at 32 tokens: 2 × 192 × 4,096 × 32 = 50,331,648 FLOPs.
    assert_eq!(s.router_fp32_flops(192, 32), 50_331_648.0);
}

/// `qk_norm` off drops the two per-head norms (2 × 128 × 2 B = 512 B a layer, × 80 = 40,960 B at any
/// tp: replicated); SGLang reads `use_qk_norm` first (true here wins over `qk_norm: false`).
/// `expert_hidden_dim` unlike `moe_intermediate_size` is refused naming both keys (SGLang sizes the
/// experts by the one, vLLM by the other).
#[test]
fn hy3_config_keys() {
    let on = spec(HY3).weight_bytes_per_rank(8).0;
    let off = spec(&HY3.replacen("\"qk_norm\": true", "\"qk_norm\": false", 1));
    assert!(!off.qk_norm);
    assert_eq!(on - off.weight_bytes_per_rank(8).0, 40_960);
    let both = spec(&HY3.replacen(
        "\"qk_norm\": true",
        "\"qk_norm\": false, \"use_qk_norm\": true",
        1,
    ));
    assert!(both.qk_norm);
    let bad = HY3.replacen("\"expert_hidden_dim\": 1536", "\"expert_hidden_dim\": 2048", 1);
    let e = ModelSpec::from_config_json(&bad, Quantization::bf16())
        .expect_err("widths differ")
        .to_string();
    assert!(
        e.contains("expert_hidden_dim") && e.contains("moe_intermediate_size (1536)"),
        "{e}"
    );
}

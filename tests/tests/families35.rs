//! families35 (issue #17): DeepSeek-V4's weights one rank holds under SGLang, in the formats SGLang
//! allocates (`tpsim_model::llm::deepseek_v4_weights`; SGLang 0.5.16 `models/deepseek_v4.py`,
//! `layers/quantization/fp8.py` `Fp8MoEMethod.create_weights`, `layers/attention/dsv4/compressor.py`,
//! `indexer.py`), summed by hand for DeepSeek-V4-Flash at tp 8, and set against the one public
//! start-up log (a DSv4 branch of May 2026 on 8× H20, engine-memory.tsv line 6).

use crate::common::*;
use tpsim_model::llm::ModelConfig;
use tpsim_model::llm::deepseek_v4::Geometry;
use tpsim_model::llm::deepseek_v4_weights::{ExpertFormat, RankWeightBytes, sglang_rank_weight_bytes};

/// The published DeepSeek-V4-Flash config (43 layers: 2 window-only, 21 ratio 4, 20 ratio 128).
fn flash() -> Geometry {
    let text = std::fs::read_to_string(data_path("models/deepseek-v4-flash/config.json")).expect("config");
    let cfg = ModelConfig::from_json(&text).expect("parses");
    Geometry::read(&cfg).expect("DeepSeek-V4-Flash reads")
}

/// Flash at tp 8, by hand (block fp8 = 1 B an element + 4 B per 128 × 128 block, rounded up):
///
/// A layer's attention: `wqkv_a` 1,536 × 4,096 = 6,291,456 + 12 × 32 × 4 = 1,536 → 6,292,992;
/// `wq_b` (4,096 rows a rank × 1,024), `wo_a` (1,024 × 4,096), `wo_b` (4,096 × 1,024): 4,194,304 +
/// 1,024 = 4,195,328 each; `q_norm` + `kv_norm` bf16 2 × 1,536 = 3,072; the sink 64 × 4 = 256 →
/// 6,292,992 + 3 × 4,195,328 + 3,072 + 256 = 18,882,304.
/// Layer norms 2 × 4,096 × 2 = 16,384; mHC fp32 2 × (24 × 16,384 + 24 + 3) × 4 = 3,145,944; router
/// bf16 256 × 4,096 × 2 = 2,097,152; shared expert gate/up 512 × 4,096 + 4 × 32 × 4 = 2,097,664 and
/// down 4,096 × 256 + 32 × 2 × 4 = 1,048,832 → 3,146,496. Per layer 18,882,304 + 16,384 +
/// 3,145,944 + 2,097,152 + 3,146,496 = 27,288,280, × 43 = 1,173,396,040; the bias 256 × 4 on 40 layers =
/// 40,960.
/// Ratio 4: compressor 4 × 2 × 512 × 4 = 16,384 + 2,048 × 4,096 × 2 = 16,777,216 + 512 × 4 = 2,048
/// → 16,795,648; indexer `wq_b` 8,192 × 1,024 + 64 × 8 × 4 = 8,390,656; `weights_proj` 64 × 4,096 ×
/// 2 = 524,288; its compressor 4,096 + 4,194,304 + 512 = 4,198,912 → 29,909,504, × 21 = 628,099,584.
/// Ratio 128: 128 × 512 × 4 = 262,144 + 1,024 × 4,096 × 2 = 8,388,608 + 2,048 → 8,652,800, × 20 =
/// 173,056,000. Layers without routed experts: 1,173,396,040 + 40,960 + 628,099,584 + 173,056,000
/// = 1,974,592,584.
/// Top: embedding and head 2 × 16,160 × 4,096 × 2 = 264,765,440 + final norm 8,192 + `hc_head`
/// (4 × 16,384 + 4 + 1) × 4 = 262,164 → 265,035,796.
/// Routed experts, fp4 with fp32 scales (SGLang's CUDA default): w13 512 × 4,096 / 2 = 1,048,576 +
/// 512 × 128 × 4 = 262,144; w2 4,096 × 256 / 2 = 524,288 + 4,096 × 8 × 4 = 131,072 → 1,966,080 an
/// expert, × 256 × 43 = 21,642,608,640. Block fp8: w13 2,097,152 + 512, w2 1,048,576 + 256 →
/// 3,146,496, × 256 × 43 = 34,636,627,968. fp4 with e8m0 scales: w13 1,048,576 + 65,536, w2
/// 524,288 + 32,768 → 1,671,168, × 256 × 43 = 18,396,217,344.
#[test]
fn flash_rank_weight_bytes_tp8_by_hand() {
    let g = flash();
    let other = 1_974_592_584;
    let top = 265_035_796;
    let by = |f| sglang_rank_weight_bytes(&g, 8, f).expect("tp 8 divides Flash");
    let fp4 = by(ExpertFormat::Fp4Fp32Scales);
    assert_eq!(
        fp4,
        RankWeightBytes {
            routed_experts: 21_642_608_640,
            layers_other: other,
            top
        }
    );
    // 21,642,608,640 + 1,974,592,584 + 265,035,796 = 23,882,237,020 B = 22.24 GiB.
    assert_eq!(fp4.total(), 23_882_237_020);
    assert_eq!(by(ExpertFormat::Fp8Block).total(), 34_636_627_968 + other + top);
    assert_eq!(
        by(ExpertFormat::Fp4E8m0Scales).total(),
        18_396_217_344 + other + top
    );
}

/// Flash at tp 4 (the SGLang cookbook's 4× H200 / B200 box), by hand as at tp 8 with each split
/// tensor doubled: attention 6,292,992 + 3 × (8,388,608 + 2,048) + 3,072 + 256 = 31,468,288; shared
/// expert gate/up 1,024 × 4,096 + 8 × 32 × 4 = 4,195,328 and down 4,096 × 512 +
/// 32 × 4 × 4 = 2,097,664 → 6,292,992; per layer 31,468,288 + 16,384 + 3,145,944 + 2,097,152 +
/// 6,292,992 = 43,020,760, × 43 = 1,849,892,680, + 40,960 + 628,099,584 + 173,056,000 =
/// 2,651,089,224; top 2 × 32,320 × 4,096 × 2 + 8,192 + 262,164 = 529,801,236; routed fp4 / fp32
/// scales (2,097,152 + 524,288) + (1,048,576 + 262,144) = 3,932,160 an expert × 11,008 =
/// 43,285,217,280. Total 46,466,107,740 B = 43.27 GiB a rank.
#[test]
fn flash_rank_weight_bytes_tp4_by_hand() {
    let g = flash();
    let b = sglang_rank_weight_bytes(&g, 4, ExpertFormat::Fp4Fp32Scales).expect("tp 4 divides Flash");
    assert_eq!(
        b,
        RankWeightBytes {
            routed_experts: 43_285_217_280,
            layers_other: 2_651_089_224,
            top: 529_801_236
        }
    );
    assert_eq!(b.total(), 46_466_107_740);
}

/// The byte count agrees with the parameter count families33 summed (36,274,024,023 at tp 8): at
/// one byte a block-fp8 element the routed experts hold 43 × 256 × 3 × 4,096 × 256 = 34,628,173,824
/// parameters a rank (+ 8,454,144 B of their fp32 scales: 43 × 256 × 768), and no part of the sum
/// is counted twice or left out: bytes ≥ parameters (every tensor is ≥ 1 B an element but the fp4
/// experts, which are excluded here).
#[test]
fn flash_fp8_expert_bytes_match_the_parameter_count() {
    let g = flash();
    let b = sglang_rank_weight_bytes(&g, 8, ExpertFormat::Fp8Block).expect("tp 8");
    assert_eq!(b.routed_experts, 34_628_173_824 + 8_454_144);
    let params = g.sglang_rank_params(8).expect("tp 8");
    assert_eq!(params, 36_274_024_023);
    // Non-expert parameters 36,274,024,023 − 34,628,173,824 = 1,645,850,199 hold 1,974,592,584 +
    // 265,035,796 = 2,239,628,380 B: between one and four bytes each.
    let rest_params = params - 34_628_173_824;
    let rest_bytes = b.layers_other + b.top;
    assert_eq!(rest_params, 1_645_850_199);
    assert!(rest_bytes > rest_params && rest_bytes < 4 * rest_params);
}

/// tp must divide what SGLang splits: the same refusal as the parameter count (tp 3 does not divide
/// the 64 heads).
#[test]
fn flash_rank_weight_bytes_refuse_tp3() {
    let g = flash();
    let err = sglang_rank_weight_bytes(&g, 3, ExpertFormat::Fp4Fp32Scales).unwrap_err();
    assert!(
        err.to_string()
            .contains("num_attention_heads = 64 is not divisible by tp 3"),
        "{err}"
    );
}

/// engine-memory.tsv line 6 (find_string id 54684172587: a capacity planner's test fixture of an
/// SGLang DSv4 branch, May 2026, DeepSeek-V4-Flash-Base on 8× H20, tp 8, f = 0.60): "Load weight
/// begin. avail mem=93.61 GB" then "Memory profiling: available_gpu_memory=57.01 GB", so the load
/// took 93.61 − 57.01 = 36.60 GiB on rank 0 (SGLang's "GB" is 2^30 B). The fp4 Flash would take
/// 22.24 GiB (far under), so the Base checkpoint is taken to have block-fp8 experts (assumed: its
/// config is not read): 36,876,256,348 B = 34.34 GiB of parameters, plus the two `freqs_cis`
/// tables of `precompute_freqs_cis` (`lru_cache(2)`, one per RoPE base: 1,048,576 × 32 × 8 B =
/// 256 MiB each) = 34.84 GiB. Known miss: 36.60 − 34.84 = 1.76 GiB of the load is not accounted for
/// (rotary caches, the branch's own buffers; the branch is no release). Tolerance ± 0.01 GiB (the
/// log prints two decimals).
#[test]
fn engine_memory_line6_h20_weights_known_miss() {
    let g = flash();
    let gib = (1u64 << 30) as f64;
    let params = sglang_rank_weight_bytes(&g, 8, ExpertFormat::Fp8Block)
        .expect("tp 8")
        .total() as f64
        / gib;
    assert!((params - 34.34).abs() < 0.01, "{params}");
    let freqs = 2.0 * (1_048_576u64 * 32 * 8) as f64 / gib;
    let load = 93.61 - 57.01;
    assert!(
        (load - (params + freqs) - 1.76).abs() < 0.01,
        "{load} vs {params} + {freqs}"
    );
    let fp4 = sglang_rank_weight_bytes(&g, 8, ExpertFormat::Fp4Fp32Scales)
        .expect("tp 8")
        .total() as f64
        / gib;
    assert!((fp4 - 22.24).abs() < 0.01, "{fp4}");
}

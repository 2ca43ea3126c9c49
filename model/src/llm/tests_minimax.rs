//! MiniMax-M2.5 (`MiniMaxM2ForCausalLM`): weights per rank pinned to hand-computed values, the q/k-norm
//! allreduce, and the config checks. Shapes from `scenarios/models/minimax-m2.5/config.json`: hidden
//! 3072, 62 layers, 48 heads, 8 KV heads, head_dim 128, 256 experts of width 1536, top-8, vocab 200,064
//! (a multiple of 64: no padding), untied LM head.

use super::*;

const MINIMAX: &str = include_str!("../../../scenarios/models/minimax-m2.5/config.json");

/// `minimax-m2.5/quant.toml` as JSON (this crate has no TOML parser).
fn fp8() -> Quantization {
    serde_json::from_str(r#"{"dtype":"fp8","block_size":[128,128],"scale_dtype":"fp32"}"#).expect("fp8")
}
/// `minimax-m2.5-nvfp4/quant.toml` as JSON.
fn nvfp4() -> Quantization {
    serde_json::from_str(r#"{"dtype":"bf16","experts":{"dtype":"nvfp4"}}"#).expect("nvfp4")
}
/// `minimax-m2.5-awq/quant.toml` as JSON.
fn awq() -> Quantization {
    serde_json::from_str(
        r#"{"dtype":"bf16","experts":{"dtype":"int4","group_size":128,"scale_dtype":"fp16","zero_point":true}}"#,
    )
    .expect("awq")
}

fn minimax(q: Quantization) -> ModelSpec {
    ModelSpec::from_config_json(MINIMAX, q).expect("minimax-m2.5 parses")
}

#[test]
fn minimax_lowers_to_all_moe_layers_with_an_fp32_router() {
    let m = minimax(fp8());
    assert_eq!(m.arch, Architecture::MiniMaxM2);
    assert_eq!(
        (m.num_layers, m.hidden, m.vocab, m.heads, m.kv_heads, m.head_dim),
        (62, 3072, 200_064, 48, 8, 128)
    );
    assert_eq!(m.layers.len(), 62);
    assert!(m.layers.iter().all(|l| matches!(l, Ffn::Moe(_))));
    let moe = m.moe.expect("moe");
    assert_eq!(test_util::moe_shape(&moe), (256, 8, 1536, 0));
    assert!(m.qk_norm && m.qk_norm_full_width && m.routing_bias && !m.tie_word_embeddings);
    assert_eq!(m.context_len, Some(196_608));
    // Router per layer: 256 × 3072 fp32 = 3,145,728 B + the fp32 bias 256 × 4 = 1,024 B, × 62 layers.
    assert_eq!(m.weight_breakdown(4).router, 62 * (3_145_728 + 1_024));
    // KV cell at tp 4: 8 / 4 = 2 KV heads × (128 + 128) × 62 layers × 2 B = 63,488 B per token.
    assert_eq!(m.kv_cell_bytes(4), 63_488);
}

#[test]
fn minimax_fp8_weights_per_rank_tp1_tp2_tp4() {
    let m = minimax(fp8());
    // tp 1: the whole checkpoint, 230,121,630,720 B = 214.32 GiB. A public safetensors inventory of
    // MiniMax-M2.7 (same architecture and FP8 layout) sums its tensors to "214.32 GB" (GiB: its lm_head
    // of 200064 × 3072 bf16 = 1,229,193,216 B is listed as "1.14 GB").
    assert_eq!(m.weight_bytes_per_rank(1).0, 230_121_630_720);
    // tp 2, by hand:
    //   embedding and lm_head: 200,064 / 2 = 100,032 rows × 3072 × 2 B = 614,596,608 each;
    //   final norm 3072 × 2 = 6,144;
    //   per layer: qkv (24 + 2 × 4) × 128 = 4096 rows × 3072 fp8 = 12,582,912 + 32 × 24 blocks × 4 B
    //     = 3,072 → 12,585,984; o_proj 3072 × 3072 = 9,437,184 + 24 × 24 × 4 = 2,304 → 9,439,488;
    //     norms 2 × 3072 × 2 = 12,288 + q_norm 3072 × 2 + k_norm 512 × 2 = 19,456;
    //     router 3,146,752; experts 256 × (w13 1536 × 3072 + 12 × 24 × 4 = 4,719,744,
    //     w2 3072 × 768 + 24 × 6 × 4 = 2,359,872) = 1,812,381,696 → 1,837,573,376 per layer;
    //   total 2 × 614,596,608 + 6,144 + 62 × 1,837,573,376 = 115,158,748,672 B = 107.25 GiB
    //   (more than one 96 GB RTX PRO 6000 holds: the FP8 rows of tests/data/throughput.tsv use 4 and 8 GPUs).
    assert_eq!(m.weight_bytes_per_rank(2).0, 115_158_748_672);
    // tp 4: embedding and lm_head 50,016 rows → 307,298,304 each; per layer: qkv 2048 rows
    //   → 6,291,456 + 16 × 24 × 4 = 6,292,992; o_proj 3072 × 1536 + 24 × 12 × 4 = 4,719,744;
    //   norms 12,288 + 1536 × 2 + 256 × 2 = 15,872; router 3,146,752; experts 256 × (768 × 3072 +
    //   6 × 24 × 4 = 2,359,872; 3072 × 384 + 24 × 3 × 4 = 1,179,936) = 906,190,848 → 920,366,208;
    //   total 614,596,608 + 6,144 + 62 × 920,366,208 = 57,677,307,648 B = 53.72 GiB.
    assert_eq!(m.weight_bytes_per_rank(4).0, 57_677_307_648);
}

/// presets10 (issue #17, launch command 32): `minimax-m2.7` (the published M2.7 config.json) has
/// M2.5's shapes and FP8 layout, so the hand arithmetic of [`minimax_fp8_weights_per_rank_tp1_tp2_tp4`]
/// holds: 57,677,307,648 B per rank at tp 4, 63,488 B of KV per token at tp 4 (2 KV heads × 256 × 62
/// × 2 B); only the context differs: 204,800 positions against 196,608 (exact integers).
#[test]
fn minimax_m2_7_is_m2_5_with_204800_positions() {
    let cfg = include_str!("../../../scenarios/models/minimax-m2.7/config.json");
    let m = ModelSpec::from_config_json(cfg, fp8()).expect("minimax-m2.7 parses");
    assert_eq!(m.arch, Architecture::MiniMaxM2);
    assert_eq!(
        (m.num_layers, m.hidden, m.vocab, m.heads, m.kv_heads, m.head_dim),
        (62, 3072, 200_064, 48, 8, 128)
    );
    assert_eq!(m.weight_bytes_per_rank(4).0, 57_677_307_648);
    assert_eq!(m.kv_cell_bytes(4), 63_488);
    assert_eq!(m.context_len, Some(204_800));
}

#[test]
fn minimax_fp8_tp8_needs_expert_parallelism() {
    let m = minimax(fp8());
    // 1536 / 8 = 192 per rank is not a whole number of 128-row fp8 blocks: SGLang refuses plain TP 8,
    // which is why the 8-GPU FP8 row of tests/data/throughput.tsv runs with EP.
    let err = m.validate_tp(8).expect_err("tp 8 fp8 without EP").to_string();
    assert!(err.contains("192") && err.contains("128"), "{err}");
    // With EP 8 each rank holds 256 / 8 = 32 whole experts.
    m.validate_parallel(8, 8).expect("tp 8 with ep 8");
    // Weights at tp 8, by hand: embedding and lm_head 25,008 rows × 3072 × 2 = 153,649,152 each; final
    //   norm 6,144; per layer: qkv 1024 rows × 3072 + 8 × 24 × 4 = 3,146,496; o_proj 3072 × 768 +
    //   24 × 6 × 4 = 2,359,872; norms 14,080; router 3,146,752; experts 256 × (384 × 3072 + 3 × 24 × 4
    //   = 1,179,936; 3072 × 192 + 24 × 2 × 4 = 590,016) = 453,107,712 → 461,774,912 per layer;
    //   total 307,298,304 + 6,144 + 62 × 461,774,912 = 28,937,348,992 B = 26.95 GiB.
    // That counts 1/8 of every expert; under EP a rank holds 32 whole experts, whose w2 scales round
    // to 12 column blocks per expert instead of 8 shards × 2 (192 = 128 + 64 columns):
    // 32 × (9,439,488 + 4,719,744) = 453,095,424,
    // 12,288 B per layer (0.7 MiB in all) fewer — below the < 1 MiB the inventory leaves out.
    assert_eq!(m.weight_bytes_per_rank(8).0, 28_937_348_992);
    assert!(
        m.validate_parallel(8, 3).is_err(),
        "256 experts do not divide over 3 ranks"
    );
    m.validate_tp(4).expect("tp 4");
}

#[test]
fn minimax_nvfp4_and_awq_weights_per_rank() {
    // NVFP4 experts, everything else bf16, tp 8 by hand:
    //   embedding and lm_head 25,008 rows × 3072 × 2 = 153,649,152 each; final norm 6,144;
    //   per layer: qkv (6 + 2) × 128 = 1024 rows × 3072 × 2 = 6,291,456; o_proj 3072 × 768 × 2
    //     = 4,718,592; norms 12,288 + 768 × 2 + 128 × 2 = 14,080; router 3,146,752;
    //     experts 256 × (w13 384 × 3072 / 2 = 589,824 + 384 × 192 fp8 scales = 73,728 + 8 = 663,560;
    //     w2 3072 × 192 / 2 = 294,912 + 3072 × 12 = 36,864 + 8 = 331,784) = 254,808,064
    //     → 268,978,944 per layer;
    //   total 307,298,304 + 6,144 + 62 × 268,978,944 = 16,983,998,976 B = 15.82 GiB.
    let n = minimax(nvfp4());
    assert_eq!(n.weight_bytes_per_rank(8).0, 16_983_998_976);
    // tp 2 (same rules, 4× the expert shard): 67,347,634,176 B = 62.72 GiB, fits one 96 GB card.
    assert_eq!(n.weight_bytes_per_rank(2).0, 67_347_634_176);
    // AWQ experts (int4 g128, fp16 scales, packed zero points), tp 2: per layer experts 256 ×
    //   (w13 1536 × 3072 / 2 = 2,359,296 + 1536 × 24 groups × 2 = 73,728 + 36,864 / 2 = 18,432;
    //   w2 3072 × 768 / 2 = 1,179,648 + 3072 × 6 × 2 = 36,864 + 9,216) = 941,359,104; attention bf16
    //   4096 × 3072 × 2 + 3072 × 3072 × 2 = 44,040,192; norms 19,456; router 3,146,752
    //   → 988,565,504 per layer; total 2 × 614,596,608 + 6,144 + 62 × 988,565,504 = 62,520,260,608 B.
    let a = minimax(awq());
    assert_eq!(a.weight_bytes_per_rank(2).0, 62_520_260_608);
}

#[test]
fn minimax_qk_norm_adds_one_small_allreduce_per_layer() {
    let m = minimax(fp8());
    let fp = m.forward_pass(4, 1);
    // 2 per layer + the embedding's, as every model; plus one q/k-norm statistics allreduce per layer.
    assert_eq!(fp.allreduces, 2 * 62 + 1);
    assert_eq!(fp.qk_norm_allreduces, 62);
    // SGLang: 2 fp32 per token padded to 4 → 16 B for one token.
    assert_eq!(fp.qk_norm_allreduce_bytes.0, 16);
    assert_eq!(m.forward_pass(1, 1).qk_norm_allreduces, 0, "no allreduce at tp 1");
    assert_eq!(qk_norm_stats_bytes(1, true), 16);
    assert_eq!(qk_norm_stats_bytes(3, true), 32);
    assert_eq!(qk_norm_stats_bytes(8, true), 64);
    // vLLM: the [tokens, 2] fp32 tensor as is.
    assert_eq!(qk_norm_stats_bytes(1, false), 8);
    assert_eq!(qk_norm_stats_bytes(3, false), 24);
    // Kernels: GQA 5 + q/k norm split into sums of squares and apply = 7; MoE 8 + the fp32 cast = 9;
    // plus, since fp8decode, one per-token-group FP8 activation quantization before each block-FP8
    // GEMM (`llm::act_quant`): the fused qkv and o projections (2), the experts' gate_up and down (2).
    assert_eq!(fp.layers[0].attn_quant_kernels, 2);
    assert_eq!(fp.layers[0].ffn_quant_kernels, 2);
    assert_eq!(fp.layers[0].attn_kernels, 7 + 2);
    assert_eq!(fp.layers[0].ffn_kernels, 9 + 2);
    // One decode token at tp 4 reads the attention shard (11,012,736 + 15,872 B), the router
    // (3,146,752 B) and its 8 experts' shards (8 × 3,539,808 = 28,318,464 B) per layer.
    let l = &fp.layers[0];
    assert_eq!(l.attn_weight_bytes.0, 11_012_736 + 15_872);
    assert_eq!(l.ffn_weight_bytes.0, 3_146_752 + 28_318_464);
}

#[test]
fn minimax_config_errors_name_the_field() {
    let per_head = MINIMAX.replace(r#""qk_norm_type": "per_layer""#, r#""qk_norm_type": "per_head""#);
    let err = ModelSpec::from_config_json(&per_head, fp8())
        .expect_err("per_head")
        .to_string();
    assert!(err.contains("qk_norm_type") && err.contains("per_layer"), "{err}");
    let shared = MINIMAX.replace(
        r#""shared_intermediate_size": 0"#,
        r#""shared_intermediate_size": 512"#,
    );
    let err = ModelSpec::from_config_json(&shared, fp8())
        .expect_err("shared")
        .to_string();
    assert!(err.contains("shared_intermediate_size"), "{err}");
    let no_experts = MINIMAX.replace(r#""num_local_experts": 256,"#, "");
    let err = ModelSpec::from_config_json(&no_experts, fp8())
        .expect_err("experts")
        .to_string();
    assert!(err.contains("num_local_experts"), "{err}");
}

// The other dense model of tests/data/throughput.tsv's compared rows (vLLM PR 2192), pinned here beside it.
const LLAMA_2_13B: &str = include_str!("../../../scenarios/models/llama-2-13b/config.json");

#[test]
fn llama_2_13b_fp16_tp2() {
    let q: Quantization = serde_json::from_str(r#"{"dtype":"fp16"}"#).expect("fp16");
    let m = ModelSpec::from_config_json(LLAMA_2_13B, q).expect("llama-2-13b parses");
    // tp 2 by hand: embedding and lm_head 16,000 rows × 5120 × 2 B = 163,840,000 each; final norm 10,240;
    // per layer: qkv 3 × 20 × 128 = 7680 rows × 5120 × 2 = 78,643,200; o_proj 5120 × 2560 × 2 =
    // 26,214,400; norms 2 × 5120 × 2 = 20,480; gate_up 2 × 6912 × 5120 × 2 = 141,557,760; down
    // 5120 × 6912 × 2 = 70,778,880 → 317,214,720; total 327,690,240 + 40 × 317,214,720 =
    // 13,016,279,040 B = 12.12 GiB.
    assert_eq!(m.weight_bytes_per_rank(2).0, 13_016_279_040);
    // KV cell at tp 2: 20 heads × 256 × 40 layers × 2 B = 409,600 B per token.
    assert_eq!(m.kv_cell_bytes(2), 409_600);
    assert_eq!(m.forward_pass(2, 1).qk_norm_allreduces, 0);
}

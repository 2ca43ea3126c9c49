//! nemotronh (issue #17): Nemotron-H (`NemotronHForCausalLM`) lowered from the bundled presets. Every
//! number is computed by hand in the comment beside it from the preset's config.json and the engine
//! rules in `llm::nemotron_h`.

use super::*;

const NANO_9B_V2: &str = include_str!("../../../scenarios/models/nemotron-nano-9b-v2/config.json");
const H_47B: &str = include_str!("../../../scenarios/models/nemotron-h-47b/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

#[test]
fn nano_9b_v2_blocks_follow_the_pattern() {
    let s = spec(NANO_9B_V2);
    assert_eq!(s.arch, Architecture::NemotronH);
    // "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-": 56 blocks, 27 M, 4 *, 25 -.
    assert_eq!(s.num_layers, 56);
    assert_eq!(s.linear_layers(), 27);
    assert_eq!(s.mamba2_layers(), 27);
    assert_eq!(s.kv_layers(), 4);
    assert_eq!(s.mixers.iter().filter(|m| **m == Mixer::Absent).count(), 25);
    assert_eq!(s.layers.iter().filter(|f| **f == Ffn::Absent).count(), 31);
    // Block 14 is the first attention block, block 1 an MLP.
    assert_eq!((s.mixers[14], s.layers[14]), (Mixer::Attention, Ffn::Absent));
    assert_eq!(
        (s.mixers[1], s.layers[1]),
        (Mixer::Absent, Ffn::Dense { intermediate: 15_680 })
    );
    // KV cell: 4 attention blocks × 8 KV heads × 2 × 128 × 2 B = 16,384 B at tp 1; 8,192 at tp 2.
    assert_eq!(s.kv_cell_bytes(1), 16_384);
    assert_eq!(s.kv_cell_bytes(2), 8_192);
    assert_eq!(s.context_len, Some(131_072));
    assert!(s.validate_tp(1).is_ok() && s.validate_tp(2).is_ok() && s.validate_tp(4).is_ok());
    // 40 attention heads do not split over 16 ranks.
    assert!(s.validate_tp(16).is_err());
}

#[test]
fn nano_9b_v2_weights_by_hand() {
    let s = spec(NANO_9B_V2);
    // Embedding and untied LM head 131,072 × 4,480 = 587,202,560 each; final norm 4,480.
    // Mamba block (I = 128 × 80 = 10,240, conv_dim = 10,240 + 2 × 8 × 128 = 12,288): norm 4,480;
    // in_proj (2 × 10,240 + 2,048 + 128) × 4,480 = 101,498,880; conv1d 12,288 × 4 + bias 12,288 =
    // 61,440; A, D, dt_bias 3 × 128; gated norm 10,240; out_proj 4,480 × 10,240 = 45,875,200 →
    // 147,450,624, × 27 = 3,981,166,848. Attention block: norm 4,480; qkv (5,120 + 2,048) × 4,480 =
    // 32,112,640; o 4,480 × 5,120 = 22,937,600 → 55,054,720, × 4 = 220,218,880. MLP block: norm
    // 4,480; up + down 2 × 15,680 × 4,480 = 140,492,800 → 140,497,280, × 25 = 3,512,432,000.
    // Total 8,888,227,328 parameters ("9B") × 2 B, plus A's fp32 half: 27 × 128 × 2 B = 6,912 →
    // 17,776,461,568 B = 16.556 GiB.
    assert_eq!(s.weight_bytes_per_rank(1).0, 17_776_461_568);
    // tp 2: everything sharded but the norms (56 block norms + final = 57 × 4,480 × 2 B = 510,720 B
    // replicated): (17,776,461,568 − 510,720) / 2 + 510,720 = 8,888,486,144.
    assert_eq!(s.weight_bytes_per_rank(2).0, 8_888_486_144);
    let b = s.weight_breakdown(1);
    // The MLP blocks with their norms (the block norm travels with the block's only half).
    assert_eq!(b.dense_mlp, 25 * 140_497_280 * 2);
    assert_eq!(b.embedding, 587_202_560 * 2);
}

#[test]
fn nano_9b_v2_state_per_request_is_sglangs_mamba_cache_per_req() {
    let s = spec(NANO_9B_V2);
    let m = s.mamba2.expect("Mamba-2 shape");
    assert_eq!(
        (m.num_heads, m.head_dim, m.n_groups, m.state_size),
        (128, 80, 8, 128)
    );
    // SGLang `Mamba2StateShape.create`: conv (12,288 / tp) × 3 bf16; temporal (128 / tp) × 80 × 128
    // fp32 (no `mamba_ssm_dtype` in the config → float32).
    assert_eq!(m.conv_state_bytes(1), 73_728);
    assert_eq!(m.ssm_state_bytes_per_rank(1), 5_242_880);
    // 27 × (73,728 + 5,242,880) = 143,548,416 B per request at tp 1.
    assert_eq!(s.linear_state_bytes_per_req(1), 143_548_416);
    // tp 2: 27 × (36,864 + 2,621,440) = 71,774,208.
    assert_eq!(s.linear_state_bytes_per_req(2), 71_774_208);
    // Groups replicate when tp does not divide them (`extra_groups_for_head_shards`): 8 groups at
    // tp 16 become 8 + (16 − 8) = 16; conv_dim 10,240 + 2 × 16 × 128 = 14,336.
    assert_eq!(m.groups_at(16), 16);
    assert_eq!(m.conv_dim(16), 14_336);
    assert_eq!(m.groups_at(4), 8);
}

#[test]
fn nano_9b_v2_vllm_block_size_is_672() {
    // vLLM issue #24280 (tomeras91, 2025-09-04): the hybrid alignment gives "large attention page
    // sizes (672 tokens for nvidia/NVIDIA-Nemotron-Nano-9B-v2)". vLLM's default state dtypes are
    // `auto` = bf16 for both: mamba page 73,728 + 128 × 80 × 128 × 2 = 2,695,168 B; attention
    // 8 KV heads × 2 × 128 × 2 B = 4,096 B per token per layer → 16 × ⌈2,695,168 / 65,536⌉ = 672.
    let s = spec(NANO_9B_V2);
    let m = s.mamba2.expect("Mamba-2 shape");
    let page = m.vllm_page_bytes(1, 2, 2);
    assert_eq!(page, 2_695_168);
    let attn_1_token = s.kv_cell_bytes(1) / u64::from(s.kv_layers());
    assert_eq!(attn_1_token, 4_096);
    assert_eq!(vllm_attention_block_size(page, attn_1_token, 16), 672);
    // With `--mamba-ssm-cache-dtype float32` (the model card's advice): 73,728 + 5,242,880 →
    // 16 × ⌈81.12⌉ = 1,312.
    assert_eq!(
        vllm_attention_block_size(m.vllm_page_bytes(1, 2, 4), 4_096, 16),
        1_312
    );
    // A larger user block size stays.
    assert_eq!(vllm_attention_block_size(page, 4_096, 2_048), 2_048);
}

#[test]
fn nano_9b_v2_decode_pass_has_one_allreduce_per_block() {
    let s = spec(NANO_9B_V2);
    let fp = s.forward_pass(2, 8);
    // 56 blocks, one all-reduce each, + the embedding's = 57 (a Llama layer has two).
    assert_eq!(fp.allreduces, 57);
    assert_eq!(s.forward_pass(1, 8).allreduces, 0);
    let mamba = &fp.layers[0];
    assert_eq!(mamba.mixer, Mixer::Linear);
    assert_eq!((mamba.attn_kernels, mamba.ffn_kernels), (6, 0));
    // Its state read per request at tp 2: 36,864 + 2,621,440.
    assert_eq!(mamba.state_bytes, 2_658_304);
    assert_eq!(mamba.kv_bytes_per_token, 0);
    let mlp = &fp.layers[1];
    assert_eq!((mlp.attn_kernels, mlp.ffn_kernels), (0, 4));
    assert_eq!(mlp.attn_weight_bytes.0, 0);
    // norm + up + down at tp 2: (4,480 + 2 × 7,840 × 4,480) × 2 B.
    assert_eq!(mlp.ffn_weight_bytes.0, (4_480 + 2 * 7_840 * 4_480) * 2);
    let attn = &fp.layers[14];
    assert_eq!((attn.attn_kernels, attn.ffn_kernels), (4, 0));
    // One attention block's share of the tp-2 cell: 8,192 / 4.
    assert_eq!(attn.kv_bytes_per_token, 2_048);
}

#[test]
fn h_47b_by_hand() {
    let s = spec(H_47B);
    // 98 blocks: 45 M, 5 *, 48 -.
    assert_eq!((s.num_layers, s.linear_layers(), s.kv_layers()), (98, 45, 5));
    // KV cell tp 4: 5 × 2 KV heads × 2 × 128 × 2 B = 5,120.
    assert_eq!(s.kv_cell_bytes(4), 5_120);
    // Per rank at tp 4 (hidden 8,192; I = 256 × 64 = 16,384; conv_dim 16,384 + 2 × 8 × 256 = 20,480;
    // MLP 30,720; 64 heads, 8 KV heads × 128; vocab 131,072): Mamba block 8,192 + (8,192 + 1,024 +
    // 64) × 8,192 + 5,120 × 4 + 5,120 + 3 × 64 + 4,096 + 8,192 × 4,096 = 109,608,384 params (+64 × 2 B
    // for fp32 A), × 45; attention 8,192 + (2,048 + 512) × 8,192 + 8,192 × 2,048 = 37,756,928, × 5;
    // MLP 8,192 + 2 × 7,680 × 8,192 = 125,837,312, × 48; embedding + head 2 × 32,768 × 8,192; final
    // norm 8,192 → 11,698,494,208 params × 2 B + 45 × 128 B = 23,396,999,680 B (21.79 GiB).
    assert_eq!(s.weight_bytes_per_rank(4).0, 23_396_999_680);
    // State per request at tp 4: 45 × (20,480 / 4 × 3 × 2 + 64 × 64 × 256 × 4) = 45 × 4,225,024.
    assert_eq!(s.linear_state_bytes_per_req(4), 190_126_080);
}

#[test]
fn bad_patterns_are_refused_naming_the_key() {
    let with = |pattern: &str, layers: u64| {
        NANO_9B_V2
            .replace(
                "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
                pattern,
            )
            .replace(
                "\"num_hidden_layers\": 56",
                &format!("\"num_hidden_layers\": {layers}"),
            )
    };
    let e = ModelSpec::from_config_json(&with("M-*E", 4), Quantization::bf16()).unwrap_err();
    // A MoE block needs the MoE keys, which the dense Nano-9B-v2 config lacks.
    assert!(e.to_string().contains("n_routed_experts"), "{e}");
    let latent = NANO_30B_A3B.replace("\"n_groups\": 8,", "\"n_groups\": 8, \"moe_latent_size\": 1024,");
    let e = ModelSpec::from_config_json(&latent, Quantization::bf16()).unwrap_err();
    assert!(e.to_string().contains("moe_latent_size"), "{e}");
    let e = ModelSpec::from_config_json(&with("M-x*", 4), Quantization::bf16()).unwrap_err();
    assert!(e.to_string().contains("'x'"), "{e}");
    let e = ModelSpec::from_config_json(&with("M-*", 4), Quantization::bf16()).unwrap_err();
    assert!(e.to_string().contains("num_hidden_layers = 4"), "{e}");
    let e = ModelSpec::from_config_json(&NANO_9B_V2.replace("\"n_groups\": 8,", ""), Quantization::bf16())
        .unwrap_err();
    assert!(e.to_string().contains("n_groups"), "{e}");
    let ok = ModelSpec::from_config_json(&with("M-*-", 4), Quantization::bf16()).expect("4 blocks");
    assert_eq!(ok.kv_layers(), 1);
}

#[test]
fn python_infinity_reads_as_null_outside_strings_only() {
    let t = r#"{"a": [0.0, Infinity], "b": "Infinity NaN", "c": -Infinity, "d": NaN, "e": "q\"Infinity"}"#;
    let v: serde_json::Value =
        serde_json::from_str(&nemotron_h::non_finite_to_null(t)).expect("valid JSON after the rewrite");
    assert_eq!(v["a"][1], serde_json::Value::Null);
    assert_eq!(v["b"], "Infinity NaN");
    assert_eq!(v["c"], serde_json::Value::Null);
    assert_eq!(v["d"], serde_json::Value::Null);
    assert_eq!(v["e"], "q\"Infinity");
}

const NANO_30B_A3B: &str = include_str!("../../../scenarios/models/nemotron-3-nano-30b-a3b/config.json");

#[test]
fn nano_30b_a3b_by_hand() {
    let s = spec(NANO_30B_A3B);
    // "MEMEM*EMEMEM*…": 52 blocks, 23 M, 23 E, 6 *.
    assert_eq!((s.num_layers, s.linear_layers(), s.kv_layers()), (52, 23, 6));
    let moe = s.moe.expect("MoE blocks");
    // 128 experts of 1,856, top 6; the 3,712-wide shared expert as 2 expert widths.
    assert_eq!(test_util::moe_shape(&moe), (128, 6, 1_856, 2));
    assert!(s.routing_bias);
    // Parameters (hidden 2,688; I = 64 × 64 = 4,096; conv_dim 4,096 + 2 × 8 × 128 = 6,144): Mamba
    // block 2,688 + (8,192 + 2,048 + 64) × 2,688 + 6,144 × 5 + 3 × 64 + 4,096 + 2,688 × 4,096 =
    // 38,745,344; attention 2,688 + (4,096 + 512) × 2,688 + 2,688 × 4,096 = 23,398,016; MoE block
    // 2,688 + gate 128 × 2,688 + bias 128 + 128 × 2 × 1,856 × 2,688 + shared 2 × 3,712 × 2,688 =
    // 1,297,500,800; embedding + head 2 × 131,072 × 2,688; final norm 2,688 → 23 × 38,745,344 +
    // 6 × 23,398,016 + 23 × 1,297,500,800 + 704,645,120 + 2,688 = 31,577,940,288 parameters
    // (llama.cpp's GGUF print-out: "model params = 31.58 B", lmstudio-bug-tracker issue #1365).
    // Bytes at tp 1: 2 B each, plus the fp32 halves of A (23 × 64 × 2 B) and of the correction
    // bias (23 × 128 × 2 B) = 63,155,889,408 B = 58.82 GiB.
    assert_eq!(s.weight_bytes_per_rank(1).0, 63_155_889_408);
    // tp 4: 15,805,193,856 B (14.72 GiB): experts, projections and vocab split, gate, bias and
    // norms replicated, the 2 KV heads replicated on 2 ranks each.
    assert_eq!(s.weight_bytes_per_rank(4).0, 15_805_193_856);
    assert!(s.validate_tp(4).is_ok());
    // KV cell: 6 × 2 KV heads × 2 × 128 × 2 B = 6,144 at tp 1; 6 × 1 × 512 = 3,072 at tp 2 and 4.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(4)), (6_144, 3_072));
    // State per request at tp 1 (SGLang, fp32 SSM): 23 × (6,144 × 3 × 2 + 64 × 64 × 128 × 4).
    assert_eq!(s.linear_state_bytes_per_req(1), 49_082_368);
    // A decode pass at tp 2: 52 blocks + embedding = 53 all-reduces; an E block is one MoE half.
    let fp = s.forward_pass(2, 4);
    assert_eq!(fp.allreduces, 53);
    let e = &fp.layers[1];
    assert!(e.is_moe);
    assert_eq!((e.attn_kernels, e.n_experts, e.top_k), (0, 128, 6));
    // One expert's shard at tp 2: 2 × 928 × 2,688 × 2 B.
    assert_eq!(e.expert_shard_bytes.0, 2 * 928 * 2_688 * 2);
}

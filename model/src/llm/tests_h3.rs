//! h3 families: Qwen2.5-VL, Qwen2-MoE, Phi-3/4. Every number is computed by hand in the comment
//! beside it (parameters × 2 bytes for bf16) or taken from a named public log.

use super::*;

const QWEN25_VL_7B: &str = include_str!("../../../scenarios/models/qwen2.5-vl-7b/config.json");
const QWEN15_MOE: &str = include_str!("../../../scenarios/models/qwen1.5-moe-a2.7b/config.json");
const PHI_4: &str = include_str!("../../../scenarios/models/phi-4/config.json");
const PHI_4_MINI: &str = include_str!("../../../scenarios/models/phi-4-mini/config.json");
const PHI_35_MINI: &str = include_str!("../../../scenarios/models/phi-3.5-mini/config.json");

fn bf16() -> Quantization {
    serde_json::from_str(r#"{"dtype":"bf16","kv_cache_dtype":"auto"}"#).expect("bf16 quant")
}

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, bf16()).expect("preset parses")
}

const GIB: f64 = (1u64 << 30) as f64;

// ---------------------------------------------------------------- Qwen2.5-VL

#[test]
fn qwen25_vl_7b_lowers_text_tower_and_vision() {
    let s = spec(QWEN25_VL_7B);
    assert_eq!(s.arch, Architecture::Qwen25Vl);
    assert!(s.has_vision);
    assert!(s.attention_bias, "Qwen2 text tower: q/k/v bias");
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (28, 28, 4, 128));
    let v = s.vision.expect("tower");
    assert_eq!(v.family, VisionFamily::QwenVit);
    assert_eq!(
        (v.layers, v.hidden, v.intermediate, v.heads, v.patch),
        (32, 1280, 3420, 16, 14)
    );
    assert_eq!((v.merge, v.text_hidden, v.temporal_patch), (4, 3584, 6));
    // SGLang's `getattr(vision_config, "num_hidden_layers", 24)`: the key is `depth` here → 24.
    assert_eq!(v.sglang_fraction_dims, (24, 1280));
}

#[test]
fn qwen25_vl_7b_weights_per_rank() {
    let s = spec(QWEN25_VL_7B);
    // Vision block (h 1280, MLP 3420): norms 2·1280 = 2,560; qkv 3840·1280 + 3840 = 4,919,040;
    // proj 1280² + 1280 = 1,639,680; gate_up 6840·1280 + 6840 = 8,762,040; down 1280·3420 + 1280
    // = 4,378,880 → 19,702,200; × 32 = 630,470,400. Conv3d 1280 · 3·2·14·14 = 1,505,280.
    // Merger: ln_q 1,280; 5120² + 5120 = 26,219,520; 3584·5120 + 3584 = 18,353,664.
    // Vision = 676,550,144 parameters = 1,353,100,288 B.
    assert_eq!(s.weight_breakdown(1).vision, 1_353_100_288);
    // Text: embedding and LM head 152,064·3584 = 544,997,376 each; per layer norms 7,168, qkv
    // (3584 + 2·512)·3584 = 16,515,072 + bias 4,608, o 12,845,056, MLP 3·18944·3584 = 203,685,888
    // → 233,057,792; × 28 = 6,525,618,176; + 2 × 544,997,376 + final norm 3,584 = 7,615,616,512.
    // Total 8,292,166,656 parameters × 2 = 16,584,333,312 B = 15.445 GiB.
    assert_eq!(s.weight_bytes_per_rank(1).0, 16_584_333_312);
    // vLLM 0.8.2 on 1×H100 (https://github.com/QwenLM/Qwen3-VL/issues/1057):
    // "Model loading took 15.6271 GB" (GiB). That figure is the allocator's growth while loading
    // (weights plus buffers such as the rotary cache), so it lies above the weights; tolerance: the
    // weights are below the log by less than 1.5 % (observed 1.16 %).
    let gib = 16_584_333_312f64 / GIB;
    assert!(gib < 15.6271 && (15.6271 - gib) / 15.6271 < 0.015, "{gib}");
}

#[test]
fn qwen25_vl_72b_tp4_matches_vllm_log() {
    // Qwen2.5-VL-72B-Instruct: the 7B file with the 72B text sizes (hidden 8192, 80 layers, 64 heads,
    // 8 KV heads, intermediate 29,568; vision out_hidden_size 8192), as published on the hub.
    let text = QWEN25_VL_7B
        .replace("\"hidden_size\": 3584", "\"hidden_size\": 8192")
        .replace("\"out_hidden_size\": 3584", "\"out_hidden_size\": 8192")
        .replace("\"intermediate_size\": 18944", "\"intermediate_size\": 29568")
        .replace("\"num_hidden_layers\": 28", "\"num_hidden_layers\": 80")
        .replace("\"num_attention_heads\": 28", "\"num_attention_heads\": 64")
        .replace("\"num_key_value_heads\": 4", "\"num_key_value_heads\": 8");
    let s = spec(&text);
    // 64 heads and 8 KV heads allow tp 8, but the vision MLP (3420) does not divide by 8.
    assert!(s.validate_tp(4).is_ok());
    let err = s.validate_tp(8).unwrap_err();
    assert!(err.to_string().contains("vision tower's MLP width 3420"), "{err}");
    // Per rank at tp 4: embedding and LM head 38,016·8192 = 311,427,072 each. Layer: norms 16,384;
    // qkv (2048 + 2·256)·8192 = 20,971,520 + bias 2,560; o 8192·2048 = 16,777,216; gate_up
    // 2·7392·8192 = 121,110,528; down 8192·7392 = 60,555,264 → 219,433,472; × 80 = 17,554,677,760;
    // text = 17,554,677,760 + 622,854,144 + 8,192 = 18,177,540,096.
    // Vision block: norms 2,560; qkv 960·1280 + 960 = 1,229,760; proj 1280·320 + 1280 = 410,880;
    // gate_up 1710·1280 + 1710 = 2,190,510; down 1280·855 + 1280 = 1,095,680 → 4,929,390; × 32 =
    // 157,740,480; Conv3d 1,505,280; merger 1,280 + 1280·5120 + 1280 + 8192·1280 + 8192 = 17,048,832
    // → 176,295,872. Total 18,353,835,968 × 2 = 36,707,671,936 B = 34.187 GiB.
    assert_eq!(s.weight_bytes_per_rank(4).0, 36_707_671_936);
    // vLLM 0.8.3, 4 ranks (https://github.com/vllm-project/vllm/issues/16570): "Model loading took
    // 34.4340 GiB" on every rank. Tolerance as for the 7B: below the log by < 1.5 % (observed 0.72 %).
    // A replicated vision tower would give 34.187 + 3/4 · 1.304 = 35.17 GiB, above the log.
    let gib = 36_707_671_936f64 / GIB;
    assert!(gib < 34.4340 && (34.4340 - gib) / 34.4340 < 0.015, "{gib}");
}

#[test]
fn qwen25_vl_7b_kv_cell_and_vllm_log() {
    let s = spec(QWEN25_VL_7B);
    // 4 KV heads · (128 + 128) · 28 layers · 2 B = 57,344 B per token at tp 1; tp 2: 2 heads → 28,672;
    // tp 8: one replicated head per rank → 14,336.
    assert_eq!(s.kv_cell_bytes(1), 57_344);
    assert_eq!(s.kv_cell_bytes(2), 28_672);
    assert_eq!(s.kv_cell_bytes(8), 14_336);
    // vLLM 0.8.2 (QwenLM/Qwen3-VL#1057): "GPU KV cache size: 905,648 tokens" and "Maximum concurrency
    // for 128,000 tokens per request: 7.08x". The log does not give the memory left for the cache
    // (the profiled peak is missing), so the count itself is not derivable; what is checked: it is
    // whole 16-token blocks (56,603), those blocks at 57,344 B per token are 48.37 GiB (below the
    // 0.9 × 79.19 GiB − 15.63 GiB = 55.6 GiB an H100 could give), and 905,648 / 128,000 rounds to 7.08.
    let tokens = 905_648u64;
    assert_eq!(tokens % 16, 0);
    let kv_gib = (tokens * s.kv_cell_bytes(1)) as f64 / GIB;
    assert!((kv_gib - 48.37).abs() < 0.005, "{kv_gib}");
    assert!(kv_gib < 0.9 * 79.19 - 15.6271);
    assert_eq!(format!("{:.2}", tokens as f64 / 128_000.0), "7.08");
    // The vLLM plan reproduces the token count from any budget inside block 56,603.
    let plan = crate::memory::vllm_kv_plan(&crate::memory::VllmKvInput {
        total_gib: 79.19,
        free_at_start_gib: 79.0,
        gpu_memory_utilization: 0.9,
        weights_gib: 15.6271,
        peak_activation_gib: 0.0,
        non_torch_gib: 0.9 * 79.19 - 15.6271 - (56_603.5 * 16.0 * 57_344.0) / GIB,
        cell_size: s.kv_cell_bytes(1),
        block_size: 16,
        max_model_len: Some(128_000),
    });
    assert_eq!(plan.tokens, tokens);
    assert!(plan.error.is_none());
}

#[test]
fn qwen25_vl_validates_vision_heads_and_needs_vision_config() {
    let s = spec(QWEN25_VL_7B);
    // 28 heads, 4 KV heads, 16 vision heads: tp 4 works, tp 8 does not (28 % 8 ≠ 0).
    assert!(s.validate_tp(4).is_ok());
    assert!(s.validate_tp(8).is_err());
    let no_depth = QWEN25_VL_7B.replace("\"depth\": 32", "\"depth_removed\": 32");
    let err = ModelSpec::from_config_json(&no_depth, bf16()).unwrap_err();
    assert!(err.to_string().contains("vision_config.depth"), "{err}");
    let bad = QWEN25_VL_7B.replace("\"num_heads\": 16", "\"num_heads\": 7");
    let err = ModelSpec::from_config_json(&bad, bf16()).unwrap_err();
    assert!(err.to_string().contains("vision_config.num_heads"), "{err}");
}

#[test]
fn sglang_vlm_fraction_uses_the_engine_dims() {
    // SGLang 0.5.9 `adjust_mem_fraction_for_vlm` with (24, 1280): ratio 24·1280²/(24·1024²) = 1.5625,
    // factor 0.95 · (1 − 0.1 · 0.5625) = 0.8965625 on top of the text-only default (H100 80 GB,
    // 81,559 MiB, tp 1, late 2025). MoonViT-style (32, 1280) would give ratio 2.083 → 0.95 · 0.8917.
    let v = spec(QWEN25_VL_7B).vision.expect("tower");
    let input = |vision| crate::memory::DefaultFractionInput {
        era: crate::memory::SglangEra::Late2025,
        gpu_mem_mib: 81_559,
        tp: 1,
        pp: 1,
        eagle: false,
        vision,
        extra_reserve_mib: 0.0,
        after_floor_mib: None,
        decode_graph_term: true,
        buckets: crate::sglang_buckets::BucketTable::Late2025,
        cuda_graph_max_bs: None,
    };
    let base = crate::memory::sglang_default_fraction(&input(None)).expect("base");
    let f = crate::memory::sglang_default_fraction(&input(Some(v.sglang_fraction_dims))).expect("vlm");
    assert!((f - base * 0.8965625).abs() < 1e-12, "{f} vs {base}");
}

// ---------------------------------------------------------------- Qwen2-MoE

#[test]
fn qwen15_moe_lowers_shared_expert() {
    let s = spec(QWEN15_MOE);
    assert_eq!(s.arch, Architecture::Qwen2Moe);
    assert!(s.attention_bias);
    let m = s.moe.expect("moe");
    // shared_expert_intermediate_size 5632 = 4 × moe_intermediate_size 1408.
    assert_eq!(
        (
            m.n_routed_experts,
            m.num_experts_per_tok,
            m.moe_intermediate,
            m.n_shared_experts
        ),
        (60, 4, 1408, 4)
    );
    assert!(
        s.layers.iter().all(|l| matches!(l, Ffn::Moe(_))),
        "decoder_sparse_step 1: every layer sparse"
    );
}

#[test]
fn qwen15_moe_weights_per_rank() {
    let s = spec(QWEN15_MOE);
    // tp 1: embedding = LM head = 151,936·2048 = 311,164,928. Layer: norms 4,096; qkv 6144·2048 =
    // 12,582,912 + bias 6,144; o 2048² = 4,194,304; router 60·2048 = 122,880; shared_expert_gate 2,048;
    // experts 60 · 3 · 1408 · 2048 = 519,045,120; shared expert 3 · 5632 · 2048 = 34,603,008
    // → 570,560,512; × 24 = 13,693,452,288; + 622,329,856 + 2,048 = 14,315,784,192 params
    // (the published 14.3 B) × 2 = 28,631,568,384 B.
    assert_eq!(s.weight_bytes_per_rank(1).0, 28_631_568_384);
    // tp 2: embedding = LM head = 75,968·2048 = 155,582,464. Layer: 4,096 + 3072·2048 + 3,072 +
    // 2048·1024 + 122,880 + 2,048 + 60·3·704·2048 + 3·2816·2048 = 285,344,768; × 24 = 6,848,274,432;
    // + 311,164,928 + 2,048 = 7,159,441,408 × 2 = 14,318,882,816 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 14_318_882_816);
    let b = s.weight_breakdown(2);
    // Router: (122,880 + 2,048) · 24 · 2 B = 5,996,544 (replicated, incl. shared_expert_gate).
    assert_eq!(b.router, 5_996_544);
    // Shared experts: 3 · 2816 · 2048 · 24 · 2 B = 830,472,192.
    assert_eq!(b.shared_experts, 830_472_192);
}

#[test]
fn qwen15_moe_kv_cell() {
    let s = spec(QWEN15_MOE);
    // 16 KV heads · 256 · 24 layers · 2 B = 196,608 at tp 1; 98,304 at tp 2.
    assert_eq!(s.kv_cell_bytes(1), 196_608);
    assert_eq!(s.kv_cell_bytes(2), 98_304);
}

#[test]
fn qwen2_moe_sparse_step_and_dense_layers() {
    // decoder_sparse_step 2 and mlp_only_layers [0]: layer i is sparse when (i + 1) % 2 == 0 and i ≠ 0
    // → layers 1, 3, 5, … sparse; 0, 2, 4, … dense of intermediate_size 5632.
    let text = QWEN15_MOE.replace(
        "\"decoder_sparse_step\": 1",
        "\"decoder_sparse_step\": 2, \"mlp_only_layers\": [0, 1]",
    );
    let s = spec(&text);
    let sparse: Vec<usize> = (0..s.layers.len())
        .filter(|&i| matches!(s.layers[i], Ffn::Moe(_)))
        .collect();
    assert_eq!(sparse, (3..24).step_by(2).collect::<Vec<_>>());
    assert_eq!(s.layers[0], Ffn::Dense { intermediate: 5632 });
    // A shared width that is not a multiple of the expert width is refused, naming the field.
    let bad = QWEN15_MOE.replace(
        "\"shared_expert_intermediate_size\": 5632",
        "\"shared_expert_intermediate_size\": 5000",
    );
    let err = ModelSpec::from_config_json(&bad, bf16()).unwrap_err();
    assert!(
        err.to_string().contains("shared_expert_intermediate_size"),
        "{err}"
    );
}

// ---------------------------------------------------------------- Phi-3 / 4

#[test]
fn phi4_weights_and_kv() {
    let s = spec(PHI_4);
    assert_eq!(s.arch, Architecture::Phi3);
    // tp 2: embedding = LM head = 50,176·5120 = 256,901,120. Layer: norms 10,240; qkv (2560 + 2·640)
    // ·5120 = 19,660,800; o 5120·2560 = 13,107,200; gate_up 2·8960·5120 = 91,750,400; down 5120·8960
    // = 45,875,200 → 170,403,840; × 40 = 6,816,153,600; + 513,802,240 + 5,120 = 7,329,960,960
    // × 2 = 14,659,921,920 B (13.65 GiB).
    assert_eq!(s.weight_bytes_per_rank(2).0, 14_659_921_920);
    // 10 KV heads / 2 = 5 · 256 · 40 · 2 B = 102,400; tp 4: 10 % 4 ≠ 0 and 4 % 10 ≠ 0 → refused.
    assert_eq!(s.kv_cell_bytes(2), 102_400);
    assert!(s.validate_tp(4).is_err());
}

#[test]
fn phi4_mini_tied_and_phi35_mini_mha() {
    let s = spec(PHI_4_MINI);
    assert!(s.tie_word_embeddings);
    // tp 1: embedding 200,064·3072 = 614,596,608 (tied, counted once). Layer: 6,144 + (3072 + 2048)
    // ·3072 = 15,728,640 + 3072² = 9,437,184 + 3·8192·3072 = 75,497,472 → 100,669,440; × 32 =
    // 3,221,422,080; + 614,596,608 + 3,072 = 3,836,021,760 × 2 = 7,672,043,520 B.
    assert_eq!(s.weight_bytes_per_rank(1).0, 7_672_043_520);
    // head_dim 3072/24 = 128 (partial_rotary_factor 0.75 is compute only): 8 · 256 · 32 · 2 = 131,072.
    assert_eq!(s.kv_cell_bytes(1), 131_072);

    let s = spec(PHI_35_MINI);
    // tp 1: 2 · 32,064·3072 = 197,001,216; layer 6,144 + 9216·3072 + 3072² + 3·8192·3072 = 113,252,352;
    // × 32 = 3,624,075,264; + 3,072 → 3,821,079,552 × 2 = 7,642,159,104 B.
    assert_eq!(s.weight_bytes_per_rank(1).0, 7_642_159_104);
    // MHA, head_dim 96: 32 · 192 · 32 · 2 = 393,216.
    assert_eq!(s.kv_cell_bytes(1), 393_216);
}

// ---------------------------------------------------------------- Granite 3.x

const GRANITE_33_8B: &str = include_str!("../../../scenarios/models/granite-3.3-8b/config.json");

#[test]
fn granite_33_8b_weights_and_kv() {
    let s = spec(GRANITE_33_8B);
    assert_eq!(s.arch, Architecture::Granite);
    assert!(s.tie_word_embeddings);
    // tp 1: vocab 49,159 padded to 49,216 (multiple of 64): 49,216·4096 = 201,588,736 (tied, once).
    // Layer: norms 8,192; qkv (4096 + 2·1024)·4096 = 25,165,824; o 4096² = 16,777,216; MLP
    // 3·12800·4096 = 157,286,400 → 199,237,632; × 40 = 7,969,505,280; + 201,588,736 + 4,096 =
    // 8,171,098,112 params (the checkpoint's 8,170,864,640 + 57 padding rows · 4096) × 2 =
    // 16,342,196,224 B. The multipliers add nothing.
    assert_eq!(s.weight_bytes_per_rank(1).0, 16_342_196_224);
    // tp 2: vocab rows 24,608·4096 = 100,794,368; layer 8,192 + 3072·4096 + 4096·2048 + 3·6400·4096
    // = 99,622,912; × 40 = 3,984,916,480; + 100,794,368 + 4,096 = 4,085,714,944 × 2 = 8,171,429,888 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 8_171_429_888);
    // 8 KV heads · 256 · 40 · 2 B = 163,840 at tp 1, 81,920 at tp 2.
    assert_eq!(s.kv_cell_bytes(1), 163_840);
    assert_eq!(s.kv_cell_bytes(2), 81_920);
    // Same file as a Llama: identical bytes (the multipliers are scalars).
    let llama = GRANITE_33_8B.replace("GraniteForCausalLM", "LlamaForCausalLM");
    assert_eq!(spec(&llama).weight_bytes_per_rank(2).0, 8_171_429_888);
}

// ---------------------------------------------------------------- GLM-4 dense (rules only)

#[test]
fn glm4_adds_two_norms_and_qkv_bias() {
    // No published GLM-4-0414 config was found (preset missing); this checks the rules on a small
    // config: hidden 64, 2 layers, 4 heads, 2 KV heads, head_dim 16, intermediate 128, vocab 128.
    let cfg = |arch: &str| {
        format!(
            r#"{{"architectures": ["{arch}"], "hidden_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128,
            "vocab_size": 128, "attention_bias": true, "partial_rotary_factor": 0.5}}"#
        )
    };
    let glm = spec(&cfg("GlmForCausalLM"));
    let glm4 = spec(&cfg("Glm4ForCausalLM"));
    assert!(glm.attention_bias && glm4.attention_bias);
    // GlmForCausalLM, tp 1: embedding + LM head 2·128·64 = 16,384. Layer: norms 128; qkv
    // (64 + 2·32)·64 = 8,192 + bias 128; o 64·64 = 4,096; MLP 3·128·64 = 24,576 → 37,120; × 2 =
    // 74,240; + 16,384 + 64 = 90,688 params × 2 = 181,376 B.
    assert_eq!(glm.weight_bytes_per_rank(1).0, 181_376);
    // Glm4ForCausalLM adds post_self_attn_layernorm and post_mlp_layernorm: + 2·64·2 layers = 256
    // params → 90,944 × 2 = 181,888 B.
    assert_eq!(glm4.weight_bytes_per_rank(1).0, 181_888);
    // KV: 2 · 32 · 2 layers · 2 B = 256 (partial rotary changes nothing).
    assert_eq!(glm4.kv_cell_bytes(1), 256);
}

// ---------------------------------------------------------------- Mistral-3 (Pixtral)

const MISTRAL_SMALL_32: &str = include_str!("../../../scenarios/models/mistral-small-3.2-24b/config.json");

#[test]
fn mistral3_lowers_text_config_and_pixtral() {
    let s = spec(MISTRAL_SMALL_32);
    assert_eq!(s.arch, Architecture::Mistral3);
    assert!(s.has_vision && !s.attention_bias);
    // head_dim is explicit (128; 5120 / 32 would be 160).
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (40, 32, 8, 128));
    let v = s.vision.expect("tower");
    assert_eq!(v.family, VisionFamily::Pixtral);
    assert_eq!(
        (
            v.layers,
            v.hidden,
            v.intermediate,
            v.heads,
            v.merge,
            v.text_hidden
        ),
        (24, 1024, 4096, 16, 4, 5120)
    );
    // SGLang's VLM fraction: 24 × 1024² is the ViT-L baseline → factor 0.95 exactly.
    assert_eq!(v.sglang_fraction_dims, (24, 1024));
    assert!(!v.projector_bias);
}

#[test]
fn mistral3_weights_per_rank() {
    let s = spec(MISTRAL_SMALL_32);
    // Vision, tp 1: block norms 2,048 + qkv 3072·1024 = 3,145,728 + o 1,048,576 + gate_up 8192·1024 =
    // 8,388,608 + down 4,194,304 = 16,779,264; × 24 = 402,702,336; patch conv 1024·3·14·14 = 602,112;
    // ln_pre 1,024; projector norm 1,024 + merger 1024·4096 = 4,194,304 + linear_1 5120·1024 =
    // 5,242,880 + linear_2 5120² = 26,214,400 → 438,958,080 params = 877,916,160 B.
    assert_eq!(s.weight_breakdown(1).vision, 877_916_160);
    // Text, tp 1: 2 · 131,072·5120 = 1,342,177,280; layer 10,240 + (4096 + 2048)·5120 + 5120·4096 +
    // 3·32768·5120 = 555,755,520; × 40 = 22,230,220,800; + 5,120 → 23,572,403,200. Total
    // 24,011,361,280 params (the published 24 B) × 2 = 48,022,722,560 B.
    assert_eq!(s.weight_bytes_per_rank(1).0, 48_022_722_560);
    // tp 2: text 2 · 65,536·5120 = 671,088,640 + 40 · (10,240 + 3072·5120 + 5120·2048 + 3·16384·5120
    // = 277,882,880) + 5,120 = 11,786,408,960; vision blocks 24 · (2,048 + 1536·1024 + 1024·512 +
    // 4096·1024 + 1024·2048 = 8,390,656) = 201,375,744 + 602,112 + 1,024 + projector 35,652,608
    // (replicated in SGLang) = 237,631,488. Total 12,024,040,448 × 2 = 24,048,080,896 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 24_048_080_896);
    // KV: 8 · 256 · 40 · 2 = 163,840 at tp 1; 20,480 at tp 8.
    assert_eq!(s.kv_cell_bytes(1), 163_840);
    assert_eq!(s.kv_cell_bytes(8), 20_480);
}

#[test]
fn mistral3_rejects_other_feature_layers() {
    let text = MISTRAL_SMALL_32.replace("\"vision_feature_layer\": -1", "\"vision_feature_layer\": -2");
    let err = ModelSpec::from_config_json(&text, bf16()).unwrap_err();
    assert!(err.to_string().contains("vision_feature_layer"), "{err}");
}

// ---------------------------------------------------------------- Mllama (Llama-3.2-Vision)

const LLAMA_32_90B_VISION: &str = include_str!("../../../scenarios/models/llama-3.2-90b-vision/config.json");

#[test]
fn mllama_90b_lowers_cross_layers_and_tower() {
    let s = spec(LLAMA_32_90B_VISION);
    assert_eq!(s.arch, Architecture::Mllama);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (100, 64, 8, 128));
    assert_eq!(
        s.cross_attention_layers,
        (3..100).step_by(5).collect::<Vec<u32>>()
    );
    let v = s.vision.expect("tower");
    assert_eq!(v.family, VisionFamily::Mllama);
    // (560 / 14)² + 1 = 1601 positions; 8 aspect ratios; 32 + 8 layers.
    assert_eq!(
        (
            v.pos_emb_cells,
            v.aspect_ratios,
            v.tiles,
            v.layers,
            v.global_layers
        ),
        (1601, 8, 4, 32, 8)
    );
    assert_eq!(v.sglang_fraction_dims, (32, 1280));
}

#[test]
fn mllama_90b_weights_and_kv_tp8() {
    let s = spec(LLAMA_32_90B_VISION);
    // Vision at tp 8, per layer: LayerNorms 4·1280 = 5,120; qkv 480·1280 = 614,400 + bias 480;
    // proj 1280·160 = 204,800 + 1,280; fc1 640·1280 = 819,200 + 640; fc2 1280·640 = 819,200 + 1,280
    // → 2,466,400; × 40 = 98,656,000 + 8 global layers' 2 gates = 98,656,016. Patch embedding
    // 160·588 = 94,080; class 1,280; positions 1601·1280 = 2,049,280; tile positions 9·4·1601·1280 =
    // 73,774,080 + gate 1; pre/post tile embeddings 2·(9·5120 + 1) = 92,162; LayerNorms 5,120;
    // projector 8192·7680 + 8192 = 62,922,752 → 237,594,771 parameters = 475,189,542 B.
    assert_eq!(s.weight_breakdown(8).vision, 475_189_542);
    // Text at tp 8: embed_tokens (128,256 + 8 → 128,320 rows)/8 · 8192 = 131,399,680; LM head
    // 16,032·8192 = 131,334,144. Layer: norms 16,384; qkv (1024 + 2·128)·8192 = 10,485,760; o
    // 8192·1024 = 8,388,608; MLP 3·3584·8192 = 88,080,384 → 106,971,136; × 100 = 10,697,113,600;
    // 20 cross layers · (q/k norms 256 + 2 gates) = 5,160; + final norm 8,192 → 10,959,860,776.
    // Total 11,197,455,547 × 2 = 22,394,911,094 B (20.86 GiB).
    assert_eq!(s.weight_bytes_per_rank(8).0, 22_394_911_094);
    // KV: SGLang's single pool over all 100 layers: 1 KV head · 256 · 100 · 2 = 51,200 at tp 8;
    // 8 · 256 · 100 · 2 = 409,600 at tp 1.
    assert_eq!(s.kv_cell_bytes(8), 51_200);
    assert_eq!(s.kv_cell_bytes(1), 409_600);
    // SGLang's VLM fraction factor for (32, 1280): x = 32·1280²/(24·1024²) = 2.0833…,
    // 0.95 · (1 − 0.10833…) = 0.847083….
    let f = crate::memory::sglang_vlm_fraction_factor(32, 1280);
    assert!(
        (f - 0.95 * (1.0 - 0.1 * (32.0 * 1280.0 * 1280.0 / (24.0 * 1024.0 * 1024.0) - 1.0))).abs() < 1e-15
    );
    assert!((f - 0.847_083_333).abs() < 1e-9, "{f}");
}

#[test]
fn mllama_cross_layer_ids_are_checked() {
    let bad = LLAMA_32_90B_VISION.replace("      98\n    ]", "      100\n    ]");
    let err = ModelSpec::from_config_json(&bad, bf16()).unwrap_err();
    assert!(err.to_string().contains("cross_attention_layers"), "{err}");
    let missing =
        LLAMA_32_90B_VISION.replace("\"cross_attention_layers\"", "\"cross_attention_layers_removed\"");
    let err = ModelSpec::from_config_json(&missing, bf16()).unwrap_err();
    assert!(err.to_string().contains("cross_attention_layers"), "{err}");
}

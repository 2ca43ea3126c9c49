//! families10 (issue #17): GLM-4.7-Flash (`Glm4MoeLiteForCausalLM`) by hand from the bundled preset
//! and the engines' `glm4_moe_lite.py` (SGLang and vLLM: DeepSeek-V2 MLA attention + GLM-4.5 MoE).

use super::*;

const GLM47_FLASH: &str = include_str!("../../../scenarios/models/glm-4.7-flash/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// GLM-4.7-Flash's parameters, weights per rank and KV cell by hand (exact integers).
///
/// Per layer, MLA (q_lora_rank 768, kv_lora_rank 512, 20 heads of nope 192 + rope 64, v 256):
/// q_a_proj 768 × 2,048 = 1,572,864; kv_a_proj_with_mqa (512 + 64) × 2,048 = 1,179,648 (the two
/// fused, replicated: 1,344 × 2,048 = 2,752,512); q_b_proj 20 × 256 × 768 = 3,932,160; kv_b_proj
/// 20 × (192 + 256) × 512 = 4,587,520; o_proj 2,048 × 20 × 256 = 10,485,760; q_a / kv_a layernorms
/// 768 + 512 → 21,759,232. Two layer norms 2 × 2,048 = 4,096.
/// Layer 0 (first_k_dense_replace 1): dense SwiGLU 3 × 2,048 × 10,240 = 62,914,560 → 84,677,888.
/// Layers 1-46: 64 experts × 3 × 2,048 × 1,536 = 603,979,776, one shared expert 9,437,184, gate
/// 64 × 2,048 = 131,072, e_score_correction_bias 64 → 613,548,096; + attention + norms =
/// 635,311,424, × 46 = 29,224,325,504.
/// Embedding and untied LM head 154,880 × 2,048 = 317,194,240 each (154,880 is a multiple of 64: no
/// padding); final norm 2,048.
/// Total 84,677,888 + 29,224,325,504 + 634,388,480 + 2,048 = **29,943,393,920** parameters (the
/// MTP layer, `num_nextn_predict_layers` 1, is not loaded by the target). Published: "30B-A3B" (the
/// model card's name) and 29.9B (Ollama's listing of its GGUF): 29.94 B rounds to both.
#[test]
fn glm47_flash_parameters_by_hand() {
    let s = spec(GLM47_FLASH);
    assert_eq!(s.arch, Architecture::Glm4MoeLite);
    assert!(matches!(
        s.attention,
        Attention::Mla {
            q_lora_rank: Some(768),
            kv_lora_rank: 512,
            qk_nope_head_dim: 192,
            qk_rope_head_dim: 64,
            v_head_dim: 256,
        }
    ));
    assert!(s.routing_bias, "noaux_tc: fp32 e_score_correction_bias");
    assert!(s.router_fp32, "fp32 gate in both engines");
    assert!(!s.tie_word_embeddings);
    assert_eq!(s.num_nextn_predict_layers, 1);
    assert_eq!(s.layers.iter().filter(|l| matches!(l, Ffn::Moe(_))).count(), 46);
    // Bytes at tp 1: 2 B a parameter, the 46 gates and biases at 4 B (2 B more each:
    // 46 × (131,072 + 64) × 2 = 12,064,512), plus the absorbed-decode copies w_kc + w_vc of kv_b_proj
    // at the model dtype (SGLang `deepseek_v2.py` `post_load_weights`): 47 × 4,587,520 × 2 B =
    // 431,226,880. 2 × 29,943,393,920 + 12,064,512 + 431,226,880 = 60,330,079,232.
    assert_eq!(s.weight_bytes_per_rank(1).0, 60_330_079_232);
    let b = s.weight_breakdown(1);
    assert_eq!(b.router, 46 * (131_072 + 64) * 4);
    assert_eq!(b.routed_experts, 46 * 603_979_776 * 2);
    assert_eq!(b.shared_experts, 46 * 9_437_184 * 2);
    assert_eq!(b.dense_mlp, 62_914_560 * 2);
    assert_eq!((b.embedding, b.lm_head), (317_194_240 * 2, 317_194_240 * 2));
    // tp 2, per rank: replicated fused_qkv_a 2,752,512 + the q_a / kv_a norms 1,280 + the layer norms
    // 4,096; halved q_b 1,966,080, kv_b 2,293,760, o_proj 5,242,880 → 12,260,608 a layer. Layer 0's
    // MLP 31,457,280; an MoE layer's experts 301,989,888 + shared 4,718,592 + replicated gate and
    // bias 131,136 → 306,839,616. Embedding + head 2 × 158,597,120; final norm 2,048.
    // 43,717,888 + 46 × 319,100,224 + 317,194,240 + 2,048 = 15,039,524,480 parameters; × 2 B +
    // 12,064,512 (fp32 gates and biases, replicated) + w_kc/w_vc 47 × 2,293,760 × 2 B = 215,613,440
    // → 30,306,726,912 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 30_306_726_912);
    // KV cell: one latent head (512 + 64) × 47 layers × 2 B = 54,144 B per token, on every rank.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(4)), (54_144, 54_144));
    // 20 heads split over 2 or 4 ranks, not 8 (both engines: heads % tp == 0).
    assert!(s.validate_tp(4).is_ok());
    assert!(s.validate_tp(8).is_err());
}

/// Without the `glm4_moe_lite` name the same shapes lower as DeepSeek-V3 (whose gate is at the model
/// dtype): the only weight difference is the fp32 gate, 46 × 131,072 × 2 B = 12,058,624 B.
#[test]
fn glm47_flash_differs_from_deepseek_v3_by_its_fp32_gate() {
    let lite = spec(GLM47_FLASH);
    let v3 = spec(&GLM47_FLASH.replace("Glm4MoeLiteForCausalLM", "DeepseekV3ForCausalLM"));
    assert_eq!(v3.arch, Architecture::DeepseekV3);
    assert_eq!(
        lite.weight_bytes_per_rank(1).0 - v3.weight_bytes_per_rank(1).0,
        46 * 131_072 * 2
    );
    assert_eq!(lite.kv_cell_bytes(1), v3.kv_cell_bytes(1));
}

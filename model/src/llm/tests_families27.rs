//! families27 (issue #17): MiniMax-M1 / MiniMax-Text-01 (`MiniMaxM1ForCausalLM`,
//! `MiniMaxText01ForCausalLM`, `llm::minimax01`), by hand from vLLM 0.11.0
//! `models/minimax_text_01.py`, `layers/mamba/linear_attn.py` and the preset's config.
use super::*;

const M1: &str = include_str!("../../../scenarios/models/minimax-m1-80k/config.json");

fn spec(q: Quantization) -> ModelSpec {
    ModelSpec::from_config_json(M1, q).expect("MiniMax-M1 lowers")
}

fn edited(
    edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>),
) -> Result<ModelSpec, ModelError> {
    test_util::spec(&test_util::with(M1, edit))
}

#[test]
fn minimax_m1_parameters_by_hand() {
    let s = spec(Quantization::bf16());
    assert_eq!(s.arch, Architecture::MiniMaxText01);
    assert_eq!(
        (s.num_layers, s.heads, s.kv_heads, s.head_dim, s.hidden, s.vocab),
        (80, 64, 8, 128, 6_144, 200_064)
    );
    // attn_type_list: a 1 at every 8th layer → 70 lightning, 10 softmax.
    assert_eq!((s.linear_layers(), s.kv_layers()), (70, 10));
    assert_eq!(s.mixers[7], Mixer::Attention);
    assert_eq!(s.mixers[8], Mixer::Linear);
    let moe = s.moe.expect("MoE");
    assert_eq!(test_util::moe_shape(&moe), (32, 2, 9_216, 0));
    assert!(s.router_fp32 && s.lm_head_fp32 && !s.tie_word_embeddings && !s.attention_bias);
    // Parameters (tolerance: none, integers). Every layer: experts 32 × 3 × 6,144 × 9,216 =
    // 5,435,817,984; router 32 × 6,144 = 196,608; two norms 12,288 → 5,436,026,880 (× 80 =
    // 434,882,150,400). Lightning layer (P = 64 × 128 = 8,192): qkv 3 × 8,192 × 6,144 = 150,994,944,
    // output_gate 50,331,648, out_proj 50,331,648, norm 8,192 → 251,666,432 (× 70 = 17,616,650,240).
    // Softmax layer: q 8,192 × 6,144 = 50,331,648, k and v 2 × 1,024 × 6,144 = 12,582,912, o
    // 50,331,648 → 113,246,208 (× 10 = 1,132,462,080). Embedding and untied head 2 × 200,064 × 6,144
    // = 2,458,386,432; final norm 6,144. Total 456,089,655,296: the cards' "456 billion".
    let total: u64 = 80 * 5_436_026_880 + 70 * 251_666_432 + 10 * 113_246_208 + 2_458_386_432 + 6_144;
    assert_eq!(total, 456_089_655_296);
    // Active: 2 of 32 experts, 80 × 30 × 169,869,312 fewer = 48,403,306,496; without the embedding
    // and head 45,944,920,064: the cards' "45.9 billion are activated per token".
    let active = total - 80 * 30 * 169_869_312;
    assert_eq!(active, 48_403_306_496);
    assert_eq!(active - 2_458_386_432, 45_944_920_064);
    // bf16 at tp 1: 2 B a parameter; the fp32 router 2 B more a value (80 × 196,608 × 2 =
    // 31,457,280) and the fp32 head 2 B more (1,229,193,216 × 2 = 2,458,386,432).
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * total + 31_457_280 + 2_458_386_432
    );
    // At tp 8, bytes: MoE experts 5,435,817,984 / 8 × 2 = 1,358,954,496 plus the fp32 router,
    // replicated, 196,608 × 4 = 786,432, × 80 layers. A lightning layer (its two norms included):
    // qkv 3 × 1,024 × 6,144 + output_gate 1,024 × 6,144 + out_proj 6,144 × 1,024 + norm 1,024 + norms
    // 2 × 6,144 = 31,470,592 values × 2 = 62,941,184, × 70. A softmax layer: q 1,024 × 6,144 + k, v
    // 2 × 128 × 6,144 + o 6,144 × 1,024 = 14,155,776 values × 2 = 28,311,552, norms 24,576, × 10.
    // Embedding 200,064 / 8 = 25,008 rows × 6,144 × 2 = 307,298,304; the fp32 head × 4 =
    // 614,596,608; final norm 12,288. Total 114,390,425,600 B = 106.53 GiB a rank.
    let tp8: u64 = 80 * (1_358_954_496 + 786_432)
        + 70 * 62_941_184
        + 10 * (28_311_552 + 24_576)
        + 307_298_304
        + 614_596_608
        + 12_288;
    assert_eq!(tp8, 114_390_425_600);
    assert_eq!(s.weight_bytes_per_rank(8).0, tp8);
    // KV a token at tp 8: 10 softmax layers × 1 KV head × 128 × 2 (K, V) × 2 B = 5,120.
    assert_eq!(s.kv_cell_bytes(8), 5_120);
}

/// vLLM 0.11.0 `linear_attention_state_shape`: (heads / tp, head_dim, head_dim) at the model dtype.
#[test]
fn lightning_state_by_hand() {
    let s = spec(Quantization::bf16());
    let g = s.linear_attention.expect("lightning shape");
    // tp 8: 8 × 128 × 128 × 2 = 262,144 a layer; no conv state.
    assert_eq!(g.conv_state_bytes(8), 0);
    assert_eq!(lightning_vllm_state_page(&g, 8, 2), 262_144);
    assert_eq!(g.state_bytes(8), 262_144);
    // 70 layers: 18,350,080 a request a rank.
    assert_eq!(s.linear_state_bytes_per_req(8), 18_350_080);
    // --mamba-cache-dtype float32 (vLLM ≥ 0.22): 524,288.
    assert_eq!(lightning_vllm_state_page(&g, 8, 4), 524_288);
}

/// What the lowering refuses (vLLM's own checks where it has one).
#[test]
fn minimax01_refusals() {
    let e = edited(|o| {
        o.insert("shared_intermediate_size".into(), 1_024.into());
    })
    .unwrap_err();
    assert!(e.to_string().contains("shared_intermediate_size"), "{e}");
    let e = edited(|o| {
        o["attn_type_list"][3] = 2.into();
    })
    .unwrap_err();
    assert!(e.to_string().contains("Unsupported attention type"), "{e}");
    let e = edited(|o| {
        o["attn_type_list"].as_array_mut().unwrap().pop();
    })
    .unwrap_err();
    assert!(e.to_string().contains("80"), "{e}");
    let e = edited(|o| {
        o.insert("rotary_dim".into(), 256.into());
    })
    .unwrap_err();
    assert!(e.to_string().contains("rotary_dim"), "{e}");
    // The HF spelling (`layer_types`) gives the same layers; without any list vLLM builds softmax
    // attention everywhere.
    let s = edited(|o| {
        let types: Vec<serde_json::Value> = (0..80)
            .map(|i| {
                if (i + 1) % 8 == 0 {
                    "full_attention"
                } else {
                    "linear_attention"
                }
                .into()
            })
            .collect();
        o.remove("attn_type_list");
        o.insert("layer_types".into(), types.into());
    })
    .unwrap();
    assert_eq!((s.linear_layers(), s.kv_layers()), (70, 10));
    let s = edited(|o| {
        o.remove("attn_type_list");
    })
    .unwrap();
    assert_eq!((s.linear_layers(), s.kv_layers()), (0, 80));
    // 64 lightning heads: tp 3 does not divide them (nor the 8 KV heads).
    assert!(spec(Quantization::bf16()).validate_tp(3).is_err());
}

/// vLLM 0.11.0 `MiniMaxText01RMSNormTP._forward`: one variance allreduce per lightning layer at tp > 1,
/// none at tp 1; the hidden-state allreduces stay 2 a layer + 1 for the embedding.
#[test]
fn lightning_norm_allreduces_by_hand() {
    let s = spec(Quantization::bf16());
    let fp = s.forward_pass(8, 4);
    assert_eq!(fp.lightning_norm_allreduces, 70);
    assert_eq!(fp.allreduces, 2 * 80 + 1);
    assert_eq!(fp.qk_norm_allreduces, 0);
    assert_eq!(s.forward_pass(1, 4).lightning_norm_allreduces, 0);
    // A lightning layer launches 22 kernels (`minimax01::LIGHTNING_KERNELS`).
    assert_eq!(LIGHTNING_KERNELS, 22);
}

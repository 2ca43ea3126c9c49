//! families25 (issue #17): LongCat-Flash (`LongcatFlashForCausalLM`, `llm::longcat`), by hand from
//! SGLang 0.5.8 `models/longcat_flash.py` and the preset's config.
use super::*;

const CHAT: &str = include_str!("../../../scenarios/models/longcat-flash-chat/config.json");

fn spec(q: Quantization) -> ModelSpec {
    ModelSpec::from_config_json(CHAT, q).expect("LongCat-Flash lowers")
}

#[test]
fn longcat_parameters_by_hand() {
    let s = spec(Quantization::bf16());
    assert_eq!(s.arch, Architecture::LongcatFlash);
    // 28 layers lowered as 56 blocks (one per MLA attention block, SGLang's 56 KV layers).
    assert_eq!(
        (s.num_layers, s.hidden, s.vocab, s.heads),
        (56, 6_144, 131_072, 64)
    );
    // Top-12 of 512 + 256 → 12 × 512 / 768 = 8 real experts a token; dense MLP 0 = 12,288 / 2,048 = 6
    // shared experts on the MoE block.
    let moe = s.moe.expect("MoE");
    assert_eq!(test_util::moe_shape(&moe), (512, 8, 2_048, 6));
    assert_eq!(s.zero_experts, 256);
    assert!(s.router_fp32 && s.routing_bias && !s.tie_word_embeddings);
    assert_eq!(s.layers[0], Ffn::Moe(moe));
    assert_eq!(s.layers[1], Ffn::Dense { intermediate: 12_288 });
    assert_eq!(s.layers.iter().filter(|f| matches!(f, Ffn::Moe(_))).count(), 28);
    // One MLA block (tolerance: none, integers): q_a 6,144 × 1,536 = 9,437,184; q_a_layernorm 1,536;
    // q_b 1,536 × 64 × 192 = 18,874,368; kv_a_proj_with_mqa 6,144 × 576 = 3,538,944; kv_a_layernorm
    // 512; kv_b 512 × 64 × 256 = 8,388,608; o 8,192 × 6,144 = 50,331,648 → 90,572,800.
    let mla = 9_437_184 + 1_536 + 18_874_368 + 3_538_944 + 512 + 8_388_608 + 50_331_648;
    assert_eq!(mla, 90_572_800_u64);
    // Dense MLP 3 × 6,144 × 12,288 = 226,492,416; an expert 3 × 6,144 × 2,048 = 37,748,736; router
    // 768 × 6,144 = 4,718,592 and its bias 768; four norms 4 × 6,144 = 24,576.
    let layer = 2 * mla + 2 * 226_492_416 + 512 * 37_748_736 + 4_718_592 + 768 + 24_576;
    assert_eq!(layer, 19_966_227_200_u64);
    // 28 layers + embedding and untied head 2 × 131,072 × 6,144 + final norm 6,144.
    let total = 28 * layer + 2 * 805_306_368 + 6_144;
    assert_eq!(total, 560_664_980_480); // the card's "560B" (+0.1 %); the MTP layer is not counted
    // Active without the input embedding (the card's 18.6B–31.3B): none of 12 top-k slots real:
    // total − 28 × 512 experts − 805,306,368 = 18,693,794,816; all 12 real: + 28 × 12 × 37,748,736
    // = 31,377,370,112; 8 real (tpsim's mean): 27,149,511,680 (the card's "~27B on average").
    let no_experts = total - 28 * 512 * 37_748_736 - 805_306_368;
    assert_eq!(no_experts, 18_693_794_816);
    assert_eq!(no_experts + 28 * 12 * 37_748_736, 31_377_370_112);
    assert_eq!(no_experts + 28 * 8 * 37_748_736, 27_149_511_680);
    // bf16 at tp 1: 2 B a parameter; the fp32 router 2 B more a weight (28 × 4,718,592 × 2 =
    // 264,241,152) and its fp32 bias 2 B more (28 × 768 × 2 = 43,008); SGLang's absorbed w_kc / w_vc
    // copies of each block's kv_b_proj (0.5.8 `longcat_flash.py` `post_load_weights`, `.contiguous()`):
    // 56 × 8,388,608 × 2 B = 939,524,096.
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * total + 264_241_152 + 43_008 + 939_524_096
    );
    // KV a token, any tp (MLA's latent is not split): 56 × (512 + 64) × 2 B = 64,512.
    assert_eq!(s.kv_cell_bytes(8), 64_512);
    // The fp32 router GEMM over all 768 columns: 2 × 768 × 6,144 = 9,437,184 FLOPs a token (an
    // integer well inside f64's exact range: tolerance 0.5).
    assert!((s.router_fp32_flops(512, 1) - 9_437_184.0).abs() < 0.5);
}

/// The refusals of `llm::longcat`: a top-k whose real share is not whole, a dense width that is not
/// whole expert widths, a non-identity zero expert, SGLang's silu-only MLPs.
#[test]
fn longcat_refusals() {
    let with = |key: &str, val: serde_json::Value| {
        let mut v: serde_json::Value = serde_json::from_str(CHAT).unwrap();
        v[key] = val;
        ModelSpec::from_config_json(&v.to_string(), Quantization::bf16())
    };
    // 10 × 512 / 768 = 6.67 experts: refused.
    let e = with("moe_topk", 10.into()).unwrap_err().to_string();
    assert!(e.contains("moe_topk") && e.contains("whole"), "{e}");
    let e = with("ffn_hidden_size", 10_000.into()).unwrap_err().to_string();
    assert!(e.contains("ffn_hidden_size"), "{e}");
    let e = with("zero_expert_type", "const".into()).unwrap_err().to_string();
    assert!(e.contains("identity"), "{e}");
    let e = with("hidden_act", "gelu".into()).unwrap_err().to_string();
    assert!(e.contains("Only silu is supported"), "{e}");
    // Without zero experts every top-k slot is a real expert; `num_hidden_layers` wins over
    // `num_layers` (SGLang's LongcatFlashConfig).
    let s = with("zero_expert_num", 0.into()).unwrap();
    assert_eq!((s.moe.unwrap().num_experts_per_tok, s.zero_experts), (12, 0));
    let s = with("num_hidden_layers", 2.into()).unwrap();
    assert_eq!(s.num_layers, 4);
    // A bf16 router when the config says so (`rounter_params_dtype`).
    assert!(
        !with("rounter_params_dtype", "bfloat16".into())
            .unwrap()
            .router_fp32
    );
}

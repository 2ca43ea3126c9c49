//! families26 (issue #17): InternVL3-78B and InternVL3.5-38B (`InternVLChatModel` with InternViT-6B),
//! by hand from the bundled presets: the parameter counts against the model cards' rounded sizes,
//! InternViT-6B's 25 heads per rank as each engine lays them out (`llm::internvl`), and the Qwen3-MoE
//! and GPT-OSS towers lowered by the plain models' own code.
use super::*;

const INTERNVL3_78B: &str = include_str!("../../../scenarios/models/internvl3-78b/config.json");
const INTERNVL3_5_38B: &str = include_str!("../../../scenarios/models/internvl3.5-38b/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("InternVL lowers")
}

/// InternViT-6B-448px-V2.5 and InternVL3-78B's mlp1 at tp 1 (tolerance: none, integers).
///
/// A block (RMSNorm, no qkv bias, q/k norms): norm1 + norm2 2 × 3,200 = 6,400; ls1 + ls2 6,400; qkv
/// 9,600 × 3,200 = 30,720,000; q_norm + k_norm 6,400; proj 3,200² + 3,200 = 10,243,200; fc1 12,800 ×
/// 3,200 + 12,800 = 40,972,800; fc2 3,200 × 12,800 + 3,200 = 40,963,200 → 122,918,400; × 45 =
/// 5,531,328,000. Embeddings: class 3,200; patch 3,200 × 3 × 14² + 3,200 = 1,884,800; positions
/// ((448 / 14)² + 1) × 3,200 = 1,025 × 3,200 = 3,280,000 → InternViT 5,536,496,000 (the
/// InternViT-6B-448px-V2.5 card's "5.5B"). mlp1: LayerNorm 2 × 12,800 = 25,600; 12,800 × 8,192 +
/// 8,192 = 104,865,792; 8,192² + 8,192 = 67,117,056 → 172,008,448.
///
/// Language model (Qwen2.5-72B layout, vocab 151,674): a layer q 8,192² + 8,192 = 67,117,056; k, v
/// 2 × (1,024 × 8,192 + 1,024) = 16,779,264; o 67,108,864; SwiGLU 3 × 8,192 × 29,568 = 726,663,168;
/// norms 16,384 → 877,684,736; × 80 = 70,214,778,880; embedding + untied head 2 × 151,674 × 8,192 =
/// 2,485,026,816; final norm 8,192 → 72,699,813,888.
///
/// Total 72,699,813,888 + 5,536,496,000 + 172,008,448 = 78,408,318,336: the InternVL3-78B card's
/// "78.4B" (huggingface.co/OpenGVLab/InternVL3-78B). The engines pad the vocabulary to 151,680 rows:
/// 6 × 8,192 more in the embedding and in the head, so tp 1 holds 2 × (78,408,318,336 + 98,304) B.
#[test]
fn internvl3_78b_parameters_by_hand() {
    let s = spec(INTERNVL3_78B);
    assert_eq!(s.arch, Architecture::Qwen2);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (80, 64, 8, 128));
    assert_eq!(
        (s.hidden, s.dense_intermediate, s.vocab),
        (8_192, 29_568, 151_674)
    );
    let v = s.vision.expect("InternViT");
    assert_eq!(
        (v.layers, v.hidden, v.intermediate, v.heads),
        (45, 3_200, 12_800, 25)
    );
    assert_eq!(
        v.family,
        VisionFamily::InternVit {
            layer_norm: false,
            qkv_bias: false,
            qk_norm: true,
            whole_attention: false
        }
    );
    assert_eq!(s.weight_breakdown(1).vision, 2 * (5_536_496_000 + 172_008_448));
    let total: u64 = 72_699_813_888 + 5_536_496_000 + 172_008_448;
    assert_eq!(total, 78_408_318_336);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (total + 2 * 6 * 8_192));
    // KV cell at tp 2: 80 layers × 4 KV heads × 128 × 2 (K, V) × 2 B = 163,840 B a token.
    assert_eq!(s.kv_cell_bytes(2), 163_840);
}

/// InternViT-6B's 25 heads at tp 2 and 4, per rank (bytes, bf16; tolerance: none). A block's parts
/// that do not depend on the layout: norms 6,400 + layer scales 6,400 + proj bias 3,200 + fc1
/// 12,800 / t × 3,200 + 12,800 / t + fc2 3,200 × 12,800 / t + 3,200; outside the blocks 5,168,000
/// (embeddings) + 172,008,448 (mlp1) = 177,176,448, replicated.
///
/// SGLang (dummy heads): tp 2 pads to 26 heads, 13 × 128 = 1,664 a rank: qkv 3 × 1,664 × 3,200 =
/// 15,974,400, q/k norms 2 × 26 × 128 = 6,656, proj 3,200 × 1,664 = 5,324,800, MLP 20,486,400 +
/// 20,483,200 → block 62,291,456; × 45 = 2,803,115,520; + 177,176,448 = 2,980,291,968 →
/// 5,960,583,936 B. tp 4 pads to 28, 7 × 128 = 896: qkv 8,601,600, norms 7,168, proj 2,867,200, MLP
/// 10,243,200 + 10,243,200 → 31,978,368; × 45 = 1,439,026,560; + 177,176,448 = 1,616,203,008 →
/// 3,232,406,016 B.
///
/// vLLM (whole attention): qkv 30,720,000, norms 6,400, proj 10,240,000 at any tp. tp 2: MLP
/// 20,486,400 + 20,483,200 → block 81,952,000; × 45 = 3,687,840,000; + 177,176,448 = 3,865,016,448 →
/// 7,730,032,896 B. tp 4: MLP 10,243,200 × 2 → 61,468,800; × 45 = 2,766,096,000; + 177,176,448 =
/// 2,943,272,448 → 5,886,544,896 B. At tp 5 (25 heads divide) both engines shard by heads alike.
#[test]
fn internvit_6b_per_rank_by_engine() {
    let sglang = spec(INTERNVL3_78B);
    let mut vllm = sglang.clone();
    vllm.serve_internvl_as_vllm();
    assert_eq!(sglang.weight_breakdown(2).vision, 5_960_583_936);
    assert_eq!(sglang.weight_breakdown(4).vision, 3_232_406_016);
    assert_eq!(vllm.weight_breakdown(2).vision, 7_730_032_896);
    assert_eq!(vllm.weight_breakdown(4).vision, 5_886_544_896);
    assert_eq!(vllm.weight_breakdown(5).vision, sglang.weight_breakdown(5).vision);
    // Only the vision tower differs: the language model is the same Qwen2 lowering.
    let (a, b) = (sglang.weight_breakdown(2), vllm.weight_breakdown(2));
    assert_eq!(a.total() - a.vision, b.total() - b.vision);
    // Both engines serve every tp the language model allows (64 heads, 8 KV heads).
    for tp in [2, 4, 8] {
        assert!(sglang.validate_tp(tp).is_ok(), "tp {tp}");
    }
}

/// InternVL3.5-38B (Qwen3-32B layout, vocab 151,936, InternViT-6B) at tp 1 (tolerance: none).
///
/// Language model: a layer q 5,120 × 8,192 = 41,943,040; k, v 2 × 1,024 × 5,120 = 10,485,760; o
/// 41,943,040; q/k norms 2 × 128 = 256; SwiGLU 3 × 5,120 × 25,600 = 393,216,000; norms 10,240 →
/// 487,598,336; × 64 = 31,206,293,504 (Qwen3-32B's card: "31.2B" non-embedding); embedding + head
/// 2 × 151,936 × 5,120 = 1,555,824,640; final norm 5,120 → 32,762,123,264 ("32.8B").
/// mlp1: 25,600 + 12,800 × 5,120 + 5,120 + 5,120² + 5,120 = 91,786,240. InternViT 5,536,496,000 (above).
/// Total 38,390,405,504: the InternVL3.5-38B card's "38.4B"; 151,936 rows are a multiple of 64 (no
/// padding).
#[test]
fn internvl3_5_38b_parameters_by_hand() {
    let s = spec(INTERNVL3_5_38B);
    assert_eq!(s.arch, Architecture::Qwen3);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (64, 64, 8, 128));
    assert_eq!(s.weight_breakdown(1).vision, 2 * (5_536_496_000 + 91_786_240));
    let total: u64 = 32_762_123_264 + 5_536_496_000 + 91_786_240;
    assert_eq!(total, 38_390_405_504);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total);
}

/// The Qwen3-MoE (InternVL3.5-30B-A3B) and GPT-OSS (InternVL3.5-GPT-OSS-20B-A4B) towers are the plain
/// models' own lowering: the InternVL total less its vision tower equals the bundled qwen3-30b-a3b /
/// gpt-oss-20b preset's total at every tp (tolerance: none), and the KV cell is the tower's.
#[test]
fn moe_towers_reuse_the_plain_lowering() {
    for (tower, arch) in [
        (
            include_str!("../../../scenarios/models/qwen3-30b-a3b/config.json"),
            Architecture::Qwen3Moe,
        ),
        (
            include_str!("../../../scenarios/models/gpt-oss-20b/config.json"),
            Architecture::GptOss,
        ),
    ] {
        let mut v: serde_json::Value = serde_json::from_str(INTERNVL3_5_38B).unwrap();
        let llm: serde_json::Value = serde_json::from_str(tower).unwrap();
        v["llm_config"] = llm;
        let s = spec(&v.to_string());
        let plain = spec(tower);
        assert_eq!(s.arch, arch);
        assert!(s.has_vision && s.moe.is_some());
        for tp in [1, 2, 4] {
            let b = s.weight_breakdown(tp);
            assert_eq!(
                b.total() - b.vision,
                plain.weight_breakdown(tp).total(),
                "{arch:?} tp {tp}"
            );
            assert_eq!(s.kv_cell_bytes(tp), plain.kv_cell_bytes(tp), "{arch:?} tp {tp}");
        }
    }
}

//! families6 (issue #17): Llama-Nemotron NAS (`DeciLMForCausalLM`) by hand from the bundled presets
//! and the engines' `nemotron_nas.py` (SGLang 0.5.9, vLLM 0.19.0).

use super::test_util::spec;
use super::*;

const SUPER_49B: &str = include_str!("../../../scenarios/models/llama-3.3-nemotron-super-49b-v1/config.json");
const ULTRA_253B: &str =
    include_str!("../../../scenarios/models/llama-3.1-nemotron-ultra-253b-v1/config.json");

/// `_ffn_mult_to_intermediate_size`: `int(2 × ffn_mult × hidden / 3)` rounded up to 256.
#[test]
fn ffn_mult_rounds_up_to_256() {
    use super::nemotron_nas::ffn_mult_to_intermediate as w;
    // 2 × 5.25 × 8,192 / 3 = 28,672 (a multiple of 256: kept).
    assert_eq!(w(5.25, 8192), 28_672);
    // 2 × 1.0 × 8,192 / 3 = 5,461.33 → 5,461 → 5,632 (22 × 256).
    assert_eq!(w(1.0, 8192), 5_632);
    // 2 × 0.5 × 8,192 / 3 = 2,730.67 → 2,730 → 2,816.
    assert_eq!(w(0.5, 8192), 2_816);
    // 2 × 3.28125 × 8,192 / 3 = 17,920 exactly.
    assert_eq!(w(3.28125, 8192), 17_920);
    // Ultra: 2 × 1.95 × 16,384 / 3 = 21,299.2 → 21,299 → 21,504.
    assert_eq!(w(1.95, 16384), 21_504);
}

/// Super-49B's weights, KV cells and TP rule by hand.
#[test]
fn super_49b_parameters_by_hand() {
    let s = spec(SUPER_49B).expect("preset lowers");
    assert_eq!(s.arch, Architecture::NemotronNas);
    assert_eq!(
        architecture_of("DeciLMForCausalLM"),
        Some(Architecture::NemotronNas)
    );
    assert_eq!(
        (s.num_layers, s.kv_layers(), s.kv_heads, s.head_dim),
        (80, 49, 8, 128)
    );
    assert!(!s.tie_word_embeddings && !s.attention_bias);
    // The widest MLP (ffn_mult 5.25) is the profile's width.
    assert_eq!(s.dense_intermediate, 28_672);
    // tp 1. Embedding and head 2 × 128,256 × 8,192 = 2,101,346,304. Each of the 49 attention blocks:
    // qkv (8,192 + 2 × 1,024) × 8,192 = 83,886,080 + o 67,108,864 = 150,994,944 → 7,398,752,256.
    // MLPs 3 × 8,192 × (49 × 28,672 + 10 × 7,168 + 8 × 5,632 + 6 × 14,336 + 6 × 2,816 + 17,920 =
    // 1,642,496) = 40,365,981,696. Norms (49 × 2 + 31 × 1) × 8,192 + final 8,192 = 1,064,960.
    // Total 49,867,145,216 = the "49B" of the name; 2 B each.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 49_867_145_216);
    // tp 4: head rows 32,064 → 2 × 32,064 × 8,192 = 525,336,576; attention (2,048 + 2 × 256) × 8,192
    // + 8,192 × 2,048 = 37,748,736 × 49 = 1,849,688,064; MLPs 40,365,981,696 / 4 = 10,091,495,424;
    // norms (replicated) 1,064,960 → 12,467,585,024.
    assert_eq!(s.weight_bytes_per_rank(4).0, 2 * 12_467_585_024);
    assert_eq!(s.weight_breakdown(4).norms, 2 * 1_064_960);
    // KV: vLLM's cell spans the 49 attention blocks: 49 × 2 × 8 × 128 × 2 B = 200,704 at tp 1,
    // 49 × 2 × 2 × 128 × 2 = 50,176 at tp 4. SGLang's pool spans all 80 layers: 327,680 and 81,920.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(4)), (200_704, 50_176));
    assert_eq!(s.sglang_pool_layers(), 80);
    assert_eq!(s.sglang_kv_cell_bytes(s.kv_cell_bytes(1)), 327_680);
    assert_eq!(s.sglang_kv_cell_bytes(s.kv_cell_bytes(4)), 81_920);
    // 64 heads and 8 KV heads: tp 8 divides both (every MLP width too: 2,816 / 8 = 352); tp 3 not.
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(3).is_err());
}

/// A no-op attention block launches no attention kernel and no all-reduce: at tp 2 a pass has 49
/// attention + 80 MLP all-reduces + 1 (the embedding's), and reads KV in 49 layers only.
#[test]
fn super_49b_no_op_attention_blocks_cost_nothing() {
    let s = spec(SUPER_49B).unwrap();
    let p = s.forward_pass(2, 8);
    assert_eq!(p.allreduces, 49 + 80 + 1);
    // Layer 6 (0-based) is the first no-op attention block.
    let l = &p.layers[6];
    assert_eq!((l.attn_kernels, l.kv_bytes_per_token), (0, 0));
    assert!(l.ffn_kernels > 0);
    // Its attention half holds only `post_attention_layernorm` (8,192 × 2 B).
    assert_eq!(l.attn_weight_bytes.0, 2 * 8_192);
    assert_eq!(p.layers.iter().filter(|l| l.kv_bytes_per_token > 0).count(), 49);
    // Per KV layer at tp 2: 4 heads × 256 × 2 B = 2,048 B per context token.
    assert_eq!(p.layers[0].kv_bytes_per_token, 2_048);
}

/// Ultra-253B: 81 layers are no-ops in both halves (no weights, no kernels), 17 MLP-only.
#[test]
fn ultra_253b_parameters_by_hand() {
    let s = spec(ULTRA_253B).expect("preset lowers");
    assert_eq!((s.num_layers, s.kv_layers(), s.kv_heads), (162, 64, 8));
    // Embedding and head 2 × 128,256 × 16,384 = 4,202,692,608; 64 attention blocks × ((16,384 +
    // 2 × 1,024) × 16,384 + 16,384²) = 36,507,222,016; 81 MLPs 3 × 16,384 × 4,327,168 =
    // 212,688,961,536; norms (64 × 2 + 17) × 16,384 + 16,384 = 2,392,064 → 253,401,268,224.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 253_401_268_224);
    // KV: vLLM 64 × 2 × 8 × 128 × 2 = 262,144 at tp 1, 32,768 at tp 8; SGLang × 162 / 64.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(8)), (262_144, 32_768));
    assert_eq!(s.sglang_kv_cell_bytes(s.kv_cell_bytes(8)), 82_944);
    let p = s.forward_pass(8, 1);
    assert_eq!(p.allreduces, 64 + 81 + 1);
    let empty = p
        .layers
        .iter()
        .filter(|l| l.attn_kernels == 0 && l.ffn_kernels == 0 && l.attn_weight_bytes.0 == 0)
        .count();
    assert_eq!(empty, 81);
}

/// What neither engine builds, or tpsim does not model, is refused with the key named.
#[test]
fn nas_refusals_name_the_block() {
    let err = |text: &str| spec(text).unwrap_err().to_string();
    // replace_with_linear: neither engine's nemotron_nas.py reads it.
    let linear = SUPER_49B.replacen(
        "\"n_heads_in_group\": null, \"no_op\": true, \"num_sink_tokens\": null, \"replace_with_linear\": false",
        "\"n_heads_in_group\": null, \"no_op\": false, \"num_sink_tokens\": null, \"replace_with_linear\": true",
        1,
    );
    assert!(err(&linear).contains("block_configs[6].attention.replace_with_linear"));
    // Variable GQA: one block with 16 KV heads (n_heads_in_group 4) beside 8.
    let vgqa = SUPER_49B.replacen("\"n_heads_in_group\": 8", "\"n_heads_in_group\": 4", 1);
    let e = err(&vgqa);
    assert!(
        e.contains("Variable GQA (VGQA) is not yet supported for nemotron-nas in sglang"),
        "{e}"
    );
    // A list shorter than num_hidden_layers.
    let short = SUPER_49B.replace("\"num_hidden_layers\": 80", "\"num_hidden_layers\": 81");
    assert!(err(&short).contains("num_hidden_layers = 81"));
    // No block_configs at all.
    let none = SUPER_49B.replace("\"block_configs\"", "\"unused_blocks\"");
    assert!(err(&none).contains("block_configs"));
    // An attention block whose group does not divide the 64 heads.
    let odd = SUPER_49B.replacen("\"n_heads_in_group\": 8", "\"n_heads_in_group\": 7", 1);
    assert!(err(&odd).contains("block_configs[0].attention.n_heads_in_group"));
}

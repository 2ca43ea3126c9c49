//! families40 (issue #17): MiMo-V2.5-Pro (`MiMoV2ForCausalLM`, lowered as MiMo-V2-Flash by
//! `tpsim_model::llm::mimo_v2`). The preset is a byte-for-byte copy of the checkpoint's config.json
//! from a public dump of `XiaomiMiMo/MiMo-V2.5-Pro` (find_string id 62727537601), which also lists every
//! tensor's shape and dtype and the total "参数总量 1,023,244,718,976". The parameters, the FP8 weights
//! a rank at tp 8 and the SGLang cell are by hand below; the releases (SGLang 0.5.11, vLLM 0.21.0) and
//! the tp a fused `qkv_proj` loads at are read from the PyPI wheels (`scenario::first_release`,
//! `scenario::vllm_diffkv::fused_qkv`).

use crate::common::*;

const PRO: &str = "examples/mimo-v2.5-pro-sglang-h200x8.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(PRO, name, edit)
}

/// The example under vLLM `version` at `tp` (max_model_len for SGLang's context_length).
fn vllm(name: &str, version: &str, tp: u32) -> String {
    variant(name, |t| {
        t.replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("version = \"0.5.23\"", &format!("version = \"{version}\""))
            .replace("tp = 8", &format!("tp = {tp}"))
            .replace("context_length", "max_model_len")
    })
}

/// The text model's parameters by hand from the config (tolerance: none), checked against the dump's
/// tensor list.
///
/// Embedding and untied head 2 × 152,576 × 6,144 = 1,874,853,888. Each of the 70 layers: fused
/// qkv_proj (128 × 192 + 8 × 192 + 8 × 128 = 27,136 rows, the dump's `[27136, 6144]`) × 6,144 =
/// 166,723,584, o_proj 6,144 × 128 × 128 = 100,663,296, two norms 12,288; the 60 sliding layers a sink
/// bias of 128. Layer 0's SwiGLU 3 × 16,384 × 6,144 = 301,989,888; layers 1–69 384 experts × 3 × 2,048
/// × 6,144 = 14,495,514,624, the router 384 × 6,144 = 2,359,296 and its bias 384; final norm 6,144.
/// Sum: 1,874,853,888 + 70 × 267,399,168 + 60 × 128 + 301,989,888 + 69 × 14,497,874,304 + 6,144 =
/// **1,021,248,126,336**. The dump's 1,023,244,718,976 counts also the fp32 block scales (qkv 70 × 216
/// × 48, dense 48 × 128 + 2 × 128 × 48, experts 69 × 384 × (48 × 16 + 2 × 16 × 48): 61,790,976) and
/// three MTP layers (eh_proj 6,144 × 12,288, a sliding attention, a 16,384 SwiGLU, five norms, scales:
/// 644,933,888 each): 1,021,248,126,336 + 61,790,976 + 1,934,801,664 = 1,023,244,718,976, exact.
///
/// bf16 at tp 1: 2 B a parameter, the fp32 router weight and bias 2 B more each: 69 × (2,359,296 +
/// 384) × 2 = 325,635,840 → 2,042,821,888,512 B.
#[test]
fn mimo_v2_5_pro_parameters_by_hand() {
    let s = preset_spec("mimo-v2.5-pro");
    assert_eq!(s.arch, tpsim_model::llm::Architecture::MiMoV2Flash);
    let a = s.mimo_v2.expect("MiMo-V2 attention kinds");
    assert!(a.v2_class && a.swa_sink && !a.full_sink && a.v_scale);
    assert_eq!(
        (a.fused_qkv_chunks, a.swa_heads, a.swa_kv_heads, a.v_head_dim),
        (8, 128, 8, 128)
    );
    let total: u64 = 1_874_853_888 + 70 * 267_399_168 + 60 * 128 + 301_989_888 + 69 * 14_497_874_304 + 6_144;
    assert_eq!(total, 1_021_248_126_336);
    assert_eq!(total + 61_790_976 + 3 * 644_933_888, 1_023_244_718_976);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total + 325_635_840);
}

/// The example: FP8 at tp 8 under SGLang 0.5.23 (tolerance: none, integers).
///
/// Weights a rank: embedding and head 2 × 19,072 × 6,144 × 2 B = 468,713,472. A global layer: qkv
/// 16 × 192 + 1 × 192 + 1 × 128 = 3,392 rows × 6,144 = 20,840,448 fp8 plus ⌈3,392 / 128⌉ = 27 ×
/// 48 × 4 = 5,184 scales; o_proj (bf16, `ignored_layers`) 6,144 × 2,048 × 2 = 25,165,824; norms 24,576 →
/// 46,036,032; a sliding layer the same plus its sink 16 × 2 = 32 → 46,036,064. Layer 0's MLP: gate_up
/// 4,096 × 6,144 plus 32 × 48 × 4, down 6,144 × 2,048 plus 48 × 16 × 4 → 37,757,952. A MoE layer:
/// 384 × (512 × 6,144 plus 4 × 48 × 4, 6,144 × 256 plus 48 × 2 × 4) = 384 × 4,719,744 =
/// 1,812,381,696, the fp32 gate 384 × 6,144 × 4 = 9,437,184 and bias 1,536 → 1,821,820,416. Total:
/// 468,713,472 plus 10 × 46,036,032, 60 × 46,036,064, 37,757,952, 69 × 1,821,820,416 and the final
/// norm 12,288 = **129,434,616,576 B** (120.55 GiB) a rank.
///
/// Cell (SGLang ≥ 0.5.9's hybrid-SWA branch): one KV head a rank of (192 + 128) × 2 B = 640 B in every
/// layer: 10 × 640 + 60 × 640 = 44,800 B. One all-reduce per attention and per feed-forward × 70 + the
/// embedding's = 141.
#[test]
fn mimo_v2_5_pro_sglang_h200_by_hand() {
    let run = run_json(&scenario(PRO));
    assert_eq!(entry_bytes(&run, "target weights"), 129_434_616_576);
    assert_eq!(run["memory"]["cell_size_bytes"].as_u64().unwrap(), 44_800);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 141);
    // vLLM 0.21.0 at tp 8 (one chunk of the fused qkv_proj a rank): the same weights a rank, and vLLM's
    // load figure counts its RoPE caches too: two bases (rope_theta 1e7 global, swa_rope_theta 1e4
    // sliding), each max_position_embeddings 1,048,576 × rotary 64 (192 × 0.334) × 2 B (bf16) =
    // 134,217,728, and the caching allocator's kept segments (`tpsim_model::torch_alloc`, modelled per
    // tensor there; tolerance here: under 8 MiB, which no missing tensor of this model is: the smallest
    // per-layer one, a qkv shard, is 19.9 MiB).
    let run = run_json(&vllm("pro-vllm-0.21", "0.21.0", 8));
    let segments = entry_bytes(&run, "target weights") - 129_434_616_576 - 2 * 134_217_728;
    assert!(segments < 8 << 20, "{segments}");
}

/// What tpsim refuses: SGLang before 0.5.11 and vLLM before 0.21.0 (no `MiMoV2ForCausalLM`: the
/// 0.5.10.post1 wheel has `mimo_v2_flash.py` only, vLLM 0.20.0's registry no entry); SGLang at a tp
/// that does not divide the 8 fused chunks (its ValueError); vLLM below tp 8 (its per-chunk K/V padding,
/// not modelled); MiMo-V2.5's vision and audio encoders.
#[test]
fn mimo_v2_5_pro_refusals() {
    let old = variant("pro-0.5.10", |t| t.replace("\"0.5.23\"", "\"0.5.10.post1\""));
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "SGLang 0.5.10.post1 has no MiMoV2ForCausalLM in models/mimo_v2.py (SGLang adds it in 0.5.11): it \
             cannot serve MiMo-V2.5 (MiMoV2ForCausalLM)"
        ),
        "{}",
        o.stderr
    );
    let o = tpsim(&["run", &vllm("pro-vllm-0.20", "0.20.0", 8)]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("(vLLM adds it in 0.21.0)"), "{}", o.stderr);
    let o = tpsim(&["run", &vllm("pro-vllm-tp4", "0.21.0", 4)]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("_fused_qkv_kv_chunk_rows"), "{}", o.stderr);
    let tp16 = variant("pro-tp16", |t| {
        t.replace("h200-8x-nvlink", "h200-16x-2node-ib")
            .replace("tp = 8", "tp = 16")
    });
    let o = tpsim(&["run", &tp16]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("MiMoV2 fused qkv_proj checkpoint is TP=8-interleaved; got attention tp_size=16"),
        "{}",
        o.stderr
    );
    let text = std::fs::read_to_string(scenario("models/mimo-v2.5-pro/config.json")).unwrap();
    let omni = text.replacen("{\n", "{\n  \"vision_config\": {\"depth\": 28},\n", 1);
    let e = tpsim_model::llm::ModelSpec::from_config_json(&omni, tpsim_model::llm::Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(e.contains("vision and audio encoders"), "{e}");
}

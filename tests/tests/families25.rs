//! families25 (issue #17): Meituan LongCat-Flash (`LongcatFlashForCausalLM`, `tpsim_model::llm::longcat`)
//! end to end. The parameters are pinned by hand in `model/src/llm/tests_families25.rs`
//! (560,664,980,480; the card's 560B); here the bundled FP8 example runs under SGLang 0.5.8 on 8× H200
//! with its weights a rank, KV cell and pool by hand, the same on 8× RTX PRO 6000 (96 GB), the bf16
//! release is refused by the engine's memory check on one 8× H200 node (Meituan's guide: "at least two
//! nodes ... for BF16 weights"), and what tpsim does not serve is refused. No public start-up log of
//! LongCat-Flash with its memory lines was found.

use crate::common::*;

const LONGCAT: &str = "examples/longcat-flash-fp8-sglang-h200x8.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(LONGCAT, name, edit)
}

/// FP8 weights a rank at tp 8, ep 8 (block FP8 128 × 128: fp8 bytes + one fp32 scale a block), per
/// LongCat layer (tolerance: none, integers):
/// - an MLA block: fused q_a + kv_a (replicated) 6,144 × (1,536 + 576) = 12,976,128 + ⌈2,112/128⌉ × 48
///   blocks × 4 = 3,264; q_b 1,536 × 1,536 (64 / 8 heads × 192) = 2,359,296 + 12 × 12 × 4 = 576; kv_b
///   512 × 2,048 = 1,048,576 + 4 × 16 × 4 = 256; o 1,024 × 6,144 = 6,291,456 + 8 × 48 × 4 = 1,536;
///   SGLang's w_kc / w_vc at bf16 2 × 8 × 128 × 512 × 2 = 2,097,152; q_a / kv_a norms (1,536 + 512) × 2
///   = 4,096 → 24,782,336, twice;
/// - a dense MLP: gate/up 3,072 × 6,144 = 18,874,368 + 24 × 48 × 4 = 4,608; down 6,144 × 1,536 =
///   9,437,184 + 48 × 12 × 4 = 2,304 → 28,318,464, twice;
/// - 512 / 8 = 64 whole experts (EP 8) × (3 × 6,144 × 2,048 = 37,748,736 + (32 × 48 + 48 × 16) × 4 =
///   9,216) = 2,416,508,928;
/// - the fp32 router 768 × 6,144 × 4 = 18,874,368 + its fp32 bias 768 × 4 = 3,072; four bf16 norms
///   4 × 6,144 × 2 = 49,152
///
/// → 2,541,637,120 B a layer; 28 layers = 71,165,839,360; embedding and head 2 × 131,072 / 8 × 6,144 × 2
/// = 402,653,184; final norm 12,288 → 71,568,504,832 B (68,253.0 MiB).
/// Cell: 56 MLA layers × (512 + 64) × 2 B = 64,512 B a token on every rank; tokens = int(rest × 2^30 /
/// 64,512). All-reduces a pass: five a layer (SGLang 0.5.8 `longcat_flash.py`: after attention 0, the
/// MoE, dense MLP 0, attention 1, dense MLP 1) × 28 + the embedding's = 141.
#[test]
fn longcat_fp8_h200_by_hand() {
    let run = run_json(&scenario(LONGCAT));
    assert_eq!(run["verdict"], "ok");
    assert_eq!(entry_bytes(&run, "target weights"), 71_568_504_832);
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 64_512);
    let tokens = (f(&m["rest_gib"]) * (1u64 << 30) as f64 / 64_512.0).floor() as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), tokens);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 141);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// The brief's question: does the FP8 release fit eight RTX PRO 6000 (96 GB)? The weights a rank are
/// the H200's (71,568,504,832 B: the same sharding), and SGLang starts with a KV pool of int(rest ×
/// 2^30 / 64,512) tokens, at least 200,000 (tpsim: 217,426; rest 13.06 GiB after 66.65 GiB of
/// weights of the card's 94.04 GiB free).
#[test]
fn longcat_fp8_fits_rtx_pro_6000() {
    let rtx = variant("longcat-rtxpro", |t| {
        t.replace("h200-8x-nvlink", "rtx-pro-6000-8x-1switch")
            .replace("attention_backend = \"flashinfer\"", "")
    });
    let run = run_json(&rtx);
    assert_eq!(run["verdict"], "ok");
    assert_eq!(entry_bytes(&run, "target weights"), 71_568_504_832);
    let m = &run["memory"];
    let tokens = (f(&m["rest_gib"]) * (1u64 << 30) as f64 / 64_512.0).floor() as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), tokens);
    assert!(tokens > 200_000, "{tokens}");
}

/// The bf16 release on the same node: weights a rank (bf16, tolerance: none) per layer 2 × 47,452,160
/// (MLA: 18,874,368 + 7,077,888 + 4,718,592 + 2,097,152 + 12,582,912 + w_kc / w_vc 2,097,152 + norms
/// 4,096) + 2 × 56,623,104 (dense) + 64 × 75,497,472 (experts) + 18,877,440 (fp32 router and bias) +
/// 49,152 (norms) = 5,058,915,328; × 28 + 402,653,184 + 12,288 = 142,052,294,656 B (132.30 GiB of the
/// H200's 138.81 free): SGLang's KV profile finds rest ≤ 0 and refuses with its own text, as Meituan's
/// guide says (bf16 needs two nodes, e.g. 16× H800-80G).
#[test]
fn longcat_bf16_does_not_fit_one_h200_node() {
    let bf16 = variant("longcat-bf16", |t| {
        t.replace("longcat-flash-chat-fp8", "longcat-flash-chat")
    });
    let run = run_json(&bf16);
    assert_ne!(run["verdict"], "ok");
    assert_eq!(entry_bytes(&run, "target weights"), 142_052_294_656);
    let o = tpsim(&["run", &bf16]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stderr.contains("Not enough memory"), "{}", o.stderr);
}

/// The example under vLLM (`vllm serve … --enable-expert-parallel --tensor-parallel-size 8`, the
/// guide's single-node command) at `version`, vLLM picking its own attention backend.
fn vllm_variant(name: &str, version: &str, extra: &str) -> String {
    variant(name, |t| {
        let t = t
            .replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("\"0.5.8\"", &format!("\"{version}\""))
            .replace("ep_size = 8 ", "enable_expert_parallel = true ")
            .replace("attention_backend = \"flashinfer\"", "");
        format!("{t}{extra}")
    })
}

/// The FP8 example under vLLM 0.11.0: the weights a rank are SGLang's 71,568,504,832 B (the same
/// sharding: MLA heads split, q_a / kv_a replicated, w_kc / w_vc copies as tpsim models vLLM's
/// DeepSeek MLA, 64 whole experts a rank with `--enable-expert-parallel`, the fp32 router of
/// `FlashConfig`'s default `router_dtype`), the cell 56 × 576 × 2 B = 64,512 B (vLLM 0.11.0
/// `is_deepseek_mla` lists `longcat_flash`), and the pool whole blocks of it: the KV bytes are exactly
/// tokens × 64,512 and the tokens a multiple of the 64-token block of vLLM's MLA backends on SM 9.0
/// (tolerance: none, integers). Five all-reduces a layer as under SGLang (vLLM 0.11.0
/// `FlashDecoderLayer`: two o_proj, two `FlashMLP` and the `FusedMoE`, each `reduce_results=True`).
#[test]
fn longcat_fp8_vllm_by_hand() {
    let run = run_json(&vllm_variant("longcat-vllm", "0.11.0", ""));
    assert_eq!(run["verdict"], "ok");
    // grok52: vLLM builds the MLA layers' RoPE cache during model construction, so "Model loading
    // took" holds it: one cache a rank shared through `get_rope` (vLLM 0.11.0 `rotary_embedding`),
    // LongCat's plain RoPE over max_position_embeddings 131,072 rows × qk_rope_head_dim 64 in the
    // model dtype (2 B) = 16,777,216 B on top of the 71,568,504,832 B of tensors.
    assert_eq!(entry_bytes(&run, "target weights"), 71_568_504_832 + 16_777_216);
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 64_512);
    let tokens = m["kv_tokens"].as_u64().unwrap();
    assert_eq!(entry_bytes(&run, "KV cache"), tokens * 64_512);
    assert_eq!(tokens % 64, 0, "{tokens}");
    assert!(tokens > 800_000, "{tokens}");
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 141);
}

/// What tpsim does not serve: SGLang before 0.5.2 (the 0.5.1.post3 wheel has no
/// models/longcat_flash.py), vLLM before 0.11.0 (the 0.10.2 wheel has none), the MTP drafts (SGLang's own
/// NextN class, vLLM's `longcat_flash_mtp`).
#[test]
fn longcat_refusals() {
    let old = variant("longcat-0.5.1", |t| t.replace("\"0.5.8\"", "\"0.5.1.post3\""));
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("models/longcat_flash.py") && o.stderr.contains("it cannot serve LongCat-Flash"),
        "{}",
        o.stderr
    );
    let vllm_old = vllm_variant("longcat-vllm-0.10.2", "0.10.2", "");
    let o = tpsim(&["run", &vllm_old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("models/longcat_flash.py") && o.stderr.contains("vLLM adds it in 0.11.0"),
        "{}",
        o.stderr
    );
    let vllm_mtp = vllm_variant(
        "longcat-vllm-mtp",
        "0.11.0",
        "\n[speculative]\nalgorithm = \"mtp\"\nnum_speculative_tokens = 1\nacceptance = { alpha = 0.8 }\n",
    );
    let o = tpsim(&["run", &vllm_mtp]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("does not model vLLM's MTP draft for longcat_flash"),
        "{}",
        o.stderr
    );
    let mtp = variant("longcat-mtp", |t| {
        format!(
            "{t}\n[speculative]\nalgorithm = \"nextn\"\nnum_steps = 1\ntopk = 1\nnum_draft_tokens = 2\nacceptance = {{ alpha = 0.8 }}\n"
        )
    });
    let o = tpsim(&["run", &mtp]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("LongcatFlashForCausalLMNextN"), "{}", o.stderr);
}

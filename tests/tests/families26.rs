//! families26 (issue #17): InternVL3-78B (`InternVLChatModel`: InternViT-6B-448px-V2.5 + mlp1 + a
//! Qwen2.5-72B-layout tower, `tpsim_model::llm` module `internvl`) end to end. The parameters are
//! pinned by hand in `model/src/llm/tests_families26.rs` (78,408,318,336, the card's "78.4B"); here the
//! bundled vLLM example and its SGLang variants run at tp 2, where InternViT-6B's 25 heads do not
//! divide: SGLang pads them to 26 (dummy heads, from 0.4.9.post5), vLLM keeps the attention whole on
//! both ranks, and SGLang before 0.4.9.post5 refuses with its assertion's text.

use crate::common::*;

const EXAMPLE: &str = "examples/internvl3-78b-vllm-rtxpro6000x2.toml";

/// The language model a rank holds at tp 2 (bf16, bytes; tolerance: none). A layer: qkv (32 + 2 × 4)
/// × 128 = 5,120 rows × 8,192 = 41,943,040 + bias 5,120; o 8,192 × 4,096 = 33,554,432; gate/up 2 ×
/// 14,784 × 8,192 = 242,221,056; down 8,192 × 14,784 = 121,110,528; norms 16,384 → 438,850,560
/// parameters; × 80 × 2 B = 70,216,089,600. Embedding and untied head 2 × (151,680 / 2) × 8,192 × 2 B
/// = 2,485,125,120; final norm 16,384 → 72,701,231,104 B.
const LLM_TP2: u64 = 72_701_231_104;
/// InternViT-6B and mlp1 a rank at tp 2 under SGLang (26 padded heads) and vLLM (whole attention),
/// bytes: `tests_families26::internvit_6b_per_rank_by_engine` by hand.
const VIT_SGLANG_TP2: u64 = 5_960_583_936;
const VIT_VLLM_TP2: u64 = 7_730_032_896;

/// The example as SGLang `version` serves it, with `extra` engine keys.
fn sglang(name: &str, version: &str, extra: &str) -> String {
    vllm_file_under_sglang(
        EXAMPLE,
        name,
        32_768,
        &format!("version = \"{version}\"\n{extra}"),
    )
}

/// The vLLM example at tp 2 (vLLM 0.19.0): the KV cell 80 layers × 4 KV heads a rank × 128 × 2 (K, V)
/// × 2 B = 163,840 B; tokens = whole 16-token blocks of the KV bytes (`rest`). Its weights are the
/// SGLang variant's plus the layout difference VIT_VLLM_TP2 − VIT_SGLANG_TP2 = 1,769,448,960 B, plus
/// what vLLM's "Model loading took" counts and SGLang reports apart: the RoPE cos/sin cache and the
/// caching allocator's blocks beyond the tensors (`vllm_parts::weights`; at most 256 MiB here, the
/// bound stated). A vLLM sharding InternViT's attention like SGLang would miss the 1.77 GB.
#[test]
fn internvl3_78b_vllm_example_by_hand() {
    let run = run_json(&scenario(EXAMPLE));
    assert_eq!(run["verdict"], "ok");
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 163_840);
    let blocks = (f(&m["rest_gib"]) * (1u64 << 30) as f64 / (163_840.0 * 16.0)).floor() as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), blocks * 16);
    let sg = run_json(&sglang("sglang-0.5.8", "0.5.8", "mem_fraction_static = 0.85\n"));
    let sg_weights = entry_bytes(&sg, "target weights");
    assert_eq!(sg_weights, LLM_TP2 + VIT_SGLANG_TP2);
    assert_eq!(sg_weights, 78_661_815_040);
    let extra = entry_bytes(&run, "target weights") - sg_weights - (VIT_VLLM_TP2 - VIT_SGLANG_TP2);
    assert_eq!(VIT_VLLM_TP2 - VIT_SGLANG_TP2, 1_769_448_960);
    assert!(extra > 0 && extra < 256 << 20, "{extra}");
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// SGLang 0.5.8 at tp 2 with `mem_fraction_static` 0.85 (set, so not reduced for the vision tower):
/// the cell is the same 163,840 B and, at page 1, tokens = int(rest × 2^30 / 163,840). With the
/// default fraction SGLang reduces it for InternViT-6B (`adjust_mem_fraction_for_vlm`) and the 78B
/// does not start on two 96 GB cards: the verdict, never a throughput.
#[test]
fn internvl3_78b_sglang_tp2() {
    let run = run_json(&sglang(
        "sglang-0.5.8-f085",
        "0.5.8",
        "mem_fraction_static = 0.85\n",
    ));
    assert_eq!(run["verdict"], "ok");
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 163_840);
    let tokens = (f(&m["rest_gib"]) * (1u64 << 30) as f64 / 163_840.0).floor() as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), tokens);
    let default = run_json(&sglang("sglang-0.5.8-default", "0.5.8", ""));
    assert_ne!(default["verdict"], "ok");
    assert!(default["throughput"].is_null(), "{}", default["throughput"]);
}

/// SGLang before 0.4.9.post5 builds InternViT's attention with `divide(25, 2)` and asserts (0.4.9's
/// `distributed/utils.py` `ensure_divisibility`): refused with its text, naming `engine.tp`; 0.4.9.post5
/// pads the heads and starts the same set-up (tp 2, fraction 0.85).
#[test]
fn internvl3_78b_sglang_before_dummy_heads() {
    let old = sglang(
        "sglang-0.4.9.post4",
        "0.4.9.post4",
        "mem_fraction_static = 0.85\n",
    );
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("key `engine.tp`") && o.stderr.contains("\"25 is not divisible by 2\""),
        "{}",
        o.stderr
    );
    let first = sglang(
        "sglang-0.4.9.post5",
        "0.4.9.post5",
        "mem_fraction_static = 0.85\n",
    );
    assert_eq!(tpsim(&["memory", &first]).code, 0);
}

/// A scratch scenario: the bundled `preset` under `engine` `version` at `tp` on four RTX 4090 48GB
/// (no P2P), 8 requests of 1,024 + 64 tokens.
fn on_4090_48gb(name: &str, preset: &str, engine: &str, version: &str, tp: u32) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"rtx-4090-48gb-4x-no-p2p\"\n[model]\npreset = \"{preset}\"\n\
         [engine]\nname = \"{engine}\"\nversion = \"{version}\"\ntp = {tp}\n\
         [workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// InternVL3.5-38B (a Qwen3-32B tower) at tp 4 on four RTX 4090 48GB (bytes; tolerance: none under
/// SGLang, the stated bound under vLLM). Language model a rank: a layer qkv (16 + 2 × 2) × 128 = 2,560
/// rows × 5,120 = 13,107,200; o 5,120 × 2,048 = 10,485,760; q/k norms 256; gate/up 2 × 6,400 × 5,120 =
/// 65,536,000; down 5,120 × 6,400 = 32,768,000; norms 10,240 → 121,907,456; × 64 × 2 B =
/// 15,604,154,368; embedding and head 2 × 37,984 × 5,120 × 2 B = 777,912,320; final norm 10,240 →
/// 16,382,076,928 B. InternViT-6B + mlp1 a rank: SGLang (28 padded heads) 45 × 31,978,368 + 5,168,000 +
/// 91,786,240 = 1,535,980,800 → 3,071,961,600 B; vLLM (whole attention) 45 × 61,468,800 + 5,168,000 +
/// 91,786,240 = 2,863,050,240 → 5,726,100,480 B (the blocks: `tests_families26`). SGLang 0.5.2 builds
/// the Qwen3 tower inside InternVL, 0.5.1.post3 does not.
#[test]
fn internvl3_5_38b_tp4_by_engine() {
    const LLM: u64 = 16_382_076_928;
    let sg = run_json(&on_4090_48gb(
        "38b-sglang",
        "internvl3.5-38b",
        "sglang",
        "0.5.8",
        4,
    ));
    assert_eq!(entry_bytes(&sg, "target weights"), LLM + 3_071_961_600);
    assert_eq!(
        sg["memory"]["cell_size_bytes"].as_u64().unwrap(),
        64 * 2 * 2 * 128 * 2
    );
    let vl = run_json(&on_4090_48gb("38b-vllm", "internvl3.5-38b", "vllm", "0.19.0", 4));
    let extra = entry_bytes(&vl, "target weights") - (LLM + 5_726_100_480);
    assert!(extra > 0 && extra < 256 << 20, "{extra}");
    let old = on_4090_48gb("38b-sglang-0.5.1", "internvl3.5-38b", "sglang", "0.5.1.post3", 4);
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("builds no Qwen3ForCausalLM"), "{}", o.stderr);
}

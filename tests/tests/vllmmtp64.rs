//! vllmmtp64 (issue #17): vLLM's MTP drafts by target and release (`sim/src/scenario/vllm_mtp.rs`).
//!
//! Read in the PyPI wheels of vLLM 0.8.5 – 0.19.0: `SpeculativeConfig.hf_config_override`
//! (`config/speculative.py`; `config.py` in 0.9.x, `config/__init__.py` in 0.10.x) maps MiMo to
//! `mimo_mtp` from 0.9.0, GLM-4.5 to `glm4_moe_mtp` from 0.10.0, Qwen3-Next to `qwen3_next_mtp` from
//! 0.10.2, GLM-4.7-Flash to `glm4_moe_lite_mtp` from 0.15.0, Step-3.5 to `step3p5_mtp` from 0.15.1,
//! GLM-5 (`glm_moe_dsa`) to `deepseek_mtp` from 0.16.0, Qwen3.5 to `qwen3_5_mtp` from 0.17.0; and
//! from 0.16.0 the proposer replaces each MTP layer's `shared_head.head` by the target's LM head
//! (`v1/spec_decode/eagle.py` `_maybe_share_lm_head`). The Qwen3-Next and GLM-4.7-Flash figures are
//! checked in `qwen_hybrids` and `families10`.

use crate::common::*;

/// `text` with `[speculative]` (vLLM MTP, k tokens, an acceptance) before `[workload]`, written to a scratch file.
fn with_mtp(name: &str, text: &str, k: u32) -> String {
    assert_eq!(text.matches("[workload]").count(), 1);
    let spec = format!(
        "[speculative]\nalgorithm = \"mtp\"\nnum_speculative_tokens = {k}\nacceptance = {{ alpha = 0.8 }}\n\n[workload]"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text.replace("[workload]", &spec)).expect("write");
    p.display().to_string()
}

/// The MiMo-7B-RL example on 2× RTX 4090 under vLLM `version`, with MTP.
fn mimo(version: &str) -> String {
    let text = std::fs::read_to_string(scenario("examples/mimo-7b-rl-vllm-rtx4090x2.toml")).expect("example");
    assert_eq!(text.matches("tp = 2").count(), 1);
    let text = text.replace("tp = 2", &format!("version = \"{version}\"\ntp = 2"));
    with_mtp(&format!("mimo-{version}"), &text, 1)
}

/// MiMo-7B-RL's MTP layer under vLLM 0.19.0 at tp 2 (`models/mimo_mtp.py`): a `Qwen2DecoderLayer`
/// (config.json: hidden 4096, intermediate 11,008, 32 heads, 8 KV heads of 128, attention biases,
/// bf16). Parameters a rank, by hand: q 4096 × 4096 + 4096 bias, k and v 4096 × 1024 + 1024 each, o
/// 4096 × 4096 → 41,949,184 / 2 = 20,974,592; gate, up, down 3 × 4096 × 11,008 = 135,266,304 / 2 =
/// 67,633,152; the layer's two norms 8,192; `input_proj` (`nn.Linear` 8192 → 4096, whole on each rank)
/// 33,554,432; `token_layernorm`, `hidden_layernorm`, `final_layernorm` 12,288. Sum 122,182,656 × 2 B
/// = 244,365,312 bytes (exact); the embedding and the top-level `lm_head` are the target's.
#[test]
fn mimo_mtp_draft_weights_by_hand() {
    let j = run_json(&mimo("0.19.0"));
    assert_eq!(entry_bytes(&j, "draft weights"), 244_365_312);
}

/// vLLM 0.8.5's override has no MiMo branch (`mimo_mtp.py` first ships in 0.9.0): the method falls
/// through to "draft_model", which vLLM refuses.
#[test]
fn mimo_mtp_before_0_9_gets_vllms_refusal() {
    let o = tpsim(&["run", &mimo("0.8.5")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr
            .contains("vLLM refuses: \"Speculative decoding with draft model is not supported yet.")
            && o.stderr.contains("`mimo_mtp` arrives in vLLM 0.9.0"),
        "{}",
        o.stderr
    );
}

/// DeepSeek-V3 on 8× H200 at tp 8 under vLLM `version`, with MTP (one layer).
fn deepseek(version: &str) -> String {
    let text = format!(
        "seed = 1\n\n[hardware]\npreset = \"h200-8x-nvlink\"\n\n[model]\npreset = \"deepseek-v3\"\n\n\
         [engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 8\nmax_model_len = 8192\n\n\
         [workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 256\n"
    );
    with_mtp(&format!("dsv3-{version}"), &text, 1)
}

/// DeepSeek-V3's MTP layer keeps its `shared_head` (RMSNorm + `ParallelLMHead` of the whole
/// vocabulary) under vLLM 0.11.0; 0.16.0 on replace the head by the target's. The head a rank at tp 8:
/// 129,280 / 8 = 16,160 rows × 7168 × 2 B = 231,669,760 bytes, the difference between the two
/// releases' draft weights (exact).
#[test]
fn deepseek_shared_head_is_the_targets_from_0_16() {
    let draft = |v: &str| entry_bytes(&run_json(&deepseek(v)), "draft weights");
    assert_eq!(draft("0.11.0") - draft("0.19.0"), 231_669_760);
    assert_eq!(draft("0.15.1"), draft("0.11.0"));
    assert_eq!(draft("0.16.0"), draft("0.19.0"));
}

/// GLM-5 (`glm_moe_dsa`) joins the DeepSeek override in 0.16.0, the release that registers the model
/// (0.15.1 refuses GLM-5 at the registry, before speculation is read). Under 0.16.0 its one MTP layer,
/// the head the target's, weighs what SGLang's draft weighs (the layer, a replicated `eh_proj`,
/// `enorm`, `hnorm` and the head's norm), byte for byte.
#[test]
fn glm5_mtp_draft_under_vllm_0_16_is_sglangs() {
    let glm5 = |v: &str| {
        let text = format!(
            "seed = 1\n\n[hardware]\npreset = \"h200-8x-nvlink\"\n\n[model]\npreset = \"glm-5-fp8\"\n\n\
             [engine]\nname = \"vllm\"\nversion = \"{v}\"\ntp = 8\nmax_model_len = 8192\n\n\
             [workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 256\n"
        );
        with_mtp(&format!("glm5-{v}"), &text, 1)
    };
    let j = run_json(&glm5("0.16.0"));
    assert_eq!(j["verdict"], "ok", "{j}");
    let sglang = with_mtp(
        "glm5-sglang",
        "seed = 1\n\n[hardware]\npreset = \"h200-8x-nvlink\"\n\n[model]\npreset = \"glm-5-fp8\"\n\n\
         [engine]\nname = \"sglang\"\ntp = 8\n\n[workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 256\n",
        1,
    );
    let sglang = std::fs::read_to_string(&sglang).expect("scenario").replace(
        "num_speculative_tokens = 1",
        "num_steps = 1\ntopk = 1\nnum_draft_tokens = 2",
    );
    let p = scratch("glm5-sglang-steps").join("s.toml");
    std::fs::write(&p, sglang).expect("write");
    let s = run_json(&p.display().to_string());
    assert_eq!(entry_bytes(&j, "draft weights"), entry_bytes(&s, "draft weights"));
}

/// Garbage in `engine.version` with a vLLM MTP draft: exit 2, naming the key and saying the release is
/// unreadable (never a panic, never a run).
#[test]
fn an_unreadable_release_with_mtp_is_refused_by_name() {
    let o = tpsim(&["run", &mimo("banana")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("engine.version `banana` is no release number"),
        "{}",
        o.stderr
    );
}

//! vllmattn (issue #17): vLLM's own attention backend when `engine.attention_backend` is unset, the
//! KV block size it forces on MLA models, and vLLM's refusal of a named backend that does not suit
//! the model. Rules read from the vLLM sdists' `vllm/platforms/cuda.py` (0.11.0, 0.19.0; see
//! `sim/src/scenario/attention_backend.rs`).

use crate::common::{run_json, scenario, scratch, tpsim};

/// An example's text with `from` replaced by `to` (exactly once), written to a scratch file.
fn example_with(name: &str, example: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scenario(example)).expect("example");
    assert_eq!(
        text.matches(from).count(),
        1,
        "`{from}` must occur once in {example}"
    );
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    p.display().to_string()
}

/// vLLM 0.11.0, DeepSeek-V3 (MLA) on H200 (SM 9.0): `get_attn_backend_cls` takes FlashMLA
/// (`is_flashmla_supported`: Hopper), and `check_and_update_config` forces the KV block size to 64
/// ("Forcing kv cache block size to 64 for FlashMLA backend"), so the pool holds whole 64-token
/// blocks. The header and `--json` say it is vLLM's pick; `engine-args` states no flag for it.
#[test]
fn vllm_mla_on_hopper_runs_flashmla_with_64_token_blocks() {
    let f = scenario("examples/deepseek-v3-pp2-tp8-vllm-h200x16-2node.toml");
    let j = run_json(&f);
    assert_eq!(j["scenario"]["attention_backend"], "FLASHMLA (vLLM default)");
    let kv = j["memory"]["kv_tokens"].as_u64().expect("kv_tokens");
    assert_eq!(kv % 64, 0, "{kv} tokens are not whole 64-token blocks");
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .lines()
            .any(|l| l.trim() == "attention FLASHMLA (vLLM default)"),
        "{}",
        o.stdout
    );
    let a = tpsim(&["engine-args", &f]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert!(
        !a.stdout.contains("--attention-backend") && !a.stdout.contains("VLLM_ATTENTION_BACKEND="),
        "{}",
        a.stdout
    );
    assert!(a.stdout.contains("tpsim assumes FLASHMLA"), "{}", a.stdout);
    // With `page_size = 64` stated the count is the same: the forced block changes nothing more.
    let g = example_with(
        "page64",
        "examples/deepseek-v3-pp2-tp8-vllm-h200x16-2node.toml",
        "pp_size = 2",
        "pp_size = 2\npage_size = 64",
    );
    assert_eq!(run_json(&g)["memory"]["kv_tokens"].as_u64(), Some(kv));
}

/// vLLM 0.19.0 on SM 12.0 (RTX PRO 6000), gpt-oss-120b: FLASH_ATTN runs FlashAttention 2 there, which
/// has no attention sinks (`fa_utils.py` `flash_attn_supports_sinks`: FA3 only), FlashInfer takes
/// sinks only with TRT-LLM attention on SM 10.x → TRITON_ATTN. Llama-3.1-8B on H100: FLASH_ATTN.
#[test]
fn vllm_mha_defaults_in_the_header() {
    let j = run_json(&scenario("examples/gpt-oss-120b-vllm-dp4-tp2-ep-rtx6000x8.toml"));
    assert_eq!(j["scenario"]["attention_backend"], "TRITON_ATTN (vLLM default)");
    let j = run_json(&scenario("examples/llama-3.1-8b-vllm-h100-tp4.toml"));
    assert_eq!(j["scenario"]["attention_backend"], "FLASH_ATTN (vLLM default)");
    // SGLang scenarios carry no such field (SGLang's default is in `engine-args`' note).
    let j = run_json(&scenario("seed/baseline.toml"));
    assert!(
        j["scenario"].get("attention_backend").is_none(),
        "{}",
        j["scenario"]
    );
}

/// vLLM 0.19.0 refuses an MHA backend for an MLA model: FlashInfer's head sizes are 64, 128 and 256
/// (DeepSeek-V3's MLA head is 512 + 64 = 576) and it is not an MLA backend
/// (`validate_configuration`; `get_attn_backend_cls` raises "Selected backend … is not valid").
#[test]
fn vllm_refuses_flashinfer_for_mla() {
    let f = example_with(
        "fi",
        "examples/deepseek-v3-pp2-tp8-vllm-h200x16-2node.toml",
        "version = \"0.11.0\"",
        "version = \"0.19.0\"\nattention_backend = \"FLASHINFER\"",
    );
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("engine.attention_backend")
            && o.stderr.contains(
                "vLLM refuses: \"Selected backend AttentionBackendEnum.FLASHINFER is not valid for this \
                 configuration. Reason: ['head_size not supported', 'MLA not supported']\""
            ),
        "{}",
        o.stderr
    );
}

//! vllmchunk59 (issue #18): vLLM V1's token budget and chunked prefill under load.
//!
//! - The default `max_num_batched_tokens` / `max_num_seqs` of the API server by release and GPU,
//!   read in the wheels' `vllm/engine/arg_utils.py` 0.8.0 – 0.34.0
//!   (`tpsim_model::vllm_batch_defaults`, whose unit tests hold the table), reach the serving loop:
//!   each figure below is that table's row for the scenario's GPU and `engine.version`.
//! - A budget below `max_num_seqs` is refused with vLLM's own text (`SchedulerConfig` verify, 0.8.5
//!   `config.py`, 0.16.0 `config/scheduler.py`).
//!
//! The chunk sequence of one 4,000-token prompt joining 7 decodes is computed by hand in
//! `tpsim::serve::vllm`'s tests (`a_4000_token_prompt_joins_7_decodes_in_two_chunks`), the chunks'
//! attention FLOPs in `tpsim_model::llm`'s (`mixed_chunk_flops_by_hand`).

use crate::common::{edited_variant, tpsim};
use tpsim::decode::{plan_memory, vllm_batch_shape};
use tpsim::scenario::load_str;

/// The serving loop's (`max_num_batched_tokens`, `max_num_seqs`) for Llama-3.1-8B at tp 1 on
/// `preset` under vLLM `version`, nothing set.
fn shape(preset: &str, version: &str) -> (u64, u64) {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{preset}\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \
         \"vllm\"\nversion = \"{version}\"\ntp = 1\n[workload]\nconcurrency = 1\nprompt_len = 16\noutput_len = 32\n"
    );
    let s = load_str(&text, std::path::Path::new("vllmchunk59.toml")).unwrap_or_else(|e| panic!("{e}"));
    vllm_batch_shape(&s, &plan_memory(&s))
}

/// arg_utils.py by release: 0.8.0 – 0.8.4 by device name (H100 / H200 large; 1,024 sequences
/// elsewhere up to 0.8.3, 256 in 0.8.4); 0.8.5 by memory (≥ 70 GiB, the A100 80 GB included);
/// 0.9.0 on the A100 excluded; 0.28.0 on ≥ 160 GiB (the B200's 180 GB) gets 16,384 tokens.
#[test]
fn default_budget_by_release_and_gpu() {
    assert_eq!(shape("h100-sxm-1x", "0.8.0"), (8_192, 1_024));
    assert_eq!(shape("rtx-5090-2x-no-p2p", "0.8.2"), (2_048, 1_024));
    assert_eq!(shape("rtx-5090-2x-no-p2p", "0.8.4"), (2_048, 256));
    assert_eq!(shape("a100-sxm4-80gb-1x", "0.8.5"), (8_192, 1_024));
    assert_eq!(shape("a100-sxm4-80gb-1x", "0.9.0"), (2_048, 256));
    assert_eq!(shape("b200-8x-nvlink", "0.27.0"), (8_192, 1_024));
    assert_eq!(shape("b200-8x-nvlink", "0.28.0"), (16_384, 1_024));
}

/// `--max-num-seqs 4096` on an RTX 5090 under vLLM 0.16.0 leaves the default 2,048-token budget
/// (32 GB: the small tier; min(4,096 × 114,688, 2,048) = 2,048) below it: vLLM refuses to start.
#[test]
fn a_budget_below_max_num_seqs_is_refused_with_vllms_text() {
    let file = "validation/qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c8.toml";
    let p = edited_variant(file, "budget_below_seqs", |t| {
        t.replace("max_num_seqs = 8", "max_num_seqs = 4096")
    });
    let o = tpsim(&["validate", &p]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("engine.max_num_seqs")
            && o.stderr.contains(
                "max_num_batched_tokens (2048) must be greater than or equal to max_num_seqs (4096)."
            ),
        "{}",
        o.stderr
    );
}

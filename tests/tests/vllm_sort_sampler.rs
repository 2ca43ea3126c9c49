//! vrows3 (issue #17 point 5): vLLM ≤ 0.12's dummy sampler sorts the logits
//! (`tpsim_model::vllm_sort_sampler`: 38 B per logit with 16-bit logits), selected by
//! `engine.version` under vLLM.
//!
//! Checked against llm-d-benchmark `config_explorer/empirical-vllm-memory-results.md` (vLLM ~0.11 on
//! H100, default 8,192 tokens / 1,024 sequences; read through the github mirror, blob 259334868c5;
//! installkind: its recipe runs `vllm/vllm-openai:latest` without `VLLM_USE_FLASHINFER_SAMPLER`, so
//! the sort means an image of 0.11.1 or later, where FlashInfer's sampler is opt-in):
//! its "Peak activation memory" per model. Tolerance 0.01 GiB: the document prints two decimals
//! (± 0.005) and the rule leaves out allocations below a few MiB.

use std::path::Path;
use tpsim::decode::MemKind;
use tpsim_model::vllm_sort_sampler::{peak_activation_sorting, sort_sampler_peak_bytes};
use tpsim_model::vllm_startup::{ProfileShape, StartupParams, cublas_workspace_bytes};

const GIB: f64 = (1u64 << 30) as f64;

fn shape(hidden: u64, inter: u64, vocab: u64) -> ProfileShape {
    ProfileShape {
        max_num_batched_tokens: 8_192,
        max_num_seqs: 1_024,
        hidden,
        mlp_intermediate: inter,
        mlp_gated: true,
        vocab,
        dtype_bytes: 2,
        sm_count: 132,
        encoder_bytes: 0,
        moe_workspace: 0,
        cublas_workspace: cublas_workspace_bytes(9),
    }
}

fn params() -> StartupParams {
    StartupParams {
        activation_base_gib: 0.0,
        sampler_bytes_per_logit: 12.0,
        non_torch_base_gib: 0.0,
        non_torch_comm_gib: 0.0,
        non_torch_per_peer_gib: 0.0,
    }
}

/// (model, hidden, dense intermediate per rank (0: MoE), vocab, logged peak activation GiB), the
/// sizes from each model's published config.json.
const DOC_ROWS: &[(&str, u64, u64, u64, f64)] = &[
    // 1024 × 128,256 × 38 = 4,990,697,472 + (8192 + 2048) × 4096 × 2 = 83,886,080 + 32 MiB
    // = 5,108,137,984 B = 4.757 GiB.
    ("Llama-3.1-8B", 4_096, 14_336, 128_256, 4.76),
    // 4,990,697,472 + 10,240 × 8192 × 2 = 167,772,160 + 32 MiB = 4.836 GiB (tp 1 and tp 2 alike:
    // the sampler sees the whole vocabulary).
    ("Llama-3.3-70B-FP8 (tp 1, tp 2)", 8_192, 28_672 / 2, 128_256, 4.84),
    // 1024 × 151,936 × 38 = 5,912,133,632 + 10,240 × 1024 × 2 = 20,971,520 + 32 MiB = 5.557 GiB.
    ("Qwen3-0.6B", 1_024, 3_072, 151_936, 5.56),
    // 5,912,133,632 + 10,240 × 5120 × 2 = 104,857,600 + 32 MiB = 5.636 GiB.
    ("Qwen3-32B", 5_120, 25_600, 151_936, 5.64),
    // 1024 × 201,088 × 38 = 7,824,736,256 + 10,240 × 2880 × 2 = 58,982,400 + 32 MiB = 7.3735 GiB
    // (logged 7.38: 0.0065 under, inside the tolerance; the mxfp4 MoE's own buffers not modelled).
    ("gpt-oss-20b", 2_880, 0, 201_088, 7.38),
];

#[test]
fn vllm_0_11_peak_activations_of_llm_d_benchmark() {
    for &(model, hidden, inter, vocab, logged) in DOC_ROWS {
        let s = shape(hidden, inter, vocab);
        let gib = peak_activation_sorting(&params(), &s).0 as f64 / GIB;
        println!("{model}: {gib:.4} GiB (logged {logged})");
        assert!((gib - logged).abs() <= 0.01, "{model}: {gib:.4} vs {logged}");
    }
    // The 0.19 rule on the same runs would be far below (Llama-3.1-8B: 1.88 GiB, the row logs 4.76).
    let l8 = shape(4_096, 14_336, 128_256);
    assert_eq!(sort_sampler_peak_bytes(&l8), 5_074_583_552);
}

/// `engine.version` selects the rule under vLLM: 0.11.0 through 0.16.x sort (vllmsampler: the
/// native filter, `Sampler.forward` and the dummy run are 0.12.0's through 0.16.0 in the wheels),
/// 0.17.0 and 0.19.0 (and no version) do not; after 0.21 a note says the rule is 0.21.0's. Llama-3.1-8B on one H100:
/// sorting 5,108,137,984 B (above); 0.19.0 rule 1,990,283,264 + 32 MiB = 2,023,837,696 B
/// (`vllm_startup` unit test: sampler 1,990,283,264 B).
#[test]
fn version_selects_the_rule() {
    let act = |version: &str| {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
             tp = 1\n{version}"
        );
        let s = tpsim::scenario::load_str(&text, Path::new("v.toml")).unwrap();
        let p = tpsim::plan_memory(&s);
        let bytes = p
            .entries
            .iter()
            .find(|e| e.kind == MemKind::PeakActivation)
            .unwrap()
            .bytes;
        let noted = p
            .notes
            .iter()
            .any(|n| n.contains("model runner V2, whose sampler is not read"));
        (bytes, noted)
    };
    assert_eq!(act("version = \"0.11.0\"\n"), (5_108_137_984, false));
    assert_eq!(act("version = \"v0.12.0\"\n"), (5_108_137_984, false));
    assert_eq!(act("version = \"0.19.0\"\n"), (2_023_837_696, false));
    assert_eq!(act(""), (2_023_837_696, false));
    assert_eq!(act("version = \"0.15.1\"\n"), (5_108_137_984, false));
    assert_eq!(act("version = \"0.17.0\"\n"), (2_023_837_696, false));
    // 0.21.0 on: FlashInfer by default, then the in-place filter's warm-up (the larger peak).
    assert_eq!(act("version = \"0.21.0\"\n"), (2_023_837_696, false));
    assert_eq!(act("version = \"0.33.0\"\n"), (2_023_837_696, true));
}

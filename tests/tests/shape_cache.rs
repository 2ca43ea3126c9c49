//! The process-wide shape cache (sweepfast, `tpsim::decode::Options::shape_cache`): a prediction
//! whose shapes all come from the cache reports exactly what one that builds every shape reports,
//! the side effects of the builds included (the prefill-kernel record behind
//! `prefill_calibration`, the collectives behind `collectives.params_used`).

use crate::common::*;
use std::path::Path;
use tpsim::decode::{Options, predict_opts};

/// The report JSON of `file` predicted with `opts`.
fn report(file: &str, opts: &Options) -> String {
    let s = tpsim::scenario::load(Path::new(&scenario(file))).expect("bundled scenario loads");
    let p = predict_opts(&s, opts).expect("predicts");
    serde_json::to_string(&tpsim::report::build(&s, &p)).expect("serialises")
}

/// Scenarios over the pass builders' paths: SGLang EAGLE-3 with its no-speculation loop and its
/// eager prefill builder (seed), vLLM EAGLE-3, SGLang DP attention, DeepEP, vLLM DP replicas with
/// EP, an open loop on H100, a pipeline of two stages, and vLLM with CUDA graphs off.
const FILES: [&str; 8] = [
    "seed/baseline.toml",
    "examples/llama-3.1-8b-eagle3-vllm-h100.toml",
    "examples/deepseek-v3-dp-attention-h200x8.toml",
    "examples/deepseek-v3-deepep-h200x8.toml",
    "examples/gpt-oss-120b-vllm-dp4-tp2-ep-rtx6000x8.toml",
    "examples/llama-3.1-8b-h100-open-loop.toml",
    "examples/llama-3.1-70b-pp2-tp4-rtx6000x8.toml",
    "validation/qwen3-14b-awq-a100-vllm-eager-c1.toml",
];

#[test]
fn cached_shapes_report_what_built_shapes_report() {
    let built = Options {
        shape_cache: false,
        ..Options::default()
    };
    // The second cached run finds every shape the first one stored (no trace: none is rebuilt).
    let cached = Options {
        trace: false,
        ..Options::default()
    };
    // One thread per scenario: the cache is process-wide, so this also has threads filling and
    // reading it at once, as `tpsim sweep --threads N` does.
    let calibrated: usize = std::thread::scope(|s| {
        let handles: Vec<_> = FILES
            .iter()
            .map(|file| {
                let (built, cached) = (&built, &cached);
                s.spawn(move || {
                    let reference = report(file, built);
                    let j: serde_json::Value = serde_json::from_str(&reference).expect("json");
                    for round in 0..2 {
                        assert!(
                            report(file, cached) == reference,
                            "{file}: cached round {round} differs from the built report"
                        );
                    }
                    usize::from(!j["prefill_calibration"].is_null())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    // The prefill-kernel replay is exercised: some of these report a prefill calibration.
    assert!(calibrated > 0, "no scenario reports prefill_calibration");
}

//! vllmpp59 (issue #17): vLLM's async scheduling with pipeline parallelism by release, and the
//! decode schedule it gives (`tpsim::scenario::vllm_pp_async`). Read in each release's wheel from PyPI:
//! - 0.14.1 `vllm/config/vllm.py` lines 564–568 (explicit `--async-scheduling` refused: "Async
//!   scheduling is not yet compatible with pipeline_parallel_size > 1.") and 590–596 (the default
//!   turned off: "Async scheduling is not yet supported with pipeline_parallel_size > 1 and will be
//!   disabled.");
//! - 0.15.0 `config/vllm.py` lines 568–622: no pipeline check (kept on); 0.15.0 (and 0.15.1)
//!   `v1/core/sched/scheduler.py` lines 347–352: a request is not scheduled again while its token is
//!   in flight under PP, so the micro-batches wait for the host as without async scheduling;
//! - 0.16.0 `v1/core/sched/scheduler.py` line 1020 and `v1/worker/gpu_model_runner.py` line 3815
//!   (`_pp_broadcast_prev_sampled_token_ids`): the hold is gone, every running request in every step;
//! - 0.23.0 `config/vllm.py` lines 496–506 and `v1/core/sched/async_scheduler.py` lines 38–41: Model
//!   Runner V2 staggers decodes `pp_size` steps apart, for its default architectures only;
//! - 0.34.0 `config/vllm.py` lines 560–566 and `async_scheduler.py` lines 14–16, 45: one runner, staggered.
//!
//! Box: Llama-3.1-8B on 8× H100 SXM, tp 1 × pp 2.

use tpsim::decode::predict;
use tpsim::scenario::vllm_pp_async::PpDecode;
use tpsim::scenario::{Scenario, ScenarioError, load_str};

fn load(version: &str, keys: &str, concurrency: u32) -> Result<Scenario, ScenarioError> {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n\
         [engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 1\npp_size = 2\n{keys}\n\
         [workload]\nconcurrency = {concurrency}\nnum_requests = {concurrency}\nprompt_len = 16\noutput_len = 64\n"
    );
    load_str(&text, std::path::Path::new("vllmpp59.toml"))
}

fn scn(version: &str, keys: &str) -> Scenario {
    load(version, keys, 1).unwrap_or_else(|e| panic!("{version} {keys}: {e}"))
}

const PP_WARNING: &str =
    "Async scheduling is not yet supported with pipeline_parallel_size > 1 and will be disabled.";
const V2_WARNING: &str = "staggers pipeline-parallel decodes with Model Runner V2 only";

fn warned(s: &Scenario, text: &str) -> bool {
    s.warnings
        .iter()
        .chain(&s.engine.collective_warnings)
        .any(|w| w.contains(text))
}

/// (async scheduling, host step hidden, decode schedule) and vLLM's warning, release by release.
#[test]
fn async_scheduling_with_pipeline_parallelism_by_release() {
    let state = |s: &Scenario| {
        (
            s.engine.async_scheduling,
            s.engine.overlap_schedule,
            s.engine.pp_decode,
        )
    };
    // 0.14.1: the default turned off with vLLM's warning; explicit on refused with its text.
    let s = scn("0.14.1", "");
    assert_eq!(state(&s), (false, false, PpDecode::MicroBatches));
    assert!(warned(&s, PP_WARNING), "{:?}", s.warnings);
    let e = load("0.14.1", "async_scheduling = true", 1)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Async scheduling is not yet compatible with pipeline_parallel_size > 1."),
        "{e}"
    );
    // 0.15.0 and 0.15.1: on, no warning, explicit on accepted; the host's step stays on the path.
    for v in ["0.15.0", "0.15.1"] {
        for keys in ["", "async_scheduling = true"] {
            let s = scn(v, keys);
            assert_eq!(state(&s), (true, false, PpDecode::MicroBatches), "{v} {keys}");
            assert!(
                !warned(&s, PP_WARNING) && !warned(&s, V2_WARNING),
                "{v}: {:?}",
                s.warnings
            );
        }
    }
    // 0.16.0 – 0.22: the V1 runner's whole batch, the host's step hidden.
    for v in ["0.16.0", "0.19.0", "0.22.0"] {
        let s = scn(v, "");
        assert_eq!(state(&s), (true, true, PpDecode::WholeBatch), "{v}");
        assert!(!warned(&s, V2_WARNING), "{v}: {:?}", s.warnings);
    }
    // 0.23.0: the runner depends on the model; tpsim takes V1 and says so.
    let s = scn("0.23.0", "");
    assert_eq!(state(&s), (true, true, PpDecode::WholeBatch));
    assert!(warned(&s, V2_WARNING), "{:?}", s.warnings);
    // 0.34.0: Model Runner V2 only, staggered micro-batches.
    let s = scn("0.34.0", "");
    assert_eq!(state(&s), (true, true, PpDecode::Staggered));
    assert!(!warned(&s, V2_WARNING), "{:?}", s.warnings);
    // Turned off by the user: micro-batches waiting for the host, at any release.
    for v in ["0.16.0", "0.34.0"] {
        let s = scn(v, "async_scheduling = false");
        assert_eq!(state(&s), (false, false, PpDecode::MicroBatches), "{v}");
    }
}

/// One request decoding alone (its micro-batch is the whole batch under every schedule): where
/// the release lets the host's step run beside the pass (0.16.0, 0.34.0) TPOT falls by exactly the
/// step, `engine.costs.host_overhead` = 300 µs (scenarios/engines/vllm.toml), against the same
/// release with `async_scheduling = false`; at 0.15.1 the scheduler's hold keeps the step on the
/// path, so TPOT does not move (integer-time arithmetic: ±1 ns for the mean's rounding).
#[test]
fn the_host_step_is_hidden_from_0_16_only() {
    let tpot = |v: &str, keys: &str| {
        let s = load(v, keys, 1).unwrap_or_else(|e| panic!("{v}: {e}"));
        predict(&s).unwrap().main.tpot_ms()
    };
    for (v, hidden_ms) in [("0.15.1", 0.0), ("0.16.0", 0.300), ("0.34.0", 0.300)] {
        let (sync, on) = (tpot(v, "async_scheduling = false"), tpot(v, ""));
        assert!(
            (sync - on - hidden_ms).abs() < 1e-6,
            "{v}: sync {sync} ms, async {on} ms, expected {hidden_ms} ms apart"
        );
    }
}

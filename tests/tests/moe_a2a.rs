//! Issue #17 point 1 (ep): SGLang's DeepEP all-to-all MoE path (`engine.moe_a2a_backend = "deepep"`,
//! `engine.deepep_mode`) and vLLM's `engine.all2all_backend`.

use crate::common::*;

const EXAMPLE: &str = "examples/deepseek-v3-deepep-h200x8.toml";

fn variant(name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scenario(EXAMPLE)).expect("scenario");
    assert_eq!(text.matches(from).count(), 1, "`{from}`");
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    p.display().to_string()
}

fn memory_mib(file: &str) -> std::collections::BTreeMap<String, f64> {
    let o = tpsim(&["memory", file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    j["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| (e["name"].as_str().unwrap_or("").to_string(), f(&e["mib"])))
        .collect()
}

/// Memory of DeepSeek-V3 at tp 8 on DeepEP against the same box on the allreduce EP path
/// (`moe_a2a_backend = "none"`, `ep_size = 8`):
/// - DeepEP buffers (auto: both kinds) = 335,709,824 + 1,908,410,496 = 2,244,120,320 B (DeepEP
///   `csrc/legacy/config.hpp`, by hand in `sim::scenario::moe_a2a`'s test);
/// - the shared expert whole on every rank (SGLang 0.5.9 `deepseek_v2.py`: `tp_size=1` under
///   DeepEP): DeepSeek-V3's shared expert is gate+up 2 × 2,048 × 7,168 and down 7,168 × 2,048 =
///   44,040,192 FP8 bytes + 2,688 128×128-block fp32 scales (10,752 B) = 44,050,944 B; a tp-8 rank
///   already held ⅛, so 7/8 × 44,050,944 = 38,544,576 B more per sparse layer × 58 layers =
///   2,235,585,408 B. Both exact to the byte (1e-6 MiB of float formatting).
#[test]
fn deepep_memory_buffers_and_replicated_shared_experts() {
    let a2a = memory_mib(&scenario(EXAMPLE));
    let ar = memory_mib(&variant(
        "deepep-vs-none",
        "moe_a2a_backend = \"deepep\"\ndeepep_mode = \"auto\"",
        "moe_a2a_backend = \"none\"\nep_size = 8",
    ));
    let mib = |b: f64| b / 1_048_576.0;
    assert!(
        (a2a["DeepEP buffers"] - mib(2_244_120_320.0)).abs() < 1e-6,
        "{a2a:?}"
    );
    assert!(!ar.contains_key("DeepEP buffers"));
    let extra = a2a["target weights"] - ar["target weights"];
    assert!((extra - mib(2_235_585_408.0)).abs() < 1e-6, "{extra}");
    // low_latency alone: only the low-latency layout.
    let ll = memory_mib(&variant(
        "deepep-ll",
        "deepep_mode = \"auto\"",
        "deepep_mode = \"low_latency\"",
    ));
    assert!(
        (ll["DeepEP buffers"] - mib(1_908_410_496.0)).abs() < 1e-6,
        "{ll:?}"
    );
}

/// The decode breakdown names the path's four steps, and the allreduce EP path's MoE allreduces are
/// gone (3 dense layers' remain). SGLang's start-up lines are the scenario's warnings.
#[test]
fn deepep_decode_runs_dispatch_and_combine() {
    // A small workload: the EP path's busiest-rank sampling is slow for long prefills in debug builds.
    let small = variant(
        "deepep-small",
        "concurrency = 64\nprompt_len = 128\noutput_len = 256\nnum_requests = 128",
        "concurrency = 8\nprompt_len = 128\noutput_len = 8\nnum_requests = 8",
    );
    let j = run_json(&small);
    let by = &j["breakdown_by_op"];
    for k in ["a2a_scatter", "a2a_dispatch", "a2a_combine", "a2a_gather"] {
        assert!(f(&by[k]) > 0.0, "{k}: {by}");
    }
    let o = tpsim(&["validate", &scenario(EXAMPLE)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("The expert parallel size is adjusted to be the same as the tensor parallel size[8]"),
        "{}",
        o.stderr
    );
    // normal mode: SGLang turns CUDA graphs off and says so.
    let n = variant(
        "deepep-normal",
        "deepep_mode = \"auto\"",
        "deepep_mode = \"normal\"",
    );
    let o = tpsim(&["validate", &n]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("Cuda graph is disabled because deepep_mode=`normal`"),
        "{}",
        o.stderr
    );
}

/// Refusals with the engine's or DeepEP's words: a PCIe box (no NVLink; DeepEP's README requirement
/// and its NVML check's message), a tp DeepEP has no normal config for, DeepEP with DP attention.
#[test]
fn deepep_refusals() {
    let bad = |name: &str, from: &str, to: &str, want: &[&str]| {
        let f = variant(name, from, to);
        let o = tpsim(&["run", &f]);
        assert_eq!(o.code, 2, "{}", o.stderr);
        for w in want {
            assert!(o.stderr.contains(w), "{w}: {}", o.stderr);
        }
    };
    bad(
        "deepep-pcie",
        "preset = \"h200-8x-nvlink\"",
        "preset = \"rtx-pro-6000-8x-1switch\"",
        &[
            "engine.moe_a2a_backend",
            "NVLink for intranode communication",
            "are not connected via NVLink",
        ],
    );
    bad(
        "deepep-tp1",
        "tp = 8",
        "tp = 1",
        &["engine.moe_a2a_backend", "Unsupported number of EP ranks: 1"],
    );
    bad(
        "deepep-dpa",
        "deepep_mode = \"auto\"",
        "deepep_mode = \"auto\"\nenable_dp_attention = true\ndp_size = 8",
        &["engine.moe_a2a_backend", "DP attention"],
    );
    bad(
        "deepep-mode-typo",
        "deepep_mode = \"auto\"",
        "deepep_mode = \"fast\"",
        &["engine.deepep_mode", "low_latency"],
    );
    bad(
        "deepep-max-tokens",
        "deepep_mode = \"auto\"",
        "deepep_mode = \"auto\"\n[engine.env]\nSGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK = \"2048\"",
        &["SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK", "<= 1024"],
    );
    bad(
        "a2a-vllm-key-sglang",
        "deepep_mode = \"auto\"",
        "all2all_backend = \"naive\"",
        &["engine.all2all_backend", "vLLM setting"],
    );
    bad(
        "mooncake",
        "moe_a2a_backend = \"deepep\"",
        "moe_a2a_backend = \"mooncake\"",
        &["engine.moe_a2a_backend", "not modelled"],
    );
}

/// A PCIe box keeps the allreduce path: vLLM with `all2all_backend = "naive"` (or the default
/// `allgather_reducescatter`) runs, warned that vLLM 0.11 uses the backend only at dp > 1
/// (`FusedMoEParallelConfig.use_all2all_kernels`), and its MoE time equals the run without the
/// key; `engine-args` puts it in the environment. A name outside vLLM's list is refused.
#[test]
fn vllm_all2all_backend_is_checked_and_unused_at_dp_1() {
    let base = std::fs::read_to_string(scenario("validation/minimax-m2.5-fp8-ep-sglang-tp8.toml"))
        .expect("scenario");
    let from = "name = \"sglang\"\ntp = 8\nep_size = 8\nallreduce";
    assert_eq!(base.matches(from).count(), 1);
    let write = |name: &str, extra: &str| {
        let p = scratch(name).join("scenario.toml");
        let to = format!("name = \"vllm\"\ntp = 8\nenable_expert_parallel = true\n{extra}allreduce");
        std::fs::write(&p, base.replacen(from, &to, 1)).expect("write");
        p.display().to_string()
    };
    let with = write("vllm-naive", "all2all_backend = \"naive\"\n");
    let without = write("vllm-no-a2a", "");
    let o = tpsim(&["validate", &with]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("VLLM_ALL2ALL_BACKEND=naive only with data parallelism"),
        "{}",
        o.stderr
    );
    let (a, b) = (run_json(&with), run_json(&without));
    assert_eq!(a["breakdown_by_op"]["moe"], b["breakdown_by_op"]["moe"]);
    let o = tpsim(&["engine-args", &with]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("VLLM_ALL2ALL_BACKEND=naive"), "{}", o.stdout);
    let typo = write("vllm-a2a-typo", "all2all_backend = \"deepep\"\n");
    let o = tpsim(&["validate", &typo]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("engine.all2all_backend") && o.stderr.contains("deepep_low_latency"),
        "{}",
        o.stderr
    );
    let mode = write("vllm-deepep-mode", "deepep_mode = \"auto\"\n");
    let o = tpsim(&["validate", &mode]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("engine.deepep_mode"), "{}", o.stderr);
}

/// `engine-args`: SGLang's `--moe-a2a-backend deepep --deepep-mode auto` (both in
/// tests/data/engine-args/sglang-0.5.9.txt: lines 176 and 180).
#[test]
fn deepep_engine_args() {
    let o = tpsim(&["engine-args", &scenario(EXAMPLE)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("--moe-a2a-backend deepep"), "{}", o.stdout);
    assert!(o.stdout.contains("--deepep-mode auto"), "{}", o.stdout);
}

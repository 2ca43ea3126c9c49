//! Issue #17 (consistency): a scenario without `engine.version` is simulated at one release per
//! engine — `tpsim::engine_release::CURRENT_VLLM` (0.19.0) and `CURRENT_SGLANG` (0.5.8) — by every
//! version-dependent rule. Each row below takes one rule, resolves the same scenario without
//! `engine.version` and with the current release named, and requires the rule's outcome to be the
//! same; a rule with a "no version means …" branch of its own (as the CUDA-graph rule had, 0.11.0)
//! fails its row. The reports say which release was simulated and that it was assumed.

use crate::common::{scratch, tpsim};
use tpsim::decode::plan_memory;
use tpsim::engine_args;
use tpsim::engine_release::{CURRENT_SGLANG, CURRENT_VLLM};
use tpsim::scenario::{Scenario, load_str, parse_toml};

/// A scenario: `[hardware]` preset, `[model]` preset, the `[engine]` keys (name included), and what
/// follows the engine table (env, speculative); `version` inserted into `[engine]` when given.
fn text(hw: &str, model: &str, engine: &str, rest: &str, version: Option<&str>) -> String {
    let v = version.map_or(String::new(), |v| format!("version = \"{v}\"\n"));
    format!(
        "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\n{v}{engine}\n{rest}\
         [workload]\nconcurrency = 4\nprompt_len = 256\noutput_len = 64\n"
    )
}

/// What one rule decided, as text, or the refusal.
type Outcome = fn(&Scenario, &str) -> String;

fn load(t: &str) -> Result<Scenario, String> {
    load_str(t, std::path::Path::new("release.toml")).map_err(|e| e.to_string())
}

/// The launch command's flags (spelling and the flag-list check at the release).
fn flags(s: &Scenario, t: &str) -> String {
    let raw = parse_toml(t, std::path::Path::new("release.toml")).expect("parses");
    match engine_args::command(s, &raw, t) {
        Ok(c) => format!("{} {:?}", c.version, c.args),
        Err(e) => e.to_string(),
    }
}

fn graphs(s: &Scenario, _: &str) -> String {
    let p = plan_memory(s);
    format!(
        "{:?} {:?}",
        s.engine.cuda_graphs,
        tpsim::serve::plan(s, &p, false).graphs
    )
}

fn async_scheduling(s: &Scenario, _: &str) -> String {
    s.engine.async_scheduling.to_string()
}

/// The memory plan: KV tokens and every entry's bytes (the sampler rule, the online-fp8 load
/// order, vLLM's hybrid state pages, Llama-4's pool, the DSA budget, SGLang's era and default
/// fraction all land here).
fn memory(s: &Scenario, _: &str) -> String {
    let p = plan_memory(s);
    format!(
        "era {:?} f {} kv {} {:?}",
        s.engine.era, s.engine.mem_fraction_static, p.kv_tokens, p.entries
    )
}

fn nccl(s: &Scenario, _: &str) -> String {
    s.engine.env.version.to_string()
}

fn replicas(s: &Scenario, _: &str) -> String {
    let lockstep = s
        .warnings
        .iter()
        .any(|w| w.contains("steps the data-parallel ranks"));
    format!("{} lock-step {lockstep}", s.engine.replicas)
}

fn pcie_ipc(s: &Scenario, _: &str) -> String {
    format!("{:?}", s.engine.custom_limits.pcie_ipc_max_bytes)
}

fn loads(_: &Scenario, _: &str) -> String {
    "loads".into()
}

/// (rule, hardware, model, [engine] keys, rest, outcome).
const ROWS: &[(&str, &str, &str, &str, &str, Outcome)] = &[
    // vLLM.
    (
        "vLLM flag list and spelling",
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\ncuda_graph_sizes = [64]\nenable_prefix_caching = true\n",
        "",
        flags,
    ),
    (
        "vLLM CUDA-graph capture rule",
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\nmax_cudagraph_capture_size = 300\n",
        "",
        graphs,
    ),
    (
        "vLLM default capture list",
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\n",
        "",
        graphs,
    ),
    (
        "vLLM async scheduling",
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\n",
        "",
        async_scheduling,
    ),
    (
        "vLLM dummy sampler (memory)",
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\n",
        "",
        memory,
    ),
    (
        "vLLM online fp8 load order (memory)",
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\nquantization = \"fp8\"\n",
        "",
        memory,
    ),
    (
        "vLLM dense data-parallel ranks",
        "h100-sxm-8x-nvlink",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\ndp_size = 8\n",
        "",
        replicas,
    ),
    (
        "vLLM Qwen3.5 MTP module",
        "rtx-pro-6000-4x-turin-same-numa",
        "qwen3.5-397b-a17b-nvfp4",
        "name = \"vllm\"\ntp = 4\n",
        "[speculative]\nalgorithm = \"mtp\"\nnum_speculative_tokens = 2\n\
      acceptance = { profile = \"qwen3.5-397b-mtp-vllm-rtx6kpro\" }\n",
        loads,
    ),
    (
        "vLLM hybrid state pages and prefix caching (memory)",
        "h100-sxm-1x",
        "qwen3.5-9b",
        "name = \"vllm\"\ntp = 1\n",
        "",
        memory,
    ),
    (
        "vLLM NCCL torch pin",
        "h100-sxm-8x-nvlink",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 8\n",
        "",
        nccl,
    ),
    // SGLang.
    (
        "SGLang flag list and spelling",
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"sglang\"\ntp = 1\ncuda_graph_max_bs = 64\nenable_piecewise_cuda_graph = true\n",
        "",
        flags,
    ),
    (
        "SGLang memory era and default fraction",
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"sglang\"\ntp = 1\n",
        "",
        memory,
    ),
    (
        "SGLang NCCL torch pin",
        "h100-sxm-8x-nvlink",
        "llama-3.1-8b",
        "name = \"sglang\"\ntp = 8\n",
        "",
        nccl,
    ),
    (
        "SGLang PCIe-IPC allreduce",
        "rtx-pro-6000-8x-1switch",
        "llama-3.1-8b",
        "name = \"sglang\"\ntp = 8\n",
        "[engine.env]\nSGLANG_ENABLE_PCIE_IPC_ALLREDUCE = \"1\"\n",
        pcie_ipc,
    ),
    (
        "SGLang Llama-4 pool (memory)",
        "h200-8x-nvlink",
        "llama-4-scout",
        "name = \"sglang\"\ntp = 8\n",
        "",
        memory,
    ),
    (
        "SGLang DSA budget (memory)",
        "h200-8x-nvlink",
        "deepseek-v3.2",
        "name = \"sglang\"\ntp = 8\n",
        "",
        memory,
    ),
];

#[test]
fn every_version_dependent_rule_resolves_an_unversioned_scenario_as_the_current_release() {
    for (rule, hw, model, engine, rest, outcome) in ROWS {
        let current = if engine.contains("\"vllm\"") {
            CURRENT_VLLM
        } else {
            CURRENT_SGLANG
        };
        let (t0, t1) = (
            text(hw, model, engine, rest, None),
            text(hw, model, engine, rest, Some(current)),
        );
        let run = |t: &str| load(t).map(|s| outcome(&s, t));
        let (a, b) = (run(&t0), run(&t1));
        assert_eq!(a, b, "{rule}: without engine.version vs {current}");
        assert!(a.is_ok(), "{rule}: refused: {a:?}");
    }
}

/// The releases themselves (their justification is `tpsim::engine_release`'s doc): vLLM 0.19.0
/// (tests/data/engine-args/vllm-0.19.0.txt and the 0.19.0 rows of engine-memory.tsv), SGLang 0.5.9
/// (release52: sglang-0.5.9.txt, the first release with Kimi-K2.5 / Qwen3.5 / GLM-5, era late-2025
/// from its version; no checked start-up log of 0.5.9).
#[test]
fn the_current_releases() {
    assert_eq!((CURRENT_VLLM, CURRENT_SGLANG), ("0.19.0", "0.5.9"));
}

/// Rules whose outcome differs between the old per-rule defaults and the current release, with
/// values by hand: vLLM 0.19.0 takes `max_cudagraph_capture_size` (0.11.0 refused it) — 300 on
/// H100 (max_num_seqs 1024, 8192 tokens) gives 1, 2, 4, 8..=248 by 8 (31), 256, 272, 288 = 37
/// sizes with vLLM's truncation warning to 288; DP ranks of a dense model are independent engines
/// (0.19.0) with no lock-step warning; NCCL is torch 2.10.0's 2.27.5; SGLang 0.5.9 (release52) has
/// no PCIe-IPC allreduce (from 0.5.23, `scenario::pcie_ipc`: the variable is ignored, with the warning
/// naming the assumed release).
#[test]
fn the_current_release_decides_what_the_old_defaults_decided_otherwise() {
    let s = load(&text(
        "h100-sxm-1x",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\nmax_cudagraph_capture_size = 300\n",
        "",
        None,
    ))
    .expect("vLLM 0.19.0 takes --max-cudagraph-capture-size");
    let g = tpsim::serve::plan(&s, &plan_memory(&s), false).graphs;
    assert_eq!((g.len(), g[33], g[36]), (37, 248, 288));
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("Truncating max_cudagraph_capture_size to 288"))
    );
    let s = load(&text(
        "h100-sxm-8x-nvlink",
        "llama-3.1-8b",
        "name = \"vllm\"\ntp = 1\ndp_size = 8\n",
        "",
        None,
    ))
    .expect("dp");
    assert_eq!(replicas(&s, ""), "8 lock-step false");
    assert_eq!(nccl(&s, ""), "2.27.5");
    let s = load(&text(
        "rtx-pro-6000-8x-1switch",
        "llama-3.1-8b",
        "name = \"sglang\"\ntp = 8\n",
        "[engine.env]\nSGLANG_ENABLE_PCIE_IPC_ALLREDUCE = \"1\"\n",
        None,
    ))
    .expect("ipc");
    assert_eq!(s.engine.custom_limits.pcie_ipc_max_bytes, None);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.starts_with("SGLang 0.5.9 (assumed: engine.version not set;")),
        "{:?}",
        s.warnings
    );
}

/// The reports say which release was simulated: `tpsim run` (a `release` line; `--json`
/// `scenario.engine_version`), `tpsim memory` (a `release` line; `--json` `engine_version`) and
/// `tpsim engine-args` (its first line), with `assumed` true without `engine.version`.
#[test]
fn reports_name_the_release_and_whether_it_was_assumed() {
    let write = |name: &str, version: Option<&str>| {
        let p = scratch(name).join("s.toml");
        let t = text(
            "h100-sxm-1x",
            "llama-3.1-8b",
            "name = \"vllm\"\ntp = 1\n",
            "",
            version,
        );
        std::fs::write(&p, t).expect("write");
        p.display().to_string()
    };
    let (none, named) = (
        write("release-none", None),
        write("release-named", Some("0.12.0")),
    );
    let o = tpsim(&["run", &none]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("\n  release   vLLM 0.19.0 (assumed: engine.version not set)\n"),
        "{}",
        o.stdout
    );
    let o = tpsim(&["run", &none, "--json"]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(
        j["scenario"]["engine_version"],
        serde_json::json!({"engine": "vllm", "version": "0.19.0", "assumed": true})
    );
    let o = tpsim(&["run", &named, "--json"]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(
        j["scenario"]["engine_version"],
        serde_json::json!({"engine": "vllm", "version": "0.12.0", "assumed": false})
    );
    let o = tpsim(&["memory", &none]);
    assert!(
        o.stdout.lines().nth(1) == Some("  release vLLM 0.19.0 (assumed: engine.version not set)"),
        "{}",
        o.stdout
    );
    let o = tpsim(&["memory", &named, "--json"]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(j["engine_version"]["assumed"], false);
    let o = tpsim(&["engine-args", &none]);
    assert!(
        o.stdout.lines().next().is_some_and(
            |l| l.ends_with(": vLLM 0.19.0 (assumed: engine.version not set; set it to pin another)")
        ),
        "{}",
        o.stdout
    );
    let o = tpsim(&["engine-args", &named]);
    assert!(
        o.stdout
            .lines()
            .next()
            .is_some_and(|l| l.ends_with(": vLLM 0.12.0 (engine.version)")),
        "{}",
        o.stdout
    );
}

//! Issue #17 (graphs): the CUDA-graph capture keys and vLLM's async scheduling as scenario keys —
//! each reaches every place the engine's default reaches (the capture list and decode padding,
//! SGLang's default `mem_fraction_static` reserve, the PCIe-IPC workspace, the host/GPU overlap),
//! with the values computed by hand from the engines' code:
//! - SGLang 0.5.9 `server_args.py` `_handle_gpu_memory_settings` / `_generate_cuda_graph_batch_sizes`;
//! - vLLM 0.11.0 `config/__init__.py` `_set_cudagraph_sizes`, `config/compilation.py`
//!   `init_with_cudagraph_sizes`, `engine/arg_utils.py`; vLLM 0.12.0 and 0.14.0 `config/vllm.py`.
//!
//! Scenarios: Llama-3.1-8B on 1× H100 SXM (81,559 MiB: SGLang's 90 GiB bucket, chunk 8192,
//! cuda_graph_max_bs 256 at tp < 4; vLLM's defaults for a ≥ 70 GiB non-A100 card: 8,192 tokens,
//! 1,024 sequences, so a default capture maximum of min(2 × 1024, 512) = 512).

use tpsim::decode::{plan_memory, predict};
use tpsim::scenario::{Scenario, ScenarioError, load_str};
use tpsim::serve;

fn load(engine: &str) -> Result<Scenario, ScenarioError> {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
         [engine]\ntp = 1\n{engine}\n[workload]\nconcurrency = 1\nprompt_len = 16\noutput_len = 32\n"
    );
    load_str(&text, std::path::Path::new("cuda_graphs.toml"))
}

fn scn(engine: &str) -> Scenario {
    load(engine).unwrap_or_else(|e| panic!("{engine}: {e}"))
}

fn refused(engine: &str) -> String {
    match load(engine) {
        Ok(_) => panic!("{engine}: expected a refusal"),
        Err(e) => e.to_string(),
    }
}

/// The serving plan's capture list.
fn graphs(engine: &str) -> Vec<u32> {
    let s = scn(engine);
    serve::plan(&s, &plan_memory(&s), false).graphs
}

/// SGLang's list up to 512: 1, 2, 4, 8, 12, then 16..=256 by 8 (31), 272..=496 by 16 (15), 512.
fn sglang_default_up_to(max: u32) -> Vec<u32> {
    let all: Vec<u32> = [1, 2, 4, 8, 12]
        .into_iter()
        .chain((16..=256).step_by(8))
        .chain((272..=496).step_by(16))
        .chain([512])
        .collect();
    all.into_iter().filter(|&b| b <= max).collect()
}

#[test]
fn sglang_max_bs_sets_the_list_and_the_reserve() {
    // Default: 256 (tp 1, 90 GiB bucket): 5 + 31 = 36 sizes, the last 256.
    let d = graphs("");
    assert_eq!(d, sglang_default_up_to(256));
    assert_eq!(d.len(), 36);
    // cuda_graph_max_bs = 100: 1, 2, 4, 8, 12, 16..=96 by 8 (11): 16 sizes, the last 96 (0.5.9 does
    // not append 100 itself; SGLang PR #21005, after 0.5.9, does).
    let g = graphs("cuda_graph_max_bs = 100");
    assert_eq!(g.len(), 16);
    assert_eq!(g.last(), Some(&96));
    // cuda_graph_max_bs = 600: 5 + 31 + 15 + 512, 544, 576 = 54 sizes.
    let g = graphs("cuda_graph_max_bs = 600");
    assert_eq!(g.len(), 54);
    assert_eq!(&g[51..], &[512, 544, 576]);
    // The default fraction's reserve uses the user's value: reserved MiB = 512 + 1.5 × 8192 +
    // 2 × max_bs + 1/8 × 1024, f = round((81,559 − reserved) / 81,559, 3):
    // 256 → 13,440 → 0.835; 1024 → 14,976 → 0.816375 → 0.816; 8 → 12,944 → 0.841293 → 0.841.
    let f = |engine: &str, want: f64| {
        let got = scn(engine).engine.mem_fraction_static;
        assert!((got - want).abs() < 1e-12, "{engine}: {got} vs {want}");
    };
    f("", 0.835);
    f("cuda_graph_max_bs = 1024", 0.816);
    f("cuda_graph_max_bs = 8", 0.841);
    // A user's fraction is kept.
    f("cuda_graph_max_bs = 1024\nmem_fraction_static = 0.8", 0.8);
}

#[test]
fn sglang_bs_list_replaces_the_list_and_its_max_sets_the_reserve() {
    // Sorted and de-duplicated as the graph runner does (`sorted(set(capture_bs))`).
    assert_eq!(graphs("cuda_graph_bs = [16, 1, 600, 16, 4]"), vec![1, 4, 16, 600]);
    // max(cuda_graph_bs) = 600 becomes cuda_graph_max_bs: 512 + 12,288 + 1,200 + 128 = 14,128 →
    // 67,431 / 81,559 = 0.826776 → 0.827; a given cuda_graph_max_bs is replaced (with a warning).
    let s = scn("cuda_graph_bs = [16, 1, 600, 16, 4]\ncuda_graph_max_bs = 8");
    assert!((s.engine.mem_fraction_static - 0.827).abs() < 1e-12);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("cuda_graph_max_bs = 8 is replaced") && w.contains("600")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn a_batch_above_the_largest_graph_runs_eager() {
    // max_bs 100 → largest graph 96: a decode of 97 runs eager at 97; the default pads it to 104.
    let small = graphs("cuda_graph_max_bs = 100");
    assert_eq!(serve::graphs::padded(&small, 97), (97, true));
    assert_eq!(serve::graphs::padded(&graphs(""), 97), (104, false));
    // And in a run: 128 concurrent requests, cuda_graph_bs = [1, 2, 4]: decodes run eager.
    let text = |keys: &str| {
        format!(
            "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
             [engine]\ntp = 1\n{keys}\n[workload]\nconcurrency = 8\nnum_requests = 8\nprompt_len = 16\noutput_len = 16\n"
        )
    };
    let run = |keys: &str| {
        let s = load_str(&text(keys), std::path::Path::new("eager.toml")).unwrap();
        predict(&s).unwrap().main
    };
    let graphed = run("");
    let eager = run("cuda_graph_bs = [1, 2, 4]");
    // Eager decodes pay a host launch per kernel (engine.costs.launch_overhead): slower.
    assert!(
        eager.tpot_ms() > graphed.tpot_ms(),
        "eager {} ms vs graphed {} ms",
        eager.tpot_ms(),
        graphed.tpot_ms()
    );
}

#[test]
fn pcie_ipc_workspace_follows_the_users_max_bs() {
    // SGLang's PCIe-IPC workspace = cuda_graph_max_bs × hidden elements of bf16: RTX PRO 6000
    // (97,887 MiB, tp 8: default 512) × Llama-3.1-8B hidden 4096 × 2 B = 4,194,304 B; at 64:
    // 64 × 4096 × 2 = 524,288 B. The backend is SGLang 0.5.23's (`pcie_ipc_ar.py`): the scenario
    // names that release, and the memory era tpsim cannot place for it (late-2025, the rules of the
    // unversioned scenario this test was written against).
    let ipc = |keys: &str| {
        let text = format!(
            "[hardware]\npreset = \"rtx-pro-6000-8x-1switch\"\n[model]\npreset = \"llama-3.1-8b\"\n\
             [engine]\ntp = 8\nversion = \"0.5.23\"\n{keys}\n[engine.costs]\nera = \"late-2025\"\n\
             [engine.env]\nSGLANG_ENABLE_PCIE_IPC_ALLREDUCE = \"1\"\n"
        );
        load_str(&text, std::path::Path::new("ipc.toml"))
            .unwrap()
            .engine
            .custom_limits
            .pcie_ipc_max_bytes
    };
    assert_eq!(ipc(""), Some(4_194_304));
    assert_eq!(ipc("cuda_graph_max_bs = 64"), Some(524_288));
}

#[test]
fn sglang_refuses_bad_sizes_and_vllm_keys() {
    for (keys, key) in [
        ("cuda_graph_max_bs = 0", "engine.cuda_graph_max_bs"),
        ("cuda_graph_max_bs = -4", "engine.cuda_graph_max_bs"),
        ("cuda_graph_max_bs = 100000", "engine.cuda_graph_max_bs"),
        ("cuda_graph_bs = []", "engine.cuda_graph_bs"),
        ("cuda_graph_bs = [0, 8]", "engine.cuda_graph_bs"),
        ("cuda_graph_sizes = [8]", "engine.cuda_graph_sizes"),
        (
            "max_cudagraph_capture_size = 8",
            "engine.max_cudagraph_capture_size",
        ),
        ("async_scheduling = true", "engine.async_scheduling"),
    ] {
        let e = refused(keys);
        assert!(e.contains(key), "{keys}: {e}");
    }
}

/// vLLM 0.11's list: 1, 2, 4, then 8..=n by 8.
fn vllm_011(n: u32) -> Vec<u32> {
    [1, 2, 4].into_iter().chain((8..=n).step_by(8)).collect()
}

#[test]
fn vllm_0_11_capture_sizes() {
    let v = "name = \"vllm\"\nversion = \"0.11.0\"\n";
    // Default: [min(2 × 1024, 512)] = [512] → 3 + 64 = 67 sizes.
    let d = graphs(v);
    assert_eq!(d, vllm_011(512));
    assert_eq!(d.len(), 67);
    // One value: the pattern up to it; 1, 2, 4 always (also for n < 4).
    assert_eq!(graphs(&format!("{v}cuda_graph_sizes = [100]")), vllm_011(100));
    assert_eq!(graphs(&format!("{v}cuda_graph_sizes = [2]")), vec![1, 2, 4]);
    // Several values: that list, sorted; none above max_num_batched_tokens (8192).
    assert_eq!(
        graphs(&format!("{v}cuda_graph_sizes = [200, 3, 9000, 1]")),
        vec![1, 3, 200]
    );
    // compilation_config.cudagraph_capture_sizes replaces it, de-duplicated but NOT filtered in
    // 0.11 (`init_with_cudagraph_sizes`), with tpsim's note that cuda_graph_sizes is unused.
    let s = scn(&format!(
        "{v}cuda_graph_sizes = [64]\ncudagraph_capture_sizes = [5, 9000, 5]"
    ));
    assert_eq!(serve::plan(&s, &plan_memory(&s), false).graphs, vec![5, 9000]);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("cuda_graph_sizes is unused"))
    );
    // 0.11 has no --max-cudagraph-capture-size.
    let e = refused(&format!("{v}max_cudagraph_capture_size = 64"));
    assert!(
        e.contains("engine.max_cudagraph_capture_size") && e.contains("0.12.0"),
        "{e}"
    );
    // Without engine.version the release is vLLM 0.19.0 (`tpsim::engine_release::CURRENT_VLLM`),
    // which has the flag (0.19.0 config/vllm.py `_set_cudagraph_sizes`): 1, 2, 4, 8..=64 by 8 =
    // 11 sizes, and no truncation warning (64 is the list's largest).
    let s = scn("name = \"vllm\"\nmax_cudagraph_capture_size = 64");
    let want: Vec<u32> = [1, 2, 4].into_iter().chain((8..=64).step_by(8)).collect();
    assert_eq!(serve::plan(&s, &plan_memory(&s), false).graphs, want);
    assert_eq!(want.len(), 11);
    assert!(
        !s.warnings.iter().any(|w| w.contains("Truncating")),
        "{:?}",
        s.warnings
    );
    // SGLang's keys are refused under vLLM.
    assert!(refused(&format!("{v}cuda_graph_max_bs = 64")).contains("engine.cuda_graph_max_bs"));
    // Graphs off (enforce-eager): none.
    assert!(graphs(&format!("{v}cuda_graph = false")).is_empty());
}

#[test]
fn vllm_0_12_capture_sizes() {
    let v = "name = \"vllm\"\nversion = \"0.12.0\"\n";
    // Default up to 512: 1, 2, 4, 8..=248 by 8 (31), 256..=512 by 16 (17) = 51 sizes.
    let d = graphs(v);
    assert_eq!(d.len(), 51);
    assert_eq!((d[3], d[33], d[34], d[50]), (8, 248, 256, 512));
    // max_cudagraph_capture_size = 300: …, 248, 256, 272, 288 (37 sizes) and vLLM's warning.
    let s = scn(&format!("{v}max_cudagraph_capture_size = 300"));
    let g = serve::plan(&s, &plan_memory(&s), false).graphs;
    assert_eq!((g.len(), g.last()), (37, Some(&288)));
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("Truncating max_cudagraph_capture_size to 288")),
        "{:?}",
        s.warnings
    );
    // A list is filtered to max_num_batched_tokens (here 4096) from 0.12 on.
    assert_eq!(
        graphs(&format!(
            "{v}max_num_batched_tokens = 4096\ncudagraph_capture_sizes = [4, 8, 8, 5000]"
        )),
        vec![4, 8]
    );
    // The deprecated --cuda-graph-sizes is the list itself in 0.12 (not the 0.11 pattern).
    let s = scn(&format!("{v}cuda_graph_sizes = [100]"));
    assert_eq!(serve::plan(&s, &plan_memory(&s), false).graphs, vec![100]);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("--cuda-graph-sizes is deprecated"))
    );
    // Both list keys: vLLM's mutual-exclusion error.
    let e = refused(&format!(
        "{v}cuda_graph_sizes = [8]\ncudagraph_capture_sizes = [8]"
    ));
    assert!(e.contains("mutually exclusive"), "{e}");
    // A given maximum inconsistent with a given list: vLLM's consistency error.
    let e = refused(&format!(
        "{v}cudagraph_capture_sizes = [1, 2, 256]\nmax_cudagraph_capture_size = 300"
    ));
    assert!(
        e.contains("max_cudagraph_capture_size(=300)") && e.contains("cudagraph_capture_sizes(=256)"),
        "{e}"
    );
    // Consistent: accepted.
    assert_eq!(
        graphs(&format!(
            "{v}cudagraph_capture_sizes = [1, 2, 300]\nmax_cudagraph_capture_size = 300"
        )),
        vec![1, 2, 300]
    );
}

#[test]
fn vllm_async_scheduling_defaults_and_refusals_by_release() {
    let a = |engine: &str| {
        let s = scn(engine);
        (s.engine.async_scheduling, s.engine.overlap_schedule)
    };
    // 0.11.0 and 0.13.0: off by default (config/scheduler.py `async_scheduling: bool = False`).
    assert_eq!(a("name = \"vllm\"\nversion = \"0.11.0\""), (false, false));
    assert_eq!(a("name = \"vllm\"\nversion = \"0.13.0\""), (false, false));
    assert_eq!(
        a("name = \"vllm\"\nversion = \"0.11.0\"\nasync_scheduling = true"),
        (true, true)
    );
    // 0.14.0 (and no version: tpsim's newest vLLM): on unless turned off.
    assert_eq!(a("name = \"vllm\"\nversion = \"0.14.0\""), (true, true));
    assert_eq!(a("name = \"vllm\""), (true, true));
    assert_eq!(
        a("name = \"vllm\"\nversion = \"0.14.0\"\nasync_scheduling = false"),
        (false, false)
    );
    // SGLang keeps its own overlap flag.
    assert_eq!(a("disable_overlap_schedule = true"), (false, false));
    assert_eq!(a(""), (false, true));
    // vLLM 0.11.0's refusal with pipeline parallelism (arg_utils.py `create_engine_config`).
    let pp = |version: &str, keys: &str| {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n\
             [engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 2\npp_size = 2\n{keys}\n"
        );
        load_str(&text, std::path::Path::new("pp.toml"))
    };
    let e = pp("0.11.0", "async_scheduling = true").unwrap_err().to_string();
    assert!(
        e.contains("Async scheduling is not supported with pipeline-parallel-size > 1."),
        "{e}"
    );
    let e = pp("0.12.0", "async_scheduling = true").unwrap_err().to_string();
    assert!(
        e.contains("Async scheduling is not yet compatible with pipeline_parallel_size > 1."),
        "{e}"
    );
    // 0.14.0 by default: turned off with vLLM's warning.
    let s = pp("0.14.0", "").unwrap();
    assert!(!s.engine.async_scheduling);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("not yet supported with pipeline_parallel_size > 1 and will be disabled")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn async_scheduling_hides_the_scheduler_step_behind_the_forward() {
    // One request decoding alone: without async scheduling the forward waits for the scheduler's
    // step (engine.costs.host_overhead, 300 µs in scenarios/engines/vllm.toml); with it the step runs
    // beside the forward (a Llama-3.1-8B decode on an H100 takes ~6 ms > 300 µs), so TPOT falls by
    // exactly the step: 0.300 ms (integer-time arithmetic; ±1 ns for the mean's rounding).
    let tpot = |keys: &str| {
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
             [engine]\nname = \"vllm\"\nversion = \"0.11.0\"\ntp = 1\n{keys}\n\
             [workload]\nconcurrency = 1\nnum_requests = 1\nprompt_len = 16\noutput_len = 64\n"
        );
        let s = load_str(&text, std::path::Path::new("async.toml")).unwrap();
        predict(&s).unwrap().main.tpot_ms()
    };
    let (sync, overlapped) = (tpot(""), tpot("async_scheduling = true"));
    assert!(
        (sync - overlapped - 0.300).abs() < 1e-6,
        "sync {sync} ms, async {overlapped} ms"
    );
}

fn write(name: &str, text: &str) -> String {
    let p = crate::common::scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

const BOX: &str = "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n";

/// The flags `tpsim engine-args` prints for the keys, in each release's spelling (checked by
/// `engine_args_versions::adapt` against tests/data/engine-args/, list flags taking several values).
#[test]
fn keys_map_to_each_releases_flags() {
    let cmd = |name: &str, engine: &str| {
        let f = write(name, &format!("{BOX}[engine]\ntp = 1\n{engine}\n"));
        tpsim::engine_args::for_file(std::path::Path::new(&f))
            .unwrap_or_else(|e| panic!("{engine}: {e}"))
            .1
    };
    let tail = |args: &[String], flag: &str, n: usize| -> Vec<String> {
        let i = args
            .iter()
            .position(|a| a == flag)
            .unwrap_or_else(|| panic!("{flag}: {args:?}"));
        args[i + 1..i + 1 + n].to_vec()
    };
    // SGLang 0.5.9: --cuda-graph-max-bs N, --cuda-graph-bs b1 b2 … (nargs "+").
    let c = cmd("g-sglang", "cuda_graph_max_bs = 96\ncuda_graph_bs = [1, 2, 96]");
    assert_eq!(c.value_of("--cuda-graph-max-bs"), Some("96"));
    assert_eq!(tail(&c.args, "--cuda-graph-bs", 3), ["1", "2", "96"]);
    // SGLang 0.5.23: the per-phase names (arg_groups/fields/exec_.py).
    let c = cmd(
        "g-sglang23",
        "version = \"0.5.23\"\ncuda_graph_max_bs = 96\ncuda_graph_bs = [1, 2, 96]\n[engine.costs]\nera = \"spring-2026\"",
    );
    assert_eq!(c.value_of("--cuda-graph-max-bs-decode"), Some("96"));
    assert_eq!(tail(&c.args, "--cuda-graph-bs-decode", 3), ["1", "2", "96"]);
    assert!(
        !c.args.contains(&"--cuda-graph-max-bs".to_string()),
        "{:?}",
        c.args
    );
    // vLLM 0.11.0: --cuda-graph-sizes, the compilation config's list as JSON, --async-scheduling.
    let c = cmd(
        "g-vllm11",
        "name = \"vllm\"\nversion = \"0.11.0\"\ncuda_graph_sizes = [1, 8]\ncudagraph_capture_sizes = [4, 16]\nasync_scheduling = true",
    );
    assert_eq!(tail(&c.args, "--cuda-graph-sizes", 2), ["1", "8"]);
    assert_eq!(
        c.value_of("--compilation-config"),
        Some("{\"cudagraph_capture_sizes\": [4, 16]}")
    );
    assert!(c.args.contains(&"--async-scheduling".to_string()), "{:?}", c.args);
    // vLLM 0.12.0: --cudagraph-capture-sizes (cuda_graph_sizes printed in that spelling), and
    // --max-cudagraph-capture-size.
    let c = cmd(
        "g-vllm12",
        "name = \"vllm\"\nversion = \"0.12.0\"\ncuda_graph_sizes = [1, 300]\nmax_cudagraph_capture_size = 300",
    );
    assert_eq!(tail(&c.args, "--cudagraph-capture-sizes", 2), ["1", "300"]);
    assert_eq!(c.value_of("--max-cudagraph-capture-size"), Some("300"));
    assert!(!c.args.contains(&"--cuda-graph-sizes".to_string()));
}

/// `tpsim validate` exits 2 naming the key for a bad value.
#[test]
fn validate_exits_2_naming_the_key() {
    for (name, engine, key) in [
        ("v-maxbs", "cuda_graph_max_bs = 0", "engine.cuda_graph_max_bs"),
        ("v-bs", "cuda_graph_bs = [8, -1]", "engine.cuda_graph_bs"),
        ("v-bs-word", "cuda_graph_bs = \"8\"", "engine.cuda_graph_bs"),
        (
            "v-sizes",
            "name = \"vllm\"\ncuda_graph_sizes = []",
            "engine.cuda_graph_sizes",
        ),
        (
            "v-async",
            "name = \"vllm\"\nasync_scheduling = \"yes\"",
            "engine.async_scheduling",
        ),
    ] {
        let f = write(name, &format!("{BOX}[engine]\ntp = 1\n{engine}\n"));
        let o = crate::common::tpsim(&["validate", &f]);
        assert_eq!(o.code, 2, "{engine}: {}", o.stderr);
        assert!(o.stderr.contains(key), "{engine}: {}", o.stderr);
    }
}

//! SGLang's memory rules by era (issue #5, reference/engine-memory.md "SGLang eras"), on the seed
//! scenario: the draft pool rules, the spring-2026 cell scaling, max_running_requests, and the era
//! chosen from `engine.version`. Every expected figure is computed by hand in the comments; token
//! counts are exact (they are the engine's integer arithmetic).

use crate::common::*;

/// The seed baseline with extra TOML appended (e.g. an `[engine.costs]` table).
fn baseline_plus(name: &str, extra: &str) -> String {
    let text = std::fs::read_to_string(scenario("seed/baseline.toml")).expect("baseline");
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, format!("{text}\n{extra}\n")).expect("write");
    p.display().to_string()
}

fn memory_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["memory", file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("JSON")
}

#[test]
fn spring_2026_scales_the_cell_and_counts_draft_weights() {
    // Spring 2026: the draft's 770,760,704 B of weights per rank (pinned in model/src/llm/tests.rs) come
    // off the observed 21.71 GiB before the profile → 20.992173 GiB; rest = 20.992173 − 94.04 × 0.12 =
    // 9.707373 GiB; int(rest × 2^30) = 10,423,212,559 B; cell int(70,272 × (1 + 1/61)) = 71,424 B →
    // 145,934 tokens (late-2025 rules: 159,294). The draft pool has the same token count.
    let f = baseline_plus("spring", "[engine.costs]\nera = \"spring-2026\"");
    let j = memory_json(&f);
    assert_eq!(j["era"], "spring-2026");
    assert_eq!(j["era_source"], "engine.costs.era");
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 71_424);
    assert_eq!(j["kv_cache"]["max_total_num_tokens"], 145_934);
    assert_eq!(j["kv_cache"]["draft_tokens"], 145_934);
    assert_eq!(j["kv_cache"]["bytes"], 145_935u64 * 71_424);
    assert_eq!(j["kv_cache"]["max_running_requests"], 48);
    let o = tpsim(&["memory", &f, "--log"]);
    assert!(
        o.stdout.contains(
            "Memory profiling: available_gpu_memory=20.99 GB, total_gpu_memory=94.04 GB, mem_fraction_static=0.88, rest_memory=9.71 GB"
        ),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("max_total_num_tokens=145934, max_running_requests=48, context_len=262144")
    );
    // At f = 0.55 the budget is negative: spring-2026 builds raise their ValueError with
    // 1 − 20.992173 / 94.04 = 0.776774 → "0.7768", suggestion 0.777.
    let low = std::fs::read_to_string(&f)
        .unwrap()
        .replace("mem_fraction_static = 0.88", "mem_fraction_static = 0.55");
    std::fs::write(&f, low).unwrap();
    let j = memory_json(&f);
    assert_eq!(j["verdict"], "oom");
    assert_eq!(
        j["error"],
        "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.55. \
         Raise --mem-fraction-static above 0.777 (minimum viable = 1 - available/pre = 0.7768). \
         If using speculative decoding, draft weights are now counted."
    );
}

#[test]
fn mid_2025_inflates_the_shared_pool() {
    // Mid 2025: no 48-request default; max_num_reqs = min(max(int(159,294 / 262,144 × 512), 2048),
    // 4096) = 2048; the pool grows by 2048 × (3 × 1 + 4) + 100 = 14,436 → 173,730 tokens for target and
    // draft; max_running_requests = min(173,730 // 2, 2048) = 2048.
    let f = baseline_plus("mid", "[engine.costs]\nera = \"mid-2025\"");
    let j = memory_json(&f);
    assert_eq!(j["verdict"], "ok");
    assert_eq!(j["kv_cache"]["max_total_num_tokens"], 173_730);
    assert_eq!(j["kv_cache"]["bytes"], 12_208_424_832u64); // 173,731 × 70,272
    assert_eq!(j["kv_cache"]["draft_tokens"], 173_730);
    assert_eq!(j["kv_cache"]["max_num_reqs"], 2048);
    assert_eq!(j["kv_cache"]["max_running_requests"], 2048);
    // Threshold: the inflation lets a negative profile start; need (1 − 14,436) × 70,272 / 2^30 =
    // −0.944712 GiB → f = 1 − (21.71 + 0.944712) / 94.04 = 0.759095 (late-2025: 0.7691).
    let fmin = f64_of(&j["min_mem_fraction_static"]);
    assert!((fmin - 0.759_095).abs() < 1e-6, "{fmin}");
    // At f = 0.76 the engine starts with −13,135 + 14,436 = 1,301 tokens; late-2025 rules fail there.
    let low = baseline_plus("mid-low", "[engine.costs]\nera = \"mid-2025\"");
    let text = std::fs::read_to_string(&low)
        .unwrap()
        .replace("mem_fraction_static = 0.88", "mem_fraction_static = 0.76");
    std::fs::write(&low, text).unwrap();
    let j = memory_json(&low);
    assert_eq!(j["verdict"], "ok");
    assert_eq!(j["kv_cache"]["max_total_num_tokens"], 1_301);
    // Just below the threshold (−0.001) it fails with the mid-2025 text.
    let text = std::fs::read_to_string(&low)
        .unwrap()
        .replace("mem_fraction_static = 0.76", "mem_fraction_static = 0.758");
    std::fs::write(&low, text).unwrap();
    let j = memory_json(&low);
    assert_eq!(j["verdict"], "oom");
    assert_eq!(
        j["error"],
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
    );
}

fn f64_of(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn early_2025_gives_the_draft_a_larger_pool() {
    // Early 2025: the target keeps the 159,294 profiled tokens; the draft pool gets
    // 159,294 + 2048 × 3 + 100 = 165,538 slots of 4,096 B.
    let f = baseline_plus("early", "[engine.costs]\nera = \"early-2025\"");
    let j = memory_json(&f);
    assert_eq!(j["kv_cache"]["max_total_num_tokens"], 159_294);
    assert_eq!(j["kv_cache"]["draft_tokens"], 165_538);
    let draft = j["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "draft KV pool")
        .expect("draft KV pool entry");
    // (165,538 + 1) × 4,096 B = 678,047,744 B = 646.64 MiB.
    assert!((f64_of(&draft["mib"]) - 678_047_744.0 / 1_048_576.0).abs() < 1e-9);
}

#[test]
fn late_2025_error_text_names_the_value() {
    let o = tpsim(&["memory", &scenario("seed/low-fraction.toml"), "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        j["error"],
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.55"
    );
    assert!(j["kv_cache"]["max_running_requests"].is_null());
}

#[test]
fn era_from_engine_version() {
    // engine-memory.tsv: Grok-2 under v0.5.2rc2 logged the mid-2025 default fraction. release52: the
    // seed's Kimi-K2.5 has no class before 0.5.9 (`scenario::first_release`), so the version's era is
    // read on Llama-3.1-8B, and the mid-2025 figure on the seed with the era named (its arithmetic
    // does not depend on the release): 173,730 tokens, as before.
    let llama = |name: &str, v: &str| {
        let p = scratch(name).join("scenario.toml");
        std::fs::write(
            &p,
            format!(
                "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
                 version = \"{v}\"\ntp = 1\n"
            ),
        )
        .expect("write");
        p.display().to_string()
    };
    let j = memory_json(&llama("version", "v0.5.2rc2"));
    assert_eq!(j["era"], "mid-2025");
    assert_eq!(j["era_source"], "engine.version v0.5.2rc2");
    let f = baseline_plus("mid", "[engine.costs]\nera = \"mid-2025\"");
    let j = memory_json(&f);
    assert_eq!(j["kv_cache"]["max_total_num_tokens"], 173_730);
    // An explicit era wins over the version.
    let f = llama("version-era", "v0.5.2rc2");
    let text = std::fs::read_to_string(&f).unwrap() + "\n[engine.costs]\nera = \"late-2025\"\n";
    std::fs::write(&f, text).unwrap();
    let j = memory_json(&f);
    assert_eq!(
        (j["era"].as_str(), j["era_source"].as_str()),
        (Some("late-2025"), Some("engine.costs.era"))
    );
    // A version after the last one placed (0.5.23, release52) is a clear error naming the key and
    // the way out.
    let f = baseline_with(
        "version-gap",
        "name = \"sglang\"",
        "name = \"sglang\"\nversion = \"0.5.24\"",
    );
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("engine.version") && o.stderr.contains("engine.costs.era"),
        "{}",
        o.stderr
    );
}

#[test]
fn max_running_requests_caps_the_batch() {
    // With EAGLE, late-2025 SGLang runs at most 48 requests; asking for 64 warns. And a batch capped by
    // engine.max_running_requests = 4 at concurrency 8 is the same simulation as concurrency 4.
    let f = baseline_with("mrr", "concurrency = 1", "concurrency = 64");
    let j = run_json(&f);
    assert_eq!(j["memory"]["max_running_requests"], 48);
    let warnings = j["memory"]["warnings"].to_string();
    assert!(warnings.contains("max_running_requests = 48"), "{warnings}");
    let capped = baseline_with(
        "mrr-capped",
        "concurrency = 1",
        "concurrency = 8\nnum_requests = 8",
    );
    let text = std::fs::read_to_string(&capped)
        .unwrap()
        .replace("page_size = 1", "page_size = 1\nmax_running_requests = 4");
    std::fs::write(&capped, text).unwrap();
    let four = baseline_with("mrr-four", "concurrency = 1", "concurrency = 4\nnum_requests = 8");
    let (a, b) = (run_json(&capped), run_json(&four));
    // Issue #18: TTFT counts from arrival, so the 4 requests the capped engine queues wait for it
    // (the client at concurrency 4 sends them later). Since kimitok54 the client at concurrency 4
    // also learns of a finished request only after SGLang's detokenizer has decoded that step's
    // output (Kimi's tiktoken tokenizer, `serve::detok`), so its next request can miss the step the
    // capped engine admits its queued one at: 688 against 685 iterations. Same tokens, the capped
    // engine never slower, and within 0.5 % of output throughput.
    let (ta, tb) = (&a["throughput"], &b["throughput"]);
    assert_eq!(ta["output_tokens"], tb["output_tokens"]);
    let (ra, rb) = (
        ta["output_tok_s"].as_f64().unwrap(),
        tb["output_tok_s"].as_f64().unwrap(),
    );
    assert!(ra >= rb && (ra - rb) / rb < 0.005, "{ra} vs {rb}");
    assert!(ta["iterations"].as_u64() <= tb["iterations"].as_u64());
    assert!(ta["ttft_ms"].as_f64() > tb["ttft_ms"].as_f64());
    assert_eq!(a["memory"]["max_running_requests"], 4);
    // 0 is refused.
    let zero = std::fs::read_to_string(&capped)
        .unwrap()
        .replace("max_running_requests = 4", "max_running_requests = 0");
    std::fs::write(&capped, zero).unwrap();
    let o = tpsim(&["run", &capped]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("engine.max_running_requests"), "{}", o.stderr);
}

#[test]
fn observed_weight_and_graph_memory_replace_the_model() {
    // A log that gives "Load weight end. ... mem usage=72.33 GB" instead of the avail figure:
    // available = 94.04 − 72.33 = 21.71 GiB → the seed's 159,294 tokens (R1). "Capture cuda graph
    // end. ... mem usage=2.50 GB" replaces the modelled 1.5 GiB of target graphs: headroom falls by
    // exactly 1 GiB.
    let base = memory_json(&scenario("seed/baseline.toml"));
    let f = baseline_with(
        "observed",
        "free_after_weights_gib = 21.71",
        "weights_gib = 72.33\ncuda_graph_gib = 2.5",
    );
    let j = memory_json(&f);
    assert_eq!(j["kv_cache"]["max_total_num_tokens"], 159_294);
    let entry = |j: &serde_json::Value, name: &str| -> serde_json::Value {
        j["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no entry {name}"))
    };
    assert_eq!(entry(&j, "target weights")["source"], "observed");
    assert_eq!(entry(&j, "target CUDA graphs")["source"], "observed");
    assert!((f64_of(&entry(&j, "target CUDA graphs")["mib"]) - 2560.0).abs() < 1e-9);
    let drop = f64_of(&base["headroom_mib"]) - f64_of(&j["headroom_mib"]);
    assert!((drop - 1024.0).abs() < 0.01, "{drop}");
    let o = tpsim(&["memory", &f, "--log"]);
    assert!(
        o.stdout.contains("Capture cuda graph end. mem usage=2.50 GB."),
        "{}",
        o.stdout
    );
}

/// Issue #17 point 5: SGLang 0.4.7 still used the TP-size table for its default fraction (its wheel's
/// `server_args.py`), 0.4.8 PR #7054's per-GPU reserve. On one H100 (81,559 MiB): 0.4.7 → 0.88 (tp 1);
/// 0.4.8 → reserved 9.5 + 1/2 = 10 GiB → round((79.647 − 10) / 79.647, 3) = 0.874. Both are mid-2025
/// KV versions (the shared speculative pool is in the 0.4.3.post4 wheel already).
#[test]
fn default_fraction_era_splits_from_the_kv_era_at_0_4_8() {
    let f = |version: &str| {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
             version = \"{version}\"\ntp = 1\n"
        );
        let s = tpsim::scenario::load_str(&text, std::path::Path::new("v.toml")).unwrap();
        (s.engine.mem_fraction_static, s.engine.era)
    };
    use tpsim_model::memory::SglangEra;
    assert_eq!(f("0.4.7"), (0.88, SglangEra::Mid2025));
    assert_eq!(f("0.4.8"), (0.874, SglangEra::Mid2025));
    assert_eq!(f("0.4.2"), (0.88, SglangEra::Early2025));
    // vrows3: 0.4.7.post1's wheel already has PR #7054's reserve: 0.874 as 0.4.8.
    assert_eq!(f("0.4.7.post1"), (0.874, SglangEra::Mid2025));
}

/// vrows3 (issue #17 point 5): the pre-#7054 releases' own variants of the default fraction, read
/// from each wheel's `server_args.py` (`tpsim_model::sglang_fraction_early`). engine-memory.tsv's
/// 0.4.x rows all run on cards at or below 81,920 MiB, where every variant is the TP table: line 2
/// (~0.4.3.post4, L4 24 GB, tp 4: 0.85, the row's mem_frac) and lines 4, 8, 9 (~0.4.1, H100 tp 1:
/// 0.88); no log of 0.4.5.post3 – 0.4.7 exists there, so those rows do not distinguish the variants.
/// On H200 (143,771 MiB), Llama-3.1-8B at tp 8 (no log: the wheels' arithmetic):
/// - 0.4.5.post2: the table, 0.81;
/// - 0.4.6.post1: (143,771 − 13 × 1024) / 143,771 = 0.907410…;
/// - 0.4.6.post5: base 0.88 raised to min(0.88 + 48 × 1024 × 0.12 / 143,771, (143,771 − 18 × 1024) /
///   143,771) = min(0.92103, 0.87180) = 0.871796…;
/// - 0.4.7 with an H200: as 0.4.6.post5 (above 96 GiB, below 180,000 MiB);
/// - 0.4.7.post1: PR #7054, reserved 12 + 8/2 = 16 GiB → round((143,771 − 16,384) / 143,771, 3) = 0.886.
#[test]
fn pre_7054_default_fractions_by_release() {
    let f = |hw: &str, tp: u32, version: &str| {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
             version = \"{version}\"\ntp = {tp}\n"
        );
        tpsim::scenario::load_str(&text, std::path::Path::new("v.toml"))
            .unwrap()
            .engine
            .mem_fraction_static
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    let h200 = 143_771.0_f64;
    assert!(close(f("h200-8x-nvlink", 8, "0.4.5.post2"), 0.81));
    assert!(close(
        f("h200-8x-nvlink", 8, "0.4.6.post1"),
        (h200 - 13_312.0) / h200
    ));
    assert!(close(
        f("h200-8x-nvlink", 8, "0.4.6.post5"),
        (h200 - 18_432.0) / h200
    ));
    assert!(close(f("h200-8x-nvlink", 8, "0.4.7"), (h200 - 18_432.0) / h200));
    assert!(close(f("h200-8x-nvlink", 8, "0.4.7.post1"), 0.886));
    // The tsv's 0.4.x rows: cards ≤ 81,920 MiB, the table (line 2's L4 at tp 4 is not a preset; the
    // H100 rows 4, 8, 9 at tp 1 are).
    for v in ["0.4.1", "0.4.5.post3", "0.4.6.post5", "0.4.7"] {
        assert!(close(f("h100-sxm-1x", 1, v), 0.88), "{v}");
    }
}

/// Issue #17 point 5: `enable_piecewise_cuda_graph` adds SGLang 0.5.9's reserve of 8 MiB per capture
/// size to the default fraction (server_args.py: `reserved_mem += len(piecewise_cuda_graph_tokens) *
/// 8`, before the 10 GiB floor). One H100 (81,559 MiB), tp 1, Llama-3.1-8B, SGLang 0.5.8 (late-2025):
/// reserved = 512 + 1.5 × 8192 + 2 × 256 + 1/8 × 1024 = 13,440 MiB → round(68,119 / 81,559, 3) = 0.835;
/// with piecewise graphs up to chunked_prefill_size 8192 (58 sizes, 464 MiB): 13,904 MiB →
/// round(0.82952, 3) = 0.830. An MLA model caps the sizes at 2048 (42 sizes, 336 MiB).
#[test]
fn piecewise_cuda_graph_reserve_in_the_default_fraction() {
    let f = |extra: &str| {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
             version = \"0.5.8\"\ntp = 1\n{extra}"
        );
        tpsim::scenario::load_str(&text, std::path::Path::new("p.toml"))
            .map(|s| s.engine.mem_fraction_static)
            .map_err(|e| e.to_string())
    };
    assert_eq!(f(""), Ok(0.835));
    assert_eq!(f("enable_piecewise_cuda_graph = true\n"), Ok(0.830));
    // Before the late-2025 rules tpsim refuses the flag; vLLM refuses it as an SGLang flag.
    let e = f("enable_piecewise_cuda_graph = true\n").and(f(
        "enable_piecewise_cuda_graph = true\n[engine.costs]\nera = \"mid-2025\"\n",
    ));
    assert!(e.is_err_and(|m| m.contains("engine.enable_piecewise_cuda_graph") && m.contains("0.5.9")));
}

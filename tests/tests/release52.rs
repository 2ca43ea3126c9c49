//! release52 (issue #17): which SGLang release a scenario means. The default release is SGLang 0.5.9
//! (`tpsim::engine_release::CURRENT_SGLANG`), the first with Kimi-K2.5, Qwen3.5 and GLM-5; every
//! PyPI release 0.5.9 … 0.5.23 is placed in a memory era (`tpsim_model::memory::sglang_era_from_version`,
//! read in the wheels: late-2025 through 0.5.13, spring-2026 from 0.5.14); the first-release rows
//! release51 held out are enforced. Every figure below is worked by hand in its comment; token counts
//! and cell sizes are the engines' integer arithmetic (exact).

use crate::common::*;

/// `text` written to a scratch scenario file.
#[track_caller]
fn write(name: &str, text: &str) -> String {
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// The seed baseline with `engine.version = v` added under `[engine]`.
#[track_caller]
fn seed_at(v: &str) -> String {
    baseline_with(
        &format!("seed-{v}"),
        "[engine]\n",
        &format!("[engine]\nversion = \"{v}\"\n"),
    )
}

fn memory_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["memory", file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("JSON")
}

/// The seed (no `engine.version`) is simulated at SGLang 0.5.9 and says so; its memory stays the
/// late-2025 figure: rest = 21.71 − 94.04 × 0.12 = 10.4252 GiB → ⌊10.4252 × 2^30 / 70,272⌋ = 159,294
/// tokens (the cell (512 + 64) × 61 × 2 B = 70,272 B), as at 0.5.8 — 0.5.9's `server_args.py`
/// `_handle_gpu_memory_settings` and KV profile are 0.5.8.post1's (read in both wheels).
#[test]
fn seed_is_simulated_at_sglang_0_5_9() {
    let label = "SGLang 0.5.9 (assumed: engine.version not set)";
    let o = tpsim(&["run", &scenario("seed/baseline.toml")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains(&format!("release   {label}")), "{}", o.stdout);
    let j = memory_json(&scenario("seed/baseline.toml"));
    assert_eq!(j["era"], "late-2025");
    assert_eq!(j["era_source"], label);
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 70_272);
    assert_eq!(j["kv_cache"]["max_total_num_tokens"], 159_294);
    assert_eq!(tpsim::engine_release::CURRENT_SGLANG, "0.5.9");
}

/// The era of each boundary release, from `engine.version` alone, on the seed (EAGLE-3, one draft
/// layer over 61): 0.5.13 is late-2025 (cell 70,272 B, 159,294 tokens as above); 0.5.14 — the first
/// wheel whose `pool_configurator.py` scales the cell by the EAGLE draft's layers — is spring-2026:
/// the draft's 770,760,704 B of weights come off the observed 21.71 GiB → 20.992173 GiB, rest =
/// 20.992173 − 94.04 × 0.12 = 9.707373 GiB, int(rest × 2^30) = 10,423,212,559 B, cell int(70,272 ×
/// (1 + 1/61)) = 71,424 B → 145,934 tokens (memory_eras.rs works the same figure with the era named);
/// 0.5.23, the newest release read, is spring-2026 too; 0.5.24 (not on PyPI when read) is refused
/// naming the key and asking for `engine.costs.era`.
#[test]
fn boundary_releases_have_their_era() {
    for (v, era, cell, tokens) in [
        ("0.5.13", "late-2025", 70_272, 159_294),
        ("0.5.14", "spring-2026", 71_424, 145_934),
        ("0.5.23", "spring-2026", 71_424, 145_934),
    ] {
        let j = memory_json(&seed_at(v));
        assert_eq!(j["era"], era, "{v}");
        assert_eq!(j["era_source"], format!("engine.version {v}"), "{v}");
        assert_eq!(j["kv_cache"]["cell_size_bytes"], cell, "{v}");
        assert_eq!(j["kv_cache"]["max_total_num_tokens"], tokens, "{v}");
    }
    let o = tpsim(&["validate", &seed_at("0.5.24")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr
            .contains("key `engine.version`: `0.5.24`: tpsim places SGLang releases up to 0.5.23")
            && o.stderr.contains("set engine.costs.era"),
        "{}",
        o.stderr
    );
}

/// The error of a profile with no room, by release (Llama-3.1-8B on one H100 at f = 0.1, so rest =
/// available − total × 0.9 < 0): 0.5.9 appends `self.server_args.mem_fraction_static=0.1`
/// (`model_runner_kv_cache_mixin.py`), 0.5.10–0.5.13 `mem_fraction_static=0.1`
/// (`MemoryPoolConfig.__post_init__`, late-2025 rules otherwise), 0.5.14 raises the ValueError of
/// `_profile_available_bytes`.
#[test]
fn not_enough_memory_text_follows_the_release() {
    for (v, start) in [
        (
            "0.5.9",
            "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.1",
        ),
        (
            "0.5.12",
            "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.1",
        ),
        (
            "0.5.14",
            "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.1.",
        ),
    ] {
        let f = write(
            &format!("oom-{v}"),
            &format!(
                "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
                 version = \"{v}\"\ntp = 1\nmem_fraction_static = 0.1\n"
            ),
        );
        let j = memory_json(&f);
        assert_eq!(j["verdict"], "oom", "{v}");
        let e = j["error"].as_str().expect("error text");
        assert!(e == start || (v == "0.5.14" && e.starts_with(start)), "{v}: {e}");
    }
}

/// DeepSeek-V3.2's KV budget (`NsaBudgetRule`) by release inside the spring-2026 era: 0.5.15 and
/// 0.5.16 still budget (512 + 64) B of fp8 latent + 132 B of indexer = 708 B per layer, × 61 layers =
/// 43,188 B; 0.5.17 budgets what the pool allocates, 656 + 132 = 788 B × 61 = 48,068 B
/// (`pool_configurator.py` `_compute_cell_size` with `calculate_mla_kv_cache_dim`).
#[test]
fn dsa_budget_is_keyed_by_release_not_era() {
    let text = std::fs::read_to_string(scenario("examples/deepseek-v3.2-rtx6000x8.toml")).expect("example");
    for (v, cell) in [("0.5.15", 43_188), ("0.5.16", 43_188), ("0.5.17", 48_068)] {
        let f = write(
            &format!("dsa-{v}"),
            &text.replacen("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"), 1),
        );
        let j = memory_json(&f);
        assert_eq!(j["era"], "spring-2026", "{v}");
        assert_eq!(j["kv_cache"]["cell_size_bytes"], cell, "{v}");
    }
    assert_eq!(708 * 61, 43_188);
    assert_eq!(788 * 61, 48_068);
}

/// The held-out first-release rows, enforced: Kimi-K2.5 under SGLang 0.5.8 stops in
/// `resolve_transformers_arch` (0.5.8.post1 `model_loader/utils.py`); Qwen3.5 and GLM-5 have model
/// types transformers 4.57.1 (0.5.8's pin) does not know; vLLM registers Qwen3.5 from 0.17.0.
#[test]
fn first_releases_are_enforced() {
    let o = tpsim(&["validate", &seed_at("0.5.8")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains(
            "key `engine.version`: SGLang 0.5.8 has no models/kimi_k25.py (SGLang ships it from 0.5.9): it would stop with \
             \"ValueError: KimiK25ForConditionalGeneration has no SGlang implementation and the Transformers implementation \
             is not compatible with SGLang.\" (set a later engine.version)"
        ),
        "{}",
        o.stderr
    );
    let qwen = |engine: &str, v: &str| {
        write(
            &format!("qwen35-{engine}-{v}"),
            &format!(
                "[hardware]\npreset = \"rtx-4090-2x-no-p2p\"\n[model]\npreset = \"qwen3.5-9b\"\n[engine]\nname = \
                 \"{engine}\"\nversion = \"{v}\"\ntp = 2\n"
            ),
        )
    };
    let o = tpsim(&["validate", &qwen("sglang", "0.5.8.post1")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains(
            "SGLang 0.5.8.post1 has no models/qwen3_5.py (SGLang ships it from 0.5.9): it would stop with \
             \"ValueError: The checkpoint you are trying to load has model type `qwen3_5` but Transformers does not \
             recognize this architecture.\""
        ),
        "{}",
        o.stderr
    );
    let o = tpsim(&["validate", &qwen("vllm", "0.16.0")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr
            .contains("vLLM 0.16.0 has no registry entries for Qwen3_5ForConditionalGeneration"),
        "{}",
        o.stderr
    );
    for (engine, v) in [("sglang", "0.5.9"), ("vllm", "0.17.0")] {
        let o = tpsim(&["validate", &qwen(engine, v)]);
        assert_eq!(o.code, 0, "{engine} {v}: {}", o.stderr);
    }
    // Qwen3-Next, which the vLLM 0.11.0 hybrid tests now use (vllm_hybrid.rs `defaults_by_release`:
    // 6,528 tokens, 1.47x), is in 0.11.0's registry.
    let f = write(
        "qwen3-next-vllm-0.11",
        "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"qwen3-next-80b-a3b-fp8\"\n[engine]\nname = \
         \"vllm\"\nversion = \"0.11.0\"\ntp = 1\n",
    );
    let o = tpsim(&["validate", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// `tpsim import-command` cannot write `engine.costs.era` and no longer needs to: an SGLang 0.5.12
/// launch line (the release from `--engine-version`) imports to a scenario that validates, in the
/// late-2025 era by its version (0.5.12 < 0.5.14).
#[test]
fn imported_0_5_12_command_validates() {
    let d = scratch("import");
    let out = d.join("imported.toml").display().to_string();
    let o = tpsim(&[
        "import-command",
        "--hardware",
        "h100-sxm-1x",
        "--engine-version",
        "0.5.12",
        "-o",
        &out,
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 1 --mem-fraction-static 0.85",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let text = std::fs::read_to_string(&out).expect("written");
    assert!(text.contains("version = \"0.5.12\""), "{text}");
    assert!(!text.contains("era"), "{text}");
    let o = tpsim(&["validate", &out]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j = memory_json(&out);
    assert_eq!(j["era"], "late-2025");
    assert_eq!(j["era_source"], "engine.version 0.5.12");
}

//! `tpsim memory`: the plan, its thresholds and the start-up log lines (seed story R1, R2).

use crate::common::*;

#[test]
fn baseline_plan_log_and_thresholds() {
    let o = tpsim(&["memory", &scenario("seed/baseline.toml"), "--log"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // R1: (159,294 + 1) × 70,272 B = 10.4252 GiB, printed with SGLang's 2 decimals.
    assert!(
        o.stdout
            .contains("KV Cache is allocated. #tokens: 159294, KV size: 10.43 GB"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("Load weight end. avail mem=21.71 GB, mem usage=72.33 GB."),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("max_total_num_tokens=159294"), "{}", o.stdout);
    assert!(
        o.stdout
            .contains("smallest mem_fraction_static that starts: 0.7691"),
        "{}",
        o.stdout
    );
    let o = tpsim(&["memory", &scenario("seed/baseline.toml"), "--json"]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["verdict"], "ok");
    // 159,294 tokens ÷ (1,024 + 1,024) per request = 77 requests; ÷ 1 request = 159,294 tokens.
    assert_eq!(j["max_concurrency_at_context"], 77);
    assert_eq!(j["max_context_at_concurrency"], 159_294);
    assert!(
        j["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "draft KV pool")
    );
}

#[test]
fn low_fraction_prints_sglangs_error() {
    // R2: the log stops at the KV profile with SGLang's own message.
    let o = tpsim(&["memory", &scenario("seed/low-fraction.toml"), "--log"]);
    assert_eq!(o.code, 0);
    assert!(
        o.stdout
            .contains("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.")
    );
    assert!(!o.stdout.contains("KV Cache is allocated"));
    let j: serde_json::Value =
        serde_json::from_str(&tpsim(&["memory", &scenario("seed/low-fraction.toml"), "--json"]).stdout)
            .unwrap();
    assert_eq!(j["verdict"], "oom");
    assert!(f(&j["missing_mib"]) > 21_000.0, "{j}");
    let o = tpsim(&["memory", "/nonexistent.toml"]);
    assert_eq!(o.code, 2);
}

#[test]
fn sglangs_default_fraction_by_era() {
    // The seed scenario without mem_fraction_static: the late-2025 rule on a 97,887 MiB card at tp 8
    // with EAGLE reserves 16,896 MiB → round(0.827393, 3) = 0.827, times the vision factor of Kimi-K2.5's 27 × 1152
    // MoonViT (0.95 × (1 − 0.1 × (27 × 1152² / (24 × 1024²) − 1)) = 0.909736…) = 0.752349… — below the
    // 0.7691 this box needs: the default would die with "Not enough memory".
    let text = std::fs::read_to_string(scenario("seed/baseline.toml")).unwrap();
    let p = scratch("default-fraction").join("s.toml");
    let no_f: String = text
        .lines()
        .filter(|l| !l.starts_with("mem_fraction_static"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&p, &no_f).unwrap();
    let j = run_json(&p.display().to_string());
    let x = 27.0 * 1152.0f64.powi(2) / (24.0 * 1024.0 * 1024.0);
    let want = 0.827 * 0.95 * (1.0 - 0.1 * (x - 1.0));
    assert!((f(&j["memory"]["mem_fraction_static"]) - want).abs() < 1e-12);
    assert_eq!(j["memory"]["mem_fraction_static_default"], true);
    assert_eq!(j["memory"]["verdict"], "oom");
    // Mid-2025 era, Llama-3.1-8B on one H100 (81,559 MiB = 79.647 GiB): reserved 9.5 + 1/2 = 10 GiB →
    // round((79.647 − 10) / 79.647, 3) = 0.874.
    let llama = std::fs::read_to_string(scenario("examples/llama-3.1-8b-h100.toml")).unwrap();
    let mid: String = llama
        .lines()
        .filter(|l| !l.starts_with("mem_fraction_static"))
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        + "[engine.costs]\nera = \"mid-2025\"\n";
    std::fs::write(&p, &mid).unwrap();
    let j = run_json(&p.display().to_string());
    assert!(
        (f(&j["memory"]["mem_fraction_static"]) - 0.874).abs() < 1e-12,
        "{}",
        j["memory"]["mem_fraction_static"]
    );
    // Late-2025 defaults on the same H100 at tp 1 (no speculation): bucket 8192 / 256, reserved
    // 512 + 12,288 + 512 + 128 = 13,440 MiB → round(68,119 / 81,559, 3) = round(0.835211, 3) = 0.835.
    // Spring 2026 has the same rule without speculation.
    for era in ["late-2025", "spring-2026"] {
        std::fs::write(&p, mid.replace("mid-2025", era)).unwrap();
        let j = run_json(&p.display().to_string());
        assert!(
            (f(&j["memory"]["mem_fraction_static"]) - 0.835).abs() < 1e-12,
            "{era}: {}",
            j["memory"]["mem_fraction_static"]
        );
    }
}

#[test]
fn vllm_log_lines() {
    // Llama-3.1-8B on one H100 under vLLM at 0.95 (modeled weights 14.96 GiB, engines/vllm.toml's
    // 2 + 0.57 GiB): the v1 worker's three lines.
    let p = scratch("vllm-log").join("s.toml");
    std::fs::write(
        &p,
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\ntp = 1\n\
         gpu_memory_utilization = 0.95\n[workload]\nprompt_len = 256\noutput_len = 256\n",
    )
    .unwrap();
    let o = tpsim(&["memory", &p.display().to_string(), "--log"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for needle in [
        "Available KV cache memory: ",
        "GPU KV cache size: ",
        "Maximum concurrency for 512 tokens per request: ",
    ] {
        assert!(o.stdout.contains(needle), "{needle}: {}", o.stdout);
    }
    assert!(
        !o.stdout.contains("KV Cache is allocated"),
        "no SGLang lines: {}",
        o.stdout
    );
    assert!(o.stdout.contains("vllm v1 rules"), "{}", o.stdout);
}

#[test]
fn against_explains_the_custom_allreduce_delta() {
    // seed-story R3, modeled (observed values removed): the 40 MiB of IPC buffers come before `total`,
    // so ΔA = ΔT = −40 MiB and rest moves by −40 + (1 − 0.88) × 40 = −35.2 MiB = −f × Δ.
    let dir = scratch("against");
    let base = std::fs::read_to_string(scenario("seed/baseline.toml"))
        .unwrap()
        .replacen(
            "free_after_init_gib = 94.04\nfree_after_weights_gib = 21.71\n",
            "",
            1,
        );
    let a = dir.join("a.toml");
    let b = dir.join("b.toml");
    std::fs::write(&a, &base).unwrap();
    std::fs::write(
        &b,
        base.replacen("allreduce = \"nccl\"", "allreduce = \"custom\"", 1),
    )
    .unwrap();
    let o = tpsim(&[
        "memory",
        &a.display().to_string(),
        "--against",
        &b.display().to_string(),
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let d: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert!((f(&d["rest_mib"]) + 35.2).abs() < 0.01, "{d}");
    assert!((f(&d["from_available_mib"]) + 40.0).abs() < 0.01, "{d}");
    assert!((f(&d["from_total_mib"]) - 4.8).abs() < 0.01, "{d}");
    assert!(f(&d["from_fraction_mib"]).abs() < 1e-9);
    let o = tpsim(&[
        "memory",
        &a.display().to_string(),
        "--against",
        &b.display().to_string(),
    ]);
    assert!(
        o.stdout.contains("custom-allreduce IPC buffers") && o.stdout.contains("+40.0"),
        "{}",
        o.stdout
    );
    let o = tpsim(&[
        "memory",
        &a.display().to_string(),
        "--against",
        "/nonexistent.toml",
    ]);
    assert_eq!(o.code, 2);
}

//! The seed story (reference/seed-story.md) through the whole program: R1–R3 memory figures, the
//! JSON schema's required fields, determinism and the trace.

use crate::common::*;

#[test]
fn r1_baseline_kv_cache_matches_the_engine_arithmetic() {
    // seed-story R1: f = 0.88, observed 94.04 / 21.71 GiB, cell 70,272 B →
    // rest = 21.71 − 94.04 × 0.12 = 10.4252 GiB; int(rest × 2^30 // 70,272) = 159,294 tokens (exact);
    // pool (159,294 + 1) × 70,272 B = 10.4252 GiB, printed by SGLang as ≈ 10.42 GB (S5). Tolerance on
    // the GiB figure: 0.001 (the log's own rounding is 0.005).
    let j = run_json(&scenario("seed/baseline.toml"));
    let m = &j["memory"];
    assert_eq!(m["verdict"], "ok");
    assert_eq!(m["kv_tokens"], 159_294);
    assert_eq!(m["cell_size_bytes"], 70_272);
    assert!(
        (f(&m["kv_pool_gib"]) - 10.4252).abs() < 1e-3,
        "{}",
        m["kv_pool_gib"]
    );
    assert!((f(&m["rest_gib"]) - 10.4252).abs() < 1e-9);
    // The required JSON fields exist and are finite numbers.
    for (sec, key) in [("throughput", "output_tok_s"), ("throughput", "tpot_ms")] {
        assert!(
            f(&j[sec][key]).is_finite() && f(&j[sec][key]) > 0.0,
            "{sec}.{key}"
        );
    }
    for k in ["compute", "collective", "host", "sync", "idle"] {
        assert!(f(&j["breakdown"][k]) >= 0.0, "breakdown.{k}");
    }
}

#[test]
fn r2_low_fraction_dies_with_sglangs_text_and_says_the_minimum() {
    // seed-story R2: 21.71 − 94.04 × 0.45 = −20.608 GiB → "Not enough memory"; minimum fraction
    // 1 − (21.71 − 70,272 / 2^30) / 94.04 = 0.76914 (±1e-4).
    let j = run_json(&scenario("seed/low-fraction.toml"));
    let m = &j["memory"];
    assert_eq!(m["verdict"], "oom");
    assert_eq!(m["kv_tokens"], 0);
    let msg = m["oom"]["message"].as_str().unwrap();
    assert!(
        msg.contains("Not enough memory. Please try to increase --mem-fraction-static"),
        "{msg}"
    );
    assert!((f(&m["rest_gib"]) + 20.608).abs() < 1e-9);
    assert!((f(&m["min_mem_fraction_static"]) - 0.76914).abs() < 1e-4);
    // The text report says the same in words.
    let o = tpsim(&["run", &scenario("seed/low-fraction.toml")]);
    assert_eq!(o.code, 3, "the engine's verdict, not a success");
    assert!(
        o.stdout.contains("verdict OOM") && o.stdout.contains("0.7691"),
        "{}",
        o.stdout
    );
}

#[test]
fn r3_custom_allreduce_buffers_move_the_budget_by_f_times_delta() {
    // seed-story R3 with the observed log values: 21.70 − 94.00 × 0.12 = 10.42 GiB → 159,215 tokens, a
    // start, not a crash (the crash of S6 needs another change, e.g. the fraction).
    let j = run_json(&scenario("seed/custom-ar.toml"));
    assert_eq!(j["memory"]["verdict"], "ok");
    assert_eq!(j["memory"]["kv_tokens"], 159_215);
    // Modeled (no observed values): the 40 MiB of buffers (engines/sglang.toml) are taken before
    // `total`, so rest moves by exactly −0.88 × 40 MiB = −35.2 MiB (±0.01 MiB).
    let nccl = baseline_with(
        "r3-nccl",
        "free_after_init_gib = 94.04\nfree_after_weights_gib = 21.71\n",
        "",
    );
    let custom =
        std::fs::read_to_string(&nccl)
            .unwrap()
            .replacen("allreduce = \"nccl\"", "allreduce = \"custom\"", 1);
    let custom_path = scratch("r3-custom").join("s.toml");
    std::fs::write(&custom_path, custom).unwrap();
    let a = run_json(&nccl);
    let b = run_json(&custom_path.display().to_string());
    assert_eq!(a["memory"]["total_source"], "modeled");
    let delta_mib = (f(&b["memory"]["rest_gib"]) - f(&a["memory"]["rest_gib"])) * 1024.0;
    assert!((delta_mib + 0.88 * 40.0).abs() < 0.01, "{delta_mib}");
}

#[test]
fn consistency_r4_degraded_nccl_costs_about_30_ms_per_verify_pass() {
    // seed-story R4 (and S1/S2): on the seed box default NCCL stops P2P at PXB, so every ring hop
    // (PHB within a socket, SYS across) goes through host memory (SHM), and the dual-AMD search
    // falls back to the simple order. A 4-token verify pass carries 123 allreduces of 56 KiB
    // (S1: ≈ 122); target ≈ 30 ms of allreduce per pass, ± 20 % (the project's tolerance).
    // CONSISTENCY, not validation: `shm_cross_socket_step_cost` (14 µs) was fitted to S2, the same
    // observation, so R4 is its calibration point (the preset's `[fitted]` entry and
    // book/src/seed-story.md say so). The allreduce count and the transport are engine facts and
    // are checked exactly.
    let j = run_json(&scenario("seed/baseline.toml"));
    let c = &j["collectives"];
    assert_eq!(c["transport"], "shm");
    assert_eq!(c["allreduces_per_pass"], 123);
    let ms = f(&c["verify_pass_allreduce_ms"]);
    assert!((24.0..=36.0).contains(&ms), "{ms} ms per verify pass");
    assert_eq!(j["bottleneck"], "collective");
    // The report owns up to it: the SHM ring's fitted constants are the ones this prediction used
    // (no Simple-step or channel constant: those apply to P2P hops only).
    let fitted: Vec<&str> = j["fitted_constants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        fitted,
        ["shm_copy_bw", "shm_cross_socket_step_cost", "shm_step_cost"]
    );
    // Output tok/s of the baseline with EAGLE-3: S7 saw the custom allreduce's 38 tok/s run "more than
    // 2× slower than NCCL", so this NCCL case ran above 76 tok/s: a lower bound, held to the project's
    // ±20 % (≥ 60.8 tok/s; 72.1 predicted). Consistency too: its allreduce time rests on the S2 fit.
    let tok_s = f(&j["throughput"]["output_tok_s"]);
    assert!(tok_s >= 0.8 * 76.0, "{tok_s} tok/s, below 0.8 × S7's 76");
}

#[test]
fn r5_p2p_allreduce_is_17_to_30_us_on_a_switch_box() {
    // seed-story R5: with NCCL on P2P (a switch topology, NCCL_P2P_LEVEL=SYS) an allreduce of
    // 14–115 KB takes 17–30 µs on 8× RTX PRO 6000.
    let o = tpsim(&[
        "collective",
        "--hardware",
        "rtx-pro-6000-8x-2switch-trpro",
        "--sizes",
        "14336,57344,114688",
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    for row in j["rows"].as_array().unwrap() {
        let us = f(&row["time_us"]);
        assert!((17.0..=30.0).contains(&us), "{row}");
        assert_eq!(row["protocol"], "LL");
    }
    // On the seed box itself P2P cuts the SHM cost but the dual-AMD search still degenerates
    // (pcie-collectives.md: AMD's 16 GB/s inter-socket assumption): between the two.
    let p = run_json(&scenario("seed/nccl-p2p.toml"));
    let b = run_json(&scenario("seed/baseline.toml"));
    assert_eq!(p["collectives"]["transport"], "p2p");
    assert!(f(&p["collectives"]["decode_allreduce_us"]) < f(&b["collectives"]["decode_allreduce_us"]));
    assert!(f(&p["throughput"]["output_tok_s"]) > f(&b["throughput"]["output_tok_s"]));
}

#[test]
fn same_seed_same_bytes_and_seed_only_moves_random_parts() {
    let file = scenario("seed/baseline.toml");
    let a = tpsim(&["run", &file, "--json"]);
    let b = tpsim(&["run", &file, "--json"]);
    assert_eq!(a.code, 0);
    assert_eq!(a.stdout, b.stdout, "same seed must give identical JSON");
    let c = tpsim(&["run", &file, "--json", "--seed", "7"]);
    let (ja, jc): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(&a.stdout).unwrap(),
        serde_json::from_str(&c.stdout).unwrap(),
    );
    // Only the acceptance draws are random: memory and collective costs may not move.
    assert_eq!(ja["memory"], jc["memory"]);
    assert_eq!(ja["collectives"], jc["collectives"]);
    assert_ne!(
        ja["throughput"]["iterations"], jc["throughput"]["iterations"],
        "different seeds should draw differently"
    );
    // A scenario without speculation draws nothing: any seed gives the same bytes.
    let text = std::fs::read_to_string(&file).unwrap();
    let (head, tail) = text.split_at(text.find("[speculative]").unwrap());
    let nospec = scratch("nospec").join("s.toml");
    std::fs::write(
        &nospec,
        format!("{head}{}", &tail[tail.find("[workload]").unwrap()..]),
    )
    .unwrap();
    let nospec = nospec.display().to_string();
    let x = tpsim(&["run", &nospec, "--json", "--seed", "1"]);
    let y = tpsim(&["run", &nospec, "--json", "--seed", "2"]);
    assert_eq!(x.code, 0, "{}", x.stderr);
    let strip = |s: &str| s.replace("\"seed\": 1", "").replace("\"seed\": 2", "");
    assert_eq!(strip(&x.stdout), strip(&y.stdout));
}

#[test]
fn trace_is_valid_chrome_json() {
    let dir = scratch("trace");
    let file = dir.join("run.trace.json");
    let o = tpsim(&[
        "run",
        &scenario("seed/baseline.toml"),
        "--trace",
        &file.display().to_string(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let t: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&file).unwrap()).expect("trace parses as JSON");
    let ev = t["traceEvents"].as_array().expect("traceEvents array");
    let complete: Vec<_> = ev.iter().filter(|e| e["ph"] == "X").collect();
    assert!(complete.len() > 1000, "{} events", complete.len());
    for e in &complete {
        assert!(f(&e["ts"]) >= 0.0 && f(&e["dur"]) >= 0.0);
        assert!(e["pid"].is_u64() && e["tid"].is_u64() && e["name"].is_string());
    }
    let names: Vec<&str> = ev
        .iter()
        .filter(|e| e["ph"] == "M")
        .filter_map(|e| e["args"]["name"].as_str())
        .collect();
    assert!(names.iter().any(|n| n.contains("GPU 0")), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.contains("host") || n.contains("scheduler")),
        "{names:?}"
    );
    // One track per GPU stream (8 GPUs) and the host, plus one per link with traffic.
    let mut pids: Vec<u64> = complete
        .iter()
        .filter(|e| e["cat"] != "link")
        .map(|e| e["pid"].as_u64().unwrap())
        .collect();
    pids.sort_unstable();
    pids.dedup();
    assert_eq!(pids.len(), 9, "{pids:?}");
    let link_events: Vec<_> = complete.iter().filter(|e| e["cat"] == "link").collect();
    assert!(!link_events.is_empty(), "collectives load links");
    assert!(
        link_events
            .iter()
            .all(|e| e["args"]["bytes"].as_u64().unwrap() > 0)
    );
    assert!(names.iter().any(|n| n.starts_with("link GPU0→")), "{names:?}");
}

#[test]
fn validate_accepts_every_bundled_scenario() {
    let mut n = 0;
    for dir in ["seed", "examples"] {
        let mut files: Vec<_> = std::fs::read_dir(scenario(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for p in files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        {
            let o = tpsim(&["validate", &p.display().to_string()]);
            assert_eq!(o.code, 0, "{}: {}", p.display(), o.stderr);
            assert!(o.stdout.contains(": ok"), "{}", o.stdout);
            n += 1;
        }
    }
    assert!(n >= 6, "{n} scenarios");
}

#[test]
fn every_bundled_model_preset_loads_through_a_scenario() {
    // Parses each preset's config.json and quant.toml the way a user's scenario does (tp 1 divides
    // everything; the memory verdict does not matter to `validate`).
    for name in tpsim::presets::names("model") {
        let from = "[model]\npreset = \"kimi-k2.5\"";
        let file = baseline_with(
            &format!("preset-{name}"),
            from,
            &format!("[model]\npreset = \"{name}\""),
        );
        let text = std::fs::read_to_string(&file)
            .unwrap()
            .replacen("tp = 8", "tp = 1", 1);
        let text = text.replacen("[speculative]", "[speculative_unused]", 1);
        let text =
            text[..text.find("[speculative_unused]").unwrap()].to_string() + "[workload]\nconcurrency = 1\n";
        std::fs::write(&file, text.clone()).unwrap();
        let mut o = tpsim(&["validate", &file]);
        // fam (issue #16): a preset SGLang cannot serve (LLaVA-NeXT) is refused with "(use vllm)";
        // it must then load under vLLM. families17: dense ERNIE-4.5 under transformers' name is
        // refused with "(use vllm 0.10.1 or later, …)".
        // families22: a preset SGLang ships only after the default release (LFM2: SGLang 0.5.9,
        // the default 0.5.8) is refused with "(set a later engine.version)"; it must load under vLLM.
        let sglang_refusal = o.stderr.clone();
        if refused_for_vllm(&o) {
            let vllm = text[..text.find("[engine]").unwrap()].to_string()
                + "[engine]\nname = \"vllm\"\ntp = 1\n[workload]\nconcurrency = 1\n";
            std::fs::write(&file, vllm).unwrap();
            o = tpsim(&["validate", &file]);
        }
        // families28: a preset SGLang serves only after the default release and tpsim does not model
        // under vLLM (Step-3.5-Flash: "(use sglang, from 0.5.9)") must load under that release, its
        // memory era stated (as 0.5.9 requires until the release's era is known).
        if o.code == 2
            && let Some(v) = o
                .stderr
                .split("(use sglang, from ")
                .nth(1)
                .and_then(|r| r.split(')').next())
        {
            let sglang = text.replacen(
                "[engine]\n",
                &format!("[engine]\nversion = \"{v}\"\ncosts.era = \"late-2025\"\n"),
                1,
            );
            std::fs::write(&file, sglang).unwrap();
            o = tpsim(&["validate", &file]);
        }
        // families36: a preset neither default release serves (Hy3: SGLang from 0.5.11, vLLM from
        // 0.20.0) is refused under vLLM with "(vLLM registers it from V)"; it must load under V.
        if o.code == 2
            && let Some(v) = o
                .stderr
                .split("(vLLM registers it from ")
                .nth(1)
                .and_then(|r| r.split(')').next())
        {
            let text = std::fs::read_to_string(&file).unwrap();
            let later = text.replacen("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"), 1);
            std::fs::write(&file, later).unwrap();
            o = tpsim(&["validate", &file]);
        }
        // families40: a preset both default releases lack and vLLM serves only at tp 8 (MiMo-V2.5-Pro's
        // fused q/k/v: "(vLLM adds it in 0.21.0)", then refused below tp 8) must load under the SGLang
        // release its first refusal names ("(SGLang adds it in 0.5.11)").
        if o.code == 2
            && let Some(v) = sglang_refusal
                .split("(SGLang adds it in ")
                .nth(1)
                .and_then(|r| r.split(')').next())
        {
            let later = text.replacen("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"), 1);
            std::fs::write(&file, later).unwrap();
            o = tpsim(&["validate", &file]);
        }
        // families6: a preset whose config has no max_position_embeddings (Hunyuan-A13B's public
        // copies) is refused until the scenario states the context; it must then load.
        if o.code == 2 && o.stderr.contains("set engine.context_length") {
            let text = std::fs::read_to_string(&file).unwrap();
            let with_context = text.replacen("[engine]\n", "[engine]\ncontext_length = 32768\n", 1);
            assert_ne!(
                with_context, text,
                "{name}: no [engine] table to add the context to"
            );
            std::fs::write(&file, with_context).unwrap();
            o = tpsim(&["validate", &file]);
        }
        // release52: at SGLang 0.5.9, the default release since, EXAONE 4 is served but its
        // `server_args.py` check requires one of the backends it names; with `triton` it must load.
        if o.code == 2 && o.stderr.contains("set engine.attention_backend to one of them") {
            let text = std::fs::read_to_string(&file).unwrap();
            let with_backend = text.replacen("[engine]\n", "[engine]\nattention_backend = \"triton\"\n", 1);
            std::fs::write(&file, with_backend).unwrap();
            o = tpsim(&["validate", &file]);
        }
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
    }
    assert!(tpsim::presets::names("model").len() >= 6);
}

#[test]
fn forcing_custom_allreduce_on_pcie_is_flagged() {
    // engine-memory.md: stock SGLang refuses the custom allreduce for > 2 PCIe-only GPUs; the seed's
    // custom-ar run forced it with a local patch (S6), and the report must say so.
    let j = run_json(&scenario("seed/custom-ar.toml"));
    let w = j["collectives"]["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 1);
    assert!(
        w[0].as_str().unwrap().contains("more than two PCIe-only GPUs"),
        "{w:?}"
    );
    assert_eq!(j["collectives"]["decode_algorithm"], "custom one-shot");
    let b = run_json(&scenario("seed/baseline.toml"));
    assert!(b["collectives"]["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn breakdowns_sum_to_the_iteration_and_the_floor_is_below_the_prediction() {
    let j = run_json(&scenario("seed/baseline.toml"));
    let mean = f(&j["throughput"]["mean_iteration_ms"]);
    let by_cat: f64 = j["breakdown"].as_object().unwrap().values().map(f).sum();
    let by_op: f64 = j["breakdown_by_op"].as_object().unwrap().values().map(f).sum();
    // Both are critical-path decompositions of the same makespans (integer ps, summed then divided).
    assert!((by_cat - mean).abs() < 1e-6, "{by_cat} vs {mean}");
    assert!((by_op - mean).abs() < 1e-6, "{by_op} vs {mean}");
    // Seed-story R4 again, from the op view: allreduces dominate the baseline's iteration.
    let ar = f(&j["breakdown_by_op"]["allreduce"]);
    assert!(ar > 0.5 * mean, "{ar} of {mean}");
    // Floor: 5.62 GiB weights + KV at 1.79 TB/s ≈ 3.4 ms, below the prediction.
    let fl = &j["floor"];
    assert!((3.0..4.0).contains(&f(&fl["memory_floor_ms_per_step"])), "{fl}");
    assert!(f(&fl["gap"]) >= 1.0);
    assert!(f(&fl["tpot_ms"]) <= f(&j["throughput"]["tpot_ms"]) * 3.0);
}

#[test]
fn best_spec_searches_the_chain_depth() {
    let o = tpsim(&["run", &scenario("seed/nccl-p2p.toml"), "--best-spec", "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let b: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let cands = b["candidates"].as_array().unwrap();
    assert_eq!(cands.len(), 8);
    let best = f(&b["best"]["output_tok_s"]);
    assert!(cands.iter().all(|c| f(&c["output_tok_s"]) <= best));
    // The steps = 3 candidate is the scenario itself (same seed, same draws).
    let own = run_json(&scenario("seed/nccl-p2p.toml"));
    let three = cands.iter().find(|c| c["num_steps"] == 3).unwrap();
    assert_eq!(three["output_tok_s"], own["throughput"]["output_tok_s"]);
    assert_eq!(own["collectives"]["allreduces_per_verify_pass"], 123);
    // Plain decode has nothing to search.
    let text = std::fs::read_to_string(scenario("seed/baseline.toml")).unwrap();
    let (head, tail) = text.split_at(text.find("[speculative]").unwrap());
    let p = scratch("best-spec").join("s.toml");
    std::fs::write(&p, format!("{head}{}", &tail[tail.find("[workload]").unwrap()..])).unwrap();
    let o = tpsim(&["run", &p.display().to_string(), "--best-spec"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("[speculative]"), "{}", o.stderr);
}

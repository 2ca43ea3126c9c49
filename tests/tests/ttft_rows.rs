//! Light-load TTFT under SGLang, eager prefill against piecewise CUDA graphs (issue #18 fidelity,
//! pcgttft): the rows of `tests/data/ttft.tsv` that publish one run with `--enable-piecewise-cuda-graph`
//! and one without, and the SGLang-cookbook concurrency-1 rows of `tests/data/throughput.tsv`
//! (lines 213-229, "median TTFT" in the notes), decomposed.
//!
//! tpsim's SGLang prefill is eager (`decode::prefill_is_eager`): each modelled kernel costs the host
//! `engine.costs.launch_overhead` (31.7 µs, `engines/sglang.toml`, derived from the GPT-2 rows of
//! `eager-host.tsv`), serialised; with `engine.enable_piecewise_cuda_graph` the prefill replays graphs
//! and pays no launches. Every row here is out of sample: nothing was fitted to `ttft.tsv` or to the
//! cookbook TTFTs. Each compared figure is held to [`TARGET`] or listed in [`KNOWN_MISSES`] with its
//! decomposition; the test fails when a listed miss comes within the target and when an unlisted one
//! leaves it. `cargo test -p tpsim-tests --test integration ttft_rows:: -- --nocapture` prints the
//! tables of book/src/validation.md ("Light-load TTFT: eager prefill against piecewise graphs").

use crate::common::*;

/// The project's target: |predicted ÷ measured − 1| ≤ 20 % (book/src/validation.md).
const TARGET: f64 = 0.20;

/// (line of ttft.tsv, scenario under `scenarios/validation/ttft/`, label). Lines 2-5 compare the
/// eager and the piecewise TTFT each; line 6 (a scheduler "forward cost", GPU not named) compares
/// the difference eager − graph, the host's share, which the GPU sets less.
const ROWS: &[(usize, &str, &str)] = &[
    (
        2,
        "llama31-8b-fp8-h200x8-sglang-tp8-in1024-c1.toml",
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 1",
    ),
    (
        3,
        "llama31-8b-fp8-h200x8-sglang-tp8-in1024-c4.toml",
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 4",
    ),
    (
        4,
        "llama31-8b-fp8-h200x8-sglang-tp8-in1024-c16.toml",
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 16",
    ),
    (
        5,
        "llama31-8b-fp8-h200x8-sglang-tp8-in1024-c32.toml",
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 32",
    ),
    (
        6,
        "dsv3-h200x8-sglang-tp8-extend1.toml",
        "DeepSeek-V3 FP8, TP 8, 1-token extend",
    ),
];

/// Compared figures outside [`TARGET`], each with its decomposition (book/src/validation.md).
const KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 1 eager",
        "11.35 ms = 0.4 ms of scheduler and sync + 356 host launches (embed, 32 × 9 layer kernels, lm head, 66 collective calls: 65 allreduces and the logits all-gather) at 31.7 µs; the GPU needs 5.2 ms. The piecewise run measured 19.66 ms, so ≈ 14 ms of the measured TTFT lie outside the forward (front end, scheduler, first-token return), not modelled under SGLang",
    ),
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 1 piecewise",
        "5.61 ms of GPU work and scheduler; the measured 19.66 ms leave ≈ 14 ms per request outside the forward that tpsim does not model under SGLang (engines/sglang.toml: the front end is not modelled)",
    ),
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 4 eager",
        "tpsim's 4 × 1024-token prefill is GPU-bound (19.9 ms), so the launches are hidden and eager = piecewise; measured: 59.62 vs 48.53 ms, the host still costs 11.1 ms",
    ),
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 4 piecewise",
        "as the eager row: the per-request time outside the forward (≈ 14 ms at c 1) and queueing behind it",
    ),
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 16 eager",
        "GPU-bound in tpsim (eager = piecewise = 54.99 ms mean); measured 102.75 ms eager, 82.23 ms piecewise",
    ),
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 16 piecewise",
        "GPU-bound in tpsim (54.99 ms mean); the measured 82.23 ms carry the per-request front-end time",
    ),
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 32 eager",
        "GPU-bound in tpsim (91.64 ms mean); measured 151.42 ms",
    ),
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 32 piecewise",
        "GPU-bound in tpsim (91.64 ms mean); measured 138.94 ms: the front-end time and the queueing behind it",
    ),
    (
        "DeepSeek-V3 FP8, TP 8, 1-token extend eager − graph",
        "tpsim: 50.09 − 7.42 = 42.67 ms of host launches beyond the GPU work (1,576 launches, 25.8 a layer at 31.7 µs); measured 82.64 − 23.10 = 59.54 ms, 976 µs a layer: ≈ 36 launches a layer at 31.7 µs (prefill_rows.rs counts ≈ 63 device launches a MoE layer in SGLang 0.4.5's MLA extend path, some of them on fused paths since)",
    ),
];

/// The measured (eager, piecewise) figures (ms) of ttft.tsv line `line` (1 = header).
fn measured(line: usize) -> (f64, f64) {
    let t = read_tsv(&data_path("ttft.tsv"));
    let r = &t.rows[line - 2];
    let num = |c: &str| -> f64 {
        r.get(t.col(c))
            .parse()
            .unwrap_or_else(|_| panic!("ttft.tsv line {line}: {c}"))
    };
    (num("eager_ms"), num("pcg_ms"))
}

/// Runs `text` (a scenario) with `engine.enable_piecewise_cuda_graph` when `pcg` and with
/// `engine.costs.launch_overhead` = `launch_us` µs when given.
fn run_variant(name: &str, text: &str, pcg: bool, launch_us: Option<f64>) -> serde_json::Value {
    let mut s = text.to_string();
    if pcg {
        assert!(s.contains("\n[engine]\n"), "{name}: no [engine] table");
        s = s.replacen(
            "\n[engine]\n",
            "\n[engine]\nenable_piecewise_cuda_graph = true\n",
            1,
        );
    }
    if let Some(us) = launch_us {
        let line = format!("launch_overhead = \"{us}us\"\n");
        s = if s.contains("\n[engine.costs]\n") {
            s.replacen("\n[engine.costs]\n", &format!("\n[engine.costs]\n{line}"), 1)
        } else {
            assert!(s.contains("\n[workload]\n"), "{name}: no [workload] table");
            s.replacen(
                "\n[workload]\n",
                &format!("\n[engine.costs]\n{line}\n[workload]\n"),
                1,
            )
        };
    }
    static CALL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("tpsim-ttft-{}-{n}-{name}", std::process::id()));
    std::fs::write(&p, s).expect("write scenario");
    let v = run_json(&p.display().to_string());
    let _ = std::fs::remove_file(&p);
    v
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(scenario(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Holds `ratio` to the target or to its listed miss; returns the verdict column.
fn judge(label: &str, ratio: f64, failures: &mut Vec<String>) -> &'static str {
    let within = (ratio - 1.0).abs() <= TARGET;
    let miss = KNOWN_MISSES.iter().any(|(l, _)| *l == label);
    match (within, miss) {
        (true, true) => {
            failures.push(format!(
                "{label}: now within ±20 % (ratio {ratio:.3}): remove it from KNOWN_MISSES and the book"
            ));
            "within ±20 %"
        }
        (false, false) => {
            failures.push(format!(
                "{label}: ratio {ratio:.3}, outside ±20 % and not a known miss"
            ));
            "MISS"
        }
        (true, false) => "within ±20 %",
        (false, true) => "known miss",
    }
}

#[test]
fn ttft_rows_eager_and_piecewise_within_target_or_known_miss() {
    let mut failures = Vec::new();
    for &(line, file, label) in ROWS {
        let text = read(&format!("validation/ttft/{file}"));
        let (me, mp) = measured(line);
        let (ve, vp) = (
            run_variant(file, &text, false, None),
            run_variant(file, &text, true, None),
        );
        if line == 6 {
            // One forward of one prompt: tpsim's prefill time of its single prefill iteration.
            assert_eq!(ve["serving"]["prefill_iterations"], 1, "{file}");
            let (pe, pp) = (
                f(&ve["throughput"]["prefill_time_ms"]),
                f(&vp["throughput"]["prefill_time_ms"]),
            );
            let ratio = (pe - pp) / (me - mp);
            let l = format!("{label} eager − graph");
            let v = judge(&l, ratio, &mut failures);
            println!(
                "ttft.tsv line {line} | {l} | measured {me:.2} − {mp:.2} = {:.2} ms | tpsim {pe:.2} − {pp:.2} = {:.2} ms | ratio {ratio:.3} | {v}",
                me - mp,
                pe - pp
            );
            continue;
        }
        // bench_serving's mean TTFT against tpsim's.
        for (what, m, v) in [("eager", me, &ve), ("piecewise", mp, &vp)] {
            let p = f(&v["serving"]["ttft_ms"]["mean"]);
            let ratio = p / m;
            let l = format!("{label} {what}");
            let verdict = judge(&l, ratio, &mut failures);
            println!(
                "ttft.tsv line {line} | {l} | measured {m:.2} ms | tpsim {p:.2} ms | ratio {ratio:.3} | {verdict}"
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The hand count behind the decomposition: SGLang's eager prefill of Llama-3.1-8B (bf16, TP 1, one
/// 16-token prompt, host-bound) launches the embedding, 32 layers × (attention: fused add+RMSNorm,
/// qkv_proj, rotary, attention, o_proj = 5; MLP: fused add+RMSNorm, gate_up, SiluAndMul, down = 4)
/// and the LM head: 1 + 32 × 9 + 1 = 290 kernels, no collective at TP 1. So raising
/// `launch_overhead` from 100 µs to 200 µs adds 290 × 100 µs = 29.0 ms to the prefill time
/// (to ±0.05 ms: half a kernel's 100 µs). Between 31.7 and 63.4 µs the slope is 289: the LM head's
/// launch then hides under the last layer's GPU work, so the slope is taken where every launch is on
/// the critical path.
#[test]
fn llama_eager_prefill_launches_290_kernels_by_hand() {
    let text = "seed = 1\n\n[hardware]\npreset = \"h200-8x-nvlink\"\n\n[model]\npreset = \"llama-3.1-8b\"\n\n\
                [engine]\nname = \"sglang\"\nversion = \"0.5.5\"\ntp = 1\n\n\
                [workload]\nconcurrency = 1\nnum_requests = 1\nprompt_len = 16\noutput_len = 1\n";
    let t =
        |us: f64| f(&run_variant("llama-hand.toml", text, false, Some(us))["throughput"]["prefill_time_ms"]);
    let slope_ms = t(200.0) - t(100.0);
    let hand_ms: f64 = (1.0 + 32.0 * (5.0 + 4.0) + 1.0) * 0.100;
    assert!((hand_ms - 29.0).abs() < 1e-9);
    assert!(
        (slope_ms - hand_ms).abs() <= 0.05,
        "100 µs more per launch moved the prefill by {slope_ms:.3} ms, expected {hand_ms:.1} ms (290 launches)"
    );
    // With piecewise graphs nothing is launched per kernel: the launch cost no longer matters.
    let g =
        |us: f64| f(&run_variant("llama-hand.toml", text, true, Some(us))["throughput"]["prefill_time_ms"]);
    assert!(
        (g(200.0) - g(100.0)).abs() < 1e-6,
        "piecewise prefill moved with launch_overhead"
    );
}

/// The SGLang cookbook's concurrency-1 rows (throughput.tsv; every one a known miss on TTFT): tpsim's
/// eager TTFT is host-bound, the same for every prompt length, ≈ launches × 31.7 µs. The launches are
/// counted as the slope of tpsim's median TTFT between `launch_overhead` 100 and 200 µs; the
/// measured median TTFT (notes column) against it gives the host time missing per layer.
#[test]
fn cookbook_c1_ttft_decomposed_per_layer() {
    // (throughput.tsv line, scenario under scenarios/validation/, model preset)
    const C1: &[(usize, &str, &str)] = &[
        (
            213,
            "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c1.toml",
            "minimax-m2.5",
        ),
        (
            216,
            "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c1.toml",
            "minimax-m2.5",
        ),
        (219, "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml", "glm-4.6"),
        (
            222,
            "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
            "qwen3-235b-a22b-instruct-2507",
        ),
        (
            225,
            "qwen3-next-80b-a3b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
            "qwen3-next-80b-a3b",
        ),
        (
            226,
            "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c1.toml",
            "qwen3-next-80b-a3b",
        ),
        (
            229,
            "gpt-oss-120b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
            "gpt-oss-120b",
        ),
    ];
    let t = read_tsv(&data_path("throughput.tsv"));
    let mut failures = Vec::new();
    for &(line, file, preset) in C1 {
        let notes = t.rows[line - 2].get(t.col("notes")).to_string();
        let m: f64 = notes
            .split("median TTFT ")
            .nth(1)
            .and_then(|s| s.split(" ms").next())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("throughput.tsv line {line}: no median TTFT in the notes"));
        let cfg: serde_json::Value =
            serde_json::from_str(&read(&format!("models/{preset}/config.json"))).unwrap();
        let layers = cfg["num_hidden_layers"]
            .as_f64()
            .or_else(|| cfg["text_config"]["num_hidden_layers"].as_f64())
            .expect("num_hidden_layers");
        // One output token each: at concurrency 1 every prefill runs on an idle box, so the TTFT does
        // not depend on the outputs (and the host-bound eager TTFT not on the prompt either); the
        // runs take seconds instead of minutes.
        let text = read(&format!("validation/{file}"));
        let at = text.find("\n[workload]\n").expect("[workload]");
        let (head, work) = text.split_at(at);
        let work: String = work
            .lines()
            .map(|l| {
                if l.starts_with("output_len") {
                    "output_len = 1"
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let text = format!("{head}{work}\n");
        let p50 =
            |pcg: bool, us: Option<f64>| f(&run_variant(file, &text, pcg, us)["serving"]["ttft_ms"]["p50"]);
        let (eager, pcg) = (p50(false, None), p50(true, None));
        let launches = (p50(false, Some(200.0)) - p50(false, Some(100.0))) / 0.100;
        // Host-bound: the launches at 31.7 µs make up tpsim's eager TTFT but for the scheduler's
        // few hundred µs (host_overhead 0.3 ms, syncs) and the GPU tail after the last launch.
        let host_ms = launches * 0.0317;
        assert!(
            eager >= host_ms && eager <= host_ms + 2.0,
            "{file}: eager TTFT {eager:.2} ms is not the {launches:.0} launches' {host_ms:.2} ms (+ ≤ 2 ms)"
        );
        let ratio = eager / m;
        let missing_us = (m - eager) / layers * 1e3;
        let verdict = if (ratio - 1.0).abs() <= TARGET {
            failures.push(format!(
                "{file}: TTFT now within ±20 % (ratio {ratio:.3}): update the book"
            ));
            "within ±20 %"
        } else {
            "known miss"
        };
        println!(
            "throughput.tsv line {line} | {file} | measured median TTFT {m:.2} ms | tpsim eager {eager:.2} ms (piecewise {pcg:.2}) | ratio {ratio:.3} | {launches:.0} launches, {:.1} a layer of {layers} | missing {missing_us:.0} µs a layer | {verdict}",
            launches / layers
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

//! Light-load TTFT under SGLang, eager prefill against piecewise CUDA graphs (issue #18 fidelity,
//! pcgttft): the rows of `tests/data/ttft.tsv` that publish one run with `--enable-piecewise-cuda-graph`
//! and one without, and the SGLang-cookbook concurrency-1 rows of `tests/data/throughput.tsv`
//! (lines 213-229, "median TTFT" in the notes), decomposed.
//!
//! tpsim's SGLang prefill is eager (`decode::prefill_is_eager`): each modelled kernel costs the host
//! `engine.costs.launch_overhead` (31.7 µs, `engines/sglang.toml`, derived from the GPT-2 rows of
//! `eager-host.tsv`), serialised; with `engine.enable_piecewise_cuda_graph` the prefill replays graphs
//! and pays only the launches outside them (pcglaunch18: piece replays, the attention op, split
//! allreduces, by release; `decode::passes::sgl_prefill_launch`). Every row here is out of sample: nothing was fitted to `ttft.tsv` or to the
//! cookbook TTFTs. Each compared figure is held to [`TARGET`] or listed in [`KNOWN_MISSES`] with its
//! decomposition; the test fails when a listed miss comes within the target and when an unlisted one
//! leaves it. `cargo test -p tpsim-tests --test integration ttft_rows:: -- --nocapture` prints the
//! tables of book/src/validation.md ("Light-load TTFT: eager prefill against piecewise graphs").

use crate::common::*;

/// The project's target: |predicted ÷ measured − 1| ≤ 20 % (book/src/validation.md).
const TARGET: f64 = 0.20;

/// (line of ttft.tsv, scenario under `scenarios/validation/ttft/`, label). Lines 2-5 compare the
/// eager and the piecewise TTFT each; line 6 (a scheduler "forward cost", GPU not named) compares
/// the difference eager − graph, the host's share, which the GPU sets less; line 9 (sglfront) the
/// piecewise median TTFT alone (its eager table was not read: `NA`).
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
    (
        9,
        "kimi-k2-h200x8-sglang-tp8-in1024-c1.toml",
        "Kimi-K2-Instruct-0905 FP8, TP 8, 1024/16, c 1",
    ),
];

/// Compared figures outside [`TARGET`], each with its decomposition (book/src/validation.md).
const KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 1 eager",
        "18.46 ms = 0.4 ms of scheduler and sync + 580 host launches (embed, 32 × 16 layer kernels: the template's 9 + pcglaunch18's 4 FP8 activation quantizations, 2 KV index copies and the q copy; lm head, 66 collective calls: 65 allreduces and the logits all-gather) at 31.7 µs; the GPU needs 5.2 ms. The piecewise run measured 19.66 ms against tpsim's 10.28, so ≈ 9.4 ms of the measured TTFT lie outside what tpsim costs (front end, scheduler, first-token return), not modelled under SGLang",
    ),
    (
        "Llama-3.1-8B FP8, TP 8, 1024/16, c 1 piecewise",
        "10.28 ms: the host chain of 32 layers × (1 replay + 5 attention-op launches + 2 split NCCL allreduces with the replay after each) at 31.7 µs (SGLang 0.5.5, pcglaunch18), ahead of 5.2 ms of GPU work; the measured 19.66 ms leave ≈ 9.4 ms per request outside what tpsim costs under SGLang (engines/sglang.toml: the front end is not modelled)",
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
        "Kimi-K2-Instruct-0905 FP8, TP 8, 1024/16, c 1 piecewise",
        "tpsim's median 55.13 ms is GPU work (the 1,024-token MoE prefill reads nearly every expert) and scheduler, its 8 launches a layer outside the graphs (pcglaunch18) hidden behind it; the measured 92.94 ms leave 37.81 ms, where the Llama-3.1-8B piecewise row leaves 9.38: with 61 layers against 32 no per-request constant ≥ 0 fits both (c + 32 p = 9.38, c + 61 p = 37.81 give p = 0.980 ms a layer, c = −22.0 ms; sglfront, pcglaunch18)",
    ),
    (
        "DeepSeek-V3 FP8, TP 8, 1-token extend eager − graph",
        "tpsim: 52.02 − 7.95 = 44.07 ms of host launches beyond the GPU work (1,637 launches, 26.8 a layer at 31.7 µs, with pcglaunch18's MLA KV store); measured 82.64 − 23.10 = 59.54 ms, 976 µs a layer: ≈ 36 launches a layer at 31.7 µs (prefill_rows.rs counts ≈ 63 device launches a MoE layer in SGLang 0.4.5's MLA extend path, some of them on fused paths since)",
    ),
];

/// The measured (eager, piecewise) figures (ms; `None`: `NA`, not read) of ttft.tsv line `line`
/// (1 = header) and its `measure`.
fn measured(line: usize) -> (Option<f64>, Option<f64>, String) {
    let t = read_tsv(&data_path("ttft.tsv"));
    let r = &t.rows[line - 2];
    let num = |c: &str| -> Option<f64> {
        let v = r.get(t.col(c));
        (v != "NA").then(|| {
            v.parse()
                .unwrap_or_else(|_| panic!("ttft.tsv line {line}: {c} = {v:?}"))
        })
    };
    (
        num("eager_ms"),
        num("pcg_ms"),
        r.get(t.col("measure")).to_string(),
    )
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
    let p = tmp_root().join(format!("tpsim-ttft-{n}-{name}"));
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
        let (me, mp, measure) = measured(line);
        let (ve, vp) = (
            run_variant(file, &text, false, None),
            run_variant(file, &text, true, None),
        );
        if line == 6 {
            let (me, mp) = (me.expect("eager_ms"), mp.expect("pcg_ms"));
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
        // bench_serving's mean (or median) TTFT against tpsim's.
        let stat = match measure.as_str() {
            "mean_ttft" => "mean",
            "median_ttft" => "p50",
            m => panic!("ttft.tsv line {line}: measure {m:?} is not compared"),
        };
        for (what, m, v) in [("eager", me, &ve), ("piecewise", mp, &vp)] {
            let Some(m) = m else { continue };
            let p = f(&v["serving"]["ttft_ms"][stat]);
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

/// The hand count behind the decomposition: SGLang 0.5.5's eager prefill of Llama-3.1-8B (bf16, TP 1,
/// one 16-token prompt, host-bound, FA3 on H200) launches the embedding, 32 layers × (attention: fused
/// add+RMSNorm, qkv_proj, rotary, attention, o_proj = 5, + pcglaunch18's 2 KV index copies and the
/// q copy = 8; MLP: fused add+RMSNorm, gate_up, SiluAndMul, down = 4) and the LM head:
/// 1 + 32 × 12 + 1 = 386 kernels, no collective at TP 1 (bf16: no activation quantization;
/// `decode::passes::sgl_prefill_launch`). So raising `launch_overhead` from 100 µs to 200 µs adds
/// 386 × 100 µs = 38.6 ms to the prefill time (to ±0.05 ms: half a kernel's 100 µs; 290 and 29.0 ms
/// before pcglaunch18). Between 31.7 and 63.4 µs the LM head's launch hides under the last layer's
/// GPU work, so the slope is taken where every launch is on the critical path.
/// With piecewise graphs (0.5.5) each layer launches one piece replay and the attention op (2 KV
/// copies, the q copy, FA3, the op's output copy): 6, no allreduce at TP 1, so 32 × 6 = 192 launches,
/// 19.2 ms (±0.05 ms).
#[test]
fn llama_eager_prefill_launches_386_kernels_by_hand() {
    let text = "seed = 1\n\n[hardware]\npreset = \"h200-8x-nvlink\"\n\n[model]\npreset = \"llama-3.1-8b\"\n\n\
                [engine]\nname = \"sglang\"\nversion = \"0.5.5\"\ntp = 1\n\n\
                [workload]\nconcurrency = 1\nnum_requests = 1\nprompt_len = 16\noutput_len = 1\n";
    let t =
        |us: f64| f(&run_variant("llama-hand.toml", text, false, Some(us))["throughput"]["prefill_time_ms"]);
    let slope_ms = t(200.0) - t(100.0);
    let hand_ms: f64 = (1.0 + 32.0 * (5.0 + 3.0 + 4.0) + 1.0) * 0.100;
    assert!((hand_ms - 38.6).abs() < 1e-9);
    assert!(
        (slope_ms - hand_ms).abs() <= 0.05,
        "100 µs more per launch moved the prefill by {slope_ms:.3} ms, expected {hand_ms:.1} ms (386 launches)"
    );
    // With piecewise graphs only the replays and the attention ops are launched.
    let g =
        |us: f64| f(&run_variant("llama-hand.toml", text, true, Some(us))["throughput"]["prefill_time_ms"]);
    let pcg_ms = 32.0 * 6.0 * 0.100;
    assert!(
        (g(200.0) - g(100.0) - pcg_ms).abs() <= 0.05,
        "piecewise prefill moved by {:.3} ms, expected {pcg_ms:.1} ms (192 launches)",
        g(200.0) - g(100.0)
    );
}

/// The SGLang cookbook's concurrency-1 rows (throughput.tsv; every one a known miss on TTFT): tpsim's
/// eager TTFT is host-bound, the same for every prompt length, ≈ launches × 31.7 µs. The launches are
/// counted as the slope of tpsim's median TTFT between `launch_overhead` 100 and 200 µs; the
/// measured median TTFT (notes column) against it gives the host time missing per layer.
#[test]
fn cookbook_c1_ttft_decomposed_per_layer() {
    cookbook_c1_figures();
}

/// One concurrency-1 TTFT figure: (source, label, measured ms, tpsim ms, decoder layers).
type C1Figure = (&'static str, String, f64, f64, f64);

/// Runs the cookbook rows of [`cookbook_c1_ttft_decomposed_per_layer`], checks and prints each, and
/// returns them as (cookbook page, row, measured median TTFT, tpsim's eager median TTFT, layers).
fn cookbook_c1_figures() -> Vec<C1Figure> {
    // (throughput.tsv line, scenario under scenarios/validation/, model preset, cookbook page)
    const C1: &[(usize, &str, &str, &str)] = &[
        (
            213,
            "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c1.toml",
            "minimax-m2.5",
            "MiniMax-M2.5.md",
        ),
        (
            216,
            "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c1.toml",
            "minimax-m2.5",
            "MiniMax-M2.5.md",
        ),
        (
            219,
            "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
            "glm-4.6",
            "GLM-4.6.md",
        ),
        (
            222,
            "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
            "qwen3-235b-a22b-instruct-2507",
            "Qwen3.md",
        ),
        (
            225,
            "qwen3-next-80b-a3b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
            "qwen3-next-80b-a3b",
            "Qwen3-Next.md",
        ),
        (
            226,
            "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c1.toml",
            "qwen3-next-80b-a3b",
            "Qwen3-Coder-Next.md",
        ),
        (
            229,
            "gpt-oss-120b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
            "gpt-oss-120b",
            "GPT-OSS.md",
        ),
    ];
    let t = read_tsv(&data_path("throughput.tsv"));
    let mut failures = Vec::new();
    let mut out = Vec::new();
    for &(line, file, preset, page) in C1 {
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
        // few hundred µs (host_overhead 0.3 ms, syncs), the GPU tail after the last launch, and
        // (sglfront60) SGLang's request path outside the scheduler, 9.54 − 2 × 2.94 = 3.66 ms
        // (`serve::sglang_front`), which a request that reaches the scheduler during the previous
        // request's last step partly hides.
        let host_ms = launches * 0.0317;
        let path_ms = 9.54 - 2.0 * 2.94;
        assert!(
            eager >= host_ms && eager <= host_ms + path_ms + 2.0,
            "{file}: eager TTFT {eager:.2} ms is not the {launches:.0} launches' {host_ms:.2} ms (+ the {path_ms:.2} ms request path + ≤ 2 ms)"
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
        out.push((page, format!("throughput.tsv line {line}"), m, eager, layers));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    out
}

/// tpsim's piecewise TTFT (ms, `stat` of the scenario's serving TTFT) of `validation/ttft/{file}`.
fn piecewise_ttft(file: &str, stat: &str) -> f64 {
    let text = read(&format!("validation/ttft/{file}"));
    f(&run_variant(file, &text, true, None)["serving"]["ttft_ms"][stat])
}

/// sglfront: the two piecewise rows of two models separate a per-request time from a per-layer one.
/// Under `--enable-piecewise-cuda-graph` tpsim charges the prefill the launches outside the graphs
/// (pcglaunch18, `decode::passes::sgl_prefill_launch`), so what the measured TTFT leaves beyond
/// tpsim's is time outside what tpsim costs. By hand, from ttft.tsv lines 2 and 9 and tpsim's
/// figures (±0.05 ms):
/// Llama-3.1-8B FP8 (32 layers): 19.66 − 13.945 = 5.715 ms (means; 5.61 before pcglaunch18: the
/// host-bound chain of 32 × (6 + 2 × 2) launches and replays at 31.7 µs is 10.14 ms; 9.375 before
/// sglttft59 added SGLang's overlap-scheduler first-token delay, 10.285 → 11.874 ms; 7.786 before
/// sglfront60's 3.66 ms request path, 11.874 → 13.945 ms);
/// Kimi-K2-Instruct-0905 (61 layers): 92.937 − 65.398 = 27.539 ms (medians; its 8 launches a layer
/// hide behind its GPU work; kimitok54: SGLang's detokenizer job for the first token, 11 ids ×
/// 9.087 µs = 0.10 ms, `serve::detok`; 55.23 before sglttft59; sglfront60's request path leaves its
/// median where it was: each next request reaches the scheduler during the step it waited for anyway;
/// 62.51 before moeroute62: SGLang 0.5.5 routes Kimi-K2's 384 experts through
/// `biased_grouped_topk_impl`, 8 launches more in each of the 60 MoE layers, 2.888 ms).
/// A per-request constant c and a per-layer time p: c + 32 p = 5.715, c + 61 p = 27.539, so
/// p = 21.824 / 29 = 0.7526 ms and c = 5.715 − 32 × 0.7526 = −18.37 ms: no per-request
/// constant ≥ 0 fits both. One parameter fitted to Llama predicts Kimi at 65.398 + 5.715 = 71.11 ms
/// as a constant (−23.5 %) and at 65.398 + 61 × 5.715 / 32 = 76.29 ms per layer (−17.9 %)
/// (before moeroute62: p 0.852, c −21.55 ms, −26.6 and −21.0 %; before sglfront60: p 0.781,
/// c −17.19 ms, −24.4 and −16.8 %).
/// Tolerances: ±0.01 ms on p, ±0.3 ms on c (the ±0.05 ms of the inputs), ±0.2 points on the errors.
#[test]
fn piecewise_pairs_of_two_models_fit_no_per_request_constant() {
    let (_, llama_m, _) = measured(2);
    let (_, kimi_m, _) = measured(9);
    let (llama_m, kimi_m) = (llama_m.unwrap(), kimi_m.unwrap());
    let llama_t = piecewise_ttft("llama31-8b-fp8-h200x8-sglang-tp8-in1024-c1.toml", "mean");
    let kimi_t = piecewise_ttft("kimi-k2-h200x8-sglang-tp8-in1024-c1.toml", "p50");
    assert!(
        (llama_t - 13.945).abs() <= 0.05,
        "Llama piecewise TTFT {llama_t:.3} ms, hand 13.945"
    );
    assert!(
        (kimi_t - 65.398).abs() <= 0.05,
        "Kimi piecewise TTFT {kimi_t:.3} ms, hand 65.398"
    );
    let (gl, gk) = (llama_m - llama_t, kimi_m - kimi_t);
    let p = (gk - gl) / (61.0 - 32.0);
    let c = gl - 32.0 * p;
    assert!(
        (p - 0.7526).abs() <= 0.01,
        "per-layer time {p:.4} ms, hand 0.7526"
    );
    assert!(
        (c + 18.37).abs() <= 0.3,
        "per-request time {c:.3} ms, hand −18.37"
    );
    assert!(
        c < 0.0,
        "a per-request constant ≥ 0 now fits both rows: {c:.2} ms"
    );
    let as_const = (kimi_t + gl) / kimi_m - 1.0;
    let as_layer = (kimi_t + 61.0 * gl / 32.0) / kimi_m - 1.0;
    assert!(
        (as_const + 0.235).abs() <= 0.002,
        "constant: {as_const:.4}, hand −0.235"
    );
    assert!(
        (as_layer + 0.179).abs() <= 0.002,
        "per layer: {as_layer:.4}, hand −0.179"
    );
    println!(
        "Llama gap {gl:.2} ms (32 layers), Kimi gap {gk:.2} ms (61 layers): p = {p:.3} ms a layer, c = {c:.2} ms; \
         Kimi from Llama: constant {:+.1} %, per layer {:+.1} %",
        as_const * 100.0,
        as_layer * 100.0
    );
}

/// c1llama18, then sglfront60: the one public measurement of SGLang's time per request outside the
/// forward at c 1 (frontend-costs.tsv line 6, tenstorrent/tt-inference-server issue 3560: a CPU
/// mock forward of 2.632 ms, median TTFT 9.54 ms, median TPOT 2.94 ms). sglfront60 adopted it as
/// 9.54 − 2 × 2.94 = 3.66 ms of request path outside the scheduler's rounds (the overlap loop: the
/// first token waits two rounds; `serve::sglang_front`); read as one round it would be 9.54 − 2.94 =
/// 6.60 ms, 2.94 ms more, the upper bound. Against the Llama-3.1-8B pair (ttft.tsv line 2; tpsim's
/// means with the 3.66 ms, ±0.05 ms): eager 29.97 − 22.115 = 7.855 ms, piecewise 19.66 − 13.945 =
/// 5.715 ms left (20.04 and 11.874 before sglfront60: at c 1 the path adds 2.07 ms to the mean,
/// the first request 3.66, the others less, the trailing decode step they now wait out in part).
/// Even the upper reading leaves part of both: with its 2.94 ms more the ratios would be
/// (22.115 + 2.94) / 29.97 = 0.836 and (13.945 + 2.94) / 19.66 = 0.859. Tolerance ±0.005 on each.
#[test]
fn llama_pair_against_a_measured_sglang_per_request_time() {
    let t = read_tsv(&data_path("frontend-costs.tsv"));
    let r = t.rows.iter().find(|r| r.line == 6).expect("line 6");
    assert_eq!(
        r.get(t.col("source")),
        "https://github.com/tenstorrent/tt-inference-server/issues/3560"
    );
    assert_eq!(r.get(t.col("quantity")), "median_ttft");
    let ttft: f64 = r.get(t.col("value")).parse().unwrap();
    // The mock's median TPOT, one scheduler round (`serve::sglang_front::MOCK_TPOT_PS`).
    let tpot = tpsim::serve::sglang_front::MOCK_TPOT_PS as f64 * 1e-9;
    let (adopted, upper) = (ttft - 2.0 * tpot, ttft - tpot);
    assert!(
        (adopted - 3.66).abs() < 1e-9 && (upper - 6.60).abs() < 1e-9,
        "{adopted} {upper}"
    );
    let extra = upper - adopted;
    let (me, mp, _) = measured(2);
    let (me, mp) = (me.unwrap(), mp.unwrap());
    let file = "llama31-8b-fp8-h200x8-sglang-tp8-in1024-c1.toml";
    let te = f(
        &run_variant(file, &read(&format!("validation/ttft/{file}")), false, None)["serving"]["ttft_ms"]["mean"],
    );
    let tp = piecewise_ttft(file, "mean");
    assert!((te - 22.115).abs() <= 0.05, "eager TTFT {te:.3} ms, hand 22.115");
    assert!(
        (tp - 13.945).abs() <= 0.05,
        "piecewise TTFT {tp:.3} ms, hand 13.945"
    );
    for (m, t, label) in [(me, te, "eager"), (mp, tp, "piecewise")] {
        assert!(
            m - t > extra,
            "{label}: {:.2} ms left, the upper reading's {extra:.2} ms more",
            m - t
        );
    }
    let ratios = [(te + extra) / me, (tp + extra) / mp];
    for (got, hand) in ratios.iter().zip([0.836, 0.859]) {
        assert!((got - hand).abs() <= 0.005, "{ratios:?}");
    }
}

/// The candidates' fit, relative least squares: `a` minimises Σ ((t + a x − m) / m)² over the rows,
/// a = Σ (m − t) x / m² ÷ Σ x² / m² (x = 1 for a per-request constant, the layers for a per-layer
/// time; m measured, t tpsim's TTFT).
fn fit_one(rows: &[&C1Figure], x: impl Fn(&C1Figure) -> f64) -> f64 {
    let num: f64 = rows.iter().map(|r| (r.2 - r.3) * x(r) / (r.2 * r.2)).sum();
    let den: f64 = rows.iter().map(|r| x(r) * x(r) / (r.2 * r.2)).sum();
    num / den
}

/// Both at once (c, p): the 2 × 2 normal equations of the same relative least squares.
fn fit_two(rows: &[&C1Figure]) -> (f64, f64) {
    let w = |r: &C1Figure| 1.0 / (r.2 * r.2);
    let (mut a11, mut a12, mut a22, mut b1, mut b2) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for r in rows {
        let (l, d) = (r.4, r.2 - r.3);
        a11 += w(r);
        a12 += l * w(r);
        a22 += l * l * w(r);
        b1 += d * w(r);
        b2 += d * l * w(r);
    }
    let det = a11 * a22 - a12 * a12;
    ((b1 * a22 - b2 * a12) / det, (a11 * b2 - a12 * b1) / det)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// sglfront, issue #18: which missing time do the ten concurrency-1 SGLang TTFTs support, one per
/// request (tokenizer and detokenizer hops, HTTP, scheduler receive) or one per decoder layer (host
/// work each layer, eager or piecewise)? Each candidate is fitted leaving one source out (a PR, or a
/// cookbook page: the two MiniMax rows share one) and predicts that source's rows; the figures are
/// tpsim's current TTFTs plus the fitted time. None is adopted (book/src/validation.md, "Per request
/// or per layer (sglfront)"): the test holds the finding and the book's figures (±0.005 on the
/// medians, ±0.05 ms and ±0.005 ms on the all-row fits).
#[test]
fn c1_ttft_per_request_or_per_layer_leave_one_source_out() {
    let mut rows: Vec<C1Figure> = cookbook_c1_figures();
    let (le, lp, _) = measured(2);
    let llama = "llama31-8b-fp8-h200x8-sglang-tp8-in1024-c1.toml";
    let text = read(&format!("validation/ttft/{llama}"));
    let ve = f(&run_variant(llama, &text, false, None)["serving"]["ttft_ms"]["mean"]);
    rows.push(("PR 13094", "ttft.tsv line 2 eager".into(), le.unwrap(), ve, 32.0));
    rows.push((
        "PR 13094",
        "ttft.tsv line 2 piecewise".into(),
        lp.unwrap(),
        piecewise_ttft(llama, "mean"),
        32.0,
    ));
    let (_, kp, _) = measured(9);
    rows.push((
        "PR 13466",
        "ttft.tsv line 9 piecewise".into(),
        kp.unwrap(),
        piecewise_ttft("kimi-k2-h200x8-sglang-tp8-in1024-c1.toml", "p50"),
        61.0,
    ));
    let mut sources: Vec<&str> = rows.iter().map(|r| r.0).collect();
    sources.dedup();
    let err = |r: &C1Figure, add: f64| (r.3 + add) / r.2 - 1.0;
    let before = median(rows.iter().map(|r| err(r, 0.0).abs()).collect());
    type Cand = (&'static str, fn(&[&C1Figure], &C1Figure) -> f64);
    let cands: [Cand; 3] = [
        ("per request c", |tr, _| fit_one(tr, |_| 1.0)),
        ("per layer p", |tr, r| fit_one(tr, |q| q.4) * r.4),
        ("c + p × layers", |tr, r| {
            let (c, p) = fit_two(tr);
            c + p * r.4
        }),
    ];
    let mut loso = Vec::new();
    for (name, add) in cands {
        let mut errs = Vec::new();
        for s in &sources {
            let train: Vec<&C1Figure> = rows.iter().filter(|r| r.0 != *s).collect();
            for r in rows.iter().filter(|r| r.0 == *s) {
                let e = err(r, add(&train, r));
                println!("  {name} | held out {s} | {} | {:+.1} %", r.1, e * 100.0);
                errs.push(e);
            }
        }
        let within = errs.iter().filter(|e| e.abs() <= TARGET).count();
        let med = median(errs.iter().map(|e| e.abs()).collect());
        println!(
            "{name}: leave-one-source-out median |error| {:.1} %, {within} of {} within ±20 %",
            med * 100.0,
            errs.len()
        );
        loso.push(med);
    }
    let all: Vec<&C1Figure> = rows.iter().collect();
    let (c_all, p_all) = (fit_one(&all, |_| 1.0), fit_one(&all, |q| q.4));
    let (c2, p2) = fit_two(&all);
    println!(
        "before: median |error| {:.1} %; all rows: c = {c_all:.2} ms, p = {p_all:.3} ms a layer; both: c = {c2:.2} ms, p = {p2:.3} ms",
        before * 100.0
    );
    // The book's figures.
    let book = [
        (before, BOOK_BEFORE),
        (loso[0], BOOK_LOSO[0]),
        (loso[1], BOOK_LOSO[1]),
        (loso[2], BOOK_LOSO[2]),
    ];
    for (got, want) in book {
        assert!(
            (got - want).abs() <= 0.005,
            "median |error| {got:.4}, book {want}"
        );
    }
    assert!(
        (c_all - BOOK_FIT[0]).abs() <= 0.05,
        "c {c_all:.3}, book {}",
        BOOK_FIT[0]
    );
    assert!(
        (p_all - BOOK_FIT[1]).abs() <= 0.005,
        "p {p_all:.4}, book {}",
        BOOK_FIT[1]
    );
    // The finding: a per-layer time predicts held-out sources better than a per-request constant,
    // and fitted together the constant comes out negative.
    assert!(
        loso[1] < loso[0],
        "per-layer {:.3} no longer beats per-request {:.3}",
        loso[1],
        loso[0]
    );
    assert!(
        c2 < 0.0,
        "with a per-layer time the per-request constant is now {c2:.2} ms ≥ 0"
    );
}

/// book/src/validation.md, "Per request or per layer (sglfront)", as updated by pcglaunch18 (the
/// launches of `decode::passes::sgl_prefill_launch`; before it 0.611, [0.422, 0.253, 0.190] and
/// c 19.95 ms, p 0.575 ms; after it and before sglttft59's overlap-scheduler first-token delay
/// 0.462, [0.453, 0.277, 0.208], c 15.63 ms, p 0.474 ms; after sglttft59 and before sglfront60's
/// 3.66 ms request path 0.434, [0.463, 0.306, 0.236], c 14.35 ms, p 0.444 ms): median |error| of
/// the ten figures before any fit, and left one source out: per request, per layer, both.
/// sglprefill61 (Qwen3-Next's eager split chain before SGLang 0.5.10, `passes::sgl_gdn_prefill`:
/// lines 225 and 226 +6.85 ms) moves the left-out medians to 0.454, 0.313, 0.209 (inside the 0.005
/// they are held to) and the all-row fit c 11.88 → 11.76 ms, p 0.381 → 0.378 ms. moeroute62 (the
/// MoE routing launches by release, `passes::moe_route`: SGLang ≤ 0.5.10's `biased_grouped_topk_impl`
/// chain for GLM-4.x and Kimi-K2, the router-logit cast above 16 tokens) lengthens the MoE rows'
/// prefills: before 0.374 → 0.359, left out [0.453, 0.316, 0.208] → [0.380, 0.224, 0.225], the fit
/// c 11.76 → 11.51 ms, p 0.378 → 0.363 ms (`--nocapture` prints them).
const BOOK_BEFORE: f64 = 0.359;
const BOOK_LOSO: [f64; 3] = [0.380, 0.224, 0.225];
/// The same section: c (ms) and p (ms a layer) fitted to all ten figures (sglprefill61: c was
/// 11.88 ms before the Qwen3-Next rows paid the eager chain).
const BOOK_FIT: [f64; 2] = [11.51, 0.363];

//! pwdata61 (issue #18 fidelity): the hunt for a measurement of vLLM's PIECEWISE decode at TP > 1
//! (book/src/validation.md, "vLLM's piecewise decode at TP > 1: the data hunt (pwdata61)"), the
//! lead missdig60 left for the largest cluster of decode misses. The pairs found are in
//! `tests/data/piecewise-pairs.tsv` (one model decoded under piecewise graphs and under a full decode
//! graph on one box); the one TP > 1 pair is vLLM issue 47089's Qwen3-235B-A22B FP8 on two B200s
//! under vLLM 0.23.0. Nothing is fitted and no tpsim figure moves: the tests read the pairs as printed
//! and pin what the TP 2 pair says about the two readings of the cluster (a per-layer cost added to
//! every layer, or a host floor under which a long GPU step hides the piecewise launches).

use crate::common::*;

/// One row of `piecewise-pairs.tsv`.
#[derive(Debug)]
struct Pair {
    line: usize,
    model: String,
    /// Decoder layers (the model's config.json).
    layers: u32,
    tp: u32,
    batch: String,
    measure: String,
    /// The piecewise run's figure, in the row's `measure` (ms or s).
    piecewise: f64,
    /// The full-graph run's figure, same unit.
    full: f64,
}

fn pairs() -> Vec<Pair> {
    let t = read_tsv(&data_path("piecewise-pairs.tsv"));
    let c = |n: &str| t.col(n);
    let (src, model, layers, tp, batch, measure, pw, full) = (
        c("source"),
        c("model"),
        c("layers"),
        c("tp"),
        c("batch"),
        c("measure"),
        c("piecewise"),
        c("full"),
    );
    t.rows
        .iter()
        .map(|r| {
            let num = |i: usize| -> f64 {
                r.get(i)
                    .parse()
                    .unwrap_or_else(|_| panic!("piecewise-pairs.tsv line {}: {:?}", r.line, r.get(i)))
            };
            assert!(
                r.get(src).starts_with("https://github.com/"),
                "piecewise-pairs.tsv line {}: no source",
                r.line
            );
            Pair {
                line: r.line,
                model: r.get(model).to_string(),
                layers: num(layers) as u32,
                tp: num(tp) as u32,
                batch: r.get(batch).to_string(),
                measure: r.get(measure).to_string(),
                piecewise: num(pw),
                full: num(full),
            }
        })
        .collect()
}

/// The one row of `model` at batch `batch`.
fn pair(model: &str, batch: &str) -> Pair {
    let mut found: Vec<Pair> = pairs()
        .into_iter()
        .filter(|p| p.model == model && p.batch == batch)
        .collect();
    assert_eq!(found.len(), 1, "{model} at batch {batch}: {found:?}");
    found.remove(0)
}

const SMALL: &str = "Qwen3-0.6B";
const BIG: &str = "Qwen3-235B-A22B-Instruct-2507-FP8";

/// The smallest per-layer gap of the cluster (missdig60, "Per layer": vllmfloor's R1-Distill-Qwen-14B
/// at TP 2, 1 req/s, 66 µs a layer; the others 77 – 172 µs).
const CLUSTER_GAP_MIN_US: f64 = 66.0;

/// The table as read: nine pairs, piecewise the slower in every one, three of them at TP > 1 (all
/// issue 47089's Qwen3-235B at TP 2). Per layer, by hand from the TSV: the TP 1 Qwen3-0.6B pays
/// (3.64 − 1.53) ÷ 28 = 75.4 µs at batch 1, (3.79 − 1.60) ÷ 28 = 78.2 µs at 16; the TP 2 Qwen3-235B
/// (13.37 − 12.70) ÷ 94 = 7.1 µs at 1, (23.93 − 22.38) ÷ 94 = 16.5 µs at 16, (30.22 − 29.56) ÷ 94 =
/// 7.0 µs at 128 (means): below a quarter of the cluster's smallest gap.
#[test]
fn pairs_read_as_printed_and_the_tp2_cost_is_small() {
    let all = pairs();
    assert_eq!(all.len(), 9);
    for p in &all {
        assert!(p.piecewise > p.full, "line {}: {p:?}", p.line);
    }
    let tpn: Vec<&Pair> = all.iter().filter(|p| p.tp > 1).collect();
    assert_eq!(tpn.len(), 3);
    assert!(tpn.iter().all(|p| p.model == BIG && p.tp == 2 && p.layers == 94));
    let per_layer_us = |p: &Pair| {
        assert!(p.measure.ends_with("tpot_ms"), "line {}: {}", p.line, p.measure);
        (p.piecewise - p.full) / f64::from(p.layers) * 1e3
    };
    let small: Vec<f64> = ["1", "16"]
        .iter()
        .map(|b| per_layer_us(&pair(SMALL, b)))
        .collect();
    assert!(
        (small[0] - 75.36).abs() < 0.01 && (small[1] - 78.21).abs() < 0.01,
        "{small:?}"
    );
    let big: Vec<f64> = ["1", "16", "128"]
        .iter()
        .map(|b| per_layer_us(&pair(BIG, b)))
        .collect();
    let hand = [7.13, 16.49, 7.02];
    for (got, want) in big.iter().zip(hand) {
        assert!((got - want).abs() < 0.01, "{big:?}");
        assert!(*got < CLUSTER_GAP_MIN_US / 4.0, "{got:.1} µs a layer");
    }
}

/// Two readings of the piecewise cost, each sized by issue 47089's own TP 1 pair on the same kind of
/// box and release, tried on its TP 2 pair (both by hand from the TSV):
/// - a cost added to every layer (75.4 µs at batch 1, 78.2 at 16): 12.70 + 94 × 0.07536 = 19.78 ms and
///   22.38 + 94 × 0.0782 = 29.73 ms against the measured 13.37 and 23.93: +48.0 % and +24.2 %;
/// - a host floor (the TP 1 piecewise step read as host-bound, its full-graph step 1.53 of its 3.64
///   ms: 3.64 ÷ 28 = 130.0 µs and 3.79 ÷ 28 = 135.4 µs of host a layer): max(12.70, 94 × 0.1300 =
///   12.22) = 12.70 ms and max(22.38, 12.72) = 22.38 ms: −5.0 % and −6.5 %.
///
/// The floor holds the TP 2 pair within 7 %, the adder misses it by a quarter to a half: at TP 2 the
/// piecewise launches with their per-layer allreduce hide under a long GPU step, as the module doc of
/// `decode::passes::piecewise` has them; the cluster's 66 – 172 µs a layer is not this cost.
#[test]
fn the_tp2_pair_reads_as_a_host_floor_not_a_per_layer_cost() {
    let mut errors = Vec::new();
    for b in ["1", "16"] {
        let (s, g) = (pair(SMALL, b), pair(BIG, b));
        let (gl, sl) = (f64::from(g.layers), f64::from(s.layers));
        let adder_ms = g.full + gl * (s.piecewise - s.full) / sl;
        let floor_ms = g.full.max(gl * s.piecewise / sl);
        errors.push((adder_ms / g.piecewise - 1.0, floor_ms / g.piecewise - 1.0));
    }
    let hand = [(0.4797, -0.0501), (0.2425, -0.0648)];
    for ((adder, floor), (ha, hf)) in errors.iter().zip(hand) {
        assert!(
            (adder - ha).abs() < 5e-4 && (floor - hf).abs() < 5e-4,
            "{errors:?}"
        );
        assert!(*adder > 0.20 && floor.abs() < 0.07, "{errors:?}");
    }
}

/// tpsim on the TP 2 pair (what-if: the qwen3-235b-a22b-fp8 preset, two GPUs of b200-8x-nvlink, vLLM
/// 0.23.0, `enable_expert_parallel`, 128 in / 1,024 out: the issue gives no lengths). Its median TPOT
/// is 10.75 / 10.71 ms (PIECEWISE / FULL_AND_PIECEWISE) at concurrency 1 and 22.03 / 21.99 ms at 16:
/// the modes within 0.5 % of each other, as the host floor reading has them, against the pair's
/// 5.3 % and 6.9 %. Against the measured figures: FULL_AND_PIECEWISE −15.6 % and −1.7 %, PIECEWISE
/// −19.6 % and −7.9 %; the batch-1 shortfall is in both modes (the B200 template's extrapolated
/// per-kernel costs, `scenarios/hardware/templates/b200-sxm.toml`), not in the mode.
#[test]
fn tpsim_gives_the_tp2_pair_no_mode_cost() {
    let tpot = |mode: &str, c: u32| {
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"b200-8x-nvlink\"\n[model]\npreset = \"qwen3-235b-a22b-fp8\"\n\
             [engine]\nname = \"vllm\"\nversion = \"0.23.0\"\ntp = 2\nenable_expert_parallel = true\n\
             cudagraph_mode = \"{mode}\"\n[workload]\nconcurrency = {c}\nprompt_len = 128\noutput_len = 1024\n"
        );
        let p = scratch(&format!("{mode}-{c}")).join("s.toml");
        std::fs::write(&p, text).unwrap();
        f(&run_json(&p.display().to_string())["serving"]["tpot_ms"]["p50"])
    };
    // (concurrency, the pair's batch, tpsim's error on the FULL_AND_PIECEWISE and PIECEWISE figures
    // as this branch gives them, by hand: 10.71 / 12.70 − 1, 10.75 / 13.37 − 1, 21.99 / 22.38 − 1,
    // 22.03 / 23.93 − 1), held to 3 points.
    for (c, batch, full_err, pw_err) in [(1, "1", -0.157, -0.196), (16, "16", -0.017, -0.079)] {
        let (pw, full) = (tpot("PIECEWISE", c), tpot("FULL_AND_PIECEWISE", c));
        let m = pair(BIG, batch);
        println!(
            "c {c}: tpsim {pw:.2} / {full:.2} ms, measured {:.2} / {:.2} ms",
            m.piecewise, m.full
        );
        assert!(
            (pw / full - 1.0).abs() < 0.005,
            "c {c}: mode ratio {:.4}",
            pw / full
        );
        assert!(m.piecewise / m.full - 1.0 > 0.05, "c {c}: {m:?}");
        let (ef, ep) = (full / m.full - 1.0, pw / m.piecewise - 1.0);
        assert!(
            (ef - full_err).abs() < 0.03,
            "c {c}: FULL_AND_PIECEWISE {full:.2} ms ({ef:+.3})"
        );
        assert!(
            (ep - pw_err).abs() < 0.03,
            "c {c}: PIECEWISE {pw:.2} ms ({ep:+.3})"
        );
    }
}

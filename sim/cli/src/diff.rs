//! The text of `tpsim diff` ([`tpsim::diff`]).

use std::fmt::Write as _;
pub(crate) use tpsim::diff::*;

fn num(x: Option<f64>, decimals: usize) -> String {
    x.map_or("—".to_string(), |v| format!("{v:.decimals$}"))
}

fn row(o: &mut String, c: &Change, decimals: usize) {
    let _ = writeln!(
        o,
        "  {:<26} {:>12} {:>12} {:>12} {:>8}",
        c.name,
        num(c.a, decimals),
        num(c.b, decimals),
        c.delta.map_or("—".to_string(), |d| format!("{d:+.decimals$}")),
        c.ratio.map_or("—".to_string(), |r| format!("{r:.3}×")),
    );
}

/// The text report.
pub fn text(d: &DiffReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "A: {}", d.a.scenario.file);
    let _ = writeln!(o, "B: {}", d.b.scenario.file);
    for (side, r) in [("A", &d.a), ("B", &d.b)] {
        if let Some(oom) = &r.memory.oom {
            let _ = writeln!(
                o,
                "{side} would NOT start: OOM at {}, missing {:.0} MiB\n  {}",
                oom.step, oom.missing_mib, oom.message
            );
        }
    }
    let _ = writeln!(o);
    let head = |o: &mut String, title: &str| {
        let _ = writeln!(o, "{title}");
        let _ = writeln!(o, "  {:<26} {:>12} {:>12} {:>12} {:>8}", "", "A", "B", "Δ", "B/A");
    };
    head(&mut o, "Predictions");
    let (va, vb) = &d.deltas.verdict;
    let _ = writeln!(o, "  {:<26} {:>12} {:>12}", "memory verdict", va, vb);
    for c in &d.deltas.summary {
        let decimals = match c.name.as_str() {
            "kv_tokens" => 0,
            "min_mem_fraction_static" => 4,
            "accept_len_mean" | "tpot_ms" | "ttft_ms" | "mean_iteration_ms" => 3,
            _ => 1,
        };
        if c.a.is_some() || c.b.is_some() {
            row(&mut o, c, decimals);
        }
    }
    // Issue #19 point 6: the ratios' intervals from the profiles' fitted parameters.
    if !d.deltas.ratio_intervals.is_empty() {
        let _ = writeln!(
            o,
            "  B/A with 95 % intervals from the profiles' fitted parameters (fit noise only, not model error):"
        );
        for r in &d.deltas.ratio_intervals {
            let verdict = if r.beyond_fit_noise {
                "beyond the fit noise"
            } else {
                "within the fit noise"
            };
            let _ = writeln!(
                o,
                "  {:<26} {:.3}× [{:.3}×, {:.3}×]  {} ({} profile parameters)",
                r.name, r.ratio, r.low, r.high, verdict, r.profiles
            );
        }
    }
    let _ = writeln!(o);
    if decodes(&d.a) && decodes(&d.b) {
        head(
            &mut o,
            "Time per iteration by category (critical path, ms; largest move first)",
        );
        for c in &d.deltas.by_category {
            row(&mut o, c, 3);
        }
        let _ = writeln!(o);
        head(
            &mut o,
            "Time per iteration by op / collective (critical path, ms; largest move first)",
        );
        for c in &d.deltas.by_op {
            row(&mut o, c, 3);
        }
    } else {
        let _ = writeln!(
            o,
            "Time per iteration: not compared (a side that does not start, or ends every request at its first token, has no decode iteration)"
        );
    }
    let _ = writeln!(o);
    o.push_str(&crate::memory::delta_text("A", "B", &d.deltas.memory));
    o
}

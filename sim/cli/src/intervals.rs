//! Issue #19 point 6: the intervals and calibrated-range lines of the `tpsim run` text report
//! (from `RunReport::intervals` and `RunReport::calibrated_range`).

use std::fmt::Write as _;
use tpsim::report::RunReport;
use tpsim::report::intervals::FigureInterval;

/// The file name of a profile path (the report's header line gives the whole path).
fn short(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The intervals section, then the calibrated-range line; nothing without a profile.
pub fn text(o: &mut String, r: &RunReport) {
    let Some(p) = &r.hardware.profile else {
        return;
    };
    let with_ci = p.params.iter().any(|v| v.ci_low.is_some() && v.ci_high.is_some());
    if !with_ci {
        // A profile of curves only: their per-point `ci` is not propagated (book/src/intervals.md).
        let curves = if p.curves.is_empty() {
            ""
        } else {
            " (its efficiency curves' intervals are not propagated)"
        };
        let _ = writeln!(
            o,
            "Intervals: none — no fitted intervals in the profile {}{curves}",
            short(&p.file)
        );
    } else if let Some(iv) = &r.intervals {
        let corr = match iv.correlation.as_str() {
            "fit" => "combined with the fit's correlation of the parameters",
            "independent" => "parameters assumed independent: the profile has no correlation matrix",
            _ => "one fitted parameter",
        };
        let _ = writeln!(o, "Intervals (95 %, linearised; {corr})");
        let line = |o: &mut String, what: &str, f: &Option<FigureInterval>, unit: &str, digits: usize| {
            if let Some(f) = f {
                let names: Vec<&str> = f.params.iter().map(|e| e.name.as_str()).collect();
                // Every rerun gave the same figure (to a part in 10^12).
                if f.high - f.low <= 1e-12 * f.value.abs() {
                    let _ = writeln!(
                        o,
                        "  {what} {:.d$} {unit} (not moved by profile {}'s fitted {})",
                        f.value,
                        short(&iv.profile),
                        names.join(", "),
                        d = digits
                    );
                    return;
                }
                let _ = writeln!(
                    o,
                    "  {what} {:.d$} {unit} (95 % interval {:.d$}–{:.d$}, from profile {}'s fitted {})",
                    f.value,
                    f.low,
                    f.high,
                    short(&iv.profile),
                    names.join(", "),
                    d = digits
                );
            }
        };
        line(o, "throughput", &iv.output_tok_s, "tok/s", 1);
        line(o, "TPOT", &iv.tpot_ms, "ms", 2);
        line(o, "TTFT", &iv.ttft_ms, "ms", 2);
        line(o, "decode allreduce", &iv.decode_allreduce_us, "µs", 1);
        for n in &iv.notes {
            let _ = writeln!(o, "  note: {n}");
        }
    }
    if let Some(c) = &r.calibrated_range {
        if !c.stated {
            let _ = writeln!(
                o,
                "Calibrated range: not stated — the profile {} does not record the rows it was fitted on \
                 ([provenance.range]): whether this scenario is an extrapolation is unknown",
                short(&c.profile)
            );
        } else if c.extrapolation {
            let _ = writeln!(
                o,
                "Calibrated range: EXTRAPOLATION — the profile was fitted on {}:",
                c.fitted_on
            );
            for w in &c.outside {
                let _ = writeln!(o, "  {w}");
            }
        } else {
            let _ = writeln!(
                o,
                "Calibrated range: inside the rows the profile was fitted on ({})",
                c.fitted_on
            );
        }
    }
    let _ = writeln!(o);
}

/// `tpsim collective`: one comment line per size with the interval of its time, after the table.
pub fn collective_text(o: &mut String, r: &tpsim::collective::Report) {
    let (Some(p), Some(label)) = (&r.profile, &r.intervals) else {
        return;
    };
    let Some(first) = r.rows.iter().find_map(|x| x.time_us_interval.as_ref()) else {
        let _ = writeln!(o, "# no fitted intervals in the profile {}", short(p));
        return;
    };
    let names: Vec<&str> = first.params.iter().map(|e| e.name.as_str()).collect();
    let corr = match label.as_str() {
        "fit" => "with the fit's correlation",
        "independent" => "parameters assumed independent: the profile has no correlation matrix",
        _ => "one fitted parameter",
    };
    let _ = writeln!(
        o,
        "# 95 % interval of time(us), linearised from profile {}'s fitted {} ({corr}):",
        short(p),
        names.join(", ")
    );
    for x in &r.rows {
        if let Some(iv) = &x.time_us_interval {
            let _ = writeln!(
                o,
                "# {:>12} {:>11.2} ({:.2}–{:.2})",
                x.size_bytes, iv.value, iv.low, iv.high
            );
        }
    }
}

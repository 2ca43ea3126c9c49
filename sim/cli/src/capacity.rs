//! `tpsim capacity` (issue #18 point 3): renders [`tpsim::capacity`]'s search.

use super::{EXIT_FAILURE, bad_input, emit, load};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use tpsim::capacity::{self, Capacity, Over};

#[derive(Debug, clap::Args)]
pub struct CapacityArgs {
    /// The scenario TOML file.
    scenario: PathBuf,
    /// Objectives, NAME=MS comma-separated: ttft_pN, tpot_pN, itl_pN, e2e_pN (N a percentile),
    /// e.g. ttft_p99=2000,tpot_p99=50 (default: the scenario's [slo]).
    #[arg(long, value_name = "LIST")]
    slo: Option<String>,
    /// What to raise: rate (open-loop req/s) or concurrency (closed loop). Default: rate when the
    /// scenario sets workload.request_rate, else concurrency.
    #[arg(long, value_name = "rate|concurrency")]
    over: Option<String>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

pub fn run(a: CapacityArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let s = match load(&a.scenario, err) {
        Ok(s) => s,
        Err(e) => return bad_input(err, &e),
    };
    let targets = match (&a.slo, &s.slo) {
        (Some(t), _) => match tpsim::slo::parse_targets(t) {
            Ok(t) => t,
            Err(e) => return bad_input(err, &e),
        },
        (None, Some(slo)) => slo.targets(),
        (None, None) => {
            return bad_input(
                err,
                &format!(
                    "--slo: {} has no [slo] section: expected --slo NAME=MS,… (e.g. ttft_p99=2000,tpot_p99=50)",
                    a.scenario.display()
                ),
            );
        }
    };
    let over = match a.over.as_deref() {
        Some("rate") => Over::Rate,
        Some("concurrency") => Over::Concurrency,
        Some(o) => return bad_input(err, &format!("--over `{o}`: expected rate or concurrency")),
        None if matches!(s.workload.load.arrivals, tpsim::workload::Arrivals::Open { .. }) => Over::Rate,
        None => Over::Concurrency,
    };
    let c = match capacity::capacity(&s, over, &targets) {
        Ok(c) => c,
        Err(e @ capacity::CapacityError::Unsupported(_)) => {
            return bad_input(err, &format!("--over rate: {e}"));
        }
        // dsv4run55: a model whose decode step is not modelled (DeepSeek-V4) is the input's.
        Err(e @ capacity::CapacityError::Decode(tpsim::decode::DecodeError::NotModelled(_))) => {
            return bad_input(err, &e);
        }
        Err(e) => {
            let _ = writeln!(err, "internal error: {e}");
            return EXIT_FAILURE;
        }
    };
    let text = if a.json {
        serde_json::to_string_pretty(&c).unwrap_or_default() + "\n"
    } else {
        text(&c)
    };
    emit(out, &text)
}

fn unit(over: Over) -> &'static str {
    match over {
        Over::Rate => "req/s",
        Over::Concurrency => "requests",
    }
}

/// The table of evaluated points (sorted by load), the answer and the binding objective.
pub fn text(c: &Capacity) -> String {
    let mut o = String::new();
    let names: Vec<String> = c
        .targets
        .iter()
        .map(|t| format!("{} ≤ {} ms", t.name(), t.ms))
        .collect();
    let _ = writeln!(
        o,
        "Capacity over {} ({}), objectives: {}",
        match c.over {
            Over::Rate => "request rate",
            Over::Concurrency => "concurrency",
        },
        unit(c.over),
        names.join(", ")
    );
    let _ = writeln!(
        o,
        "Search: doubling from 1 to bracket, then bisection to {} ({} points, in order of load):",
        c.resolution,
        c.points.len()
    );
    let mut head = format!(
        "  {:>11}",
        if c.over == Over::Rate {
            "req/s"
        } else {
            "concurrency"
        }
    );
    for t in &c.targets {
        let _ = write!(head, " {:>12}", format!("{} ms", t.name()));
    }
    let _ = write!(head, " {:>10} {:>9}  meets", "out tok/s", "req/s");
    let _ = writeln!(o, "{head}");
    let mut pts: Vec<_> = c.points.iter().collect();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x));
    for p in pts {
        let mut line = format!("  {:>11}", fmt_x(c.over, p.x));
        if let Some(r) = &p.refused {
            let _ = writeln!(o, "{line} refused: {r}");
            continue;
        }
        for ch in &p.checks {
            let _ = write!(line, " {:>12.2}", ch.measured_ms);
        }
        let _ = write!(
            line,
            " {:>10.1} {:>9.3}  {}",
            p.output_tok_s,
            p.request_throughput,
            match (p.met, p.overloaded) {
                (true, _) => "yes",
                (false, false) => "no",
                (false, true) => "no (overloaded: the waiting queue grows)",
            }
        );
        let _ = writeln!(o, "{line}");
    }
    match c.answer {
        Some(x) => {
            let _ = writeln!(
                o,
                "Answer: {} {}{}",
                fmt_x(c.over, x),
                unit(c.over),
                if c.at_ceiling {
                    " (the search's ceiling: every objective still met)"
                } else {
                    ""
                }
            );
        }
        None => {
            let _ = writeln!(
                o,
                "Answer: none — not even the lowest load searched meets every objective"
            );
        }
    }
    // The point just above the answer failed on its overload alone (every objective met).
    let above = c.answer.and_then(|x| {
        c.points
            .iter()
            .filter(|p| p.x > x)
            .min_by(|a, b| a.x.total_cmp(&b.x))
    });
    if c.binding.is_none() && above.is_some_and(|p| p.overloaded) {
        let _ = writeln!(
            o,
            "Binding: overload (just above the answer the waiting queue grows, whatever the percentiles)"
        );
    }
    if let Some(b) = &c.binding {
        let _ = writeln!(
            o,
            "Binding: {} ({})",
            b.name(),
            if c.at_ceiling {
                "nearest its limit at the ceiling"
            } else {
                "the objective that fails just above the answer"
            }
        );
    }
    if let Some(n) = &c.note {
        let _ = writeln!(o, "Note: {n}");
    }
    o
}

fn fmt_x(over: Over, x: f64) -> String {
    match over {
        Over::Concurrency => format!("{x:.0}"),
        Over::Rate => format!("{x:.3}"),
    }
}

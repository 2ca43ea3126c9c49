//! `tpsim sweep` and `tpsim merge`: the options, the progress bar and where the outputs go. The work
//! is in `tpsim::sweep`.

use super::{EXIT_BAD_INPUT, EXIT_FAILURE};
use crate::plot::{self, PlotSpec};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use tpsim::sweep::{self, Shard, Sweep, SweepError};

/// `tpsim sweep` options.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The scenario TOML file every point starts from.
    pub scenario: PathBuf,
    /// A swept key (dotted TOML path) and its values: KEY=V1,V2,… or KEY=START:END:STEP (END
    /// included). Repeat for a cartesian product; the first --set is the outermost loop.
    #[arg(long = "set", value_name = "KEY=VALUES", required = true)]
    pub set: Vec<String>,
    /// Remove KEY from the scenario before setting the swept keys, so its default applies (e.g.
    /// --unset speculative.num_draft_tokens when sweeping num_steps: the default is num_steps + 1).
    #[arg(long, value_name = "KEY")]
    pub unset: Vec<String>,
    /// Write the rows to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Write a JSON array of objects instead of CSV.
    #[arg(long)]
    pub json: bool,
    /// Worker threads (0: one per core), never more than the points. The rows are identical for
    /// any value.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Run only shard I of N: the points whose index % N = I − 1. Join the shards' CSVs with
    /// `tpsim merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Add the 95 % interval ends of tok/s and TPOT (output_tok_s_low/high, tpot_ms_low/high) from
    /// the profile's fitted parameters; empty where the profile has none. Costs two more
    /// predictions per fitted parameter and point.
    #[arg(long)]
    pub intervals: bool,
    /// Draw an SVG line chart of --metric against --x to FILE.
    #[arg(long, value_name = "FILE.svg", requires = "x")]
    pub plot: Option<PathBuf>,
    /// The swept key on the chart's x axis.
    #[arg(long, value_name = "KEY", requires = "plot")]
    pub x: Option<String>,
    /// The swept key that tells the lines apart (default: one line per combination of the other
    /// swept keys).
    #[arg(long, value_name = "KEY", requires = "plot")]
    pub series: Option<String>,
    /// The metric on the y axis: output_tok_s, tpot_ms, ttft_ms, accept_len_mean, kv_tokens,
    /// min_mem_fraction_static, allreduce_ms_per_iter.
    #[arg(long, default_value = "output_tok_s", requires = "plot")]
    pub metric: String,
}

/// `tpsim merge` options.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shard CSVs written by `tpsim sweep --shard I/N --out …`, in any order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Write the merged CSV to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

fn fail(err: &mut dyn Write, e: &SweepError) -> i32 {
    let _ = writeln!(err, "error: {e}");
    if e.is_bad_input() {
        EXIT_BAD_INPUT
    } else {
        EXIT_FAILURE
    }
}

/// Writes `bytes` to `file` (never over one of `inputs`, atomically), or to `out` when there is no
/// file.
fn emit<P: AsRef<Path>>(
    file: Option<&Path>,
    inputs: &[P],
    out: &mut dyn Write,
    bytes: &[u8],
) -> Result<(), SweepError> {
    match file {
        Some(f) => Ok(tpsim::files::write_output(f, inputs, bytes)?),
        None => out
            .write_all(bytes)
            .map_err(|e| SweepError::Output(format!("writing the rows: {e}"))),
    }
}

/// Runs `tpsim sweep`; returns the exit code.
pub fn run(a: &SweepArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match sweep_inner(a, out, err) {
        Ok(()) => 0,
        Err(e) => fail(err, &e),
    }
}

fn sweep_inner(a: &SweepArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), SweepError> {
    let shard = a.shard.as_deref().map(Shard::parse).transpose()?;
    let mut sw = Sweep::new(&a.scenario, &a.set, &a.unset)?;
    sw.intervals = a.intervals;
    let plot = a.plot.as_ref().map(|_| PlotSpec {
        x: a.x.clone().unwrap_or_default(),
        series: a.series.clone(),
        metric: a.metric.clone(),
    });
    // Check the chart's keys and the outputs before spending minutes on the points: no output may
    // overwrite the scenario or a file it reads, nor the other output.
    if let Some(p) = &plot {
        plot::check(&sw, p)?;
    }
    if let Some(f) = &a.out {
        tpsim::files::check_output(f, &sw.inputs)?;
    }
    let mut plot_inputs = sw.inputs.clone();
    plot_inputs.extend(a.out.clone());
    if let Some(f) = &a.plot {
        tpsim::files::check_output(f, &plot_inputs)?;
    }
    let n = (0..sw.len())
        .filter(|&i| shard.is_none_or(|s| s.contains(i)))
        .count();
    let bar = if a.quiet || !std::io::stderr().is_terminal() {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} points  {elapsed} (eta {eta})")
        {
            b.set_style(style);
        }
        b
    };
    let rows = sw.run(shard, a.threads, &|| bar.inc(1));
    bar.finish_and_clear();
    let rows = rows?;
    // The engine's adjustments, point by point in grid order (deterministic).
    for r in &rows {
        for w in &r.warnings {
            let _ = writeln!(err, "warning: point {} ({}): {w}", r.point, sw.settings(r.point));
        }
    }
    let bytes = if a.json {
        let mut t = serde_json::to_string_pretty(&sweep::to_json(&sw, &rows))
            .map_err(|e| SweepError::Output(e.to_string()))?;
        t.push('\n');
        t.into_bytes()
    } else {
        let mut b = Vec::new();
        sweep::write_csv(&sw, &rows, &mut b).map_err(|e| SweepError::Output(e.to_string()))?;
        b
    };
    emit(a.out.as_deref(), &sw.inputs, out, &bytes)?;
    if let (Some(p), Some(file)) = (&plot, &a.plot) {
        let name = a
            .scenario
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let title = format!("{} vs {} — {name}", p.metric, p.x);
        let svg = plot::svg(&sw, &rows, p, &title)?;
        emit(Some(file), &plot_inputs, out, svg.as_bytes())?;
    }
    Ok(())
}

/// Runs `tpsim merge`; returns the exit code.
pub fn merge(a: &MergeArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if let Some(Err(e)) = a.out.as_deref().map(|f| tpsim::files::check_output(f, &a.files)) {
        return fail(err, &e.into());
    }
    let mut b = Vec::new();
    match sweep::merge(&a.files, &mut b).and_then(|()| emit(a.out.as_deref(), &a.files, out, &b)) {
        Ok(()) => 0,
        Err(e) => fail(err, &e),
    }
}

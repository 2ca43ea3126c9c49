//! `tpsim-calibrate crossval throughput` and `crossval hopper`: leave-one-group-out over a
//! `fit-throughput` pairs table.
//!
//! The rows are grouped by a column of the table (`model`, `box`, …) or one group per row (`row`). Per
//! held-out group, `--params` are fitted by `fit-throughput`'s machinery ([`crate::fit::throughput::fit`],
//! every row's scenario given one shared value of each) on the other groups' rows, and the group's rows
//! are predicted with the fitted values. Beside it: each scenario as bundled (its presets' values) and
//! one fit on all rows (in-sample). The fits start from `--hardware`'s values, which are also the values
//! of a fold whose training rows do not determine a parameter.

use super::allreduce::{table, unit_label};
use super::{ConstFit, CrossvalError, Summary, fit_or_prior, moved_notes, pct, ratio, short, wrap};
use crate::fit::throughput::{self as tp, Pair};
use crate::fit::{self, FitError};
use clap::Args;
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;
use tpsim::scenario::{self, Hardware, HwParams, profile as prof};

/// `tpsim-calibrate crossval throughput [--pairs PAIRS.tsv] --hardware PRESET [--params a,b]
/// [--group COLUMN|row] [--output-len N] [--json]`.
#[derive(Debug, Clone, Args)]
pub struct ThroughputArgs {
    /// The pairs table of `fit-throughput` (columns `scenario`, `tok_s`, optionally `label`, and the
    /// grouping column).
    #[arg(
        long,
        value_name = "PAIRS.tsv",
        default_value = "scenarios/validation/throughput-pairs.tsv"
    )]
    pub pairs: PathBuf,
    /// Hardware preset whose values of `--params` start every fit and stay in place where a fold's
    /// training rows do not determine them.
    #[arg(long, value_name = "PRESET")]
    pub hardware: String,
    /// Parameters to fit, comma-separated `[hardware.params]` names.
    #[arg(
        long,
        value_name = "a,b",
        value_delimiter = ',',
        default_value = "kernel_overhead"
    )]
    pub params: Vec<String>,
    /// Leave out one group at a time: the rows sharing a value of this column of the pairs table
    /// (`model`, `box`), or `row` for one row at a time.
    #[arg(long, value_name = "COLUMN", default_value = "model")]
    pub group: String,
    /// Decode this many output tokens per request instead of each scenario's `output_len` (a speed
    /// knob, as in fit-throughput).
    #[arg(long, value_name = "N")]
    pub output_len: Option<u32>,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// `tpsim-calibrate crossval hopper`: `crossval throughput` over the Hopper figures.
#[derive(Debug, Clone, Args)]
pub struct HopperArgs {
    /// The Hopper tok/s rows (each commented with its source, and the figures left out with the
    /// reason).
    #[arg(
        long,
        value_name = "PAIRS.tsv",
        default_value = "calibrate/crossval/hopper-pairs.tsv"
    )]
    pub pairs: PathBuf,
    /// Start and fallback of `kernel_overhead`: a Hopper preset that carries the template's assumed
    /// 2 µs, not the 3 µs chosen on these rows.
    #[arg(long, value_name = "PRESET", default_value = "h100-pcie-2x-nvlink-bridge")]
    pub hardware: String,
    /// Leave out one row at a time (`row`), or the rows sharing a column's value (`model`, `box`).
    #[arg(long, value_name = "COLUMN", default_value = "row")]
    pub group: String,
    /// Decode this many output tokens per request instead of each scenario's `output_len`.
    #[arg(long, value_name = "N")]
    pub output_len: Option<u32>,
    /// Print one JSON object instead of the tables.
    #[arg(long)]
    pub json: bool,
}

impl HopperArgs {
    /// The same run as `crossval throughput --params kernel_overhead`.
    pub fn into_throughput(self) -> ThroughputArgs {
        ThroughputArgs {
            pairs: self.pairs,
            hardware: self.hardware,
            params: vec!["kernel_overhead".into()],
            group: self.group,
            output_len: self.output_len,
            json: self.json,
        }
    }
}

/// One row's measurement and predictions, tok/s.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowPrediction {
    pub label: String,
    pub group: String,
    pub measured_tok_s: f64,
    /// The scenario with its presets' values.
    pub bundled_tok_s: f64,
    /// Fitted on all rows (in-sample).
    pub in_sample_tok_s: f64,
    /// Fitted without this row's group (out-of-sample).
    pub left_out_tok_s: f64,
}

/// One held-out group's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupReport {
    pub name: String,
    pub rows: usize,
    pub training_rows: usize,
    pub bundled: Summary,
    pub in_sample: Summary,
    pub left_out: Summary,
    /// The parameters fitted without this group.
    pub fold: Vec<ConstFit>,
}

/// Medians of the per-group medians.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Medians {
    pub bundled: f64,
    pub in_sample: f64,
    pub left_out: f64,
}

/// All rows together.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Overall {
    pub bundled: Summary,
    pub in_sample: Summary,
    pub left_out: Summary,
    pub median_of_group_medians: Medians,
}

/// The report (`--json` prints it as is).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub pairs: String,
    pub hardware: String,
    pub params: Vec<String>,
    pub group_by: String,
    pub output_len: Option<u32>,
    /// The parameters fitted on all rows.
    pub in_sample: Vec<ConstFit>,
    pub groups: Vec<GroupReport>,
    pub rows: Vec<RowPrediction>,
    pub overall: Overall,
}

/// What [`crossval`] finds.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The parameters fitted on all rows.
    pub in_sample: Vec<ConstFit>,
    pub groups: Vec<GroupReport>,
    pub rows: Vec<RowPrediction>,
    pub overall: Overall,
}

/// How pairs are grouped for leave-one-group-out (`--group`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupBy {
    /// Each row is its own group (`--group row`): leave-one-row-out.
    Row,
    /// The rows sharing a value of this column of the pairs table (`--group model`).
    Column(String),
}

impl GroupBy {
    /// `row` or a column name, as `--group` takes it.
    pub fn parse(name: &str) -> GroupBy {
        match name {
            "row" => GroupBy::Row,
            column => GroupBy::Column(column.to_string()),
        }
    }

    /// The name `--group` and the report use.
    pub fn name(&self) -> &str {
        match self {
            GroupBy::Row => "row",
            GroupBy::Column(c) => c,
        }
    }
}

/// The group of each pair: the value of the grouping column, or the row's label.
pub fn groups_of(pairs: &[Pair], group: &GroupBy, file: &str) -> Result<Vec<String>, CrossvalError> {
    let group = match group {
        GroupBy::Row => return Ok(pairs.iter().map(|p| p.label.clone()).collect()),
        GroupBy::Column(c) => c.as_str(),
    };
    pairs
        .iter()
        .map(|p| match p.columns.get(group).map(String::as_str) {
            Some(v) if !v.is_empty() => Ok(v.to_string()),
            Some(_) => Err(CrossvalError::Input {
                file: file.to_string(),
                message: format!(
                    "row `{}`: column `{group}` is empty: expected the group of every row",
                    p.label
                ),
            }),
            None => Err(CrossvalError::Input {
                file: file.to_string(),
                message: format!(
                    "no `{group}` column: expected --group to name a column of the table ({}) or `row`",
                    p.columns.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            }),
        })
        .collect()
}

/// Fits `names` on `train`, from `hw`'s values (which also stand where the rows do not determine a
/// parameter). Reads nothing but `train`.
pub fn fit_pairs(
    hw: &Hardware,
    train: &[Pair],
    names: &[String],
) -> Result<(Vec<ConstFit>, HwParams), CrossvalError> {
    let mut attempt = |active: &[String], from: &HwParams| -> Result<_, FitError> {
        let mut h = hw.clone();
        h.params = from.clone();
        tp::fit(&h, train, active, None).map(|f| (f.fit.params, f.fit.hardware.params))
    };
    Ok(fit_or_prior(&hw.params, names, &mut attempt)?)
}

/// Runs every fit (all rows, and one per held-out group, in parallel, collected in order) and
/// assembles the report.
pub fn crossval(
    hw: &Hardware,
    pairs: &[Pair],
    groups: &[String],
    names: &[String],
) -> Result<Outcome, CrossvalError> {
    let mut order: Vec<String> = Vec::new();
    for g in groups {
        if !order.contains(g) {
            order.push(g.clone());
        }
    }
    if order.len() < 2 {
        return Err(CrossvalError::Usage(format!(
            "{} group(s): leaving one out needs at least 2",
            order.len()
        )));
    }
    let tasks: Vec<Option<&String>> = std::iter::once(None).chain(order.iter().map(Some)).collect();
    let fits: Vec<(Vec<ConstFit>, HwParams)> = tasks
        .par_iter()
        .map(|t| {
            let train: Vec<Pair> = pairs
                .iter()
                .zip(groups)
                .filter(|(_, g)| Some(*g) != *t)
                .map(|(p, _)| p.clone())
                .collect();
            fit_pairs(hw, &train, names)
        })
        .collect::<Result<_, _>>()?;
    let predictions: Vec<(f64, f64, f64)> = pairs
        .par_iter()
        .zip(groups)
        .map(|(p, g)| {
            let k = order.iter().position(|o| o == g).unwrap_or(0);
            Ok((
                tp::predict(p, &[], &hw.params)?,
                tp::predict(p, names, &fits[0].1)?,
                tp::predict(p, names, &fits[k + 1].1)?,
            ))
        })
        .collect::<Result<_, String>>()
        .map_err(CrossvalError::Usage)?;
    let rows: Vec<RowPrediction> = pairs
        .iter()
        .zip(groups)
        .zip(&predictions)
        .map(|((p, g), (b, i, l))| RowPrediction {
            label: p.label.clone(),
            group: g.clone(),
            measured_tok_s: p.measured_tok_s,
            bundled_tok_s: fit::sig6(*b),
            in_sample_tok_s: fit::sig6(*i),
            left_out_tok_s: fit::sig6(*l),
        })
        .collect();
    let pick = |rs: &[&RowPrediction], f: &dyn Fn(&RowPrediction) -> f64| -> Summary {
        Summary::of(&rs.iter().map(|r| (f(r), r.measured_tok_s)).collect::<Vec<_>>())
    };
    let mut reports = Vec::new();
    for (k, g) in order.iter().enumerate() {
        let rs: Vec<&RowPrediction> = rows.iter().filter(|r| r.group == *g).collect();
        reports.push(GroupReport {
            name: g.clone(),
            rows: rs.len(),
            training_rows: rows.len() - rs.len(),
            bundled: pick(&rs, &|r| r.bundled_tok_s),
            in_sample: pick(&rs, &|r| r.in_sample_tok_s),
            left_out: pick(&rs, &|r| r.left_out_tok_s),
            fold: fits[k + 1].0.clone(),
        });
    }
    let all: Vec<&RowPrediction> = rows.iter().collect();
    let med = |f: &dyn Fn(&GroupReport) -> f64| fit::sig6(fit::lm::median(reports.iter().map(f).collect()));
    let overall = Overall {
        bundled: pick(&all, &|r| r.bundled_tok_s),
        in_sample: pick(&all, &|r| r.in_sample_tok_s),
        left_out: pick(&all, &|r| r.left_out_tok_s),
        median_of_group_medians: Medians {
            bundled: med(&|g| g.bundled.median_abs_error),
            in_sample: med(&|g| g.in_sample.median_abs_error),
            left_out: med(&|g| g.left_out.median_abs_error),
        },
    };
    Ok(Outcome {
        in_sample: fits[0].0.clone(),
        groups: reports,
        rows,
        overall,
    })
}

/// The printed tables.
pub fn text(r: &Report) -> String {
    let mut o = String::new();
    header_text(&mut o, r);
    errors_table(&mut o, r);
    fits_table(&mut o, r);
    rows_table(&mut o, r);
    o
}

/// The title and what was fitted, from which start.
fn header_text(o: &mut String, r: &Report) {
    let starts = r
        .in_sample
        .iter()
        .map(|c| format!("{} {} {}", c.name, short(c.prior), unit_label(&c.name)))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        o,
        "crossval throughput: {} ({} rows in {} groups by `{}`{})",
        r.pairs,
        r.rows.len(),
        r.groups.len(),
        r.group_by,
        r.output_len
            .map(|n| format!(", {n} output tokens per request"))
            .unwrap_or_default()
    );
    o.push_str(&wrap(
        &format!(
            "fitted: {}; every fit starts from {}'s values ({starts}), which stay where a fold's rows do not determine them",
            r.params.join(", "),
            r.hardware
        ),
        104,
        2,
    ));
    let _ = writeln!(o);
}

/// The table of median errors per group and over all rows.
fn errors_table(o: &mut String, r: &Report) {
    let _ = writeln!(
        o,
        "Median |relative error| of decode tok/s per group. bundled: each row's scenario with its presets as\nshipped (see their [params] comments for what those values were chosen on); in-sample: one fit on all\nrows; out-of-sample: fitted without the group, the group predicted."
    );
    let mut t = vec![
        vec![
            String::new(),
            String::new(),
            String::new(),
            "in-sample".into(),
            "out-of-sample".into(),
            "out-of-sample".into(),
        ],
        vec![
            "group".into(),
            "rows".into(),
            "bundled".into(),
            "all rows".into(),
            "left out".into(),
            "worst ratio".into(),
        ],
    ];
    for g in &r.groups {
        t.push(vec![
            g.name.clone(),
            g.rows.to_string(),
            pct(g.bundled.median_abs_error),
            pct(g.in_sample.median_abs_error),
            pct(g.left_out.median_abs_error),
            ratio(g.left_out.worst_ratio),
        ]);
    }
    let ov = &r.overall;
    t.push(vec![
        "all rows (median over rows)".into(),
        r.rows.len().to_string(),
        pct(ov.bundled.median_abs_error),
        pct(ov.in_sample.median_abs_error),
        pct(ov.left_out.median_abs_error),
        ratio(ov.left_out.worst_ratio),
    ]);
    t.push(vec![
        "median of the group medians".into(),
        String::new(),
        pct(ov.median_of_group_medians.bundled),
        pct(ov.median_of_group_medians.in_sample),
        pct(ov.median_of_group_medians.left_out),
        String::new(),
    ]);
    t.push(vec![
        "worst ratio over all rows".into(),
        String::new(),
        ratio(ov.bundled.worst_ratio),
        ratio(ov.in_sample.worst_ratio),
        ratio(ov.left_out.worst_ratio),
        String::new(),
    ]);
    o.push_str(&table(&t));
    let _ = writeln!(o);
}

/// The fitted values of each fold, with the notes on values that moved or kept their start.
fn fits_table(o: &mut String, r: &Report) {
    let _ = writeln!(
        o,
        "Fitted values. (prior) = not determined by the fit's rows, kept at the start value; * = at the edge\nof the fit's range (start ÷ 100 … × 100); † = started a decade away, where the rows respond."
    );
    let mut t = vec![
        {
            let mut h = vec!["fit".to_string(), "rows".to_string()];
            h.extend(r.params.iter().cloned());
            h.push("95 % interval".into());
            h
        },
        {
            let mut h = vec![String::new(), String::new()];
            h.extend(r.params.iter().map(|n| unit_label(n).to_string()));
            h
        },
    ];
    let interval = |c: &[ConstFit]| {
        c.iter()
            .map(|c| match (c.ci_low, c.ci_high) {
                (Some(a), Some(b)) => format!("[{}, {}]", short(a), short(b)),
                _ => "—".into(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut row = vec!["all rows (in-sample)".to_string(), r.rows.len().to_string()];
    row.extend(r.in_sample.iter().map(ConstFit::cell));
    row.push(interval(&r.in_sample));
    t.push(row);
    for g in &r.groups {
        let mut row = vec![format!("without {}", g.name), g.training_rows.to_string()];
        row.extend(g.fold.iter().map(ConstFit::cell));
        row.push(interval(&g.fold));
        t.push(row);
    }
    o.push_str(&table(&t));
    let mut fits: Vec<(String, &[ConstFit])> = vec![("all rows".into(), &r.in_sample)];
    fits.extend(
        r.groups
            .iter()
            .map(|g| (format!("without {}", g.name), g.fold.as_slice())),
    );
    o.push_str(&moved_notes(&fits));
    for g in &r.groups {
        for c in g.fold.iter().filter(|c| c.prior_reason.is_some()) {
            let _ = writeln!(
                o,
                "without {}: {} kept its start value ({})",
                g.name,
                c.name,
                c.prior_reason.as_deref().unwrap_or("")
            );
        }
    }
    let _ = writeln!(o);
}

/// Every row: measured, and predicted by the bundled presets, the in-sample fit and its left-out fold.
fn rows_table(o: &mut String, r: &Report) {
    let _ = writeln!(o, "Rows (tok/s; ratio = measured ÷ predicted):");
    let by_row = GroupBy::parse(&r.group_by) == GroupBy::Row;
    let mut t = vec![vec![
        "row".to_string(),
        "group".into(),
        "measured".into(),
        "bundled".into(),
        "ratio".into(),
        "all rows".into(),
        "ratio".into(),
        "left out".into(),
        "ratio".into(),
    ]];
    for x in &r.rows {
        t.push(vec![
            x.label.clone(),
            x.group.clone(),
            format!("{:.1}", x.measured_tok_s),
            format!("{:.1}", x.bundled_tok_s),
            format!("{:.3}", x.measured_tok_s / x.bundled_tok_s),
            format!("{:.1}", x.in_sample_tok_s),
            format!("{:.3}", x.measured_tok_s / x.in_sample_tok_s),
            format!("{:.1}", x.left_out_tok_s),
            format!("{:.3}", x.measured_tok_s / x.left_out_tok_s),
        ]);
    }
    if by_row {
        // Each row is its own group: the column would repeat the label.
        for row in &mut t {
            row.remove(1);
        }
    }
    o.push_str(&table(&t));
}

/// Runs `crossval throughput` (and `hopper`): the text tables, or the JSON object.
pub fn execute(args: &ThroughputArgs) -> Result<String, CrossvalError> {
    let hw = scenario::hardware_from_preset(&args.hardware).map_err(FitError::from)?;
    let mut pairs = tp::read_pairs(&args.pairs)?;
    match args.output_len {
        Some(0) => {
            return Err(CrossvalError::Usage(
                "--output-len 0: expected at least 1 token".into(),
            ));
        }
        Some(n) => tp::set_output_len(&mut pairs, n),
        None => {}
    }
    let names: Vec<String> = args.params.iter().map(|s| s.trim().to_string()).collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(FitError::Param(format!("`{n}` is listed twice")).into());
        }
        if prof::param_unit(n).is_none() {
            return Err(FitError::Param(format!(
                "`{n}` is not a fittable parameter: expected some of {}",
                prof::PROFILE_PARAMS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .into());
        }
        if prof::get(&hw.params, n).is_none_or(|v| v <= 0.0) {
            return Err(FitError::Param(format!(
                "`{n}` is not set > 0 on {}: a fit in log space needs a positive start value",
                args.hardware
            ))
            .into());
        }
    }
    let file = args.pairs.display().to_string();
    let group_by = GroupBy::parse(&args.group);
    let groups = groups_of(&pairs, &group_by, &file)?;
    let o = crossval(&hw, &pairs, &groups, &names)?;
    let r = Report {
        pairs: file,
        hardware: args.hardware.clone(),
        params: names,
        group_by: group_by.name().to_string(),
        output_len: args.output_len,
        in_sample: o.in_sample,
        groups: o.groups,
        rows: o.rows,
        overall: o.overall,
    };
    if args.json {
        serde_json::to_string_pretty(&r)
            .map(|t| t + "\n")
            .map_err(|e| CrossvalError::Usage(format!("JSON: {e}")))
    } else {
        Ok(text(&r))
    }
}

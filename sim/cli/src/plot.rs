//! `tpsim sweep --plot`: an SVG line chart of one metric against one swept key, one line per value of
//! the other swept keys; points that do not start (OOM) are red crosses on the x axis. Drawn with
//! plotters' SVG backend, which writes `<text>` elements and needs no font files.

use plotters::prelude::*;
use tpsim::report::EngineVerdict;
use tpsim::sweep::{PLOTTABLE, Row, Sweep, SweepError};

/// What to draw: the x key, the optional series key, the metric column.
#[derive(Debug, Clone)]
pub struct PlotSpec {
    pub x: String,
    pub series: Option<String>,
    pub metric: String,
}

/// Line colours (Okabe–Ito, distinguishable with colour blindness); cycled past eight series.
const COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];
const OOM_COLOR: RGBColor = RGBColor(200, 0, 0);

/// Axis label of a metric, with its unit.
fn metric_label(m: &str) -> String {
    match m {
        "output_tok_s" => "output throughput (tokens/s)".into(),
        "tpot_ms" => "time per output token (ms)".into(),
        "ttft_ms" => "time to first token (ms)".into(),
        "accept_len_mean" => "mean acceptance length (tokens/iteration)".into(),
        "kv_tokens" => "KV cache (tokens)".into(),
        "min_mem_fraction_static" => "smallest mem_fraction_static that starts (fraction)".into(),
        "allreduce_ms_per_iter" => "allreduce on the critical path (ms/iteration)".into(),
        other => other.into(),
    }
}

/// Axis label of a swept key, with its unit where the scenario reference gives one.
fn key_label(k: &str) -> String {
    let unit = match k.rsplit('.').next().unwrap_or(k) {
        "mem_fraction_static" | "gpu_memory_utilization" => " (fraction of GPU memory)",
        "num_steps" => " (draft steps)",
        "num_draft_tokens" => " (tokens)",
        "concurrency" => " (requests)",
        "prompt_len" | "output_len" | "max_model_len" | "max_total_tokens" => " (tokens)",
        "tp" | "gpus" => " (GPUs)",
        "page_size" => " (tokens/page)",
        _ => "",
    };
    format!("{k}{unit}")
}

/// Checks the chart's keys and metric against the sweep (before any point runs).
pub fn check(sweep: &Sweep, spec: &PlotSpec) -> Result<(), SweepError> {
    layout(sweep, spec).map(|_| ())
}

/// The x key's index and the indices of the keys that tell lines apart.
fn layout(sweep: &Sweep, spec: &PlotSpec) -> Result<(usize, Vec<usize>), SweepError> {
    let usage = SweepError::Usage;
    let find = |k: &str, opt: &str| {
        sweep
            .axes
            .iter()
            .position(|a| a.key == k)
            .ok_or_else(|| usage(format!("{opt} {k}: not a swept key (give it with --set)")))
    };
    let xi = find(&spec.x, "--x")?;
    if !PLOTTABLE.contains(&spec.metric.as_str()) {
        return Err(usage(format!(
            "--metric {}: expected one of {}",
            spec.metric,
            PLOTTABLE.join(", ")
        )));
    }
    // Keys that tell the lines apart: --series, or every other swept key.
    let line_keys: Vec<usize> = match &spec.series {
        Some(s) => {
            let si = find(s, "--series")?;
            if si == xi {
                return Err(usage("--series must differ from --x".into()));
            }
            if let Some(a) = sweep
                .axes
                .iter()
                .enumerate()
                .find(|(k, a)| *k != xi && *k != si && a.values.len() > 1)
            {
                return Err(usage(format!(
                    "--plot: {} has {} values but is neither --x nor --series; fix it to one value or leave out --series (one line per combination)",
                    a.1.key,
                    a.1.values.len()
                )));
            }
            vec![si]
        }
        None => (0..sweep.axes.len()).filter(|&k| k != xi).collect(),
    };
    Ok((xi, line_keys))
}

/// Draws the chart of `rows` as SVG text.
pub fn svg(sweep: &Sweep, rows: &[Row], spec: &PlotSpec, title: &str) -> Result<String, SweepError> {
    let (xi, line_keys) = layout(sweep, spec)?;
    let xs = &sweep.axes[xi].values;
    let numeric = xs.iter().all(|v| v.toml.is_integer() || v.toml.is_float());
    // Integer keys (steps, concurrency) get ticks at integers only.
    let integer = xs.iter().all(|v| v.toml.is_integer());
    let x_of = |r: &Row| -> f64 {
        let v = &r.inputs[xi];
        match v.toml {
            toml::Value::Integer(i) if numeric => i as f64,
            toml::Value::Float(f) if numeric => f,
            _ => xs.iter().position(|x| x.text == v.text).unwrap_or(0) as f64,
        }
    };
    // Lines in order of first appearance (point order), so the legend follows the --set order.
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
    let mut ooms: Vec<f64> = Vec::new();
    for r in rows {
        let label = line_keys
            .iter()
            .map(|&k| format!("{}={}", sweep.axes[k].key, r.inputs[k].text))
            .collect::<Vec<_>>()
            .join(", ");
        let pos = match lines.iter().position(|l| l.0 == label) {
            Some(p) => p,
            None => {
                lines.push((label, Vec::new()));
                lines.len() - 1
            }
        };
        match (r.verdict, r.metric(&spec.metric)) {
            (EngineVerdict::Ok, Some(y)) => lines[pos].1.push((x_of(r), y)),
            (EngineVerdict::Oom, _) => ooms.push(x_of(r)),
            _ => {}
        }
    }
    let all_x: Vec<f64> = rows.iter().map(x_of).collect();
    let (mut x0, mut x1) = bounds(all_x.iter().copied());
    if !numeric || x1 - x0 <= 0.0 {
        x0 -= 0.5;
        x1 += 0.5;
    } else {
        let pad = (x1 - x0) * 0.05;
        x0 -= pad;
        x1 += pad;
    }
    let (_, ymax) = bounds(lines.iter().flat_map(|l| l.1.iter().map(|p| p.1)));
    let y1 = if ymax > 0.0 { ymax * 1.1 } else { 1.0 };

    let mut buf = String::new();
    let draw = |buf: &mut String| -> Result<(), Box<dyn std::error::Error>> {
        let root = SVGBackend::with_string(buf, (960, 600)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x1, 0.0..y1)?;
        let labels: Vec<String> = xs.iter().map(|v| v.text.clone()).collect();
        let fmt_x = |x: &f64| -> String {
            if integer && (x - x.round()).abs() > 1e-9 {
                String::new()
            } else if numeric {
                let s = format!("{x:.4}");
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            }
        };
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(key_label(&spec.x))
            .y_desc(metric_label(&spec.metric))
            .x_label_formatter(&fmt_x)
            .axis_desc_style(("sans-serif", 16));
        if !numeric {
            mesh.x_labels(labels.len() * 2 + 1);
        }
        mesh.draw()?;
        for (k, (label, pts)) in lines.iter().enumerate() {
            let c = COLORS[k % COLORS.len()];
            let label = if label.is_empty() {
                spec.metric.clone()
            } else {
                label.clone()
            };
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, c.filled())))?;
        }
        if !ooms.is_empty() {
            chart
                .draw_series(
                    ooms.iter()
                        .map(|&x| Cross::new((x, 0.0), 7, OOM_COLOR.stroke_width(3))),
                )?
                .label("OOM (does not start)")
                .legend(|(x, y)| Cross::new((x + 10, y), 5, OOM_COLOR.stroke_width(3)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw(&mut buf).map_err(|e| SweepError::Output(format!("drawing the chart: {e}")))?;
    Ok(buf)
}

/// Smallest and largest of finite values ((0, 0) when none).
fn bounds(v: impl Iterator<Item = f64>) -> (f64, f64) {
    v.filter(|x| x.is_finite())
        .fold(None, |acc: Option<(f64, f64)>, x| match acc {
            None => Some((x, x)),
            Some((lo, hi)) => Some((lo.min(x), hi.max(x))),
        })
        .unwrap_or((0.0, 0.0))
}

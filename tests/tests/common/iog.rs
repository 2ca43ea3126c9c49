//! The IOG-Foundation/llm-inference-benchmarks rows (suites `throughput_newdeploys14` and
//! `throughput_newdeploys15`): one row's comparison, and the check that each scenario's workload is the
//! file's run. Both suites express the files the same way, so the logic lives here once.

use super::{data_path, f, measured_throughput, read_tsv, run_json, scenario, scenario_int_key};
use crate::throughput_rows::validate;

/// One compared row: (model, notes prefix, the file's median TPOT in ms, scenario file, label).
pub type IogRow = (&'static str, &'static str, f64, &'static str, &'static str);

/// Compares `row` of source `src`: the measured value (checked against 1000 ÷ the file's median TPOT,
/// rounded to 0.1 tok/s) and 1000 ÷ tpsim's median TPOT of `validation/FILE`.
pub fn compare(src: &str, row: &IogRow) {
    let (model, note, median_tpot_ms, file, label) = *row;
    let m = measured_throughput(src, model, |n| n.starts_with(note));
    assert!((m - 1000.0 / median_tpot_ms).abs() < 0.05, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]));
}

/// Each scenario is its file's run: tp from the row (the README sets tensor parallelism to every GPU),
/// 200 requests (`--num-prompts 200`), the request rate from the notes, and prompt_len / output_len the
/// file's totals ÷ 200, rounded.
pub fn workload_is_the_files_means(src: &str, rows: &[IogRow]) {
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, o, tp) = (t.col("source"), t.col("model"), t.col("notes"), t.col("tp"));
    for (model, note, _, file, _) in rows {
        let row = t
            .rows
            .iter()
            .find(|r| r.get(s).starts_with(src) && r.get(m) == *model && r.get(o).starts_with(note))
            .unwrap_or_else(|| panic!("no row {note}"));
        let notes = row.get(o);
        // "... request rate 16 (Poisson), no max concurrency: 41169 input and 42322 output tokens in ..."
        let rate: u64 = notes
            .split("request rate ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("{file}: no request rate in the notes"));
        let w: Vec<&str> = notes
            .split("no max concurrency: ")
            .nth(1)
            .unwrap_or_else(|| panic!("{file}: no token totals in the notes"))
            .split_whitespace()
            .collect();
        let (inp, out): (u64, u64) = (w[0].parse().unwrap(), w[3].parse().unwrap());
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(scenario_int_key(&text, "tp").to_string(), row.get(tp), "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), 200, "{file}");
        assert_eq!(scenario_int_key(&text, "request_rate"), rate, "{file}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), (inp + 100) / 200, "{file}");
        assert_eq!(scenario_int_key(&text, "output_len"), (out + 100) / 200, "{file}");
    }
}

/// One result file's statistic from `iog-itl.tsv` (pcielight59's table of the distills' latency
/// statistics): the row of (model, tp, request rate), the named column, in ms.
pub fn itl_stat(model: &str, tp: u32, rate: u32, column: &str) -> f64 {
    let t = read_tsv(&data_path("iog-itl.tsv"));
    let (m, g, r, c) = (t.col("model"), t.col("tp"), t.col("request_rate"), t.col(column));
    let row = t
        .rows
        .iter()
        .find(|x| x.get(m) == model && x.get(g) == tp.to_string() && x.get(r) == rate.to_string())
        .unwrap_or_else(|| panic!("iog-itl.tsv: no {model} TP {tp} at {rate} req/s"));
    row.get(c)
        .parse()
        .unwrap_or_else(|e| panic!("iog-itl.tsv line {}: {column}: {e}", row.line))
}

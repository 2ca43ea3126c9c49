//! Issue #7 item 4, host overheads: `fit-host` turns SGLang decode lines into iteration times and
//! fits `[engine.costs] host_overhead` as their residual over tpsim's device time, with a 95 %
//! interval; a round trip from a known overhead, a hand-written log, and bad input.

use crate::common::*;
use rand::SeedableRng;
use rand::distr::Distribution;
use rand_chacha::ChaCha8Rng;
use statrs::distribution::Normal;
use std::path::{Path, PathBuf};
use tpsim::scenario;
use tpsim_calibrate::fit::host;
use tpsim_calibrate::measurement::{MeasurementFile, Provenance, Record};

/// Llama-3.1-8B on one H100 (scenarios/examples/llama-3.1-8b-h100.toml) with the overlap scheduler
/// off, written into `dir`.
fn llama_no_overlap(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(scenario("examples/llama-3.1-8b-h100.toml")).unwrap();
    let text = text.replace(
        "mem_fraction_static = 0.88\n",
        "mem_fraction_static = 0.88\ndisable_overlap_schedule = true\n",
    );
    let p = dir.join("llama.toml");
    std::fs::write(&p, text).unwrap();
    p
}

/// The hand-written SGLang decode log ingested into `dir/serve.json`; returns its path.
fn ingested_llama_log(dir: &Path) -> String {
    let meas = dir.join("serve.json").display().to_string();
    let o = calibrate(&[
        "ingest",
        &fixture("sglang-decode-llama-8b-h100.log"),
        "--out",
        &meas,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    meas
}

#[test]
fn a_known_host_overhead_is_fitted_back_within_its_interval() {
    let dir = scratch("fit-host-round-trip");
    let file = llama_no_overlap(&dir);
    let s = scenario::load(&file).unwrap();
    const TRUE_US: f64 = 250.0;
    let noise = Normal::new(0.0, 0.01).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut m = MeasurementFile::new(Provenance {
        tool: "synthetic".into(),
        ..Provenance::default()
    });
    for batch in [1u32, 2, 4, 8] {
        for ctx in [256u32, 2048] {
            let t =
                (host::device_iteration_us(&s, batch, ctx).unwrap() + TRUE_US) * noise.sample(&mut rng).exp();
            m.records.push(Record::DecodeThroughput {
                engine: "sglang".into(),
                batch,
                tok_s: f64::from(batch) / t * 1e6,
                accept_len: None,
                context_tokens: Some(u64::from(batch * ctx)),
                tpot_ms: None,
                ttft_ms: None,
                input_len: None,
                output_len: None,
                measure: None,
            });
        }
    }
    let meas = write(&dir, "decode.json", &serde_json::to_string(&m).unwrap());
    let out = dir.join("costs.toml");
    let o = calibrate(&[
        "fit-host",
        &meas,
        "--scenario",
        &file.display().to_string(),
        "--out",
        &out.display().to_string(),
    ]);
    println!("{}", o.stdout);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows = host::rows_of(&s, "decode.json", &m.records).unwrap();
    let f = host::fit(&s, rows).unwrap();
    assert_eq!(f.rows.len(), 8);
    assert!(
        f.ci_low_us <= TRUE_US && TRUE_US <= f.ci_high_us,
        "{} [{}, {}]",
        f.value_us,
        f.ci_low_us,
        f.ci_high_us
    );
    // 1 % noise on ≈ 6.5–9 ms iterations: the interval is narrower than ±80 µs.
    assert!(f.ci_high_us - f.ci_low_us < 160.0, "{f:?}");
    // The fragment is a valid `[engine.costs]` table holding the value.
    let frag = std::fs::read_to_string(&out).unwrap();
    let t: toml::Table = toml::from_str(&frag).unwrap();
    assert_eq!(
        t["engine"]["costs"]["host_overhead"].as_str(),
        Some(format!("{:.1}us", f.value_us).as_str())
    );
    assert!(frag.contains("95 % interval ["), "{frag}");
}

#[test]
fn hand_written_sglang_log_gives_iteration_times_and_the_mean_residual() {
    let dir = scratch("fit-host-log");
    let file = llama_no_overlap(&dir);
    let meas = ingested_llama_log(&dir);
    let o = calibrate(&["fit-host", &meas, "--scenario", &file.display().to_string()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    println!("{}", o.stdout);
    // Iteration = batch ÷ gen throughput: 1 / 146 = 6849.3 µs, 1 / 143.5 = 6968.6 µs,
    // 4 / 570 = 7017.5 µs, 4 / 555 = 7207.2 µs; context #token ÷ batch = 512, 1024, 512, 1024.
    // The idle line (0 tok/s) is left out.
    for (batch, ctx, us) in [
        (1, 512, "6849.3"),
        (1, 1024, "6968.6"),
        (4, 512, "7017.5"),
        (4, 1024, "7207.2"),
    ] {
        let line = o
            .stdout
            .lines()
            .find(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                w.len() == 5 && w[0] == batch.to_string() && w[1] == ctx.to_string()
            })
            .unwrap_or_else(|| panic!("no row batch {batch} ctx {ctx}: {}", o.stdout));
        assert!(line.contains(us), "{line}");
    }
    // The value is the mean of the printed residuals (to the printed 0.1 µs).
    let res: Vec<f64> = o
        .stdout
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w.len() == 5).then(|| w[4].parse::<f64>().ok()).flatten()
        })
        .collect();
    assert_eq!(res.len(), 4);
    let mean = res.iter().sum::<f64>() / 4.0;
    let line = o.stdout.lines().find(|l| l.starts_with("host_overhead")).unwrap();
    let v: f64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!((v - mean).abs() < 0.06, "{v} vs {mean}: {line}");
    assert!(v > 0.0 && v < 1000.0, "{line}");
}

#[test]
fn bad_input_exits_2() {
    let dir = scratch("fit-host-bad");
    let meas = ingested_llama_log(&dir);
    // The overlap scheduler hides host work: refused.
    let o = calibrate(&[
        "fit-host",
        &meas,
        "--scenario",
        &scenario("examples/llama-3.1-8b-h100.toml"),
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("overlap scheduler hides the host work"),
        "{}",
        o.stderr
    );
    // A speculative scenario needs the accept length of every line.
    let o = calibrate(&["fit-host", &meas, "--scenario", &scenario("seed/baseline.toml")]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("records[0]") && o.stderr.contains("no accept len"),
        "{}",
        o.stderr
    );
    // No decode record at all.
    let empty = write(
        &dir,
        "empty.json",
        r#"{"schema":"tpsim-measurements/1","provenance":{"tool":"x"},"records":[]}"#,
    );
    let file = llama_no_overlap(&dir);
    let o = calibrate(&["fit-host", &empty, "--scenario", &file.display().to_string()]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("no SGLang decode_throughput record"),
        "{}",
        o.stderr
    );
}

//! `tpsim-calibrate trace-from-bench` (issue #18 point 2): a bench_serving result with per-request
//! details (SGLang 0.5.9 `python -m sglang.bench_serving --output-file F --output-details`, one
//! JSON object per line; vLLM 0.11.0 `vllm bench serve --save-result --save-detailed`, one JSON
//! object) turned into the request trace `[workload] trace` replays: one line per request with its
//! `prompt` (`input_lens[i]`) and `output` (`output_lens[i]`) tokens. bench_serving does not save
//! when it sent each request, so the trace is untimed: it replays at the scenario's concurrency
//! or `request_rate`. Requests that produced no token (failed) are left out and counted.

use std::io::Write;
use std::path::{Path, PathBuf};

use tpsim::workload::trace::{MAX_RECORDS, MAX_TOKENS};

use crate::cli::{EXIT_BAD_INPUT, EXIT_FAILURE};

#[derive(Debug, clap::Args)]
pub struct TraceFromBenchArgs {
    /// The bench_serving result (JSON, or JSON lines: one object per run).
    file: PathBuf,
    /// Which run of a JSON-lines file (1-based; required when it holds several with details).
    #[arg(long)]
    run: Option<usize>,
    /// Write the trace here instead of standard output.
    #[arg(long, value_name = "FILE.jsonl")]
    out: Option<PathBuf>,
}

/// Errors naming the file and, where there is one, the line.
#[derive(Debug, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ConvertError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

/// The converted trace: its JSON lines and how many failed requests were left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    pub lines: Vec<String>,
    pub skipped: usize,
}

/// Converts the text of a bench_serving result.
pub fn convert(path: &Path, text: &str, run: Option<usize>) -> Result<Converted, ConvertError> {
    let file = path.display().to_string();
    let err = |line: Option<usize>, message: String| ConvertError {
        file: file.clone(),
        line,
        message,
    };
    // Runs with details: (line, object).
    let mut runs: Vec<(usize, serde_json::Value)> = Vec::new();
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(v) => runs.push((1, v)),
        Err(_) => {
            for (i, l) in text.lines().enumerate() {
                if l.trim().is_empty() {
                    continue;
                }
                let v: serde_json::Value =
                    serde_json::from_str(l).map_err(|e| err(Some(i + 1), format!("not JSON: {e}")))?;
                runs.push((i + 1, v));
            }
        }
    }
    runs.retain(|(_, v)| v.get("input_lens").is_some());
    let (line, v) = match (run, runs.len()) {
        (_, 0) => {
            return Err(err(
                None,
                "no run with per-request `input_lens`/`output_lens`: rerun bench_serving with \
                 --output-details (SGLang) or --save-result --save-detailed (vLLM)"
                    .into(),
            ));
        }
        (None, 1) => runs.swap_remove(0),
        (None, n) => {
            return Err(err(
                None,
                format!("{n} runs with details: pick one with --run 1..{n}"),
            ));
        }
        (Some(r), n) if r == 0 || r > n => return Err(err(None, format!("--run {r}: expected 1..{n}"))),
        (Some(r), _) => runs.swap_remove(r - 1),
    };
    let list = |key: &str| -> Result<Vec<u64>, ConvertError> {
        v.get(key)
            .and_then(|x| x.as_array())
            .ok_or_else(|| err(Some(line), format!("`{key}`: expected an array of token counts")))?
            .iter()
            .map(|x| {
                x.as_u64()
                    .ok_or_else(|| err(Some(line), format!("`{key}`: {x} is not a token count")))
            })
            .collect()
    };
    let (ins, outs) = (list("input_lens")?, list("output_lens")?);
    if ins.len() != outs.len() {
        return Err(err(
            Some(line),
            format!(
                "{} input_lens but {} output_lens: expected one of each per request",
                ins.len(),
                outs.len()
            ),
        ));
    }
    if ins.len() > MAX_RECORDS as usize {
        return Err(err(
            Some(line),
            format!("{} requests: at most {MAX_RECORDS}", ins.len()),
        ));
    }
    let mut lines = Vec::with_capacity(ins.len());
    let mut skipped = 0;
    for (i, (&p, &o)) in ins.iter().zip(&outs).enumerate() {
        if o == 0 || p == 0 {
            skipped += 1;
            continue;
        }
        if p + o > MAX_TOKENS {
            return Err(err(
                Some(line),
                format!("request {i}: {p} + {o} tokens exceeds the trace limit of {MAX_TOKENS}"),
            ));
        }
        lines.push(format!("{{\"prompt\": {p}, \"output\": {o}}}"));
    }
    if lines.is_empty() {
        return Err(err(Some(line), "no request produced a token".into()));
    }
    Ok(Converted { lines, skipped })
}

pub fn run(a: TraceFromBenchArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let text = match tpsim::files::read_text(&a.file) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "error: {}: {e}", a.file.display());
            return EXIT_BAD_INPUT;
        }
    };
    let c = match convert(&a.file, &text, a.run) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    if c.skipped > 0 {
        let _ = writeln!(
            err,
            "note: left out {} requests that produced no token",
            c.skipped
        );
    }
    let body = c.lines.join("\n") + "\n";
    match &a.out {
        Some(p) => match tpsim::files::write_output(p, &[&a.file], body.as_bytes()) {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(err, "error: {e}");
                if e.is_bad_input() {
                    EXIT_BAD_INPUT
                } else {
                    EXIT_FAILURE
                }
            }
        },
        None => match out.write_all(body.as_bytes()) {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(err, "error: writing the trace: {e}");
                EXIT_FAILURE
            }
        },
    }
}

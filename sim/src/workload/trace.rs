//! Request traces (issue #18 point 2): one JSON object per line,
//!
//! `{"arrival_ms": 12.5, "prompt": 812, "output": 128, "prefix_group": 3, "prefix_len": 256}`
//!
//! `arrival_ms` (milliseconds, non-decreasing, relative to the first record; optional, but on every
//! line or on none: without it the trace replays as a closed loop at the workload's concurrency),
//! `prompt` and `output` tokens, and optionally a shared prefix (`prefix_group` with `prefix_len`
//! ≤ `prompt`). `tpsim-calibrate trace-from-bench` writes one from a bench_serving result. The
//! file is read streaming: once when the scenario resolves (to validate it and count records),
//! then again while the serving loop pulls requests.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Longest line accepted, bytes (a record is five numbers; anything longer is not a record).
pub const MAX_LINE_BYTES: usize = 4096;
/// Most records a trace may hold (the workload's 1,000,000-request ceiling).
pub const MAX_RECORDS: u32 = 1_000_000;
/// Largest prompt + output of one record (the workload's 10M-token ceiling).
pub const MAX_TOKENS: u64 = 10_000_000;
/// Latest arrival after the first record, ms: 10⁹ ms = 10⁶ s, the span `request_rate` arrivals are held
/// to (`scenario::workload_load`), far inside the loop's integer picoseconds (u64 holds 1.8·10⁷ s).
pub const MAX_ARRIVAL_MS: f64 = 1e9;

/// One line of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    pub arrival_ms: Option<f64>,
    pub prompt: u32,
    pub output: u32,
    pub prefix_group: Option<u32>,
    pub prefix_len: Option<u32>,
}

/// A bad trace line (`file:line: message`) or an unreadable file (`file: message`, line 0).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", if *line == 0 { String::new() } else { format!(":{line}") })]
pub struct TraceError {
    pub file: String,
    /// 1-based line of the bad record; 0 when the file itself cannot be opened.
    pub line: usize,
    pub message: String,
}

/// What a validating pass learned about a trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSpec {
    pub path: PathBuf,
    pub records: u32,
    /// Whether records carry `arrival_ms` (open loop) or not (closed loop).
    pub timed: bool,
    pub prompt: (u32, u32, f64),
    pub output: (u32, u32, f64),
}

/// Reads records one line at a time.
#[derive(Debug)]
pub struct TraceReader {
    file: String,
    reader: BufReader<File>,
    line: usize,
    buf: Vec<u8>,
    timed: Option<bool>,
    last_ms: f64,
    first_ms: Option<f64>,
}

impl TraceReader {
    /// Opens `path`.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let file = path.display().to_string();
        let f = crate::files::open_stream(path).map_err(|e| TraceError {
            file: file.clone(),
            line: 0,
            message: format!("cannot read: {e}"),
        })?;
        Ok(TraceReader {
            file,
            reader: BufReader::new(f),
            line: 0,
            buf: Vec::new(),
            timed: None,
            last_ms: 0.0,
            first_ms: None,
        })
    }

    fn err(&self, message: impl Into<String>) -> TraceError {
        TraceError {
            file: self.file.clone(),
            line: self.line,
            message: message.into(),
        }
    }

    /// The next record with its arrival relative to the first record (ms), `None` at the end.
    pub fn next_record(&mut self) -> Option<Result<(Record, Option<f64>), TraceError>> {
        loop {
            self.buf.clear();
            self.line += 1;
            let limit = MAX_LINE_BYTES as u64 + 1;
            match (&mut self.reader).take(limit).read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(e) => return Some(Err(self.err(format!("cannot read: {e}")))),
            }
            if self.buf.len() > MAX_LINE_BYTES && self.buf.last() != Some(&b'\n') {
                return Some(Err(self.err(format!("line longer than {MAX_LINE_BYTES} bytes"))));
            }
            let buf = std::mem::take(&mut self.buf);
            let out = match std::str::from_utf8(&buf) {
                Ok(t) if t.trim().is_empty() || t.trim().starts_with('#') => None,
                Ok(t) => Some(self.check(t.trim())),
                Err(_) => Some(Err(self.err("not UTF-8"))),
            };
            self.buf = buf;
            if out.is_some() {
                return out;
            }
        }
    }

    fn check(&mut self, text: &str) -> Result<(Record, Option<f64>), TraceError> {
        let r: Record = serde_json::from_str(text).map_err(|e| {
            self.err(format!(
                "{e}: expected {{\"arrival_ms\": ms, \"prompt\": tokens, \"output\": tokens}} \
                 (optional \"prefix_group\", \"prefix_len\")"
            ))
        })?;
        if r.prompt == 0 {
            return Err(self.err("prompt: expected at least 1 token"));
        }
        if r.output == 0 {
            return Err(self.err("output: expected at least 1 token"));
        }
        if u64::from(r.prompt) + u64::from(r.output) > MAX_TOKENS {
            return Err(self.err("prompt + output exceeds 10M tokens"));
        }
        match (r.prefix_group, r.prefix_len) {
            (Some(_), Some(l)) if l > r.prompt => {
                return Err(self.err(format!("prefix_len {l} exceeds prompt {}", r.prompt)));
            }
            (Some(_), None) | (None, Some(_)) => {
                return Err(self.err("prefix_group and prefix_len go together"));
            }
            _ => {}
        }
        let timed = r.arrival_ms.is_some();
        if *self.timed.get_or_insert(timed) != timed {
            return Err(self.err("arrival_ms: on every record or on none"));
        }
        let rel = match r.arrival_ms {
            Some(ms) => {
                if !ms.is_finite() || ms < 0.0 {
                    return Err(self.err(format!("arrival_ms {ms}: expected a finite time ≥ 0")));
                }
                if ms < self.last_ms {
                    return Err(self.err(format!(
                        "arrival_ms {ms} is before the previous record's {}: expected non-decreasing times",
                        self.last_ms
                    )));
                }
                self.last_ms = ms;
                let first = *self.first_ms.get_or_insert(ms);
                if ms - first > MAX_ARRIVAL_MS {
                    return Err(self.err(format!(
                        "arrival_ms {ms} is {} ms after the first record's {first}: expected at most \
                         {MAX_ARRIVAL_MS} ms (10⁶ s)",
                        ms - first
                    )));
                }
                Some(ms - first)
            }
            None => None,
        };
        Ok((r, rel))
    }
}

/// Reads the whole trace once (streaming), checking every line and the record count.
pub fn validate(path: &Path) -> Result<TraceSpec, TraceError> {
    let mut r = TraceReader::open(path)?;
    let mut n = 0u32;
    let (mut p, mut o) = ((u32::MAX, 0u32, 0f64), (u32::MAX, 0u32, 0f64));
    while let Some(rec) = r.next_record() {
        let (rec, _) = rec?;
        n += 1;
        if n > MAX_RECORDS {
            return Err(r.err(format!("more than {MAX_RECORDS} records")));
        }
        for (acc, v) in [(&mut p, rec.prompt), (&mut o, rec.output)] {
            acc.0 = acc.0.min(v);
            acc.1 = acc.1.max(v);
            acc.2 += f64::from(v);
        }
    }
    if n == 0 {
        return Err(r.err("no records: expected at least one JSON line"));
    }
    Ok(TraceSpec {
        path: path.to_path_buf(),
        records: n,
        timed: r.timed.unwrap_or(false),
        prompt: (p.0, p.1, p.2 / f64::from(n)),
        output: (o.0, o.1, o.2 / f64::from(n)),
    })
}

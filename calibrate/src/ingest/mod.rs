//! `tpsim-calibrate ingest`: parsers that turn what users already have — nccl-tests tables, SGLang
//! and vLLM server logs, SGLang benchmark JSON — into [`Record`]s of the measurement file.
//!
//! Every parser reads the whole text and returns the records in the order their lines appear, so
//! the same input always gives the same file. A line that looks like one the parser knows but
//! holds something else where a number belongs is an error naming the line and what was expected;
//! a log that simply stops early (a start-up that never reached the KV line, a table without its
//! footer) gives what could be read plus a warning.

mod bench_json;
mod nccl_tests;
mod sglang_log;
mod vllm_log;

use crate::measurement::{MeasurementFile, Provenance, Record};
use std::path::Path;

/// Input formats `ingest` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// nccl-tests' `all_reduce_perf` / `all_gather_perf` (any `*_perf`) standard output.
    NcclTests,
    /// An SGLang server (or bench_one_batch) log.
    SglangLog,
    /// A vLLM server log.
    VllmLog,
    /// SGLang `bench_serving` / `bench_one_batch` result files (JSON objects, one per line or
    /// concatenated).
    SglangBenchJson,
}

impl Format {
    /// The `--format` names.
    pub fn from_name(name: &str) -> Option<Option<Format>> {
        Some(match name {
            "auto" => None,
            "nccl-tests" => Some(Format::NcclTests),
            "sglang-log" => Some(Format::SglangLog),
            "vllm-log" => Some(Format::VllmLog),
            "sglang-bench-json" => Some(Format::SglangBenchJson),
            _ => return None,
        })
    }

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::NcclTests => "nccl-tests",
            Format::SglangLog => "sglang-log",
            Format::VllmLog => "vllm-log",
            Format::SglangBenchJson => "sglang-bench-json",
        }
    }
}

/// A parse failure inside one file: the 1-based line and what was expected there.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct LineError {
    pub line: usize,
    pub message: String,
}

impl LineError {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            message: message.into(),
        }
    }
}

/// Errors of `ingest` (all bad input: exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}:{line}: {message}")]
    Malformed {
        file: String,
        line: usize,
        message: String,
    },
    #[error(
        "{file}: cannot tell the format (expected nccl-tests output, an SGLang or vLLM log, or SGLang bench JSON); give --format"
    )]
    Unknown { file: String },
    /// A format forced with `--format` that finds nothing in the file: an empty success would hide
    /// the wrong format.
    #[error("{file}: --format {format} found no measurements in it{hint}")]
    NothingFound {
        file: String,
        format: &'static str,
        hint: String,
    },
}

/// What one parser read from one file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    pub records: Vec<Record>,
    /// Warnings about partial or ambiguous input (also written to provenance notes).
    pub warnings: Vec<String>,
    /// Machine facts the input states (GPU name, count, host, NCCL version).
    pub meta: Meta,
}

/// Machine facts found in an input.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    pub machine: Option<String>,
    pub gpu: Option<String>,
    pub gpu_count: Option<u32>,
    pub nccl_version: Option<String>,
}

/// Guesses the format from the content (the first marker found decides).
pub fn detect(text: &str) -> Option<Format> {
    let t = text.trim_start();
    // JSON objects, or an array of them; a log line may start with `[DATE …]`, never `[{`.
    let array_of_objects = t
        .strip_prefix('[')
        .is_some_and(|r| r.trim_start().starts_with(['{', ']']));
    if t.starts_with('{') || array_of_objects {
        return Some(Format::SglangBenchJson);
    }
    const NCCL: &[&str] = &[
        "# nThread ",
        "# Collective test starting",
        "# Avg bus bandwidth",
        "out-of-place",
    ];
    const SGLANG: &[&str] = &[
        "Load weight begin",
        "Load weight end",
        "KV Cache is allocated",
        "Decode batch",
        "max_total_num_tokens=",
        "Capture cuda graph",
        "Memory pool end",
    ];
    const VLLM: &[&str] = &[
        "GPU KV cache size:",
        "Available KV cache memory:",
        "Model loading took",
        "Avg generation throughput:",
    ];
    for (markers, f) in [
        (NCCL, Format::NcclTests),
        (VLLM, Format::VllmLog),
        (SGLANG, Format::SglangLog),
    ] {
        if markers.iter().any(|m| text.contains(m)) {
            return Some(f);
        }
    }
    None
}

/// Parses text in a known format; `name` is the file name (nccl-tests' op can come from it).
pub fn parse(text: &str, format: Format, name: &str) -> Result<Parsed, LineError> {
    match format {
        Format::NcclTests => nccl_tests::parse(text, name),
        Format::SglangLog => sglang_log::parse(text),
        Format::VllmLog => vllm_log::parse(text),
        Format::SglangBenchJson => bench_json::parse(text),
    }
}

/// Reads and parses one file; `format` None detects it. A forced format that finds no record is an
/// error ([`IngestError::NothingFound`]); a detected one gives a warning instead (a log cut short).
pub fn ingest_file(path: &Path, format: Option<Format>) -> Result<(Format, Parsed), IngestError> {
    let file = path.display().to_string();
    let text = tpsim::files::read_text(path).map_err(|e| IngestError::Io {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let forced = format.is_some();
    let format = match format.or_else(|| detect(&text)) {
        Some(f) => f,
        None => return Err(IngestError::Unknown { file }),
    };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parsed = parse(&text, format, name).map_err(|e| IngestError::Malformed {
        file: file.clone(),
        line: e.line,
        message: e.message,
    })?;
    if forced && parsed.records.is_empty() {
        let hint = match detect(&text) {
            Some(d) if d != format => format!(
                " (its content looks like {0}: try --format {0} or auto)",
                d.name()
            ),
            Some(_) => " (its lines of that format hold no complete measurement)".into(),
            None => " (its content matches none of the formats ingest reads)".into(),
        };
        return Err(IngestError::NothingFound {
            file,
            format: format.name(),
            hint,
        });
    }
    Ok((format, parsed))
}

/// Ingests files into one measurement file, in the order given; warnings go to provenance notes
/// prefixed with their file, and are returned for the caller to print.
pub fn ingest_files(
    paths: &[&Path],
    format: Option<Format>,
    label: Option<&str>,
) -> Result<(MeasurementFile, Vec<String>), IngestError> {
    let mut out = MeasurementFile::new(Provenance {
        tool: "ingest".into(),
        machine: label.map(str::to_string),
        ..Provenance::default()
    });
    let mut warnings = Vec::new();
    for p in paths {
        let (format, parsed) = ingest_file(p, format)?;
        let file = p.display().to_string();
        let pv = &mut out.provenance;
        pv.sources.push(file.clone());
        if label.is_none() {
            merge(
                &mut pv.machine,
                parsed.meta.machine,
                "machine",
                &file,
                &mut warnings,
            );
        }
        merge(&mut pv.gpu, parsed.meta.gpu, "GPU", &file, &mut warnings);
        merge(
            &mut pv.gpu_count,
            parsed.meta.gpu_count,
            "GPU count",
            &file,
            &mut warnings,
        );
        merge(
            &mut pv.nccl_version,
            parsed.meta.nccl_version,
            "NCCL version",
            &file,
            &mut warnings,
        );
        if parsed.records.is_empty() {
            warnings.push(format!(
                "{file}: no measurements found in this {} input",
                format.name()
            ));
        }
        warnings.extend(parsed.warnings.into_iter().map(|w| format!("{file}: {w}")));
        out.records.extend(parsed.records);
    }
    out.provenance.notes.extend(warnings.iter().cloned());
    Ok((out, warnings))
}

/// Keeps the first value of a provenance fact; a different later value is a warning.
fn merge<T: PartialEq + std::fmt::Debug>(
    slot: &mut Option<T>,
    new: Option<T>,
    what: &str,
    file: &str,
    warnings: &mut Vec<String>,
) {
    match (slot.as_ref(), new) {
        (None, n) => *slot = n,
        (Some(old), Some(n)) if *old != n => warnings.push(format!(
            "{file}: {what} {n:?} differs from {old:?} read earlier; keeping the first"
        )),
        _ => {}
    }
}

/// Parses a float that must be finite (`what` names it in the error).
pub(crate) fn num(line: usize, what: &str, text: &str) -> Result<f64, LineError> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| LineError::new(line, format!("{what} `{}`: expected a number", text.trim())))
}

/// The physically possible range of one kind of measured value. The limits are far beyond anything
/// real, so only an impossible or corrupted number fails (a negative memory or throughput, a
/// bandwidth of petabytes per second), never a measurement of a big machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bound {
    pub lo: f64,
    pub hi: f64,
    pub unit: &'static str,
}

/// Memory of one GPU, GiB: 1 TiB, 3.5× the largest GPU memory shipped (288 GB: B300, MI355X).
pub(crate) const MEM_GIB: Bound = Bound {
    lo: 0.0,
    hi: 1024.0,
    unit: "GiB",
};
/// A memory budget (SGLang's `rest_memory`, vLLM's available KV cache memory), GiB: the engines print
/// it negative just before they fail with "Not enough memory", so it may be below 0 by as much.
pub(crate) const BUDGET_GIB: Bound = Bound {
    lo: -1024.0,
    hi: 1024.0,
    unit: "GiB",
};
/// Output tokens per second of one engine: 10 million, 100× what one 8-GPU server decodes at its
/// largest batches (of the order of 1e5 tok/s).
pub(crate) const TOK_S: Bound = Bound {
    lo: 0.0,
    hi: 1e7,
    unit: "tok/s",
};
/// A bandwidth, GB/s: 100 TB/s, more than 50× NVLink 5's 1.8 TB/s per GPU.
pub(crate) const GBPS: Bound = Bound {
    lo: 0.0,
    hi: 1e5,
    unit: "GB/s",
};
/// One collective call, µs: an hour.
pub(crate) const CALL_US: Bound = Bound {
    lo: 0.0,
    hi: 3.6e9,
    unit: "µs",
};
/// A per-token or per-request latency, ms: a day.
pub(crate) const LATENCY_MS: Bound = Bound {
    lo: 0.0,
    hi: 8.64e7,
    unit: "ms",
};
/// A latency in seconds (bench_one_batch): a day.
pub(crate) const LATENCY_S: Bound = Bound {
    lo: 0.0,
    hi: 86_400.0,
    unit: "s",
};
/// Accepted tokens per speculative step: no engine verifies more than 256 draft tokens per step.
pub(crate) const ACCEPT_LEN: Bound = Bound {
    lo: 0.0,
    hi: 256.0,
    unit: "tokens",
};
/// A fraction of GPU memory (mem_fraction_static, gpu_memory_utilization).
pub(crate) const FRACTION: Bound = Bound {
    lo: 0.0,
    hi: 1.0,
    unit: "",
};
/// Requests at once (a measured mean concurrency, vLLM's maximum concurrency): 10 million.
pub(crate) const REQUESTS: Bound = Bound {
    lo: 0.0,
    hi: 1e7,
    unit: "requests",
};

/// `v` when it lies within `b`, else an error naming the line, the value and the range.
pub(crate) fn within(line: usize, what: &str, v: f64, b: Bound) -> Result<f64, LineError> {
    if v.is_finite() && (b.lo..=b.hi).contains(&v) {
        return Ok(v);
    }
    let unit = if b.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", b.unit)
    };
    Err(LineError::new(
        line,
        format!(
            "{what} {v}: physically impossible, expected {} to {}{unit}",
            b.lo, b.hi
        ),
    ))
}

/// [`num`] within a [`Bound`].
pub(crate) fn bounded(line: usize, what: &str, text: &str, b: Bound) -> Result<f64, LineError> {
    within(line, what, num(line, what, text)?, b)
}

/// Parses an unsigned integer, allowing `,` thousands separators as vLLM prints them.
pub(crate) fn int(line: usize, what: &str, text: &str) -> Result<u64, LineError> {
    text.trim()
        .replace(',', "")
        .parse::<u64>()
        .map_err(|_| LineError::new(line, format!("{what} `{}`: expected a whole number", text.trim())))
}

/// The text after `key` up to the next `, ` or `. ` (or the end of the line), trimmed; None if
/// `key` is absent. Log lines separate their fields that way (`avail mem=1.00 GB, mem usage=…`,
/// `mem usage=0.50 GB. avail mem=…`); decimal points are never followed by a space.
pub(crate) fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(key)? + key.len();
    let rest = &text[at..];
    let end = [rest.find(", "), rest.find(". ")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// A value followed by a unit (`12.34 GB`, `7.14x`): the number before the unit.
pub(crate) fn strip_unit<'a>(v: &'a str, units: &[&str]) -> &'a str {
    let v = v.trim().trim_end_matches('.');
    for u in units {
        if let Some(x) = v.strip_suffix(u) {
            return x.trim();
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_stop_at_comma_or_period_space() {
        let l = "Load weight end. type=X, avail mem=21.71 GB, mem usage=72.33 GB.";
        assert_eq!(field(l, "avail mem="), Some("21.71 GB"));
        assert_eq!(field(l, "mem usage="), Some("72.33 GB."));
        assert_eq!(strip_unit("72.33 GB.", &["GB"]), "72.33");
        let g = "Capture cuda graph end. Time elapsed: 3.10 s. mem usage=0.93 GB. avail mem=1.16 GB.";
        assert_eq!(field(g, "mem usage="), Some("0.93 GB"));
        assert_eq!(field(g, "avail mem="), Some("1.16 GB."));
        assert_eq!(field(g, "nothing="), None);
        assert_eq!(int(1, "n", "126,256").unwrap(), 126_256);
        assert!(int(1, "n", "12.5").is_err());
        assert!(num(1, "x", "inf").is_err() && num(1, "x", "NaN").is_err());
    }

    #[test]
    fn format_names_round_trip() {
        for f in [
            Format::NcclTests,
            Format::SglangLog,
            Format::VllmLog,
            Format::SglangBenchJson,
        ] {
            assert_eq!(Format::from_name(f.name()), Some(Some(f)));
        }
        assert_eq!(Format::from_name("auto"), Some(None));
        assert_eq!(Format::from_name("csv"), None);
        assert_eq!(
            detect("[2026-01-01 00:00:00 TP0] Decode batch. x"),
            Some(Format::SglangLog)
        );
        assert_eq!(detect(" [ {\"a\": 1} ]"), Some(Format::SglangBenchJson));
    }
}

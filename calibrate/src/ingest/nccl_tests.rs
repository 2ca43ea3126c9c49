//! nccl-tests output (`all_reduce_perf`, `all_gather_perf`, any `*_perf`), as its `src/util.cu`
//! prints it: a `#` header (`# nccl-tests version … nccl-library=22803`, `# Collective test
//! starting: all_reduce_perf`, `# nThread 1 nGpus 4 minBytes … `, one `#  Rank  0 Group  0 Pid …
//! on HOST device  0 [BUS] GPU NAME` line per rank), a table whose rows are
//! `size count type redop root` followed by `time algbw busbw #wrong` for out-of-place then
//! in-place (times in µs, bandwidths in GB/s = 1e9 B/s; with `-I 1` four per-iteration columns
//! follow each group; with timestamps a date and time close the row), and a footer
//! `# Avg bus bandwidth    : X`. Older versions print the bus id as `[0x01]` and lack the
//! version and "test starting" lines; NCCL itself may add `NCCL version 2.x.y+cudaA.B` and
//! `NCCL INFO` lines, which are skipped.
//!
//! One `Collective` record per row and placement (out-of-place first), `time_us` the mean per call.

use super::{CALL_US, GBPS, LineError, Meta, Parsed, bounded, int, num};
use crate::measurement::Record;

/// Maps a `*_perf` program name (or a file name containing it) to tpsim's op name.
fn op_from_program(name: &str) -> Option<&'static str> {
    const OPS: &[(&str, &str)] = &[
        ("all_reduce", "allreduce"),
        ("all_gather", "allgather"),
        ("reduce_scatter", "reducescatter"),
        ("alltoall", "alltoall"),
        ("sendrecv", "sendrecv"),
        ("broadcast", "broadcast"),
        ("reduce", "reduce"),
        ("gather", "gather"),
        ("scatter", "scatter"),
    ];
    let n = name.to_ascii_lowercase();
    OPS.iter().find(|(k, _)| n.contains(k)).map(|(_, v)| *v)
}

/// NCCL's version code (major × 10000 + minor × 100 + patch since 2.9) as `2.28.3`.
fn version_from_code(code: u32) -> String {
    format!("{}.{}.{}", code / 10000, (code / 100) % 100, code % 100)
}

/// Whether a token looks like a timestamp part (`2026-11-29` or `10:31:02`).
fn is_stamp(t: &str) -> bool {
    t.len() >= 8
        && t.chars().all(|c| c.is_ascii_digit() || c == '-' || c == ':')
        && (t.contains('-') || t.contains(':'))
}

/// The warning for a table without its footer.
const CUT: &str = "the table stops before the `# Avg bus bandwidth` footer: the run may have been cut short";

pub(super) fn parse(text: &str, file_name: &str) -> Result<Parsed, LineError> {
    let mut p = Parser {
        file_name,
        out: Parsed::default(),
        meta: Meta::default(),
        op: None,
        threads_x_gpus: None,
        ranks: 0,
        open_table: false,
        assumed_op_warned: false,
    };
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(h) = line.strip_prefix('#') {
            p.header(line_no, h.trim())?;
            continue;
        }
        if let Some(at) = line.find("NCCL version ") {
            p.nccl_version(&line[at + "NCCL version ".len()..]);
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        // Table rows start with the size in bytes; anything else (NCCL INFO, warnings) is not ours.
        if t[0].parse::<u64>().is_err() {
            continue;
        }
        p.row(line_no, &t)?;
    }
    Ok(p.finish())
}

/// What the parser knows so far: the records, the header's facts and the run in progress.
struct Parser<'a> {
    file_name: &'a str,
    out: Parsed,
    meta: Meta,
    op: Option<&'static str>,
    threads_x_gpus: Option<u32>,
    ranks: u32,
    /// Rows read since the last footer (a file may hold several runs, each with its footer).
    open_table: bool,
    assumed_op_warned: bool,
}

impl Parser<'_> {
    /// A `#` line (without the `#`, trimmed).
    fn header(&mut self, line_no: usize, h: &str) -> Result<(), LineError> {
        if let Some(p) = h.strip_prefix("Collective test starting:") {
            // A new run: its own op, GPUs and footer.
            if self.open_table {
                self.out.warnings.push(CUT.into());
            }
            self.open_table = false;
            self.op = op_from_program(p.trim());
            self.threads_x_gpus = None;
            self.ranks = 0;
            self.assumed_op_warned = false;
        } else if h.starts_with("Using devices") {
            self.ranks = 0;
        } else if h.starts_with("nThread ") {
            let t: Vec<&str> = h.split_whitespace().collect();
            let get = |k: &str| t.iter().position(|x| *x == k).and_then(|p| t.get(p + 1)).copied();
            let (Some(a), Some(b)) = (get("nThread"), get("nGpus")) else {
                return Err(LineError::new(
                    line_no,
                    "header: expected `# nThread N nGpus M …`",
                ));
            };
            let a = int(line_no, "nThread", a)?;
            let b = int(line_no, "nGpus", b)?;
            self.threads_x_gpus = u32::try_from(a * b).ok();
        } else if h.starts_with("Rank ") {
            self.rank(h);
        } else if let Some(v) = h.split_whitespace().find_map(|t| t.strip_prefix("nccl-library=")) {
            if let Ok(code) = v.parse::<u32>() {
                self.meta.nccl_version = Some(version_from_code(code));
            }
        } else if h.starts_with("Avg bus bandwidth") {
            self.open_table = false;
        }
        Ok(())
    }

    /// `Rank  0 Group  0 Pid  1234 on HOST device  0 [BUS] NAME`: one more GPU, and the machine and
    /// GPU name of the first.
    fn rank(&mut self, h: &str) {
        self.ranks += 1;
        let t: Vec<&str> = h.split_whitespace().collect();
        if let Some(p) = t.iter().position(|x| *x == "on")
            && self.meta.machine.is_none()
        {
            self.meta.machine = t.get(p + 1).map(|s| s.to_string());
        }
        if let Some(close) = h.find(']') {
            let name = h[close + 1..].trim();
            if !name.is_empty() && self.meta.gpu.is_none() {
                self.meta.gpu = Some(name.to_string());
            }
        }
    }

    /// NCCL's own `NCCL version 2.x.y+cudaA.B` line (the text after `NCCL version `), unless the
    /// header already gave the version.
    fn nccl_version(&mut self, after: &str) {
        if let Some(v) = after.split_whitespace().next() {
            let v = v.split('+').next().unwrap_or(v);
            self.meta.nccl_version.get_or_insert_with(|| v.to_string());
        }
    }

    /// A table row (its whitespace-separated tokens, the first a size): one record per placement.
    fn row(&mut self, line_no: usize, t: &[&str]) -> Result<(), LineError> {
        if t.len() < 5 {
            return Err(LineError::new(
                line_no,
                format!(
                    "table row with {} columns: expected size count type redop root, then time algbw busbw #wrong for out-of-place and in-place",
                    t.len()
                ),
            ));
        }
        let size = int(line_no, "size (B)", t[0])?;
        int(line_no, "count (elements)", t[1])?;
        let (redop, root) = (t[3], t[4]);
        let root: i64 = root
            .parse()
            .map_err(|_| LineError::new(line_no, format!("root `{root}`: expected an integer rank or -1")))?;
        let mut rest: Vec<&str> = t[5..].to_vec();
        if rest.len() >= 2 && is_stamp(rest[rest.len() - 1]) && is_stamp(rest[rest.len() - 2]) {
            rest.truncate(rest.len() - 2);
        }
        let (group, placements) = placements(line_no, rest.len())?;
        let n_gpus = self.n_gpus(line_no)?;
        let op = self.op_of_row(redop, root);
        for (k, placement) in placements.iter().enumerate() {
            let g = &rest[k * group..k * group + 4];
            let what = |c: &str| format!("{placement} {c}");
            let time = bounded(line_no, &what("time (us)"), g[0], CALL_US)?;
            bounded(line_no, &what("algbw (GB/s)"), g[1], GBPS)?;
            let busbw = bounded(line_no, &what("busbw (GB/s)"), g[2], GBPS)?;
            if g[3] != "N/A" {
                let wrong = num(line_no, &what("#wrong"), g[3])?;
                if wrong > 0.0 {
                    self.out.warnings.push(format!(
                        "line {line_no}: {placement} row reports {wrong} wrong elements (kept)"
                    ));
                }
            }
            if time <= 0.0 {
                return Err(LineError::new(
                    line_no,
                    format!("{placement} time `{}`: expected a positive time in µs", g[0]),
                ));
            }
            self.open_table = true;
            self.out.records.push(Record::Collective {
                op: op.to_string(),
                n_gpus,
                size_bytes: size,
                time_us: time,
                busbw_gbps: Some(busbw),
                backend: Some("nccl".into()),
                env: Vec::new(),
                placement: Some((*placement).to_string()),
            });
        }
        Ok(())
    }

    /// The GPUs of the run: the `Rank` lines, else nThread × nGpus.
    fn n_gpus(&self, line_no: usize) -> Result<u32, LineError> {
        if self.ranks > 0 {
            Ok(self.ranks)
        } else if let Some(n) = self.threads_x_gpus {
            Ok(n)
        } else {
            Err(LineError::new(
                line_no,
                "table row before any `# nThread … nGpus …` or `#  Rank …` header line: cannot tell how many GPUs ran it",
            ))
        }
    }

    /// The run's op: from its header, else the file name, else guessed (once, with a warning)
    /// from the row's reduction.
    fn op_of_row(&mut self, redop: &str, root: i64) -> &'static str {
        match self.op.or_else(|| op_from_program(self.file_name)) {
            Some(o) => o,
            None => {
                let guess = if redop == "none" { "allgather" } else { "allreduce" };
                if !self.assumed_op_warned {
                    self.out.warnings.push(format!(
                        "no `# Collective test starting:` line and no *_perf in the file name: assumed {guess} from redop `{redop}`, root {root}"
                    ));
                    self.assumed_op_warned = true;
                }
                self.op = Some(guess);
                guess
            }
        }
    }

    fn finish(mut self) -> Parsed {
        if self.open_table {
            self.out.warnings.push(CUT.into());
        }
        self.meta.gpu_count = if self.ranks > 0 {
            Some(self.ranks)
        } else {
            self.threads_x_gpus
        };
        self.out.meta = self.meta;
        self.out
    }
}

/// The columns per placement and the placements a row holds, from the number of columns after
/// `root` (timestamps removed).
fn placements(line_no: usize, n: usize) -> Result<(usize, &'static [&'static str]), LineError> {
    Ok(match n {
        8 => (4, &["out-of-place", "in-place"]),
        16 => (8, &["out-of-place", "in-place"]),
        4 => (4, &["in-place"]),
        n => {
            return Err(LineError::new(
                line_no,
                format!(
                    "{n} columns after `root`: expected 8 (time algbw busbw #wrong, out-of-place then in-place) or 16 (with -I per-iteration columns)"
                ),
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_codes_and_stamps() {
        assert_eq!(version_from_code(22803), "2.28.3");
        assert_eq!(version_from_code(21903), "2.19.3");
        assert!(is_stamp("2026-11-29") && is_stamp("10:31:02"));
        assert!(!is_stamp("12.5") && !is_stamp("N/A"));
        assert_eq!(op_from_program("all_reduce_perf"), Some("allreduce"));
        assert_eq!(op_from_program("reduce_scatter_perf"), Some("reducescatter"));
        assert_eq!(op_from_program("x.log"), None);
    }
}

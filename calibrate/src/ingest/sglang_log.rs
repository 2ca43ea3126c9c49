//! SGLang server logs (reference/engine-memory.md, "SGLang: the sequence at start-up"; the line
//! formats of `model_executor/model_runner.py`, `mem_cache/memory_pool.py`,
//! `managers/scheduler_metrics_mixin.py`). Lines may carry a prefix `[DATE TIME TP3]` (also
//! `DP0 TP3 EP3`); the `TPn` names the rank. "GB" in these lines means GiB.
//!
//! Start-up lines, per rank (the first of each kind is the target model's; a second
//! `Load weight`/`KV Cache` line comes from an EAGLE draft and is skipped):
//! `Load weight begin. avail mem=X GB`, `Load weight end. … avail mem=Y GB, mem usage=Z GB.`,
//! `KV Cache is allocated. #tokens: N, K size: a GB, V size: b GB` (MLA: `KV size: c GB`),
//! `Memory pool end. avail mem=X GB`, `Capture cuda graph end. … mem usage=U GB. avail mem=A GB.`,
//! `max_total_num_tokens=N, …`; `mem_fraction_static=F` from the `server_args=` line or the
//! newer `Memory profiling: … mem_fraction_static=F, rest_memory=R GB` line (R, the KV budget, goes
//! to `kv_budget_gib`). One `EngineMemory` record per rank, placed where the rank's
//! first memory line is.
//!
//! `Decode batch[.,] #running-req: R, #token: T, … accept len: L, … gen throughput (token/s): G`
//! (hybrid models print `#full token:`): one `DecodeThroughput` record per line.

use super::{
    ACCEPT_LEN, BUDGET_GIB, Bound, LineError, MEM_GIB, Parsed, TOK_S, bounded, field, int, num, strip_unit,
};
use crate::measurement::Record;

/// One rank's start-up values, filled as its lines come.
#[derive(Debug, Default, Clone)]
struct Mem {
    record: usize,
    before: Option<f64>,
    after: Option<f64>,
    weights: Option<f64>,
    tokens: Option<u64>,
    kv_gib: Option<f64>,
    pool_end: Option<f64>,
    graph: Option<f64>,
    after_graph: Option<f64>,
    max_total: Option<u64>,
    rest: Option<f64>,
    draft_skipped: bool,
}

/// The rank named by a `[… TPn …]` prefix, and the line without its prefix.
fn split_prefix(line: &str) -> (Option<u32>, &str) {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix('[')
        && let Some(close) = rest.find(']')
    {
        let rank = rest[..close]
            .split_whitespace()
            .find_map(|w| w.strip_prefix("TP").and_then(|n| n.parse::<u32>().ok()));
        return (rank, rest[close + 1..].trim_start());
    }
    (None, t)
}

/// A memory amount (`12.34 GB`, which SGLang means as GiB) within `b`.
fn gib_in(line: usize, what: &str, v: &str, b: Bound) -> Result<f64, LineError> {
    bounded(line, what, strip_unit(v, &["GB", "GiB"]), b)
}

/// A memory amount of one GPU: never negative, never more than [`MEM_GIB`] allows.
fn gib(line: usize, what: &str, v: &str) -> Result<f64, LineError> {
    gib_in(line, what, v, MEM_GIB)
}

/// The start-up lines that fill a rank's [`Mem`], by their start.
const MEMORY_LINES: [&str; 7] = [
    "Load weight begin",
    "Load weight end",
    "KV Cache is allocated",
    "Memory pool end",
    "Capture cuda graph end",
    "max_total_num_tokens=",
    "Memory profiling:",
];

pub(super) fn parse(text: &str) -> Result<Parsed, LineError> {
    let mut out = Parsed::default();
    let mut ranks: Vec<(Option<u32>, Mem)> = Vec::new();
    let mut fraction: Option<f64> = None;
    let mut failure: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let (rank, line) = split_prefix(raw);
        if let Some(f) = mem_fraction(n, line)? {
            fraction.get_or_insert(f);
        }
        if line.contains("Not enough memory") || line.contains("leave no GPU memory") {
            failure.get_or_insert_with(|| format!("line {n}: {}", line.trim()));
            continue;
        }
        if line.starts_with("Decode batch") {
            out.records.push(decode(n, line)?);
            continue;
        }
        let Some(kind) = MEMORY_LINES.into_iter().find(|k| line.starts_with(k)) else {
            continue;
        };
        rank_mem(&mut ranks, &mut out.records, rank).read(n, kind, line)?;
    }
    for (rank, m) in &ranks {
        m.finish(*rank, fraction, &mut out);
    }
    if let Some(f) = failure {
        out.warnings.push(format!("start-up failed: {f}"));
    }
    Ok(out)
}

/// The `mem_fraction_static=F` of a line that sets it (not `None`), checked to be a fraction.
fn mem_fraction(n: usize, line: &str) -> Result<Option<f64>, LineError> {
    let Some(v) = field(line, "mem_fraction_static=").filter(|v| !v.starts_with("None")) else {
        return Ok(None);
    };
    let v = v.trim_end_matches(')');
    let f = num(n, "mem_fraction_static", v)?;
    if !(0.0..=1.0).contains(&f) {
        return Err(LineError::new(
            n,
            format!("mem_fraction_static `{v}`: expected a fraction in [0, 1]"),
        ));
    }
    Ok(Some(f))
}

/// The start-up values of `rank`; a rank seen for the first time gets its (empty) record here.
fn rank_mem<'a>(
    ranks: &'a mut Vec<(Option<u32>, Mem)>,
    records: &mut Vec<Record>,
    rank: Option<u32>,
) -> &'a mut Mem {
    match ranks.iter().position(|(r, _)| *r == rank) {
        Some(p) => &mut ranks[p].1,
        None => {
            records.push(empty_memory(rank));
            ranks.push((
                rank,
                Mem {
                    record: records.len() - 1,
                    ..Mem::default()
                },
            ));
            &mut ranks.last_mut().expect("just pushed").1
        }
    }
}

impl Mem {
    /// A start-up line of kind `kind` (one of [`MEMORY_LINES`]), line number `n`.
    fn read(&mut self, n: usize, kind: &str, line: &str) -> Result<(), LineError> {
        let m = self;
        let need = |key: &str| {
            field(line, key)
                .ok_or_else(|| LineError::new(n, format!("`{kind}` line without `{key}`: expected `{key}…`")))
        };
        match kind {
            "Load weight begin" => {
                let v = gib(n, "avail mem", need("avail mem=")?)?;
                if m.before.is_some() {
                    m.draft_skipped = true;
                } else {
                    m.before = Some(v);
                }
            }
            "Load weight end" => {
                let a = gib(n, "avail mem", need("avail mem=")?)?;
                let u = field(line, "mem usage=")
                    .map(|v| gib(n, "mem usage", v))
                    .transpose()?;
                if m.after.is_some() {
                    m.draft_skipped = true;
                } else {
                    m.after = Some(a);
                    m.weights = u;
                }
            }
            "KV Cache is allocated" => {
                let tokens = int(n, "#tokens", need("#tokens: ")?)?;
                let size = if let Some(kv) = field(line, "KV size: ") {
                    gib(n, "KV size", kv)?
                } else {
                    gib(n, "K size", need("K size: ")?)? + gib(n, "V size", need("V size: ")?)?
                };
                if m.tokens.is_some() {
                    m.draft_skipped = true;
                } else {
                    m.tokens = Some(tokens);
                    m.kv_gib = Some(size);
                }
            }
            "Memory pool end" => {
                let v = gib(n, "avail mem", need("avail mem=")?)?;
                m.pool_end.get_or_insert(v);
            }
            "Capture cuda graph end" => {
                let u = gib(n, "mem usage", need("mem usage=")?)?;
                let a = gib(n, "avail mem", need("avail mem=")?)?;
                if m.graph.is_none() {
                    m.graph = Some(u);
                    m.after_graph = Some(a);
                }
            }
            "Memory profiling:" => {
                let v = gib_in(n, "rest_memory", need("rest_memory=")?, BUDGET_GIB)?;
                m.rest.get_or_insert(v);
            }
            _ => {
                let v = int(n, "max_total_num_tokens", need("max_total_num_tokens=")?)?;
                m.max_total.get_or_insert(v);
            }
        }
        Ok(())
    }

    /// The rank's warnings, and its record (at the place of its first memory line) filled in.
    fn finish(&self, rank: Option<u32>, fraction: Option<f64>, out: &mut Parsed) {
        let m = self;
        let who = rank.map_or("the log".to_string(), |r| format!("rank TP{r}"));
        if m.tokens.is_none() && m.max_total.is_none() {
            out.warnings.push(format!(
                "{who}: the start-up stops before the `KV Cache is allocated` line: KV tokens unknown"
            ));
        }
        if m.draft_skipped {
            out.warnings.push(format!(
                "{who}: second load-weight/KV lines (a draft model's) skipped; the record holds the target's"
            ));
        }
        if let (Some(t), Some(mt)) = (m.tokens, m.max_total)
            && t != mt
        {
            out.warnings.push(format!(
                "{who}: KV pool of {t} tokens but max_total_num_tokens={mt}; the record keeps the pool's"
            ));
        }
        out.records[m.record] = Record::EngineMemory {
            engine: "sglang".into(),
            rank,
            mem_fraction_static: fraction,
            avail_before_load_gib: m.before,
            avail_after_load_gib: m.after,
            weight_mem_gib: m.weights,
            kv_tokens: m.tokens.or(m.max_total),
            kv_size_gib: m.kv_gib,
            cuda_graph_mem_gib: m.graph,
            avail_after_graph_gib: m.after_graph,
            avail_after_pool_gib: m.pool_end,
            kv_budget_gib: m.rest,
            max_concurrency: None,
            max_concurrency_request_tokens: None,
        };
    }
}

fn empty_memory(rank: Option<u32>) -> Record {
    Record::EngineMemory {
        engine: "sglang".into(),
        rank,
        mem_fraction_static: None,
        avail_before_load_gib: None,
        avail_after_load_gib: None,
        weight_mem_gib: None,
        kv_tokens: None,
        kv_size_gib: None,
        cuda_graph_mem_gib: None,
        avail_after_graph_gib: None,
        avail_after_pool_gib: None,
        kv_budget_gib: None,
        max_concurrency: None,
        max_concurrency_request_tokens: None,
    }
}

fn decode(n: usize, line: &str) -> Result<Record, LineError> {
    let need = |key: &str| {
        field(line, key).ok_or_else(|| {
            LineError::new(
                n,
                format!("`Decode batch` line without `{key}`: expected `{key} …`"),
            )
        })
    };
    let batch = int(n, "#running-req", need("#running-req:")?)?;
    let batch =
        u32::try_from(batch).map_err(|_| LineError::new(n, format!("#running-req {batch}: too large")))?;
    let tok_s = bounded(
        n,
        "gen throughput (token/s)",
        need("gen throughput (token/s):")?,
        TOK_S,
    )?;
    let context = match field(line, "#token:").or_else(|| field(line, "#full token:")) {
        Some(v) => Some(int(n, "#token", v)?),
        None => None,
    };
    let accept = match field(line, "accept len:") {
        Some(v) => Some(bounded(n, "accept len", v, ACCEPT_LEN)?),
        None => None,
    };
    Ok(Record::DecodeThroughput {
        engine: "sglang".into(),
        batch,
        tok_s,
        accept_len: accept,
        context_tokens: context,
        tpot_ms: None,
        ttft_ms: None,
        input_len: None,
        output_len: None,
        measure: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_name_the_rank() {
        assert_eq!(split_prefix("[2026-01-02 03:04:05 TP3] Load"), (Some(3), "Load"));
        assert_eq!(
            split_prefix("[2025-01-22 10:00:00 DP0 TP5 EP5] x"),
            (Some(5), "x")
        );
        assert_eq!(split_prefix("[2025-12-02 12:01:15] y"), (None, "y"));
        assert_eq!(split_prefix("z"), (None, "z"));
    }
}

//! vLLM server logs (reference/engine-memory.md, "vLLM"; the v1 worker's and engine core's
//! lines): `Model loading took X GiB …`, `Available KV cache memory: X GiB` (one per worker; the
//! engine sizes the cache from the smallest), `GPU KV cache size: N tokens` and
//! `Maximum concurrency for L tokens per request: Cx` (numbers may carry `,` thousands separators),
//! the engine arguments' `gpu_memory_utilization`, and the periodic
//! `Avg prompt throughput: P tokens/s, Avg generation throughput: G tokens/s, Running: R reqs, …`
//! (followed, with speculative decoding, by `Mean acceptance length: L`).
//!
//! One `EngineMemory` record (rank absent: the engine-wide values), placed at its first line, and
//! one `DecodeThroughput` record per throughput line with running requests (idle lines, Running: 0,
//! are skipped).

use super::{
    ACCEPT_LEN, BUDGET_GIB, Bound, FRACTION, LineError, MEM_GIB, Parsed, REQUESTS, TOK_S, bounded, field,
    int, strip_unit,
};
use crate::measurement::Record;

#[derive(Debug, Default)]
struct Mem {
    record: Option<usize>,
    weights: Option<f64>,
    budget: Option<f64>,
    tokens: Option<u64>,
    concurrency: Option<(u64, f64)>,
    fraction: Option<f64>,
}

fn gib(line: usize, what: &str, v: &str, b: Bound) -> Result<f64, LineError> {
    // `12.56 GiB and 3.1 seconds` / `12.56 GiB memory and …`: the number before the unit.
    let v = v.split(" and ").next().unwrap_or(v);
    let v = v.trim().trim_end_matches(" memory");
    bounded(line, what, strip_unit(v, &["GiB", "GB"]), b)
}

pub(super) fn parse(text: &str) -> Result<Parsed, LineError> {
    let mut out = Parsed::default();
    let mut m = Mem::default();
    let mut idle = 0usize;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let touched = m.read(n, line)?;
        if touched && m.record.is_none() {
            out.records.push(memory(&m));
            m.record = Some(out.records.len() - 1);
        }
        if let Some(v) = field(line, "Avg generation throughput: ") {
            match throughput(n, line, v)? {
                Some(r) => out.records.push(r),
                None => {
                    idle += 1;
                    continue;
                }
            }
        }
        if let Some(v) = field(line, "Mean acceptance length: ") {
            let l = bounded(n, "Mean acceptance length", v, ACCEPT_LEN)?;
            if let Some(Record::DecodeThroughput { accept_len, .. }) = out.records.last_mut() {
                *accept_len = Some(l);
            }
        }
    }
    if let Some(r) = m.record {
        out.records[r] = memory(&m);
        if m.tokens.is_none() {
            out.warnings
                .push("the start-up stops before the `GPU KV cache size` line: KV tokens unknown".into());
        }
    }
    if idle > 0 {
        out.warnings.push(format!(
            "{idle} idle throughput line(s) (Running: 0 reqs) skipped"
        ));
    }
    Ok(out)
}

impl Mem {
    /// The start-up values line `n` holds; whether it held one of the memory record's (the
    /// utilization alone does not place the record).
    fn read(&mut self, n: usize, line: &str) -> Result<bool, LineError> {
        let m = self;
        let mut touched = false;
        for key in ["gpu_memory_utilization': ", "gpu_memory_utilization="] {
            if let Some(v) = field(line, key) {
                let v = v.trim_end_matches(['}', ')']);
                let f = bounded(n, "gpu_memory_utilization", v, FRACTION)?;
                m.fraction.get_or_insert(f);
            }
        }
        if let Some(v) = field(line, "Model loading took ") {
            m.weights.get_or_insert(gib(n, "Model loading took", v, MEM_GIB)?);
            touched = true;
        }
        if let Some(v) = field(line, "Available KV cache memory: ") {
            let g = gib(n, "Available KV cache memory", v, BUDGET_GIB)?;
            m.budget = Some(m.budget.map_or(g, |b: f64| b.min(g)));
            touched = true;
        }
        if let Some(v) = field(line, "GPU KV cache size: ") {
            let t = int(n, "GPU KV cache size", strip_unit(v, &["tokens"]))?;
            m.tokens.get_or_insert(t);
            touched = true;
        }
        if let Some(at) = line.find("Maximum concurrency for ") {
            let rest = &line[at + "Maximum concurrency for ".len()..];
            let bad = || LineError::new(n, "expected `Maximum concurrency for L tokens per request: Cx`");
            let (len, c) = rest.split_once(" tokens per request: ").ok_or_else(bad)?;
            let len = int(n, "tokens per request", len)?;
            let c = bounded(n, "maximum concurrency", strip_unit(c, &["x"]), REQUESTS)?;
            m.concurrency.get_or_insert((len, c));
            touched = true;
        }
        Ok(touched)
    }
}

/// A periodic throughput line (`v`, the text after `Avg generation throughput: `): its record,
/// or `None` for an idle line (Running: 0).
fn throughput(n: usize, line: &str, v: &str) -> Result<Option<Record>, LineError> {
    let tok_s = bounded(
        n,
        "Avg generation throughput",
        strip_unit(v, &["tokens/s"]),
        TOK_S,
    )?;
    let running = field(line, "Running: ")
        .ok_or_else(|| LineError::new(n, "throughput line without `Running: N reqs`"))?;
    let running = int(n, "Running", strip_unit(running, &["reqs"]))?;
    if running == 0 {
        return Ok(None);
    }
    Ok(Some(Record::DecodeThroughput {
        engine: "vllm".into(),
        batch: u32::try_from(running)
            .map_err(|_| LineError::new(n, format!("Running {running}: too large")))?,
        tok_s,
        accept_len: None,
        context_tokens: None,
        tpot_ms: None,
        ttft_ms: None,
        input_len: None,
        output_len: None,
        measure: Some("decode".into()),
    }))
}

fn memory(m: &Mem) -> Record {
    Record::EngineMemory {
        engine: "vllm".into(),
        rank: None,
        mem_fraction_static: m.fraction,
        avail_before_load_gib: None,
        avail_after_load_gib: None,
        weight_mem_gib: m.weights,
        kv_tokens: m.tokens,
        kv_size_gib: None,
        cuda_graph_mem_gib: None,
        avail_after_graph_gib: None,
        avail_after_pool_gib: None,
        kv_budget_gib: m.budget,
        max_concurrency: m.concurrency.map(|c| c.1),
        max_concurrency_request_tokens: m.concurrency.map(|c| c.0),
    }
}

//! SGLang benchmark result files: JSON objects, one per line (both scripts append
//! `json.dumps(result) + "\n"`) or concatenated. Two kinds, told apart by their keys:
//!
//! - `bench_serving` (`python/sglang/bench_serving.py`): `output_throughput` (output tokens/s over
//!   the whole run), `mean_tpot_ms`, `mean_ttft_ms`, `max_concurrency` (null when unbounded),
//!   `accept_length` (null without speculation), `random_input_len`/`random_output_len`.
//! - `bench_one_batch` (`python/sglang/bench_one_batch.py`): `batch_size`, `input_len`,
//!   `output_len`, `median_decode_latency` (s) and `median_decode_throughput` (tokens/s, the
//!   batch over one decode step); rows with `output_len` 1 hold prefill only and are skipped.
//!
//! One `DecodeThroughput` record per object (a JSON array of them is read element by element).

use super::{ACCEPT_LEN, Bound, LATENCY_MS, LATENCY_S, LineError, Parsed, REQUESTS, TOK_S, within};
use crate::measurement::Record;
use serde_json::{Map, Value};

/// 1-based line numbers of increasing byte offsets, counting each newline once: the whole file
/// costs one pass (counting from the start for every object made 20,000 lines take seconds).
struct Lines<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
}

impl Lines<'_> {
    /// The line of `offset` (never before the previous one asked).
    fn at(&mut self, offset: usize) -> usize {
        let offset = offset.clamp(self.offset, self.text.len());
        self.line += self.text.as_bytes()[self.offset..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.offset = offset;
        self.line
    }
}

/// Python's `json.dumps` writes the non-JSON constants `Infinity`, `-Infinity` and `NaN` (e.g.
/// bench_serving's `"request_rate": Infinity` for an unbounded rate, `"std_ttft_ms": NaN` for one
/// request); they become the strings `"Infinity"`, `"-Infinity"` and `"NaN"`, so the JSON parses,
/// a key tpsim does not read is ignored, and one it reads is refused as not a number (same line
/// numbers: only tokens after `: ` are replaced).
fn python_constants_to_strings(text: &str) -> String {
    text.replace(": -Infinity", ": \"-Infinity\"")
        .replace(": Infinity", ": \"Infinity\"")
        .replace(": NaN", ": \"NaN\"")
}

pub(super) fn parse(text: &str) -> Result<Parsed, LineError> {
    let text = &python_constants_to_strings(text);
    let mut out = Parsed::default();
    let mut lines = Lines {
        text,
        offset: 0,
        line: 1,
    };
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    loop {
        let start = stream.byte_offset();
        let item = match stream.next() {
            None => break,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                return Err(LineError::new(
                    e.line(),
                    format!("expected a JSON object (one result per line): {e}"),
                ));
            }
        };
        // Where the object starts: skip the whitespace before it.
        let skipped = text[start..].len() - text[start..].trim_start().len();
        let line = lines.at(start + skipped);
        // A JSON array of results is read as its elements (their line: the array's).
        let items = match item {
            Value::Array(v) => v,
            v => vec![v],
        };
        for item in items {
            let Value::Object(o) = item else {
                return Err(LineError::new(
                    line,
                    "expected a JSON object with bench_serving or bench_one_batch keys",
                ));
            };
            result(line, &o, &mut out)?;
        }
    }
    Ok(out)
}

/// One result object into a record (or a warning for a prefill-only bench_one_batch row).
fn result(line: usize, o: &Map<String, Value>, out: &mut Parsed) -> Result<(), LineError> {
    if o.contains_key("output_throughput") {
        out.records.push(serving(line, o)?);
    } else if o.contains_key("batch_size") {
        match one_batch(line, o)? {
            Some(r) => out.records.push(r),
            None => out.warnings.push(format!(
                "line {line}: bench_one_batch row without decode steps (output_len 1) skipped"
            )),
        }
    } else {
        return Err(LineError::new(
            line,
            "JSON object with neither `output_throughput` (bench_serving) nor `batch_size` (bench_one_batch)",
        ));
    }
    Ok(())
}

/// A number under `key`: None when absent or null, an error when something else (NaN and
/// Infinity included).
fn opt_num(line: usize, o: &Map<String, Value>, key: &str) -> Result<Option<f64>, LineError> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| LineError::new(line, format!("`{key}`: expected a number, found {v}"))),
    }
}

/// [`opt_num`] within a physical bound.
fn opt_in(line: usize, o: &Map<String, Value>, key: &str, b: Bound) -> Result<Option<f64>, LineError> {
    opt_num(line, o, key)?
        .map(|v| within(line, &format!("`{key}`"), v, b))
        .transpose()
}

fn need_in(line: usize, o: &Map<String, Value>, key: &str, b: Bound) -> Result<f64, LineError> {
    opt_in(line, o, key, b)?
        .ok_or_else(|| LineError::new(line, format!("`{key}`: expected a number, found nothing")))
}

/// A non-negative whole number (JSON integers or floats with no fraction, as Python may write).
fn opt_int(line: usize, o: &Map<String, Value>, key: &str) -> Result<Option<u64>, LineError> {
    match opt_num(line, o, key)? {
        None => Ok(None),
        Some(x) if x >= 0.0 && x.fract() == 0.0 && x < 1e15 => Ok(Some(x as u64)),
        Some(x) => Err(LineError::new(
            line,
            format!("`{key}`: expected a whole number, found {x}"),
        )),
    }
}

fn batch_u32(line: usize, key: &str, v: u64) -> Result<u32, LineError> {
    u32::try_from(v)
        .ok()
        .filter(|b| *b > 0)
        .ok_or_else(|| LineError::new(line, format!("`{key}` {v}: expected 1 or more requests")))
}

fn serving(line: usize, o: &Map<String, Value>) -> Result<Record, LineError> {
    let tok_s = need_in(line, o, "output_throughput", TOK_S)?;
    let batch = match opt_int(line, o, "max_concurrency")? {
        Some(b) => batch_u32(line, "max_concurrency", b)?,
        None => {
            // Unbounded concurrency: the mean number of requests in flight, as bench_serving
            // measured it (`concurrency`), rounded.
            let c = need_in(line, o, "concurrency", REQUESTS).map_err(|e| {
                if o.get("concurrency").is_some_and(|v| !v.is_null()) {
                    return e;
                }
                LineError::new(
                    line,
                    "`max_concurrency` is null and `concurrency` is missing: expected one of them",
                )
            })?;
            batch_u32(line, "concurrency", c.round().max(1.0) as u64)?
        }
    };
    Ok(Record::DecodeThroughput {
        engine: "sglang".into(),
        batch,
        tok_s,
        accept_len: opt_in(line, o, "accept_length", ACCEPT_LEN)?,
        context_tokens: None,
        tpot_ms: opt_in(line, o, "mean_tpot_ms", LATENCY_MS)?,
        ttft_ms: opt_in(line, o, "mean_ttft_ms", LATENCY_MS)?,
        input_len: opt_int(line, o, "random_input_len")?,
        output_len: opt_int(line, o, "random_output_len")?,
        measure: Some("end_to_end".into()),
    })
}

fn one_batch(line: usize, o: &Map<String, Value>) -> Result<Option<Record>, LineError> {
    let batch = opt_int(line, o, "batch_size")?.unwrap_or(0);
    let batch = batch_u32(line, "batch_size", batch)?;
    let Some(tok_s) = opt_in(line, o, "median_decode_throughput", TOK_S)? else {
        return Ok(None);
    };
    Ok(Some(Record::DecodeThroughput {
        engine: "sglang".into(),
        batch,
        tok_s,
        accept_len: None,
        context_tokens: None,
        tpot_ms: opt_in(line, o, "median_decode_latency", LATENCY_S)?.map(|s| s * 1e3),
        ttft_ms: opt_in(line, o, "prefill_latency", LATENCY_S)?.map(|s| s * 1e3),
        input_len: opt_int(line, o, "input_len")?,
        output_len: opt_int(line, o, "output_len")?,
        measure: Some("decode".into()),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_and_concatenated_objects() {
        let p = parse("[{\"batch_size\": 2, \"median_decode_throughput\": 100.0},\n {\"batch_size\": 4, \"median_decode_throughput\": 180.5}]{\"output_throughput\": 9.5, \"max_concurrency\": 3}").unwrap();
        assert_eq!(p.records.len(), 3);
        let Record::DecodeThroughput { batch, tok_s, .. } = &p.records[2] else {
            panic!("{:?}", p.records[2]);
        };
        assert_eq!((*batch, *tok_s), (3, 9.5));
        let e = parse("\n\n[1, 2]").unwrap_err();
        assert_eq!(e.line, 3);
        let e = parse("{\"other\": 1}").unwrap_err();
        assert!(e.message.contains("neither `output_throughput`"), "{}", e.message);
        // Unbounded concurrency: the measured mean, rounded.
        let p =
            parse("{\"output_throughput\": 50.0, \"max_concurrency\": null, \"concurrency\": 7.6}").unwrap();
        let Record::DecodeThroughput { batch, .. } = &p.records[0] else {
            panic!()
        };
        assert_eq!(*batch, 8);
    }
}

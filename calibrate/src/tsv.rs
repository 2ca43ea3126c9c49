//! Collective rows of a tab-separated table in the layout of `tests/data/allreduce.tsv` (a header with
//! `n_gpus`, `size_bytes`, `time_us` and optionally `busbw_GBps`) as a measurement file, so that
//! published tables can be fitted and checked like `bench` output.

use crate::measurement::{MeasurementFile, Provenance, Record};

/// A malformed table: the file, the 1-based line, and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct TsvError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// The allreduce rows of `text` (named `file`) whose line contains every string of `filter`, each
/// with NCCL environment `env` (`KEY=VALUE`); rows without a size or a time (averages over sweeps)
/// are skipped. `backend` is recorded as given (`nccl`, `custom`, `torch`).
pub fn allreduce_records(
    text: &str,
    file: &str,
    filter: &[&str],
    env: &[&str],
    backend: Option<&str>,
) -> Result<MeasurementFile, TsvError> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').map(str::trim).collect();
    let col = |name: &str| {
        header.iter().position(|h| *h == name).ok_or_else(|| TsvError {
            file: file.to_string(),
            line: 1,
            message: format!("expected a header with a `{name}` column"),
        })
    };
    let (ni, si, ti) = (col("n_gpus")?, col("size_bytes")?, col("time_us")?);
    let bi = header.iter().position(|h| *h == "busbw_GBps");
    let mut m = MeasurementFile::new(Provenance {
        tool: "ingest".into(),
        sources: vec![file.to_string()],
        notes: vec![format!(
            "allreduce rows whose line contains {}",
            filter
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(" and ")
        )],
        ..Provenance::default()
    });
    for (i, line) in lines.enumerate() {
        if !filter.iter().all(|f| line.contains(f)) {
            continue;
        }
        let f: Vec<&str> = line.split('\t').map(str::trim).collect();
        let get = |k: usize| f.get(k).copied().unwrap_or("");
        if get(si).is_empty() || get(ti).is_empty() {
            continue;
        }
        let bad = |what: &str, v: &str| TsvError {
            file: file.to_string(),
            line: i + 2,
            message: format!(
                "{what} `{v}` is not {}",
                if what == "time_us" {
                    "a time in µs > 0"
                } else {
                    "an integer ≥ 1"
                }
            ),
        };
        let n: u32 = get(ni)
            .parse()
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| bad("n_gpus", get(ni)))?;
        let size: u64 = get(si)
            .parse()
            .ok()
            .filter(|s| *s >= 1)
            .ok_or_else(|| bad("size_bytes", get(si)))?;
        let t: f64 = get(ti)
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t > 0.0)
            .ok_or_else(|| bad("time_us", get(ti)))?;
        m.records.push(Record::Collective {
            op: "allreduce".into(),
            n_gpus: n,
            size_bytes: size,
            time_us: t,
            busbw_gbps: bi.and_then(|b| get(b).parse().ok()),
            backend: backend.map(str::to_string),
            env: env.iter().map(|e| e.to_string()).collect(),
            placement: None,
        });
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_rows_that_match_and_skips_averages() {
        let text = "source\tn_gpus\tsize_bytes\ttime_us\tbusbw_GBps\tnotes\n\
                    a\t8\t4096\t23.93\t0.300\tGroup A\n\
                    a\t8\t4096\t17.34\t0.410\tGroup B\n\
                    a\t8\t\t\t12.0\tGroup A average\n";
        let m = allreduce_records(text, "t.tsv", &["Group A"], &["NCCL_P2P_LEVEL=SYS"], None).unwrap();
        assert_eq!(m.records.len(), 1);
        let Record::Collective {
            time_us,
            busbw_gbps,
            env,
            ..
        } = &m.records[0]
        else {
            panic!("{m:?}")
        };
        assert_eq!((*time_us, *busbw_gbps), (23.93, Some(0.3)));
        assert_eq!(env, &vec!["NCCL_P2P_LEVEL=SYS".to_string()]);
    }

    #[test]
    fn names_the_line_of_a_bad_time() {
        let text = "n_gpus\tsize_bytes\ttime_us\n8\t4096\tfast\n";
        let e = allreduce_records(text, "t.tsv", &[], &[], None).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("time_us `fast`"), "{e}");
    }
}

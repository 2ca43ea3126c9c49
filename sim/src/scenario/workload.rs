//! The `[workload]` section: concurrency, request count and length distributions, with their
//! ranges.

use super::{LengthSpec, Resolver, ScenarioError, Workload, WorkloadSection};

impl Resolver<'_> {
    pub(super) fn workload(&self, mut w: WorkloadSection) -> Result<Workload, ScenarioError> {
        // Issue #18 (load): arrivals, histograms, a trace, shared prefixes (workload_load.rs).
        let load = self.load(&mut w)?;
        let open = !matches!(load.arrivals, crate::workload::Arrivals::Closed);
        let concurrency = w.concurrency.unwrap_or(if open {
            w.num_requests.unwrap_or(1).clamp(1, 4096)
        } else {
            1
        });
        let out = Workload {
            concurrency,
            num_requests: w.num_requests.unwrap_or(concurrency),
            prompt_len: w.prompt_len.unwrap_or(LengthSpec::Fixed(1024)),
            output_len: w.output_len.unwrap_or(LengthSpec::Fixed(1024)),
            load,
            empty_text_outputs: w.empty_text_outputs.unwrap_or(false),
        };
        if out.concurrency == 0 || out.concurrency > 4096 {
            return Err(self.invalid(
                "workload.concurrency",
                format!("{}: expected 1 to 4096 requests", out.concurrency),
            ));
        }
        if (!open && out.num_requests < out.concurrency)
            || out.num_requests == 0
            || out.num_requests > 1_000_000
        {
            return Err(self.invalid(
                "workload.num_requests",
                format!(
                    "{}: expected concurrency ({}) to 1,000,000 requests",
                    out.num_requests, out.concurrency
                ),
            ));
        }
        for (len, key) in [
            (&out.prompt_len, "workload.prompt_len"),
            (&out.output_len, "workload.output_len"),
        ] {
            if len.min() > len.max() {
                return Err(self.invalid(key, format!("{len}: min must not exceed max")));
            }
        }
        if out.output_len.min() == 0 {
            return Err(self.invalid("workload.output_len", "expected at least 1 output token"));
        }
        if out.prompt_len.max().saturating_add(out.output_len.max()) > 10_000_000 {
            return Err(self.invalid(
                "workload.prompt_len",
                "prompt_len + output_len exceeds 10M tokens",
            ));
        }
        self.open_loop_span(&out)?;
        Ok(out)
    }
}

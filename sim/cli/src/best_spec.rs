//! The text table of `tpsim run --best-spec` ([`tpsim::best_spec`]).

use std::fmt::Write as _;
pub(crate) use tpsim::best_spec::*;

/// The table.
pub fn text(b: &BestSpec) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "Speculative shapes, plain decode {:.1} tok/s",
        b.tok_s_without_spec
    );
    let _ = writeln!(
        o,
        "  {:>5} {:>4} {:>5} {:>12} {:>11} {:>12} {:>7}",
        "steps", "topk", "draft", "tok/s", "accept len", "iteration ms", "memory"
    );
    let shape = |c: &Candidate| (c.num_steps, c.topk, c.num_draft_tokens);
    for c in &b.candidates {
        let mark = if b.best.as_ref().is_some_and(|x| shape(x) == shape(c)) {
            "  ← best"
        } else {
            ""
        };
        let _ = writeln!(
            o,
            "  {:>5} {:>4} {:>5} {:>12.1} {:>11.2} {:>12.2} {:>7}{mark}",
            c.num_steps,
            c.topk,
            c.num_draft_tokens,
            c.output_tok_s,
            c.accept_len_mean,
            c.iteration_ms,
            c.memory_verdict
        );
    }
    match &b.best {
        Some(c) => {
            let _ = writeln!(
                o,
                "Best: num_steps = {}, topk = {}, num_draft_tokens = {} → {:.1} tok/s ({:.2}× plain decode)",
                c.num_steps,
                c.topk,
                c.num_draft_tokens,
                c.output_tok_s,
                if b.tok_s_without_spec > 0.0 {
                    c.output_tok_s / b.tok_s_without_spec
                } else {
                    0.0
                }
            );
        }
        None => {
            let _ = writeln!(o, "No shape starts under the memory plan.");
        }
    }
    o
}

//! Issue #18 leftover (dpsched): SGLang's DP attention as one scheduler per attention-DP group.
//!
//! SGLang 0.5.9: the data-parallel controller sends requests to the groups in turn
//! (`data_parallel_controller.py` `round_robin_scheduler`, the default `load_balance_method`), each
//! group's `Scheduler` admits against its own KV pool, and the groups run one forward in lock-step
//! (`scheduler_dp_attn_mixin.py` `prepare_mlp_sync_batch_raw`: an idle batch for a group with
//! nothing to run, CUDA graphs only when every group decodes or idles). The loop is driven with
//! fixed iteration costs (decode 10 ms, prefill 20 ms, mixed 25 ms; SUM_LEN DP-attention steps: 30
//! ms when some group extends, 12 ms for an eager decode over uneven groups) and records every
//! shape it asks for, so that each figure below is computed by hand from SGLang's admission rule
//! (sim/src/serve/sglang.rs: a request is admitted while input + min(output, 4096) < the tokens
//! left, page 1).

use tpsim::decode::DecodeError;
use tpsim::serve::{self, EnginePlan, GroupShape, IterationCosts, Plan, sglang};
use tpsim::workload::RequestSpec;
use tpsim_model::units::Duration;

use super::common;

/// What the loop asked to cost, in order.
#[derive(Debug, PartialEq)]
enum Shape {
    Decode {
        batch: u32,
        eager: bool,
    },
    Prefill {
        seqs: u32,
        tokens: u32,
    },
    Mixed {
        batch: u32,
        eager: bool,
        seqs: u32,
        tokens: u32,
    },
    /// A DP-attention step with an extend: the busy groups' own shapes (SUM_LEN).
    Dp(Vec<GroupShape>),
}

/// Decode 10 ms, prefill 20 ms, mixed 25 ms, SUM_LEN step 30 ms with an extend, 12 ms without;
/// every call recorded.
#[derive(Default)]
struct Recording(Vec<Shape>);
impl IterationCosts for Recording {
    fn decode(&mut self, batch: u32, _: u32, eager: bool) -> Result<(usize, Duration), DecodeError> {
        self.0.push(Shape::Decode { batch, eager });
        Ok((0, Duration::from_ms(10)))
    }
    fn prefill(&mut self, seqs: u32, tokens: u32) -> Result<(usize, Duration), DecodeError> {
        self.0.push(Shape::Prefill { seqs, tokens });
        Ok((1, Duration::from_ms(20)))
    }
    fn mixed(
        &mut self,
        batch: u32,
        _: u32,
        eager: bool,
        (seqs, tokens, _): (u32, u32, u32),
    ) -> Result<(usize, Duration), DecodeError> {
        self.0.push(Shape::Mixed {
            batch,
            eager,
            seqs,
            tokens,
        });
        Ok((2, Duration::from_ms(25)))
    }
    fn dp_sum_len(&mut self, groups: &[GroupShape]) -> Result<(usize, Duration), DecodeError> {
        let extends = groups.iter().any(|g| g.seqs > 0);
        self.0.push(Shape::Dp(groups.to_vec()));
        Ok(if extends {
            (3, Duration::from_ms(30))
        } else {
            (4, Duration::from_ms(12))
        })
    }
}

/// A group that only extends: `seqs` sequences of `tokens` tokens.
fn dp_ext(seqs: u32, tokens: u32) -> GroupShape {
    GroupShape {
        decode: 0,
        ctx: 0,
        seqs,
        tokens,
    }
}

fn req(prompt: u32, output: u32) -> RequestSpec {
    RequestSpec {
        arrival: None,
        prompt,
        output,
        prefix: None,
    }
}

/// SGLang with `groups` schedulers of `kv_tokens` each (page 1, no chunking limit in play).
fn plan(kv_tokens: u64, groups: u32, spec_reserve: Option<u64>, graphs: Vec<u32>) -> Plan {
    Plan {
        kv_tokens,
        groups,
        page: 1,
        engine: EnginePlan::Sglang(sglang::Settings {
            chunked_prefill_size: Some(8192),
            max_prefill_tokens: sglang::MAX_PREFILL_TOKENS,
            max_running_requests: 100,
            conservativeness: 1.0,
            spec_reserve,
            mixed_chunk: false,
            policy: Default::default(),
            radix_cache: true,
            // sched54: the current release's rules (SGLang 0.5.9).
            rules: tpsim::serve::sglang_release::Rules::for_version("0.5.9"),
            spec_headroom: 0,
        }),
        graphs,
        frontend: None,
        detok: None,
        request_path: Duration::ZERO,
        request_path_per_prompt_token: Duration::ZERO,
        max_req_len: None,
        hybrid: None,
    }
}

/// A closed loop of `concurrency` clients over `reqs`, context bucket 1 (shapes exact).
fn run(p: &Plan, reqs: Vec<RequestSpec>, concurrency: u32) -> (serve::Measured, Vec<Shape>) {
    let n = reqs.len() as u32;
    let never = |_: u32, _: u32| None;
    let mut rec = Recording::default();
    let m = serve::run(
        p,
        reqs.into_iter(),
        n,
        concurrency,
        &never,
        None,
        &mut rec,
        1,
        None,
    )
    .unwrap();
    (m, rec.0)
}

/// Long (100 in, 400 out: reserves 500) and short (100 in, 100 out: reserves 200) requests
/// alternate; round robin over 2 groups sends both long ones to group 0 and both short ones to
/// group 1. Group 0's pool is 1,000 tokens: L1 500 < 1,000 → admitted, 500 left; L2 500 ≥ 500 →
/// NO_TOKEN, it queues until L1 finishes. Group 1: S1 200 < 1,000, S2 200 < 800: both run.
/// Timeline (lock-step): t 0 one prefill, SUM_LEN (30 ms; each group its own shape: group 1 2
/// seqs/200 tokens, group 0 1/100 — not the busiest padded × 2); 99 decodes (S1, S2 finish at
/// 1,020 ms; both groups decode 2: Σ 4 × 2 > max 2 × 2 groups, MAX_LEN: batch 2 × 2 = 4); 300
/// decodes of L1 alone, group 1 idle, eager (no graphs): Σ 1 × 2 ≤ max 1 × 2 groups, so SGLang's
/// `get_dp_padding_mode` picks SUM_LEN (12 ms, group 0's 1 decode at context 200 = 100 + 99 + 1)
/// → 4,620 ms; L2's prefill, group 1 idle (only group 0's 1 seq/100 tokens, 30 ms) → 4,650; its
/// 399 decodes, SUM_LEN again → 9,438 ms.
/// The summed pool of 2,000 tokens (one scheduler) admits all four at once (500 + 200 + 500 + 200 =
/// 1,400 < 2,000): one prefill and 399 decodes, 4,010 ms.
#[test]
fn round_robin_puts_both_long_requests_in_one_groups_pool() {
    let reqs = vec![req(100, 400), req(100, 100), req(100, 400), req(100, 100)];
    let (m, shapes) = run(&plan(1000, 2, None, Vec::new()), reqs.clone(), 4);
    assert_eq!(m.end, Duration::from_ms(9438).as_ps());
    assert_eq!(m.prefill_iterations, 2);
    assert_eq!(m.decode_iterations, 99 + 300 + 399);
    assert_eq!(m.peak_running, 3);
    assert_eq!(m.peak_waiting, 1);
    assert_eq!(m.finished, 4);
    assert_eq!(m.preemptions, 0);
    assert_eq!(shapes.len(), 2 + 798);
    assert_eq!(shapes[0], Shape::Dp(vec![dp_ext(2, 200), dp_ext(1, 100)]));
    assert_eq!(
        shapes[1],
        Shape::Decode {
            batch: 4,
            eager: false
        }
    );
    // Uneven eager decode: SUM_LEN, group 0's own batch (group 1 idle adds nothing).
    assert_eq!(
        shapes[100],
        Shape::Dp(vec![GroupShape {
            decode: 1,
            ctx: 200,
            seqs: 0,
            tokens: 0
        }])
    );
    assert_eq!(shapes[400], Shape::Dp(vec![dp_ext(1, 100)]));

    let (summed, _) = run(&plan(2000, 1, None, Vec::new()), reqs, 4);
    assert_eq!(summed.end, Duration::from_ms(4010).as_ps());
    assert_eq!(summed.prefill_iterations, 1);
    assert_eq!(summed.decode_iterations, 399);
    assert_eq!(summed.peak_running, 4);
    assert_eq!(summed.peak_waiting, 0);
}

/// Three requests over 2 groups, 2 clients: R1 (10 in, 2 out) → group 0, R2 (10, 10) → group 1;
/// R3 (10, 10) is sent when R1 finishes, the controller's counter at 2 → group 0. t 0: both prefill
/// (SUM_LEN, 30 ms; 1 seq/10 tokens each); t 30: both decode (10 ms), R1 finishes; t 40: group 0
/// prefills R3 while group 1 decodes R2 — one forward, no CUDA graph since a group extends
/// (`can_cuda_graph` is the minimum over groups), each group's attention on its own part: group 1
/// one decode at context 12 (R2's 10 prompt + 2 outputs), group 0 1 seq/10 tokens (30 ms) → 70;
/// then R2 needs 7 more tokens and R3 9: 9 decodes → 160 ms. Graphs [1, 2, 4]: the decodes replay
/// them.
#[test]
fn a_group_prefills_while_another_decodes_in_one_eager_forward() {
    let reqs = vec![req(10, 2), req(10, 10), req(10, 10)];
    let (m, shapes) = run(&plan(1000, 2, None, vec![1, 2, 4]), reqs, 2);
    assert_eq!(m.end, Duration::from_ms(160).as_ps());
    assert_eq!(m.prefill_iterations, 1);
    assert_eq!(m.decode_iterations, 1 + 1 + 9);
    assert_eq!(shapes[0], Shape::Dp(vec![dp_ext(1, 10), dp_ext(1, 10)]));
    assert_eq!(
        shapes[1],
        Shape::Decode {
            batch: 2,
            eager: false
        }
    );
    let decode = GroupShape {
        decode: 1,
        ctx: 12,
        seqs: 0,
        tokens: 0,
    };
    assert_eq!(shapes[2], Shape::Dp(vec![decode, dp_ext(1, 10)]));
    assert_eq!(
        shapes[3],
        Shape::Decode {
            batch: 2,
            eager: false
        }
    );
}

/// The same three requests with speculation: SGLang syncs the groups' prefill batches first
/// (`get_next_batch_to_run`, "prefill and decode batches will not be mixed when spec and dp-attn is
/// enabled"), so at t 40 group 1 runs idle while group 0 prefills R3 (only its 1 seq/10 tokens, 30
/// ms → 70); R2 still needs 8 tokens and R3 9 (one token a cycle: no acceptance sampler): 9
/// decodes → 160 ms.
#[test]
fn with_speculation_a_prefill_idles_the_decoding_groups() {
    let reqs = vec![req(10, 2), req(10, 10), req(10, 10)];
    let (m, shapes) = run(&plan(1000, 2, Some(4), Vec::new()), reqs, 2);
    assert_eq!(m.end, Duration::from_ms(160).as_ps());
    assert_eq!(m.prefill_iterations, 2);
    assert_eq!(m.decode_iterations, 1 + 9);
    assert_eq!(shapes[2], Shape::Dp(vec![dp_ext(1, 10)]));
}

/// The DP-attention example (DeepSeek-V3, dp 8 on 8× H200; 128 requests of 1,024 + 256 tokens, 64
/// clients) run twice gives byte-identical JSON, and its iteration counts follow from per-group
/// scheduling: round robin gives each group 8 of the first 64 requests; the group's chunk is
/// 8,192 ÷ 8 = 1,024 tokens, so a 1,024-token prompt fills it and each group prefills one request
/// per iteration, all 8 groups side by side: 8 prefill iterations a wave, 2 waves = 16 (one
/// scheduler over the summed pool prefilled one request an iteration: 128). After the first prefill
/// each group has 7 waiting: peak waiting 8 × 7 = 56 (one queue: 63). A prefill-first group takes
/// no decode while it has waiting requests, so each wave's requests decode together: 2 × 255
/// decode iterations.
#[test]
fn the_dp_attention_example_is_deterministic_and_prefills_per_group() {
    let f = common::scenario("examples/deepseek-v3-dp-attention-h200x8.toml");
    let f = f.as_str();
    let a = common::tpsim(&["run", f, "--json"]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    let b = common::tpsim(&["run", f, "--json"]);
    assert_eq!(a.stdout, b.stdout);
    let j: serde_json::Value = serde_json::from_str(&a.stdout).expect("JSON");
    assert_eq!(j["serving"]["prefill_iterations"], 16);
    assert_eq!(j["serving"]["peak_waiting"], 56);
    assert_eq!(j["serving"]["peak_running"], 64);
    assert_eq!(j["throughput"]["iterations"], 510);
}

/// Issue #18 leftover (dpsched2) point 3: R1 (500 in, 10 out) → group 0, R2 (10 in, 10 out) →
/// group 1, pools of 1,000 tokens each (page 1). Both finish on the 9th decode (1 output from the
/// prefill + 9), their KV freed in that iteration; the fullest moment is after the 8th decode:
/// group 0 holds 500 + 8 = 508 tokens (50.8 % of its pool), group 1 18, all pools (508 + 18) ÷
/// 2,000 = 26.3 %. The summed figure alone would hide that one group is half full.
#[test]
fn the_busiest_groups_kv_peak_is_reported_beside_the_summed_one() {
    let (m, _) = run(
        &plan(1000, 2, None, Vec::new()),
        vec![req(500, 10), req(10, 10)],
        2,
    );
    assert_eq!(m.finished, 2);
    assert!(
        (m.peak_group_kv_utilisation - 0.508).abs() < 1e-12,
        "{}",
        m.peak_group_kv_utilisation
    );
    assert!(
        (m.peak_kv_utilisation - 0.263).abs() < 1e-12,
        "{}",
        m.peak_kv_utilisation
    );
}

/// Point 4: SGLang clips a request's output to its scheduler's `max_req_len` − input − 1
/// (`scheduler.py` `init_req_max_new_tokens`; `max_req_len` = min(context_len − 1, pool − 1) =
/// 999 for a 1,000-token pool): 900 in, 500 out asks 1,400 tokens, more than group 0's pool, and
/// gets 999 − 900 − 1 = 98 outputs: 900 + 98 = 998 < 1,000 is admitted at once. One prefill (group
/// 1 idle, 30 ms) and 97 decodes (group 1 idle, eager: SUM_LEN, 12 ms) → 30 + 1,164 = 1,194 ms.
#[test]
fn an_output_longer_than_the_groups_pool_is_clipped_as_sglang_does() {
    let mut p = plan(1000, 2, None, Vec::new());
    p.max_req_len = Some(999);
    let (m, shapes) = run(&p, vec![req(900, 500)], 1);
    assert_eq!(m.clipped_outputs, 1);
    assert_eq!(m.rejected, 0);
    assert_eq!(m.finished, 1);
    assert_eq!(m.output_tokens, 98);
    assert_eq!(shapes[0], Shape::Dp(vec![dp_ext(1, 900)]));
    assert_eq!(m.end, Duration::from_ms(1194).as_ps());
}

/// Point 4, without the clipping (the scheduler alone): R1 (10 in, 100 out) → group 0, R2 (900 in,
/// 500 out: 1,400 tokens, never fits a 1,000-token pool) → group 1, R3 (10 in, 10 out) next. Group
/// 1's pool is empty and admits nothing at t 0: R2 is refused then, not once group 0 idles; R3 is
/// sent at 30 ms (the controller's counter at 2 → group 0), prefilled alone (SGLang prefills
/// before decoding: 30 ms → 60); then R1's 99 decodes (R3's 9 among them; group 1 idle, eager:
/// SUM_LEN, 12 ms) → 1,248 ms. (Refused only when every group idled, R3 would have waited for R1:
/// 30 + 99 × 12 + 30 + 9 × 12 = 1,356 ms.)
#[test]
fn a_request_that_never_fits_its_group_is_refused_while_the_others_run() {
    let reqs = vec![req(10, 100), req(900, 500), req(10, 10)];
    let (m, _) = run(&plan(1000, 2, None, Vec::new()), reqs, 2);
    assert_eq!(m.rejected, 1);
    assert_eq!(m.finished, 2);
    assert!(
        m.first_rejection
            .as_deref()
            .is_some_and(|t| t.starts_with("never scheduled: prompt 900 + output 500")),
        "{:?}",
        m.first_rejection
    );
    assert_eq!(m.end, Duration::from_ms(1248).as_ps());
}

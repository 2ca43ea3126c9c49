//! SGLang's waiting-queue order (`--schedule-policy`), as SGLang 0.5.9 `managers/schedule_policy.py`
//! `SchedulePolicy.calc_priority` sorts it before each prefill batch is formed
//! (`scheduler.py` `get_new_batch_prefill`, after its early returns):
//!
//! - `fcfs`: arrival order, untouched.
//! - `lof`: a stable sort by `max_new_tokens`, longest first (`_sort_by_longest_output`).
//! - `lpm`: for a queue of at most 128 requests (`_determine_active_policy`; longer queues stay fcfs),
//!   each request's prefix match in the radix cache (`_compute_prefix_matches`), then a stable sort by
//!   match length, longest first (`_sort_by_longest_prefix`). In-batch prefix caching: a request whose
//!   match is at most IN_BATCH_PREFIX_CACHING_CHECK_THRESHOLD (32) tokens is matched against the
//!   prompts of the queue's earlier such requests; when it shares at least
//!   IN_BATCH_PREFIX_CACHING_DEPRIORITIZE_THRESHOLD (32) tokens with one, it goes to the back (its
//!   prefix will be cached by the one ahead), otherwise its prompt joins that set.
//!
//! Prompts here share tokens only through their shared prefix (`RequestSpec::prefix`): two prompts of
//! one group share that group's `len` tokens, prompts of different groups none.

use super::core::Core;
use crate::scenario::scheduler::SchedulePolicy;

/// `_determine_active_policy`: lpm sorts queues of at most this many requests (schedule_policy.py).
pub const LPM_MAX_QUEUE: usize = 128;
/// IN_BATCH_PREFIX_CACHING_CHECK_THRESHOLD (schedule_policy.py default, 0.5.9).
pub const IN_BATCH_CHECK_THRESHOLD: u64 = 32;
/// IN_BATCH_PREFIX_CACHING_DEPRIORITIZE_THRESHOLD (schedule_policy.py default, 0.5.9).
pub const IN_BATCH_DEPRIORITIZE_THRESHOLD: u64 = 32;

/// Reorders `c.waiting` as SGLang's `calc_priority` does for `policy`.
pub fn sort_waiting(policy: SchedulePolicy, c: &mut Core) {
    match policy {
        SchedulePolicy::Fcfs => {}
        SchedulePolicy::Lof => {
            let reqs = &c.reqs;
            c.waiting
                .make_contiguous()
                .sort_by_key(|&id| std::cmp::Reverse(reqs[id as usize].output));
        }
        SchedulePolicy::Lpm => {
            if c.waiting.len() > LPM_MAX_QUEUE {
                return;
            }
            // Sort key per request: None = deprioritised (last), else the match length.
            let mut seen_groups: Vec<u32> = Vec::new();
            let mut keyed: Vec<(Option<u64>, u32)> = Vec::with_capacity(c.waiting.len());
            for &id in c.waiting.iter() {
                let hit = c.peek_prefix(id, false);
                let mut key = Some(hit);
                if hit <= IN_BATCH_CHECK_THRESHOLD {
                    let shared = c.reqs[id as usize]
                        .prefix
                        .filter(|p| seen_groups.contains(&p.group));
                    match shared {
                        Some(p) if u64::from(p.len) >= IN_BATCH_DEPRIORITIZE_THRESHOLD => key = None,
                        _ => {
                            if let Some(p) = c.reqs[id as usize].prefix {
                                seen_groups.push(p.group);
                            }
                        }
                    }
                }
                keyed.push((key, id));
            }
            // Python's stable sort on −match, deprioritised at +inf.
            keyed.sort_by_key(|&(k, _)| match k {
                Some(h) => (0u8, std::cmp::Reverse(h)),
                None => (1u8, std::cmp::Reverse(0)),
            });
            c.waiting.clear();
            c.waiting.extend(keyed.into_iter().map(|(_, id)| id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::core::Req;
    use crate::serve::kv::KvPool;
    use crate::workload::SharedPrefix;

    fn req(output: u32, prefix: Option<(u32, u32)>) -> Req {
        Req::new(
            0,
            200,
            output,
            prefix.map(|(group, len)| SharedPrefix {
                group,
                len,
                warm: false,
            }),
        )
    }

    fn core(reqs: Vec<Req>, kv: KvPool) -> Core {
        let mut c = Core::new(kv);
        c.waiting.extend(0..reqs.len() as u32);
        c.reqs = reqs;
        c
    }

    fn order(c: &Core) -> Vec<u32> {
        c.waiting.iter().copied().collect()
    }

    #[test]
    fn lof_is_a_stable_sort_by_output_longest_first() {
        let mut c = core(
            vec![req(10, None), req(50, None), req(10, None), req(50, None)],
            KvPool::new(1000, 1),
        );
        sort_waiting(SchedulePolicy::Lof, &mut c);
        // Outputs 10, 50, 10, 50 → the two 50s in queue order, then the two 10s.
        assert_eq!(order(&c), [1, 3, 0, 2]);
    }

    #[test]
    fn lpm_puts_cached_prefixes_first_and_in_batch_duplicates_last() {
        // Group 7's 40-token prefix is cached (page 1: 40 tokens reusable).
        let mut kv = KvPool::new(1000, 1);
        assert!(kv.alloc(40));
        assert_eq!(kv.insert_prefix(7, 40, 40), 40);
        let reqs = vec![
            req(1, None),          // 0: match 0
            req(1, Some((3, 64))), // 1: match 0, first of group 3: joins the in-batch set
            req(1, Some((3, 64))), // 2: shares 64 ≥ 32 tokens with request 1: deprioritised
            req(1, Some((7, 40))), // 3: match 40 > 32: not checked in batch
            req(1, Some((5, 16))), // 4: match 0, first of group 5
            req(1, Some((5, 16))), // 5: shares 16 < 32 with request 4: keeps its place
        ];
        let mut c = core(reqs, kv);
        sort_waiting(SchedulePolicy::Lpm, &mut c);
        // −match: 3 (−40) first; 0, 1, 4, 5 (0) in queue order; 2 (+inf) last.
        assert_eq!(order(&c), [3, 0, 1, 4, 5, 2]);
        // fcfs leaves the queue alone.
        let before = order(&c);
        sort_waiting(SchedulePolicy::Fcfs, &mut c);
        assert_eq!(order(&c), before);
    }

    #[test]
    fn lpm_leaves_a_queue_over_128_in_arrival_order() {
        // 129 requests; the last one has the only cached prefix: lpm is off (fcfs) above 128.
        let mut kv = KvPool::new(1000, 1);
        assert!(kv.alloc(40));
        kv.insert_prefix(7, 40, 40);
        let mut reqs: Vec<Req> = (0..128).map(|_| req(1, None)).collect();
        reqs.push(req(1, Some((7, 40))));
        let mut c = core(reqs, kv);
        sort_waiting(SchedulePolicy::Lpm, &mut c);
        assert_eq!(c.waiting.front(), Some(&0));
        // One fewer request: sorted, the cached one first.
        c.waiting.pop_front();
        sort_waiting(SchedulePolicy::Lpm, &mut c);
        assert_eq!(c.waiting.front(), Some(&128));
    }
}

//! vLLM v1's scheduler (issue #18 point 3), as vLLM 0.11.0 does it (`v1/core/sched/scheduler.py`
//! `Scheduler.schedule`, `v1/core/kv_cache_manager.py` `allocate_slots`, `v1/core/block_pool.py`):
//!
//! - One token budget per step, `max_num_batched_tokens`, spent first on the running requests in
//!   order (a decode needs one token, plus the speculative tokens with spec decoding; a request
//!   still prefilling needs the rest of its prompt, capped by the budget: chunked prefill), then on
//!   waiting requests in order while fewer than `max_num_seqs` run. Decodes and prefill chunks run
//!   in one forward.
//! - `allocate_slots` succeeds when the blocks for the request's computed + new (+ lookahead)
//!   tokens fit the free blocks (cached blocks with no reference count as free); when it fails for a
//!   running request the scheduler preempts the LAST running request (`self.running.pop()`), frees
//!   its blocks, resets its computed tokens to 0 and puts it at the FRONT of the waiting queue
//!   (`prepend_request`); if the victim is the request itself it is not scheduled this step. No
//!   waiting request is admitted in a step that preempted.
//! - A waiting request that fails allocation stops admission for this step.
//! - Prefix caching is on by default: a new request reuses the full blocks of a cached prefix
//!   (`get_computed_blocks`; never its last prompt token), and a preempted request the full
//!   blocks of its own that are still cached when it is scheduled again (`KvPool::free_kept`).

use super::core::{Core, Scheduler};

/// vLLM's scheduler settings.
#[derive(Debug, Clone)]
pub struct Settings {
    pub max_num_batched_tokens: u64,
    pub max_num_seqs: u32,
    /// Speculative tokens per decode (`num_speculative_tokens`), 0 without spec decoding.
    pub spec_tokens: u64,
    /// Issue #18 point 1 (schedkeys): `long_prefill_token_threshold` (0 = off): v1/core/sched/scheduler.py
    /// `schedule` caps a request's new tokens per step at it, running and waiting alike.
    pub long_prefill_token_threshold: u64,
    /// Issue #18 (preemptcache): prefix caching on (`enable_prefix_caching`, the V1 default): a
    /// preempted request's full blocks stay cached in the free queue (`Core::keep_preempted`).
    pub keep_preempted: bool,
}

impl Settings {
    fn cap(&self, n: u64) -> u64 {
        let t = self.long_prefill_token_threshold;
        if 0 < t && t < n { t } else { n }
    }
}

/// vLLM's scheduler.
#[derive(Debug)]
pub struct Vllm {
    set: Settings,
}

impl Vllm {
    pub fn new(set: Settings) -> Self {
        Vllm { set }
    }
}

impl Scheduler for Vllm {
    fn schedule(&mut self, c: &mut Core) -> bool {
        let mut budget = self.set.max_num_batched_tokens;
        let mut preempted = false;
        let mut i = 0;
        while i < c.running.len() && budget > 0 {
            let id = c.running[i];
            let r = c.reqs[id as usize];
            let decoding = r.decoding();
            let want = r.target() - r.computed + if decoding { self.set.spec_tokens } else { 0 };
            let new = self.set.cap(want).min(budget);
            let mut scheduled = true;
            while !c.ensure_pages(id, r.computed + new) {
                let Some(victim) = c.running.pop() else {
                    scheduled = false;
                    break;
                };
                c.evict_request(victim);
                c.waiting.push_front(victim);
                preempted = true;
                if victim == id {
                    scheduled = false;
                    break;
                }
            }
            if !scheduled {
                break;
            }
            if decoding {
                c.batch.decode.push(id);
            } else {
                c.batch.extend.push((id, new));
            }
            budget -= new;
            i += 1;
        }
        if !preempted {
            while budget > 0 && (c.running.len() as u32) < self.set.max_num_seqs {
                let Some(&id) = c.waiting.front() else { break };
                let hit = c.peek_prefix(id, true);
                let r = c.reqs[id as usize];
                let new = self.set.cap(r.target() - r.computed - hit).min(budget);
                // A preempted request's kept pages stay in the free queue unless it is admitted.
                if r.kept != 0 && !c.kept_fits(id, hit, r.computed + hit + new) {
                    break;
                }
                c.take_prefix(id, hit);
                if !c.ensure_pages(id, r.computed + hit + new) {
                    if hit > 0 {
                        c.evict_request(id);
                        c.preemptions -= 1;
                    }
                    break;
                }
                c.waiting.pop_front();
                c.reqs[id as usize].in_running = true;
                c.running.push(id);
                c.batch.extend.push((id, new));
                budget -= new;
            }
        }
        !(c.batch.decode.is_empty() && c.batch.extend.is_empty())
    }
    fn mixed(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::core::Req;
    use crate::serve::kv::KvPool;
    use crate::workload::SharedPrefix;

    fn req(prompt: u32, warm: Option<u32>) -> Req {
        Req::new(
            0,
            prompt,
            4,
            warm.map(|len| SharedPrefix {
                group: 0,
                len,
                warm: true,
            }),
        )
    }

    fn vllm() -> Vllm {
        Vllm::new(Settings {
            max_num_batched_tokens: 2048,
            max_num_seqs: 256,
            spec_tokens: 0,
            long_prefill_token_threshold: 0,
            keep_preempted: true,
        })
    }

    /// vllmchunk59, issue #18: one 4,000-token prompt joining 7 running decodes under the 2,048-token
    /// budget vLLM 0.16.0 gives a 32 GB RTX 5090 (`arg_utils.py` `get_batch_defaults`: < 70 GiB,
    /// API server), as `v1/core/sched/scheduler.py` `schedule` shares it: the running requests
    /// first (one token each), then the waiting one with what is left. By hand: step 1 runs the 7
    /// decodes and 2,048 − 7 = 2,041 prompt tokens; step 2 the 7 decodes and the other 4,000 −
    /// 2,041 = 1,959 (the prompt now running, scheduled after the decodes in `running` order);
    /// step 3 = 8 decodes.
    #[test]
    fn a_4000_token_prompt_joins_7_decodes_in_two_chunks() {
        let mut c = Core::new(KvPool::new(16 * 10_000, 16));
        let mut reqs = Vec::new();
        for _ in 0..7 {
            let mut r = req(4_000, None);
            (r.produced, r.computed, r.output, r.in_running) = (10, 4_009, 4_000, true);
            reqs.push(r);
        }
        reqs.push(req(4_000, None));
        c.reqs = reqs;
        c.running = (0..7).collect();
        for id in 0..7 {
            assert!(c.ensure_pages(id, 4_010));
        }
        c.waiting.push_back(7);
        let mut v = vllm();
        let mut steps = Vec::new();
        for _ in 0..3 {
            c.batch = Default::default();
            assert!(v.schedule(&mut c));
            steps.push((c.batch.decode.len(), c.batch.extend.clone()));
            // What the step computed: one token a decode (its next sampled), the chunk's tokens.
            for &id in &c.batch.decode {
                let r = &mut c.reqs[id as usize];
                (r.computed, r.produced) = (r.computed + 1, r.produced + 1);
            }
            for &(id, t) in &c.batch.extend {
                let r = &mut c.reqs[id as usize];
                r.computed += t;
                if r.computed == r.target() {
                    r.produced += 1; // the prompt's last chunk samples its first token
                }
            }
        }
        assert_eq!(
            steps,
            vec![(7, vec![(7, 2_041)]), (7, vec![(7, 1_959)]), (8, vec![])]
        );
    }

    /// Issue #18 (prefillmix): a prompt an earlier run computed (`workload.cached_prompt_len` 2048 on
    /// a 2048-token prompt: the stream gives it a 2047-token warm prefix) is reused from the first
    /// step: vLLM 0.19.0 `get_computed_blocks` caps the hit at 2047 tokens = 127 full 16-token blocks =
    /// 2032 tokens, so 16 are computed; the cache entry takes those 127 blocks (by hand).
    #[test]
    fn a_warm_prompt_computes_only_its_last_block() {
        let mut c = Core::new(KvPool::new(16 * 1000, 16));
        c.reqs = vec![req(2048, Some(2047))];
        c.waiting.push_back(0);
        assert!(vllm().schedule(&mut c));
        assert_eq!(c.batch.extend, vec![(0, 16)]);
        assert_eq!(c.reqs[0].computed, 2032);
        assert_eq!(c.kv.cached_pages(0), 127);
        // 127 cache blocks (referenced) + 1 block of its own: 872 of 1000 free.
        assert_eq!(c.kv.free_or_evictable_pages(), 1000 - 128);
    }

    /// The same prompt without a warm prefix is chunked at the 2048-token budget: all of it computed.
    #[test]
    fn a_cold_prompt_computes_all_of_it() {
        let mut c = Core::new(KvPool::new(16 * 1000, 16));
        c.reqs = vec![req(2048, None)];
        c.waiting.push_back(0);
        assert!(vllm().schedule(&mut c));
        assert_eq!(c.batch.extend, vec![(0, 2048)]);
        assert_eq!(c.kv.free_or_evictable_pages(), 1000 - 128);
    }

    /// A pool that cannot hold the warm prefix beside what runs computes the prompt instead (the
    /// earlier run's blocks would have been evicted): 100 blocks, a warm 2047-token prefix (127).
    #[test]
    fn a_warm_prefix_the_pool_cannot_hold_is_computed() {
        let mut c = Core::new(KvPool::new(16 * 100, 16));
        c.reqs = vec![req(1024, Some(1023))];
        c.waiting.push_back(0);
        // 1023 → 63 blocks = 1008 tokens fit: hit.
        assert!(vllm().schedule(&mut c));
        assert_eq!(c.batch.extend, vec![(0, 16)]);
        let mut c = Core::new(KvPool::new(16 * 100, 16));
        c.reqs = vec![req(2048, Some(2047))];
        c.waiting.push_back(0);
        // 127 blocks > 100: no hit, and 128 blocks for the prompt do not fit either: not admitted.
        assert!(!vllm().schedule(&mut c));
        assert_eq!(c.kv.cached_pages(0), 0);
    }

    /// Issue #18 (preemptcache), by hand with vLLM 0.11.0's rules: 11 blocks of 16 tokens. A (64
    /// prompt + 30 out, 93 computed) holds 6, B (64 + 17 out, 80 computed) holds 5: none free.
    /// B's decode needs a 6th block → B, the last running, is preempted; its 80 computed tokens are
    /// 5 full blocks, kept. A then grows by 2 blocks, which come off the free queue's front: B's
    /// last 2 blocks (freed tail first). A finishes (8 blocks free). B, at the front of the
    /// waiting queue, hits its first 3 blocks = 48 of its 81 tokens (cap 80), recomputes 33 and
    /// takes 3 new blocks: 11 − 6 = 5 left. Without prefix caching it recomputes all 81.
    #[test]
    fn a_preempted_request_hits_its_blocks_still_cached() {
        for (keep, hit_blocks, recompute) in [(true, 3, 33), (false, 0, 81)] {
            let mut c = Core::new(KvPool::new(16 * 11, 16));
            c.keep_preempted = keep;
            let mut a = req(64, None);
            (a.produced, a.computed, a.pages, a.in_running) = (30, 93, 6, true);
            let mut b = req(64, None);
            (b.produced, b.computed, b.pages, b.in_running) = (17, 80, 5, true);
            (a.output, b.output) = (100, 100);
            c.reqs = vec![a, b];
            c.running = vec![0, 1];
            assert!(c.kv.alloc(11));
            assert!(vllm().schedule(&mut c));
            assert_eq!(c.batch.decode, vec![0]);
            assert_eq!((c.preemptions, c.running.clone()), (1, vec![0]));
            assert_eq!(c.waiting.front(), Some(&1));
            assert_eq!(c.kv.kept_pages(c.reqs[1].kept), if keep { 5 } else { 0 });
            // A grows to 126 tokens (8 blocks), then finishes.
            assert!(c.ensure_pages(0, 126));
            assert_eq!(c.kv.kept_pages(c.reqs[1].kept), if keep { 3 } else { 0 });
            c.kv.free(8);
            c.running.clear();
            c.batch = Default::default();
            assert_eq!(c.peek_prefix(1, true), hit_blocks * 16);
            assert!(vllm().schedule(&mut c));
            assert_eq!(c.batch.extend, vec![(1, recompute)]);
            assert_eq!(c.reqs[1].computed, hit_blocks * 16);
            assert_eq!(c.kv.free_or_evictable_pages(), 5);
        }
    }

    /// A preempted request that does not fit leaves its kept blocks where they are in the free
    /// queue (vLLM checks `allocate_slots` before `touch`): 10 blocks, B kept 5 of its 81 tokens,
    /// A holds 5 and 0 are free but B's 5 → B needs 6 > 5 free or cached: not admitted, still 5
    /// kept.
    #[test]
    fn a_preempted_request_that_does_not_fit_keeps_its_blocks_queued() {
        let mut c = Core::new(KvPool::new(16 * 10, 16));
        c.keep_preempted = true;
        let mut b = req(64, None);
        (b.produced, b.computed, b.pages, b.output) = (17, 80, 5, 100);
        let mut a = req(64, None);
        (a.produced, a.computed, a.pages, a.output, a.in_running) = (10, 73, 5, 100, true);
        c.reqs = vec![a, b];
        assert!(c.kv.alloc(10));
        c.evict_request(1);
        c.waiting.push_back(1);
        c.running = vec![0];
        let tag = c.reqs[1].kept;
        assert_eq!(c.kv.kept_pages(tag), 5);
        assert!(vllm().schedule(&mut c));
        assert_eq!(c.batch.extend, vec![]);
        assert_eq!(c.batch.decode, vec![0]);
        assert_eq!(c.kv.kept_pages(tag), 5);
        assert_eq!(c.waiting.front(), Some(&1));
    }
}

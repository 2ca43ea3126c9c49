//! Issue #18 (sglretract): SGLang's retraction with and without the radix cache, by hand from
//! SGLang 0.5.8 `schedule_batch.py` (`retract_decode`, `release_req`) and
//! `mem_cache/radix_cache.py` (`cache_finished_req(is_insert=False)`, `evict`).

use super::*;
use crate::serve::core::Req;
use crate::serve::kv::KvPool;

fn sglang() -> Sglang {
    Sglang::new(Settings {
        chunked_prefill_size: Some(8192),
        max_prefill_tokens: MAX_PREFILL_TOKENS,
        max_running_requests: 64,
        conservativeness: 1.0,
        spec_reserve: None,
        mixed_chunk: false,
        policy: Default::default(),
        radix_cache: true,
        // sched54: the current release's rules (SGLang 0.5.9).
        rules: crate::serve::sglang_release::Rules::for_version("0.5.9"),
        spec_headroom: 0,
    })
}

/// A request admitted fresh (`fill` = its prompt, prefill number `stamp`) that has produced
/// `produced` of `output` tokens and decodes (its KV: prompt + produced − 1, page size 1).
fn decoding(prompt: u32, output: u32, produced: u32, stamp: u64) -> Req {
    let mut r = Req::new(0, prompt, output, None);
    r.produced = produced;
    r.computed = u64::from(prompt + produced - 1);
    r.pages = r.computed;
    r.in_running = true;
    (r.fill, r.fill_stamp) = (u64::from(prompt), stamp);
    r
}

/// Pages of 1 token (SGLang's default `page_size`). A (prompt 100, 50 of 200 out: 149 tokens)
/// and B (prompt 120, `b_out` of 100 out) decode with 1 page free: the decode needs 2, so
/// `retract_decode` sorts by (outputs, −prompt) descending and pops B (fewer outputs). B's
/// release frees its KV past its prefill's 120 tokens (`b_out` − 1 pages, to the free front);
/// with the radix cache its 120-token prompt node stays, unless fewer than 20 × 1 remaining
/// request tokens are then free (`release_req`'s `evict_from_tree_cache`), which evicts it whole.
/// A decodes (1 page) and the ratio becomes (50 + 20 × 1) / (200 + 1). A finishes (150 pages
/// freed, behind B's node); B is admitted again on fill 120 + `b_out`: it matches its prompt
/// node (at most fill − 1 tokens) and extends the rest.
///
/// - radix, `b_out` 30: free front 1 + 29 = 30 ≥ 20 → kept; hit 120, extend 150 − 120 = 30;
/// - no radix, `b_out` 30: nothing kept; extend 150;
/// - radix, `b_out` 10: free front 1 + 9 = 10 < 20 → node evicted at release; extend 130.
#[test]
fn a_retracted_request_hits_its_prompt_still_in_the_radix_tree() {
    for (radix, b_out, hit) in [(true, 30u32, 120u64), (false, 30, 0), (true, 10, 0)] {
        let a = decoding(100, 200, 50, 1);
        let b = decoding(120, 100, b_out, 2);
        let total = a.pages + b.pages + 1;
        let kv = KvPool::new(total, 1);
        let mut c = Core::new(if radix { kv.radix() } else { kv });
        c.keep_retracted = radix;
        c.reqs = vec![a, b];
        c.running = vec![0, 1];
        assert!(c.kv.alloc(total - 1));
        let mut s = sglang();
        assert!(s.schedule(&mut c));
        assert_eq!(c.batch.decode, vec![0]);
        assert_eq!((c.preemptions, c.waiting.front()), (1, Some(&1)));
        assert_eq!(c.kv.kept_pages(c.reqs[1].kept), hit);
        assert!((s.ratio - 70.0 / 201.0).abs() < 1e-12, "{}", s.ratio);
        // A finishes: its 150 pages go behind B's node.
        c.kv.free(150);
        c.running.clear();
        c.finished += 1;
        c.batch = Default::default();
        assert_eq!(c.kv.free_or_evictable_pages(), total);
        let target = 120 + u64::from(b_out);
        assert!(s.schedule(&mut c));
        assert_eq!(c.batch.extend, vec![(1, target - hit)]);
        assert_eq!(c.reqs[1].computed, hit);
        assert_eq!(c.kv.free_or_evictable_pages(), total - target);
    }
}

/// The retracted request's `_lock_node` takes its node out of the evictable tokens before
/// `rem_total_tokens` is checked again. A pool of 299 pages of 1 token: A (149 pages, 10 of its
/// 60 outputs left: 10 × 0.7 = 7 reserved) runs; B (prompt 120, 30 of 100 out, 149 pages) was
/// retracted: its 29 output pages are free with the 1 left over, its 120-token node cached, so
/// 150 are free or evictable. B extends 150 − 120 = 30 and reserves 70: 100 < 150 − 7 = 143
/// passes the first check, but 100 ≥ 143 − 120 = 23 fails the second: NO_TOKEN, B stays
/// waiting and its node cached.
#[test]
fn locking_a_retracted_node_counts_against_the_budget() {
    let mut c = Core::new(KvPool::new(299, 1).radix());
    c.keep_retracted = true;
    let a = decoding(100, 60, 50, 1);
    let b = decoding(120, 100, 30, 2);
    c.reqs = vec![a, b];
    assert!(c.kv.alloc(298));
    c.evict_request(1);
    c.waiting.push_back(1);
    c.running = vec![0];
    assert_eq!(c.kv.free_or_evictable_pages(), 150);
    assert_eq!(c.kv.kept_pages(c.reqs[1].kept), 120);
    assert_eq!(c.peek_prefix(1, false), 120);
    let mut s = sglang();
    assert!(!s.prefill(&mut c));
    assert!(c.batch.extend.is_empty());
    assert_eq!(c.waiting.front(), Some(&1));
    assert_eq!(c.kv.kept_pages(c.reqs[1].kept), 120);
}

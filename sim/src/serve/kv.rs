//! The KV pool of the serving loop (issue #18 point 2/3): the memory plan's KV token count split in
//! pages (SGLang `page_size`, vLLM `block_size`), what requests hold, and a prefix cache for requests
//! that share a prompt prefix (`RequestSpec::prefix`).
//!
//! Sources: SGLang 0.5.9 `mem_cache/allocator.py` (`TokenToKVPoolAllocator` / the paged allocator:
//! `available_size`, pages of `page_size`), `mem_cache/radix_cache.py` (`match_prefix` returns a
//! page-aligned prefix, `inc_lock_ref` / `dec_lock_ref` protect it, `evict` frees unreferenced
//! leaves least recently used first, `evictable_size`); vLLM 0.11.0 `v1/core/block_pool.py`
//! (`get_num_free_blocks` counts cached blocks with no reference as free: they are evicted on
//! allocation, least recently freed first) and `v1/core/kv_cache_manager.py`
//! (`get_computed_blocks`: only full blocks are hashed and reused, and a prompt that hits in full
//! still recomputes its last token).
//!
//! Tokens are not simulated one by one: a shared prefix is one cache entry per `group`, with the
//! page-aligned length that requests of the group can reuse.
//!
//! A vLLM hybrid Mamba-2 / Gated DeltaNet model (issue #18, hybridserve) gets a pool of the memory
//! plan's `num_blocks` blocks of the hybrid block size ([`KvPool::blocks`]), each token page of a
//! request taking one block in each of its `attention_groups` attention groups (vLLM 0.19.0
//! `v1/core/kv_cache_coordinator.py` `HybridKVCacheCoordinator`: one `FullAttentionManager` per
//! group, all drawing on one `BlockPool`); the state blocks are the serving loop's
//! (`core::StateRule`).
//!
//! A request vLLM preempts keeps its full blocks' hashes (issue #18, preemptcache): vLLM 0.11.0
//! `v1/core/single_type_kv_cache_manager.py` `free` hands the request's blocks to
//! `BlockPool.free_blocks` in reverse order ("so that the tail blocks are freed first"), which
//! appends them to the free-block queue's tail with their hashes; `get_new_blocks` pops from the
//! queue's front and `_maybe_evict_cached_block` drops a popped block's hash. So a preempted
//! request's blocks are free, evicted from its last block backwards as later allocations reach
//! them, and whatever prefix of them is still cached hits when it is scheduled again
//! (`get_computed_blocks`). [`KvPool::free_kept`] models this with an ordered queue of free
//! segments, held only while some preempted request's blocks are still cached.
//!
//! A request SGLang retracts with the radix cache on keeps its prompt in the tree (issue #18,
//! sglretract; SGLang 0.5.8 and 0.5.9 alike): `ScheduleBatch.release_req` calls
//! `release_kv_cache(req, tree_cache, is_insert=False)`, whose `RadixCache.cache_finished_req`
//! frees only the request's KV past `cache_protected_len` (its outputs since its last prefill and
//! the unaligned tail) and drops its lock on the node that its prefill's `cache_unfinished_req`
//! inserted (the page-aligned prompt + the outputs it was admitted with): that node is now an
//! unlocked leaf. `RadixCache.evict` evicts whole leaves, least recently accessed first
//! (`LRUStrategy`, `last_access_time` set at insert and match), and `evict_from_tree_cache`
//! evicts (the full `num_tokens`, not the shortfall) only when `available_size` falls short. A
//! retraction happens only once every evictable leaf is gone (`check_decode_mem` evicts first),
//! and requests finishing afterwards insert their KV with later access times, so a retracted node
//! is evicted before them: [`KvPool::free_retracted`] puts the node in the same ordered queue
//! behind the truly free pages and ahead of later frees, and ([`KvPool::radix`]) an allocation
//! beyond the free pages in front of it evicts such nodes whole, oldest first.

use std::collections::{BTreeMap, VecDeque};

/// One cached shared prefix.
#[derive(Debug, Clone, Copy)]
struct Entry {
    /// Pages the entry holds.
    pages: u64,
    /// Requests using it now (SGLang's lock_ref, vLLM's block ref_cnt).
    refs: u32,
    /// Last use (an increasing counter), for least-recently-used eviction.
    last_use: u64,
    /// Whether its KV has been computed (a prefix is matched only once the first request's prefill
    /// that writes it has run: SGLang inserts at `cache_unfinished_req`, vLLM hashes full blocks
    /// as they are computed).
    ready: bool,
}

/// The KV pool: pages free, pages held by requests, and the prefix cache.
#[derive(Debug, Clone)]
pub struct KvPool {
    pub page: u64,
    pub total_pages: u64,
    /// Blocks one page of tokens takes: 1, or a vLLM hybrid's attention groups.
    groups: u64,
    free_pages: u64,
    prefixes: BTreeMap<u32, Entry>,
    /// Pages of prefix entries with no reference (evictable).
    evictable_pages: u64,
    clock: u64,
    /// vLLM's free-block queue while a preempted request's blocks are cached in it: (tag, pages)
    /// segments in eviction order, tag 0 for blocks without a hash worth keeping (empty otherwise:
    /// then the order of the free pages does not matter).
    queue: VecDeque<(u64, u64)>,
    /// Live tags: a preempted request's full pages still cached in the queue.
    kept: BTreeMap<u64, u64>,
    next_tag: u64,
    /// SGLang's radix cache (see the module doc): kept segments are retracted requests' tree
    /// nodes, evicted whole when an allocation outruns the free pages in front of them.
    radix: bool,
    /// A radix kept segment's last access (its prefill's order), by tag.
    stamps: BTreeMap<u64, u64>,
}

impl KvPool {
    /// A pool of `tokens` KV tokens in pages of `page` tokens.
    pub fn new(tokens: u64, page: u64) -> Self {
        let page = page.max(1);
        let total_pages = tokens / page;
        KvPool::blocks(total_pages, page, 1)
    }

    /// A pool of `blocks` blocks of `page` tokens in which a page of a request's tokens takes one
    /// block in each of `groups` KV-cache groups (a vLLM hybrid's attention groups).
    pub fn blocks(blocks: u64, page: u64, groups: u64) -> Self {
        KvPool {
            page: page.max(1),
            total_pages: blocks,
            groups: groups.max(1),
            free_pages: blocks,
            prefixes: BTreeMap::new(),
            evictable_pages: 0,
            clock: 0,
            queue: VecDeque::new(),
            kept: BTreeMap::new(),
            next_tag: 0,
            radix: false,
            stamps: BTreeMap::new(),
        }
    }

    /// The pool of SGLang with its radix cache on: retracted requests' nodes
    /// ([`KvPool::free_retracted`]) are evicted whole, least recently used first.
    pub fn radix(mut self) -> Self {
        self.radix = true;
        self
    }

    /// Pages holding `tokens` tokens (in every group).
    /// The serving loop asks this for every running request each iteration (speed64): a page of a
    /// power of two tokens (SGLang's default 1, vLLM's 16) divides by a shift, not a `div`; the
    /// result is `tokens.div_ceil(page)` exactly.
    #[inline]
    pub fn pages_for(&self, tokens: u64) -> u64 {
        let whole = if self.page.is_power_of_two() {
            let shift = self.page.trailing_zeros();
            (tokens >> shift) + u64::from(tokens & (self.page - 1) != 0)
        } else {
            tokens.div_ceil(self.page)
        };
        whole * self.groups
    }

    /// Tokens of `pages` pages taken over every group (the inverse of [`KvPool::pages_for`] for
    /// whole pages).
    pub fn tokens_of(&self, pages: u64) -> u64 {
        pages / self.groups * self.page
    }

    /// Tokens of free pages (SGLang `available_size`).
    pub fn available_tokens(&self) -> u64 {
        self.free_pages * self.page
    }
    /// Tokens of unreferenced cached prefixes (SGLang `evictable_size`).
    pub fn evictable_tokens(&self) -> u64 {
        self.evictable_pages * self.page
    }
    /// Free plus evictable pages (vLLM `get_num_free_blocks`).
    pub fn free_or_evictable_pages(&self) -> u64 {
        self.free_pages + self.evictable_pages
    }
    /// Fraction of the pool that is neither free nor evictable.
    pub fn utilisation(&self) -> f64 {
        if self.total_pages == 0 {
            return 0.0;
        }
        (self.total_pages - self.free_pages - self.evictable_pages) as f64 / self.total_pages as f64
    }

    /// Evicts unreferenced prefixes, least recently used first, until `pages` pages are free or
    /// nothing is left to evict (SGLang `evict_from_tree_cache`, vLLM's free-block queue).
    pub fn evict_for(&mut self, pages: u64) {
        self.evict_retracted(pages);
        while self.free_pages < pages && self.evictable_pages > 0 {
            let victim = self
                .prefixes
                .iter()
                .filter(|(_, e)| e.refs == 0)
                .min_by_key(|(g, e)| (e.last_use, **g))
                .map(|(g, _)| *g);
            let Some(g) = victim else { break };
            if let Some(e) = self.prefixes.remove(&g) {
                self.evictable_pages -= e.pages;
                self.free_pages += e.pages;
                self.push_back(0, e.pages);
            }
        }
    }

    /// Takes `pages` pages, evicting cached prefixes if needed; false (nothing taken) when the pool
    /// cannot supply them.
    pub fn alloc(&mut self, pages: u64) -> bool {
        self.evict_retracted(pages);
        if pages > self.free_pages {
            self.evict_for(pages);
        }
        if pages > self.free_pages {
            return false;
        }
        self.free_pages -= pages;
        self.pop_front(pages);
        true
    }

    /// Returns `pages` pages (to the free queue's tail, without a hash worth keeping).
    pub fn free(&mut self, pages: u64) {
        self.free_pages += pages;
        self.push_back(0, pages);
    }

    /// Starts tracking the free queue when nothing is kept yet: the queue was not tracked, so every
    /// free page so far sits, untagged, ahead of the pages about to be kept.
    fn track_queue(&mut self) {
        if self.kept.is_empty() {
            self.queue.clear();
            if self.free_pages > 0 {
                self.queue.push_back((0, self.free_pages));
            }
        }
    }

    /// vLLM's free of a preempted request (see the module doc): its `rest` pages without a kept
    /// hash (the partly filled last block) go to the queue's tail first, then its `full` pages of
    /// computed tokens, last block first. Returns the tag that [`KvPool::kept_pages`],
    /// [`KvPool::retake`] and [`KvPool::forget`] take (0 when `full` is 0: nothing kept).
    pub fn free_kept(&mut self, full: u64, rest: u64) -> u64 {
        self.free(rest);
        if full == 0 {
            return 0;
        }
        self.track_queue();
        self.next_tag += 1;
        self.free_pages += full;
        self.queue.push_back((self.next_tag, full));
        self.kept.insert(self.next_tag, full);
        self.next_tag
    }

    /// SGLang's release of a request it retracts with the radix cache on (see the module doc): its
    /// `rest` pages (outputs since its last prefill, the unaligned tail) are free at once, ahead
    /// of everything in the queue; its `node` pages stay cached as an unlocked tree node last
    /// accessed at `stamp` (its prefill's order), queued behind the free pages and any older
    /// such node. Returns the tag (0 when `node` is 0: nothing kept).
    pub fn free_retracted(&mut self, node: u64, rest: u64, stamp: u64) -> u64 {
        self.free_pages += rest;
        if !self.kept.is_empty() && rest > 0 {
            match self.queue.front_mut() {
                Some((t, p)) if !self.kept.contains_key(t) => *p += rest,
                _ => self.queue.push_front((0, rest)),
            }
        }
        if node == 0 {
            return 0;
        }
        self.track_queue();
        self.next_tag += 1;
        let tag = self.next_tag;
        self.free_pages += node;
        // Behind every segment that is free or holds an older node.
        let mut at = self.queue.len();
        while at > 0 {
            let t = self.queue[at - 1].0;
            match (self.kept.contains_key(&t), self.stamps.get(&t)) {
                (true, Some(&s)) if s > stamp => at -= 1,
                _ => break,
            }
        }
        self.queue.insert(at, (tag, node));
        self.kept.insert(tag, node);
        self.stamps.insert(tag, stamp);
        tag
    }

    /// Free pages ahead of the first cached node (SGLang `available_size` with the radix cache:
    /// what is behind it is KV of requests finished later, still in the tree).
    fn front_free(&self) -> u64 {
        if self.kept.is_empty() {
            return self.free_pages;
        }
        self.queue
            .iter()
            .take_while(|(t, _)| !self.kept.contains_key(t))
            .map(|&(_, p)| p)
            .sum()
    }

    /// SGLang `evict_from_tree_cache(tree_cache, n)` over the retracted nodes: when fewer than
    /// `pages` pages are free ahead of them, whole nodes are evicted, oldest first, until `pages`
    /// pages' worth are (or none is left). No-op outside [`KvPool::radix`]. tpsim allocates a
    /// prefill's pages request by request where SGLang takes the batch's at once
    /// (`alloc_for_extend`), so a node may go one request earlier or later than in the engine.
    pub fn evict_retracted(&mut self, pages: u64) {
        if !self.radix || self.kept.is_empty() || self.front_free() >= pages {
            return;
        }
        let mut evicted = 0;
        for i in 0..self.queue.len() {
            if evicted >= pages {
                break;
            }
            let (t, p) = self.queue[i];
            if self.kept.remove(&t).is_some() {
                self.stamps.remove(&t);
                self.queue[i].0 = 0;
                evicted += p;
            }
        }
        self.untrack_if_idle();
    }

    /// Pages of tag `tag` still cached (0 once evicted, taken back or forgotten).
    pub fn kept_pages(&self, tag: u64) -> u64 {
        self.kept.get(&tag).copied().unwrap_or(0)
    }

    /// The preempted request of `tag` takes its cached pages back out of the free queue (vLLM
    /// `BlockPool.touch` on a prefix hit); returns them.
    pub fn retake(&mut self, tag: u64) -> u64 {
        let Some(pages) = self.kept.remove(&tag) else {
            return 0;
        };
        self.stamps.remove(&tag);
        if let Some(i) = self.queue.iter().position(|&(t, _)| t == tag) {
            self.queue.remove(i);
        }
        self.free_pages -= pages;
        self.untrack_if_idle();
        pages
    }

    /// Tag `tag`'s pages stay free but can no longer hit (their chain's first blocks are gone).
    pub fn forget(&mut self, tag: u64) {
        if self.kept.remove(&tag).is_some() {
            self.stamps.remove(&tag);
            self.untrack_if_idle();
        }
    }

    fn untrack_if_idle(&mut self) {
        if self.kept.is_empty() {
            self.queue.clear();
        }
    }

    fn push_back(&mut self, tag: u64, pages: u64) {
        if self.kept.is_empty() || pages == 0 {
            return;
        }
        match self.queue.back_mut() {
            Some((0, p)) if tag == 0 => *p += pages,
            _ => self.queue.push_back((tag, pages)),
        }
    }

    /// Takes `pages` pages off the queue's front, evicting kept pages they reach.
    fn pop_front(&mut self, mut pages: u64) {
        while pages > 0 && !self.kept.is_empty() {
            let Some(front) = self.queue.front_mut() else {
                break;
            };
            let take = front.1.min(pages);
            front.1 -= take;
            pages -= take;
            let (tag, left) = *front;
            if tag != 0
                && let Some(k) = self.kept.get_mut(&tag)
            {
                *k = left;
                // A radix node is evicted whole (not reached: `evict_retracted` ran first).
                if left == 0 || self.radix {
                    self.kept.remove(&tag);
                    self.stamps.remove(&tag);
                }
            }
            if left == 0 {
                self.queue.pop_front();
            }
        }
        self.untrack_if_idle();
    }

    /// Pages a hit on `group`'s entry would take out of the free or evictable pages: the entry's
    /// when nothing references it, the hit's own for a warm prefix not cached yet, else 0.
    pub fn lock_cost(&self, group: u32, hit: u64) -> u64 {
        match self.prefixes.get(&group) {
            Some(e) if e.refs == 0 => e.pages,
            Some(_) => 0,
            None => self.pages_for(hit),
        }
    }

    /// The page-aligned tokens of `group`'s prefix (`len` tokens of a `prompt`-token prompt) that a
    /// new request could reuse now (0 when nothing is cached). `keep_last`: vLLM recomputes the
    /// last prompt token even on a full hit.
    pub fn peek_prefix(&self, group: u32, len: u32, prompt: u32, keep_last: bool) -> u64 {
        let hit = self.aligned_hit(len, prompt, keep_last);
        match self.prefixes.get(&group) {
            Some(e) if e.ready => (hit / self.page).min(e.pages / self.groups) * self.page,
            _ => 0,
        }
    }

    /// The page-aligned tokens of a `len`-token prefix of a `prompt`-token prompt that a hit can
    /// reuse (`keep_last`: vLLM recomputes the last prompt token even on a full hit).
    pub fn aligned_hit(&self, len: u32, prompt: u32, keep_last: bool) -> u64 {
        let limit = if keep_last {
            u64::from(len.min(prompt.saturating_sub(1)))
        } else {
            u64::from(len.min(prompt))
        };
        limit / self.page * self.page
    }

    /// Issue #18 (prefillmix): `tokens` (page-aligned) of `group`'s prefix computed by an earlier run
    /// (`workload.cached_prompt_len`) enter the cache as a ready entry without a reference, taking
    /// free pages and evicting older unreferenced entries if needed (as they would have been in the
    /// earlier run's least-recently-freed order); false (nothing taken) when the pool cannot hold
    /// them or the group is already cached.
    pub fn insert_warm(&mut self, group: u32, tokens: u64) -> bool {
        let pages = tokens / self.page * self.groups;
        if pages == 0 || self.prefixes.contains_key(&group) || !self.alloc(pages) {
            return false;
        }
        self.clock += 1;
        self.prefixes.insert(
            group,
            Entry {
                pages,
                refs: 0,
                last_use: self.clock,
                ready: true,
            },
        );
        self.evictable_pages += pages;
        true
    }

    /// Takes a reference to `group`'s cached prefix (after [`KvPool::peek_prefix`] found it).
    pub fn lock_prefix(&mut self, group: u32) {
        self.clock += 1;
        let clock = self.clock;
        if let Some(e) = self.prefixes.get_mut(&group) {
            if e.refs == 0 {
                self.evictable_pages -= e.pages;
            }
            e.refs += 1;
            e.last_use = clock;
        }
    }

    /// After a request of `group` computed its first `computed` prompt tokens from scratch: the
    /// full pages of its shared prefix move from the request into the cache (the request keeps a
    /// reference). Returns the pages the request no longer owns itself (0 if the group was already
    /// cached or has no full page).
    pub fn insert_prefix(&mut self, group: u32, len: u32, computed: u64) -> u64 {
        self.clock += 1;
        if self.prefixes.contains_key(&group) {
            return 0;
        }
        let pages = u64::from(len).min(computed) / self.page * self.groups;
        if pages == 0 {
            return 0;
        }
        self.prefixes.insert(
            group,
            Entry {
                pages,
                refs: 1,
                last_use: self.clock,
                ready: true,
            },
        );
        pages
    }

    /// Drops a request's reference to `group`'s prefix.
    pub fn release_prefix(&mut self, group: u32) {
        if let Some(e) = self.prefixes.get_mut(&group)
            && e.refs > 0
        {
            e.refs -= 1;
            if e.refs == 0 {
                self.evictable_pages += e.pages;
            }
        }
    }

    /// Pages of `group`'s cache entry (0 when not cached).
    pub fn cached_pages(&self, group: u32) -> u64 {
        self.prefixes.get(&group).map_or(0, |e| e.pages)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_reuse_and_lru_eviction() {
        // 100 tokens in pages of 4: 25 pages.
        let mut kv = KvPool::new(100, 4);
        assert_eq!(kv.total_pages, 25);
        // A request of group 7 with a 10-token prefix computes 12 tokens (3 pages) from scratch.
        assert!(kv.alloc(3));
        // Its 2 full prefix pages (8 tokens) move to the cache.
        assert_eq!(kv.insert_prefix(7, 10, 12), 2);
        // The next request of the group reuses 8 tokens (page-aligned), 4 with vLLM's last-token
        // rule on a 9-token prompt (min(10, 8) = 8 → 2 pages, but the prompt is 9 → 8).
        assert_eq!(kv.peek_prefix(7, 10, 20, false), 8);
        assert_eq!(kv.peek_prefix(7, 10, 9, true), 8);
        // A 8-token prompt that is all prefix: vLLM recomputes its last token, so 7 → 1 page.
        assert_eq!(kv.peek_prefix(7, 10, 8, true), 4);
        kv.lock_prefix(7);
        kv.lock_prefix(7);
        kv.release_prefix(7);
        kv.release_prefix(7);
        assert_eq!(kv.evictable_tokens(), 0);
        kv.release_prefix(7);
        // Unreferenced: 2 pages evictable; free 22 + 2 evictable.
        assert_eq!(kv.evictable_tokens(), 8);
        assert_eq!(kv.free_or_evictable_pages(), 24);
        // Asking for 24 pages evicts it.
        assert!(kv.alloc(24));
        assert_eq!(kv.cached_pages(7), 0);
    }

    /// Issue #18 (preemptcache), vLLM 0.11.0 `free_blocks` / `get_new_blocks` order by hand: 20
    /// pages of 16 tokens; a request holds 12, 2 are free. Preempted with 7 full pages of
    /// computed tokens and 1 partial (tag kept): the queue is [2 free][1 partial][7 kept, last
    /// block first]. Taking 5 pages takes the 2 free, the partial, then 2 of its blocks: 5 still
    /// cached. Another request finishing frees 6 behind them; taking 4 more evicts 4 of them: 1
    /// left, which it takes back; then nothing is kept and the queue is not tracked.
    #[test]
    fn preempted_pages_are_evicted_in_free_queue_order() {
        let mut kv = KvPool::new(20 * 16, 16);
        assert!(kv.alloc(18));
        kv.free(0);
        let tag = kv.free_kept(7, 1);
        // 2 + 1 + 7 free.
        assert_eq!(kv.free_or_evictable_pages(), 10);
        assert_eq!(kv.kept_pages(tag), 7);
        assert!(kv.alloc(5));
        assert_eq!(kv.kept_pages(tag), 5);
        kv.free(6);
        assert!(kv.alloc(4));
        assert_eq!(kv.kept_pages(tag), 1);
        // 5 + 6 − 4 free, the kept one among them.
        assert_eq!(kv.free_or_evictable_pages(), 7);
        assert_eq!(kv.retake(tag), 1);
        assert_eq!(kv.free_or_evictable_pages(), 6);
        assert!(kv.queue.is_empty() && kv.kept.is_empty());
        // Without a kept page nothing is tracked.
        assert_eq!(kv.free_kept(0, 3), 0);
        assert!(kv.queue.is_empty());
        assert_eq!(kv.free_or_evictable_pages(), 9);
    }

    /// Issue #18 (sglretract), SGLang 0.5.8 radix eviction by hand: 40 pages, all held. B is
    /// retracted with a 10-page node (prefill 5) and 3 pages freed, then C with a 6-page node from
    /// an older prefill (2) and 2 freed: the queue is [5 free][C 6][B 10] (LRU: oldest first).
    /// A request finishing frees 4 behind them. Taking 5 takes the free front, nothing evicted;
    /// taking 1 more evicts C's node whole (not 1 page of it; B's stays although 4 + 5 free pages
    /// sit behind it); `release_req`'s eviction of 8 (5 free ahead of B) then evicts B whole.
    #[test]
    fn retracted_nodes_are_evicted_whole_oldest_first() {
        let mut kv = KvPool::new(40 * 4, 4).radix();
        assert!(kv.alloc(40));
        let b = kv.free_retracted(10, 3, 5);
        let c = kv.free_retracted(6, 2, 2);
        kv.free(4);
        assert_eq!(kv.queue, VecDeque::from([(0, 5), (c, 6), (b, 10), (0, 4)]));
        assert_eq!(kv.free_or_evictable_pages(), 25);
        assert!(kv.alloc(5));
        assert_eq!((kv.kept_pages(c), kv.kept_pages(b)), (6, 10));
        assert!(kv.alloc(1));
        assert_eq!((kv.kept_pages(c), kv.kept_pages(b)), (0, 10));
        assert_eq!(kv.front_free(), 5);
        kv.evict_retracted(5);
        assert_eq!(kv.kept_pages(b), 10);
        kv.evict_retracted(8);
        assert_eq!(kv.kept_pages(b), 0);
        assert!(kv.queue.is_empty() && kv.stamps.is_empty());
        assert_eq!(kv.free_or_evictable_pages(), 19);
    }
}

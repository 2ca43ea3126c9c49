//! SGLang's scheduler (issue #18 point 2), as SGLang 0.5.9 does it:
//!
//! - `managers/scheduler.py` `get_next_batch_to_run`: a prefill batch whenever one can be formed,
//!   else a decode of the running batch (prefill and decode are separate iterations unless
//!   `--enable-mixed-chunk`: then the running decodes join the prefill forward, `mix_with_running`).
//! - `get_new_batch_prefill`: nothing when the running batch is full (`batch_is_full`, reset when
//!   the batch shrinks) or at `max_running_requests`; the pending chunked request first
//!   (`PrefillAdder.add_chunked_req`), then the waiting queue in the `--schedule-policy` order (`serve::policy`) through
//!   `PrefillAdder.add_one_req` until it answers other than CONTINUE or the batch holds as many
//!   requests as can still be allocated (`get_num_allocatable_reqs`).
//! - `managers/schedule_policy.py` `PrefillAdder`: `rem_total_tokens` = free + evictable KV tokens
//!   − (Σ over running requests of min(max_new_tokens − outputs, CLIP_MAX_NEW_TOKENS) ×
//!   `new_token_ratio`) − what this batch already reserved (its page-rounded input plus
//!   min(max_new_tokens, CLIP_MAX_NEW_TOKENS)); a request whose input + remaining output (clipped)
//!   reaches it is refused (NO_TOKEN); `rem_input_tokens` starts at `max_prefill_tokens`,
//!   `rem_chunk_tokens` at `chunked_prefill_size`; a prompt above the chunk left is truncated to it
//!   (page-aligned) and becomes the chunked request, reserving no output.
//! - `scheduler.py` `update_running_batch` / `schedule_batch.py` `check_decode_mem`,
//!   `retract_decode`: before a decode the batch needs a page for each request whose KV fills its
//!   last page (`new_tokens_required_next_decode`; speculative: max(steps × topk, draft tokens)
//!   page-aligned per request); when free + evictable tokens fall short, requests are retracted —
//!   sorted by (outputs, −prompt) descending without speculation, in batch order with it, popped
//!   from the end, at least one, until the rest fit — their KV freed (with the radix cache on, the
//!   last prefill's node stays in the tree, evictable: `release_req`, `KvPool::free_retracted`;
//!   each release evicts when fewer than RETRACT_DECODE_STEPS tokens per remaining request are
//!   free), back to the waiting queue to recompute prompt + outputs (matching what survives); the
//!   ratio becomes min(1, (Σ outputs + RETRACT_DECODE_STEPS × n) / (Σ max_new_tokens + 1)) over the
//!   requests kept (0.5.8 and 0.5.9 alike). Without retraction the ratio decays by
//!   `new_token_ratio_decay` to its minimum.
//! - `scheduler.py` `__init__`: init ratio = min(SGLANG_INIT_NEW_TOKEN_RATIO 0.7 ×
//!   schedule_conservativeness, 1); min = init × SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14; decay =
//!   (init − min) / SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS 600 (`environ.py`); RETRACT_DECODE_STEPS 20,
//!   CLIP_MAX_NEW_TOKENS 4096 (`environ.py`, `schedule_policy.py`).
//! - sched54: without the radix cache bench_serving's `ignore_eos` requests go through
//!   `add_one_req_ignore_eos` (`Sglang::add_one_eos`), and what it checks, how far a retraction
//!   goes and the ratio it leaves change by release (`serve::sglang_release`, 0.4.0 – 0.5.10).

use super::core::{Core, Scheduler};

/// SGLang's scheduler settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `chunked_prefill_size` (None: chunking off, SGLang's −1).
    pub chunked_prefill_size: Option<u64>,
    /// `max_prefill_tokens` (server_args default 16384).
    pub max_prefill_tokens: u64,
    pub max_running_requests: u32,
    /// `schedule_conservativeness` (default 1.0).
    pub conservativeness: f64,
    /// KV tokens one speculative decode step reserves per request (None without speculation).
    pub spec_reserve: Option<u64>,
    /// Issue #18 point 1 (schedkeys): `--enable-mixed-chunk` (with chunked prefill on).
    pub mixed_chunk: bool,
    /// `--schedule-policy`: the waiting queue's order (`serve::policy`).
    pub policy: crate::scenario::scheduler::SchedulePolicy,
    /// The radix cache on (no `--disable-radix-cache`): a retracted request's prompt stays in the
    /// tree (`Core::keep_retracted`). Off, bench_serving's `ignore_eos` requests are admitted by
    /// `add_one_req_ignore_eos` (sched54, `serve::sglang_release`).
    pub radix_cache: bool,
    /// sched54: the release's admission and retraction rules (`serve::sglang_release`).
    pub rules: super::sglang_release::Rules,
    /// sched54: KV tokens a retraction keeps free per remaining request under speculation before
    /// 0.5.2 (`get_required_tokens`: topk × steps + draft tokens; 0 without speculation).
    pub spec_headroom: u64,
}

/// SGLANG_INIT_NEW_TOKEN_RATIO (environ.py, 0.5.9).
pub const INIT_NEW_TOKEN_RATIO: f64 = 0.7;
/// SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR (environ.py, 0.5.9).
pub const MIN_NEW_TOKEN_RATIO_FACTOR: f64 = 0.14;
/// SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS (environ.py, 0.5.9).
pub const NEW_TOKEN_RATIO_DECAY_STEPS: f64 = 600.0;
/// SGLANG_RETRACT_DECODE_STEPS (environ.py, 0.5.9).
pub const RETRACT_DECODE_STEPS: u64 = 20;
/// CLIP_MAX_NEW_TOKENS (schedule_policy.py, SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION, 0.5.9).
pub const CLIP_MAX_NEW_TOKENS: u64 = 4096;
/// `max_prefill_tokens` default (server_args.py, 0.5.9).
pub const MAX_PREFILL_TOKENS: u64 = 16384;

/// SGLang's scheduler state.
#[derive(Debug)]
pub struct Sglang {
    set: Settings,
    pub ratio: f64,
    min_ratio: f64,
    decay: f64,
    batch_is_full: bool,
    chunked: Option<u32>,
    order: Vec<u32>,
    /// Requests finished when the scheduler last looked: the running batch shrank since.
    seen_finished: u64,
}

#[derive(PartialEq)]
enum Add {
    Continue,
    NoToken,
    Other,
}

/// The adder's budgets for one prefill batch.
struct Adder {
    /// Free + evictable KV tokens when the batch is formed (the batch's own pages are taken as it
    /// forms, but SGLang allocates them after the adder: its reservation counts them once).
    base: f64,
    offset: f64,
    cur_offset: f64,
    rem_input: i64,
    rem_chunk: Option<i64>,
    page: u64,
    count: usize,
    /// `add_one_req_ignore_eos`'s (tokens left, tokens held) states, built at its first call.
    eos_states: Option<Vec<(f64, f64)>>,
}

impl Adder {
    fn ceil_paged(&self, t: u64) -> u64 {
        t.div_ceil(self.page) * self.page
    }
    fn rem_total(&self) -> f64 {
        self.base - self.offset
    }
    fn cur_rem(&self) -> f64 {
        self.base - self.cur_offset
    }
    fn update(&mut self, extend: u64, max_new: u64) {
        let e = self.ceil_paged(extend);
        self.offset += (e + max_new) as f64;
        self.cur_offset += e as f64;
        self.rem_input -= e as i64;
        if let Some(r) = self.rem_chunk.as_mut() {
            *r -= e as i64;
        }
    }
    fn state(&self) -> Add {
        if self.rem_total() <= 0.0 || self.cur_rem() <= 0.0 {
            return Add::NoToken;
        }
        if self.rem_input <= 0 || self.rem_chunk.is_some_and(|r| r <= 0) {
            return Add::Other;
        }
        Add::Continue
    }
}

impl Sglang {
    pub fn new(set: Settings) -> Self {
        let init = (INIT_NEW_TOKEN_RATIO * set.conservativeness).min(1.0);
        let min_ratio = (init * MIN_NEW_TOKEN_RATIO_FACTOR).min(1.0);
        Sglang {
            set,
            ratio: init,
            min_ratio,
            decay: (init - min_ratio) / NEW_TOKEN_RATIO_DECAY_STEPS,
            batch_is_full: false,
            chunked: None,
            order: Vec::new(),
            seen_finished: 0,
        }
    }

    /// `PrefillAdder.add_chunked_req`: the next chunk of the pending chunked request.
    fn add_chunked(&mut self, c: &mut Core, a: &mut Adder, id: u32) -> bool {
        let r = c.reqs[id as usize];
        let extend = r.target() - r.computed;
        let rem_chunk = a.rem_chunk.unwrap_or(i64::MAX);
        let mut rem = rem_chunk.min(a.rem_total() as i64);
        if rem <= 0 {
            rem = rem_chunk;
        }
        let take = extend.min(rem.max(0) as u64);
        let truncated = extend > take;
        if take == 0 || !c.ensure_pages(id, r.computed + take) {
            return false;
        }
        c.batch.extend.push((id, take));
        a.count += 1;
        let max_new = if truncated {
            0
        } else {
            u64::from(r.output).min(CLIP_MAX_NEW_TOKENS)
        };
        a.update(take, max_new);
        self.chunked = truncated.then_some(id);
        true
    }

    /// `PrefillAdder.add_one_req` (the radix-cache path).
    fn add_one(&mut self, c: &mut Core, a: &mut Adder, id: u32) -> Add {
        let hit = c.peek_prefix(id, false);
        let r = c.reqs[id as usize];
        let extend = r.target() - r.computed - hit;
        let remaining = u64::from(r.output.saturating_sub(r.produced)).min(CLIP_MAX_NEW_TOKENS);
        let total = (extend + remaining) as f64;
        // `_lock_node`: locking a retracted request's own node takes it out of the evictable
        // tokens, and `rem_total_tokens` is checked again.
        let own = if r.kept != 0 && hit > r.kept_after {
            (hit - r.kept_after) as f64
        } else {
            0.0
        };
        if total >= a.rem_total() {
            return Add::NoToken;
        }
        let input = a.ceil_paged(extend);
        if input as i64 >= a.rem_input && a.count != 0 {
            return Add::Other;
        }
        if total >= a.rem_total() - own {
            return Add::NoToken;
        }
        let max_new = u64::from(r.output).min(CLIP_MAX_NEW_TOKENS);
        let (take, chunked) = match a.rem_chunk {
            Some(rc) if input as i64 > rc => {
                let trunc = (rc.max(0) as u64) / a.page * a.page;
                if trunc == 0 {
                    return Add::Other;
                }
                (trunc, true)
            }
            _ => (extend, false),
        };
        c.take_prefix(id, hit);
        a.base -= own;
        if !c.ensure_pages(id, hit + take) {
            // Not reached when the adder's reservation holds; undo and stop.
            if hit > 0 {
                c.evict_request(id);
                c.preemptions -= 1;
            }
            return Add::NoToken;
        }
        c.batch.extend.push((id, take));
        a.count += 1;
        if chunked {
            self.chunked = Some(id);
            a.update(take, 0);
        } else {
            a.update(take, max_new);
        }
        a.state()
    }

    /// `PrefillAdder.add_one_req_ignore_eos` by release (`serve::sglang_release`, sched54).
    fn add_one_eos(&mut self, c: &mut Core, a: &mut Adder, id: u32) -> Add {
        use super::sglang_release::EosAdmission;
        let rules = self.set.rules;
        let r = c.reqs[id as usize];
        let extend = r.target() - r.computed;
        let input = match rules.admission {
            EosAdmission::Reserve { paged_input: true } => a.ceil_paged(extend),
            _ => u64::from(r.prompt),
        };
        if matches!(rules.admission, EosAdmission::Reserve { .. })
            && a.ceil_paged(extend) as f64 > a.cur_rem().min(a.rem_total())
        {
            return Add::NoToken;
        }
        // `add_req_state`: ratio 1.0 for an ignore_eos request; states with nothing left skipped.
        let state = |q: &super::core::Req| {
            (
                f64::from(q.output) - f64::from(q.produced),
                f64::from(q.prompt) + f64::from(q.produced),
            )
        };
        let own = state(&r);
        match a.eos_states.as_mut() {
            None => {
                let mut s: Vec<(f64, f64)> = std::iter::once(own)
                    .chain(c.running.iter().map(|&q| state(&c.reqs[q as usize])))
                    .chain(c.batch.extend.iter().map(|e| state(&c.reqs[e.0 as usize])))
                    .filter(|s| s.0 > 0.0)
                    .collect();
                // Python's stable sort on tokens left.
                s.sort_by(|x, y| x.0.total_cmp(&y.0));
                a.eos_states = Some(s);
            }
            Some(s) if own.0 > 0.0 => super::sglang_release::insert_state(s, own.0, own.1),
            Some(_) => {}
        }
        let states = a.eos_states.as_deref().unwrap_or(&[]);
        if !rules.eos_walk_fits(states, a.cur_rem() - input as f64) {
            return Add::NoToken;
        }
        let (take, chunked) = match a.rem_chunk {
            None => (extend, false),
            Some(rc) if extend as i64 <= rc => (extend, false),
            Some(rc) if rc <= 0 => return Add::Other,
            Some(rc) => (rc as u64, true),
        };
        if !c.ensure_pages(id, r.computed + take) {
            // Not reached when the walk's reservation holds; stop.
            return Add::NoToken;
        }
        c.batch.extend.push((id, take));
        a.count += 1;
        if chunked {
            self.chunked = Some(id);
            a.update(take, 0);
        } else {
            a.update(take, u64::from(r.output).min(CLIP_MAX_NEW_TOKENS));
        }
        a.state()
    }

    /// `get_new_batch_prefill`: fills `c.batch.extend`; false when no prefill batch forms.
    fn prefill(&mut self, c: &mut Core) -> bool {
        if (self.batch_is_full || c.waiting.is_empty()) && self.chunked.is_none() {
            return false;
        }
        let running = c.running.len() as u32;
        let allocatable = self.set.max_running_requests.saturating_sub(running) as usize;
        if allocatable == 0 && self.chunked.is_none() {
            self.batch_is_full = true;
            return false;
        }
        // `calc_priority`: the queue's order for this batch.
        super::policy::sort_waiting(self.set.policy, c);
        let offset: f64 = c
            .running
            .iter()
            .map(|&id| {
                let r = &c.reqs[id as usize];
                u64::from(r.output.saturating_sub(r.produced)).min(CLIP_MAX_NEW_TOKENS) as f64 * self.ratio
            })
            .sum();
        // `--enable-mixed-chunk`: the running decodes take one token each of every budget
        // (`PrefillAdder.__init__` `mixed_with_decode_tokens` = running batch size).
        let mixed = if self.set.mixed_chunk {
            c.running.len() as u64
        } else {
            0
        };
        let mut a = Adder {
            base: (c.kv.available_tokens() + c.kv.evictable_tokens()) as f64,
            offset: offset + mixed as f64,
            cur_offset: mixed as f64,
            rem_input: self.set.max_prefill_tokens as i64 - mixed as i64,
            rem_chunk: self.set.chunked_prefill_size.map(|v| v as i64 - mixed as i64),
            page: c.page,
            count: 0,
            eos_states: None,
        };
        if let Some(id) = self.chunked.take() {
            self.add_chunked(c, &mut a, id);
        }
        let mut taken = 0usize;
        while taken < c.waiting.len() {
            if a.count >= allocatable {
                self.batch_is_full = true;
                break;
            }
            let id = c.waiting[taken];
            // bench_serving's requests carry `ignore_eos`; without a prefix cache SGLang admits
            // them by `add_one_req_ignore_eos` (sched54).
            let res = if self.set.radix_cache {
                self.add_one(c, &mut a, id)
            } else {
                self.add_one_eos(c, &mut a, id)
            };
            let added = c.batch.extend.last().is_some_and(|e| e.0 == id);
            if added {
                taken += 1;
            }
            if res != Add::Continue {
                if res == Add::NoToken {
                    self.batch_is_full = true;
                }
                break;
            }
        }
        c.waiting.drain(..taken);
        !c.batch.extend.is_empty()
    }

    /// KV tokens the next decode needs for request `id` beyond what it holds.
    fn decode_pages(&self, c: &Core, id: u32) -> u64 {
        let r = &c.reqs[id as usize];
        let step = self.set.spec_reserve.map_or(1, |t| t.div_ceil(c.page) * c.page);
        c.pages_short(id, r.computed + step)
    }

    /// `check_decode_mem` over `ids`.
    fn fits(&self, c: &mut Core, ids: &[u32]) -> bool {
        let need: u64 = ids.iter().map(|&id| self.decode_pages(c, id)).sum();
        c.kv.evict_for(need);
        c.kv.available_tokens() / c.page >= need
    }

    /// `retract_decode`'s loop condition by release (sched54, `serve::sglang_release`): the
    /// remaining requests fit their next decode (0.5.2 on), or the free tokens reach
    /// RETRACT_DECODE_STEPS (+ the speculative headroom) per remaining request (before).
    fn retracted_enough(&self, c: &mut Core, order: &[u32]) -> bool {
        use super::sglang_release::RetractStop;
        match self.set.rules.retract {
            RetractStop::NextDecode => self.fits(c, order),
            RetractStop::Steps { spec_headroom } => {
                let per = RETRACT_DECODE_STEPS + if spec_headroom { self.set.spec_headroom } else { 0 };
                c.kv.available_tokens() >= order.len() as u64 * per
            }
        }
    }

    /// `update_running_batch`: retract if the decode does not fit, then decode the running batch.
    fn decode(&mut self, c: &mut Core) {
        let ids = std::mem::take(&mut c.running);
        if !self.fits(c, &ids) {
            let mut order = std::mem::take(&mut self.order);
            order.clear();
            order.extend_from_slice(&ids);
            if self.set.spec_reserve.is_none() {
                // Python's stable sort with reverse=True: descending keys, ties in batch order.
                order.sort_by(|&x, &y| {
                    let (a, b) = (&c.reqs[x as usize], &c.reqs[y as usize]);
                    (b.produced, a.prompt).cmp(&(a.produced, b.prompt))
                });
            }
            let mut first = true;
            while first || !self.retracted_enough(c, &order) {
                if order.len() == 1 {
                    break;
                }
                first = false;
                if let Some(id) = order.pop() {
                    c.evict_request(id);
                    c.waiting.push_back(id);
                    // `release_req`: "use the newly evictable memory instantly" — evict when fewer
                    // than RETRACT_DECODE_STEPS tokens per remaining request are free.
                    let want = order.len() as u64 * RETRACT_DECODE_STEPS;
                    c.kv.evict_retracted(want.div_ceil(c.page));
                }
            }
            let kept: Vec<u32> = ids
                .iter()
                .copied()
                .filter(|&id| c.reqs[id as usize].in_running)
                .collect();
            let decoded: u64 = kept
                .iter()
                .map(|&id| u64::from(c.reqs[id as usize].produced))
                .sum();
            let max_new: u64 = kept.iter().map(|&id| u64::from(c.reqs[id as usize].output)).sum();
            // "avoid zero division" (+ 1) from 0.5.4 (sched54; a zero sum would raise before it).
            let denominator = if self.set.rules.ratio_plus_one {
                max_new + 1
            } else {
                max_new.max(1)
            };
            self.ratio =
                ((decoded + RETRACT_DECODE_STEPS * kept.len() as u64) as f64 / denominator as f64).min(1.0);
            self.batch_is_full = false;
            c.running = kept;
            self.order = order;
        } else {
            self.ratio = (self.ratio - self.decay).max(self.min_ratio);
            c.running = ids;
        }
        for i in 0..c.running.len() {
            let id = c.running[i];
            let step = self.set.spec_reserve.map_or(1, |t| t.div_ceil(c.page) * c.page);
            let tokens = c.reqs[id as usize].computed + step;
            // Enough was checked above; the one request kept when even it does not fit decodes
            // on what it has (SGLang would raise "Out of memory even after retracting").
            let _ = c.ensure_pages(id, tokens);
        }
        c.batch.decode.extend_from_slice(&c.running);
    }
}

impl Sglang {
    /// `get_new_batch_prefill` (and `--enable-mixed-chunk`'s mixing): false when no prefill forms.
    fn prefill_step(&mut self, c: &mut Core) -> bool {
        // `update_running_batch`: a batch that shrank (requests finished) is no longer full.
        if c.finished > self.seen_finished {
            self.seen_finished = c.finished;
            self.batch_is_full = false;
        }
        if !self.prefill(c) {
            return false;
        }
        // Issue #18 point 1 (schedkeys): `--enable-mixed-chunk` — scheduler.py
        // `get_new_batch_prefill` mixes the running batch into the prefill batch
        // (`mix_with_running`, after `prepare_for_decode`, which allocates without retracting).
        if self.set.mixed_chunk && !c.running.is_empty() {
            for i in 0..c.running.len() {
                let id = c.running[i];
                let tokens = c.reqs[id as usize].computed + 1;
                let _ = c.ensure_pages(id, tokens);
            }
            c.batch.decode.extend_from_slice(&c.running);
        }
        true
    }

    /// `update_running_batch`: the decode of the running batch; false when nothing runs.
    fn decode_step(&mut self, c: &mut Core) -> bool {
        if c.running.is_empty() {
            return false;
        }
        self.decode(c);
        true
    }
}

impl Scheduler for Sglang {
    fn schedule(&mut self, c: &mut Core) -> bool {
        self.prefill_step(c) || self.decode_step(c)
    }
    fn mixed(&self) -> bool {
        self.set.mixed_chunk
    }
    /// SGLang 0.5.9 `scheduler.py` `get_next_batch_to_run`: with speculation and DP attention the
    /// groups' prefill batches are synced before any decode ("prefill and decode batches will not
    /// be mixed when spec and dp-attn is enabled"): a group without one runs an idle batch.
    fn prefill_first(&self) -> bool {
        self.set.spec_reserve.is_some()
    }
    fn schedule_prefill(&mut self, c: &mut Core) -> bool {
        self.prefill_step(c)
    }
    fn schedule_decode(&mut self, c: &mut Core) -> bool {
        self.decode_step(c)
    }
}

#[cfg(test)]
#[path = "sglang_tests.rs"]
mod tests;

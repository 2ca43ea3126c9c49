//! sched54 (issue #18): what SGLang's scheduler does differently by release, read from the PyPI wheels
//! (`srt/managers/schedule_policy.py` `PrefillAdder.add_one_req_ignore_eos`, `srt/managers/schedule_batch.py`
//! `ScheduleBatch.retract_decode`) of 0.4.0, 0.4.0.post1, 0.4.1, 0.4.3, 0.4.4.post4, 0.4.5, 0.4.6,
//! 0.4.6.post3, 0.4.7, 0.4.7.post1, 0.4.8, 0.4.9, 0.4.9.post6, 0.4.10, 0.4.10.post2, 0.5.0rc0, 0.5.1,
//! 0.5.1.post3, 0.5.2, 0.5.3, 0.5.3.post3, 0.5.4, 0.5.5, 0.5.6, 0.5.7, 0.5.8, 0.5.9 and 0.5.10:
//!
//! - **Admission of an `ignore_eos` request without a prefix cache.** bench_serving sends
//!   `ignore_eos` (its default, `bench_serving.py` "set ignore_eos True by default", every release
//!   read), and with `--disable-radix-cache` the tree cache is disabled (`ChunkCache`), so
//!   `add_one_req` hands every request to `add_one_req_ignore_eos` (0.4.0 – 0.5.10 alike): the
//!   states (tokens left = `max_new_tokens` − outputs, tokens held = prompt + outputs) of the new
//!   request, the running batch and the batch being formed, sorted by tokens left, are walked from
//!   the shortest; at step i with bs = n − i requests still running and the tokens of the finished
//!   ones returned, the request is refused (NO_TOKEN) when
//!   - up to 0.4.7.post1 ([`EosAdmission::NextStep`]): free − prompt + returned − left(i+1) × bs ≤ 0,
//!     left(i+1) being the *next* state's tokens left (its own for the last);
//!   - from 0.4.8 ([`EosAdmission::Reserve`]): free − input + returned − left(i) × bs ≤
//!     IGNORE_EOS_RESERVE_TOKENS (1) × bs, after an early refusal when the page-rounded input exceeds
//!     min(free, the total budget); the input taken is the prompt (`len(origin_input_ids)`) up to
//!     0.4.10, the page-rounded extend length from 0.4.10.post2 (0.4.10.post1 not read: taken with
//!     0.4.10). 0.5.6 – 0.5.10 skip the walk for a hybrid sliding-window pool (`is_hybrid_swa`),
//!     which tpsim's serving loop does not separate (not modelled).
//!
//!   No `rem_input_tokens` check precedes it (the non-ignore_eos path's "input > rem_input and the
//!   batch non-empty → OTHER" is skipped); the budgets are updated as for any request.
//! - **How far a retraction goes.** Up to 0.5.1.post3 ([`RetractStop::Steps`]) requests are
//!   retracted while free tokens < (remaining requests) × RETRACT_DECODE_STEPS (20, `global_config.py`)
//!   (+ per remaining request topk × steps + draft tokens under speculation, from 0.4.4: absent from
//!   0.4.3's `retract_decode`, `get_required_tokens` in 0.4.4.post4's); from 0.5.2
//!   ([`RetractStop::NextDecode`]) until the remaining requests fit their next decode
//!   (`check_decode_mem(selected_indices)`).
//! - **The ratio after a retraction**: (Σ outputs + 20 × kept) ÷ Σ `max_new_tokens` up to 0.5.3.post3,
//!   ÷ (Σ `max_new_tokens` + 1) from 0.5.4 ("avoid zero division").
//!
//! Unchanged over 0.4.0 – 0.5.9 and modelled as in `serve::sglang`: the new-token ratio's init 0.7,
//! minimum factor 0.14 and 600 decay steps (0.4.0 `global_config.py`, 0.5.x `environ.py`),
//! CLIP_MAX_NEW_TOKENS_ESTIMATION 4096, the retraction order (outputs, −prompt) descending.

/// How `add_one_req_ignore_eos` decides (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EosAdmission {
    /// SGLang 0.4.0 – 0.4.7.post1: each step checked with the next state's tokens left, threshold 0.
    NextStep,
    /// SGLang 0.4.8 on: each step with its own tokens left, IGNORE_EOS_RESERVE_TOKENS per request
    /// kept, an early refusal on the input; `paged_input`: the page-rounded extend length is taken
    /// (0.4.10.post2 on), else the prompt length.
    Reserve { paged_input: bool },
}

/// When `retract_decode` stops retracting (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetractStop {
    /// Up to 0.5.1.post3: once free tokens ≥ remaining × RETRACT_DECODE_STEPS (+ the speculative
    /// headroom when `spec_headroom`, from 0.4.4).
    Steps { spec_headroom: bool },
    /// From 0.5.2: once the remaining requests fit their next decode.
    NextDecode,
}

/// SGLang's scheduler rules of one release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub admission: EosAdmission,
    pub retract: RetractStop,
    /// The ratio after a retraction divides by Σ max_new_tokens + 1 (0.5.4 on), else by the sum.
    pub ratio_plus_one: bool,
}

/// IGNORE_EOS_RESERVE_TOKENS (`schedule_policy.py`, 0.4.8 – 0.5.10: 1).
pub const IGNORE_EOS_RESERVE_TOKENS: f64 = 1.0;

impl Rules {
    /// The rules of SGLang `version` as `scenario::release_order` orders it (0.5.6 <
    /// 0.5.6.post1 < 0.5.7).
    pub fn for_version(version: &str) -> Self {
        let v = crate::scenario::release_order(version);
        let at_least = |r: [u64; 4]| v.as_slice() >= &r[..];
        Rules {
            admission: if at_least([0, 4, 8, 0]) {
                EosAdmission::Reserve {
                    paged_input: at_least([0, 4, 10, 2]),
                }
            } else {
                EosAdmission::NextStep
            },
            retract: if at_least([0, 5, 2, 0]) {
                RetractStop::NextDecode
            } else {
                RetractStop::Steps {
                    spec_headroom: at_least([0, 4, 4, 0]),
                }
            },
            ratio_plus_one: at_least([0, 5, 4, 0]),
        }
    }

    /// `add_one_req_ignore_eos`'s walk: whether a request fits, given the (tokens left, tokens held)
    /// states sorted by tokens left and the free tokens left once its input is taken (`rem`).
    pub fn eos_walk_fits(&self, states: &[(f64, f64)], rem: f64) -> bool {
        let mut freed = 0.0;
        for (i, &(left, held)) in states.iter().enumerate() {
            let bs = (states.len() - i) as f64;
            let refused = match self.admission {
                EosAdmission::NextStep => {
                    let steps = states.get(i + 1).map_or(left, |s| s.0);
                    rem + freed - steps * bs <= 0.0
                }
                EosAdmission::Reserve { .. } => rem + freed - left * bs <= IGNORE_EOS_RESERVE_TOKENS * bs,
            };
            if refused {
                return false;
            }
            freed += held;
        }
        true
    }
}

/// `add_req_state(r, insert_sort=True)`: Python's loop leaves `i` at the first state with at least
/// `left` tokens left, or at the last index when none has (so the new state goes before the last),
/// or 0 for an empty list.
pub fn insert_state(states: &mut Vec<(f64, f64)>, left: f64, held: f64) {
    let i = states
        .iter()
        .position(|s| left <= s.0)
        .unwrap_or(states.len().saturating_sub(1));
    states.insert(i, (left, held));
}

/// SGLang's default `--chunked-prefill-size` by release, from nvidia-smi's `memory.total` in MiB
/// (`server_args.py` `__post_init__`, the wheels named):
/// - 0.4.0 – 0.4.6 (0.4.0, 0.4.0.post1, 0.4.1, 0.4.6 read): 2048 under 25,000 MB, else 8192;
/// - 0.4.7: 16384 above 180,000 MB, 2048 under 25,000, else 8192 (a disaggregated server's 16384
///   not modelled);
/// - 0.4.7.post1 – 0.5.2 (0.4.7.post1, 0.4.8, 0.4.9, 0.4.10.post2, 0.5.1, 0.5.2 read): 2048 under
///   35 GiB, 8192 under 160 GiB, else 16384;
/// - 0.5.3 on: `_handle_gpu_memory_settings`' buckets, by release (`tpsim_model::sglang_buckets`:
///   0.5.20 on raises the 20 – 35 GiB card's chunk to 4096).
pub fn chunked_prefill_default(version: &str, gpu_mem_mib: u64, tp: u32) -> u64 {
    let v = crate::scenario::release_order(version);
    let below = |r: [u64; 4]| v.as_slice() < &r[..];
    if below([0, 4, 7, 0]) {
        if gpu_mem_mib < 25_000 { 2048 } else { 8192 }
    } else if below([0, 4, 7, 1]) {
        if gpu_mem_mib > 180_000 {
            16384
        } else if gpu_mem_mib < 25_000 {
            2048
        } else {
            8192
        }
    } else if below([0, 5, 3, 0]) {
        if gpu_mem_mib < 35 * 1024 {
            2048
        } else if gpu_mem_mib < 160 * 1024 {
            8192
        } else {
            16384
        }
    } else {
        let table = tpsim_model::sglang_buckets::bucket_table(version);
        tpsim_model::sglang_buckets::sglang_buckets(gpu_mem_mib, tp, table).0 as u64
    }
}

//! vllmchunk59 (issue #18): vLLM V1's default scheduler shape — `max_num_batched_tokens` (the token
//! budget of one step) and `max_num_seqs` — for the OpenAI API server (`vllm serve`, the usage
//! context every tpsim scenario models), by release, GPU memory, GPU name and compute capability.
//!
//! Read in the wheels' `vllm/engine/arg_utils.py` (`EngineArgs._set_default_args_v1` up to 0.9,
//! then `_set_default_args` / `get_batch_defaults` and
//! `_set_default_max_num_seqs_and_batched_tokens_args`):
//!
//! | releases | large tier (API server: 8,192 tokens, 1,024 sequences) | else (2,048 tokens) |
//! |---|---|---|
//! | 0.8.0 – 0.8.3 | device name contains "h100" or "h200" | 1,024 sequences (every GPU) |
//! | 0.8.4 | the same | 256 sequences |
//! | 0.8.5 | `get_device_total_memory()` ≥ 70 GiB | 256 sequences |
//! | 0.9.0 – 0.27 | ≥ 70 GiB and the name lacks "a100" ("Setting large `max_num_batched_tokens` for A100 reduces throughput, see PR #17885") | 256 sequences |
//! | 0.28 – 0.32 | as 0.9, and ≥ 160 GiB ("GPUs like B200/B300") a third tier of 16,384 tokens for the API server too | 256 sequences |
//! | 0.33 – 0.34 | as 0.28, and GB10 (compute capability 12.1, "has the memory but not the compute of a large discrete GPU") kept off the 70 GiB tier | 256 sequences |
//!
//! (0.8.0, 0.8.2, 0.8.3, 0.8.4, 0.8.5, 0.9.0, 0.9.2, 0.10.1, 0.11.0, 0.12.0 – 0.17.0, 0.19.0,
//! 0.22.0, 0.26.0 – 0.30.0, 0.32.0 – 0.34.0 read; the boundaries lie between read releases.)
//! From 0.10.1 a defaulted `max_num_seqs` is capped at the token budget; from 0.12.0 a defaulted
//! budget is capped at `max_num_seqs × max_model_len` ("Some models (e.g., Whisper) have embeddings
//! tied to max length"). Every release then refuses a budget below `max_num_seqs`
//! (`SchedulerConfig` verify: [`seqs_above_budget`]).

/// The engine release as `[major, minor, patch]` (missing parts 0).
fn mmp(release: &[u64]) -> [u64; 3] {
    [0, 1, 2].map(|i| release.get(i).copied().unwrap_or(0))
}

/// The GPU as `get_batch_defaults` sees it.
#[derive(Debug, Clone, Copy)]
pub struct Device<'a> {
    /// `current_platform.get_device_total_memory()` (torch's total), GiB.
    pub total_gib: f64,
    /// The device name (`get_device_name()`, compared lower-cased).
    pub name: &'a str,
    /// The compute capability, e.g. "12.1".
    pub compute_capability: &'a str,
}

/// vLLM's default (`max_num_batched_tokens`, `max_num_seqs`) for the API server on `device` under
/// `release` (`[major, minor, patch]`; `None`: no `engine.version`, the rule of 0.9 – 0.27, which
/// tpsim applied to every release before vllmchunk59), before the caps that depend on the
/// user's values ([`defaulted_shape`]).
pub fn default_batch_shape(device: Device<'_>, release: Option<&[u64]>) -> (u64, u64) {
    let r = release.map_or([0, 19, 0], mmp);
    let name = device.name.to_lowercase();
    let gib = device.total_gib;
    if r < [0, 8, 5] {
        // 0.8.0 – 0.8.4: "For H100 and H200, we use larger default values."
        let small_seqs = if r < [0, 8, 4] { 1_024 } else { 256 };
        return if name.contains("h100") || name.contains("h200") {
            (8_192, 1_024)
        } else {
            (2_048, small_seqs)
        };
    }
    if r >= [0, 28, 0] && gib >= 160.0 {
        return (16_384, 1_024);
    }
    let gb10 = r >= [0, 33, 0] && device.compute_capability.trim() == "12.1";
    let a100 = r >= [0, 9, 0] && name.contains("a100");
    if gib >= 70.0 && !a100 && !gb10 {
        (8_192, 1_024)
    } else {
        (2_048, 256)
    }
}

/// The scheduler shape vLLM starts with: the user's values where given, else the defaults of
/// [`default_batch_shape`] with the release's caps: a defaulted `max_num_batched_tokens` at most
/// `max_num_seqs × max_model_len` (0.12.0 on), a defaulted `max_num_seqs` at most the budget
/// (0.10.1 on). `given` = (`--max-num-batched-tokens`, `--max-num-seqs`).
pub fn defaulted_shape(
    defaults: (u64, u64),
    given: (Option<u64>, Option<u64>),
    max_model_len: u64,
    release: Option<&[u64]>,
) -> (u64, u64) {
    let r = release.map_or([0, 19, 0], mmp);
    let seqs = given.1.unwrap_or(defaults.1);
    let tokens = match given.0 {
        Some(t) => t,
        None if r >= [0, 12, 0] && max_model_len > 0 => defaults.0.min(seqs.saturating_mul(max_model_len)),
        None => defaults.0,
    };
    let seqs = match given.1 {
        Some(s) => s,
        None if r >= [0, 10, 1] => seqs.min(tokens),
        None => seqs,
    };
    (tokens, seqs)
}

/// vLLM's refusal when the budget is below `max_num_seqs` (`SchedulerConfig` verify, 0.8.5
/// `config.py` and 0.16.0 `config/scheduler.py` `verify_max_model_len`, the same text), or `None`.
pub fn seqs_above_budget(tokens: u64, seqs: u64) -> Option<String> {
    (tokens < seqs).then(|| {
        format!("max_num_batched_tokens ({tokens}) must be greater than or equal to max_num_seqs ({seqs}).")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev<'a>(total_gib: f64, name: &'a str, cc: &'a str) -> Device<'a> {
        Device {
            total_gib,
            name,
            compute_capability: cc,
        }
    }

    /// The table of the module doc, one GPU per tier and release (arg_utils.py of each wheel).
    #[test]
    fn defaults_by_release_and_gpu() {
        let h100 = dev(79.19, "H100 SXM 80GB", "9.0");
        let a100 = dev(79.15, "A100 SXM4 80GB", "8.0");
        let pro6000 = dev(94.97, "RTX PRO 6000 Blackwell Server", "12.0");
        let rtx5090 = dev(31.36, "GeForce RTX 5090", "12.0");
        let b200 = dev(178.35, "B200 SXM", "10.0");
        let gb10 = dev(119.7, "NVIDIA GB10", "12.1");
        let at = |d: Device<'_>, r: &[u64]| default_batch_shape(d, Some(r));
        // 0.8.0 / 0.8.2 (0.8.3 too): by name; every GPU 1,024 sequences. 0.8.4: 256 off the H100 / H200.
        assert_eq!(at(h100, &[0, 8, 0]), (8_192, 1_024));
        assert_eq!(at(pro6000, &[0, 8, 2]), (2_048, 1_024));
        assert_eq!(at(b200, &[0, 8, 4]), (2_048, 256));
        // 0.8.5: by memory, A100 80 GB included.
        assert_eq!(at(a100, &[0, 8, 5]), (8_192, 1_024));
        assert_eq!(at(pro6000, &[0, 8, 5]), (8_192, 1_024));
        // 0.9.0 – 0.27: A100 excluded; the 5090 (32 GB) small everywhere.
        assert_eq!(at(a100, &[0, 9, 0]), (2_048, 256));
        assert_eq!(at(rtx5090, &[0, 16, 0]), (2_048, 256));
        assert_eq!(at(pro6000, &[0, 16, 0]), (8_192, 1_024));
        assert_eq!(at(b200, &[0, 27, 0]), (8_192, 1_024));
        // 0.28 on: ≥ 160 GiB gets 16,384 for the API server.
        assert_eq!(at(b200, &[0, 28, 0]), (16_384, 1_024));
        assert_eq!(at(h100, &[0, 34, 0]), (8_192, 1_024));
        // GB10: on the 70 GiB tier up to 0.32, off it from 0.33.
        assert_eq!(at(gb10, &[0, 32, 0]), (8_192, 1_024));
        assert_eq!(at(gb10, &[0, 33, 0]), (2_048, 256));
        // No release: the 0.9 – 0.27 rule.
        assert_eq!(default_batch_shape(a100, None), (2_048, 256));
        assert_eq!(default_batch_shape(b200, None), (8_192, 1_024));
    }

    /// The caps on defaulted values: 0.12.0 caps the budget at seqs × max_model_len (4 × 256 =
    /// 1,024 < 2,048), 0.11.0 does not; 0.10.1 caps defaulted seqs at the budget (given 512 tokens,
    /// 256 seqs stay 256; given 128 → 128), 0.9.2 does not; given values are kept.
    #[test]
    fn caps_on_defaulted_values() {
        let d = (2_048, 256);
        assert_eq!(
            defaulted_shape(d, (None, Some(4)), 256, Some(&[0, 12, 0])),
            (1_024, 4)
        );
        assert_eq!(
            defaulted_shape(d, (None, Some(4)), 256, Some(&[0, 11, 0])),
            (2_048, 4)
        );
        assert_eq!(
            defaulted_shape(d, (Some(128), None), 8_192, Some(&[0, 10, 1])),
            (128, 128)
        );
        assert_eq!(
            defaulted_shape(d, (Some(128), None), 8_192, Some(&[0, 9, 2])),
            (128, 256)
        );
        assert_eq!(
            defaulted_shape(d, (Some(100), Some(8)), 64, Some(&[0, 16, 0])),
            (100, 8)
        );
    }

    #[test]
    fn budget_below_seqs_is_refused_with_vllms_text() {
        assert_eq!(
            seqs_above_budget(2_048, 4_096).as_deref(),
            Some("max_num_batched_tokens (2048) must be greater than or equal to max_num_seqs (4096).")
        );
        assert_eq!(seqs_above_budget(2_048, 2_048), None);
    }
}

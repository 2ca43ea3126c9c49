//! ttft55 (issue #18): vLLM raises a gpt-oss deployment's CUDA-graph capture list past the default
//! 512, by release. `GptOssForCausalLMConfig.verify_and_update_config`
//! (`vllm/model_executor/models/config.py`, read in every wheel from 0.10.1.1 to 0.34.0) runs in
//! `VllmConfig.__post_init__` before the capture sizes are settled (`try_verify_and_update_config`
//! precedes `init_with_cudagraph_sizes` in 0.11.0 `config/__init__.py` and `_set_cudagraph_sizes`
//! in 0.14.1 `config/vllm.py`) and logs "Overriding max cuda graph capture size to N for
//! performance." (INFO):
//!
//! - 0.10.1.1 – 0.10.2: when the scheduler's `cuda_graph_sizes` holds one value below 1,024 (its
//!   default, [min(2 × max_num_seqs, 512)], does), the list becomes 1, 2, 4, 8…248 by 8, 256…1,024
//!   by 16;
//! - 0.11.0: the same up to 992 (`range(256, 993, 16)`; "When using full cuda graph with FA3, the max
//!   supported size is 992");
//! - 0.11.1 – 0.33.0: when neither `cudagraph_capture_sizes` nor `max_cudagraph_capture_size` is
//!   set, `max_cudagraph_capture_size` = 1,024;
//! - 0.34.0: the same 1,024-token sizes unless a size is set, and not on SM 10.x
//!   (`is_device_capability_family(100)`: "whose defaults are already wider").
//!
//! Its effect on a light-load TTFT: a prefill of up to 992 or 1,024 tokens runs under the graphs
//! (`decode::vllm_graph_limit`) instead of launching every kernel from the host.

use super::cuda_graphs::{CaptureKeys, VllmGraphRule};

/// The largest capture size vLLM `version` raises a gpt-oss deployment's default to on a GPU of
/// `compute_capability` ("9.0", "10.0"), or `None` where it leaves the default.
pub fn override_max(version: &str, compute_capability: &str) -> Option<u32> {
    let r = crate::engine_args_versions::release(version)?;
    if r < vec![0, 10, 1] {
        return None;
    }
    if r[..] == [0, 11, 0] {
        return Some(992);
    }
    if r >= vec![0, 34] && tpsim_model::hw::sm_major(compute_capability) == 10 {
        return None;
    }
    Some(1024)
}

/// The list the override builds up to `max`: 1, 2, 4, 8…248 by 8, 256…`max` by 16.
fn list(max: u32) -> Vec<u32> {
    [1, 2, 4]
        .into_iter()
        .chain((8..256).step_by(8))
        .chain((256..=max).step_by(16))
        .collect()
}

/// Applies the override to the capture keys of a gpt-oss deployment under vLLM `version`, as the
/// engine does: only where the user left the sizes to the engine.
pub fn apply(keys: &mut CaptureKeys, version: &str, compute_capability: &str) {
    let Some(max) = override_max(version, compute_capability) else {
        return;
    };
    if keys.vllm_capture_sizes.is_some() {
        return;
    }
    // 0.10.1.1 – 0.11.0 test the scheduler's list (one value below the bound); 0.11.1 on, any size
    // the user gave keeps the engine off.
    let by_scheduler_list = crate::engine_args_versions::release(version).is_some_and(|r| r < vec![0, 11, 1]);
    match keys.vllm_rule {
        VllmGraphRule::V0_11 => {
            let replace = match keys.vllm_cuda_graph_sizes.as_deref() {
                None => true,
                Some([n]) => by_scheduler_list && *n < max,
                Some(_) => false,
            };
            if replace {
                keys.vllm_cuda_graph_sizes = Some(list(max));
            }
        }
        VllmGraphRule::V0_12 => {
            if keys.vllm_max.is_none() {
                keys.vllm_max = Some(max);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_by_release() {
        assert_eq!(override_max("0.9.1", "9.0"), None);
        assert_eq!(override_max("0.10.1.1", "9.0"), Some(1024));
        assert_eq!(override_max("0.11.0", "9.0"), Some(992));
        assert_eq!(override_max("0.14.1", "12.0"), Some(1024));
        assert_eq!(override_max("0.33.0", "10.0"), Some(1024));
        assert_eq!(override_max("0.34.0", "10.0"), None);
        assert_eq!(override_max("0.34.0", "9.0"), Some(1024));
    }

    #[test]
    fn the_lists_have_the_counts_vllm_states() {
        // "This will increase the number of CUDA graphs from 67 to 83" (1,024) or 81 (0.11.0's 992):
        // 3 + 31 (8…248) + 49 (256…1,024) = 83; 3 + 31 + 47 (256…992) = 81.
        assert_eq!(list(1024).len(), 83);
        assert_eq!(list(992).len(), 81);
        assert_eq!(list(992).last(), Some(&992));
    }

    #[test]
    fn a_size_the_user_set_keeps_the_default() {
        let mut k = CaptureKeys {
            vllm_rule: VllmGraphRule::V0_11,
            vllm_cuda_graph_sizes: Some(vec![2048]),
            ..Default::default()
        };
        apply(&mut k, "0.11.0", "9.0");
        assert_eq!(k.vllm_cuda_graph_sizes, Some(vec![2048]));
        // One value below 992 is replaced in 0.11.0 (the scheduler list's test), kept in 0.11.1.
        k.vllm_cuda_graph_sizes = Some(vec![256]);
        apply(&mut k, "0.11.0", "9.0");
        assert_eq!(k.vllm_cuda_graph_sizes.as_ref().map(Vec::len), Some(81));
        k.vllm_cuda_graph_sizes = Some(vec![256]);
        apply(&mut k, "0.11.1", "9.0");
        assert_eq!(k.vllm_cuda_graph_sizes, Some(vec![256]));
        let mut k = CaptureKeys {
            vllm_rule: VllmGraphRule::V0_12,
            vllm_max: Some(256),
            ..Default::default()
        };
        apply(&mut k, "0.14.1", "9.0");
        assert_eq!(k.vllm_max, Some(256));
        k.vllm_max = None;
        apply(&mut k, "0.14.1", "9.0");
        assert_eq!(k.vllm_max, Some(1024));
    }
}

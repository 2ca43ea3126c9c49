//! b200pg50 (issue #18): the overlap scheduler and radix cache SGLang turns off itself for hybrid
//! Gated-DeltaNet models (MambaRadixCache), by release. Read in the PyPI wheels' `srt/server_args.py`
//! `_handle_model_specific_adjustments` (0.5.2, 0.5.3, 0.5.4, 0.5.5, 0.5.6, 0.5.6.post1, 0.5.7, 0.5.8,
//! 0.5.8.post1 — byte-identical to 0.5.8 —, 0.5.9):
//! - 0.5.2–0.5.5: no such rule for these architectures (the overlap scheduler stays on).
//! - 0.5.6, 0.5.6.post1 (`Qwen3NextForCausalLM`): with the radix cache on, "Disabling overlap schedule
//!   since MambaRadixCache is not compatible with overlap schedule currently, try to use
//!   --disable-radix-cache if overlap schedule is necessary" and `disable_overlap_schedule = True`.
//! - 0.5.7 (`Qwen3NextForCausalLM`): the default `mamba_scheduler_strategy` "auto" becomes
//!   "no_buffer"; with the radix cache on, "Disabling overlap schedule since MambaRadixCache no_buffer
//!   is not compatible with overlap schedule currently, try to use --mamba-scheduler-strategy
//!   extra_buffer to enable overlap schedule".
//! - 0.5.8 and 0.5.8.post1: the same "Mamba radix cache v2" block sits inside the
//!   `elif model_arch in ["Glm4MoeForCausalLM"]` branch (after `Qwen3NextForCausalLM`'s), so it is
//!   GLM-4.5 / 4.6 / 4.7 (`Glm4MoeForCausalLM`) that loses the overlap scheduler with the radix cache
//!   on, and Qwen3-Next keeps it. tpsim follows the code as released.
//! - 0.5.9 (`Qwen3NextForCausalLM`, `Qwen3_5MoeForConditionalGeneration`,
//!   `Qwen3_5ForConditionalGeneration`: `_handle_mamba_radix_cache`): no_buffer with the radix cache on
//!   and no speculative decoding: "Disabling overlap schedule since mamba no_buffer is not compatible
//!   with overlap schedule, try to use --disable-radix-cache if overlap schedule is necessary"; with
//!   speculative decoding the radix cache goes instead ("Disabling radix cache since speculative
//!   decoding for {arch} is not supported with radix cache yet."). tpsim's Qwen3.5 architectures
//!   include the `…ForCausalLM` spellings, which 0.5.9's list lacks; every bundled Qwen3.5 preset is a
//!   `…ForConditionalGeneration` checkpoint.
//! - 0.5.6.post1–0.5.9, Qwen3-Next with `trtllm_mha` (named: on SM 10.x the default is `triton`) and
//!   the radix cache on: "Disabling radix cache since trtllm_mha does not support page_size = 1, which
//!   is required by MambaRadixCache. Try to use --attention-backend triton if radix cache is
//!   necessary." — the radix cache goes and the overlap scheduler stays on. (0.5.6 replaces a named
//!   backend with `triton` on SM 10.x, `attention_backend::sglang_default_for`.)
//!
//! Releases after 0.5.9 are taken as 0.5.9; an unreadable version gets no rule. Not applied: the
//! same rules for NemotronH, FalconH1, Jet-Nemotron, Kimi-Linear and LFM2 (`extra_buffer` is not a
//! tpsim key: the default strategy is assumed).

use tpsim_model::llm::Architecture;

/// What SGLang settles: the overlap scheduler and radix cache after its own adjustment, and the
/// warnings it logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    pub overlap: bool,
    pub radix_cache: bool,
    pub warnings: Vec<String>,
}

/// SGLang `version`'s adjustment for `arch` with `backend` in force, from the launch's `overlap` and
/// `radix_cache` (module doc).
pub fn settle(
    version: &str,
    arch: Architecture,
    backend: Option<&str>,
    overlap: bool,
    radix_cache: bool,
    speculative: bool,
) -> Settled {
    let mut out = Settled {
        overlap,
        radix_cache,
        warnings: Vec::new(),
    };
    let Some(r) = crate::engine_args_versions::release(version) else {
        return out;
    };
    let v = (
        r.first().copied().unwrap_or(0),
        r.get(1).copied().unwrap_or(0),
        r.get(2).copied().unwrap_or(0),
    );
    if v < (0, 5, 6) || !radix_cache {
        return out;
    }
    let next = arch == Architecture::Qwen3Next;
    let qwen35 = matches!(arch, Architecture::Qwen35 | Architecture::Qwen35Moe);
    let trtllm_mha = backend == Some("trtllm_mha");
    if next && trtllm_mha && (v > (0, 5, 6) || version.contains("post")) {
        out.radix_cache = false;
        out.overlap = true;
        out.warnings.push(
            "SGLang: Disabling radix cache since trtllm_mha does not support page_size = 1, which is required by \
             MambaRadixCache. Try to use --attention-backend triton if radix cache is necessary."
                .to_string(),
        );
        return out;
    }
    let text = match v {
        (0, 5, 6) if next => {
            "Disabling overlap schedule since MambaRadixCache is not compatible with overlap schedule currently, \
             try to use --disable-radix-cache if overlap schedule is necessary"
        }
        (0, 5, 7) if next => {
            "Disabling overlap schedule since MambaRadixCache no_buffer is not compatible with overlap schedule \
             currently, try to use --mamba-scheduler-strategy extra_buffer to enable overlap schedule"
        }
        (0, 5, 8) if arch == Architecture::Glm4Moe => {
            "Disabling overlap schedule since MambaRadixCache no_buffer is not compatible with overlap schedule \
             currently, try to use --mamba-scheduler-strategy extra_buffer to enable overlap schedule"
        }
        _ if v >= (0, 5, 9) && (next || qwen35) && speculative => {
            out.radix_cache = false;
            let name = if next {
                "Qwen3NextForCausalLM"
            } else if arch == Architecture::Qwen35Moe {
                "Qwen3_5MoeForConditionalGeneration"
            } else {
                "Qwen3_5ForConditionalGeneration"
            };
            out.warnings.push(format!(
                "SGLang: Disabling radix cache since speculative decoding for {name} is not supported with radix \
                 cache yet."
            ));
            return out;
        }
        _ if v >= (0, 5, 9) && (next || qwen35) => {
            "Disabling overlap schedule since mamba no_buffer is not compatible with overlap schedule, try to use \
             --disable-radix-cache if overlap schedule is necessary"
        }
        _ => return out,
    };
    out.overlap = false;
    out.warnings.push(format!(
        "SGLang: {text} (tpsim: each decode step now waits for the scheduler's host work, \
         costs.host_overhead)"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Architecture as A;

    /// Each release's outcome for Qwen3-Next, GLM-4.6 and Qwen3.5 with the radix cache on and the
    /// overlap scheduler requested (module doc; exact).
    #[test]
    fn by_release_and_architecture() {
        let off = |v: &str, a: A| !settle(v, a, Some("triton"), true, true, false).overlap;
        // (version, Qwen3-Next off, GLM-4.6 off, Qwen3.5 off)
        let table: [(&str, bool, bool, bool); 10] = [
            ("0.5.2", false, false, false),
            ("0.5.5", false, false, false),
            ("0.5.6", true, false, false),
            ("0.5.6.post1", true, false, false),
            ("0.5.7", true, false, false),
            ("0.5.8", false, true, false),
            ("0.5.8.post1", false, true, false),
            ("0.5.9", true, false, true),
            ("0.5.10", true, false, true),
            ("main", false, false, false),
        ];
        for (v, next, glm, q35) in table {
            assert_eq!(off(v, A::Qwen3Next), next, "{v} Qwen3-Next");
            assert_eq!(off(v, A::Glm4Moe), glm, "{v} GLM-4.6");
            assert_eq!(off(v, A::Qwen35Moe), q35, "{v} Qwen3.5");
            assert!(!off(v, A::Llama), "{v} Llama");
        }
        // The radix cache off at launch: no adjustment.
        assert_eq!(
            settle("0.5.6", A::Qwen3Next, Some("triton"), true, false, false),
            Settled {
                overlap: true,
                radix_cache: false,
                warnings: vec![]
            }
        );
        let s = settle("0.5.6", A::Qwen3Next, Some("triton"), true, true, false);
        assert!(
            s.warnings[0].contains("MambaRadixCache is not compatible with overlap schedule currently"),
            "{s:?}"
        );
    }

    /// `trtllm_mha` named for Qwen3-Next (0.5.6.post1 on): the radix cache goes, the overlap stays;
    /// 0.5.6 (which replaces a named backend with triton on SM 10.x) has no such check. 0.5.9 with
    /// speculative decoding: the radix cache goes.
    #[test]
    fn trtllm_mha_and_speculative() {
        for v in ["0.5.6.post1", "0.5.7", "0.5.8", "0.5.9"] {
            let s = settle(v, A::Qwen3Next, Some("trtllm_mha"), true, true, false);
            assert!(s.overlap && !s.radix_cache, "{v}");
            assert!(
                s.warnings[0].contains("trtllm_mha does not support page_size = 1"),
                "{v}"
            );
        }
        let s = settle("0.5.6", A::Qwen3Next, Some("trtllm_mha"), true, true, false);
        assert!(!s.overlap && s.radix_cache);
        let s = settle("0.5.9", A::Qwen35Moe, Some("flashinfer"), true, true, true);
        assert!(s.overlap && !s.radix_cache);
        assert!(s.warnings[0].contains("speculative decoding for Qwen3_5MoeForConditionalGeneration"));
    }
}

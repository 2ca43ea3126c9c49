//! memlogs (issue #17): SGLang's reduction of `mem_fraction_static` for a multimodal model, release
//! by release. Read from the released wheels (`python/sglang/srt/...` of each; `is_multimodal` is the
//! model config's, i.e. a vision-language architecture served with its tower):
//!
//! | releases read | where | rule |
//! |---|---|---|
//! | 0.4.0, 0.4.3, 0.4.4, 0.4.4.post1 | `model_executor/model_runner.py` `model_specific_adjustment` | `mem_fraction_static *= 0.95`, whatever its source (given or default) |
//! | 0.4.5, 0.4.6, 0.4.7, 0.4.8 | the same | `*= 0.90`, whatever its source |
//! | 0.4.9 | `server_args.py` `__post_init__`, inside the default block | the default only, `*= 0.90` |
//! | 0.4.10, 0.5.1, 0.5.2 (and the later eras: [`crate::memory::sglang_default_fraction`]) | `ServerArgs.adjust_mem_fraction_for_vlm`, inside the default block | the default only, × the ViT-scaled factor ([`crate::memory::sglang_vlm_fraction_factor`]) |
//! | 0.5.9 – 0.5.16 (vision54) | `server_args.py`, when `model_config.is_multimodal and not language_only` | the same factor, from `hf_config.vision_config`'s `num_hidden_layers` (default 24) and `hidden_size` (default 1024) as the config object answers; no `vision_config`: unchanged |
//! | 0.5.17; 0.5.18 | the same, also `disaggregation_mode != "decode"`; 0.5.18 also `not language_model_only` | the same |
//! | 0.5.19 – 0.5.23 | `arg_groups/memory_hook.py` `handle_gpu_memory_settings` → `adjust_mem_fraction_for_vlm`, the same conditions | the same; from 0.5.20 under post-capture KV sizing (`SGLANG_ENABLE_POST_CAPTURE_KV_SIZING`, false by default in every `environ.py` read) − 8 GiB / GPU memory instead: not modelled |
//!
//! tpsim applies the ViT-scaled factor to every tower it reads (`VisionTower::sglang_fraction_dims`;
//! vision54 added Gemma 4's and Kimi-K3's). Not modelled: `--language-only`, `--language-model-only`
//! and a PD decode server, which skip it. None of the 0.5.x variants logs.
//!
//! Both model-runner variants log "Automatically reduce --mem-fraction-static to X because this is
//! a multimodal model." (`{:.3f}`). Releases before 0.4.0 were not read: no reduction is applied
//! there. Checked against the SGLang docs CI build of 2025-06-15 (engine-memory.tsv line 56:
//! Qwen2.5-VL-7B, default 0.874 → "0.787").

/// How a release reduces the fraction of a multimodal model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum VlmFractionRule {
    /// `ModelRunner` multiplies the fraction, given or default, by this factor (0.4.0 – 0.4.8).
    Runner(f64),
    /// `ServerArgs` multiplies its default (only) by this factor (0.4.9).
    DefaultFlat(f64),
    /// `ServerArgs.adjust_mem_fraction_for_vlm` scales its default (only) by the ViT's size (0.4.10 →).
    DefaultVitScaled,
    /// No rule read for this release (before 0.4.0, or a version with no number): none applied.
    None,
}

impl VlmFractionRule {
    /// The fraction SGLang runs with, from the fraction `f` and whether it is the default, for a
    /// tower of SGLang's (layers, hidden) dims. `DefaultVitScaled` is applied here too (callers that
    /// already folded it into their default pass `default = false` for it).
    pub fn apply(self, f: f64, default: bool, vit_dims: (u64, u64)) -> f64 {
        match self {
            VlmFractionRule::Runner(x) => f * x,
            VlmFractionRule::DefaultFlat(x) if default => f * x,
            VlmFractionRule::DefaultVitScaled if default => {
                f * crate::memory::sglang_vlm_fraction_factor(vit_dims.0, vit_dims.1)
            }
            _ => f,
        }
    }

    /// The factor this rule multiplies the fraction by (None when it leaves it).
    pub fn factor(self, default: bool, vit_dims: (u64, u64)) -> Option<f64> {
        match self {
            VlmFractionRule::Runner(_) => Some(self.apply(1.0, default, vit_dims)),
            VlmFractionRule::DefaultFlat(_) | VlmFractionRule::DefaultVitScaled if default => {
                Some(self.apply(1.0, default, vit_dims))
            }
            _ => None,
        }
    }
}

/// The rule of an SGLang `version` (`0.4.4.post1`, `v0.4.8`, `~0.4.7`).
pub fn vlm_fraction_rule(version: &str) -> VlmFractionRule {
    let Some((major, minor, patch, _post)) = crate::sglang_fraction_early::release_post(version) else {
        return VlmFractionRule::None;
    };
    match (major, minor, patch) {
        (0, 0..=3, _) => VlmFractionRule::None,
        (0, 4, 0..=4) => VlmFractionRule::Runner(0.95),
        (0, 4, 5..=8) => VlmFractionRule::Runner(0.90),
        (0, 4, 9) => VlmFractionRule::DefaultFlat(0.90),
        _ => VlmFractionRule::DefaultVitScaled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_by_release() {
        assert_eq!(vlm_fraction_rule("0.3.6"), VlmFractionRule::None);
        assert_eq!(vlm_fraction_rule("0.4.4.post1"), VlmFractionRule::Runner(0.95));
        assert_eq!(vlm_fraction_rule("0.4.5"), VlmFractionRule::Runner(0.90));
        assert_eq!(vlm_fraction_rule("v0.4.8"), VlmFractionRule::Runner(0.90));
        assert_eq!(vlm_fraction_rule("0.4.9"), VlmFractionRule::DefaultFlat(0.90));
        assert_eq!(vlm_fraction_rule("0.4.10"), VlmFractionRule::DefaultVitScaled);
        assert_eq!(vlm_fraction_rule("0.5.8"), VlmFractionRule::DefaultVitScaled);
        // The docs CI build of 2025-06-15 (engine-memory.tsv line 56): default 0.874 × 0.90 = 0.7866,
        // logged "Automatically reduce --mem-fraction-static to 0.787".
        let f = VlmFractionRule::Runner(0.90).apply(0.874, true, (32, 1280));
        assert_eq!(format!("{f:.3}"), "0.787");
        // The model runner reduces a given fraction too; the server-args rules only the default.
        assert!((VlmFractionRule::Runner(0.95).apply(0.8, false, (24, 1024)) - 0.76).abs() < 1e-12);
        assert!((VlmFractionRule::DefaultFlat(0.9).apply(0.8, false, (24, 1024)) - 0.8).abs() < 1e-12);
        assert_eq!(
            VlmFractionRule::DefaultFlat(0.9).factor(true, (24, 1024)),
            Some(0.9)
        );
        assert_eq!(VlmFractionRule::None.factor(true, (24, 1024)), None);
    }
}

//! cmdsurvey62 (issue #17): SGLang's `--mamba-scheduler-strategy` (`engine.mamba_scheduler_strategy`),
//! how the radix cache keeps a hybrid model's recurrent state. Before cmdsurvey62 tpsim assumed the
//! default (`auto`, which 0.5.7 – 0.5.13 turn into `no_buffer`), so two public SGLang 0.5.13 launches
//! of Qwen3.5 with EAGLE / NEXTN and `--mamba-scheduler-strategy extra_buffer` (sglang issues 28312 and
//! 28431) were refused with the `no_buffer` error the flag avoids.
//!
//! Read in the PyPI wheels' `srt/server_args.py` `_handle_mamba_radix_cache` (0.5.9, 0.5.10, 0.5.11,
//! 0.5.13; 0.5.12 is taken as its neighbours) and `_handle_model_specific_adjustments`:
//! - `extra_buffer` (0.5.13 also `extra_buffer_lazy`) keeps the radix cache and the overlap scheduler,
//!   with or without speculative decoding: none of `no_buffer`'s adjustments or its refusal apply.
//! - Qwen3-Next and Qwen3.5 pass `support_mamba_cache_extra_buffer=True` in every release read;
//!   Nemotron-H, Falcon-H1, Granite-4.0-H (mamba layers) and LFM2 pass `False` in 0.5.9 – 0.5.11, where
//!   `extra_buffer` stops at `assert not self.enable_mamba_extra_buffer(), "mamba extra_buffer is not
//!   supported for {arch} model"` (0.5.13 lets Falcon-H1 and Granite through: not modelled, refused).
//! - 0.5.10 on, `extra_buffer` with `--disable-radix-cache` raises "mamba extra_buffer is not compatible
//!   with --disable-radix-cache …"; every release asserts a CUDA device (0.5.11 also MUSA, 0.5.13 NPU):
//!   on ROCm it stops.
//! - 0.5.13's `extra_buffer_lazy` with speculative decoding stops ("extra_buffer_lazy is not yet
//!   supported with speculative decoding. Use --mamba-scheduler-strategy extra_buffer instead.").
//!
//! Not modelled: the per-request state slots `extra_buffer` adds (the pool is sized as `no_buffer`, a
//! warning says so), the `mamba_track_interval` / page-size assertions (`--mamba-track-interval`
//! stays in `extra_args`), and the strategy at other releases (0.5.7, 0.5.8, 0.5.14 – 0.5.19 take the
//! release's default rule, with a warning).

use super::EngineKind;
use super::sglang_overlap::{Launch, Settled};
use tpsim_model::llm::Architecture;

/// `engine.mamba_scheduler_strategy` checked against the release's `--mamba-scheduler-strategy`
/// choices (`tests/data/engine-args/sglang-X.txt`); `Err`: why not (vLLM has no such flag, the
/// release has none, or the value is none of its choices).
pub fn resolve(kind: EngineKind, version: &str, raw: Option<&str>) -> Result<Option<String>, String> {
    let Some(s) = raw else { return Ok(None) };
    if kind == EngineKind::Vllm {
        return Err(
            "SGLang's --mamba-scheduler-strategy; vLLM has no such flag (its hybrid prefix caching is \
             `--mamba-cache-mode`, an extra_args flag)"
                .into(),
        );
    }
    let list = crate::engine_args_versions::list_for(kind, version)
        .ok_or_else(|| format!("SGLang {version}: no argument list at or below it"))?;
    let flags = list.flags();
    // cmdsurvey63: 0.5.14 renames the flag `--mamba-radix-cache-strategy` (same choices, the field
    // `mamba_radix_cache_strategy`), keeping `--mamba-scheduler-strategy` as a deprecated alias
    // through 0.5.19 (`server_args.py`: `action=DeprecatedAliasStoreAction`, `dest=
    // "mamba_radix_cache_strategy"`); 0.5.20 drops the alias.
    let (flag, choices) = ["--mamba-radix-cache-strategy", "--mamba-scheduler-strategy"]
        .into_iter()
        .find_map(|f| Some((f, flags.get(f)?.choices.clone()?)))
        .ok_or_else(|| {
            format!(
                "SGLang {version} has no --mamba-scheduler-strategy ({})",
                list.file()
            )
        })?;
    if !choices.iter().any(|c| c == s) {
        return Err(format!(
            "SGLang {version} refuses it: argparse stops with \"argument {flag}: invalid \
             choice: '{s}' (choose from {})\"",
            choices
                .iter()
                .map(|c| format!("'{c}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(Some(s.to_string()))
}

/// The launch states `extra_buffer` or `extra_buffer_lazy`.
fn extra(l: &Launch) -> bool {
    matches!(l.strategy, Some("extra_buffer" | "extra_buffer_lazy"))
}

/// Architectures that take `_handle_mamba_radix_cache` with the extra buffer allowed (module doc).
fn supports_extra(arch: Architecture) -> bool {
    matches!(
        arch,
        Architecture::Qwen3Next | Architecture::Qwen35 | Architecture::Qwen35Moe
    )
}

/// Hybrid architectures whose `_handle_mamba_radix_cache` call refuses the extra buffer at 0.5.9 – 0.5.11.
fn refuses_extra(arch: Architecture, has_linear: bool) -> bool {
    matches!(
        arch,
        Architecture::NemotronH | Architecture::FalconH1 | Architecture::Lfm2
    ) || (arch == Architecture::GraniteMoeHybrid && has_linear)
}

/// SGLang's handling of a stated strategy at release `v` (`(0, 5, patch)`) for `name`, before the
/// `no_buffer` rules: `Ok(true)` when the extra buffer settles the launch (radix cache and overlap
/// kept, a warning pushed), `Ok(false)` when the `no_buffer` / default rules apply, `Err` with the
/// engine's refusal or what tpsim does not model.
pub fn settle_extra(out: &mut Settled, l: &Launch, v: (u64, u64, u64), name: &str) -> Result<bool, String> {
    let Some(s) = l.strategy.filter(|s| *s != "auto") else {
        return Ok(false);
    };
    let branch = supports_extra(l.arch) || refuses_extra(l.arch, l.has_linear);
    if !branch {
        return Ok(false);
    }
    if ((0, 5, 14)..=(0, 5, 15)).contains(&v) && extra(l) {
        return extra_0_5_14(out, l, s, name);
    }
    if !((0, 5, 9)..=(0, 5, 13)).contains(&v) {
        out.warnings.push(format!(
            "SGLang {}: mamba strategy {s} is read by tpsim at 0.5.9 – 0.5.13 (and extra_buffer at 0.5.14 – \
             0.5.15) only; the release's default rule is applied (not modelled)",
            l.version
        ));
        return Ok(false);
    }
    if !extra(l) {
        return Ok(false);
    }
    let refusal = |text: String| {
        Err(format!(
            "SGLang {} refuses to start: \"{text}\" (server_args.py _handle_mamba_radix_cache)",
            l.version
        ))
    };
    if !supports_extra(l.arch) {
        if v.2 <= 11 {
            return refusal(format!("mamba extra_buffer is not supported for {name} model"));
        }
        return Err(format!(
            "SGLang {}: --mamba-scheduler-strategy {s} for {name} is not modelled (tpsim read its extra buffer for \
             Qwen3-Next and Qwen3.5 only)",
            l.version
        ));
    }
    if !l.radix_cache && v.2 >= 10 {
        return refusal(
            "mamba extra_buffer is not compatible with --disable-radix-cache. Overlap scheduling is already supported \
             with no_buffer + disable_radix_cache. Please use --mamba-scheduler-strategy no_buffer instead."
                .into(),
        );
    }
    if l.rocm {
        let devices = match v.2 {
            9 | 10 => "CUDA devices",
            11 | 12 => "CUDA and MUSA devices",
            _ => "CUDA and MUSA and NPU devices",
        };
        return refusal(format!(
            "Mamba extra_buffer is only supported on {devices} with FLA backend"
        ));
    }
    if s == "extra_buffer_lazy" && l.speculative {
        return refusal(
            "extra_buffer_lazy is not yet supported with speculative decoding. Use --mamba-scheduler-strategy \
             extra_buffer instead."
                .into(),
        );
    }
    if l.radix_cache {
        out.warnings.push(format!(
            "SGLang {}: --mamba-scheduler-strategy {s} keeps the radix cache and the overlap schedule for {name}; tpsim \
             sizes the state pool as no_buffer (assumed: extra_buffer's per-request slots are not modelled)",
            l.version
        ));
    }
    Ok(true)
}

/// cmdsurvey63: a stated `extra_buffer` / `extra_buffer_lazy` at SGLang 0.5.14 – 0.5.15, read in the
/// wheels' `server_args.py` `_handle_mamba_radix_cache` and `_validate_mamba_extra_buffer` (0.5.15:
/// the resolution in `arg_groups/overrides.py` `_mamba_radix_cache_resolution`, which rewrites `auto`
/// only): a stated strategy is kept as given, then validated — the architecture must take the extra
/// buffer (`_support_mamba_cache_extra_buffer`: Qwen3.5, Qwen3-Next, Falcon-H1, Granite-4.0-H,
/// Nemotron-H with the default Triton linear-attention backend), the device CUDA / MUSA / NPU, and no
/// draft with `extra_buffer_lazy`. The radix cache stays and the overlap scheduler is left as
/// launched (`disable_overlap_schedule` is set only on the `auto` → `no_buffer` path).
fn extra_0_5_14(out: &mut Settled, l: &Launch, s: &str, name: &str) -> Result<bool, String> {
    if !l.radix_cache {
        // `if self.disable_radix_cache: return` before any validation.
        return Ok(false);
    }
    let refusal = |text: &str| {
        Err(format!(
            "SGLang {} refuses to start: \"{text}\" (server_args.py _validate_mamba_extra_buffer)",
            l.version
        ))
    };
    let supported = supports_extra(l.arch)
        || matches!(l.arch, Architecture::NemotronH | Architecture::FalconH1)
        || (l.arch == Architecture::GraniteMoeHybrid && l.has_linear);
    if !supported {
        return refusal(&format!(
            "extra_buffer is not supported for {name}; use no_buffer."
        ));
    }
    if l.rocm {
        return refusal("extra_buffer needs CUDA/MUSA/NPU (FLA).");
    }
    if s == "extra_buffer_lazy" && l.speculative {
        return refusal("extra_buffer_lazy unsupported with spec.");
    }
    out.warnings.push(format!(
        "SGLang {}: --mamba-radix-cache-strategy {s} keeps the radix cache for {name} (the overlap schedule as \
         launched); tpsim sizes the state pool as no_buffer (assumed: extra_buffer's per-request slots are not \
         modelled)",
        l.version
    ));
    Ok(true)
}

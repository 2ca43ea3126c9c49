//! b200pg50, hybrids51 (issues #17, #18): the overlap scheduler and radix cache SGLang turns off
//! itself for hybrid (Mamba-2, Gated DeltaNet, KDA, short-conv) models, by release. Read in the PyPI
//! wheels' `srt/server_args.py` `_handle_model_specific_adjustments` (0.5.1 … 0.5.23; 0.5.8.post1 is
//! byte-identical to 0.5.8), `_handle_mamba_radix_cache` (0.5.9 – 0.5.18),
//! `srt/arg_groups/overrides.py` `_mamba_radix_cache_resolution` with `_MAMBA_RADIX_CACHE_ARCHS` /
//! `_MAMBA_EXTRA_BUFFER_ARCHS` (0.5.15 – 0.5.23) and `srt/model_executor/model_runner.py` (0.5.2 –
//! 0.5.7). Every rule needs the radix cache on at launch; the text quoted is SGLang's log line.
//!
//! | release | rule |
//! |---|---|
//! | 0.5.2 – 0.5.3 | `model_runner.py`: "Hybrid GDN model detected, disable radix cache" (`is_hybrid_gdn`: Qwen3-Next; 0.5.3 also Falcon-H1) |
//! | 0.5.4 – 0.5.6 | `model_runner.py`: "{FalconH1Config, NemotronHConfig} model detected, disable radix cache" (`mamba2_config`) |
//! | 0.5.5 – 0.5.13 | Kimi-Linear: "Disabling Radix Cache for KimiLinearForCausalLM as it is not yet supported." |
//! | 0.5.6 – 0.5.8 | Qwen3-Next, and 0.5.8's GLM-4.x branch quirk (below) |
//! | 0.5.7 – 0.5.8 | Nemotron-H: overlap off ("MambaRadixCache is not compatible …"); 0.5.8 with speculative decoding the radix cache goes instead. Falcon-H1: overlap off ("mamba no_buffer …"). Both: a named `trtllm_mha` takes the radix cache and keeps the overlap |
//! | 0.5.9 – 0.5.13 | `_handle_mamba_radix_cache` (default strategy `no_buffer`) for Nemotron-H, Falcon-H1, Granite-4.0-H (a config with a `mamba` layer), LFM2 (`Lfm2ForCausalLM` only), Qwen3-Next, Qwen3.5: no speculative decoding → overlap off; `trtllm_mha` → radix cache off, overlap kept; speculative decoding → 0.5.9 radix cache off, 0.5.10 refused, 0.5.11 – 0.5.13 refused on CUDA, radix cache off on ROCm |
//! | 0.5.14 – 0.5.23 | strategy `auto`: `extra_buffer` (overlap kept) when the overlap is wanted and the architecture is in the extra-buffer list with the default `linear_attn_backend = "triton"`; else `no_buffer` and `disable_overlap_schedule = True` (no log line). The branch: Kimi-Linear, Nemotron-H, Falcon-H1, Granite-4.0-H (mamba layers), LFM2, LFM2-MoE from 0.5.17, Qwen3-Next, Qwen3.5; extra buffer: Nemotron-H, Falcon-H1, Granite-4.0-H, Qwen3-Next, Qwen3.5, Kimi-Linear from 0.5.16. `no_buffer` with `trtllm_mha` is refused |
//!
//! Releases after 0.5.23 are taken as 0.5.23; an unreadable version gets no rule; a `.postN` as its
//! base release except where the table says. Qwen3-Next / GLM-4.x (b200pg50):
//! - 0.5.6, 0.5.6.post1 (`Qwen3NextForCausalLM`): "Disabling overlap schedule since MambaRadixCache
//!   is not compatible with overlap schedule currently, try to use --disable-radix-cache if overlap
//!   schedule is necessary".
//! - 0.5.7: the default `mamba_scheduler_strategy` "auto" becomes "no_buffer": "Disabling overlap
//!   schedule since MambaRadixCache no_buffer is not compatible with overlap schedule currently, try
//!   to use --mamba-scheduler-strategy extra_buffer to enable overlap schedule".
//! - 0.5.8 and 0.5.8.post1: that block sits inside the `elif model_arch in ["Glm4MoeForCausalLM"]`
//!   branch, so GLM-4.5 / 4.6 / 4.7 loses the overlap scheduler and Qwen3-Next keeps it (the code
//!   as released).
//! - 0.5.6.post1 – 0.5.8, Qwen3-Next with `trtllm_mha` named: the radix cache goes, the overlap stays.
//!
//! tpsim's Qwen3.5 architectures include the `…ForCausalLM` spellings, which the lists lack before
//! 0.5.19; every bundled Qwen3.5 preset is a `…ForConditionalGeneration` checkpoint. A stated
//! `--mamba-scheduler-strategy` (`engine.mamba_scheduler_strategy`, cmdsurvey62) is read by
//! `scenario::mamba_strategy` first; without one the default is assumed. Not modelled: 0.5.11 – 0.5.13's
//! `page_size = 1` adjustment under `no_buffer`, the state slots `extra_buffer` adds (the pool is
//! sized as `no_buffer`: the warning says so), the triton-backend refusals of Nemotron-H / LFM2.

use tpsim_model::llm::Architecture;

/// What SGLang settles: the overlap scheduler and radix cache after its own adjustment, and the
/// warnings it logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    pub overlap: bool,
    pub radix_cache: bool,
    pub warnings: Vec<String>,
}

/// The launch as `settle` reads it.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// `engine.version` (resolved).
    pub version: &'a str,
    pub arch: Architecture,
    /// The model has Mamba / linear-attention layers (Granite-4.0-H's branch asks for one).
    pub has_linear: bool,
    /// The attention backend in force (`None`: SGLang's own pick).
    pub backend: Option<&'a str>,
    /// The overlap scheduler and radix cache as launched.
    pub overlap: bool,
    pub radix_cache: bool,
    pub speculative: bool,
    /// An AMD GPU (ROCm: `is_hip()`).
    pub rocm: bool,
    /// cmdsurvey62: `--mamba-scheduler-strategy` as stated (`None`: `auto`, the default;
    /// `scenario::mamba_strategy`).
    pub strategy: Option<&'a str>,
}

impl<'a> Launch<'a> {
    /// A CUDA launch of `arch` (with linear layers) at SGLang `version` with the radix cache and the
    /// overlap scheduler on, Triton attention named and no speculative decoding: the launch the
    /// rule tables are read against (the unit tests here and hybrids51's suite vary it field by
    /// field).
    pub fn radix_and_overlap(version: &'a str, arch: Architecture) -> Launch<'a> {
        Launch {
            version,
            arch,
            has_linear: true,
            backend: Some("triton"),
            overlap: true,
            radix_cache: true,
            speculative: false,
            rocm: false,
            strategy: None,
        }
    }
}

const TRTLLM_MHA: &str = "Disabling radix cache since trtllm_mha does not support page_size = 1, which is \
                          required by MambaRadixCache. Try to use --attention-backend triton if radix cache is \
                          necessary.";
const MAMBA_RADIX_OVERLAP: &str = "Disabling overlap schedule since MambaRadixCache is not compatible with overlap \
                                   schedule currently, try to use --disable-radix-cache if overlap schedule is \
                                   necessary";
const NO_BUFFER_V2: &str = "Disabling overlap schedule since MambaRadixCache no_buffer is not compatible with \
                            overlap schedule currently, try to use --mamba-scheduler-strategy extra_buffer to \
                            enable overlap schedule";
const NO_BUFFER: &str = "Disabling overlap schedule since mamba no_buffer is not compatible with overlap \
                         schedule, try to use --disable-radix-cache if overlap schedule is necessary";

/// SGLang's name of `arch` in its branches and log lines.
fn arch_name(arch: Architecture) -> &'static str {
    match arch {
        Architecture::NemotronH => "NemotronHForCausalLM",
        Architecture::FalconH1 => "FalconH1ForCausalLM",
        Architecture::GraniteMoeHybrid => "GraniteMoeHybridForCausalLM",
        Architecture::KimiLinear => "KimiLinearForCausalLM",
        // families32 (issue #17).
        Architecture::KimiK3 => "KimiK3ForConditionalGeneration",
        Architecture::Lfm2 => "Lfm2ForCausalLM",
        Architecture::Lfm2Moe => "Lfm2MoeForCausalLM",
        Architecture::Qwen3Next => "Qwen3NextForCausalLM",
        Architecture::Qwen35Moe => "Qwen3_5MoeForConditionalGeneration",
        Architecture::Qwen35 => "Qwen3_5ForConditionalGeneration",
        Architecture::Glm4Moe => "Glm4MoeForCausalLM",
        _ => "",
    }
}

impl Settled {
    fn radix_off(&mut self, line: String) {
        self.radix_cache = false;
        self.warnings.push(format!("SGLang: {line}"));
    }

    fn overlap_off(&mut self, line: &str) {
        self.overlap = false;
        self.warnings.push(format!(
            "SGLang: {line} (tpsim: each decode step now waits for the scheduler's host work, \
             costs.host_overhead)"
        ));
    }

    /// A named `trtllm_mha`: the radix cache goes and the overlap scheduler is turned back on.
    fn trtllm_mha(&mut self, launched_overlap: bool) {
        self.radix_off(TRTLLM_MHA.to_string());
        self.overlap = launched_overlap;
    }
}

/// SGLang's adjustment for the launch (module doc); `Err` with the engine's text where it refuses
/// to start.
pub fn settle(l: &Launch) -> Result<Settled, String> {
    let mut out = Settled {
        overlap: l.overlap,
        radix_cache: l.radix_cache,
        warnings: Vec::new(),
    };
    let Some(r) = crate::engine_args_versions::release(l.version) else {
        return Ok(out);
    };
    let v = (
        r.first().copied().unwrap_or(0),
        r.get(1).copied().unwrap_or(0),
        r.get(2).copied().unwrap_or(0),
    );
    let name = arch_name(l.arch);
    // cmdsurvey62: a stated `--mamba-scheduler-strategy extra_buffer` settles the launch itself.
    if super::mamba_strategy::settle_extra(&mut out, l, v, name)? {
        return Ok(out);
    }
    if !l.radix_cache || v < (0, 5, 2) {
        return Ok(out);
    }
    use Architecture as A;
    let trtllm = l.backend == Some("trtllm_mha");
    let mamba_granite = l.arch == A::GraniteMoeHybrid && l.has_linear;
    match (v, l.arch) {
        // `model_runner.py` `is_hybrid_gdn`.
        ((0, 5, 2), A::Qwen3Next) | ((0, 5, 3), A::Qwen3Next | A::FalconH1) => {
            out.radix_off("Hybrid GDN model detected, disable radix cache".into());
        }
        // `model_runner.py` `mamba2_config` (Falcon-H1, Nemotron-H configs).
        ((0, 5, 4..=6), A::FalconH1) => out.radix_off("FalconH1Config model detected, disable radix cache".into()),
        ((0, 5, 4..=6), A::NemotronH) => out.radix_off("NemotronHConfig model detected, disable radix cache".into()),
        ((0, 5, 5..=13), A::KimiLinear) => {
            out.radix_off(format!("Disabling Radix Cache for {name} as it is not yet supported."));
        }
        ((0, 5, 6..=8), A::Qwen3Next) | ((0, 5, 8), A::Glm4Moe) => {
            let post = l.version.contains("post");
            if l.arch == A::Qwen3Next && trtllm && (v > (0, 5, 6) || post) {
                out.trtllm_mha(l.overlap);
            } else if v.2 == 6 {
                out.overlap_off(MAMBA_RADIX_OVERLAP);
            } else if v.2 == 7 || l.arch == A::Glm4Moe {
                out.overlap_off(NO_BUFFER_V2);
            }
        }
        ((0, 5, 8), A::NemotronH) if l.speculative => out.radix_off(format!(
            "Disabling radix cache since speculative decoding for {name} is not supported with radix cache yet."
        )),
        ((0, 5, 7..=8), A::NemotronH | A::FalconH1) => {
            out.overlap_off(if l.arch == A::NemotronH {
                MAMBA_RADIX_OVERLAP
            } else {
                NO_BUFFER
            });
            if trtllm {
                out.trtllm_mha(l.overlap);
            }
        }
        ((0, 5, 9..=13), A::NemotronH | A::FalconH1 | A::Lfm2 | A::Qwen3Next | A::Qwen35 | A::Qwen35Moe) => {
            no_buffer(&mut out, l, v.2, name)?;
        }
        ((0, 5, 9..=13), A::GraniteMoeHybrid) if mamba_granite => no_buffer(&mut out, l, v.2, name)?,
        _ if v >= (0, 5, 14) => auto_strategy(&mut out, l, v, name)?,
        _ => {}
    }
    Ok(out)
}

/// 0.5.9 – 0.5.13 `_handle_mamba_radix_cache` with the radix cache on and `no_buffer` (the default).
fn no_buffer(out: &mut Settled, l: &Launch, patch: u64, name: &str) -> Result<(), String> {
    if !l.speculative {
        out.overlap_off(NO_BUFFER);
        if l.backend == Some("trtllm_mha") {
            out.trtllm_mha(l.overlap);
        }
        return Ok(());
    }
    if patch == 9 {
        out.radix_off(format!(
            "Disabling radix cache since speculative decoding for {name} is not supported with radix cache yet."
        ));
    } else if patch >= 11 && l.rocm {
        out.radix_off(format!(
            "Speculative decoding for {name} is not compatible with radix cache on ROCm devices. Automatically \
             disabling radix cache."
        ));
    } else {
        return Err(format!(
            "SGLang 0.5.{patch} refuses to start: \"Speculative decoding for {name} is not compatible with radix \
             cache when using --mamba-scheduler-strategy no_buffer.To use radix cache with speculative decoding, \
             please use --mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1.\" \
             (server_args.py _handle_mamba_radix_cache): set engine.disable_radix_cache = true"
        ));
    }
    Ok(())
}

/// 0.5.14 on: the `auto` strategy's pick (module doc).
fn auto_strategy(out: &mut Settled, l: &Launch, v: (u64, u64, u64), name: &str) -> Result<(), String> {
    use Architecture as A;
    let granite = l.arch == A::GraniteMoeHybrid && l.has_linear;
    let in_branch = granite
        || matches!(
            l.arch,
            A::KimiLinear | A::NemotronH | A::FalconH1 | A::Lfm2 | A::Qwen3Next | A::Qwen35 | A::Qwen35Moe
        )
        // families32 (issue #17): Kimi-K3 is in `_MAMBA_RADIX_CACHE_ARCHS` and the extra-buffer list
        // from its first release (0.5.17 `arg_groups/overrides.py`; 0.5.23 likewise).
        || l.arch == A::KimiK3
        || (l.arch == A::Lfm2Moe && v >= (0, 5, 17));
    if !in_branch {
        return Ok(());
    }
    let extra = granite
        || matches!(
            l.arch,
            A::NemotronH | A::FalconH1 | A::Qwen3Next | A::Qwen35 | A::Qwen35Moe
        )
        || (l.arch == A::KimiLinear && v >= (0, 5, 16))
        || l.arch == A::KimiK3;
    if l.overlap && extra {
        out.warnings.push(format!(
            "SGLang {}: mamba_radix_cache_strategy auto → extra_buffer for {name} (overlap schedule kept); tpsim \
             sizes the state pool as no_buffer (assumed: extra_buffer's per-request slots are not modelled)",
            l.version
        ));
        return Ok(());
    }
    if l.backend == Some("trtllm_mha") {
        return Err(format!(
            "SGLang {} refuses to start: \"no_buffer do not support trtllm_mha attention backend.\" (server_args.py \
             _validate_mamba_no_buffer; {name} takes mamba_radix_cache_strategy no_buffer): name another \
             attention backend or set engine.disable_radix_cache = true",
            l.version
        ));
    }
    if l.overlap {
        out.overlap = false;
        out.warnings.push(format!(
            "SGLang {}: mamba_radix_cache_strategy auto → no_buffer for {name}, which sets disable_overlap_schedule \
             (arg_groups/overrides.py _mamba_radix_cache_resolution, no log line; tpsim: each decode step now waits \
             for the scheduler's host work, costs.host_overhead)",
            l.version
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use Architecture as A;

    fn launch(version: &str, arch: A) -> Launch<'_> {
        Launch::radix_and_overlap(version, arch)
    }

    fn off(v: &str, a: A) -> bool {
        !settle(&launch(v, a)).map(|s| s.overlap).unwrap_or(true)
    }

    /// Each release's outcome for Qwen3-Next, GLM-4.6 and Qwen3.5 with the radix cache on and the
    /// overlap scheduler requested (module doc; exact).
    #[test]
    fn by_release_and_architecture() {
        // (version, Qwen3-Next off, GLM-4.6 off, Qwen3.5 off)
        let table: [(&str, bool, bool, bool); 11] = [
            ("0.5.2", false, false, false),
            ("0.5.5", false, false, false),
            ("0.5.6", true, false, false),
            ("0.5.6.post1", true, false, false),
            ("0.5.7", true, false, false),
            ("0.5.8", false, true, false),
            ("0.5.8.post1", false, true, false),
            ("0.5.9", true, false, true),
            ("0.5.10", true, false, true),
            ("0.5.14", false, false, false),
            ("main", false, false, false),
        ];
        for (v, next, glm, q35) in table {
            assert_eq!(off(v, A::Qwen3Next), next, "{v} Qwen3-Next");
            assert_eq!(off(v, A::Glm4Moe), glm, "{v} GLM-4.6");
            assert_eq!(off(v, A::Qwen35Moe), q35, "{v} Qwen3.5");
            assert!(!off(v, A::Llama), "{v} Llama");
        }
        // The radix cache off at launch: no adjustment.
        let l = Launch {
            radix_cache: false,
            ..launch("0.5.6", A::Qwen3Next)
        };
        assert_eq!(
            settle(&l),
            Ok(Settled {
                overlap: true,
                radix_cache: false,
                warnings: vec![]
            })
        );
        let s = settle(&launch("0.5.6", A::Qwen3Next)).unwrap();
        assert!(
            s.warnings[0].contains("MambaRadixCache is not compatible with overlap schedule currently"),
            "{s:?}"
        );
    }

    /// `trtllm_mha` named for Qwen3-Next (0.5.6.post1 on): the radix cache goes, the overlap stays;
    /// 0.5.6 (which replaces a named backend with triton on SM 10.x) has no such check. 0.5.9 with
    /// speculative decoding: the radix cache goes; 0.5.10 refuses.
    #[test]
    fn trtllm_mha_and_speculative() {
        for v in ["0.5.6.post1", "0.5.7", "0.5.8", "0.5.9"] {
            let s = settle(&Launch {
                backend: Some("trtllm_mha"),
                ..launch(v, A::Qwen3Next)
            })
            .unwrap();
            assert!(s.overlap && !s.radix_cache, "{v}");
            assert!(
                s.warnings
                    .last()
                    .unwrap()
                    .contains("trtllm_mha does not support page_size = 1"),
                "{v}"
            );
        }
        let s = settle(&Launch {
            backend: Some("trtllm_mha"),
            ..launch("0.5.6", A::Qwen3Next)
        })
        .unwrap();
        assert!(!s.overlap && s.radix_cache);
        let spec = |v| Launch {
            speculative: true,
            backend: Some("flashinfer"),
            ..launch(v, A::Qwen35Moe)
        };
        let s = settle(&spec("0.5.9")).unwrap();
        assert!(s.overlap && !s.radix_cache);
        assert!(s.warnings[0].contains("speculative decoding for Qwen3_5MoeForConditionalGeneration"));
        assert!(
            settle(&spec("0.5.10"))
                .unwrap_err()
                .contains("SGLANG_ENABLE_SPEC_V2=1")
        );
    }
}

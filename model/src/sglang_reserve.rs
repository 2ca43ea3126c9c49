//! sglres53 (issue #17): the terms of SGLang's default `mem_fraction_static` reserve by release,
//! 0.5.3 – 0.5.23, read in each PyPI wheel (`sglang/srt/server_args.py` `_handle_gpu_memory_settings`
//! through 0.5.18, `reserve_for_graph_mb` / `reserve_for_deepep_a2a_mb` from 0.5.16, moved to
//! `sglang/srt/arg_groups/memory_hook.py` `handle_gpu_memory_settings` from 0.5.19):
//!
//! | release        | EAGLE (after the floor) | prefill graphs by default            | MLA prefill reserve       | decode term, DeepEP        |
//! |----------------|-------------------------|--------------------------------------|---------------------------|----------------------------|
//! | 0.5.3 – 0.5.9  | 2 GiB                   | off (`--enable-piecewise-cuda-graph`) | 8 MiB × sizes to 2,048    | always, none               |
//! | 0.5.10 – 0.5.13| 4 GiB                   | on (`disable_piecewise_cuda_graph`)   | flat 1.5 GiB              | always, none               |
//! | 0.5.14         | none                    | on (`tc_piecewise`)                   | flat 1.5 GiB              | always, none               |
//! | 0.5.15 – 0.5.23| none                    | on (`breakable` on CUDA)              | flat 1.5 GiB              | with decode graphs; +2 GiB |
//!
//! The common part (512 + 1.5 × max(chunk, 2048) + tp × pp / 8 × 1024, the 10 GiB floor above
//! 60 GiB, the rounding) is `crate::memory::sglang_default_fraction`. Which configurations switch the
//! prefill graphs off (the auto-disable cascade, run before the reserve) is [`prefill_graphs_on`].
//! The per-card chunk and decode `max_bs` defaults by release (0.5.20's larger 20 – 35 GiB bucket,
//! 0.5.22's cap at `max_running_requests`) are `crate::sglang_buckets` (sglmem54). Not modelled: SGLang
//! 0.5.16+'s post-capture sizing (opt-in, `SGLANG_ENABLE_POST_CAPTURE_KV_SIZING` defaults to false in
//! `environ.py` of 0.5.16 – 0.5.23; reported by `sim::scenario::post_capture`; book/src/coverage.md).

use crate::llm::Architecture;

/// How a release captures prefill (piecewise) CUDA graphs when the user says nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefillDefault {
    /// Off unless `--enable-piecewise-cuda-graph` (0.5.9 and before).
    OptIn,
    /// On, torch.compile piecewise (`disable_piecewise_cuda_graph = False`, 0.5.10 – 0.5.13;
    /// `Backend.TC_PIECEWISE` in 0.5.14's `cuda_graph_config.py`).
    TcPiecewise,
    /// On, `Backend.BREAKABLE` on CUDA (`default_prefill_backend()`, 0.5.15 on).
    Breakable,
}

/// The reserve terms one SGLang release uses (MiB).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReserveRule {
    /// The 0.5.x patch number the rule was read from (0.5.3 – 0.5.9 share 0.5.9's).
    pub patch: u32,
    /// Added after the floor for an EAGLE-family draft (`speculative_algorithm` not NGRAM /
    /// STANDALONE): 2 GiB to 0.5.9, 4 GiB 0.5.10 – 0.5.13, dropped in 0.5.14 (the draft's KV is
    /// inside the pool's cell, `pool_configurator.py`).
    pub eagle_mib: f64,
    /// Prefill graphs' default.
    pub prefill: PrefillDefault,
    /// MLA models reserve a flat 1.5 GiB for prefill graphs ("memory overhead is much higher than
    /// expected with fa3", 0.5.10 on) instead of 8 MiB per captured size.
    pub mla_flat: bool,
    /// The 2 × `cuda_graph_max_bs` term only when decode graphs are on (0.5.15 on).
    pub decode_term_needs_graphs: bool,
    /// DeepEP all-to-all buffers, after the floor, with decode graphs on (0.5.15 on).
    pub deepep_mib: f64,
    /// Breakable prefill graphs with DeepEP, before the floor (0.5.17 `reserve_for_graph_mb`).
    pub deepep_breakable_mib: f64,
    /// `max_total_tokens` caps the captured prefill sizes (0.5.10 on).
    pub cap_max_total: bool,
    /// An explicit `--context-length` caps them (0.5.13 – 0.5.16, SGLang #21112).
    pub cap_context: bool,
}

/// The rule of a release, `None` outside 0.5.3 – 0.5.23 (other eras have their own fraction rules,
/// `crate::memory::sglang_default_fraction`).
pub fn reserve_rule(version: &str) -> Option<ReserveRule> {
    match crate::sglang_fraction_early::release_post(version)? {
        (0, 5, p @ 3..=23, _) => Some(rule_of_patch(p)),
        _ => None,
    }
}

/// 0.5.9's rule, and 0.5.14's EAGLE term: tpsim's reserve for a scenario that names an era but no
/// release (`engine.costs.era`), unchanged since release52.
pub fn era_rule(spring: bool) -> ReserveRule {
    ReserveRule {
        eagle_mib: if spring { 0.0 } else { 2048.0 },
        ..rule_of_patch(9)
    }
}

fn rule_of_patch(p: u32) -> ReserveRule {
    let p = p.max(9);
    ReserveRule {
        patch: p,
        eagle_mib: match p {
            ..=9 => 2048.0,
            10..=13 => 4096.0,
            _ => 0.0,
        },
        prefill: match p {
            ..=9 => PrefillDefault::OptIn,
            10..=14 => PrefillDefault::TcPiecewise,
            _ => PrefillDefault::Breakable,
        },
        mla_flat: p >= 10,
        decode_term_needs_graphs: p >= 15,
        deepep_mib: if p >= 15 { 2048.0 } else { 0.0 },
        deepep_breakable_mib: if p >= 17 { 1024.0 } else { 0.0 },
        cap_max_total: p >= 10,
        cap_context: (13..=16).contains(&p),
    }
}

/// What the prefill-graph cascade and the reserve read from a deployment.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphContext {
    /// `engine.enable_piecewise_cuda_graph`: `Some(false)` switches prefill graphs off
    /// (`--disable-piecewise-cuda-graph`, `--cuda-graph-backend-prefill disabled` from 0.5.20);
    /// `Some(true)` opts in (0.5.9), is a deprecated no-op (0.5.10 – 0.5.13) or names the release's
    /// default backend explicitly, which skips the cascade (0.5.14 on).
    pub user_prefill: Option<bool>,
    /// Decode CUDA graphs on (`--disable-cuda-graph` not given).
    pub decode_graphs: bool,
    pub arch: Architecture,
    pub mla: bool,
    pub multimodal: bool,
    pub speculative: bool,
    pub dp_attention: bool,
    pub pp: u32,
    /// ROCm: prefill graphs are off (`is_hip()` in the cascade; 0.5.23's default is `disabled`).
    pub amd: bool,
    /// `moe_a2a_backend = "deepep"`.
    pub deepep: bool,
    /// Decode context parallelism (`dcp_size > 1`).
    pub dcp: bool,
}

/// Whether the release captures prefill graphs for this deployment (SGLang's cascade before the
/// reserve: 0.5.10 – 0.5.13 `_handle_piecewise_cuda_graph`, 0.5.14 on
/// `_disable_tc_piecewise_cudagraph_if_incompatible` / `_disable_breakable_cudagraph_if_incompatible`,
/// `arg_groups/cuda_graph_hook.py` from 0.5.19). Only the conditions tpsim can express are read.
pub fn prefill_graphs_on(rule: &ReserveRule, c: &GraphContext) -> bool {
    let p = rule.patch;
    match (rule.prefill, c.user_prefill) {
        (_, Some(false)) | (PrefillDefault::OptIn, None) => return false,
        (PrefillDefault::OptIn, Some(true)) => return true,
        // 0.5.14 on: `--disable-cuda-graph` locks both phases off.
        _ if p >= 14 && !c.decode_graphs => return false,
        // An explicit backend is locked: the cascade is skipped (0.5.14 `_apply_cuda_graph_compatibility`).
        (_, Some(true)) if p >= 14 => return true,
        _ => {}
    }
    let (a, mm) = (c.arch, c.multimodal);
    let dsa = matches!(a, Architecture::DeepseekV32 | Architecture::GlmMoeDsa);
    // 0.5.16 – 0.5.17 `_apply_cuda_graph_compatibility`: a multimodal arch on the piecewise allowlist
    // but not the breakable one (Kimi-K2.5 there) runs tc_piecewise instead.
    let tc = rule.prefill == PrefillDefault::TcPiecewise
        || (a == Architecture::KimiK25 && mm && (16..=17).contains(&p));
    if c.amd {
        return false;
    }
    if tc {
        // `piecewise_cuda_graph_disabled_model_archs` (model_config.py): DSA models through 0.5.12;
        // `multimodal_piecewise_cuda_graph_supported_model_archs`: Kimi-K2.5 from 0.5.16.
        let blocked = a == Architecture::Qwen3Next || (dsa && p <= 12);
        let mm_off = mm && !(a == Architecture::KimiK25 && p >= 16);
        return !(blocked || (c.speculative && p == 10) || c.dp_attention || c.pp > 1 || c.deepep || mm_off);
    }
    // Breakable: multimodal allowlist (`multimodal_breakable_cuda_graph_supported_model_archs`);
    // pipeline parallelism opts out from 0.5.19 (`cuda_graph_hook.py` `apply_cuda_graph_compatibility`).
    let mm_ok = match a {
        Architecture::Qwen35 | Architecture::Qwen35Moe => p >= 16,
        Architecture::KimiK25 => p >= 18,
        _ => false,
    };
    let off = match p {
        15 | 16 => c.mla || c.deepep || c.dp_attention || (c.dcp && p == 16),
        17 => (c.mla && !dsa) || a == Architecture::NemotronH || c.dcp,
        18 => c.dcp,
        _ => c.dcp || c.pp > 1,
    };
    !(off || (mm && !mm_ok))
}

/// The release's reserve terms for one deployment.
#[derive(Debug, Clone, PartialEq)]
pub struct ReserveTerms {
    /// Prefill graphs captured (`prefill_graphs_on`).
    pub prefill_graphs: bool,
    /// MiB before the 10 GiB floor: the prefill graphs' (and DeepEP's with breakable graphs).
    pub before_floor_mib: f64,
    /// MiB after the floor: EAGLE's and DeepEP's.
    pub after_floor_mib: f64,
    /// Whether 2 × `cuda_graph_max_bs` is counted.
    pub decode_term: bool,
}

/// The terms for `c`, with `chunk` the chunk size SGLang works with (`None`: chunking off, no
/// prefill size captured), `max_total_tokens` and an explicit `context_length`.
pub fn reserve_terms(
    rule: &ReserveRule,
    c: &GraphContext,
    chunk: Option<u64>,
    (max_total_tokens, context_length): (Option<u64>, Option<u64>),
) -> ReserveTerms {
    use crate::sglang_piecewise::{piecewise_capture_tokens, piecewise_max_tokens};
    let prefill_graphs = prefill_graphs_on(rule, c);
    let mut before = 0.0;
    if prefill_graphs {
        before += if c.mla && rule.mla_flat {
            1.5 * 1024.0
        } else {
            let mut max = piecewise_max_tokens(chunk.unwrap_or(0), c.mla);
            if rule.cap_max_total {
                max = max.min(max_total_tokens.unwrap_or(u64::MAX));
            }
            if rule.cap_context {
                max = max.min(context_length.unwrap_or(u64::MAX));
            }
            8.0 * piecewise_capture_tokens(max).len() as f64
        };
        if c.deepep && rule.prefill == PrefillDefault::Breakable {
            before += rule.deepep_breakable_mib;
        }
    }
    let decode_term = c.decode_graphs || !rule.decode_term_needs_graphs;
    let mut after = if c.speculative { rule.eagle_mib } else { 0.0 };
    if c.deepep && c.decode_graphs {
        after += rule.deepep_mib;
    }
    ReserveTerms {
        prefill_graphs,
        before_floor_mib: before,
        after_floor_mib: after,
        decode_term,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> GraphContext {
        GraphContext {
            user_prefill: None,
            decode_graphs: true,
            arch: Architecture::Llama,
            mla: false,
            multimodal: false,
            speculative: false,
            dp_attention: false,
            pp: 1,
            amd: false,
            deepep: false,
            dcp: false,
        }
    }

    /// Sums of multiples of 8 MiB and 0.5 GiB: exact in f64.
    fn eq(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }

    fn terms(v: &str, c: &GraphContext) -> ReserveTerms {
        reserve_terms(&reserve_rule(v).unwrap(), c, Some(8192), (None, None))
    }

    #[test]
    fn rules_by_release() {
        assert_eq!(reserve_rule("0.5.2"), None);
        assert_eq!(reserve_rule("0.5.24"), None);
        assert_eq!(reserve_rule("0.5.3").unwrap(), rule_of_patch(9));
        // Llama at chunk 8192: 58 sizes × 8 = 464 MiB from 0.5.10 (default on), none in 0.5.9.
        eq(terms("0.5.9", &ctx()).before_floor_mib, 0.0);
        eq(terms("0.5.10", &ctx()).before_floor_mib, 464.0);
        eq(terms("0.5.23", &ctx()).before_floor_mib, 464.0);
        // EAGLE: 2048 (0.5.9), 4096 (0.5.13), 0 (0.5.14); 0.5.10 also turns prefill graphs off.
        let spec = GraphContext {
            speculative: true,
            ..ctx()
        };
        eq(terms("0.5.9", &spec).after_floor_mib, 2048.0);
        let t10 = terms("0.5.10", &spec);
        assert_eq!((t10.after_floor_mib, t10.before_floor_mib), (4096.0, 0.0));
        eq(terms("0.5.13", &spec).before_floor_mib, 464.0);
        eq(terms("0.5.14", &spec).after_floor_mib, 0.0);
    }

    #[test]
    fn mla_deepep_and_graphs_off() {
        let mla = GraphContext {
            arch: Architecture::DeepseekV3,
            mla: true,
            ..ctx()
        };
        // 0.5.9 opt-in: 42 sizes to 2048 → 336; 0.5.10 – 0.5.14 flat 1536; 0.5.15 – 0.5.17 breakable
        // refuses MLA (off); 0.5.18 keeps it → 1536.
        let on = GraphContext {
            user_prefill: Some(true),
            ..mla.clone()
        };
        eq(terms("0.5.9", &on).before_floor_mib, 336.0);
        eq(terms("0.5.12", &mla).before_floor_mib, 1536.0);
        eq(terms("0.5.16", &mla).before_floor_mib, 0.0);
        eq(terms("0.5.18", &mla).before_floor_mib, 1536.0);
        // DeepEP: 0.5.14 prefill off, nothing after the floor; 0.5.15 +2048 after; 0.5.17 breakable
        // stays on (+1024 before, with its 1536) and +2048 after; graphs off: no DeepEP, no decode term.
        let ep = GraphContext {
            deepep: true,
            ..mla.clone()
        };
        eq(terms("0.5.14", &ep).after_floor_mib, 0.0);
        eq(terms("0.5.15", &ep).after_floor_mib, 2048.0);
        let t17 = terms(
            "0.5.17",
            &GraphContext {
                arch: Architecture::DeepseekV32,
                ..ep.clone()
            },
        );
        assert_eq!((t17.before_floor_mib, t17.after_floor_mib), (2560.0, 2048.0));
        let off = GraphContext {
            decode_graphs: false,
            ..ep
        };
        let t = terms("0.5.15", &off);
        assert_eq!(
            (t.prefill_graphs, t.decode_term, t.after_floor_mib),
            (false, false, 0.0)
        );
        // 0.5.14 keeps the decode term with graphs off; 0.5.13's cascade ignores --disable-cuda-graph.
        assert!(terms("0.5.14", &off).decode_term);
        assert!(
            terms(
                "0.5.13",
                &GraphContext {
                    decode_graphs: false,
                    ..mla
                }
            )
            .prefill_graphs
        );
    }

    #[test]
    fn caps_and_user_switches() {
        let r = reserve_rule("0.5.13").unwrap();
        // max_total_tokens 4096 caps the sizes at 4096 (50 sizes), the context length 1024 at 1024 (38).
        eq(
            reserve_terms(&r, &ctx(), Some(8192), (Some(4096), None)).before_floor_mib,
            400.0,
        );
        eq(
            reserve_terms(&r, &ctx(), Some(8192), (None, Some(1024))).before_floor_mib,
            304.0,
        );
        let r17 = reserve_rule("0.5.17").unwrap();
        eq(
            reserve_terms(&r17, &ctx(), Some(8192), (None, Some(1024))).before_floor_mib,
            464.0,
        );
        let off = GraphContext {
            user_prefill: Some(false),
            ..ctx()
        };
        assert!(!prefill_graphs_on(&r, &off));
        // An explicit backend skips 0.5.14's cascade (multimodal would switch it off).
        let mm = GraphContext {
            multimodal: true,
            ..ctx()
        };
        let r14 = reserve_rule("0.5.14").unwrap();
        assert!(!prefill_graphs_on(&r14, &mm));
        assert!(prefill_graphs_on(
            &r14,
            &GraphContext {
                user_prefill: Some(true),
                ..mm
            }
        ));
    }
}

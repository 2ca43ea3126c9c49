//! dsv4run55 (issue #17): SGLang's start-up for DeepSeek-V4 (`Architecture::DeepseekV4`), which sizes
//! its pools with its own configurator instead of `tokens = rest ÷ cell`
//! (`model_executor/pool_configurator.py` `DSV4PoolConfigurator`, 0.5.12 – 0.5.23;
//! `tpsim_model::llm::deepseek_v4_pools`).
//!
//! The steps: `total` and `available` as for any model (the weights a rank are
//! `llm::deepseek_v4_weights`', through `ModelSpec::weight_breakdown`); `rest = available − total ×
//! (1 − f)` is the `available_bytes` the configurator divides; [`plan`](tpsim_model::llm::deepseek_v4_pools::plan)
//! by the release's rule at the model hook's settings (`arg_groups/deepseek_v4_hook.py`
//! `apply_deepseek_v4_defaults`: page 256 on CUDA, `--swa-full-tokens-ratio` 0.8 → 0.1, max running
//! requests 256 unless given); the SWA-pool check of 0.5.20 on; then the allocations after the pool
//! (CUDA graphs, activations) as for any SGLang model.
//!
//! The hook's 256 running requests hold in every release read (0.5.12, 0.5.16, 0.5.20, 0.5.23:
//! "Setting max_running_requests to 256 for …"). The ratio: the 0.5.12 – 0.5.20 hook replaces the 0.8
//! default, 0.5.23's model override (`arg_groups/model_overrides/deepseek_v4.py`) sets 0.1 when none
//! is given; tpsim cannot tell an explicit 0.8 from the default (`engine.swa_full_tokens_ratio` resolves
//! to 0.8 either way), so 0.8 means 0.1 under every release (an explicit 0.8 under 0.5.21 – 0.5.23 is a
//! known miss).
//!
//! Assumed: the pools allocate what the budget prices them at (`full × bytes_per_full_token` plus the
//! fixed parts; the pools' own padding pages are not counted), and the request pool holds
//! `max_running_requests` slots.

use super::{MemEntry, MemKind, MemoryPlan, Moment, Source, Verdict};
use tpsim_model::llm::deepseek_v4::Geometry;
use tpsim_model::llm::deepseek_v4_pools::{
    SGLANG_DSV4_DEFAULTS, SglangDsv4Rule, SglangDsv4Settings, plan, swa_pool_check,
};
use tpsim_model::memory::SglangKvPlan;
use tpsim_model::units::Bytes;

/// SGLang's `--swa-full-tokens-ratio` default (`server_args.py`), which the DeepSeek-V4 hook replaces
/// with 0.1 ("Setting swa_full_tokens_ratio to 0.1").
const SWA_RATIO_DEFAULT: f64 = 0.8;

/// The configurator's settings for this scenario (module doc): the release's rule and the hook's
/// defaults over what the scenario sets.
pub(crate) fn settings(e: &crate::scenario::Engine) -> SglangDsv4Settings {
    let ratio = if e.swa_full_tokens_ratio == SWA_RATIO_DEFAULT {
        SGLANG_DSV4_DEFAULTS.swa_ratio
    } else {
        e.swa_full_tokens_ratio
    };
    SglangDsv4Settings {
        swa_ratio: ratio,
        max_running_requests: e
            .max_running_requests
            .unwrap_or(SGLANG_DSV4_DEFAULTS.max_running_requests),
        radix_cache: e.scheduler.prefix_cache,
        ..SGLANG_DSV4_DEFAULTS
    }
}

/// The release as numbers (`0.5.23` → [0, 5, 23]).
fn release(e: &crate::scenario::Engine) -> Vec<u64> {
    crate::engine_args_versions::release(&e.release().version).unwrap_or_default()
}

/// The hook's warning when `--max-running-requests` is not given (`deepseek_v4_hook.py`
/// `apply_deepseek_v4_defaults`, the same text in the 0.5.12, 0.5.16, 0.5.20 and 0.5.23 wheels).
fn hook_lines(e: &crate::scenario::Engine) -> Vec<String> {
    match e.max_running_requests {
        None => vec![format!(
            "Setting max_running_requests to {} for DeepseekV4ForCausalLM.",
            SGLANG_DSV4_DEFAULTS.max_running_requests
        )],
        Some(_) => Vec::new(),
    }
}

impl super::SglangStartup<'_> {
    /// The plan of a DeepSeek-V4 scenario (module doc); `g` is the model's geometry.
    pub(super) fn plan_dsv4(&self, g: &Geometry) -> MemoryPlan {
        let e = self.e;
        let m = self.measure();
        let v = release(e);
        // `scenario::dsv4` refuses releases without a rule before any plan is made.
        let rule = SglangDsv4Rule::of(&v).unwrap_or(SglangDsv4Rule::PagedCap);
        let st = settings(e);
        let rest_gib = m.available_gib - m.total_gib * (1.0 - e.mem_fraction_static);
        // `int(rest_memory * (1 << 30))`, truncated as the spring-2026 profile does (`sglang_kv_plan`);
        // assumed the same for the configurator's `available_bytes`.
        let rest = (rest_gib.max(0.0) * (1u64 << 30) as f64) as u64;
        let sized = plan(g, rule, &st, rest);
        let (tokens, pool_bytes, lines, check) = match &sized {
            Ok(p) => {
                let bytes =
                    (p.pools.full as f64 * p.bytes_per_full_token) as u64 + p.c128_fixed + p.swa_fixed as u64;
                (
                    p.pools.full,
                    bytes,
                    p.log_lines(&v, &st, rest),
                    swa_pool_check(&v, g, p, st.page),
                )
            }
            Err(_) => (0, 0, Vec::new(), Ok(())),
        };
        let available = Bytes::from_gib_f64(m.available_gib.max(0.0)).0;
        let running = st.max_running_requests.min(tokens / 2).max(u64::from(tokens > 0));
        let kv = SglangKvPlan {
            rest_gib,
            profiled_tokens: i64::try_from(tokens).unwrap_or(i64::MAX),
            tokens,
            pool_bytes: Bytes(pool_bytes),
            reserve_bytes: Bytes::from_gib_f64(m.total_gib * (1.0 - e.mem_fraction_static)),
            free_after_pool: Bytes(available.saturating_sub(pool_bytes)),
            starts: tokens > 0,
            pool_fits: pool_bytes <= available,
            max_num_reqs: st.max_running_requests,
            max_running_requests: running,
            draft_tokens: 0,
        };
        let mut plan = MemoryPlan {
            cell_size: sized
                .as_ref()
                .map_or(0, |p| p.bytes_per_full_token.round() as u64),
            rest_gib,
            kv_tokens: tokens,
            kv_pool: Bytes(pool_bytes),
            max_num_reqs: Some(kv.max_num_reqs),
            max_running_requests: Some(kv.max_running_requests),
            notes: vec![format!(
                "DeepSeek-V4 pools by SGLang's DSV4PoolConfigurator ({rule:?} rule), swa_full_tokens_ratio {}, page {}, \
                 max_running_requests {}; bytes a full token {:.2} (the cell shown, rounded); the pools are taken to \
                 allocate what the budget prices them at (their padding pages not counted)",
                st.swa_ratio,
                st.page,
                st.max_running_requests,
                sized.as_ref().map_or(0.0, |p| p.bytes_per_full_token),
            )],
            engine_lines: hook_lines(e).into_iter().chain(lines).collect(),
            ..m.into_plan(e.mem_fraction_static)
        };
        if let Err(text) = sized.and(check) {
            plan.verdict = Verdict::Oom {
                step: "DSV4 pool sizing (DSV4PoolConfigurator)".into(),
                message: text,
                missing: Bytes(0),
            };
            plan.max_running_requests = None;
            return plan;
        }
        if !kv.starts {
            plan.verdict = self.profile_oom(&kv, st.page.max(1), plan.available_gib, plan.total_gib);
            plan.max_running_requests = None;
            return plan;
        }
        plan.entries.push(MemEntry {
            kind: MemKind::TargetKvPool,
            bytes: pool_bytes,
            moment: Moment::KvPool,
            source: Source::EngineRule,
        });
        self.allocate_after_pool(&mut plan, &kv);
        plan
    }
}

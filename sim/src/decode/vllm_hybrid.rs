//! vLLM's KV-cache layout of a hybrid Mamba-2 / Gated DeltaNet model in a scenario (issue #17,
//! engine-exact memory; the arithmetic is `tpsim_model::vllm_hybrid`): the state pages' dtypes by
//! release, the attention block size vLLM sets, the groups, and the lines vLLM logs about them.

use tpsim_model::vllm_hybrid::{
    NEWEST_READ, VllmHybridLayout, VllmHybridRules, gdn_state_page, vllm_hybrid_layout,
};

use crate::engine_args_versions::release;
use crate::scenario::Scenario;
use crate::scenario::mamba_dtype;

/// A hybrid model's layout under the scenario's vLLM release.
pub(super) struct Hybrid {
    pub rules: VllmHybridRules,
    pub layout: VllmHybridLayout,
    /// State blocks per request in each state group (`VllmHybridRules::state_pages`).
    pub state_pages: u64,
    /// `--max-model-len`, or the model's context length.
    pub max_model_len: u64,
    pub attention_layers: u64,
    pub state_layers: u64,
    /// vLLM's log lines ("vLLM: …") and tpsim's notes on the layout.
    pub notes: Vec<String>,
}

/// The layout for a model with recurrent layers (`None` otherwise). `cell` is the model's KV bytes
/// per token per rank over its attention layers.
pub(super) fn of(s: &Scenario, cell: u64) -> Option<Hybrid> {
    let m = &s.model;
    let state_layers = u64::from(m.linear_layers());
    let attention_layers = u64::from(m.kv_layers());
    if state_layers == 0 || attention_layers == 0 {
        return None;
    }
    let e = &s.engine;
    // Issue #17 (consistency): the release simulated (`crate::engine_release`; 0.19.0 without one).
    let version = e.release().version;
    let rel = release(&version);
    let rules = VllmHybridRules::for_release(rel.as_deref());
    let mut notes = Vec::new();
    if let Some(r) = rel.as_deref()
        && [r[0], r.get(1).copied().unwrap_or(0)] > NEWEST_READ
    {
        notes.push(format!(
            "vLLM {}: the hybrid state pages follow 0.28.0's rules (the newest release read)",
            version
        ));
    }
    let tp = super::dp_attention::attention_tp(e);
    // Issue #17 (mambadtype): vLLM `MambaStateDtypeCalculator._mamba_state_dtype` (0.11.0 / 0.19.0
    // `model_executor/layers/mamba/mamba_utils.py`): the conv state at `--mamba-cache-dtype` (`auto` =
    // the model dtype), the SSM state at `--mamba-ssm-cache-dtype`, whose `auto` is first replaced by
    // the model's config rule (`models/config.py`: Qwen3.5's `mamba_ssm_dtype` from 0.17, Nemotron-H's
    // default by release) and otherwise is the conv state's dtype.
    let md = &e.mamba_dtypes;
    let model_bytes = m.dtype.float_bytes().unwrap_or(2);
    let conv_bytes = md.cache.as_deref().map_or(model_bytes, mamba_dtype::bytes_of);
    let user_ssm = md.ssm.as_deref().map(mamba_dtype::bytes_of);
    let num_spec = s.speculative.as_ref().map_or(0, |sp| u64::from(sp.num_steps));
    // families22 (issue #17): LFM2's conv window (vLLM 0.11.1 `short_conv_state_shape`:
    // `(conv_kernel − 1, dim / tp)` at `short_conv_state_dtype` = --mamba-cache-dtype, `auto` the model
    // dtype; no SSM state, so --mamba-ssm-cache-dtype changes nothing).
    let state_page = if let Some(sc) = m.short_conv {
        sc.conv_state_bytes(tp, conv_bytes)
    } else {
        match (m.linear_attention, m.mamba2) {
            // families19 (issue #17): Kimi-Linear's KDA page (vLLM 0.19.0 `kda_state_shape` /
            // `kda_state_dtype`: three conv states at --mamba-cache-dtype, the recurrent state float32).
            (Some(g), _) if m.arch == tpsim_model::llm::Architecture::KimiLinear => {
                if let Some(name) = md.ssm.as_deref() {
                    notes.push(format!(
                        "vLLM: --mamba-ssm-cache-dtype='{name}' does not apply to Kimi-Linear's KDA layers \
                     (kda_state_dtype keeps the recurrent state float32)"
                    ));
                }
                tpsim_model::llm::kda_vllm_state_page(&g, tp, conv_bytes)
            }
            // families27 (issue #17): MiniMax's lightning page (vLLM 0.11.0 `linear_attention_state_shape`
            // / `linear_attention_state_dtype`: one heads / tp × head_dim × head_dim tensor at
            // --mamba-cache-dtype, `auto` the model dtype; `scenario::minimax01` refuses what vLLM does).
            (Some(g), _) if m.arch == tpsim_model::llm::Architecture::MiniMaxText01 => {
                tpsim_model::llm::lightning_vllm_state_page(&g, tp, conv_bytes)
            }
            (Some(g), _) => {
                let declared = g.declared_ssm_state_bytes.filter(|_| rules.gdn_ssm_from_config);
                // 0.19.0 `Qwen3_5ForConditionalGenerationConfig.verify_and_update_config` warns when the
                // flag differs from the config's name; tpsim keeps bytes only, so it names the float32 case
                // (the released Qwen3.5 configs') and stays silent on bfloat16 vs float16.
                if let (Some(4), Some(name)) = (declared, md.ssm.as_deref())
                    && name != "float32"
                {
                    notes.push(format!(
                        "vLLM: Qwen3.5 model specifies mamba_ssm_dtype='float32' in its config, but \
                     --mamba-ssm-cache-dtype='{name}' was passed. Using the user-specified value."
                    ));
                }
                // pro6k56: before 0.17 the Gated DeltaNet layers keep both states at
                // --mamba-cache-dtype (`VllmHybridRules::gdn_ssm_bytes`); the flag is not read.
                if let (false, Some(name)) = (rules.gdn_ssm_from_config, md.ssm.as_deref()) {
                    notes.push(format!(
                        "vLLM {version}: the Gated DeltaNet layers keep their SSM state at --mamba-cache-dtype \
                     (gated_delta_net_state_dtype takes no SSM dtype before 0.17.0): \
                     --mamba-ssm-cache-dtype='{name}' is not applied"
                    ));
                }
                let ssm = rules.gdn_ssm_bytes(user_ssm, declared, conv_bytes);
                gdn_state_page(&g, tp, num_spec, conv_bytes, ssm)
            }
            (None, Some(mb)) => {
                // hybrid50 (issue #17): the SSM default is a per-model rule of Nemotron-H alone. vLLM's
                // `MODELS_CONFIG_MAP` (`models/config.py`, the 0.13.0 – 0.28.0 wheels) maps only
                // `NemotronHForCausalLM` (with its Puzzle and Nano-VL variants) to
                // `NemotronHForCausalLMConfig`; 0.11.0 / 0.12.0 have no such entry. Granite-4.0-H
                // (`GraniteMoeHybridForCausalLM`) and Falcon-H1 (families20) have none at any release read,
                // and their `get_mamba_state_dtype_from_config` (`granitemoehybrid.py`, `falcon_h1.py`,
                // 0.11.0 / 0.19.0 / 0.28.0) passes both flags to `mamba2_state_dtype`: both states at
                // `--mamba-cache-dtype`, `auto` the model dtype.
                let config_rule = rules
                    .nemotron_ssm_default
                    .filter(|_| user_ssm.is_none() && m.arch == tpsim_model::llm::Architecture::NemotronH);
                if let Some(b) = config_rule {
                    notes.push(format!(
                        "vLLM: Updating mamba_ssm_cache_dtype to '{}' for NemotronH model",
                        dtype_name(b)
                    ));
                }
                let ssm = user_ssm.or(config_rule).unwrap_or(conv_bytes);
                mb.vllm_page_bytes(tp, conv_bytes, ssm)
            }
            (None, None) => return None,
        }
    };
    let attn_1_token = cell / attention_layers;
    let layout = vllm_hybrid_layout(
        &rules,
        attention_layers,
        attn_1_token,
        state_layers,
        state_page,
        e.page_size,
    );
    if layout.block_size_raised {
        notes.push(format!(
            "vLLM: Setting attention block size to {} tokens to ensure that attention page size is >= mamba page size.",
            layout.block_size
        ));
    }
    if let Some(pct) = layout.padding_pct() {
        notes.push(format!(
            "vLLM: Padding mamba page size by {pct:.2}% to ensure that mamba page size and attention page size are \
             exactly equal."
        ));
    }
    let prefix_caching = e.scheduler.prefix_cache;
    if prefix_caching && rules.prefix_caching_allowed && !rules.align_mode {
        notes.push(
            "state pages approximate: prefix caching on a hybrid before vLLM 0.15 keeps a state page per mamba block \
             of the chunk size; one page per request is counted"
                .into(),
        );
    }
    if s.speculative.is_some() {
        notes.push(format!(
            "state pages approximate with speculation: {num_spec} extra conv rows per Gated DeltaNet state and one \
             state block per speculative token are counted as vLLM's shapes give them; not checked against a log"
        ));
    }
    Some(Hybrid {
        state_pages: rules.state_pages(prefix_caching && rules.prefix_caching_allowed, num_spec),
        rules,
        layout,
        max_model_len: e.max_model_len.unwrap_or(e.context_len),
        attention_layers,
        state_layers,
        notes,
    })
}

/// vLLM's name of a state dtype of `bytes` per element (4 = float32; 2 = float16 here: the names
/// vLLM's config rules write, `mamba_ssm_dtype` / `mamba_ssm_cache_dtype`).
fn dtype_name(bytes: u64) -> &'static str {
    if bytes == 4 { "float32" } else { "float16" }
}

impl Hybrid {
    /// Whether vLLM runs the state groups in `mamba_cache_mode = "align"`: prefix caching on
    /// (`prefix_caching`, the scenario's) where the release allows it and has the mode (0.15
    /// onwards; `MambaModelConfig.verify_and_update_config`).
    pub fn align_mode(&self, prefix_caching: bool) -> bool {
        prefix_caching && self.rules.prefix_caching_allowed && self.rules.align_mode
    }

    /// vLLM's start-up refusal when one request of `max_model_len` does not fit in `available`
    /// bytes (`check_enough_kv_cache_memory`), with its estimate of the longest that does (binary
    /// search, as `estimate_max_model_len`).
    pub fn refusal(&self, available: u64) -> Option<String> {
        const GIB: f64 = (1u64 << 30) as f64;
        let need = |len: u64| {
            self.layout.needed_bytes(
                &self.rules,
                self.attention_layers,
                self.state_layers,
                len,
                self.state_pages,
            )
        };
        let len = self.max_model_len;
        if need(len) <= available {
            return None;
        }
        let (mut lo, mut hi, mut best) = (1u64, len, 0u64);
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            if need(mid) <= available {
                best = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        let estimate = if best > 0 {
            format!(" Based on the available memory, the estimated maximum model length is {best}.")
        } else {
            String::new()
        };
        Some(format!(
            "ValueError: To serve at least one request with the models's max seq len ({len}), ({:.2} GiB KV cache is \
             needed, which is larger than the available KV cache memory ({:.2} GiB).{estimate} Try increasing \
             `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
            need(len) as f64 / GIB,
            available as f64 / GIB
        ))
    }
}

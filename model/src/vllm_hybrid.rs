//! vLLM's KV-cache pages for hybrid attention + Mamba-2 / Gated DeltaNet models (issue #17, engine-exact
//! memory): Nemotron-H, Qwen3-Next, Qwen3.5 dense and MoE.
//!
//! vLLM puts each recurrent layer's per-request state in a KV-cache page of its own type (`MambaSpec`)
//! beside the attention layers' pages, all in one pool of equal-sized pages (read in the PyPI wheels
//! of every minor release 0.11.0 … 0.28.0; what changed between them is [`VllmHybridRules`]):
//!
//! 1. The state page of one layer for one request: the conv state (`(kernel − 1 + num_spec) × conv_dim
//!    / tp` elements) and the SSM state (`heads / tp × head_dim × state` elements) at their dtypes
//!    (`MambaStateShapeCalculator`, `MambaStateDtypeCalculator`; `MambaSpec.page_size_bytes`).
//! 2. The attention block size is raised so that one attention page holds a state page:
//!    `alignment × ⌈state page / (alignment × attention bytes per token per layer)⌉`, when the
//!    configured block size is smaller ("Setting attention block size to N tokens to ensure that
//!    attention page size is >= mamba page size."); the state page is then padded to the attention
//!    page ("Padding mamba page size by X% …"). 0.11.0 – 0.19.0 `models/config.py`
//!    `HybridAttentionMambaModelConfig.verify_and_update_config` (alignment 16); from 0.20.0
//!    `platforms/interface.py` `_align_hybrid_block_size` (alignment = max(the backend's smallest
//!    kernel block, 16 for FlashAttention / FlashInfer, and the configured block size)).
//! 3. The layers are grouped as for sliding-window models (`memory::vllm_kv_groups`): `num_blocks =
//!    available // page // group_size` (`get_num_blocks`).
//! 4. A request holds ⌈max_model_len / block⌉ blocks of each attention group and one block of each
//!    state group (two with prefix caching in `mamba_cache_mode = "align"`, 0.15 onwards; plus one per
//!    speculative token): `Maximum concurrency = num_blocks / that sum`
//!    (`get_max_concurrency_for_kv_cache_config`).
//! 5. "GPU KV cache size": `num_blocks // num_groups × block` up to 0.20 (`_report_kv_cache_config`),
//!    `int(concurrency × max_model_len)` from 0.21.0 (`get_kv_cache_capacity`).

use crate::memory::VllmKvGroups;

/// The smallest kernel block of vLLM's FlashAttention and FlashInfer backends
/// (`get_supported_kernel_block_sizes()` → `MultipleOf(16)`; the literal 16 in 0.11.0 / 0.19.0
/// `HybridAttentionMambaModelConfig`).
pub const KERNEL_BLOCK_ALIGNMENT: u64 = 16;

/// How a vLLM release sizes and reports a hybrid model's pages: the rules that changed between
/// releases, each with the first release that has it (every minor release 0.11.0 … 0.28.0 was read
/// for these files; [`VllmHybridRules::for_release`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VllmHybridRules {
    /// "GPU KV cache size" is `int(concurrency × max_model_len)` (from 0.21.0, `get_kv_cache_capacity`;
    /// before, `num_blocks // num_groups × block`).
    pub tokens_from_concurrency: bool,
    /// Prefix caching is on by default for hybrid models (from 0.26.0,
    /// `ModelConfig.is_prefix_caching_supported`: "Generative hybrid models support prefix caching.").
    pub prefix_caching_default: bool,
    /// Prefix caching can be turned on for hybrid models at all (0.11.0 `MambaModelConfig` turns it
    /// off: "Hybrid or mamba-based model detected: disabling prefix caching since it is not yet
    /// supported.").
    pub prefix_caching_allowed: bool,
    /// `mamba_cache_mode = "align"` exists (from 0.15.0): with prefix caching a state group holds two
    /// blocks per request (`MambaSpec.max_memory_usage_bytes`). Before, prefix caching on a hybrid
    /// sizes the state by mamba blocks of the chunk size (not modelled).
    pub align_mode: bool,
    /// Qwen3.5's SSM state takes the config's `mamba_ssm_dtype` (from 0.17.0,
    /// `Qwen3_5ForConditionalGenerationConfig`; before, both Gated DeltaNet states are at
    /// `--mamba-cache-dtype`, i.e. the model dtype).
    pub gdn_ssm_from_config: bool,
    /// Nemotron-H's SSM-state bytes when neither `--mamba-ssm-cache-dtype` nor the config's
    /// `mamba_ssm_cache_dtype` says (`NemotronHForCausalLMConfig`): `None` = the model dtype (up to
    /// 0.12), 2 = float16 (0.13 – 0.19), 4 = float32 (from 0.20.0).
    pub nemotron_ssm_default: Option<u64>,
    /// The kernel alignment of the block-size rule includes the configured block size (from 0.20.0,
    /// `platforms/interface.py` `_align_hybrid_block_size`: max(smallest kernel block, block_size)).
    pub alignment_includes_block_size: bool,
    /// The start-up check counts a request's bytes by group (from 0.14.0,
    /// `_max_memory_usage_bytes_from_groups`; before, by layer).
    pub check_by_groups: bool,
}

/// The newest release read; later ones get its rules, with a note from the caller.
pub const NEWEST_READ: [u64; 2] = [0, 28];

impl VllmHybridRules {
    /// The rules of release `[major, minor, …]`; `None` (a version text with no number) is 0.19.0,
    /// the release a scenario without `engine.version` means (`tpsim::engine_release`, which the
    /// simulator resolves before calling this).
    pub fn for_release(release: Option<&[u64]>) -> VllmHybridRules {
        let m = release.map_or([0, 19], |r| {
            [r.first().copied().unwrap_or(0), r.get(1).copied().unwrap_or(0)]
        });
        VllmHybridRules {
            tokens_from_concurrency: m >= [0, 21],
            prefix_caching_default: m >= [0, 26],
            prefix_caching_allowed: m >= [0, 12],
            align_mode: m >= [0, 15],
            gdn_ssm_from_config: m >= [0, 17],
            nemotron_ssm_default: match m {
                m if m < [0, 13] => None,
                m if m < [0, 20] => Some(2),
                _ => Some(4),
            },
            alignment_includes_block_size: m >= [0, 20],
            check_by_groups: m >= [0, 14],
        }
    }

    /// Bytes of one element of a Gated DeltaNet layer's SSM state, as vLLM allocates it and its
    /// decode kernel reads and writes it. `user_ssm`: `--mamba-ssm-cache-dtype` when not `auto`;
    /// `declared`: the config's `mamba_ssm_dtype`; `conv_bytes`: the conv state's (`--mamba-cache-dtype`,
    /// `auto` = the model dtype). pro6k56: up to 0.16 `MambaStateDtypeCalculator.gated_delta_net_state_dtype`
    /// takes only `--mamba-cache-dtype` and returns it for both states (vllm 0.11.0 / 0.15.1 / 0.16.0
    /// wheels, `model_executor/layers/mamba/mamba_utils.py`; `qwen3_next.py` `get_state_dtype` passes
    /// no SSM dtype); from 0.17.0 it also takes `--mamba-ssm-cache-dtype` (`_mamba_state_dtype`, the
    /// 0.17.0 / 0.19.0 / 0.28.0 wheels), whose `auto` the config rule replaces first
    /// ([`gdn_ssm_from_config`](Self::gdn_ssm_from_config)).
    pub fn gdn_ssm_bytes(&self, user_ssm: Option<u64>, declared: Option<u64>, conv_bytes: u64) -> u64 {
        if self.gdn_ssm_from_config {
            user_ssm.or(declared).unwrap_or(conv_bytes)
        } else {
            conv_bytes
        }
    }

    /// The kernel alignment of the block-size rule for a configured block size.
    pub fn alignment(&self, block_size: u64) -> u64 {
        if self.alignment_includes_block_size {
            KERNEL_BLOCK_ALIGNMENT.max(block_size)
        } else {
            KERNEL_BLOCK_ALIGNMENT
        }
    }

    /// State blocks a request holds in each state group (`MambaSpec.max_memory_usage_bytes`): from
    /// 0.15, 1 (2 with prefix caching, "align" mode) plus one per speculative token
    /// (`num_speculative_blocks`); before, ⌈max_model_len / mamba block⌉ with the mamba block =
    /// max_model_len, i.e. 1.
    pub fn state_pages(&self, prefix_caching: bool, num_spec: u64) -> u64 {
        if !self.align_mode {
            return 1;
        }
        let base = if prefix_caching { 2 } else { 1 };
        base + num_spec
    }
}

/// A hybrid model's layout in vLLM's pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VllmHybridLayout {
    /// Tokens per attention block after vLLM's adjustment.
    pub block_size: u64,
    /// Whether vLLM raised the configured block size (it logs the new size).
    pub block_size_raised: bool,
    /// One layer's page, bytes: block_size × attention bytes per token per layer (the state page is
    /// padded to it).
    pub page_bytes: u64,
    /// The unpadded state page, bytes.
    pub state_page_bytes: u64,
    /// The groups over [attention layers, recurrent layers].
    pub groups: VllmKvGroups,
    /// Groups of attention layers and of recurrent layers (their sum is `groups.num_groups`).
    pub attention_groups: u64,
    pub state_groups: u64,
}

/// The layout of `attention_layers` full-attention layers with `attn_bytes_per_token` bytes per token
/// per layer and `state_layers` recurrent layers with a `state_page` bytes page, at the configured
/// `block_size` under `rules` (module doc, steps 2–3). Nemotron-Nano-9B-v2 at tp 1, bf16 (0.11.0):
/// 4 attention layers of 4,096 B per token, 27 Mamba layers of 2,695,168 B → block 16 × ⌈2,695,168 /
/// 65,536⌉ = 672, page 2,752,512 B, groups of 4: 1 + 7.
pub fn vllm_hybrid_layout(
    rules: &VllmHybridRules,
    attention_layers: u64,
    attn_bytes_per_token: u64,
    state_layers: u64,
    state_page: u64,
    block_size: u64,
) -> VllmHybridLayout {
    let a = rules.alignment(block_size);
    let needed = a * state_page.div_ceil((a * attn_bytes_per_token).max(1));
    let block = needed.max(block_size);
    let groups = crate::memory::vllm_kv_groups(&[attention_layers, state_layers]);
    let gs = groups.group_size.max(1);
    VllmHybridLayout {
        block_size: block,
        block_size_raised: block > block_size,
        page_bytes: block * attn_bytes_per_token,
        state_page_bytes: state_page,
        groups,
        attention_groups: attention_layers.div_ceil(gs),
        state_groups: state_layers.div_ceil(gs),
    }
}

impl VllmHybridLayout {
    /// Bytes of one block: a page for each of `group_size` layers.
    pub fn block_bytes(&self) -> u64 {
        self.page_bytes * self.groups.group_size
    }

    /// `num_blocks` for `available` bytes: `available // page // group_size`.
    pub fn num_blocks(&self, available: u64) -> u64 {
        available / self.page_bytes.max(1) / self.groups.group_size.max(1)
    }

    /// Blocks one request of `max_model_len` tokens holds: ⌈len / block⌉ per attention group and
    /// `state_pages` per state group (1; 2 in "align" mode; + speculative blocks).
    pub fn blocks_per_request(&self, max_model_len: u64, state_pages: u64) -> u64 {
        // Saturating: a scenario's max_model_len near u64::MAX must be refused, not overflow.
        self.attention_groups
            .saturating_mul(max_model_len.div_ceil(self.block_size.max(1)))
            .saturating_add(self.state_groups.saturating_mul(state_pages))
    }

    /// "Maximum concurrency for L tokens per request": num_blocks / blocks per request.
    pub fn max_concurrency(&self, num_blocks: u64, max_model_len: u64, state_pages: u64) -> f64 {
        num_blocks as f64 / self.blocks_per_request(max_model_len, state_pages).max(1) as f64
    }

    /// "GPU KV cache size: N tokens" under `rules` (module doc, step 5).
    pub fn reported_tokens(
        &self,
        rules: &VllmHybridRules,
        num_blocks: u64,
        max_model_len: u64,
        state_pages: u64,
    ) -> u64 {
        if rules.tokens_from_concurrency {
            (self.max_concurrency(num_blocks, max_model_len, state_pages) * max_model_len as f64) as u64
        } else {
            self.groups.reported_tokens(num_blocks, self.block_size)
        }
    }

    /// Bytes one request of `max_model_len` needs, as vLLM's start-up check
    /// (`check_enough_kv_cache_memory`) counts them: by layer up to 0.13 (`attention_layers ×
    /// ⌈len / block⌉ + state_layers × state_pages` pages), by group from 0.14
    /// (`_max_memory_usage_bytes_from_groups`: group_size × page × blocks per request).
    pub fn needed_bytes(
        &self,
        rules: &VllmHybridRules,
        attention_layers: u64,
        state_layers: u64,
        max_model_len: u64,
        state_pages: u64,
    ) -> u64 {
        if rules.check_by_groups {
            // Saturating, as `blocks_per_request`: a huge max_model_len needs "more than any GPU".
            self.block_bytes()
                .saturating_mul(self.blocks_per_request(max_model_len, state_pages))
        } else {
            let pages = attention_layers
                .saturating_mul(max_model_len.div_ceil(self.block_size.max(1)))
                .saturating_add(state_layers.saturating_mul(state_pages));
            pages.saturating_mul(self.page_bytes)
        }
    }

    /// "Padding mamba page size by X% …": (page − state page) / state page × 100, when padded.
    pub fn padding_pct(&self) -> Option<f64> {
        (self.page_bytes > self.state_page_bytes && self.state_page_bytes > 0)
            .then(|| 100.0 * (self.page_bytes - self.state_page_bytes) as f64 / self.state_page_bytes as f64)
    }
}

/// Gated DeltaNet's state page of one layer for one request on one rank (vLLM
/// `MambaStateShapeCalculator.gated_delta_net_state_shape`): conv `(kernel − 1 + num_spec) × conv_dim
/// / tp` at `conv_bytes`, SSM `num_v_heads / tp × head_k_dim × head_v_dim` at `ssm_bytes`.
/// Qwen3.5-9B at tp 1, bf16 conv, fp32 SSM: 3 × 8,192 × 2 + 32 × 128 × 128 × 4 = 2,146,304.
pub fn gdn_state_page(
    g: &crate::llm::GatedDeltaNet,
    tp: u32,
    num_spec: u64,
    conv_bytes: u64,
    ssm_bytes: u64,
) -> u64 {
    let t = u64::from(tp.max(1));
    let conv = (g.conv_kernel.saturating_sub(1) + num_spec) * (g.conv_dim() / t) * conv_bytes;
    let ssm = (g.num_v_heads / t) * g.head_k_dim * g.head_v_dim * ssm_bytes;
    conv + ssm
}

#[cfg(test)]
mod tests;

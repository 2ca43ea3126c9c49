//! The quantization a checkpoint declares itself (issue #16): `quantization_config` in its
//! `config.json`, or TensorRT Model Optimizer's `hf_quant_config.json`, mapped to tpsim's
//! [`Quantization`] so that a preset's `quant.toml` can say `from = "config"` and get the bytes the
//! engine loads. Explicit `quant.toml` files keep working unchanged.
//!
//! What is read, per `quant_method` (the keys as the engines read them; vLLM 0.11.0 and SGLang 0.5.9
//! `layers/quantization/`):
//! - `fp8` (`fp8.py` `Fp8Config.from_config`): `weight_block_size = [r, c]` → fp8 with fp32 scales
//!   per r×c block (`weight_scale_inv`); absent → one fp32 scale per tensor. `scale_fmt = "ue8m0"`
//!   (DeepSeek-V3.1/V3.2) constrains the values of the same fp32 scales to powers of two; the bytes
//!   loaded are the same. `modules_to_not_convert` / `ignored_layers`: see `Kept`.
//! - `compressed-tensors` (`compressed_tensors.py` `_quantization_scheme_map_from_config`): one
//!   `config_groups` scheme for the `Linear` targets; its `weights` give
//!   `num_bits`/`type`/`strategy`/`group_size`/`symmetric`/`block_structure`: int 4 group → int4 with
//!   model-dtype scales (+ packed zero points when asymmetric); int 8 channel → int8 with one fp32
//!   scale per row (W8A8 INT8, `compressed_tensors_w8a8_int8.py` `ChannelQuantScaleParameter`
//!   float32); float 8 tensor/channel/block → fp8 likewise; float 4 group 16 → nvfp4. `ignore`: see
//!   `Kept`.
//! - `gptq` (`gptq_marlin.py`): `bits = 4`, `group_size`, `sym` → int4, fp16 scales, zero points when
//!   `sym = false` (Marlin drops them for symmetric checkpoints after loading). `desc_act`'s int32
//!   `g_idx` (4 B per input column per tensor) is not counted.
//! - `awq` (`awq_marlin.py`): `bits = 4`, `group_size`, `zero_point` → int4, fp16 scales.
//! - `mxfp4` (gpt-oss, `mxfp4.py`): routed experts mxfp4, the rest at the model dtype (the
//!   checkpoint's `modules_to_not_convert` lists attention, router, embeddings and LM head); no engine
//!   padding (write `pad_hidden` / `pad_intermediate` in an explicit `quant.toml` for that).
//! - ModelOpt `hf_quant_config.json` (`modelopt_quant.py` `ModelOptFp8Config` / `ModelOptFp4Config`):
//!   `quantization.quant_algo` FP8 → fp8 with one fp32 scale per tensor; NVFP4 → nvfp4;
//!   `exclude_modules` as `ignore`; `kv_cache_quant_algo = "FP8"` → KV cache fp8 e4m3 (see
//!   [`modelopt_kv`]). Issue #17 (attnquant17): the same in config.json (`quant_method` `modelopt`,
//!   the flat format: `quant_algo`, `ignore`, `kv_cache_quant_algo` or `kv_cache_scheme`), which both
//!   engines read before `hf_quant_config.json` (vLLM 0.14.1 `transformers_utils/config.py`: the
//!   sidecar only when config.json has no `quantization_config`).
//!
//! Issue #17 (attnquant17): which modules an ignore list keeps unquantized is decided per module
//! group (attention, dense MLP, shared experts, routed experts) and per layer, by matching each entry
//! against the group's checkpoint module names the way the engines match them (`engine_excludes`);
//! each group gets its own format (`Quantization::dense_mlp` / `shared_experts` / `experts`). A group
//! kept in some layers and quantized in others is refused: tpsim has one format a group.

use serde_json::Value;

use super::ModelError;
use super::quant::{KvCacheDtype, NVFP4_BLOCK, Quantization, ScaleDtype, WeightDtype, WeightFormat};

fn bad(field: &str, expected: impl Into<String>) -> ModelError {
    ModelError::InvalidQuantization {
        field: field.to_string(),
        expected: expected.into(),
    }
}

/// Which decoder linear layers a checkpoint's ignore list keeps unquantized, beyond the parts tpsim
/// always keeps at the model dtype (embeddings, LM head, norms, router, MTP glue; the NSA indexer
/// where the list is matched by module name: [`engine_kept`] reads its GEMMs apart, `indexer`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Kept {
    attention: bool,
    shared_experts: bool,
    dense_mlp: bool,
    routed_experts: bool,
    /// presets58 (issue #17): the attention kept in part, the same projections in every layer
    /// (nvidia/DeepSeek-V3.1-NVFP4 keeps q_a/q_b/kv_a/kv_b, quantizes o_proj).
    attention_part: Option<AttnKept>,
    /// presets62 (issue #17): the DSA indexer's `wq_b` / `wk` kept in every layer
    /// (`…self_attn.indexer*` in nvidia/DeepSeek-V3.2-NVFP4's and GLM-5-NVFP4's `exclude_modules`).
    indexer: bool,
}

/// presets58 (issue #17): which attention projections an ignore list keeps, by the formats tpsim
/// stores apart (`Quantization::mla_down` and `Quantization::projections`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct AttnKept {
    /// MLA `q_a_proj` and `kv_a_proj_with_mqa` (one fused GEMM).
    mla_down: bool,
    /// `q_proj` / `k_proj` / `v_proj` (one fused GEMM), or MLA's `q_proj`.
    qkv: bool,
    q_b: bool,
    kv_b: bool,
    o: bool,
}

impl AttnKept {
    /// The projections kept among one layer's attention modules `modules` (checkpoint names) whose
    /// kept flags are `kept`; a fused GEMM kept in part is refused with vLLM 0.11.0's text
    /// (`quantization/utils/quant_utils.py` `is_layer_skipped`).
    fn of_layer(modules: &[String], kept: &[bool], field: &str) -> Result<AttnKept, ModelError> {
        let mut out = AttnKept::default();
        let mut fused: [(Option<bool>, &str); 2] = [(None, "qkv_proj"), (None, "fused_qkv_a_proj_with_mqa")];
        for (m, &k) in modules.iter().zip(kept) {
            let last = m.rsplit('.').next().unwrap_or(m);
            let slot = match last {
                "q_proj" | "k_proj" | "v_proj" => {
                    out.qkv |= k;
                    Some(0)
                }
                "q_a_proj" | "kv_a_proj_with_mqa" => {
                    out.mla_down |= k;
                    Some(1)
                }
                "q_b_proj" => {
                    out.q_b = k;
                    None
                }
                "kv_b_proj" => {
                    out.kv_b = k;
                    None
                }
                "o_proj" => {
                    out.o = k;
                    None
                }
                _ => {
                    return Err(bad(
                        field,
                        format!(
                            "`{m}` kept unquantized apart from the rest of its attention: tpsim stores \
                             q/k/v, the MLA down- and up-projections and o_proj apart only, write \
                             quant.toml explicitly"
                        ),
                    ));
                }
            };
            if let Some(i) = slot {
                match fused[i].0 {
                    Some(prev) if prev != k => {
                        let prefix = m.rsplit_once('.').map_or(m.as_str(), |(p, _)| p);
                        return Err(bad(
                            field,
                            format!(
                                "Detected some but not all shards of {prefix}.{} are quantized. All shards \
                                 of fused layers to have the same precision. (vLLM 0.11.0 \
                                 `is_layer_skipped`)",
                                fused[i].1
                            ),
                        ));
                    }
                    _ => fused[i].0 = Some(k),
                }
            }
        }
        Ok(out)
    }
}

/// Module-name fragments tpsim always keeps at the model dtype (`llm::quant` module doc): an ignore
/// entry containing one of them changes nothing.
const ALWAYS_UNQUANTIZED: [&str; 11] = [
    "lm_head",
    "embed_tokens",
    "norm",
    ".gate.",
    "router",
    "e_score_correction_bias",
    "indexer",
    "eh_proj",
    "shared_head",
    "vision",
    "visual",
];

fn classify(config: &Value, list: Option<&Value>, field: &str) -> Result<Kept, ModelError> {
    let mut kept = Kept::default();
    let Some(list) = list else {
        return Ok(kept);
    };
    let items = list
        .as_array()
        .ok_or_else(|| bad(field, "a list of module names"))?;
    let mut regexes = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item
            .as_str()
            .ok_or_else(|| bad(&format!("{field}[{i}]"), "a module name (string)"))?;
        // rope17 (issue #17): a `re:` entry is a regular expression, matched against the module
        // names as the engines match it (`Pattern`), not classified by its text.
        if name.starts_with("re:") {
            regexes.push((i, name));
            continue;
        }
        let n = name;
        if n == "gate" || n.ends_with(".gate") || ALWAYS_UNQUANTIZED.iter().any(|k| n.contains(k)) {
            continue;
        }
        if n.contains("shared_expert") {
            kept.shared_experts = true;
        } else if n.contains("experts") {
            kept.routed_experts = true;
        } else if n.contains("attn") || n.contains("attention") {
            kept.attention = true;
        } else if n.contains("mlp") {
            kept.dense_mlp = true;
        } else {
            return Err(bad(
                &format!("{field}[{i}]"),
                format!(
                    "a module tpsim can place (`{name}` is none of attention, mlp, shared or routed \
                     experts, or the always-unquantized lm_head/embed/norm/router): write quant.toml \
                     explicitly"
                ),
            ));
        }
    }
    if !regexes.is_empty() {
        let (r, _) = kept_by_patterns(config, &regexes, field)?;
        kept.attention |= r.attention;
        kept.dense_mlp |= r.dense_mlp;
        kept.shared_experts |= r.shared_experts;
        kept.routed_experts |= r.routed_experts;
        kept.attention_part = kept.attention_part.or(r.attention_part);
        kept.indexer |= r.indexer;
    }
    Ok(kept)
}

/// rope17 (issue #17): one ignore entry, ready to match module names. `re:PATTERN` is a regular
/// expression matched from the start of the name as Python's `re.match` does (vLLM 0.11.0
/// `compressed_tensors/utils.py` `_is_equal_or_regex_match`, used by `should_ignore_layer` and
/// `find_matched_target`; SGLang 0.5.9's copy of the same file); any other entry is matched by
/// [`engine_excludes`]. Rust's `regex` crate (already in the workspace's lock) is used because the
/// published lists are regular expressions (`.*`, `$`, `[.]`): a hand-written glob would misread
/// them; a pattern it cannot compile (Python-only syntax such as look-arounds) is refused.
enum Pattern<'a> {
    Regex(regex::Regex),
    Name(&'a str),
}

impl<'a> Pattern<'a> {
    fn new(name: &'a str, field: &str) -> Result<Self, ModelError> {
        match name.strip_prefix("re:") {
            Some(p) => regex::Regex::new(&format!(r"\A(?:{p})"))
                .map(Pattern::Regex)
                .map_err(|e| bad(field, format!("a regular expression after `re:` (`{p}`: {e})"))),
            None => Ok(Pattern::Name(name)),
        }
    }

    fn excludes(&self, module: &str) -> bool {
        match self {
            Pattern::Regex(r) => r.is_match(module),
            Pattern::Name(p) => engine_excludes(p, module),
        }
    }
}

/// Module names of the parts tpsim always keeps at the model dtype, for a `re:` entry that matches
/// no quantizable module: the entry is accepted when it matches one of them (`re:.*lm_head`,
/// `re:.*mlp.gate$`, `re:visual.*`, …).
const ALWAYS_UNQUANTIZED_MODULES: [&str; 18] = [
    "lm_head",
    "model.embed_tokens",
    "model.norm",
    "model.layers.0.input_layernorm",
    "model.layers.0.post_attention_layernorm",
    "model.layers.0.mlp.gate",
    "model.layers.0.mlp.shared_expert_gate",
    "model.layers.0.block_sparse_moe.gate",
    "model.layers.0.mlp.router",
    "model.layers.0.feed_forward.router",
    "model.visual.blocks.0.attn.qkv",
    "visual.blocks.0.attn.qkv",
    "model.vision_tower.encoder",
    "vision_tower.encoder",
    "vision_model.encoder",
    "model.multi_modal_projector.linear_1",
    "multi_modal_projector.linear_1",
    "mtp.layers.0.eh_proj",
];

/// The model's own float dtype (`torch_dtype`, else `dtype`, else bf16).
fn model_dtype(config: &Value) -> WeightDtype {
    let text = config.get("text_config").unwrap_or(config);
    config
        .get("torch_dtype")
        .or_else(|| config.get("dtype"))
        .or_else(|| text.get("torch_dtype"))
        .or_else(|| text.get("dtype"))
        .and_then(Value::as_str)
        .and_then(WeightDtype::from_torch)
        .unwrap_or(WeightDtype::Bf16)
}

/// presets62: a DSA model (DeepSeek-V3.2, GLM-5): every layer has the lightning indexer (`llm::dsa`).
fn is_dsa(config: &Value) -> bool {
    let text = config.get("text_config").unwrap_or(config);
    text.get("index_n_heads")
        .and_then(Value::as_u64)
        .is_some_and(|n| n > 0)
}

fn is_moe(config: &Value) -> bool {
    let text = config.get("text_config").unwrap_or(config);
    ["n_routed_experts", "num_experts", "num_local_experts"]
        .iter()
        .any(|k| text.get(k).and_then(Value::as_u64).is_some_and(|n| n > 1))
}

fn has_shared_experts(config: &Value) -> bool {
    let text = config.get("text_config").unwrap_or(config);
    ["n_shared_experts", "shared_expert_intermediate_size"]
        .iter()
        .any(|k| text.get(k).and_then(Value::as_u64).is_some_and(|n| n > 0))
}

/// Places `q` by what the ignore list keeps: each module group (attention, dense MLP, shared
/// experts, routed experts) is `q` unless kept, then the model dtype. The attention's format is the
/// default (`weights`); a group stored otherwise gets its own override.
fn place(config: &Value, q: WeightFormat, kept: Kept, _field: &str) -> Result<Quantization, ModelError> {
    let plain = WeightFormat::plain(model_dtype(config));
    let pick = |k: bool| if k { plain } else { q };
    let mut out = Quantization::bf16();
    out.weights = pick(kept.attention);
    // presets58 (issue #17): the projections kept apart from a quantized attention.
    if let Some(a) = kept.attention_part {
        let keep = |k: bool| k.then_some(plain);
        out.mla_down = keep(a.mla_down);
        out.projections.qkv_proj = keep(a.qkv);
        out.projections.q_b_proj = keep(a.q_b);
        out.projections.kv_b_proj = keep(a.kv_b);
        out.projections.o_proj = keep(a.o);
    }
    let differs = |f: WeightFormat| (f != out.weights).then_some(f);
    let text = config.get("text_config").unwrap_or(config);
    // presets62 (issue #17): the DSA indexer's GEMMs follow the list on their own (`indexer*`).
    if is_dsa(config) {
        out.projections.indexer = differs(pick(kept.indexer));
    }
    let dense_layers = !is_moe(config)
        || text
            .get("first_k_dense_replace")
            .and_then(Value::as_u64)
            .is_some_and(|k| k > 0);
    if dense_layers {
        out.dense_mlp = differs(pick(kept.dense_mlp));
    }
    if is_moe(config) {
        if has_shared_experts(config) {
            out.shared_experts = differs(pick(kept.shared_experts));
        }
        out.experts = differs(pick(kept.routed_experts));
    }
    Ok(out)
}

/// Issue #17 (attnquant17): whether the engines keep module `name` unquantized for one ignore /
/// `exclude_modules` entry `pattern`: the union of SGLang 0.5.9's and vLLM 0.12.0's rules, which agree
/// on every list tpsim reads:
/// - `pattern` a substring of `name` (SGLang `quantization/utils.py` `is_layer_skipped`, vLLM
///   `is_layer_skipped` and `ModelOptQuantConfigBase.is_layer_excluded`'s substring loop);
/// - `pattern` a glob (`*` any run of characters, dots included) matching all of `name` (SGLang
///   `ModelOptQuantConfig.is_layer_excluded`: `*` → `.*`, `re.fullmatch`; vLLM `fnmatch`) or one of its
///   dot-separated parts (SGLang 0.5.9's part-by-part check, `mtp*`).
///
/// `name` is a checkpoint module name under `model.layers.N.`; a multimodal wrapper's prefixes are
/// dropped from `pattern` first (`language_model.`, `model.language_model.` → `model.`), as the
/// engines' weight-name mappers do (SGLang 0.5.9 `apply_weight_name_mapper` adds each
/// `language_model.` entry without the prefix; vLLM `apply_vllm_mapper`).
fn engine_excludes(pattern: &str, name: &str) -> bool {
    let p = normalise(pattern);
    name.contains(p.as_str()) || glob(&p, name) || name.split('.').any(|part| glob(&p, part))
}

fn normalise(pattern: &str) -> String {
    if let Some(rest) = pattern.strip_prefix("language_model.") {
        rest.to_string()
    } else if let Some(rest) = pattern.strip_prefix("model.language_model.") {
        format!("model.{rest}")
    } else {
        pattern.to_string()
    }
}

/// `*`-glob full match (`*` matches any run of characters; every other character itself).
fn glob(pattern: &str, s: &str) -> bool {
    let mut parts = pattern.split('*');
    let Some(first) = parts.next() else {
        return s.is_empty();
    };
    let Some(mut rest) = s.strip_prefix(first) else {
        return false;
    };
    let tail: Vec<&str> = parts.collect();
    let Some((last, middle)) = tail.split_last() else {
        return rest.is_empty();
    };
    for m in middle {
        match rest.find(m) {
            Some(i) => rest = &rest[i + m.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The checkpoint module names of each group in layer `i` (HuggingFace names, before the engines'
/// fusing: an engine's fused `qkv_proj` / `gate_up_proj` is excluded when its shards are).
fn group_modules(config: &Value, i: u64) -> [(Group, Vec<String>); 4] {
    let text = config.get("text_config").unwrap_or(config);
    let at = |m: &str| format!("model.layers.{i}.{m}");
    let moe = is_moe(config);
    let k = text
        .get("first_k_dense_replace")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let linear = text
        .get("layer_types")
        .and_then(Value::as_array)
        .and_then(|t| t.get(usize::try_from(i).ok()?))
        .and_then(Value::as_str)
        == Some("linear_attention");
    let attention: Vec<String> = if linear {
        ["in_proj_qkvz", "in_proj_ba", "out_proj"]
            .iter()
            .map(|m| at(&format!("linear_attn.{m}")))
            .collect()
    } else if text.get("kv_lora_rank").is_some_and(|v| !v.is_null()) {
        let q = if text.get("q_lora_rank").is_some_and(|v| !v.is_null()) {
            &["q_a_proj", "q_b_proj"][..]
        } else {
            &["q_proj"][..]
        };
        q.iter()
            .chain(&["kv_a_proj_with_mqa", "kv_b_proj", "o_proj"])
            .map(|m| at(&format!("self_attn.{m}")))
            .collect()
    } else {
        ["q_proj", "k_proj", "v_proj", "o_proj"]
            .iter()
            .map(|m| at(&format!("self_attn.{m}")))
            .collect()
    };
    let mlp = |under: &str| -> Vec<String> {
        ["gate_proj", "up_proj", "down_proj"]
            .iter()
            .map(|m| at(&format!("{under}.{m}")))
            .collect()
    };
    let dense = if !moe || i < k { mlp("mlp") } else { Vec::new() };
    let shared = if moe && i >= k && has_shared_experts(config) {
        // DeepSeek-V3 / Kimi `mlp.shared_experts`; Qwen2-MoE / Qwen3.5 `mlp.shared_expert`.
        if text
            .get("n_shared_experts")
            .and_then(Value::as_u64)
            .is_some_and(|n| n > 0)
        {
            mlp("mlp.shared_experts")
        } else {
            mlp("mlp.shared_expert")
        }
    } else {
        Vec::new()
    };
    let block_sparse = ["MiniMaxM2ForCausalLM", "MixtralForCausalLM"].iter().any(|a| {
        config
            .get("architectures")
            .and_then(Value::as_array)
            .is_some_and(|arr| arr.iter().any(|x| x.as_str() == Some(a)))
    });
    let routed = if moe && i >= k {
        if block_sparse {
            ["w1", "w2", "w3"]
                .iter()
                .map(|m| at(&format!("block_sparse_moe.experts.0.{m}")))
                .collect()
        } else {
            mlp("mlp.experts.0")
        }
    } else {
        Vec::new()
    };
    [
        (Group::Attention, attention),
        (Group::DenseMlp, dense),
        (Group::SharedExperts, shared),
        (Group::RoutedExperts, routed),
    ]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Attention,
    DenseMlp,
    SharedExperts,
    RoutedExperts,
}

impl Group {
    fn name(self) -> &'static str {
        match self {
            Group::Attention => "attention",
            Group::DenseMlp => "dense MLP",
            Group::SharedExperts => "shared experts",
            Group::RoutedExperts => "routed experts",
        }
    }
}

/// Issue #17 (attnquant17): what an ignore list keeps, matched as the engines match it
/// ([`engine_excludes`]) against every layer's modules. A group kept in every layer that has it is
/// kept; kept in none, quantized; anything between (some layers, or some of a layer's projections)
/// is refused. An entry matching no module must name a part tpsim always keeps at the model dtype
/// (LM head, embeddings, norms, routers, vision tower and projector) or the MTP layers (then
/// returned: `true` = the MTP layers are kept); else it is refused.
fn engine_kept(config: &Value, list: Option<&Value>, field: &str) -> Result<(Kept, bool), ModelError> {
    let Some(list) = list else {
        return Ok((Kept::default(), false));
    };
    let items = list
        .as_array()
        .ok_or_else(|| bad(field, "a list of module names"))?;
    let mut patterns = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let name = item
            .as_str()
            .ok_or_else(|| bad(&format!("{field}[{i}]"), "a module name (string)"))?;
        // A router (`gate`, `….gate`) or a shared expert's gate (Qwen3.5 `mlp.shared_expert_gate`)
        // is no quantized module in tpsim (always the model dtype).
        if name == "gate" || name.ends_with(".gate") || name.ends_with("_gate") {
            continue;
        }
        patterns.push((i, name));
    }
    kept_by_patterns(config, &patterns, field)
}

/// [`engine_kept`] for the entries `(index, entry)` of the list at `field`.
fn kept_by_patterns(
    config: &Value,
    patterns: &[(usize, &str)],
    field: &str,
) -> Result<(Kept, bool), ModelError> {
    let compiled = patterns
        .iter()
        .map(|&(i, p)| Pattern::new(p, &format!("{field}[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let text = config.get("text_config").unwrap_or(config);
    let layers = text.get("num_hidden_layers").and_then(Value::as_u64).unwrap_or(0);
    let mut used = vec![false; patterns.len()];
    // Per group: layers where it exists, layers where all of its modules are kept.
    let mut count = [(0u64, 0u64); 4];
    let mut attention_part: Option<AttnKept> = None;
    let mut part_layers = 0u64;
    // presets62 (issue #17): layers whose DSA indexer GEMMs (`wq_b`, `wk`) the list keeps; SGLang 0.5.9
    // `nsa_indexer.py` builds both as `ReplicatedLinear` under the checkpoint's quant config, each
    // matched by its own prefix (`…self_attn.indexer.wq_b`).
    let mut indexer_layers = 0u64;
    for l in 0..layers {
        if is_dsa(config) {
            let mut hits = [false; 2];
            for (h, m) in hits.iter_mut().zip(["wq_b", "wk"]) {
                let name = format!("model.layers.{l}.self_attn.indexer.{m}");
                for (j, p) in compiled.iter().enumerate() {
                    if p.excludes(&name) {
                        used[j] = true;
                        *h = true;
                    }
                }
            }
            if hits[0] != hits[1] {
                return Err(bad(
                    field,
                    format!(
                        "the indexer of layer {l} kept unquantized in part (wq_b and wk apart): tpsim has one \
                         format for both, write quant.toml explicitly"
                    ),
                ));
            }
            indexer_layers += u64::from(hits[0]);
        }
        for (g, (group, modules)) in group_modules(config, l).into_iter().enumerate() {
            if modules.is_empty() {
                continue;
            }
            let mut hits = Vec::with_capacity(modules.len());
            for m in &modules {
                let mut hit = false;
                for (j, p) in compiled.iter().enumerate() {
                    if p.excludes(m) {
                        used[j] = true;
                        hit = true;
                    }
                }
                hits.push(hit);
            }
            let matched = hits.iter().filter(|h| **h).count();
            // presets58 (issue #17): the attention kept in part: the same projections in every layer
            // are stored apart (`AttnKept`); counted as quantized for the group.
            if group == Group::Attention && matched != 0 && matched != modules.len() {
                let a = AttnKept::of_layer(&modules, &hits, field)?;
                if attention_part.is_some_and(|p| p != a) {
                    return Err(bad(
                        field,
                        format!(
                            "the attention of layer {l} kept unquantized in other projections than an earlier \
                             layer's: tpsim has one format per projection, write quant.toml explicitly"
                        ),
                    ));
                }
                attention_part = Some(a);
                part_layers += 1;
                count[g].0 += 1;
                continue;
            }
            if matched != 0 && matched != modules.len() {
                return Err(bad(
                    field,
                    format!(
                        "the {} of layer {l} kept unquantized in part ({matched} of {} projections):                          tpsim has one format per module group, write quant.toml explicitly",
                        group.name(),
                        modules.len()
                    ),
                ));
            }
            count[g].0 += 1;
            count[g].1 += u64::from(matched != 0);
        }
    }
    let groups = [
        Group::Attention,
        Group::DenseMlp,
        Group::SharedExperts,
        Group::RoutedExperts,
    ];
    for (g, (present, kept)) in count.iter().enumerate() {
        if *kept != 0 && kept != present {
            return Err(bad(
                field,
                format!(
                    "the {} kept unquantized in {kept} of {present} layers: tpsim has one format per                      module group, write quant.toml explicitly",
                    groups[g].name()
                ),
            ));
        }
    }
    if part_layers != 0 && part_layers != count[0].0 {
        return Err(bad(
            field,
            format!(
                "the attention kept unquantized in part in {part_layers} of {} layers: tpsim has one format \
                 per projection, write quant.toml explicitly",
                count[0].0
            ),
        ));
    }
    if indexer_layers != 0 && indexer_layers != layers {
        return Err(bad(
            field,
            format!(
                "the indexer kept unquantized in {indexer_layers} of {layers} layers: tpsim has one format \
                 for every layer's indexer, write quant.toml explicitly"
            ),
        ));
    }
    let mut mtp = false;
    for (j, (i, name)) in patterns.iter().enumerate() {
        if used[j] {
            continue;
        }
        if let Pattern::Regex(r) = &compiled[j]
            && ALWAYS_UNQUANTIZED_MODULES.iter().any(|m| r.is_match(m))
        {
            mtp |= r.is_match("mtp.layers.0.eh_proj");
            continue;
        }
        let n = normalise(name);
        let beyond = n
            .strip_prefix("model.layers.")
            .and_then(|r| r.split(['.', '*']).next())
            .and_then(|d| d.parse::<u64>().ok())
            .is_some_and(|d| d >= layers);
        if n.starts_with("mtp") || beyond {
            mtp = true;
            continue;
        }
        // presets56: `multi_modal_projector` is Mistral 3's / LLaVA's projector (Devstral Small 2's
        // `modules_to_not_convert`), counted at the model dtype as Kimi's `mm_projector` (`llm::vlm`).
        if n.contains("mm_projector")
            || n.contains("multi_modal_projector")
            || ALWAYS_UNQUANTIZED.iter().any(|k| n.contains(k))
        {
            continue;
        }
        return Err(bad(
            &format!("{field}[{i}]"),
            format!(
                "a module tpsim can place (`{name}` matches none of the attention, dense MLP, shared or                  routed experts, and is none of the always-unquantized lm_head/embed/norm/router/vision                  or the MTP layers): write quant.toml explicitly"
            ),
        ));
    }
    let kept = |g: usize| count[g].0 > 0 && count[g].1 == count[g].0;
    Ok((
        Kept {
            attention: kept(0),
            dense_mlp: kept(1),
            shared_experts: kept(2),
            routed_experts: kept(3),
            attention_part,
            indexer: indexer_layers != 0,
        },
        mtp,
    ))
}

fn req_u64(v: &Value, key: &str, field: &str) -> Result<u64, ModelError> {
    v.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| bad(&format!("{field}.{key}"), "a non-negative integer"))
}

fn group_u32(g: u64, field: &str) -> Result<u32, ModelError> {
    u32::try_from(g)
        .ok()
        .filter(|g| *g > 0)
        .ok_or_else(|| bad(field, "a positive group size (e.g. 32 or 128)"))
}

/// `fp8` (`Fp8Config`).
fn fp8(qc: &Value) -> Result<WeightFormat, ModelError> {
    let mut f = WeightFormat::plain(WeightDtype::Fp8);
    if let Some(b) = qc.get("weight_block_size").filter(|b| !b.is_null()) {
        let arr = b
            .as_array()
            .filter(|a| a.len() == 2)
            .and_then(|a| Some([a[0].as_u64()?, a[1].as_u64()?]))
            .and_then(|[r, c]| Some([u32::try_from(r).ok()?, u32::try_from(c).ok()?]))
            .filter(|[r, c]| *r > 0 && *c > 0)
            .ok_or_else(|| {
                bad(
                    "quantization_config.weight_block_size",
                    "two positive integers, e.g. [128, 128]",
                )
            })?;
        f.block_size = Some(arr);
        f.scale_dtype = Some(ScaleDtype::Fp32);
    }
    Ok(f)
}

/// One compressed-tensors weight scheme.
fn compressed_weights(w: &Value, scale: ScaleDtype, field: &str) -> Result<WeightFormat, ModelError> {
    let bits = req_u64(w, "num_bits", field)?;
    let ty = w.get("type").and_then(Value::as_str).unwrap_or("int");
    let strategy = w.get("strategy").and_then(Value::as_str).unwrap_or("tensor");
    let symmetric = w.get("symmetric").and_then(Value::as_bool).unwrap_or(true);
    let group = w.get("group_size").and_then(Value::as_u64);
    match (ty, bits, strategy) {
        ("int", 4, "group") => {
            let g = group_u32(group.unwrap_or(0), &format!("{field}.group_size"))?;
            let mut f = WeightFormat::plain(WeightDtype::Int4);
            f.group_size = Some(g);
            f.scale_dtype = Some(scale);
            f.zero_point = !symmetric;
            Ok(f)
        }
        ("float", 4, "tensor_group" | "group") if group.is_none_or(|g| g == NVFP4_BLOCK) => {
            Ok(WeightFormat::plain(WeightDtype::Nvfp4))
        }
        ("int" | "float", 8, "channel" | "tensor" | "block") => {
            let mut f = WeightFormat::plain(if ty == "int" {
                WeightDtype::Int8
            } else {
                WeightDtype::Fp8
            });
            f.scale_dtype = Some(ScaleDtype::Fp32);
            match strategy {
                "channel" => f.per_channel = true,
                "block" => {
                    f.block_size = Some(
                        w.get("block_structure")
                            .and_then(Value::as_array)
                            .filter(|a| a.len() == 2)
                            .and_then(|a| Some([a[0].as_u64()?, a[1].as_u64()?]))
                            .and_then(|[r, c]| Some([u32::try_from(r).ok()?, u32::try_from(c).ok()?]))
                            .filter(|[r, c]| *r > 0 && *c > 0)
                            .ok_or_else(|| {
                                bad(
                                    &format!("{field}.block_structure"),
                                    "two positive integers, e.g. [128, 128]",
                                )
                            })?,
                    );
                }
                _ => {}
            }
            Ok(f)
        }
        _ => Err(bad(
            field,
            format!(
                "one of: int 4-bit group, float 4-bit group 16 (nvfp4), int or float 8-bit \
                 channel/tensor/block (got type `{ty}`, {bits} bits, strategy `{strategy}`)"
            ),
        )),
    }
}

fn compressed_tensors(config: &Value, qc: &Value) -> Result<Quantization, ModelError> {
    let field = "quantization_config.config_groups";
    let groups = qc
        .get("config_groups")
        .and_then(Value::as_object)
        .filter(|g| !g.is_empty())
        .ok_or_else(|| bad(field, "at least one scheme group"))?;
    if groups.len() != 1 {
        return Err(bad(
            field,
            format!(
                "one scheme group (this checkpoint has {}: per-module schemes need an explicit quant.toml)",
                groups.len()
            ),
        ));
    }
    let Some((name, g)) = groups.iter().next() else {
        return Err(bad(field, "at least one scheme group"));
    };
    let gfield = format!("{field}.{name}.weights");
    let w = g.get("weights").ok_or_else(|| bad(&gfield, "a weights scheme"))?;
    // compressed-tensors stores int4 group scales in the model dtype (Kimi-K2.5: bf16).
    let scale = match model_dtype(config) {
        WeightDtype::Fp16 => ScaleDtype::Fp16,
        _ => ScaleDtype::Bf16,
    };
    let q = compressed_weights(w, scale, &gfield)?;
    let kept = classify(config, qc.get("ignore"), "quantization_config.ignore")?;
    let mut out = place(config, q, kept, "quantization_config.ignore")?;
    // `kv_cache_scheme` (float 8) is the checkpoint's own KV quantization; SGLang and vLLM still
    // default `--kv-cache-dtype auto` to the model dtype for compressed-tensors, so it is not applied.
    out.kv_cache_dtype = KvCacheDtype::Auto;
    Ok(out)
}

fn int4_marlin(qc: &Value, method: &str, zero_point: bool) -> Result<WeightFormat, ModelError> {
    let field = format!("quantization_config({method})");
    let bits = req_u64(qc, "bits", &field)?;
    if bits != 4 {
        return Err(bad(
            &format!("{field}.bits"),
            format!("4 ({bits}-bit {method} is not modelled)"),
        ));
    }
    let g = qc
        .get("group_size")
        .and_then(Value::as_i64)
        .ok_or_else(|| bad(&format!("{field}.group_size"), "an integer"))?;
    let g = u64::try_from(g).map_err(|_| {
        bad(
            &format!("{field}.group_size"),
            "a positive group size (channel-wise group_size = -1 is not modelled)",
        )
    })?;
    let mut f = WeightFormat::plain(WeightDtype::Int4);
    f.group_size = Some(group_u32(g, &format!("{field}.group_size"))?);
    f.scale_dtype = Some(ScaleDtype::Fp16);
    f.zero_point = zero_point;
    Ok(f)
}

/// SGLang's `--kv-cache-dtype auto` with a ModelOpt checkpoint: `kv_cache_quant_algo = "FP8"` in
/// `hf_quant_config.json` selects fp8 e4m3 (SGLang 0.5.9 `model_runner.py`
/// `configure_kv_cache_dtype`: with `auto` and a ModelOpt quantization whose KV algorithm is FP8 the
/// pool dtype becomes `torch.float8_e4m3fn`); anything else keeps the model dtype.
pub fn modelopt_kv(hf_quant: &Value) -> Result<KvCacheDtype, ModelError> {
    match hf_quant
        .get("quantization")
        .and_then(|q| q.get("kv_cache_quant_algo"))
    {
        None | Some(Value::Null) => Ok(KvCacheDtype::Auto),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("fp8") => Ok(KvCacheDtype::Fp8E4m3),
        Some(v) => Err(bad(
            "hf_quant_config.quantization.kv_cache_quant_algo",
            format!("\"FP8\" or nothing (got {v})"),
        )),
    }
}

fn modelopt(config: &Value, hf: &Value) -> Result<Quantization, ModelError> {
    let q = hf
        .get("quantization")
        .ok_or_else(|| bad("hf_quant_config.quantization", "a table with quant_algo"))?;
    let mut out = modelopt_weights(
        config,
        q.get("quant_algo"),
        q.get("exclude_modules"),
        "hf_quant_config.quantization",
        "exclude_modules",
    )?;
    out.kv_cache_dtype = modelopt_kv(hf)?;
    Ok(out)
}

/// ModelOpt's formats from `quant_algo` and its exclude list (`exclude_modules` in
/// hf_quant_config.json, `ignore` in config.json), placed as the engines match the list.
fn modelopt_weights(
    config: &Value,
    algo: Option<&Value>,
    list: Option<&Value>,
    table: &str,
    list_key: &str,
) -> Result<Quantization, ModelError> {
    let algo_field = format!("{table}.quant_algo");
    let algo = algo
        .and_then(Value::as_str)
        .ok_or_else(|| bad(&algo_field, "\"FP8\" or \"NVFP4\""))?;
    let f = match algo {
        "FP8" => WeightFormat::plain(WeightDtype::Fp8),
        "NVFP4" => WeightFormat::plain(WeightDtype::Nvfp4),
        other => {
            return Err(bad(
                &algo_field,
                format!("\"FP8\" or \"NVFP4\" (got \"{other}\")"),
            ));
        }
    };
    let field = format!("{table}.{list_key}");
    let (kept, mtp) = engine_kept(config, list, &field)?;
    let mut out = place(config, f, kept, &field)?;
    if mtp {
        out.mtp = Some(WeightFormat::plain(model_dtype(config)));
    }
    Ok(out)
}

/// Issue #17 (attnquant17): config.json's `quantization_config` with `quant_method` `modelopt` (the
/// flat format ModelOpt ≥ 0.39 writes: `quant_algo`, `ignore`, `kv_cache_scheme`). The KV cache
/// under `--kv-cache-dtype auto`: `kv_cache_quant_algo` if given, else `kv_cache_scheme` {type
/// float, num_bits 8} → fp8 e4m3 (SGLang 0.5.8 / 0.5.9 `modelopt_quant.py`
/// `ModelOptFp4Config.from_config`, the flat format; vLLM ≥ 0.14.0 `utils/torch_utils.py`
/// `get_kv_cache_quant_algo_string` for `quant_method` `modelopt*`, applied by `arg_utils.py`
/// `resolve_kv_cache_dtype_string`; vLLM 0.13 and older keep the model dtype for `auto`).
fn modelopt_flat(config: &Value, qc: &Value) -> Result<Quantization, ModelError> {
    let mut out = modelopt_weights(
        config,
        qc.get("quant_algo"),
        qc.get("ignore"),
        "quantization_config",
        "ignore",
    )?;
    let algo = qc.get("kv_cache_quant_algo").filter(|v| !v.is_null());
    out.kv_cache_dtype = match (algo, qc.get("kv_cache_scheme")) {
        (Some(Value::String(s)), _) if s.eq_ignore_ascii_case("fp8") => KvCacheDtype::Fp8E4m3,
        (Some(v), _) => {
            return Err(bad(
                "quantization_config.kv_cache_quant_algo",
                format!("\"FP8\" or nothing (got {v})"),
            ));
        }
        (None, Some(s))
            if s.get("type").and_then(Value::as_str) == Some("float")
                && s.get("num_bits").and_then(Value::as_u64) == Some(8) =>
        {
            KvCacheDtype::Fp8E4m3
        }
        _ => KvCacheDtype::Auto,
    };
    Ok(out)
}

/// The quantization `config` (a parsed `config.json`) declares, or the one in `hf_quant` (a parsed
/// `hf_quant_config.json`) when the checkpoint has one. A config without `quantization_config` is
/// unquantized: every linear layer at the model dtype.
pub fn from_checkpoint(config: &Value, hf_quant: Option<&Value>) -> Result<Quantization, ModelError> {
    // Multimodal wrappers (Kimi-K2.5) may keep it under `text_config`.
    let qc = config
        .get("quantization_config")
        .or_else(|| {
            config
                .get("text_config")
                .and_then(|t| t.get("quantization_config"))
        })
        .filter(|q| !q.is_null());
    // attnquant17: config.json's `quantization_config` first, the sidecar only without one (vLLM
    // 0.14.1 `transformers_utils/config.py`).
    if let (None, Some(hf)) = (qc, hf_quant) {
        return modelopt(config, hf);
    }
    let Some(qc) = qc else {
        let mut out = Quantization::bf16();
        out.weights = WeightFormat::plain(model_dtype(config));
        return Ok(out);
    };
    let method = qc
        .get("quant_method")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("quantization_config.quant_method", "a string"))?;
    let ignore_key = |k: &str| format!("quantization_config.{k}");
    match method {
        "fp8" => {
            let key = if qc.get("ignored_layers").is_some() {
                "ignored_layers"
            } else {
                "modules_to_not_convert"
            };
            let (kept, _) = engine_kept(config, qc.get(key), &ignore_key(key))?;
            place(config, fp8(qc)?, kept, &ignore_key(key))
        }
        "compressed-tensors" => compressed_tensors(config, qc),
        "modelopt" => modelopt_flat(config, qc),
        method @ ("gptq" | "awq") => {
            // Zero points: GPTQ stores them unless `sym`; AWQ when `zero_point` (both default as the
            // engines read them).
            let zero_points = if method == "gptq" {
                !qc.get("sym").and_then(Value::as_bool).unwrap_or(true)
            } else {
                qc.get("zero_point").and_then(Value::as_bool).unwrap_or(true)
            };
            let ignored = ignore_key("modules_to_not_convert");
            let (kept, _) = engine_kept(config, qc.get("modules_to_not_convert"), &ignored)?;
            place(config, int4_marlin(qc, method, zero_points)?, kept, &ignored)
        }
        "mxfp4" => {
            let mut out = Quantization::bf16();
            out.weights = WeightFormat::plain(model_dtype(config));
            out.experts = Some(WeightFormat::plain(WeightDtype::Mxfp4));
            Ok(out)
        }
        other => Err(bad(
            "quantization_config.quant_method",
            format!(
                "one of fp8, compressed-tensors, gptq, awq, mxfp4, modelopt, or a ModelOpt \
                 hf_quant_config.json (got \"{other}\")"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &str) -> Value {
        serde_json::from_str(s).expect("test JSON")
    }

    fn explicit(toml_text: &str) -> Quantization {
        toml::from_str(toml_text).expect("quant.toml")
    }

    /// The bundled presets whose config.json declares a quantization: reading it gives the formats
    /// of the hand-written quant.toml beside it (gpt-oss: less the engine padding, which the
    /// checkpoint does not say).
    #[test]
    fn presets_from_config_match_their_quant_toml() {
        for (name, config, quant) in [
            (
                "deepseek-v3",
                include_str!("../../../scenarios/models/deepseek-v3/config.json"),
                include_str!("../../../scenarios/models/deepseek-v3/quant.toml"),
            ),
            (
                "minimax-m2.5",
                include_str!("../../../scenarios/models/minimax-m2.5/config.json"),
                include_str!("../../../scenarios/models/minimax-m2.5/quant.toml"),
            ),
            (
                "kimi-k2.5",
                include_str!("../../../scenarios/models/kimi-k2.5/config.json"),
                include_str!("../../../scenarios/models/kimi-k2.5/quant.toml"),
            ),
        ] {
            let got = from_checkpoint(&json(config), None).expect(name);
            assert_eq!(got, explicit(quant), "{name}");
        }
        let got = from_checkpoint(
            &json(include_str!("../../../scenarios/models/gpt-oss-120b/config.json")),
            None,
        )
        .unwrap();
        let mut want = explicit(include_str!("../../../scenarios/models/gpt-oss-120b/quant.toml"));
        let e = want.experts.as_mut().unwrap();
        e.pad_hidden = None;
        e.pad_intermediate = None;
        assert_eq!(got, want);
    }

    /// presets56: Devstral Small 2's published `quantization_config` (quant_method fp8,
    /// `weight_block_size` null, `modules_to_not_convert` = `model.vision_tower`,
    /// `model.multi_modal_projector`, `lm_head`) reads as fp8 with one fp32 scale a tensor on every
    /// decoder Linear (its per-tensor scale is 4 B whatever `scale_dtype`): the projector, like the
    /// tower and the head, is kept at the model dtype anyway.
    /// Without `multi_modal_projector` among the parts tpsim always keeps, the entry was refused.
    #[test]
    fn devstral_small_2_fp8_per_tensor_with_its_projector_kept() {
        let got = from_checkpoint(
            &json(include_str!(
                "../../../scenarios/models/devstral-small-2-24b-instruct-2512/config.json"
            )),
            None,
        )
        .expect("devstral-small-2");
        assert_eq!(got, explicit("dtype = \"fp8\"\n"));
    }

    #[test]
    fn fp8_block_and_modelopt_bytes() {
        // Qwen/Qwen3-32B-FP8 quantization_config (research/configs/qwen3-32b-fp8, vendored by
        // ai-dynamo/aiconfigurator).
        let cfg = json(
            r#"{"torch_dtype": "bfloat16", "quantization_config": {"activation_scheme": "dynamic",
            "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]}}"#,
        );
        let q = from_checkpoint(&cfg, None).unwrap();
        assert_eq!(q.weights.dtype, WeightDtype::Fp8);
        assert_eq!(q.experts, None);
        assert_eq!(q.kv_cache_dtype, KvCacheDtype::Auto);
        // q_proj of Qwen3-32B: 8192 × 5120 fp8 = 41 943 040 B + ceil(8192/128) × ceil(5120/128) =
        // 64 × 40 = 2560 fp32 block scales = 10 240 B → 41 953 280 B; at TP 2 (4096 rows):
        // 20 971 520 + 32 × 40 × 4 = 5120 → 20 976 640 B per rank.
        assert_eq!(q.weights.tensor_bytes(8192, 5120), 41_953_280);
        assert_eq!(q.weights.tensor_bytes(4096, 5120), 20_976_640);
        // deepseek-ai/DeepSeek-V3.2 (research/configs/deepseek-v3.2): ue8m0 scales are the same fp32
        // tensors, so the same format.
        let ds = json(
            r#"{"torch_dtype": "bfloat16", "quantization_config": {"activation_scheme": "dynamic",
            "fmt": "e4m3", "quant_method": "fp8", "scale_fmt": "ue8m0", "weight_block_size": [128, 128]}}"#,
        );
        assert_eq!(from_checkpoint(&ds, None).unwrap(), q);
        // nvidia/Llama-3.1-70B-Instruct-FP8 hf_quant_config.json (research/configs/
        // llama-3.1-70b-fp8-modelopt): FP8 per tensor, lm_head excluded, FP8 KV.
        let hf = json(
            r#"{"producer": {"name": "modelopt", "version": "0.23.0"}, "quantization":
            {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8", "exclude_modules": ["lm_head"]}}"#,
        );
        let q = from_checkpoint(&json(r#"{"torch_dtype": "bfloat16"}"#), Some(&hf)).unwrap();
        assert_eq!(q.weights.dtype, WeightDtype::Fp8);
        assert_eq!(q.weights.block_size, None);
        // SGLang `auto` with kv_cache_quant_algo FP8 → fp8 e4m3: 1 byte per element.
        assert_eq!(q.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
        assert_eq!(q.kv_cache_dtype.bytes(WeightDtype::Bf16), 1);
        // o_proj of Llama-3.1-70B, 8192 × 8192 per tensor: 67 108 864 B + one fp32 scale = 67 108 868;
        // at TP 4 (2048 input columns): 16 777 216 + 4 = 16 777 220 B per rank.
        assert_eq!(q.weights.tensor_bytes(8192, 8192), 67_108_868);
        assert_eq!(q.weights.tensor_bytes(8192, 2048), 16_777_220);
        // Without kv_cache_quant_algo, `auto` stays the model dtype.
        let hf = json(r#"{"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["lm_head"]}}"#);
        let q = from_checkpoint(&json("{}"), Some(&hf)).unwrap();
        assert_eq!(
            (q.weights.dtype, q.kv_cache_dtype),
            (WeightDtype::Nvfp4, KvCacheDtype::Auto)
        );
    }

    #[test]
    fn int8_gptq_awq_bytes() {
        // compressed-tensors W8A8 INT8 (llm-compressor's W8A8 scheme as RedHatAI's *-quantized.w8a8
        // checkpoints declare it: int 8-bit channel symmetric weights, int 8-bit dynamic per-token
        // activations, lm_head ignored).
        let cfg = json(
            r#"{"torch_dtype": "bfloat16", "quantization_config": {"quant_method": "compressed-tensors",
            "format": "int-quantized", "ignore": ["lm_head"], "config_groups": {"group_0": {
            "targets": ["Linear"], "weights": {"num_bits": 8, "type": "int", "symmetric": true,
            "strategy": "channel", "dynamic": false}, "input_activations": {"num_bits": 8,
            "type": "int", "symmetric": true, "strategy": "token", "dynamic": true}}}}}"#,
        );
        let q = from_checkpoint(&cfg, None).unwrap();
        assert_eq!(q.weights.dtype, WeightDtype::Int8);
        // Llama-3.1-8B gate_proj 14336 × 4096: 58 720 256 int8 B + 14 336 fp32 row scales
        // (57 344 B) = 58 777 600 B; TP 2 (7168 rows): 29 360 128 + 28 672 = 29 388 800 B per rank.
        assert_eq!(q.weights.tensor_bytes(14336, 4096), 58_777_600);
        assert_eq!(q.weights.tensor_bytes(7168, 4096), 29_388_800);
        // GPTQ 4-bit, group 128, symmetric (AutoGPTQ's quantize_config keys): fp16 scales, no zeros.
        let g = json(
            r#"{"torch_dtype": "float16", "quantization_config": {"quant_method": "gptq", "bits": 4,
            "group_size": 128, "desc_act": false, "sym": true}}"#,
        );
        let q = from_checkpoint(&g, None).unwrap();
        // 4096 × 4096: 8 388 608 B of nibbles + 4096 × 32 groups × 2 B = 262 144 → 8 650 752 B.
        assert_eq!(q.weights.tensor_bytes(4096, 4096), 8_650_752);
        // AWQ 4-bit, group 128, zero point (AutoAWQ's keys): + 4096 × 32 packed 4-bit zeros = 65 536
        // → 8 716 288 B.
        let a = json(
            r#"{"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128,
            "zero_point": true, "version": "gemm"}}"#,
        );
        assert_eq!(
            from_checkpoint(&a, None)
                .unwrap()
                .weights
                .tensor_bytes(4096, 4096),
            8_716_288
        );
        // The explicit quant.toml of the AWQ presets says the same for their experts.
        let explicit_awq = explicit(include_str!(
            "../../../scenarios/models/minimax-m2.5-awq/quant.toml"
        ));
        assert_eq!(
            explicit_awq.expert_format(),
            from_checkpoint(&a, None).unwrap().weights
        );
    }

    #[test]
    fn refusals_name_the_field() {
        let e = from_checkpoint(
            &json(r#"{"quantization_config": {"quant_method": "bitsandbytes"}}"#),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("quantization_config.quant_method"), "{e}");
        let e = from_checkpoint(
            &json(r#"{"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": -1}}"#),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("group_size"), "{e}");
        // An ignore list that keeps one projection of layer 0's attention (1 of its 4) and quantizes
        // the rest: one format per group cannot say it (attnquant17: layer by layer, as the engines
        // match the list).
        let e = from_checkpoint(
            &json(
                r#"{"num_hidden_layers": 2, "quantization_config": {"quant_method": "fp8",
                "weight_block_size": [128, 128],
                "modules_to_not_convert": ["model.layers.0.self_attn.q_proj"]}}"#,
            ),
            None,
        )
        .unwrap_err();
        assert!(e.to_string().contains("modules_to_not_convert"), "{e}");
        let e = from_checkpoint(
            &json(r#"{}"#),
            Some(&json(
                r#"{"quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "INT8"}}"#,
            )),
        )
        .unwrap_err();
        assert!(e.to_string().contains("kv_cache_quant_algo"), "{e}");
    }
}

#[cfg(test)]
mod attnquant17 {
    use super::*;

    fn json(s: &str) -> Value {
        serde_json::from_str(s).expect("test JSON")
    }

    /// The engines' matching of one exclude entry (SGLang 0.5.9 `is_layer_skipped` +
    /// `is_layer_excluded`, vLLM 0.12.0 `is_layer_excluded`): substring, whole-name glob, glob on one
    /// dot-separated part; the `language_model.` prefix dropped.
    #[test]
    fn engine_matching_of_exclude_entries() {
        let kv_b = "model.layers.0.self_attn.kv_b_proj";
        // Kimi-K2.5-NVFP4's entry: glob after the multimodal prefix.
        assert!(engine_excludes("language_model.model.layers.0.self_attn*", kv_b));
        // `layers.1.` is not `layers.10.`: neither a substring nor a glob match.
        assert!(!engine_excludes(
            "model.layers.1.self_attn*",
            "model.layers.10.self_attn.o_proj"
        ));
        // Substring (FP8 `modules_to_not_convert`): the module and everything under it.
        assert!(engine_excludes("model.layers.0.self_attn", kv_b));
        // Qwen3.5's `model.language_model.` prefix and a glob on both sides.
        assert!(engine_excludes(
            "*.mlp.shared_expert.*",
            "model.layers.7.mlp.shared_expert.down_proj"
        ));
        assert!(engine_excludes(
            "model.language_model.layers.3.self_attn*",
            "model.layers.3.self_attn.q_proj"
        ));
        // Part by part (SGLang 0.5.9): `mtp*` matches the part `mtp`.
        assert!(engine_excludes("mtp*", "mtp.layers.0.mlp.experts.0.w1"));
        assert!(!engine_excludes("lm_head", kv_b));
        assert!(glob("a*b*c", "axxbyyc") && !glob("a*b*c", "axxbyy") && glob("*", ""));
    }

    /// nvidia/Kimi-K2.5-NVFP4's config.json (`quant_method` modelopt, flat): its `ignore` list keeps
    /// lm_head, every layer's `self_attn*`, `mm_projector*`, `vision_tower*`: the attention bf16, the
    /// dense MLP of layer 0, the shared and the routed experts NVFP4; `kv_cache_scheme` float 8 → fp8.
    #[test]
    fn kimi_k2_5_nvfp4_config_reads_per_group() {
        let cfg = json(include_str!(
            "../../../scenarios/models/kimi-k2.5-nvfp4/config.json"
        ));
        let q = from_checkpoint(&cfg, None).unwrap();
        let nvfp4 = WeightFormat::plain(WeightDtype::Nvfp4);
        assert_eq!(q.weights, WeightFormat::plain(WeightDtype::Bf16));
        assert_eq!(
            (q.dense_mlp, q.shared_experts, q.experts),
            (Some(nvfp4), Some(nvfp4), Some(nvfp4))
        );
        assert_eq!((q.mtp, q.kv_cache_dtype), (None, KvCacheDtype::Fp8E4m3));
        // Without `self_attn*` for layer 60 the attention is kept in 60 of 61 layers: refused.
        let mut partial = cfg.clone();
        let list = partial["quantization_config"]["ignore"].as_array_mut().unwrap();
        list.retain(|v| v.as_str() != Some("language_model.model.layers.60.self_attn*"));
        let e = from_checkpoint(&partial, None).unwrap_err().to_string();
        assert!(
            e.contains("quantization_config.ignore") && e.contains("60 of 61"),
            "{e}"
        );
    }

    /// The ModelOpt checkpoints bundled with a hand-written quant.toml: reading their own files gives
    /// the same description (nvidia/Qwen3.5-397B-A17B-NVFP4's config.json: linear_attn / self_attn /
    /// shared experts / `mtp.layers.0*` kept, routed experts NVFP4, fp8 KV; nvidia/MiniMax-M2.5-NVFP4's
    /// hf_quant_config.json: `self_attn*` and the routers kept, fp8 KV).
    #[test]
    fn modelopt_presets_match_their_quant_toml() {
        for (name, config, hf, quant) in [
            (
                "qwen3.5-397b-a17b-nvfp4-nvidia",
                include_str!("../../../scenarios/models/qwen3.5-397b-a17b-nvfp4-nvidia/config.json"),
                None,
                include_str!("../../../scenarios/models/qwen3.5-397b-a17b-nvfp4-nvidia/quant.toml"),
            ),
            (
                "minimax-m2.5-nvfp4",
                include_str!("../../../scenarios/models/minimax-m2.5-nvfp4/config.json"),
                Some(include_str!(
                    "../../../scenarios/models/minimax-m2.5-nvfp4/hf_quant_config.json"
                )),
                "dtype = \"bf16\"\nexperts = { dtype = \"nvfp4\" }\nkv_cache_dtype = \"fp8_e4m3\"",
            ),
        ] {
            let hf = hf.map(json);
            let got = from_checkpoint(&json(config), hf.as_ref()).expect(name);
            let want: Quantization = toml::from_str(quant).expect(name);
            assert_eq!(got, want, "{name}");
        }
    }
}

#[cfg(test)]
mod preset_bytes {
    use super::*;
    use crate::llm::ModelSpec;

    fn spec(config: &str, hf: Option<&str>) -> ModelSpec {
        let cfg: Value = serde_json::from_str(config).unwrap();
        let hf: Option<Value> = hf.map(|h| serde_json::from_str(h).unwrap());
        ModelSpec::from_config_json(config, from_checkpoint(&cfg, hf.as_ref()).unwrap()).unwrap()
    }

    #[test]
    fn qwen3_32b_fp8_weight_bytes_per_rank() {
        let m = spec(
            include_str!("../../../scenarios/models/qwen3-32b-fp8/config.json"),
            None,
        );
        let b = m.weight_breakdown(2);
        // Qwen3-32B: hidden 5120, 64 heads × 128 = 8192, 8 KV heads × 128 = 1024, MLP 25 600, 64 layers,
        // vocab 151 936 untied. TP 2, fp8 1 B/element + fp32 per 128×128 block:
        // q 4096×5120: 20 971 520 + 32×40×4 = 5120 → 20 976 640; k, v 512×5120: 2 621 440 + 4×40×4 = 640
        // → 2 622 080 each; o 5120×4096: 20 971 520 + 40×32×4 → 20 976 640; per layer 47 197 440;
        // × 64 = 3 020 636 160.
        assert_eq!(b.attention, 3_020_636_160);
        // gate, up 12 800×5120 and down 5120×12 800: 65 536 000 + 100×40×4 = 16 000 → 65 552 000 each;
        // 196 656 000 per layer × 64 = 12 585 984 000.
        assert_eq!(b.dense_mlp, 12_585_984_000);
        // Embedding and LM head stay bf16: 75 968 rows × 5120 × 2 B = 777 912 320 each.
        assert_eq!((b.embedding, b.lm_head), (777_912_320, 777_912_320));
    }

    #[test]
    fn llama_70b_modelopt_fp8_weight_bytes_per_rank() {
        let m = spec(
            include_str!("../../../scenarios/models/llama-3.1-70b-fp8-modelopt/config.json"),
            Some(include_str!(
                "../../../scenarios/models/llama-3.1-70b-fp8-modelopt/hf_quant_config.json"
            )),
        );
        assert_eq!(m.quantization.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
        // fp8 KV: 1 byte per element, no per-token scales (research 16-kv-arithmetic.md §5): 80 layers
        // × K and V × (8 KV heads ÷ 4) × 128 × 1 B = 40 960 B per token per rank at TP 4 (bf16: 81 920).
        assert_eq!(m.kv_cell_bytes(4), 40_960);
        let b = m.weight_breakdown(4);
        // Llama-3.1-70B: hidden 8192, 64 heads, 8 KV heads × 128, MLP 28 672, 80 layers. TP 4, fp8 per
        // tensor (1 B/element + one fp32 scale per tensor shard): q 2048×8192 = 16 777 216, k and v
        // 256×8192 = 2 097 152 each, o 8192×2048 = 16 777 216 → 37 748 736 per layer + the scales.
        let scales_attn = b.attention - 80 * 37_748_736;
        // gate, up 7168×8192 and down 8192×7168: 58 720 256 each → 176 160 768 per layer.
        let scales_mlp = b.dense_mlp - 80 * 176_160_768;
        // One 4-byte scale per tensor as tpsim lays them out, fused qkv + o and fused gate_up + down: 2 per
        // layer each (after loading, SGLang 0.5.9 `modelopt_quant.py` / `fp8.py` keep one max scale per
        // fused tensor, `requantize_with_max_scale`); the static `input_scale` scalars are not counted.
        assert_eq!((scales_attn, scales_mlp), (80 * 2 * 4, 80 * 2 * 4));
        // The LM head (excluded) is bf16: 32 064 rows × 8192 × 2 B = 525 336 576.
        assert_eq!(b.lm_head, 525_336_576);
    }
}

/// rope17 (issue #17): compressed-tensors `ignore` entries starting `re:` are regular expressions,
/// matched from the start of each module name (vLLM 0.11.0 / SGLang 0.5.9
/// `compressed_tensors/utils.py` `_is_equal_or_regex_match`: `re.match(target[3:], name)`). The
/// lists are published llm-compressor recipes (the `ignore` they write into config.json), found with
/// find_string; the scheme is FP8 per channel, so a kept group shows as bf16.
#[cfg(test)]
mod rope17_regex {
    use super::*;

    const FP8: &str = r#"{"quant_method": "compressed-tensors", "format": "float-quantized",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8,
        "type": "float", "symmetric": true, "strategy": "channel", "dynamic": false}}}}"#;

    /// The preset's config.json with an FP8 compressed-tensors `quantization_config` whose `ignore`
    /// is `ignore`.
    fn with_ignore(preset: &str, ignore: &[&str]) -> Result<Quantization, ModelError> {
        let text = match preset {
            "qwen3-30b-a3b" => include_str!("../../../scenarios/models/qwen3-30b-a3b/config.json"),
            "qwen1.5-moe-a2.7b" => include_str!("../../../scenarios/models/qwen1.5-moe-a2.7b/config.json"),
            "qwen3.5-397b-a17b" => include_str!("../../../scenarios/models/qwen3.5-397b-a17b/config.json"),
            _ => panic!("no preset {preset} in this test"),
        };
        let mut cfg: Value = serde_json::from_str(text).unwrap();
        let mut qc: Value = serde_json::from_str(FP8).unwrap();
        qc["ignore"] = Value::from(ignore.to_vec());
        cfg["quantization_config"] = qc;
        from_checkpoint(&cfg, None)
    }

    /// A Qwen3-MoE NVFP4 model card's recipe (find_string id 71538420309): `re:.*self_attn` matches
    /// every `model.layers.N.self_attn.{q,k,v,o}_proj` from the start (`.*` then `self_attn`), so
    /// the attention of all 48 layers of qwen3-30b-a3b stays bf16; `re:.*mlp.gate$` matches only the
    /// routers (`mlp.gate`, not `mlp.gate_proj`: `$`), so the experts are FP8.
    #[test]
    fn self_attn_regex_keeps_the_attention() {
        let q = with_ignore(
            "qwen3-30b-a3b",
            &["re:.*lm_head.*", "re:.*mlp.gate$", "re:.*self_attn"],
        )
        .unwrap();
        assert_eq!(q.weights.dtype, WeightDtype::Bf16);
        assert_eq!(q.expert_format().dtype, WeightDtype::Fp8);
    }

    /// QeRL's Qwen-MoE list (find_string id 31737100297: `["lm_head", "re:.*mlp.gate$",
    /// "re:.*mlp.shared_expert_gate$"]`) on qwen1.5-moe-a2.7b (24 layers, a shared expert each):
    /// both regexes end at the gate, so nothing tpsim quantizes is kept — attention, shared and
    /// routed experts all FP8. Read as text (before rope17) the `mlp` in them marked the dense MLP
    /// kept and `shared_expert` the shared experts kept (bf16).
    #[test]
    fn gate_regexes_keep_nothing() {
        let q = with_ignore(
            "qwen1.5-moe-a2.7b",
            &["lm_head", "re:.*mlp.gate$", "re:.*mlp.shared_expert_gate$"],
        )
        .unwrap();
        assert_eq!(q.weights.dtype, WeightDtype::Fp8);
        assert_eq!(q.expert_format().dtype, WeightDtype::Fp8);
        assert_eq!(
            q.shared_experts.map_or(q.weights.dtype, |w| w.dtype),
            WeightDtype::Fp8
        );
        // The Qwen3-VL-235B FP8-dynamic recipe's list (find_string id 329591091) likewise keeps
        // nothing: the LM head, the vision tower (`re:visual.*`, `re:model.visual.*`) and the routers.
        let q = with_ignore(
            "qwen3-30b-a3b",
            &[
                "re:.*lm_head",
                "re:visual.*",
                "re:model.visual.*",
                "re:.*mlp.gate$",
            ],
        )
        .unwrap();
        assert_eq!(
            (q.weights.dtype, q.expert_format().dtype),
            (WeightDtype::Fp8, WeightDtype::Fp8)
        );
    }

    /// The Qwen3.6 NVFP4 recipe's `re:.*linear_attn.*` (find_string id 60543100551) keeps the Gated
    /// DeltaNet projections of the 45 linear layers of qwen3.5-397b-a17b and quantizes the 15
    /// full-attention ones: tpsim has one format for the attention, so it refuses, naming the list.
    #[test]
    fn linear_attn_regex_is_refused_in_part() {
        let e = with_ignore(
            "qwen3.5-397b-a17b",
            &[
                "re:.*lm_head",
                "re:model.visual.*",
                "re:.*mlp.gate$",
                "re:.*embed_tokens$",
                "re:.*shared_expert_gate$",
                "re:.*linear_attn.*",
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("quantization_config.ignore") && e.contains("attention"),
            "{e}"
        );
    }

    /// A pattern Rust's `regex` cannot compile (a Python look-behind) is refused naming the entry.
    #[test]
    fn bad_regex_is_refused() {
        let e = with_ignore("qwen3-30b-a3b", &["lm_head", "re:.*(?<=mlp)\\.gate$"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("quantization_config.ignore[1]") && e.contains("regular expression"),
            "{e}"
        );
    }
}

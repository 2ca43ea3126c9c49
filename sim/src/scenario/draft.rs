//! `[speculative] algorithm` and `draft`: an EAGLE-3 draft model preset, or the target's own MTP
//! (DeepSeek NextN) layers, resolved to the draft's model spec and its weights per rank.

use super::{ModelSection, Resolver, ScenarioError};
use tpsim_model::llm::ModelSpec;
use tpsim_model::units::Bytes;

/// The draft: its name, its spec, and its weights per rank at `tp`.
type Draft = (String, ModelSpec, Bytes);

impl Resolver<'_> {
    pub(super) fn draft(
        &self,
        algorithm: &str,
        draft: Option<String>,
        tp: u32,
        target: &ModelSpec,
    ) -> Result<Draft, ScenarioError> {
        match algorithm {
            "eagle3" => {
                let draft_ref = draft.ok_or_else(|| {
                    self.invalid(
                        "speculative.draft",
                        "missing: expected the draft model preset, e.g. \"kimi-k2.5-eagle3\"",
                    )
                })?;
                let section = ModelSection {
                    preset: Some(draft_ref),
                    config: None,
                    quantization: None,
                    routing_skew: None,
                };
                let (name, spec, _, _) = self
                    .model("speculative.draft_model", Some(section))
                    .map_err(|e| e.rename_key("speculative.draft_model.preset", "speculative.draft"))?;
                spec.validate_tp(tp)
                    .map_err(|e| self.invalid("speculative.draft", format!("draft at tp = {tp}: {e}")))?;
                let w = spec.weight_bytes_per_rank(tp);
                Ok((name, spec, w))
            }
            "nextn" | "mtp" => {
                if draft.is_some() {
                    return Err(self.invalid(
                        "speculative.draft",
                        format!("with algorithm = \"{algorithm}\" the draft is the target's own MTP layer: remove `draft`"),
                    ));
                }
                mtp_draft(target, tp).map_err(|m| self.invalid("speculative.algorithm", m))
            }
            other => Err(self.invalid(
                "speculative.algorithm",
                format!("`{other}`: expected \"eagle3\", \"nextn\" or \"mtp\""),
            )),
        }
    }
}

/// The target's MTP/NextN layers as a draft (SGLang `models/deepseek_nextn.py`): one decoder layer
/// per `num_nextn_predict_layers` with the FFN of the target's deep layers (DeepSeek-V3's MTP layer
/// is MoE), sharded like the target; `eh_proj` (2H → H, a plain `nn.Linear`, replicated) and the
/// `enorm`/`hnorm` norms; the embedding and LM head are the target's (`eagle_worker.py`
/// `set_embed_and_head`), so they cost compute in every draft pass but no memory. Qwen3.5's MTP layer
/// (`mtp_num_hidden_layers = 1`) has the same shape: `fc` 2H → H, two norms, one gated full-attention
/// layer with the target's MoE. First cut: the
/// `eh_proj` matmul is not costed in the passes.
fn mtp_draft(target: &ModelSpec, tp: u32) -> Result<(String, ModelSpec, Bytes), String> {
    let n = target.num_nextn_predict_layers;
    let Some(ffn) = target.layers.last().copied().filter(|_| n > 0) else {
        return Err(format!(
            "the target `{}` ships no MTP layer (config.json num_nextn_predict_layers = {n}): use an EAGLE-3 draft",
            target.name
        ));
    };
    let mut d = target.clone();
    d.name = format!("{} MTP", target.name);
    d.num_layers = n;
    d.layers = vec![ffn; n as usize];
    // Qwen3.5's MTP layer is a full-attention + MoE layer (SGLang `models/qwen3_5_mtp.py`; the
    // config's mtp_num_hidden_layers): its mixer is attention even though the target is a hybrid.
    d.mixers = vec![tpsim_model::llm::Mixer::Attention; n as usize];
    // quant.toml `mtp = { … }`: the checkpoint stores the MTP layer in its own format.
    if let Some(f) = target.quantization.mtp {
        d.quantization.weights = f;
        d.quantization.experts = None;
        d.quantization.dense_mlp = None;
        d.quantization.shared_experts = None;
        d.quantization.mla_down = None;
        d.quantization.projections = tpsim_model::llm::ProjectionFormats::default();
    }
    d.first_k_dense_replace = 0;
    d.num_nextn_predict_layers = 0;
    d.has_vision = false;
    d.sglang_multimodal = false;
    d.vision = None;
    let b = d.weight_breakdown(tp);
    let act = d.activation_bytes();
    let eh_proj = 2 * d.hidden * d.hidden * act * u64::from(n);
    let norms = 2 * d.hidden * act * u64::from(n);
    let own = b.total() - b.embedding - b.lm_head + eh_proj + norms;
    Ok((d.name.clone(), d, Bytes(own)))
}

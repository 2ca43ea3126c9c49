//! families14 (issue #17): which engine releases serve InternVL (`InternVLChatModel`, lowered as its
//! `llm_config` tower with InternViT and mlp1: `tpsim_model::llm` module `internvl`), and which
//! towers each engine builds.
//!
//! - **Releases.** vLLM registers `InternVLChatModel` from 0.5.4: vllm-project/vllm PR 6514
//!   ("Initialize support for InternVL2 series models", merged after 0.5.3.post1, "it'll only be
//!   included in the next release (e.g. 0.5.4)"); vllm issue 6989 shows 0.5.3.post1 refusing it
//!   ("Model architectures ['InternVLChatModel'] are not supported for now"). SGLang adds
//!   `models/internvl.py` with sgl-project/sglang PR 5350 ("Support InternVL3", opened 2025-04-13,
//!   Qwen2 and InternLM2 language models). Read from the PyPI wheels' file lists (2026-12-05): the
//!   0.4.6, 0.4.6.post1 and 0.4.6.post2 wheels have no `sglang/srt/models/internvl.py`, 0.4.6.post3,
//!   0.4.6.post4, 0.4.6.post5 and 0.4.7 have it: first release 0.4.6.post3. vLLM's 0.5.3.post1 wheel
//!   has no `models/internvl.py`, 0.5.4's has it (with `intern_vit.py`).
//! - **Towers under SGLang.** SGLang's `InternVLChatModel.__init__` (internvl.py as stored) builds
//!   the language model only for `Qwen2ForCausalLM`, `InternLM2ForCausalLM`, `Qwen3MoeForCausalLM`,
//!   `GptOssForCausalLM` and `Qwen3ForCausalLM`, and raises `NotImplementedError(f"{arch} is not
//!   implemented.")` for any other: a Llama-layout tower (`LlamaForCausalLM`, InternVL3-9B's
//!   `InternLM3ForCausalLM`) is refused under SGLang. vLLM builds any registered tower. The towers
//!   by release, read from the wheels' `internvl.py`: 0.4.6.post3 – 0.4.9.post4 build Qwen2 and
//!   InternLM2; 0.4.9.post5 adds Qwen3-MoE (families26: the 0.4.9.post1, post3 and post4 wheels do not
//!   import `Qwen3MoeForCausalLM`, post5, post6 and 0.4.10 do); the dense Qwen3 tower (InternVL3.5)
//!   is imported from 0.5.2rc2 (0.5.1.post3, 0.5.2rc0 and 0.5.2rc1 lack it; tpsim counts 0.5.2's
//!   release candidates as 0.5.2, so 0.5.2rc0/rc1 pass where the engine would not), and so is
//!   `GptOssForCausalLM` (families26: the 0.5.1.post3 wheel lacks it, 0.5.2's has it).
//! - **Vision heads tp does not divide** (families26; InternViT-6B's 25 heads, every InternVL from
//!   38B up). SGLang pads dummy heads from 0.4.9.post5 (that wheel's `internvl.py` first calls
//!   `update_vit_attn_dummy_heads_config`; 0.4.9.post4's has no dummy heads): before, its
//!   `VisionAttention` builds `divide(num_heads, tp)` and `distributed/utils.py`
//!   `ensure_divisibility` asserts "{heads} is not divisible by {tp}": refused here with that text.
//!   vLLM serves it at every release, the attention replicated (`tpsim_model::llm` `internvl`).

use super::EngineKind;
use tpsim_model::llm::{Architecture, ModelSpec, VisionFamily};

/// The first SGLang release whose `internvl.py` builds a `Qwen3ForCausalLM` or `GptOssForCausalLM`
/// tower (module doc).
const FIRST_SGLANG_QWEN3_TOWER: [u64; 4] = [0, 5, 2, 0];

/// The first SGLang release whose `internvl.py` builds a `Qwen3MoeForCausalLM` tower and pads the
/// vision heads with dummy heads (module doc, families26).
const FIRST_SGLANG_MOE_TOWER_AND_DUMMY_HEADS: [u64; 4] = [0, 4, 9, 5];

/// Whether `model` is an InternVL (its tower is InternViT).
pub(super) fn is_internvl(model: &ModelSpec) -> bool {
    model
        .vision
        .is_some_and(|v| matches!(v.family, VisionFamily::InternVit { .. }))
}

/// The refusal of an InternVL scenario under SGLang with a tower SGLang does not build, or (before
/// 0.4.9.post5) vision heads that `tp` does not divide: `(key, message)`. The releases without the
/// model are `first_release`'s rows, checked before.
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
    tp: u32,
) -> Result<(), (&'static str, String)> {
    if !is_internvl(model) || kind != EngineKind::Sglang {
        return Ok(());
    }
    let release = super::first_release::ordered(version);
    let tower = match model.arch {
        Architecture::Qwen3 => Some((
            "Qwen3ForCausalLM",
            "InternVL 3.5",
            FIRST_SGLANG_QWEN3_TOWER,
            "0.5.2",
        )),
        Architecture::GptOss => Some((
            "GptOssForCausalLM",
            "InternVL3.5-GPT-OSS",
            FIRST_SGLANG_QWEN3_TOWER,
            "0.5.2",
        )),
        Architecture::Qwen3Moe => Some((
            "Qwen3MoeForCausalLM",
            "InternVL 3.5 MoE",
            FIRST_SGLANG_MOE_TOWER_AND_DUMMY_HEADS,
            "0.4.9.post5",
        )),
        _ => None,
    };
    if let Some((class, what, first, first_name)) = tower
        && release.as_slice() < first.as_slice()
    {
        return Err((
            "engine.version",
            format!(
                "SGLang {version}'s models/internvl.py builds no {class} language model (it does from \
                 {first_name}): it cannot serve this {what} tower (set a later engine.version)"
            ),
        ));
    }
    if model.arch == Architecture::Llama {
        return Err((
            "engine.name",
            "SGLang's models/internvl.py builds InternVL's language model only for Qwen2ForCausalLM, \
             InternLM2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM and GptOssForCausalLM and raises \
             NotImplementedError(\"<architecture> is not implemented.\") for this model's Llama-layout \
             llm_config (LlamaForCausalLM or InternLM3ForCausalLM): use vllm, which builds any registered tower"
                .into(),
        ));
    }
    let heads = model.vision.map_or(0, |v| v.heads);
    if tp > 1
        && heads > 0
        && !heads.is_multiple_of(u64::from(tp))
        && release.as_slice() < FIRST_SGLANG_MOE_TOWER_AND_DUMMY_HEADS.as_slice()
    {
        return Err((
            "engine.tp",
            format!(
                "SGLang {version} fails to build the vision tower: VisionAttention asserts \"{heads} is not \
                 divisible by {tp}\" (it pads InternViT's heads with dummy heads from 0.4.9.post5: set a later \
                 engine.version, or a tp that divides {heads})"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn internvl(tower: Option<&str>) -> ModelSpec {
        let text = include_str!("../../../scenarios/models/internvl3-1b/config.json");
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        if let Some(t) = tower {
            v["llm_config"]["architectures"] = serde_json::json!([t]);
        }
        ModelSpec::from_config_json(&v.to_string(), tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    /// InternVL3-1B with `llm_config` replaced by a bundled preset's whole config (the MoE towers need
    /// their own keys).
    fn internvl_with(llm: &str) -> ModelSpec {
        let text = include_str!("../../../scenarios/models/internvl3-1b/config.json");
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v["llm_config"] = serde_json::from_str(llm).unwrap();
        ModelSpec::from_config_json(&v.to_string(), tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    /// The checks in `engine.rs`'s order: the release table, then the towers.
    fn served(kind: EngineKind, m: &ModelSpec, v: &str) -> Result<(), (&'static str, String)> {
        super::super::first_release::check(kind, m, v)?;
        check(kind, m, v, 1)
    }

    #[test]
    fn releases_and_towers() {
        let m = internvl(None);
        let e = served(EngineKind::Sglang, &m, "0.4.5").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(e.1.contains("SGLang 0.4.5 has no models/internvl.py"), "{}", e.1);
        assert!(e.1.contains("cannot serve InternVL"), "{}", e.1);
        let e = served(EngineKind::Sglang, &m, "0.4.6.post2").unwrap_err();
        assert!(e.1.contains("SGLang ships it from 0.4.6.post3"), "{}", e.1);
        assert!(served(EngineKind::Sglang, &m, "0.4.6.post3").is_ok());
        // A Qwen3 tower (InternVL3.5): SGLang builds it from 0.5.2 only.
        let q3 = internvl(Some("Qwen3ForCausalLM"));
        let e = served(EngineKind::Sglang, &q3, "0.5.1.post3").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(e.1.contains("builds no Qwen3ForCausalLM"), "{}", e.1);
        assert!(served(EngineKind::Sglang, &q3, "0.5.2").is_ok());
        assert!(served(EngineKind::Vllm, &q3, "0.11.0").is_ok());
        assert!(served(EngineKind::Sglang, &m, "0.5.9").is_ok());
        let e = served(EngineKind::Vllm, &m, "0.5.3").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.5.4"), "{}", e.1);
        assert!(served(EngineKind::Vllm, &m, "0.5.4").is_ok());
        assert!(served(EngineKind::Vllm, &m, "0.19.0").is_ok());
        // An InternLM3 tower (InternVL3-9B): vLLM builds it, SGLang raises NotImplementedError.
        let l = internvl(Some("InternLM3ForCausalLM"));
        assert!(served(EngineKind::Vllm, &l, "0.19.0").is_ok());
        let e = served(EngineKind::Sglang, &l, "0.5.9").unwrap_err();
        assert_eq!(e.0, "engine.name");
        assert!(e.1.contains("is not implemented."), "{}", e.1);
        // An InternLM2 tower (InternVL2.5-8B) is built by both.
        let i = internvl(Some("InternLM2ForCausalLM"));
        assert!(served(EngineKind::Sglang, &i, "0.5.9").is_ok());
        // Plain models are not held to these releases.
        let q = ModelSpec::from_config_json(
            include_str!("../../../scenarios/models/qwen2.5-7b/config.json"),
            tpsim_model::llm::Quantization::bf16(),
        )
        .unwrap();
        assert!(served(EngineKind::Sglang, &q, "0.4.0").is_ok());
    }

    /// families26: the Qwen3-MoE tower from 0.4.9.post5 (post4's internvl.py lacks it), GPT-OSS from
    /// 0.5.2 (0.5.1.post3's lacks it), and InternViT-6B's 25 heads at tp 2: refused before
    /// 0.4.9.post5 with `ensure_divisibility`'s text, served from it (dummy heads) and under vLLM.
    #[test]
    fn moe_towers_and_dummy_heads_by_release() {
        let moe = internvl_with(include_str!(
            "../../../scenarios/models/qwen3-30b-a3b/config.json"
        ));
        let e = served(EngineKind::Sglang, &moe, "0.4.9.post4").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("builds no Qwen3MoeForCausalLM") && e.1.contains("0.4.9.post5"),
            "{}",
            e.1
        );
        assert!(served(EngineKind::Sglang, &moe, "0.4.9.post5").is_ok());
        let oss = internvl_with(include_str!("../../../scenarios/models/gpt-oss-20b/config.json"));
        let e = served(EngineKind::Sglang, &oss, "0.5.1.post3").unwrap_err();
        assert!(e.1.contains("builds no GptOssForCausalLM"), "{}", e.1);
        assert!(served(EngineKind::Sglang, &oss, "0.5.2").is_ok());
        assert!(served(EngineKind::Vllm, &oss, "0.11.0").is_ok());
        let big = ModelSpec::from_config_json(
            include_str!("../../../scenarios/models/internvl3-78b/config.json"),
            tpsim_model::llm::Quantization::bf16(),
        )
        .unwrap();
        let e = check(EngineKind::Sglang, &big, "0.4.9.post4", 2).unwrap_err();
        assert_eq!(e.0, "engine.tp");
        assert!(e.1.contains("\"25 is not divisible by 2\""), "{}", e.1);
        assert!(check(EngineKind::Sglang, &big, "0.4.9.post4", 5).is_ok());
        assert!(check(EngineKind::Sglang, &big, "0.4.9.post5", 2).is_ok());
        assert!(check(EngineKind::Vllm, &big, "0.5.4", 4).is_ok());
    }
}

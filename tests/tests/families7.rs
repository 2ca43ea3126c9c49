//! families7 (issue #17): GLM-4.5V (`Glm4vMoeForConditionalGeneration`) end to end — the preset loads
//! through a scenario with the weights pinned by hand in `model/src/llm/tests_glm4v.rs` (text tower
//! of GLM-4.5-Air plus the GLM-4V ViT), both engines size the plain GQA pool, and the tp that the
//! tower's 12 vision heads do not divide, or an MTP draft the checkpoint does not ship, is refused
//! with exit 2.

use crate::common::*;

const EXAMPLE: &str = "examples/glm-4.5v-sglang-rtx6000x4.toml";

/// The example rewritten by `edit` (old, new pairs), in a scratch file.
fn variant(name: &str, edits: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(scenario(EXAMPLE)).unwrap();
    for (old, new) in edits {
        assert!(text.contains(old), "{old}");
        text = text.replace(old, new);
    }
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Per rank at tp 4: 26,979,255,808 parameters (text 26,731,047,552 with the 45 × 128 fp32 score
/// biases, tower 248,214,016), 2 B each plus 2 B more for each fp32 bias.
const WEIGHTS_TP4: u64 = 2 * (26_731_047_552 + 248_214_016) + 2 * 45 * 128;

#[test]
fn glm45v_example_runs_under_sglang_with_the_hand_count() {
    let j = run_json(&scenario(EXAMPLE));
    assert_eq!(entry_bytes(&j, "target weights"), WEIGHTS_TP4);
    // 46 layers × 2 KV heads per rank (8 over tp 4) × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 47_104);
    // Two allreduces a layer (after o_proj and the MLP/MoE) × 46 + the vocab-parallel embedding's.
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 93);
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

/// vLLM 0.11.0 builds the same text tower (`Glm4MoeForCausalLM` on `text_config`): the same KV cell;
/// its weights line adds the RoPE cache of `max_position_embeddings` rows to the checkpoint's share.
#[test]
fn glm45v_under_vllm_has_the_same_cell() {
    let p = variant(
        "glm45v-vllm",
        &[
            ("name = \"sglang\"", "name = \"vllm\""),
            ("version = \"0.5.8\"", "version = \"0.11.0\""),
            ("context_length = 65536", "max_model_len = 65536"),
        ],
    );
    let j = run_json(&p);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 47_104);
    assert!(entry_bytes(&j, "target weights") > WEIGHTS_TP4);
}

/// 12 vision heads at tp 8: SGLang 0.5.9's `VisionAttention` and vLLM 0.11.0's `Glm4vVisionAttention`
/// both assert "12 is not divisible by 8" at start-up.
#[test]
fn glm45v_at_tp8_is_refused_by_its_vision_heads() {
    for (name, engine, version) in [
        ("glm45v-tp8-sgl", "name = \"sglang\"", "version = \"0.5.8\""),
        ("glm45v-tp8-vllm", "name = \"vllm\"", "version = \"0.11.0\""),
    ] {
        let p = variant(
            name,
            &[
                ("name = \"sglang\"", engine),
                ("version = \"0.5.8\"", version),
                ("tp = 4", "tp = 8"),
                ("rtx-pro-6000-4x-turin-same-numa", "rtx-pro-6000-8x-1switch"),
            ],
        );
        let o = tpsim(&["run", &p]);
        assert_eq!(o.code, 2, "{name}: {}", o.stdout);
        assert!(
            o.stderr
                .contains("vision tower's 12 heads are not divisible by tp 8"),
            "{name}: {}",
            o.stderr
        );
    }
}

/// GLM-4.5V's config has no `num_nextn_predict_layers` (its checkpoint no MTP layer).
#[test]
fn glm45v_mtp_is_refused() {
    let p = variant(
        "glm45v-mtp",
        &[(
            "[engine.env]",
            "[speculative]\nalgorithm = \"nextn\"\nnum_steps = 1\ntopk = 1\nnum_draft_tokens = 2\nacceptance = { per_position = [0.8] }\n\n[engine.env]",
        )],
    );
    let o = tpsim(&["run", &p]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(o.stderr.contains("ships no MTP layer"), "{}", o.stderr);
}

/// Releases without the model: SGLang before 0.5.0 (no `models/glm4v_moe.py`), vLLM before 0.10.1
/// (no registry entry).
#[test]
fn glm45v_under_releases_without_the_model_is_refused() {
    for (name, edits, says) in [
        (
            "glm45v-sgl-0410",
            vec![("version = \"0.5.8\"", "version = \"0.4.10.post2\"")],
            "SGLang 0.4.10.post2 has no models/glm4v_moe.py",
        ),
        (
            "glm45v-vllm-0100",
            vec![
                ("name = \"sglang\"", "name = \"vllm\""),
                ("version = \"0.5.8\"", "version = \"0.10.0\""),
                ("context_length = 65536", "max_model_len = 65536"),
            ],
            "vLLM registers it from 0.10.1",
        ),
    ] {
        let o = tpsim(&["run", &variant(name, &edits)]);
        assert_eq!(o.code, 2, "{name}: {}", o.stdout);
        assert!(o.stderr.contains(says), "{name}: {}", o.stderr);
    }
}

//! families10 (issue #17): GLM-4.7-Flash (`Glm4MoeLiteForCausalLM`) and InternLM3 end to end. GLM-4.7-Flash: DeepSeek-V2 MLA
//! attention with GLM-4.5's MoE (SGLang / vLLM `models/glm4_moe_lite.py`). The weights are pinned by
//! hand in `model/src/llm/tests_glm4_moe_lite.rs`; the releases that serve it in
//! `sim/src/scenario/first_release.rs`.

use crate::common::*;

const FLASH_VLLM: &str = "examples/glm-4.7-flash-vllm-rtx6000x2.toml";

/// The example rewritten by `edits` (old, new pairs), in a scratch file.
fn variant(name: &str, edits: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(scenario(FLASH_VLLM)).unwrap();
    for (old, new) in edits {
        assert!(text.contains(old), "{old}");
        text = text.replace(old, new);
    }
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn under_sglang(name: &str, version: &str) -> String {
    variant(
        name,
        &[
            (
                "name = \"vllm\"",
                &format!("name = \"sglang\"\nversion = \"{version}\""),
            ),
            ("max_model_len = 65536", "context_length = 65536"),
        ],
    )
}

/// GLM-4.7-Flash at tp 2 under vLLM: the latent KV cell (512 + 64) × 47 layers × 2 B = 54,144 B on
/// every rank (not divided by tp); the checkpoint's share with the fp32 gates and the absorbed
/// w_kc / w_vc copies, 30,306,726,912 B a rank, is a floor of vLLM's weights line (which adds its
/// RoPE cache). Two all-reduces a layer (after o_proj, after the MoE / dense MLP) × 47 + the
/// vocab-parallel embedding's = 95.
#[test]
fn glm47_flash_example_runs_under_vllm() {
    let j = run_json(&scenario(FLASH_VLLM));
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 54_144);
    let w = entry_bytes(&j, "target weights");
    assert!(w >= 30_306_726_912, "{w}");
    assert!(w < 30_306_726_912 + (1 << 30), "{w}");
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 95);
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

/// Under SGLang 0.5.8 the weights line is the hand count exactly (no RoPE cache in it) and the MLA
/// pool's cell is the same 54,144 B.
#[test]
fn glm47_flash_under_sglang_has_the_hand_count() {
    let j = run_json(&under_sglang("glm47-sglang", "0.5.8"));
    assert_eq!(entry_bytes(&j, "target weights"), 30_306_726_912);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 54_144);
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 95);
}

/// Releases before the model: SGLang 0.5.7 and vLLM 0.14.1 are refused on `engine.version`.
#[test]
fn glm47_flash_is_refused_before_its_releases() {
    let out = tpsim(&["run", &under_sglang("glm47-sglang-057", "0.5.7")]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("SGLang 0.5.7 has no models/glm4_moe_lite.py"),
        "{}",
        out.stderr
    );
    let v = variant(
        "glm47-vllm-0141",
        &[("name = \"vllm\"", "name = \"vllm\"\nversion = \"0.14.1\"")],
    );
    let out = tpsim(&["run", &v]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("vLLM registers it from 0.15.0"),
        "{}",
        out.stderr
    );
}

/// vLLM runs GLM-4.7-Flash's MTP layer (`models/glm4_moe_lite_mtp.py`, mapped from 0.15.0;
/// vllmmtp64): each MTP layer's `shared_head` (an RMSNorm and a `ParallelLMHead`) is loaded besides
/// the target's LM head until vLLM 0.16.0 replaces it by the target's. At tp 2 the head is 154,880 / 2
/// = 77,440 rows × 2048 × 2 B = 317,194,240 bytes: the draft's weights under 0.15.1 exceed 0.16.0's by
/// exactly that. (0.14.1 has neither the module nor the model: `families10` refuses it at the registry.)
#[test]
fn glm47_flash_mtp_under_vllm_by_release() {
    let at = |version: &str| {
        variant(
            &format!("glm47-vllm-mtp-{version}"),
            &[
                ("tp = 2", &format!("version = \"{version}\"\ntp = 2")),
                (
                    "[workload]",
                    "[speculative]\nalgorithm = \"mtp\"\nnum_steps = 1\ntopk = 1\nnum_draft_tokens = 2\n\
                     acceptance = { alpha = 0.8 }\n\n[workload]",
                ),
            ],
        )
    };
    let draft = |version: &str| entry_bytes(&run_json(&at(version)), "draft weights");
    assert_eq!(draft("0.15.1") - draft("0.16.0"), 317_194_240);
}

const INTERNLM3_SGLANG: &str = "examples/internlm3-8b-sglang-rtx6000x2.toml";

/// InternLM3-8B-Instruct at tp 2 under SGLang (served as Llama): the weights line is the hand count
/// 4,402,319,360 parameters a rank × 2 B (`tests_internlm3`); the cell 48 layers × 1 KV head a rank ×
/// 2 × 128 × 2 B = 24,576; two all-reduces a layer × 48 + the embedding's = 97.
#[test]
fn internlm3_example_runs_under_sglang_with_the_hand_count() {
    let j = run_json(&scenario(INTERNLM3_SGLANG));
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 4_402_319_360);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 24_576);
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 97);
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

/// Under vLLM (also `LlamaForCausalLM`) the same cell and collectives; the weights line is the hand
/// count plus vLLM's RoPE cache (a floor, under 1 GiB more).
#[test]
fn internlm3_under_vllm_is_llama_too() {
    let text = std::fs::read_to_string(scenario(INTERNLM3_SGLANG))
        .unwrap()
        .replace("name = \"sglang\"", "name = \"vllm\"")
        .replace("context_length = 32768", "max_model_len = 32768");
    let p = scratch("internlm3-vllm").join("s.toml");
    std::fs::write(&p, text).unwrap();
    let j = run_json(&p.display().to_string());
    let w = entry_bytes(&j, "target weights");
    assert!(w >= 2 * 4_402_319_360, "{w}");
    assert!(w < 2 * 4_402_319_360 + (1 << 30), "{w}");
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 24_576);
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 97);
}

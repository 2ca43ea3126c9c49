//! MTP (DeepSeek NextN) drafts: the target's own MTP layer through the EAGLE machinery (issue #6).

use crate::common::*;

const DSV3: &str = "examples/deepseek-v3-mtp-h200x8.toml";

#[test]
fn deepseek_v3_nextn_on_8_h200() {
    let j = run_json(&scenario(DSV3));
    // Tree (2, 4, 4) with a = 0.9 and no sibling information: the 3 nodes are the chain's
    // (siblings' marginals are 0): τ = 1 + 0.9 + 0.81 = 2.71, inside the measured 2.5–3
    // (tests/data/spec-decode.tsv, SGLang PR #3582).
    let tau = f(&j["spec"]["expected_accept_len"]);
    assert!((tau - 2.71).abs() < 1e-12, "{tau}");
    // Speed-up at bs = 1: measured 77 / 43.8 = 1.76× (same row), within 20 %. (The absolute tok/s
    // of that early-2025 SGLang is not the check: its plain decode was 43.8 tok/s.)
    let speedup = f(&j["throughput"]["output_tok_s"]) / f(&j["spec"]["tok_s_without_spec"]);
    assert!(
        (speedup / 1.76 - 1.0).abs() <= 0.20,
        "speed-up {speedup:.2} vs 1.76"
    );
    // Draft weights per rank: the MTP layer's routed experts, 256 × 3 × 7168 × 2048 / 8 FP8 bytes =
    // 1.409 GB, plus eh_proj 2 × 7168² × 2 B = 0.206 GB (replicated), plus < 0.1 GB of attention,
    // shared expert, router, norms and FP8 scales; no embedding or LM head (shared with the target).
    let draft = j["memory"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "draft weights")
        .map(|e| f(&e["bytes"]))
        .unwrap();
    let floor = 256.0 * 3.0 * 7168.0 * 2048.0 / 8.0 + 2.0 * 7168.0 * 7168.0 * 2.0;
    assert!(
        draft > floor && draft < floor + 0.1e9,
        "draft weights {draft} vs {floor}"
    );
    // The MTP layer's KV: one MLA layer, (512 + 64) × 2 B = 1152 B per token.
    assert_eq!(j["memory"]["draft_cell_size_bytes"], 1152);
}

#[test]
fn nextn_needs_an_mtp_layer_and_no_draft() {
    let text = std::fs::read_to_string(scenario(DSV3)).unwrap();
    let p = scratch("mtp-kimi").join("s.toml");
    std::fs::write(
        &p,
        text.replace("preset = \"deepseek-v3\"", "preset = \"kimi-k2.5\""),
    )
    .unwrap();
    let o = tpsim(&["run", &p.display().to_string()]);
    assert!(
        o.code == 2
            && o.stderr.contains("num_nextn_predict_layers = 0")
            && o.stderr.contains("speculative.algorithm"),
        "{}",
        o.stderr
    );
    let q = scratch("mtp-draft").join("s.toml");
    std::fs::write(
        &q,
        text.replace(
            "algorithm = \"nextn\"",
            "algorithm = \"nextn\"\ndraft = \"kimi-k2.5-eagle3\"",
        ),
    )
    .unwrap();
    let o = tpsim(&["run", &q.display().to_string()]);
    assert!(o.code == 2 && o.stderr.contains("remove `draft`"), "{}", o.stderr);
}

//! families28 (issue #17): StepFun Step-3.5-Flash (`Step3p5ForCausalLM`, `tpsim_model::llm::step3p5`)
//! end to end. The parameters are pinned by hand in `model/src/llm/tests_families28.rs`
//! (196,956,130,368; the card's 196B); here the bundled bf16 example runs under SGLang 0.5.9 on 8× RTX
//! PRO 6000 with its weights a rank, KV cell, hybrid SWA split and pools by hand, and what tpsim does
//! not serve is refused. No public start-up log of Step-3.5-Flash with its memory lines was found.

use crate::common::*;

const STEP: &str = "examples/step-3.5-flash-sglang-rtxpro6000x8.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(STEP, name, edit)
}

/// bf16 weights a rank at tp 8 (tolerance: none, integers; SGLang 0.5.9 `step3p5.py` sharding):
/// - embedding and untied head 2 × 128,896 / 8 × 4,096 × 2 = 263,979,008;
/// - a full layer: q 8 heads × 128 × 4,096 × 2 = 8,388,608; k + v 1 head each 2,097,152; o 8,388,608;
///   g_proj 8 × 4,096 × 2 = 65,536; q/k norms 2 × 128 × 2 = 512 → 18,940,416, × 12 = 227,284,992;
/// - a sliding layer (96 / 8 = 12 heads): 12,582,912 + 2,097,152 + 12,582,912 + 98,304 + 512 =
///   27,361,792, × 33 = 902,939,136;
/// - a dense MLP 3 × 4,096 × 11,264 / 8 × 2 = 34,603,008, × 3 = 103,809,024;
/// - a MoE layer: 289 experts (288 + the shared one) × 3 × 4,096 × 160 × 2 = 1,136,394,240; fp32
///   router 288 × 4,096 × 4 = 4,718,592 and bias 288 × 4 = 1,152 → 1,141,113,984, × 42 =
///   47,926,787,328;
/// - norms 45 × 2 × 4,096 × 2 = 737,280 + the final 8,192
///
/// → 49,425,544,960 B. Cell: 1 KV head a rank (8 / 8) × (128 + 128) × 2 B = 512 B a layer; 12 full +
/// 33 sliding = 23,040 B. SGLang 0.5.9's split weighs the bytes: full = int(T × 23,040 / (6,144 + 0.8
/// × 16,896)) = int(T × 23,040 / 19,660.8), swa = int(full × 0.8), bytes (full + 1) × 512 × 12 and
/// (swa + 1) × 512 × 33. All-reduces a pass: one per attention and per feed-forward × 45 + the
/// embedding's = 91.
#[test]
fn step3p5_sglang_rtxpro6000_by_hand() {
    let run = run_json(&scenario(STEP));
    assert_eq!(run["verdict"], "ok");
    let full_layer = 8_388_608 + 2_097_152 + 8_388_608 + 65_536 + 512;
    let swa_layer = 12_582_912 + 2_097_152 + 12_582_912 + 98_304 + 512;
    let moe_layer = 289 * 3 * 4_096 * 160 * 2 + 4_718_592 + 1_152;
    assert_eq!(
        (full_layer, swa_layer, moe_layer),
        (18_940_416_u64, 27_361_792_u64, 1_141_113_984_u64)
    );
    let weights =
        263_979_008 + 12 * full_layer + 33 * swa_layer + 3 * 34_603_008 + 42 * moe_layer + 737_280 + 8_192;
    assert_eq!(weights, 49_425_544_960);
    assert_eq!(entry_bytes(&run, "target weights"), weights);
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 23_040);
    let t = (f(&m["rest_gib"]) * (1u64 << 30) as f64 / 23_040.0).floor() as u64;
    let full = (t as f64 * 23_040.0 / (6_144.0 + 0.8 * 16_896.0)).trunc() as u64;
    let swa = (full as f64 * 0.8).trunc() as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), full);
    let (name, bytes) = pool_entry(&run, "target KV pool, full layers");
    assert!(name.contains(&format!("12 × {full} tokens")), "{name}");
    assert_eq!(bytes, (full + 1) * 512 * 12);
    let (name, bytes) = pool_entry(&run, "target KV pool, SWA layers");
    assert!(name.contains(&format!("33 × {swa} tokens")), "{name}");
    assert_eq!(bytes, (swa + 1) * 512 * 33);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 91);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// What tpsim does not serve: SGLang before 0.5.9 (no `models/step3p5.py`), vLLM before 0.15.1, the
/// three-layer MTP draft (SGLang's `Step3p5MTP` with spec v2), each refused with exit 2 and its reason.
#[test]
fn step3p5_refusals() {
    let old = variant("step-0.5.8", |t| t.replace("\"0.5.9\"", "\"0.5.8\""));
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("models/step3p5.py") && o.stderr.contains("SGLang adds it in 0.5.9"),
        "{}",
        o.stderr
    );
    let vllm = variant("step-vllm", |t| {
        t.replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("\"0.5.9\"", "\"0.15.0\"")
            .replace("[engine.costs]", "")
            .replace("era = \"late-2025\"", "")
    });
    let o = tpsim(&["run", &vllm]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        // vllmnew53: vLLM is modelled from 0.15.1, its first release with `models/step3p5.py`.
        o.stderr
            .contains("vLLM 0.15.0 has no models/step3p5.py (vLLM adds it in 0.15.1)"),
        "{}",
        o.stderr
    );
    let mtp = variant("step-mtp", |t| {
        format!(
            "{t}\n[speculative]\nalgorithm = \"nextn\"\nnum_steps = 1\ntopk = 1\nnum_draft_tokens = 2\nacceptance = {{ alpha = 0.8 }}\n"
        )
    });
    let o = tpsim(&["run", &mtp]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("Step3p5MTP"), "{}", o.stderr);
}

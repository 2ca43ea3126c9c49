//! families34 (issue #17): Qwen4-Exp (`Qwen4ExpForConditionalGeneration`,
//! `tpsim_model::llm::qwen4_exp`) end to end. tpsim reads the Qwen3.8-Flash-Next config
//! (tests/data/models/qwen3.8-flash-next, reconstructed from the values public repositories quote;
//! see its README) and counts its parameters (pinned by hand in `model/src/llm/tests_families34.rs`:
//! 125,743,653,760 in the main model, the card's 125B; 51,200,245,760 in the n-gram table, the
//! card's 51B), then refuses it under both engines as not modelled — its QSA pools, gated-residual
//! and n-gram kernels are not — with exit 2 and no throughput or memory plan.

use crate::common::*;

/// `run`, `memory` and `validate` all refuse with exit 2 (bad input: the model, not the engine's
/// verdict), naming the architecture, what was read (48 layers: 36 GDN, 12 gated attention with a
/// 4 × 128 QSA indexer choosing 2,048 tokens; 125,743,653,760 main-model parameters; 25,344 B a
/// cached token: 12 × (2 × 2 × 256 × 2 + 128 × 2 / 4)) and the first releases read from the wheels
/// (SGLang 0.5.20: 0.5.19 has no srt/models/qwen4_exp.py; vLLM 0.29.0: 0.28.0's registry has no
/// Qwen4Exp entry). The same text under SGLang 0.5.20 / 0.5.23 and vLLM 0.34.0.
#[test]
fn qwen3_8_flash_next_refused_as_not_modelled() {
    let config = data_path("models/qwen3.8-flash-next/config.json");
    for (engine, version) in [("sglang", "0.5.20"), ("sglang", "0.5.23"), ("vllm", "0.34.0")] {
        let f = config_scenario(&format!("qwen4exp-{engine}-{version}"), &config, engine, version);
        for cmd in ["run", "memory", "validate"] {
            let o = tpsim(&[cmd, &f]);
            assert_eq!(o.code, 2, "{cmd} {engine}: {} {}", o.stdout, o.stderr);
            assert!(!o.stdout.contains("tok/s"), "{}", o.stdout);
            for part in [
                "architecture `Qwen4ExpForConditionalGeneration` is not modelled",
                "48 layers (36 Gated DeltaNet, 12 gated attention with a QSA indexer of 4 heads x 128 choosing 2048",
                "125743653760 main-model parameters",
                "25344 B a token",
                "SGLang serves Qwen4ExpForConditionalGeneration from 0.5.20",
                "vLLM both names from 0.29.0",
            ] {
                assert!(
                    o.stderr.contains(part),
                    "{cmd} {engine}: {part} not in {}",
                    o.stderr
                );
            }
        }
    }
}

/// A config that breaks an engine rule is refused for that rule, not as "not modelled": SGLang
/// 0.5.23 `layers/attention/qsa/config.py` `_parse_compressed` ("fast_topk_v2 requires
/// indexer_budget / indexer_compress_ratio to be one of [512, 2048]": 2,048 / 8 = 256 is not).
#[test]
fn qwen4_exp_bad_qsa_ratio_names_its_keys() {
    let src = std::fs::read_to_string(data_path("models/qwen3.8-flash-next/config.json")).expect("read");
    let from = "\"indexer_compress_ratio\": 4";
    assert!(src.contains(from), "{from}");
    let dir = scratch("qwen4exp-bad-ratio");
    let cfg = dir.join("config.json");
    std::fs::write(&cfg, src.replacen(from, "\"indexer_compress_ratio\": 8", 1)).expect("write");
    let f = config_scenario("qwen4exp-bad-ratio-s", &cfg, "sglang", "0.5.23");
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("`indexer_budget / indexer_compress_ratio` = 2048 / 8"),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("is not modelled"), "{}", o.stderr);
}

// families36: Hy3 is lowered now; its first releases and figures are checked in the families36 suite.

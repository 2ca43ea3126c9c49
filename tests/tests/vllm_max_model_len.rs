//! Issue #17/#18 (vllmmaxlen): without `--max-model-len` vLLM takes the length it derives from
//! config.json (`config/model.py` `_get_and_verify_max_len`, 0.11.0: the smallest of
//! `max_position_embeddings` and the other length keys; Llama-3.1's `rope_scaling` is of type
//! `llama3`, which vLLM does not multiply) and refuses to start when one request of it does not fit
//! the KV cache (`v1/core/kv_cache_utils.py` `_check_enough_kv_cache_memory`) — the common vLLM
//! start-up failure (vllm#2418, vllm#7195).

use tpsim::decode::Verdict;

const GIB: f64 = (1u64 << 30) as f64;

fn plan(extra: &str) -> tpsim::decode::MemoryPlan {
    let text = format!(
        "[hardware]\npreset = \"rtx-4090-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\ntp = 1\n{extra}"
    );
    let s = tpsim::scenario::load_str(&text, std::path::Path::new("maxlen.toml")).unwrap();
    tpsim::plan_memory(&s)
}

/// Llama-3.1-8B (config.json `max_position_embeddings` 131,072) on one 24 GB RTX 4090 at vLLM's
/// defaults. By hand: cell = 32 layers × 8 KV heads × 128 × 2 (K, V) × 2 B = 131,072 B per token;
/// one 131,072-token request needs 131,072 × 131,072 B = 16 GiB ("16.00"), more than a 24 GB card
/// has for KV after 0.9 × 23.6 GiB − 15 GiB of weights. The available figure and the estimate
/// (whole 16-token blocks that fit × 16) are the plan's own; the text is vLLM's, to the character.
#[test]
fn llama_3_1_8b_on_24gb_refused_at_the_config_length() {
    let p = plan("");
    assert!(
        p.notes
            .iter()
            .any(|n| n.starts_with("max_model_len 131072 (vLLM default: from config.json")),
        "{:?}",
        p.notes
    );
    let Verdict::Oom { message, .. } = &p.verdict else {
        panic!("expected vLLM's refusal, got {:?}", p.verdict)
    };
    let available = message
        .split("available KV cache memory (")
        .nth(1)
        .and_then(|t| t.split(" GiB").next())
        .and_then(|t| t.parse::<f64>().ok())
        .expect("available figure");
    // 24 GB × 0.9 less 15 GiB of bf16 weights leaves 4-6 GiB (activation and non-torch included).
    assert!((4.0..6.0).contains(&available), "{available}");
    let blocks = (available * GIB / (16.0 * 131_072.0)).floor() as u64;
    let expected = format!(
        "ValueError: To serve at least one request with the model's max seq len (131072), (16.00 GiB KV cache is \
         needed, which is larger than the available KV cache memory ({available:.2} GiB). Based on the available \
         memory, the estimated maximum model length is {}.",
        blocks * 16
    );
    // The printed available is rounded to 0.01 GiB, so the estimate may differ by the blocks in 0.005 GiB (21).
    let est: u64 = message
        .rsplit(' ')
        .next()
        .unwrap()
        .trim_end_matches('.')
        .parse()
        .unwrap();
    assert!(est.abs_diff(blocks * 16) <= 21 * 16, "{message}\n{expected}");
    assert_eq!(
        message.split(" Based on").next(),
        expected.split(" Based on").next(),
        "{message}"
    );
}

/// The same card with `--max-model-len 8192`: 8,192 × 131,072 B = 1 GiB fits, vLLM starts, and no
/// default-length note is printed.
#[test]
fn llama_3_1_8b_on_24gb_starts_with_max_model_len_8192() {
    let p = plan("max_model_len = 8192\n");
    assert!(matches!(p.verdict, Verdict::Ok), "{:?}", p.verdict);
    assert!(p.kv_tokens >= 8192, "{}", p.kv_tokens);
    assert!(
        !p.notes
            .iter()
            .any(|n| n.contains("vLLM default: from config.json"))
    );
}

/// Decode context parallelism: each rank stores ⌈len / dcp⌉ tokens of a request (vLLM
/// `v1/kv_cache_interface.py` `FullAttentionSpec.max_memory_usage_bytes`), so the check is of
/// 131,072 / 8 = 16,384 tokens per rank: 16,384 × 131,072 B = 2 GiB, against the same pool.
#[test]
fn dcp_divides_the_checked_length() {
    let t = tpsim_model::memory::vllm_max_len_refusal(131_072, 8, 131_072, 16_000, 1.95);
    let msg = t.expect("16,000 < 16,384 tokens per rank");
    assert!(
        msg.contains("max seq len (131072), (2.00 GiB KV cache is needed") && msg.ends_with("is 128000."),
        "{msg}"
    );
    assert_eq!(
        tpsim_model::memory::vllm_max_len_refusal(131_072, 8, 131_072, 16_384, 2.0),
        None
    );
}

/// A config.json with no length key at all (the Hunyuan-A13B preset, whose public copies lack
/// `max_position_embeddings`): vLLM takes `--max-model-len` as given, and without it assumes 2048
/// tokens with its warning (`_get_and_verify_max_len`: `default_max_len = 2048`, "If none of the
/// keys were found in the config, use a default"); SGLang needs `--context-length` (tpsim's refusal
/// names that key). Found by recipes (launch command 36, vLLM's Hunyuan recipe).
#[test]
fn a_config_without_a_length_takes_max_model_len_or_vllms_2048() {
    let load = |engine: &str| {
        let text = format!(
            "[hardware]\npreset = \"mi300x-8x-xgmi\"\n[model]\npreset = \"hunyuan-a13b-instruct\"\n\
             [engine]\ntp = 2\n{engine}"
        );
        tpsim::scenario::load_str(&text, std::path::Path::new("nolen.toml"))
    };
    let s = load("name = \"vllm\"\n").unwrap();
    assert_eq!(s.engine.context_len, 2048);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("Assuming the model's maximum length is 2048")),
        "{:?}",
        s.warnings
    );
    let s = load("name = \"vllm\"\nmax_model_len = \"32k\"\n").unwrap();
    assert_eq!(s.engine.context_len, 32_000);
    assert!(!s.warnings.iter().any(|w| w.contains("Assuming")));
    let e = load("name = \"sglang\"\n").unwrap_err().to_string();
    assert!(e.contains("engine.context_length"), "{e}");
}

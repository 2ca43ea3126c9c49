//! families31 (issue #17): Mistral Large 3 (`MistralLarge3ForCausalLM`, lowered as DeepSeek-V3: both
//! engines' `models/mistral_large_3.py` subclass their `DeepseekV3ForCausalLM` and only rename the
//! checkpoint's tensors) end to end. The parameters are pinned by hand in
//! `model/src/llm/tests_families31.rs` (673,421,089,792; the card's 673B); here the bundled FP8 example
//! runs under vLLM 0.13.0 and SGLang 0.5.9 on 8× H200 with its weights a rank and KV cell by hand, the
//! first releases read from the wheels hold, SGLang's trtllm_mla rule on B200 applies, and the EAGLE
//! draft is refused. No public start-up log of Mistral Large 3 with its memory lines was found.

use crate::common::*;

const LARGE3: &str = "examples/mistral-large-3-fp8-vllm-h200x8.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(LARGE3, name, edit)
}

/// The example under SGLang `version` on `hardware`.
fn sglang(name: &str, version: &str, hardware: &str) -> String {
    variant(name, |t| {
        t.replace("name = \"vllm\"", "name = \"sglang\"")
            .replace("version = \"0.13.0\"", &format!("version = \"{version}\""))
            .replace("max_model_len = 65536", "context_length = 65536")
            .replace("h200-8x-nvlink", hardware)
    })
}

/// The checkpoint's bytes a rank at tp 8 (tolerance: none, integers; the engines' `deepseek_v2.py`
/// sharding, 128 / 8 = 16 heads a rank; fp8 tensors 1 B an element plus one fp32 scale a 128 × 128
/// block):
/// - embedding and untied head 2 × 131,072 / 8 × 7,168 × 2 = 469,762,048; final norm 14,336;
/// - attention a layer: fused q_a + kv_a replicated in bf16 (2,112 × 7,168 × 2 = 30,277,632); q_b 16 ×
///   192 = 3,072 rows × 1,536: 4,718,592 + 24 × 12 × 4 = 4,719,744; kv_b 16 × 256 = 4,096 rows × 512:
///   2,097,152 + 32 × 4 × 4 = 2,097,664; the absorbed w_kc and w_vc 2 × 16 × 128 × 512 × 2 =
///   4,194,304; o_proj 7,168 × 2,048: 14,680,064 + 56 × 16 × 4 = 14,683,648; norms 2 × 7,168 × 2 +
///   1,536 × 2 + 512 × 2 = 32,768 → 56,005,760, × 61 = 3,416,351,360;
/// - a dense MLP (16,384 / 8 = 2,048): gate_up 4,096 × 7,168: 29,360,128 + 32 × 56 × 4 = 29,367,296;
///   down 7,168 × 2,048: 14,683,648 → 44,050,944, × 3 = 132,152,832;
/// - a MoE layer, every expert split 4,096 / 8 = 512: an expert gate_up 1,024 × 7,168: 7,340,032 + 8
///   × 56 × 4 = 7,341,824, down 7,168 × 512: 3,670,016 + 56 × 4 × 4 = 3,670,912 → 11,012,736; 128
///   routed + 1 shared = 1,420,642,944; bf16 router 128 × 7,168 × 2 = 1,835,008 → 1,422,477,952, × 58
///   = 82,503,721,216
///
/// → 86,522,001,792 B. Cell: (512 + 64) × 2 B × 61 = 70,272 B a token.
const WEIGHTS: u64 = 86_522_001_792;

#[test]
fn mistral_large3_fp8_vllm_h200_by_hand() {
    let attn = 30_277_632 + 4_719_744 + 2_097_664 + 4_194_304 + 14_683_648 + 32_768;
    let dense = 29_367_296 + 14_683_648;
    let moe = 129 * (7_341_824 + 3_670_912) + 1_835_008;
    assert_eq!(
        (attn, dense, moe),
        (56_005_760_u64, 44_050_944_u64, 1_422_477_952_u64)
    );
    assert_eq!(469_762_048 + 14_336 + 61 * attn + 3 * dense + 58 * moe, WEIGHTS);
    let run = run_json(&scenario(LARGE3));
    assert_eq!(run["verdict"], "ok");
    // vLLM's "Model loading took": the checkpoint, the MLA RoPE cache in the model dtype (grok52:
    // deepseek_yarn rows original_max_position_embeddings × factor = 8,192 × 36 = 294,912, ×
    // qk_rope_head_dim 64 × 2 B = 37,748,736) and the caching allocator's block rounding, which is
    // tpsim's replay of the load (vrows4, `ModelSpec::vllm_load_block_overhead`: 14,680,064 B, 61 ×
    // 240,656 — not derived by hand here).
    assert_eq!(
        entry_bytes(&run, "target weights"),
        WEIGHTS + 37_748_736 + 14_680_064
    );
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 70_272);
    // KV = requested − weights − activation − non-torch, in whole tokens of 70,272 B (at most one
    // 64-token block short of the budget).
    let rest = f(&m["rest_gib"]) * (1u64 << 30) as f64;
    let tokens = m["kv_tokens"].as_u64().unwrap();
    assert!(
        tokens as f64 * 70_272.0 <= rest && (tokens + 64) as f64 * 70_272.0 > rest,
        "{tokens}"
    );
    // One all-reduce after each attention and each feed-forward block, 61 × 2, and the embedding's.
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 123);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// SGLang 0.5.9 on the same box: the same checkpoint bytes (no allocator rounding in its "Load weight
/// end" figure), and DeepSeek's float32 RoPE caches beside them (rope51: 294,912 × 64 × 4 B =
/// 75,497,472, and from 0.5.7 the `cos_cached_total` / `sin_cached_total` pair: 3 × 75,497,472 =
/// 226,492,416).
#[test]
fn mistral_large3_fp8_sglang_h200_by_hand() {
    let run = run_json(&sglang("large3-sglang", "0.5.9", "h200-8x-nvlink"));
    assert_eq!(run["verdict"], "ok");
    assert_eq!(entry_bytes(&run, "target weights"), WEIGHTS);
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), 226_492_416);
    assert_eq!(run["memory"]["cell_size_bytes"].as_u64().unwrap(), 70_272);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 123);
}

/// SGLang's `_handle_model_specific_adjustments` lists `MistralLarge3ForCausalLM` with
/// `DeepseekV3ForCausalLM` (0.5.6.post1 … 0.5.9 `server_args.py`): on SM 10.x it picks `trtllm_mla`,
/// whose page-size rule then warns with SGLang's text.
#[test]
fn mistral_large3_sglang_b200_takes_trtllm_mla() {
    let o = tpsim(&["run", &sglang("large3-b200", "0.5.9", "b200-8x-nvlink")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from None to 64."
        ),
        "{}",
        o.stderr
    );
}

/// First releases read from the wheels' file lists (`scenario::first_release`): SGLang 0.5.6 has no
/// `models/mistral_large_3.py`, 0.5.6.post1 has it; vLLM 0.11.2 has no registry entry, 0.12.0 has it.
/// The EAGLE draft (SGLang `MistralLarge3ForCausalLMEagle`, vLLM `EagleMistralLarge3ForCausalLM`) is
/// refused as not modelled. Each refusal exits 2 with its reason.
#[test]
fn mistral_large3_first_releases_and_refusals() {
    let o = tpsim(&["run", &sglang("large3-0.5.6", "0.5.6", "h200-8x-nvlink")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("SGLang 0.5.6 has no models/mistral_large_3.py")
            && o.stderr.contains("SGLang ships it from 0.5.6.post1"),
        "{}",
        o.stderr
    );
    let o = tpsim(&[
        "memory",
        &sglang("large3-0.5.6.post1", "0.5.6.post1", "h200-8x-nvlink"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let old = variant("large3-vllm-0.11.2", |t| t.replace("\"0.13.0\"", "\"0.11.2\""));
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "vLLM 0.11.2 has no registry entry for MistralLarge3ForCausalLM (vLLM registers it from 0.12.0)"
        ),
        "{}",
        o.stderr
    );
    let first = variant("large3-vllm-0.12.0", |t| t.replace("\"0.13.0\"", "\"0.12.0\""));
    let o = tpsim(&["memory", &first]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let eagle = variant("large3-eagle", |t| {
        format!(
            "{t}\n[speculative]\nalgorithm = \"eagle\"\nnum_speculative_tokens = 3\nacceptance = {{ alpha = 0.8 }}\n"
        )
    });
    let o = tpsim(&["run", &eagle]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("EagleMistralLarge3ForCausalLM"), "{}", o.stderr);
}

/// Ministral 3's text model under its own class (`Ministral3ForCausalLM`, lowered as Mistral): the
/// 14B preset's `text_config` on its own, in a scratch preset directory. vLLM registers the class
/// from 0.20.0 (0.19.1's registry has no entry); SGLang's `models/ministral3.py` from 0.5.6.post1.
/// Under SGLang 0.5.9 at tp 4 its weights a rank are 6,753,658,880 B by hand
/// (`llm::tests_families31::ministral3_text_model_class_by_hand`).
#[test]
fn ministral3_text_model_class_releases() {
    let dir = scratch("ministral3-text");
    let vlm: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(scenario("models/ministral-3-14b-instruct-2512-bf16/config.json")).unwrap(),
    )
    .unwrap();
    let mut text = vlm["text_config"].clone();
    text["architectures"] = serde_json::json!(["Ministral3ForCausalLM"]);
    text["torch_dtype"] = "bfloat16".into();
    std::fs::write(dir.join("config.json"), text.to_string()).unwrap();
    std::fs::write(dir.join("quant.toml"), "dtype = \"bf16\"\n").unwrap();
    let preset = dir.display().to_string();
    let with = |name: &str, engine: &str, version: &str| {
        edited_variant("examples/ministral-3-14b-sglang-rtx4090x4.toml", name, |t| {
            t.replace("ministral-3-14b-instruct-2512-bf16", &preset)
                .replace(
                    "name = \"sglang\"",
                    &format!("name = \"{engine}\"\nversion = \"{version}\""),
                )
                .replace(
                    "context_length = 32768",
                    if engine == "vllm" {
                        "max_model_len = 32768"
                    } else {
                        "context_length = 32768"
                    },
                )
        })
    };
    let run = run_json(&with("m3-sglang-0.5.9", "sglang", "0.5.9"));
    assert_eq!(entry_bytes(&run, "target weights"), 6_753_658_880);
    let o = tpsim(&["memory", &with("m3-sglang-0.5.6", "sglang", "0.5.6")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("SGLang 0.5.6 has no models/ministral3.py"),
        "{}",
        o.stderr
    );
    let o = tpsim(&["memory", &with("m3-vllm-0.19.1", "vllm", "0.19.1")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "vLLM 0.19.1 has no registry entry for Ministral3ForCausalLM (vLLM registers it from 0.20.0)"
        ),
        "{}",
        o.stderr
    );
    let o = tpsim(&["memory", &with("m3-vllm-0.20.0", "vllm", "0.20.0")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// Why the example is on H200: on eight RTX PRO 6000 (96 GB) the FP8 checkpoint's 80.58 GiB a rank
/// (`WEIGHTS`, the vision encoder not even counted) leaves no KV cache at the engines' defaults —
/// vLLM 0.13.0 stops with its profile-run text, SGLang 0.5.9 with its own.
#[test]
fn mistral_large3_fp8_does_not_start_on_rtxpro6000x8() {
    let vllm = variant("large3-rtx-vllm", |t| {
        t.replace("h200-8x-nvlink", "rtx-pro-6000-8x-1switch")
    });
    let run = run_json(&vllm);
    assert_ne!(run["verdict"], "ok");
    assert!(
        run.to_string()
            .contains("No available memory for the cache blocks"),
        "{run}"
    );
    let run = run_json(&sglang("large3-rtx-sglang", "0.5.9", "rtx-pro-6000-8x-1switch"));
    assert_ne!(run["verdict"], "ok");
    assert!(run.to_string().contains("Not enough memory"), "{run}");
}

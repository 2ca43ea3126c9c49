//! presets11 (issue #17): checkpoints users and recipes launch that no preset described, now bundled,
//! each resolved from its HuggingFace id by `tpsim import-command` (scenarios/models/hf-ids.toml) and
//! pinned by its weights per rank and KV cell bytes, computed by hand from its config.json (exact
//! integers, no tolerance; the sharding rules of model/src/llm/weights.rs as the existing presets'
//! unit tests in model/src/llm/tests.rs spell them).

use std::path::{Path, PathBuf};
use tpsim::import_command_build::{self as build, HardwareFrom, Options};
use tpsim::scenario::{EngineKind, Scenario};

fn on(hardware: &str) -> Options {
    Options {
        hardware: HardwareFrom::Preset(hardware.into()),
        engine_version: None,
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    }
}

/// `command` imported on `hardware` and loaded; the imported TOML's text beside it.
fn import(command: &str, hardware: &str) -> (Scenario, String, Vec<String>) {
    let i = build::import(command, &on(hardware)).unwrap_or_else(|e| panic!("{command}: {e}"));
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml"))
        .unwrap_or_else(|e| panic!("{command}: {e}"));
    (s, i.text, i.notes)
}

fn launch_command(n: u32) -> String {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/data/launch-commands/{n:02}.sh"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

/// `vllm serve Qwen/Qwen3-30B-A3B -tp 4` (the id of the vLLM recipes' `models/Qwen/Qwen3-30B-A3B.yaml`)
/// resolves to the bf16 preset `qwen3-30b-a3b`, not the FP8 one. Hidden 2048, 32 / 4 heads of 128,
/// 128 experts of 768, 48 layers, vocab 151,936 untied. At tp 4:
/// - embedding and LM head: 151,936 / 4 = 37,984 rows × 2,048 × 2 B = 155,582,464 each → 311,164,928;
/// - per layer: qkv (8 × 128 + 2 × 1 × 128) × 2,048 × 2 = 5,242,880 (4 KV heads, one a rank); o 2,048 ×
///   1,024 × 2 = 4,194,304; q/k norms 2 × 128 × 2 = 512; norms 2 × 2,048 × 2 = 8,192; router 128 ×
///   2,048 × 2 = 524,288; experts 128 × 3 × (768 / 4 = 192) × 2,048 × 2 = 301,989,888 → 311,960,064;
///   × 48 = 14,974,083,072;
/// - final norm 4,096: 15,285,252,096 B (14.24 GiB).
///
/// KV per token at tp 4: 1 KV head × (128 + 128) × 48 layers × 2 B = 24,576.
#[test]
fn qwen3_30b_a3b_bf16_resolves_with_its_weights() {
    let (s, text, _) = import("vllm serve Qwen/Qwen3-30B-A3B -tp 4", "h200-8x-nvlink");
    assert!(has_line(&text, "preset = \"qwen3-30b-a3b\""), "{text}");
    assert_eq!((s.engine.kind, s.engine.tp), (EngineKind::Vllm, 4));
    assert_eq!(s.model.weight_bytes_per_rank(4).0, 15_285_252_096);
    assert_eq!(s.model.kv_cell_bytes(4), 24_576);
    assert_eq!(s.model.context_len, Some(40_960));
}

/// Launch command 55 (the vLLM recipe Qwen/Qwen3-Coder-480B-A35B.md, BF16 on 8× H200): `vllm serve
/// Qwen/Qwen3-Coder-480B-A35B-Instruct --max-model-len 32000 --enable-expert-parallel
/// --tensor-parallel-size 8 …` imports as published with the preset `qwen3-coder-480b-a35b-instruct`.
/// Hidden 6,144, 96 / 8 heads of 128, 160 experts of 2,560, 62 layers, vocab 151,936 untied; the weights
/// a rank holds at tp 8:
/// - embedding and LM head: 151,936 / 8 = 18,992 rows × 6,144 × 2 B = 233,373,696 each → 466,747,392;
/// - per layer: qkv (12 × 128 + 2 × 1 × 128) × 6,144 × 2 = 22,020,096; o 6,144 × 1,536 × 2 = 18,874,368;
///   q/k norms 512; norms 2 × 6,144 × 2 = 24,576; router 160 × 6,144 × 2 = 1,966,080; experts 160 × 3 ×
///   (2,560 / 8 = 320) × 6,144 × 2 = 1,887,436,800 → 1,930,322,432; × 62 = 119,679,990,784;
/// - final norm 12,288: 120,146,750,464 B (111.90 GiB, under the H200's 141 GB).
///
/// KV per token at tp 8: 1 KV head × 256 × 62 × 2 B = 31,744; 262,144 positions, 32,000 served.
#[test]
fn launch_command_55_qwen3_coder_480b_imports_as_published() {
    let (s, text, _) = import(&launch_command(55), "h200-8x-nvlink");
    for line in [
        "preset = \"qwen3-coder-480b-a35b-instruct\"",
        "name = \"vllm\"",
        "max_model_len = 32000",
        "enable_expert_parallel = true",
        "tp = 8",
    ] {
        assert!(has_line(&text, line), "no `{line}` in\n{text}");
    }
    s.model.validate_tp(8).expect("tp 8");
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 120_146_750_464);
    assert_eq!(s.model.kv_cell_bytes(8), 31_744);
    assert_eq!(s.model.context_len, Some(262_144));
}

/// `vllm serve moonshotai/Kimi-K2-Instruct --trust-remote-code -tp 8` (the vLLM recipe
/// moonshotai/Kimi-K2.md's model and flag) resolves to `kimi-k2-instruct`, fp8 with fp32 scales per
/// 128×128 block read from its config.json, laid out as deepseek-v3's (model tests.rs
/// `deepseek_v3_fp8_tp8`) with 64 heads, 384 experts, one dense layer and vocab 163,840. At tp 8:
/// - embedding and LM head (bf16): 163,840 / 8 = 20,480 rows × 7,168 × 2 B = 293,601,280 each →
///   587,202,560;
/// - attention per layer (8 heads a rank): fused q_a + kv_a 2,112 × 7,168 + 17 × 56 × 4 = 15,142,624;
///   q_b 1,536 × 1,536 + 12 × 12 × 4 = 2,359,872; kv_b 2,048 × 512 + 16 × 4 × 4 = 1,048,832; w_kc + w_vc
///   (bf16) 8 × (128 × 512 + 512 × 128) × 2 = 2,097,152; o 7,168 × 1,024 + 56 × 8 × 4 = 7,341,824 →
///   27,990,304; × 61 = 1,707,408,544;
/// - dense layer 0: gate_up 4,608 × 7,168 + 36 × 56 × 4 and down 7,168 × 2,304 + 56 × 18 × 4 = 49,557,312;
/// - MoE × 60: an expert's share 512 × 7,168 + 4 × 56 × 4 + 7,168 × 256 + 56 × 2 × 4 = 5,506,368, × (384
///   routed + 1 shared) = 2,119,951,680; router 384 × 7,168 × 2 + 384 × 4 (fp32 correction bias) =
///   5,506,560 → 2,125,458,240; × 60 = 127,527,494,400;
/// - norms 61 × (2 × 7,168 + 1,536 + 512) × 2 + 7,168 × 2 = 2,013,184.
///
/// Total 129,873,676,000 B (120.95 GiB). KV per token (MLA, every rank holds the latent): (512 + 64) × 61
/// × 2 B = 70,272. The printed command keeps `--trust-remote-code` (hf-ids.toml `[trust_remote_code]`).
#[test]
fn kimi_k2_instruct_resolves_with_its_fp8_weights() {
    let (s, text, _) = import(
        "vllm serve moonshotai/Kimi-K2-Instruct --trust-remote-code -tp 8",
        "h200-8x-nvlink",
    );
    assert!(has_line(&text, "preset = \"kimi-k2-instruct\""), "{text}");
    assert_eq!(s.model.num_layers, 61);
    assert_eq!(s.model.num_nextn_predict_layers, 0);
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 129_873_676_000);
    assert_eq!(s.model.kv_cell_bytes(8), 70_272);
    assert_eq!(s.model.context_len, Some(131_072));
    assert_eq!(
        tpsim::engine_args::preset_trust_remote_code("kimi-k2-instruct"),
        Some(true)
    );
}

/// `vllm serve meta-llama/Llama-3.3-70B-Instruct -tp 8` (the checkpoint of the vLLM recipe
/// Llama/Llama3.3-70B.md and `models/meta-llama/Llama-3.3-70B-Instruct.yaml`) resolves by its hf-ids
/// alias to `llama-3.1-70b` (the published config.json is that preset's key for key but
/// `transformers_version`), with the alias noted. Weights per rank at tp 8 as model tests.rs
/// `llama_70b_tp8`: embedding and LM head 2 × 16,032 × 8,192 × 2 = 525,336,576; per layer qkv (1,024 +
/// 2 × 128) × 8,192 × 2 = 20,971,520, o 16,777,216, gate/up/down 3 × 3,584 × 8,192 × 2 = 176,160,768,
/// norms 32,768 → 213,942,272 × 80 = 17,115,381,760; final norm 16,384: 17,640,734,720 B. KV per token:
/// 1 KV head × 256 × 80 × 2 B = 40,960.
#[test]
fn llama_3_3_70b_instruct_resolves_by_its_alias() {
    let (s, text, notes) = import(
        "vllm serve meta-llama/Llama-3.3-70B-Instruct -tp 8",
        "h200-8x-nvlink",
    );
    assert!(has_line(&text, "preset = \"llama-3.1-70b\""), "{text}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`meta-llama/Llama-3.3-70B-Instruct` has the same config.json geometry")),
        "{notes:?}"
    );
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 17_640_734_720);
    assert_eq!(s.model.kv_cell_bytes(8), 40_960);
    assert_eq!(s.model.context_len, Some(131_072));
    // A local copy is found by its last component too.
    let (_, text, _) = import(
        "vllm serve /models/Llama-3.3-70B-Instruct/ -tp 8",
        "h200-8x-nvlink",
    );
    assert!(has_line(&text, "preset = \"llama-3.1-70b\""), "{text}");
}

/// `vllm serve Qwen/Qwen3-30B-A3B-Thinking-2507 -tp 4` resolves to `qwen3-30b-a3b-thinking-2507`: the
/// network of [`qwen3_30b_a3b_bf16_resolves_with_its_weights`] (15,285,252,096 B a rank and 24,576 B of
/// KV per token at tp 4, the same arithmetic) with its own context, 262,144 positions against 40,960.
#[test]
fn qwen3_30b_a3b_thinking_2507_is_the_30b_network_with_262k_positions() {
    let (s, text, _) = import(
        "vllm serve Qwen/Qwen3-30B-A3B-Thinking-2507 -tp 4",
        "h200-8x-nvlink",
    );
    assert!(
        has_line(&text, "preset = \"qwen3-30b-a3b-thinking-2507\""),
        "{text}"
    );
    assert_eq!(s.model.weight_bytes_per_rank(4).0, 15_285_252_096);
    assert_eq!(s.model.kv_cell_bytes(4), 24_576);
    assert_eq!(s.model.context_len, Some(262_144));
}

/// Launch command 56 (the SGLang cookbook's Llama3.3-70B.md, tool calling): `python -m
/// sglang.launch_server --model-path meta-llama/Llama-3.3-70B-Instruct --tool-call-parser llama3 --tp 1
/// --host 0.0.0.0 --port 30000` imports as published through the alias `llama-3.1-70b`, the parser,
/// address and port kept in `extra_args`. At tp 1 a GPU holds the whole bf16 network: embedding and LM
/// head 2 × 128,256 × 8,192 × 2 = 4,202,692,608; per layer qkv (8,192 + 2 × 1,024) × 8,192 × 2 =
/// 167,772,160, o 134,217,728, gate/up/down 3 × 28,672 × 8,192 × 2 = 1,409,286,144, norms 32,768 →
/// 1,711,308,800 × 80 = 136,904,704,000; final norm 16,384: 141,107,412,992 B (131.42 GiB: more than an
/// H200 leaves after SGLang's static fraction, so it is imported on the B200 box). KV per token at tp 1:
/// 8 KV heads × 256 × 80 × 2 B = 327,680.
#[test]
fn launch_command_56_llama_3_3_70b_imports_as_published() {
    let (s, text, notes) = import(&launch_command(56), "b200-8x-nvlink");
    for line in [
        "preset = \"llama-3.1-70b\"",
        "name = \"sglang\"",
        "tp = 1",
        "extra_args = [\"--tool-call-parser\", \"llama3\", \"--host\", \"0.0.0.0\", \"--port\", \"30000\"]",
    ] {
        assert!(has_line(&text, line), "no `{line}` in\n{text}");
    }
    assert!(notes.iter().any(|n| n.contains("[aliases]")), "{notes:?}");
    assert_eq!(s.engine.kind, EngineKind::Sglang);
    assert_eq!(s.model.weight_bytes_per_rank(1).0, 141_107_412_992);
    assert_eq!(s.model.kv_cell_bytes(1), 327_680);
}

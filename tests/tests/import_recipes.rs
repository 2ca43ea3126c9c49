//! recipes (issue #17 coverage, the user's own launch command): launch commands 17–59 of
//! `tests/data/launch-commands/`, collected from the vLLM recipes (vllm-project/recipes at 8959cf64),
//! the SGLang cookbook (sgl-project/sgl-cookbook at 7b5bd9c0) and GitHub threads where users posted
//! the command they ran (RTX PRO 6000, RTX 5090, RTX 4090), each file naming its source. Every
//! command is imported with `tpsim import-command` on a box like the one it was written for and
//! either imports with the keys read off its flags by hand, or is refused with the text that stops
//! it: the engine's argparse at the release, a model no bundled preset describes (listed for the
//! families helpers), or a part tpsim does not model yet (each a lead in book/src/scenarios.md,
//! "Commands from recipes, cookbooks and issues").

use crate::common::{scratch, tpsim};
use std::path::{Path, PathBuf};
use tpsim::engine_args;
use tpsim::import_command_build::{self as build, HardwareFrom, Options};
use tpsim::scenario::{EngineKind, Scenario, ScenarioFile};

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

fn with_acceptance(hardware: &str) -> Options {
    let mut o = on(hardware);
    o.acceptance = Some("alpha = 0.7".into());
    o
}

fn command(n: u32) -> String {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/data/launch-commands/{n:02}.sh"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The imported scenario, loaded, its printed command and its text.
fn imported(n: u32, o: &Options) -> (Scenario, engine_args::EngineCommand, String) {
    let i = build::import(&command(n), o).unwrap_or_else(|e| panic!("command {n}: {e}"));
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml"))
        .unwrap_or_else(|e| panic!("command {n}: {e}"));
    let raw: ScenarioFile = tpsim::scenario::parse_toml(&i.text, Path::new("imported.toml")).expect("parses");
    let c = engine_args::command(&s, &raw, &i.text).expect("prints back");
    (s, c, i.text)
}

fn refused(n: u32, o: &Options) -> String {
    match build::import(&command(n), o) {
        Ok(i) => panic!("command {n} imports:\n{}", i.text),
        Err(e) => e,
    }
}

/// `line` is a whole line of the imported TOML.
fn has(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

fn assert_lines(n: u32, text: &str, lines: &[&str]) {
    for l in lines {
        assert!(has(text, l), "command {n}: no line `{l}` in\n{text}");
    }
}

/// Commands 17–59 are all there, each opening with the source it was copied from (a repository
/// path at a commit, or a thread's URL with its author and date).
#[test]
fn every_collected_command_names_its_source() {
    for n in 17..=59 {
        let text = command(n);
        let head = text.lines().next().unwrap_or_default();
        assert!(
            head.starts_with(&format!("# Survey command {n}: github.com/")),
            "{n}: {head}"
        );
        let header = text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        // A commit, or a date written YYYY-MM-DD.
        let date = |w: &str| {
            let d: Vec<&str> = w.trim_matches(|c: char| !c.is_ascii_digit()).split('-').collect();
            d.len() == 3
                && d.iter()
                    .zip([4, 2, 2])
                    .all(|(p, n)| p.len() == n && p.chars().all(|c| c.is_ascii_digit()))
        };
        let dated = header.contains("at commit") || header.split_whitespace().any(date);
        assert!(dated, "command {n} names no commit or date: {header}");
    }
}

/// vLLM recipes that import (values read off each recipe): 19 Qwen3-Next tp 4 with prefix caching;
/// 20 its FP8 checkpoint with `VLLM_ATTENTION_BACKEND=FLASH_ATTN` (the attention key) and the
/// FlashInfer/DeepGEMM variables left out with a note; 22 `-dp 8 --enable-expert-parallel` (tp 1 by
/// default); 23 MTP-1 through `--speculative-config`; 24 `-tp 2` on MI355X; 25 the `_` spelling
/// `--tensor_parallel_size 8` with 131072 tokens, 10240 batched, 128 sequences, 0.85, no prefix
/// caching; 26 on MI300X `--tensor-parallel-size=8 --block-size=64`, the AITER attention backend,
/// `-cc.` fields kept with a warning, `VLLM_ROCM_QUICK_REDUCE_QUANTIZATION=INT4` read; 30
/// DeepSeek-V3.2 tp 8 with `--tokenizer-mode deepseek_v32` (kept, of no effect); 31 Kimi-K2.5 `-tp 8`; 33
/// Seed-OSS tp 8; 35 Phi-4-mini at 4000 tokens; 37 Nemotron-3-Nano, 8 sequences, 262144 tokens.
#[test]
fn vllm_recipes_import_with_their_keys() {
    let h200 = on("h200-8x-nvlink");
    let (s, _, t) = imported(19, &h200);
    assert_eq!((s.engine.kind, s.engine.tp), (EngineKind::Vllm, 4));
    assert_lines(
        19,
        &t,
        &["preset = \"qwen3-next-80b-a3b\"", "enable_prefix_caching = true"],
    );
    let i = build::import(&command(20), &h200).expect("20");
    assert_lines(
        20,
        &i.text,
        &[
            "preset = \"qwen3-next-80b-a3b-fp8\"",
            "tp = 4",
            "attention_backend = \"FLASH_ATTN\"",
        ],
    );
    assert!(
        i.notes.iter().any(|n| n.contains("VLLM_USE_DEEP_GEMM=0")),
        "{:?}",
        i.notes
    );
    let (s, _, t) = imported(22, &h200);
    assert_lines(
        22,
        &t,
        &[
            "preset = \"qwen3.5-397b-a17b-fp8\"",
            "dp_size = 8",
            "enable_expert_parallel = true",
            "tp = 1",
        ],
    );
    assert!(
        s.warnings.iter().any(|w| w.contains("`--language-model-only`")),
        "{:?}",
        s.warnings
    );
    let (s, c, _) = imported(23, &with_acceptance("h200-8x-nvlink"));
    assert_eq!(s.engine.tp, 8);
    let spec = c.value_of("--speculative-config").expect("speculative");
    assert!(
        spec.contains("\"method\":\"mtp\"") && spec.contains("\"num_speculative_tokens\":1"),
        "{spec}"
    );
    let (s, _, t) = imported(24, &on("mi355x-8x-xgmi"));
    assert_eq!(s.engine.tp, 2);
    assert_lines(24, &t, &["enable_expert_parallel = true"]);
    let (s, _, t) = imported(25, &on("h100-sxm-8x-nvlink"));
    assert_eq!((s.engine.tp, s.engine.max_model_len), (8, Some(131_072)));
    assert_lines(
        25,
        &t,
        &[
            "preset = \"gpt-oss-120b\"",
            "max_num_batched_tokens = 10240",
            "max_num_seqs = 128",
            "gpu_memory_utilization = 0.85",
            "enable_prefix_caching = false",
        ],
    );
    let (s, _, t) = imported(26, &on("mi300x-8x-xgmi"));
    assert_eq!(s.engine.tp, 8);
    assert_lines(
        26,
        &t,
        &[
            "attention_backend = \"ROCM_AITER_UNIFIED_ATTN\"",
            "gpu_memory_utilization = 0.95",
            "page_size = 64",
            "VLLM_ROCM_QUICK_REDUCE_QUANTIZATION = \"INT4\"",
        ],
    );
    assert!(
        s.warnings.iter().any(|w| w
            .contains("`-cc.pass_config.fuse_rope_kvcache=True` is accepted by the engine but not modelled")),
        "{:?}",
        s.warnings
    );
    let (s, _, t) = imported(30, &h200);
    assert_eq!(s.engine.tp, 8);
    assert_lines(30, &t, &["preset = \"deepseek-v3.2\""]);
    // The tokenizer mode is kept as written and is of no effect on the prediction (stop 54: the
    // tokenizer turns text into token ids; tpsim's workloads are token counts), so not warned.
    assert!(t.contains("\"--tokenizer-mode\", \"deepseek_v32\""), "{t}");
    assert!(
        !s.warnings.iter().any(|w| w.contains("--tokenizer-mode")),
        "{:?}",
        s.warnings
    );
    let (s, _, t) = imported(31, &h200);
    assert_eq!(s.engine.tp, 8);
    assert_lines(31, &t, &["preset = \"kimi-k2.5\""]);
    let (s, _, t) = imported(33, &h200);
    assert_eq!(s.engine.tp, 8);
    assert_lines(33, &t, &["preset = \"seed-oss-36b-instruct\""]);
    let h100 = on("h100-sxm-1x");
    let (s, _, t) = imported(35, &h100);
    assert_eq!((s.engine.tp, s.engine.max_model_len), (1, Some(4000)));
    assert_lines(35, &t, &["preset = \"phi-4-mini\""]);
    let (s, _, t) = imported(37, &h100);
    assert_eq!((s.engine.tp, s.engine.max_model_len), (1, Some(262_144)));
    assert_lines(
        37,
        &t,
        &["preset = \"nemotron-3-nano-30b-a3b\"", "max_num_seqs = 8"],
    );
}

/// SGLang cookbook commands that import: 40 gpt-oss-120b `--tp 8`; 42 GLM-4.6 `--tp 8`; 43
/// `sglang serve --model-path MiniMaxAI/MiniMax-M2.5 --tp 8 --ep 8 --mem-fraction-static 0.85`
/// (the `sglang` console script, SGLang 0.5.8 `cli/serve.py`); 44 the same model `--tp 4`; 45
/// DeepSeek-V3 `--tp 8 --dp 8 --enable-dp-attention` with EAGLE and no draft path (the model's MTP
/// layer, `nextn`, 3 steps, topk 1, 4 draft tokens); 46 Qwen3-Next `--tp 8`. 41 (the base
/// Llama-3.1-70B): [`real_checkpoints_resolve_by_alias_or_their_own_preset`].
#[test]
fn sglang_cookbook_commands_import() {
    let h200 = on("h200-8x-nvlink");
    for (n, preset, tp) in [
        (40, "gpt-oss-120b", 8),
        (42, "glm-4.6", 8),
        (43, "minimax-m2.5", 8),
        (44, "minimax-m2.5", 4),
        (46, "qwen3-next-80b-a3b", 8),
    ] {
        let (s, _, t) = imported(n, &h200);
        assert_eq!((s.engine.kind, s.engine.tp), (EngineKind::Sglang, tp), "{n}");
        assert_lines(n, &t, &[&format!("preset = \"{preset}\"")]);
    }
    let (_, c, t) = imported(43, &h200);
    assert_lines(43, &t, &["ep_size = 8", "mem_fraction_static = 0.85"]);
    assert_eq!(c.value_of("--ep-size"), Some("8"));
    let (_, _, t) = imported(44, &h200);
    assert_lines(44, &t, &["mem_fraction_static = 0.85"]);
    let (s, _, t) = imported(45, &with_acceptance("h200-8x-nvlink"));
    assert_eq!(s.engine.tp, 8);
    assert_lines(
        45,
        &t,
        &[
            "preset = \"deepseek-v3\"",
            "dp_size = 8",
            "enable_dp_attention = true",
            "algorithm = \"nextn\"",
            "num_steps = 3",
            "topk = 1",
            "num_draft_tokens = 4",
        ],
    );
}

/// Commands users posted: 47 (vLLM PR 29240, GLM-4.6-FP8 on 8× RTX PRO 6000: tp 8, expert
/// parallel, 32768 tokens, the quoted model path) and 48 (EuroEval issue 1120, the older API-server
/// entry point: gpt-oss-120b tp 2 at 0.9). 52 (ReCall issue 43, `xxx/Models/Qwen/Qwen2.5-1.5B-Instruct`)
/// is the `qwen2.5-1.5b` preset by its path's last component (presets10; before, the Qwen2.5-7B preset
/// was named in its place): `--disable-overlap` is argparse's unique prefix of
/// `--disable-overlap-schedule`, `--disable-cuda-graph` turns CUDA graphs off, `--dtype bfloat16`,
/// 6000 tokens, 0.7, tp 4; KV per token at tp 4: 2 KV heads replicated to 1 per rank × (128 + 128) ×
/// 28 layers × 2 B = 14,336.
#[test]
fn user_commands_import() {
    let (s, _, t) = imported(47, &on("rtx-pro-6000-8x-1switch"));
    assert_eq!((s.engine.tp, s.engine.max_model_len), (8, Some(32_768)));
    assert_lines(
        47,
        &t,
        &["preset = \"glm-4.6-fp8\"", "enable_expert_parallel = true"],
    );
    let (s, c, t) = imported(48, &on("h200-8x-nvlink"));
    assert_eq!((s.engine.kind, s.engine.tp), (EngineKind::Vllm, 2));
    assert_lines(48, &t, &["preset = \"gpt-oss-120b\""]);
    assert_eq!(c.value_of("--gpu-memory-utilization"), Some("0.9"));
    let (s, _, t) = imported(52, &on("rtx-4090-4x-no-p2p"));
    assert_eq!(s.engine.tp, 4);
    assert_eq!(s.model.kv_cell_bytes(4), 14_336);
    assert!(!s.engine.cuda_graph);
    assert_lines(
        52,
        &t,
        &[
            "preset = \"qwen2.5-1.5b\"",
            "context_length = 6000",
            "dtype = \"bfloat16\"",
            "disable_overlap_schedule = true",
            "disable_radix_cache = true",
            "cuda_graph = false",
            "mem_fraction_static = 0.7",
        ],
    );
}

/// Flags the engine no longer takes, refused with argparse's text at the release read (vLLM 0.19.0,
/// tpsim's current): `--disable-log-requests` (17, 18, 54), `--swap-space` (49), `--enable-reasoning`
/// (50, also at 0.11.0, the oldest list tpsim holds; its user ran a 0.8.5 build). At the release the
/// recipe was written for, 17 imports (`--engine-version 0.11.0`: tp 4 by `-tp`, swap 32 GiB,
/// 32768 batched tokens and length, no prefix caching, 0.8; `--distributed-executor-backend mp`
/// kept as `engine.distributed_executor_backend` since args58, in one box the engine's default).
#[test]
fn flags_gone_from_the_release_are_refused_with_argparse_text() {
    let h200 = on("h200-8x-nvlink");
    for n in [17, 18] {
        let e = refused(n, &h200);
        assert!(
            e.contains("vLLM 0.19.0 refuses it: argparse stops with \"vllm serve: error: unrecognized arguments: --disable-log-requests\""),
            "{n}: {e}"
        );
    }
    let e = refused(54, &on("rtx-5090-2x-no-p2p"));
    assert!(
        e.contains("unrecognized arguments: --disable-log-requests"),
        "{e}"
    );
    let e = refused(49, &on("rtx-4090-4x-no-p2p"));
    assert!(e.contains("unrecognized arguments: --swap-space"), "{e}");
    let mut old = on("rtx-5090-2x-no-p2p");
    let e = refused(50, &old);
    assert!(
        e.contains("vLLM 0.19.0 refuses it") && e.contains("--enable-reasoning"),
        "{e}"
    );
    old.engine_version = Some("0.11.0".into());
    let e = refused(50, &old);
    assert!(
        e.contains("vLLM 0.11.0 refuses it") && e.contains("--enable-reasoning"),
        "{e}"
    );
    let mut o = on("h200-8x-nvlink");
    o.engine_version = Some("0.11.0".into());
    let i = build::import(&command(17), &o).expect("17 at 0.11.0");
    assert_lines(
        17,
        &i.text,
        &[
            "preset = \"qwen3-235b-a22b\"",
            "version = \"0.11.0\"",
            "tp = 4",
            "swap_space = 32.0",
            "max_num_batched_tokens = 32768",
            "max_model_len = 32768",
            "enable_prefix_caching = false",
            "gpu_memory_utilization = 0.8",
            "extra_args = [\"--disable-log-requests\"]",
            "distributed_executor_backend = \"mp\"",
        ],
    );
}

/// Checkpoints no bundled preset describes (exit 2 listing the presets; for the families helpers):
/// DeepSeek-R1-0528 (29: no public copy of its config.json found to compare with DeepSeek-R1's),
/// Ring-1T-FP8 (38); at vLLM 0.11.0, where their flags pass, CodeLlama-13b (49) and RedHatAI's
/// Llama-3.1-8B FP8 (54, in a locally built vLLM image). Qwen3-8B-FP8 (53) imports since presets64's
/// `qwen3-8b-fp8`, read by the last component of its path: tp 1, context 8,000.
#[test]
fn checkpoints_without_a_preset_are_named() {
    let (s, _, t) = imported(53, &on("rtx-5090-2x-no-p2p"));
    assert!(has(&t, "preset = \"qwen3-8b-fp8\""), "{t}");
    assert_eq!(s.engine.tp, 1);
    for (n, hw, model) in [
        (29, "h200-8x-nvlink", "deepseek-ai/DeepSeek-R1-0528"),
        (38, "h200-8x-nvlink", "inclusionAI/Ring-1T-FP8"),
    ] {
        let e = refused(n, &on(hw));
        assert!(
            e.contains(&format!("`{model}` is no bundled model preset")),
            "{n}: {e}"
        );
    }
    for (n, hw, model) in [
        (49, "rtx-4090-4x-no-p2p", "/home/models/CodeLlama-13b-hf"),
        (
            54,
            "rtx-5090-2x-no-p2p",
            "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8",
        ),
    ] {
        let mut o = on(hw);
        o.engine_version = Some("0.11.0".into());
        let e = refused(n, &o);
        assert!(
            e.contains(&format!("`{model}` is no bundled model preset")),
            "{n}: {e}"
        );
    }
}

/// vLLM's dotted form of a JSON argument (`--speculative-config.method mtp
/// --speculative-config.num_speculative_tokens 1`, GLM recipe 27) is the same JSON object
/// (`FlexibleArgumentParser` merges the fields; `1` is read as JSON, `mtp` as text). Before recipes it
/// was refused as "not JSON". 27 (GLM-4.7-FP8, its own preset `glm-4.7-fp8` since presets56, an alias of `glm-4.6-fp8` before) imports as
/// MTP with one token at tp 4; 28 (GLM-5.1-FP8, read as `glm-5-fp8` by its alias) reads 3 tokens and
/// imports (vllmmtp64: vLLM maps `glm_moe_dsa` to `deepseek_mtp` from 0.16.0; until then tpsim refused it).
#[test]
fn dotted_speculative_config_is_read_as_json() {
    let o = with_acceptance("h200-8x-nvlink");
    let (s, c, t) = imported(27, &o);
    assert_eq!(s.engine.tp, 4);
    assert_lines(27, &t, &["algorithm = \"mtp\"", "num_speculative_tokens = 1"]);
    assert_eq!(
        c.value_of("--speculative-config"),
        Some("{\"method\":\"mtp\",\"num_speculative_tokens\":1}")
    );
    let (_, _, t) = imported(28, &o);
    assert_lines(28, &t, &["algorithm = \"mtp\"", "num_speculative_tokens = 3"]);
    // The dotted fields are appended as one JSON argument after the others, so they replace a
    // whole `--speculative-config` given before them (argparse keeps the last).
    let line = "vllm serve zai-org/GLM-4.6-FP8 -tp 4 --speculative-config '{\"method\":\"ngram\",\"num_speculative_tokens\":5}' --speculative-config.method mtp --speculative-config.num_speculative_tokens=2";
    let i = build::import(line, &with_acceptance("h200-8x-nvlink")).expect("dotted after JSON");
    assert_lines(0, &i.text, &["algorithm = \"mtp\"", "num_speculative_tokens = 2"]);
}

/// Parts tpsim does not model yet, refused naming them (leads, book "Commands from recipes,
/// cookbooks and issues"): ERNIE-4.5's `ernie_mtp` method (34: read as written, then refused at the
/// vLLM MTP table: vLLM's `ernie_mtp` block is a dense Llama layer tpsim's draft does not build).
/// vLLM's Qwen3-Next MTP draft (21) was refused here until vllmmtp64 and now imports.
#[test]
fn parts_tpsim_does_not_model_are_named() {
    let (_, _, t) = imported(21, &with_acceptance("h200-8x-nvlink"));
    assert_lines(
        21,
        &t,
        &["algorithm = \"qwen3_next_mtp\"", "num_speculative_tokens = 2"],
    );
    // 36 imports: under vLLM a config without a length takes vLLM's assumed 2048 with its warning
    // (vllm_max_model_len::a_config_without_a_length_takes_max_model_len_or_vllms_2048).
    assert!(build::import(&command(36), &on("mi300x-8x-xgmi")).is_ok());
    let e = refused(34, &with_acceptance("h100-sxm-1x"));
    assert!(e.contains("key `speculative.algorithm`"), "{e}");
    assert!(
        e.contains("tpsim does not model vLLM's MTP draft for") && !e.contains("vLLM refuses"),
        "{e}"
    );
    assert!(
        has(&e, "algorithm = \"ernie_mtp\"") && has(&e, "draft = \"ernie-4.5-21b-a3b\""),
        "{e}"
    );
}

/// `sglang serve` (SGLang 0.5.8's console script) finds the model by the literal `--model-path`
/// before argparse runs (`cli/utils.py` `get_model_path`); `--model` there stops it with its text,
/// where `python -m sglang.launch_server --model` is argparse's prefix of `--model-path`; its
/// argparse refusals name the program `sglang`. In a Docker image it is read the same way.
#[test]
fn sglang_serve_needs_the_literal_model_path() {
    let o = on("h100-sxm-1x");
    let e = build::import("sglang serve --model meta-llama/Llama-3.1-8B-Instruct", &o).expect_err("--model");
    assert!(
        e.contains("\"Error: --model-path is required. Please provide the path to the model.\""),
        "{e}"
    );
    let i = build::import(
        "python -m sglang.launch_server --model meta-llama/Llama-3.1-8B-Instruct",
        &o,
    )
    .expect("launch_server --model");
    assert!(has(&i.text, "preset = \"llama-3.1-8b\""), "{}", i.text);
    // argparse names the program after the console script.
    let e = build::import(
        "sglang serve --model-path meta-llama/Llama-3.1-8B-Instruct --no-such-flag",
        &o,
    )
    .expect_err("unknown flag");
    assert!(
        e.contains("\"sglang: error: unrecognized arguments: --no-such-flag\""),
        "{e}"
    );
    let d = "docker run --gpus all lmsysorg/sglang:v0.5.8-cu129 sglang serve --model-path=meta-llama/Llama-3.1-8B-Instruct --tp 1";
    let i = build::import(d, &o).expect("docker sglang serve");
    assert!(
        has(&i.text, "name = \"sglang\"") && has(&i.text, "version = \"0.5.8\""),
        "{}",
        i.text
    );
}

/// `--model-config PATH` (a config.json, or a directory holding one) writes `[model] config` with
/// the absolute path, for a checkpoint no preset describes; a missing path and `--model-preset`
/// beside it are refused (exit 2).
#[test]
fn model_config_option() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/models/qwen2.5-7b");
    let abs = std::path::absolute(dir.join("config.json")).expect("absolute");
    let cmd = "vllm serve /data/Qwen2.5-7B-Instruct-local --tensor-parallel-size 2 --max-model-len 8192";
    let out = scratch("model-config").join("mine.toml");
    let o = tpsim(&[
        "import-command",
        "--hardware",
        "rtx-4090-2x-no-p2p",
        "--model-config",
        dir.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        cmd,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let text = std::fs::read_to_string(&out).expect("written");
    assert!(has(&text, &format!("config = \"{}\"", abs.display())), "{text}");
    assert!(!text.contains("preset = \"qwen2.5-7b\""), "{text}");
    let run = tpsim(&["validate", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let missing = tpsim(&[
        "import-command",
        "--hardware",
        "rtx-4090-2x-no-p2p",
        "--model-config",
        "/nonexistent/config.json",
        cmd,
    ]);
    assert_eq!(missing.code, 2);
    assert!(
        missing
            .stderr
            .contains("--model-config /nonexistent/config.json: no such file"),
        "{}",
        missing.stderr
    );
    let both = tpsim(&[
        "import-command",
        "--hardware",
        "rtx-4090-2x-no-p2p",
        "--model-config",
        dir.to_str().unwrap(),
        "--model-preset",
        "qwen2.5-7b",
        cmd,
    ]);
    assert_eq!(both.code, 2, "{}", both.stderr);
}

/// presets10 (issue #17): the real commands import without `--model-preset`, each checkpoint resolved
/// through `scenarios/models/hf-ids.toml` to a preset whose config.json is that checkpoint's (values by
/// hand, exact integers):
/// - 41 `sglang serve --model-path Meta-Llama/Llama-3.1-70B --tp 8`: the base checkpoint, an alias of
///   `llama-3.1-70b` (the same config.json but eos ids), noted; weights per rank at tp 8: vocab 128,256
///   / 8 = 16,032 rows × 8,192 × 2 B = 262,668,288 for the embedding and again for the LM head; per layer
///   qkv (1,024 + 2 × 128) × 8,192 × 2 = 20,971,520, o 8,192 × 1,024 × 2 = 16,777,216, gate/up/down
///   3 × 3,584 × 8,192 × 2 = 176,160,768, norms 2 × 8,192 × 2 = 32,768 → 213,942,272 × 80 =
///   17,115,381,760; final norm 16,384: 17,640,734,720 B (= model tests.rs `llama_3_1_70b_tp8`).
/// - 39 `--model Qwen/Qwen3-235B-A22B-Instruct-2507 --tp 8`: its own preset, 262,144 positions; KV per
///   token at tp 8: 4 KV heads replicated to 1 per rank × (128 + 128) × 94 layers × 2 B = 48,128.
/// - 32 `vllm serve MiniMaxAI/MiniMax-M2.7 --tensor-parallel-size 4`: its own preset, 204,800
///   positions; KV per token at tp 4: 8 / 4 = 2 KV heads × 256 × 62 × 2 B = 63,488.
/// - 51 `--model-path /workspace/sdb/models/QWen/Qwen2-7B-Instruct/ --tp 2` (SGLang issue 991): by its
///   last component, the alias `Qwen/Qwen2-7B-Instruct` → `qwen2.5-7b` (the same config.json but a
///   `sliding_window` that `use_sliding_window` false leaves off); KV per token at tp 2: 4 / 2 = 2 KV
///   heads × (128 + 128) × 28 × 2 B = 28,672.
/// - 52 (Qwen2.5-1.5B-Instruct): [`user_commands_import`].
/// - 27 (GLM-4.7-FP8, its own preset since presets56) / 28 (GLM-5.1-FP8, by alias):
///   [`dotted_speculative_config_is_read_as_json`].
#[test]
fn real_checkpoints_resolve_by_alias_or_their_own_preset() {
    let h200 = on("h200-8x-nvlink");
    let i = build::import(&command(41), &h200).expect("41");
    assert_lines(41, &i.text, &["preset = \"llama-3.1-70b\"", "tp = 8"]);
    assert!(
        i.notes
            .iter()
            .any(|n| n.contains("`meta-llama/Llama-3.1-70B` has the same config.json geometry")),
        "{:?}",
        i.notes
    );
    let (s, _, _) = imported(41, &h200);
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 17_640_734_720);
    let (s, _, t) = imported(39, &h200);
    assert_eq!((s.engine.kind, s.engine.tp), (EngineKind::Sglang, 8));
    assert_lines(39, &t, &["preset = \"qwen3-235b-a22b-instruct-2507\""]);
    assert_eq!(s.model.kv_cell_bytes(8), 48_128);
    assert_eq!(s.model.context_len, Some(262_144));
    let (s, c, t) = imported(32, &h200);
    assert_eq!((s.engine.kind, s.engine.tp), (EngineKind::Vllm, 4));
    assert_lines(32, &t, &["preset = \"minimax-m2.7\""]);
    assert_eq!(s.model.kv_cell_bytes(4), 63_488);
    assert_eq!(s.model.context_len, Some(204_800));
    assert!(c.args.iter().any(|a| a == "--trust-remote-code"), "{:?}", c.args);
    let i = build::import(&command(51), &on("rtx-4090-2x-no-p2p")).expect("51");
    assert_lines(51, &i.text, &["preset = \"qwen2.5-7b\"", "tp = 2"]);
    assert!(
        i.notes
            .iter()
            .any(|n| n.contains("`Qwen/Qwen2-7B-Instruct` has the same config.json geometry")),
        "{:?}",
        i.notes
    );
    let (s, _, _) = imported(51, &on("rtx-4090-2x-no-p2p"));
    assert_eq!(s.model.kv_cell_bytes(2), 28_672);
    for (n, preset) in [(27, "glm-4.7-fp8"), (28, "glm-5-fp8")] {
        let text = match build::import(&command(n), &with_acceptance("h200-8x-nvlink")) {
            Ok(i) => i.text,
            Err(e) => e,
        };
        assert!(has(&text, &format!("preset = \"{preset}\"")), "{n}: {text}");
    }
}

/// Every `[aliases]` entry of hf-ids.toml names a bundled preset and is no preset's own `[ids]`
/// repository (an id resolves to one preset only).
#[test]
fn hf_id_aliases_name_bundled_presets() {
    let aliases = build::hf_aliases();
    assert!(aliases.len() >= 7, "{aliases:?}");
    for (id, preset) in &aliases {
        assert!(
            tpsim::presets::model(preset).is_some(),
            "hf-ids.toml [aliases] `{id}` names `{preset}`, no bundled preset"
        );
        assert_ne!(engine_args::hf_id(preset).as_deref(), Some(id.as_str()), "{id}");
        assert_eq!(build::preset_of(id).as_deref(), Ok(preset.as_str()), "{id}");
    }
}

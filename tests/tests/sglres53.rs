//! sglres53 (issue #17): SGLang's default `mem_fraction_static` at each release boundary where its
//! reserve changed, 0.5.9 – 0.5.23 (`tpsim_model::sglang_reserve`, read in the PyPI wheels:
//! `sglang/srt/server_args.py` `_handle_gpu_memory_settings` to 0.5.18, `arg_groups/memory_hook.py`
//! `handle_gpu_memory_settings` from 0.5.19).
//!
//! Common part on one H100 (81,559 MiB: chunked_prefill_size 8192, cuda_graph_max_bs 256 at tp 1 and
//! 512 at tp 8): reserved = 512 + 1.5 × 8192 + 2 × max_bs + tp / 8 × 1024 (MiB), at least 10,240 above
//! 60 GiB, then the terms after the floor; fraction = round((81,559 − reserved) / 81,559, 3). The
//! fractions are compared exactly: SGLang rounds to three decimals and so does tpsim.

use std::path::Path;

/// The resolved default fraction and the warnings of a scenario on `hw` with `model`, SGLang
/// `version`, tp and extra `[engine]` lines (and a trailing section in `tail`).
fn fraction(hw: &str, model: &str, version: &str, tp: u32, keys: &str, tail: &str) -> (f64, Vec<String>) {
    let text = format!(
        "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"sglang\"\n\
         version = \"{version}\"\ntp = {tp}\n{keys}{tail}"
    );
    let s = tpsim::scenario::load_str(&text, Path::new("sglres53.toml")).unwrap();
    assert!(s.engine.fraction_is_default);
    (s.engine.mem_fraction_static, s.warnings)
}

/// The fraction to SGLang's three decimals: tpsim rounds as SGLang does, so the value is compared
/// within 5e-7, far below the 0.001 step.
fn eq3(ours: f64, expected: f64, what: &str) {
    assert!((ours - expected).abs() < 5e-7, "{what}: {ours} vs {expected}");
}

fn llama(version: &str, keys: &str) -> f64 {
    fraction("h100-sxm-1x", "llama-3.1-8b", version, 1, keys, "").0
}

/// Llama-3.1-8B, tp 1: 512 + 12,288 + 512 + 128 = 13,440 MiB.
/// - 0.5.9: prefill graphs opt-in → 13,440 → round(68,119 / 81,559, 3) = 0.835;
/// - 0.5.10 – 0.5.23: on by default, 8 MiB × 58 sizes to 8192 = 464 → 13,904 → round(0.82952) = 0.830;
/// - `enable_piecewise_cuda_graph = false` (`--disable-piecewise-cuda-graph`) → 0.835 again;
/// - 0.5.10 with max_total_tokens = 256: sizes to 256 (22, 176 MiB) → 13,616 → round(0.83305) = 0.833;
///   0.5.13 with context_length = 1024: sizes to 1024 (38, 304) → 13,744 → round(0.83148) = 0.831,
///   0.5.17 drops that cap → 0.830.
#[test]
fn prefill_graphs_by_default_from_0_5_10() {
    eq3(llama("0.5.9", ""), 0.835, "");
    for v in [
        "0.5.10", "0.5.13", "0.5.14", "0.5.15", "0.5.16", "0.5.19", "0.5.23",
    ] {
        eq3(llama(v, ""), 0.830, v);
        eq3(llama(v, "enable_piecewise_cuda_graph = false\n"), 0.835, v);
    }
    eq3(llama("0.5.9", "enable_piecewise_cuda_graph = true\n"), 0.830, "");
    eq3(llama("0.5.13", "context_length = 1024\n"), 0.831, "");
    eq3(llama("0.5.17", "context_length = 1024\n"), 0.830, "");
    eq3(llama("0.5.10", "max_total_tokens = 256\n"), 0.833, "");
    let (_, w) = fraction(
        "h100-sxm-1x",
        "llama-3.1-8b",
        "0.5.12",
        1,
        "enable_piecewise_cuda_graph = true\n",
        "",
    );
    assert!(
        w.iter()
            .any(|m| m.contains("'--enable-piecewise-cuda-graph' is deprecated")),
        "{w:?}"
    );
    let (_, w) = fraction(
        "h100-sxm-1x",
        "llama-3.1-8b",
        "0.5.16",
        1,
        "enable_piecewise_cuda_graph = false\n",
        "",
    );
    assert!(
        w.iter()
            .any(|m| m.contains("Use '--cuda-graph-backend-prefill=disabled' instead")),
        "{w:?}"
    );
}

/// Decode graphs off (`cuda_graph = false`, `--disable-cuda-graph`):
/// - 0.5.13: the cascade ignores it, both graph terms stay → 13,904 → 0.830;
/// - 0.5.14: both phases locked off, the decode term stays → 13,440 → 0.835;
/// - 0.5.15: the decode term goes too → 512 + 12,288 + 128 = 12,928 → round(0.84149) = 0.841.
#[test]
fn decode_graph_term_with_graphs_off() {
    let off = "cuda_graph = false\n";
    eq3(llama("0.5.13", off), 0.830, "");
    eq3(llama("0.5.14", off), 0.835, "");
    eq3(llama("0.5.15", off), 0.841, "");
    eq3(llama("0.5.23", off), 0.841, "");
}

/// EAGLE-3 on Llama-3.1-8B, tp 1, after the floor:
/// - 0.5.9: + 2,048 → 15,488 → round(0.81010) = 0.810;
/// - 0.5.10: + 4,096, and speculative decoding switches the prefill graphs off → 17,536 →
///   round(0.784990) = 0.785;
/// - 0.5.13: + 4,096 with the prefill graphs (0.5.11 dropped the speculative rule) → 18,000 →
///   round(0.77930) = 0.779;
/// - 0.5.14: no speculative term → 13,904 → 0.830.
#[test]
fn eagle_reserve_by_release() {
    let spec = "[speculative]\nalgorithm = \"eagle3\"\ndraft = \"llama-3.1-8b-eagle3\"\nnum_steps = 3\ntopk = 1\n\
                num_draft_tokens = 4\nacceptance = { alpha = 0.7 }\n";
    let f = |v: &str| fraction("h100-sxm-1x", "llama-3.1-8b", v, 1, "", spec).0;
    eq3(f("0.5.9"), 0.810, "");
    eq3(f("0.5.10"), 0.785, "");
    eq3(f("0.5.13"), 0.779, "");
    eq3(f("0.5.14"), 0.830, "");
}

/// DeepSeek-V3 (MLA), tp 8: 512 + 12,288 + 1,024 + 1,024 = 14,848 MiB → round(0.81795) = 0.818.
/// - 0.5.10 – 0.5.14: prefill graphs with a flat 1,536 for MLA → 16,384 → round(0.79911) = 0.799;
/// - 0.5.15 – 0.5.17: breakable graphs refuse (non-DSA) MLA → 0.818; 0.5.18 keeps them → 0.799;
/// - DeepEP (`moe_a2a_backend = "deepep"`): 0.5.14 switches prefill graphs off, no DeepEP term →
///   0.818; 0.5.15 + 2,048 after the floor → 16,896 → round(0.79284) = 0.793; 0.5.18 breakable
///   graphs stay on: + 1,536 + 1,024 before, + 2,048 after → 19,456 → round(0.76145) = 0.761;
/// - graphs off from 0.5.15: 512 + 12,288 + 1,024 = 13,824 → round(0.83050) = 0.831, the fraction
///   engine-memory.tsv line 60 logged (`sglanglogs::sglang_2026_08_default_fraction_h100`).
#[test]
fn mla_deepep_and_graphs_off_tp8() {
    let f = |v: &str, keys: &str| fraction("h100-sxm-8x-nvlink", "deepseek-v3", v, 8, keys, "").0;
    eq3(f("0.5.9", ""), 0.818, "");
    for v in ["0.5.10", "0.5.14", "0.5.18", "0.5.23"] {
        eq3(f(v, ""), 0.799, v);
    }
    for v in ["0.5.15", "0.5.17"] {
        eq3(f(v, ""), 0.818, v);
    }
    let ep = "ep_size = 8\nmoe_a2a_backend = \"deepep\"\n";
    eq3(f("0.5.14", ep), 0.818, "");
    eq3(f("0.5.15", ep), 0.793, "");
    eq3(f("0.5.18", ep), 0.761, "");
    eq3(f("0.5.15", "cuda_graph = false\n"), 0.831, "");
    eq3(f("0.5.14", "cuda_graph = false\n"), 0.818, "");
}

/// A scenario that names an era without relying on its release keeps the era's rule (0.5.9's terms,
/// spring without the EAGLE reserve): 0.5.13 read as spring-2026 → 13,440 → 0.835, not 0.830.
#[test]
fn an_explicit_era_keeps_its_rule() {
    let f = fraction(
        "h100-sxm-1x",
        "llama-3.1-8b",
        "0.5.13",
        1,
        "",
        "[engine.costs]\nera = \"spring-2026\"\n",
    );
    eq3(f.0, 0.835, "");
}

/// engine-memory.tsv line 68: SGLang 0.5.13.post1, Qwen3-32B (bf16) at TP 4 on 4× RTX 5090 (PCIe
/// only), `--mem-fraction-static 0.88 --context-length 40960 --disable-custom-all-reduce`; logged
/// per-GPU load memory 15.50 GB and 187,069 KV tokens (cell 64 layers × 2 × 2 KV heads × 128 × 2 B =
/// 65,536 B at TP 4).
/// - Weights as SGLang counts them (free before − free after load): tpsim 15,623.2 MiB of weights +
///   20.0 MiB float32 RoPE cache (40,960 × 128 × 4 B) + 226.8 MiB of kept allocator segments =
///   15,870.0 MiB = 15.498 GiB vs 15.50 (within the ± 0.005 GiB of the printed figure).
/// - The pool, a known miss: the notes do not print the free memory before load; the logged tokens
///   imply 0.88 × total − 15.50 = 11.418 GiB, total = 30.59 GiB (1,284 MiB of the 32,607 MiB card
///   taken at init), while the RTX 5090 preset's CUDA context and NCCL take 1,587.2 MiB: total 30.29
///   GiB, rest = 30.29 − 15.50 − 0.12 × 30.29 = 11.16 GiB → 182,838 tokens, −2.26 % (asserted to the
///   token, and the miss to ± 0.05 %).
#[test]
fn sglang_0_5_13_post1_qwen3_32b_rtx_5090_tp4() {
    use crate::engine_memory_rows::{num, plan_for_line, row};
    let r = row(68, "Qwen/Qwen3-32B");
    let p = plan_for_line(
        "[hardware]\npreset = \"rtx-5090-4x-no-p2p\"\n[model]\npreset = \"qwen3-32b\"\n[engine]\nname = \"sglang\"\n\
         version = \"0.5.13.post1\"\ntp = 4\nmem_fraction_static = 0.88\ncontext_length = 40960\nallreduce = \"nccl\"\n",
        68,
    );
    let weights = p.total_gib - p.available_gib;
    assert!((weights - num(&r, "weight_mem_gb")).abs() < 0.005, "{weights}");
    assert_eq!(p.cell_size, 65_536);
    assert_eq!(p.kv_tokens, 182_838);
    let miss = p.kv_tokens as f64 / num(&r, "kv_tokens") - 1.0;
    assert!((miss + 0.0226).abs() < 0.0005, "{miss}");
    let implied = (num(&r, "kv_tokens") * 65_536.0 / (1u64 << 30) as f64 + num(&r, "weight_mem_gb")) / 0.88;
    assert!((implied - 30.588).abs() < 0.001, "{implied}");
}

/// An imported SGLang 0.5.23 command with `--disable-prefill-cuda-graph` (0.5.23's
/// `arg_groups/fields/exec_.py` flag, in tests/data/engine-args/sglang-0.5.23.txt) states
/// `enable_piecewise_cuda_graph = false`: Llama-3.1-8B on one H100 resolves 0.835 (13,440 MiB)
/// instead of the default 0.830 (13,904 MiB with 58 prefill sizes).
#[test]
fn imported_disable_prefill_cuda_graph() {
    use tpsim::import_command_build::{self as build, HardwareFrom, Options};
    let o = |version: &str| Options {
        hardware: HardwareFrom::Preset("h100-sxm-1x".into()),
        engine_version: Some(version.into()),
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    };
    let cmd = "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct";
    let f = |cmd: &str| {
        let i = build::import(cmd, &o("0.5.23")).unwrap();
        let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml")).unwrap();
        (i.text, s.engine.mem_fraction_static)
    };
    let (text, off) = f(&format!("{cmd} --disable-prefill-cuda-graph"));
    assert!(text.contains("enable_piecewise_cuda_graph = false"), "{text}");
    eq3(off, 0.835, "off");
    eq3(f(cmd).1, 0.830, "default");
}

/// SGLang keys its prefill-graph rule on the architecture name (0.5.23 `configs/model_config.py`
/// `multimodal_model_archs` lists `Gemma4ForConditionalGeneration`), not on whether tpsim models the
/// tower: Gemma 4's presets are `Gemma4ForConditionalGeneration`, so 0.5.23 switches prefill graphs off
/// for them (not on its breakable allowlist) and the 26B-A4B example on 4× RTX 5090 keeps SGLang's 0.770
/// (0.758 with the graphs' reserve, which a text-only reading gave).
/// sglmem54: 0.5.23's 20 – 35 GiB bucket (chunk 4096, max_bs 160 at tp 4, from 0.5.20) gives
/// 512 + 1.5 × 4,096 + 2 × 160 + 512 = 7,488 MiB → round(25,119 / 32,607, 3) = round(0.770350) = 0.770
/// (0.869 with 0.5.19's 2,048 / 80: 4,256 MiB).
/// vision54: times the tower's factor 0.95 × (1 − 0.1 × (27 × 1,152² / (24 × 1,024²) − 1)) =
/// 0.909736328125 → 0.770 × 0.909736328125 = 0.70049697265625.
#[test]
fn gemma4_is_multimodal_to_sglang_by_its_name() {
    let f = crate::common::scenario("examples/gemma-4-26b-a4b-sglang-rtx5090x4.toml");
    let o = crate::common::tpsim(&["memory", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("mem_fraction_static 0.700496972"),
        "{}",
        o.stdout
    );
}

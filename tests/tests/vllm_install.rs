//! installkind (issues #17 point 5, #18): `engine.install` (`"pip"` | `"docker"`) selects the
//! profile run's dummy sampler of vLLM 0.9.0 – 0.11.0 (`tpsim::scenario::vllm_install`,
//! `tpsim_model::vllm_flashinfer_sampler`): the vllm/vllm-openai image ships FlashInfer, whose
//! top-k/top-p sampler those releases take by default (no sort, 14 B per bf16 logit); a plain pip
//! install of them lacks it and sorts (38 B). Values computed by hand below, exact (integer bytes).

use crate::common::*;
use std::path::Path;
use tpsim::decode::MemKind;

/// The profile run's peak activation of a scenario, bytes.
fn peak(text: &str) -> u64 {
    let s = tpsim::scenario::load_str(text, Path::new("i.toml")).unwrap();
    let p = tpsim::plan_memory(&s);
    p.entries
        .iter()
        .find(|e| e.kind == MemKind::PeakActivation)
        .unwrap()
        .bytes
}

fn llama8b_h100(version: &str, install: &str) -> String {
    format!(
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
         tp = 1\nversion = \"{version}\"\n{install}"
    )
}

/// Llama-3.1-8B on one H100 (8,192 tokens / 1,024 sequences, vocab 128,256, hidden 4,096, bf16):
/// - FlashInfer: (8192 + 2048) × 4096 × 2 = 83,886,080 + 1024 × 128,256 × 14 = 1,838,678,016
///   → 1,922,564,096 (above the forward pass's 8192 × (3 × 14,336 + 4 × 4096) × 2 = 973,078,528)
///   + the 32 MiB cuBLAS workspace = 1,956,118,528 B;
/// - sorting: 5,108,137,984 B (tests/tests/vllm_sort_sampler.rs);
/// - 0.19.0's in-place rule: 2,023,837,696 B (same suite).
#[test]
fn install_and_release_select_the_sampler() {
    const FLASHINFER: u64 = 1_956_118_528;
    const SORT: u64 = 5_108_137_984;
    let docker = "install = \"docker\"\n";
    let pip = "install = \"pip\"\n";
    // 0.9.0 – 0.11.0: FlashInfer's sampler when it imports (the image), the sort otherwise.
    assert_eq!(peak(&llama8b_h100("0.11.0", docker)), FLASHINFER);
    assert_eq!(peak(&llama8b_h100("0.9.0", docker)), FLASHINFER);
    assert_eq!(peak(&llama8b_h100("0.11.0", pip)), SORT);
    assert_eq!(
        peak(&llama8b_h100("0.11.0", "")),
        SORT,
        "default: a plain pip install"
    );
    // 0.8.x: FlashInfer ≥ 0.2.3 falls back to the native filter; 0.11.1 on: opt-in only.
    assert_eq!(peak(&llama8b_h100("0.8.5", docker)), SORT);
    assert_eq!(peak(&llama8b_h100("0.11.1", docker)), SORT);
    assert_eq!(peak(&llama8b_h100("0.12.0", docker)), SORT);
    assert_eq!(peak(&llama8b_h100("0.19.0", docker)), 2_023_837_696);
}

/// The cloudrift 2× RTX 4090 PP 2 row (vllm/vllm-openai:latest of 2025-10-08 = v0.11.0): the binding
/// last stage of Llama-3.3-70B AWQ (hidden 8,192, vocab 128,256, dense MLP 28,672, bf16), vLLM's
/// defaults below 70 GiB (2,048 tokens, 256 sequences):
/// FlashInfer sampler (2048 + 512) × 8192 × 2 = 41,943,040 + 256 × 128,256 × 14 = 459,669,504
/// = 501,612,544 (the forward pass: 2048 × (3 × 28,672 + 4 × 8192) × 2 = 486,539,264, lower),
/// plus the received-input buffers 2 × 2048 × 8192 × 2 = 67,108,864 and the cuBLAS workspace of
/// SM 8.9 (4096 KiB × 2 + 16 KiB × 8 = 8,519,680) = 577,241,088 B (0.5376 GiB; sorting: 1.2715 GiB).
#[test]
fn cloudrift_rtx4090_pp2_profile_peak() {
    let text = std::fs::read_to_string(scenario(
        "validation/llama-3.3-70b-awq-rtx4090x2-vllm-0.11-pp2-c400.toml",
    ))
    .unwrap();
    assert!(text.contains("install = \"docker\""));
    assert_eq!(peak(&text), 577_241_088);
    let pip = text.replace("install = \"docker\"", "install = \"pip\"");
    // Sorting: 41,943,040 + 256 × 128,256 × 38 = 1,247,674,368 + 67,108,864 + 8,519,680.
    assert_eq!(peak(&pip), 1_365_245_952);
}

/// A bad value and the key under SGLang: exit 2, naming the file and the key.
#[test]
fn bad_install_exits_2() {
    let dir = scratch("bad-install");
    for (name, engine, value, expect) in [
        ("conda.toml", "vllm", "conda", "expected \"pip\""),
        ("sglang.toml", "sglang", "docker", "not a key for SGLang"),
    ] {
        let file = dir.join(name);
        std::fs::write(
            &file,
            format!(
                "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\n\
                 name = \"{engine}\"\ntp = 1\ninstall = \"{value}\"\n[workload]\nconcurrency = 1\n\
                 num_requests = 1\nprompt_len = 16\noutput_len = 4\n"
            ),
        )
        .unwrap();
        let f = file.to_str().unwrap();
        let o = tpsim(&["memory", f]);
        assert_eq!(o.code, 2, "{}", o.stderr);
        assert!(o.stderr.contains(f), "{}", o.stderr);
        assert!(o.stderr.contains("engine.install"), "{}", o.stderr);
        assert!(o.stderr.contains(expect), "{}", o.stderr);
    }
}

/// `tpsim engine-args` says which install the command runs in.
#[test]
fn engine_args_names_the_image() {
    let o = tpsim(&[
        "engine-args",
        &scenario("validation/llama-3.3-70b-awq-rtx4090x2-vllm-0.11-pp2-c400.toml"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("vllm/vllm-openai:v0.11.0 image"),
        "{}",
        o.stdout
    );
}

//! sm100moe (issue #17 fidelity): SGLang's own MoE runner on SM 10.x (B200) when
//! `engine.moe_backend` is not set (`tpsim::scenario::moe_backend::sglang_sm100`), and SGLang's
//! "Using default MoE kernel config" line only where the runner selected reads the triton
//! tuned-config table.
//!
//! Source: `srt/server_args.py` `_handle_model_specific_adjustments` of the SGLang PyPI wheels
//! 0.5.6 and 0.5.8 (`pip download --no-deps sglang==<v>`): under `is_sm100_supported()` with
//! `--moe-runner-backend auto` and no `--moe-a2a-backend`, `Qwen3MoeForCausalLM` takes
//! `flashinfer_trtllm` when `self.quantization in ("fp8", "modelopt_fp4")` (0.5.6) or also when it
//! is `None` (0.5.8: a bf16 checkpoint) and logs "Use flashinfer_trtllm as MoE runner backend on
//! sm100 for Qwen3MoeForCausalLM"; `Glm4MoeForCausalLM` only for `modelopt_fp4`; `GptOssForCausalLM`
//! with MXFP4 experts `flashinfer_mxfp4`. That runner (`layers/moe/fused_moe_triton/layer.py`
//! `FlashInferFusedMoE`, `trtllm_bf16_moe`) never calls `try_get_optimal_moe_config`, so no
//! `configs/triton_*/E=…json` is read and no default-config line is logged. SM 9.0 is untouched.

use crate::common::*;
use std::path::Path;
use tpsim::engine_args;
use tpsim::scenario;

/// `preset` on `hw` under SGLang `version` at TP `tp`, with `extra` engine lines (1 request,
/// 256-token prompt, 16 output tokens); returns the file's path.
fn write(tag: &str, hw: &str, preset: &str, version: &str, tp: u32, extra: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{preset}\"\n[engine]\n\
         name = \"sglang\"\nversion = \"{version}\"\ntp = {tp}\ntrust_remote_code = true\n{extra}\
         [workload]\nconcurrency = 1\nprompt_len = 256\noutput_len = 16\n"
    );
    let p = scratch(&format!("moe-runner-sm100-{tag}")).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The scenario's MoE backend and its default-config warnings.
fn backend_and_warning(file: &str) -> (Option<String>, Vec<String>) {
    let s = scenario::load(Path::new(file)).expect("loads");
    let w = s
        .warnings
        .iter()
        .filter(|w| w.contains("Using default MoE kernel config"))
        .cloned()
        .collect();
    (s.engine.moe_backend.clone(), w)
}

/// Qwen3-235B-A22B bf16 on 8× B200 at TP 8: N = 1536 / 8 = 192, E = 128, and no SGLang release in
/// the table ships `E=128,N=192,device_name=NVIDIA_B200.json`. Under 0.5.8 and 0.5.9 the engine
/// runs `flashinfer_trtllm` (bf16 is `quantization is None`): no warning. Stating
/// `moe_backend = "triton"` puts the triton fused MoE back, and with it the engine's line for that
/// file. On 8× H200 (SM 9.0) the rule does not apply.
#[test]
fn qwen3_moe_bf16_on_b200_runs_trtllm_from_0_5_8_without_the_triton_warning() {
    // 0.5.9's memory era is not placed by tpsim: named (it does not touch the runner).
    for (v, era) in [("0.5.8", ""), ("0.5.9", "[engine.costs]\nera = \"late-2025\"\n")] {
        let f = write(
            &format!("q235-{v}"),
            "b200-8x-nvlink",
            "qwen3-235b-a22b",
            v,
            8,
            era,
        );
        let (b, w) = backend_and_warning(&f);
        assert_eq!(b.as_deref(), Some("flashinfer_trtllm"), "{v}");
        assert!(w.is_empty(), "{v}: {w:?}");
    }
    let f = write(
        "q235-triton",
        "b200-8x-nvlink",
        "qwen3-235b-a22b",
        "0.5.8",
        8,
        "moe_backend = \"triton\"\n",
    );
    let (b, w) = backend_and_warning(&f);
    assert_eq!(b.as_deref(), Some("triton"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("configs/triton_3_5_1/E=128,N=192,device_name=NVIDIA_B200.json"),
        "{w:?}"
    );
    let f = write("q235-h200", "h200-8x-nvlink", "qwen3-235b-a22b", "0.5.8", 8, "");
    assert_eq!(backend_and_warning(&f).0, None);
}

/// 0.5.6's rule takes fp8 only: the bf16 235B stays on triton (`None`), its block-FP8 checkpoint
/// (`quant_method` fp8, TP 4: N = 384, a multiple of the 128-row block) runs `flashinfer_trtllm`.
#[test]
fn qwen3_moe_under_0_5_6_takes_trtllm_for_fp8_only() {
    let bf16 = write("q235-056", "b200-8x-nvlink", "qwen3-235b-a22b", "0.5.6", 8, "");
    assert_eq!(backend_and_warning(&bf16).0, None);
    let fp8 = write(
        "q235fp8-056",
        "b200-8x-nvlink",
        "qwen3-235b-a22b-fp8",
        "0.5.6",
        4,
        "",
    );
    assert_eq!(backend_and_warning(&fp8).0.as_deref(), Some("flashinfer_trtllm"));
}

/// GLM-4.6 bf16 (`Glm4MoeForCausalLM`: `flashinfer_trtllm` only for `modelopt_fp4`) at TP 8 on B200
/// under 0.5.8 stays on triton, reads the table for E = 160, N = 1536 / 8 = 192, finds no B200
/// file, and the engine's line is printed as before.
#[test]
fn glm46_bf16_on_b200_stays_on_triton_and_warns() {
    let f = write("glm46", "b200-8x-nvlink", "glm-4.6", "0.5.8", 8, "");
    let (b, w) = backend_and_warning(&f);
    assert_eq!(b, None);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("E=160,N=192,device_name=NVIDIA_B200.json"), "{w:?}");
}

/// The bundled B200 validation scenarios: Qwen3-Coder-Next (Qwen3-Next, bf16) under 0.5.8 runs
/// `flashinfer_trtllm`; Qwen3-Next and Qwen3-235B under 0.5.6 (bf16), GLM-4.6 under 0.5.6.post1 and
/// MiniMax-M2.5 (no rule) under 0.5.8 run triton; gpt-oss-120b (MXFP4) under 0.5.6 runs
/// `flashinfer_mxfp4`; vLLM 0.10.2 is not read (`None`).
#[test]
fn bundled_b200_scenarios_name_the_engines_runner() {
    let cases: [(&str, Option<&str>); 6] = [
        (
            "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c1",
            Some("flashinfer_trtllm"),
        ),
        ("qwen3-next-80b-a3b-b200x8-sglang-0.5.6-tp8-sharegpt-c1", None),
        ("qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c1", None),
        ("glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1", None),
        ("minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c1", None),
        (
            "gpt-oss-120b-b200x8-sglang-0.5.6-tp8-sharegpt-c1",
            Some("flashinfer_mxfp4"),
        ),
    ];
    for (name, want) in cases {
        let s = scenario::load(Path::new(&scenario(&format!("validation/{name}.toml")))).expect("loads");
        assert_eq!(s.engine.moe_backend.as_deref(), want, "{name}");
    }
    let v = scenario("validation/qwen3-next-80b-b200x8-vllm-0.10.2-tp4-c256.toml");
    assert_eq!(scenario::load(Path::new(&v)).unwrap().engine.moe_backend, None);
}

/// `tpsim engine-args`: no `--moe-runner-backend` flag (the engine picks it), a note with the pick.
#[test]
fn engine_args_note_the_sm100_pick() {
    let f = write("q235-args", "b200-8x-nvlink", "qwen3-235b-a22b", "0.5.8", 8, "");
    let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
    assert_eq!(c.value_of("--moe-runner-backend"), None);
    assert!(
        c.notes.iter().any(|n| n
            == "engine.moe_backend not set: the engine picks its MoE backend (tpsim assumes flashinfer_trtllm)"),
        "{:?}",
        c.notes
    );
}

//! b200sgl54 (issue #18): the controlled pair of deploys28 — nvidia/Kimi-K2.5-NVFP4 on the same 8× B200
//! box, same checkpoint and lengths (github.com/cloudrift-ai/deplodock, commit 5be93304,
//! `experiments/Kimi-K2.5/baseline_b200/2026-03-13_19-40-32_c599125b`): vLLM 0.17.0 steps in 6.77 ms,
//! SGLang 0.5.9 in 11.80 ms (median TPOT), where tpsim charged both alike (6.04 and 5.86 ms).
//!
//! What differs in the engines' code: vLLM 0.17.0's NVFP4 MoE oracle takes FlashInfer's TRT-LLM kernel
//! first on SM 10.0 (`fused_moe/oracle/nvfp4.py` `select_nvfp4_moe_backend`); SGLang 0.5.9 lists
//! `KimiK25ForConditionalGeneration` with DeepSeek-V3 in `_handle_model_specific_adjustments`, but
//! sets `flashinfer_trtllm` only for `quantization in ["fp8", "modelopt_fp8", "modelopt_fp4"]`, and
//! `quantization` there is the checkpoint's `quant_method`, "modelopt" (`get_quantization_config`;
//! the compose file passes no `--quantization`, the TP 4 run `--quantization modelopt`). The runner
//! stays `auto` and `ModelOptNvFp4FusedMoEMethod.apply` runs sgl-kernel's `cutlass_moe_fp4`: 16
//! launches a MoE layer where the template counts 5 (`scenario::moe_backend::extra_kernels`).
//! tpsim now names that runner `cutlass` and charges the 11 launches at the GPU's per-kernel cost;
//! nothing is fitted to the rows.

use crate::common::{edited_variant, f, run_json, scenario, scenario_for};
use std::path::Path;
use tpsim::scenario as sc;

/// The deploys28 scenarios of the pair (scenarios/validation).
const SGL_TP8_C1: &str = "validation/kimi-k2.5-nvfp4-b200x8-sglang-0.5.9-tp8-8k8k-c1.toml";
const SGL_TP4_C16: &str = "validation/kimi-k2.5-nvfp4-b200x4-sglang-0.5.9-tp4-8k8k-c16.toml";
const VLLM_TP8_C1: &str = "validation/kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c1.toml";

fn backend(path: &str) -> Option<String> {
    sc::load(Path::new(path)).expect("loads").engine.moe_backend
}

/// SGLang 0.5.9 on SM 10.0 with the checkpoint's config.json `quant_method = "modelopt"`: `cutlass`
/// (sgl-kernel's `cutlass_moe_fp4`) at TP 8 and TP 4; vLLM 0.17.0 on the same box keeps the
/// template (no named backend: its TRT-LLM kernel is the template's count); SGLang 0.5.10 (after the
/// releases read, `sglang_sm100`) is not placed (Kimi-K2.5 itself is served from 0.5.9 on).
#[test]
fn sglang_runs_cutlass_moe_fp4_for_the_modelopt_checkpoint_vllm_does_not() {
    assert_eq!(backend(&scenario(SGL_TP8_C1)).as_deref(), Some("cutlass"));
    assert_eq!(backend(&scenario(SGL_TP4_C16)).as_deref(), Some("cutlass"));
    assert_eq!(backend(&scenario(VLLM_TP8_C1)), None);
    let later = edited_variant(SGL_TP8_C1, "b200sgl54-0510", |t| {
        t.replace("version = \"0.5.9\"", "version = \"0.5.10\"")
    });
    assert_eq!(backend(&later), None);
}

/// An NVFP4 checkpoint that declares its method only in `hf_quant_config.json` (nvidia's
/// Qwen3-235B-A22B-NVFP4 preset: no `quantization_config` in config.json) is not placed: SGLang's
/// `get_quantization_config(hf_config)` sees `None` there, which the Qwen3-MoE bf16 rule of 0.5.8 /
/// 0.5.9 would turn into `flashinfer_trtllm` — a case this change does not model.
#[test]
fn an_hf_quant_config_only_checkpoint_is_not_placed() {
    let p = scenario_for(
        "b200sgl54-qwen3",
        "qwen3-235b-a22b-nvfp4",
        "sglang",
        8,
        "b200-8x-nvlink",
    );
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("[engine]\n", "[engine]\nversion = \"0.5.9\"\n");
    std::fs::write(&p, text).unwrap();
    assert_eq!(backend(&p), None);
}

/// The cost: 11 launches more in each of Kimi-K2.5's 60 MoE layers (61 layers, `first_k_dense_replace`
/// 1: config.json `text_config`) at the B200's `kernel_overhead` of 3 µs (templates/hopper-sxm.toml,
/// which b200-sxm extends): 60 × 11 × 3 µs = 1.980 ms a step, flat in the batch. Against the same
/// scenario on `flashinfer_trtllm` (what `--quantization modelopt_fp4` would select: the template's
/// count) the MoE time differs by exactly that (1 µs of rounding), at TP 8 c 1 and at TP 4 c 16.
#[test]
fn cutlass_moe_fp4_costs_eleven_launches_a_moe_layer() {
    let extra_ms = 60.0 * 11.0 * 3e-3;
    assert!((extra_ms - 1.98_f64).abs() < 1e-12);
    for (file, tag) in [(SGL_TP8_C1, "b200sgl54-trt8"), (SGL_TP4_C16, "b200sgl54-trt4")] {
        let trt = edited_variant(file, tag, |t| {
            t.replace("[engine]\n", "[engine]\nmoe_backend = \"flashinfer_trtllm\"\n")
        });
        let (a, b) = (run_json(&scenario(file)), run_json(&trt));
        let d = f(&a["breakdown_by_op"]["moe"]) - f(&b["breakdown_by_op"]["moe"]);
        assert!((d - extra_ms).abs() < 1e-3, "{file}: {d}");
        for op in ["attention", "allreduce", "lm_head"] {
            assert!(
                (f(&a["breakdown_by_op"][op]) - f(&b["breakdown_by_op"][op])).abs() < 1e-9,
                "{file} {op}"
            );
        }
    }
}

/// The rows before → after: deploys28 recorded tpsim's SGLang TP 8 c 1 median TPOT as 5.86 ms (+101.4 %
/// against the file's 11.80); with the 1.98 ms the step is 7.84 ms (5.86 + 1.98; tpsim's histogram
/// median, within 0.02 ms), +50.5 % (1000 ÷ 7.84 = 127.6 tok/s against 1000 ÷ 11.80 = 84.7): still a
/// known miss, 3.96 ms (66 µs a MoE layer) over. The vLLM half of the pair does not move (6.04 ms).
#[test]
fn the_pair_before_and_after() {
    let sgl = f(&run_json(&scenario(SGL_TP8_C1))["serving"]["tpot_ms"]["p50"]);
    assert!((sgl - (5.86 + 1.98)).abs() < 0.02, "{sgl}");
    let err = (1000.0 / sgl) / (1000.0 / 11.80) - 1.0;
    assert!((err - 0.505).abs() < 0.005, "{err}");
    let vllm = f(&run_json(&scenario(VLLM_TP8_C1))["serving"]["tpot_ms"]["p50"]);
    assert!((vllm - 6.04).abs() < 0.01, "{vllm}");
}

/// `--quantization modelopt_fp4` (`engine.quantization`) names what SGLang 0.5.9's DeepSeek / Kimi list
/// tests: `flashinfer_trtllm`, the template's count, so the TP 8 c 1 step is the one deploys28 printed
/// before this change (5.86 ms, within 0.02 ms). `--quantization modelopt` (the TP 4 launch's flag) is
/// the checkpoint's own name: `cutlass`, as without the flag. Under vLLM the names stay refused (not
/// modelled), and under SGLang on a checkpoint that is not ModelOpt NVFP4 too.
#[test]
fn quantization_modelopt_fp4_picks_trtllm_modelopt_keeps_cutlass() {
    let named = |q: &str, tag: &str| {
        edited_variant(SGL_TP8_C1, tag, |t| {
            t.replace("[engine]\n", &format!("[engine]\nquantization = \"{q}\"\n"))
        })
    };
    let fp4 = named("modelopt_fp4", "b200sgl54-fp4");
    assert_eq!(backend(&fp4).as_deref(), Some("flashinfer_trtllm"));
    let tpot = f(&run_json(&fp4)["serving"]["tpot_ms"]["p50"]);
    assert!((tpot - 5.86).abs() < 0.02, "{tpot}");
    assert_eq!(
        backend(&named("modelopt", "b200sgl54-mo")).as_deref(),
        Some("cutlass")
    );
    let vllm = edited_variant(VLLM_TP8_C1, "b200sgl54-vq", |t| {
        t.replace("[engine]\n", "[engine]\nquantization = \"modelopt_fp4\"\n")
    });
    let e = sc::load(Path::new(&vllm)).unwrap_err().to_string();
    assert!(
        e.contains("`modelopt_fp4` is one of vLLM's methods but is not modelled"),
        "{e}"
    );
    let bf16 = scenario_for("b200sgl54-bf16", "qwen3-30b-a3b", "sglang", 1, "b200-8x-nvlink");
    let text = std::fs::read_to_string(&bf16)
        .unwrap()
        .replace("[engine]\n", "[engine]\nquantization = \"modelopt_fp4\"\n");
    std::fs::write(&bf16, text).unwrap();
    let e = sc::load(Path::new(&bf16)).unwrap_err().to_string();
    assert!(
        e.contains("`modelopt_fp4` is one of SGLang's methods but is not modelled"),
        "{e}"
    );
}

/// The import gap b200sgl54 left, closed at its merge: `tpsim import-command` keeps SGLang's
/// `--quantization modelopt_fp4` / `modelopt` on a ModelOpt NVFP4 preset as `engine.quantization`
/// (before, a note only), so an imported B200 launch runs the runner that flag selects — SGLang 0.5.9's
/// Kimi-K2.5 list takes `modelopt_fp4` to `flashinfer_trtllm`, while
/// `modelopt` keeps `cutlass`, as in the scenarios above.
#[test]
fn imported_launch_keeps_sglangs_modelopt_flag() {
    let dir = crate::common::scratch("b200sgl54-import");
    for (flag, runner) in [
        ("modelopt_fp4", Some("flashinfer_trtllm")),
        ("modelopt", Some("cutlass")),
    ] {
        let out = dir.join(format!("{flag}.toml"));
        let o = crate::common::tpsim(&[
            "import-command",
            "--hardware",
            "b200-8x-nvlink",
            "--engine-version",
            "0.5.9",
            "-o",
            &out.display().to_string(),
            &format!(
                "python -m sglang.launch_server --model-path nvidia/Kimi-K2.5-NVFP4 --tp 8 --trust-remote-code \
                 --quantization {flag}"
            ),
        ]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let text = std::fs::read_to_string(&out).expect("imported scenario");
        assert!(text.contains(&format!("\nquantization = \"{flag}\"\n")), "{text}");
        assert_eq!(backend(&out.display().to_string()).as_deref(), runner, "{flag}");
    }
}

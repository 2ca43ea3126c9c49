//! moedefault: without `engine.moe_backend`, the MoE kernel backend the engine picks itself for the
//! release simulated, the GPU and the experts' format (`tpsim::scenario::moe_backend::engine_default`),
//! costed by the hardware's `[compute.moe_backends.<name>] overhead_us`; a stated key is kept.
//!
//! Sources of the rules (read from the engines' PyPI packages):
//! - vLLM 0.17.0, 0.18.0, 0.19.0 `model_executor/layers/fused_moe/oracle/nvfp4.py`
//!   `select_nvfp4_moe_backend` with `--moe-backend auto`: FLASHINFER_TRTLLM and FLASHINFER_CUTEDSL take
//!   only the SM 10.x family (`_supports_current_device`), FLASHINFER_CUTLASS (`flashinfer_cutlass_moe.py`
//!   `FlashInferExperts`) takes SM 12.x with NVFP4 weights and activations → `flashinfer_cutlass` on the
//!   RTX PRO 6000 (compute capability 12.0).
//! - SGLang 0.5.8 / 0.5.9 `srt/server_args.py`: `--moe-runner-backend` stays `auto` off SM 10.x, and
//!   `srt/layers/quantization/modelopt_quant.py` then runs sgl-kernel's `cutlass_moe_fp4`: no named
//!   backend, the template's cost.
//!
//! The cost of `flashinfer_cutlass` on this GPU is the RTX PRO 6000 template's 63.66 µs per MoE layer
//! (`moe_backend_sm120`); Qwen3.5-397B-A17B has 60 MoE layers, so at batch 1 every decode step pays
//! 60 × 63.66 µs = 3.8196 ms over the template (b12x, overhead 0, is the template's cost).

use crate::common::*;
use std::path::Path;
use tpsim::engine_args;

/// Qwen3.5-397B-A17B NVFP4 on the 4× RTX PRO 6000 box at TP 4, batch 1 (the bundled vLLM validation
/// scenario's settings), with `engine_lines` added to `[engine]`.
fn qwen35(engine: &str, engine_lines: &str, tag: &str) -> String {
    let fraction = if engine == "sglang" {
        "mem_fraction_static = 0.85\n\n[engine.costs]\nera = \"spring-2026\"\n"
    } else {
        ""
    };
    let text = format!(
        "seed = 1\n\n[hardware]\npreset = \"rtx-pro-6000-4x-turin-same-numa\"\n\n[model]\n\
         preset = \"qwen3.5-397b-a17b-nvfp4\"\n\n[engine]\nname = \"{engine}\"\ntp = 4\n{engine_lines}{fraction}\n\
         [engine.env]\nNCCL_P2P_LEVEL = \"SYS\"\n\n[workload]\nconcurrency = 1\n\
         prompt_len = 1024\noutput_len = 64\n"
    );
    let p = scratch(&format!("moe-default-{engine}-{tag}")).join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    p.display().to_string()
}

fn tpot(file: &str) -> f64 {
    f(&run_json(file)["throughput"]["tpot_ms"])
}

/// The 60 MoE layers × 63.66 µs of `flashinfer_cutlass` at batch 1, in ms; ±2 µs: the printed TPOT's
/// rounding and integer-ns op times (as `moe_backend_sm120`).
const CUTLASS_EXTRA_MS: f64 = 60.0 * 63.66 / 1000.0;

/// vLLM 0.19.0 (the release a scenario without `engine.version` means) on SM 12.0 with NVFP4 experts:
/// its oracle's pick, `flashinfer_cutlass` — the same step time as stating it, 3.8196 ms over b12x.
#[test]
fn vllm_0_19_without_the_key_runs_its_oracle_pick_on_sm120() {
    let none = tpot(&qwen35("vllm", "", "none"));
    let cut = tpot(&qwen35("vllm", "moe_backend = \"flashinfer_cutlass\"\n", "cut"));
    let b12x = tpot(&qwen35("vllm", "moe_backend = \"b12x\"\n", "b12x"));
    assert!((none - cut).abs() < 1e-9, "{none} vs {cut}");
    assert!((none - b12x - CUTLASS_EXTRA_MS).abs() < 0.002, "{b12x} → {none}");
}

/// vLLM 0.17.0 and 0.18.0 have the same `select_nvfp4_moe_backend` and kernel device checks.
#[test]
fn vllm_0_17_and_0_18_pick_the_same() {
    for v in ["0.17.0", "0.18.0"] {
        let none = tpot(&qwen35(
            "vllm",
            &format!("version = \"{v}\"\n"),
            &format!("none-{v}"),
        ));
        let b12x = tpot(&qwen35(
            "vllm",
            &format!("version = \"{v}\"\nmoe_backend = \"b12x\"\n"),
            &format!("b12x-{v}"),
        ));
        assert!(
            (none - b12x - CUTLASS_EXTRA_MS).abs() < 0.002,
            "{v}: {b12x} → {none}"
        );
    }
}

/// A release tpsim has not read (vLLM 0.20.0: after the three checked; release52: 0.16.0, the one
/// before them, cannot serve Qwen3.5, registered from 0.17.0) keeps the template's cost.
#[test]
fn vllm_release_not_read_keeps_the_template() {
    let none = tpot(&qwen35("vllm", "version = \"0.20.0\"\n", "none-020"));
    let b12x = tpot(&qwen35(
        "vllm",
        "version = \"0.20.0\"\nmoe_backend = \"b12x\"\n",
        "b12x-020",
    ));
    assert!((none - b12x).abs() < 1e-9, "{b12x} vs {none}");
}

/// SGLang 0.5.8 (no `engine.version`) keeps `auto` on SM 12.0: sgl-kernel's `cutlass_moe_fp4`, which
/// no `[compute.moe_backends]` entry costs, so the template's step time (b12x's).
#[test]
fn sglang_without_the_key_keeps_the_template_on_sm120() {
    let none = tpot(&qwen35("sglang", "", "none"));
    let b12x = tpot(&qwen35("sglang", "moe_backend = \"b12x\"\n", "b12x"));
    assert!((none - b12x).abs() < 1e-9, "{b12x} vs {none}");
}

/// A stated backend is kept whatever the engine's own pick: vLLM with `b12x` runs b12x's cost, not
/// its oracle's `flashinfer_cutlass` (the step is 3.8196 ms shorter than without the key).
#[test]
fn a_stated_backend_is_kept() {
    let none = tpot(&qwen35("vllm", "", "kept-none"));
    let b12x = tpot(&qwen35("vllm", "moe_backend = \"b12x\"\n", "kept-b12x"));
    assert!(b12x < none - 3.8, "{b12x} vs {none}");
}

/// `tpsim engine-args`: SGLang's `--moe-runner-backend` only when the scenario states it (SGLang
/// 0.5.8 `server_args.py`); without it, no flag and a note with tpsim's assumption (vLLM: its pick).
#[test]
fn engine_args_print_the_backend_only_when_stated() {
    let stated = qwen35("sglang", "moe_backend = \"flashinfer_cutlass\"\n", "args-stated");
    let (_, c) = engine_args::for_file(Path::new(&stated)).expect("command");
    assert_eq!(c.value_of("--moe-runner-backend"), Some("flashinfer_cutlass"));
    let unset = qwen35("sglang", "", "args-unset");
    let (_, c) = engine_args::for_file(Path::new(&unset)).expect("command");
    assert_eq!(c.value_of("--moe-runner-backend"), None);
    assert!(
        !c.notes.iter().any(|n| n.contains("moe_backend")),
        "{:?}",
        c.notes
    );
    let vllm = qwen35("vllm", "", "args-vllm");
    let (_, c) = engine_args::for_file(Path::new(&vllm)).expect("command");
    assert!(!c.args.iter().any(|a| a.contains("moe")), "{:?}", c.args);
    assert!(
        c.notes.iter().any(|n| n
            == "engine.moe_backend not set: the engine picks its MoE backend (tpsim assumes flashinfer_cutlass)"),
        "{:?}",
        c.notes
    );
}

/// gpt-oss-120b (MXFP4 experts) on 2 of the 8× H100 SXM at TP 2, batch 1, with `engine_lines` in
/// `[engine]` (gptoss).
fn gpt_oss_h100(engine_lines: &str, tag: &str) -> String {
    gpt_oss_h100_quant(engine_lines, "", tag)
}

/// As [`gpt_oss_h100`], with `model_lines` after the model preset (a `[model.quantization]` table).
fn gpt_oss_h100_quant(engine_lines: &str, model_lines: &str, tag: &str) -> String {
    let text = format!(
        "seed = 1\n\n[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n\n[model]\npreset = \"gpt-oss-120b\"\n{model_lines}\n\
         [engine]\nname = \"vllm\"\ntp = 2\n{engine_lines}\n[workload]\nconcurrency = 1\nprompt_len = 1024\n\
         output_len = 64\n"
    );
    let p = scratch(&format!("moe-default-gptoss-{tag}")).join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    p.display().to_string()
}

/// gptoss: vLLM 0.15.1 `quantization/mxfp4.py` `get_mxfp4_backend` on SM 9.0 (default environment,
/// triton_kernels vendored in the wheel) runs `Mxfp4Backend.TRITON`, whose MoE layer launches 9 kernels
/// (RMSNorm, router, `_topk_forward`, `_sum_bitmatrix_rows`, `_combined_routing_memset`,
/// `_combined_routing_compute`, `matmul_ogs` w13 + SwiGLU, `matmul_ogs` w2, `_reduce_grouped`) against
/// the template's 8: without the key the step is the stated `triton_kernel`'s, and one kernel per MoE
/// layer over Marlin's (template count): 36 layers × 1 × the Hopper `kernel_overhead` 3 µs = 0.108 ms
/// (±2 µs, as above; H100 has no `[compute.moe_backends]` entry, so no overhead_us). vLLM 0.19.0 (rule
/// not read for MXFP4) keeps the template.
///
/// tritonw: the backend also lays the experts out (Triton's ×64 intermediate, no hidden padding, fp32
/// biases; `scenario::moe_backend::apply_expert_layout`), so Marlin is compared with the same padding
/// written in the quant file (the fp32 biases' extra reads, 4 experts × 36 layers × (2,944 + 2,880) ×
/// 2 B = 1.7 MB, are inside the ±2 µs). Against the preset's Marlin padding the default reads
/// 4 × 36 × (7,532,544 − 6,779,776) = 108,398,592 B less per step (experts at tp 2: Marlin
/// (3072, 1536) 7,532,544 B, Triton (2880, 1472) 6,779,776 B with fp32 biases; `llm::gpt_oss`), so it is
/// faster than the kernel count alone says.
#[test]
fn vllm_0_15_mxfp4_on_h100_runs_triton_kernels_one_kernel_more() {
    let none = tpot(&gpt_oss_h100("version = \"0.15.1\"\n", "none"));
    let triton = tpot(&gpt_oss_h100(
        "version = \"0.15.1\"\nmoe_backend = \"triton_kernel\"\n",
        "triton",
    ));
    let marlin = tpot(&gpt_oss_h100_quant(
        "version = \"0.15.1\"\nmoe_backend = \"marlin\"\n",
        "[model.quantization]\ndtype = \"bf16\"\nexperts = { dtype = \"mxfp4\", pad_intermediate = 64 }\n",
        "marlin",
    ));
    let marlin_preset = tpot(&gpt_oss_h100(
        "version = \"0.15.1\"\nmoe_backend = \"marlin\"\n",
        "marlinpreset",
    ));
    assert!((none - triton).abs() < 1e-9, "{none} vs {triton}");
    assert!(
        (none - marlin - 36.0 * 3.0 / 1000.0).abs() < 0.002,
        "{marlin} → {none}"
    );
    assert!(
        none - marlin_preset < 36.0 * 3.0 / 1000.0 - 0.02,
        "{marlin_preset} → {none}"
    );
    let v19 = tpot(&gpt_oss_h100("version = \"0.19.0\"\n", "v19"));
    let v19_marlin = tpot(&gpt_oss_h100(
        "version = \"0.19.0\"\nmoe_backend = \"marlin\"\n",
        "v19marlin",
    ));
    assert!((v19 - v19_marlin).abs() < 1e-9, "{v19} vs {v19_marlin}");
}

/// gpt-oss-120b on one MI300X (gfx942, `"9.4"`), vLLM at `version`, batch 1, with `engine_lines` and
/// `model_lines` (gptoss).
fn gpt_oss_mi300x(version: &str, engine_lines: &str, model_lines: &str, tag: &str) -> String {
    let text = format!(
        "seed = 1\n\n[hardware]\npreset = \"mi300x-8x-xgmi\"\n\n[model]\npreset = \"gpt-oss-120b\"\n{model_lines}\n\
         [engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 1\n{engine_lines}\n[workload]\nconcurrency = 1\n\
         prompt_len = 1024\noutput_len = 64\n"
    );
    let p = scratch(&format!("moe-default-gptoss-mi300x-{tag}")).join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    p.display().to_string()
}

/// gptoss: vLLM 0.17.0 `quantization/mxfp4.py` `get_mxfp4_backend` on ROCm takes AITER's CK MXFP4 MoE
/// only on gfx950, so on gfx942 it runs `Mxfp4Backend.TRITON` (triton_kernels, built into vLLM's ROCm
/// image: ROCm/vllm PR 637): without the key the step is the stated `triton_kernel`'s. Its layout
/// (`create_weights`' ROCm branch: intermediate and hidden to ×128, `mxfp4_utils.get_padding_alignment`
/// off gfx950) written into the quant file under Marlin gives the same bytes, so the two differ by the
/// one kernel per MoE layer only: 36 × the MI300X `kernel_overhead` 4.3 µs (amd-instinct.toml, rocm:
/// measured in a gfx942 decode trace; 2 µs assumed before) = 0.1548 ms (±2 µs, as above). Against
/// the preset's Marlin padding (hidden 3072) the default reads
/// fewer expert bytes (hidden 2944), so it is faster than the kernel count alone says. vLLM 0.16.0
/// (not read) keeps the template.
#[test]
fn vllm_0_17_mxfp4_on_mi300x_runs_triton_kernels_with_rocm_padding() {
    let pad = "[model.quantization]\ndtype = \"bf16\"\n\
               experts = { dtype = \"mxfp4\", pad_hidden = 128, pad_intermediate = 128 }\n";
    let none = tpot(&gpt_oss_mi300x("0.17.0", "", "", "none"));
    let triton = tpot(&gpt_oss_mi300x(
        "0.17.0",
        "moe_backend = \"triton_kernel\"\n",
        "",
        "triton",
    ));
    let marlin = tpot(&gpt_oss_mi300x(
        "0.17.0",
        "moe_backend = \"marlin\"\n",
        pad,
        "marlin",
    ));
    let marlin_preset = tpot(&gpt_oss_mi300x(
        "0.17.0",
        "moe_backend = \"marlin\"\n",
        "",
        "marlinpreset",
    ));
    // amd-instinct.toml `kernel_overhead`, µs.
    const KERNEL_US: f64 = 4.3;
    assert!((none - triton).abs() < 1e-9, "{none} vs {triton}");
    assert!(
        (none - marlin - 36.0 * KERNEL_US / 1000.0).abs() < 0.002,
        "{marlin} → {none}"
    );
    assert!(
        none - marlin_preset < 36.0 * KERNEL_US / 1000.0 - 0.002,
        "{marlin_preset} → {none}"
    );
    let v16 = tpot(&gpt_oss_mi300x("0.16.0", "", "", "v16"));
    let v16_marlin = tpot(&gpt_oss_mi300x(
        "0.16.0",
        "moe_backend = \"marlin\"\n",
        "",
        "v16marlin",
    ));
    assert!((v16 - v16_marlin).abs() < 1e-9, "{v16} vs {v16_marlin}");
}

/// gptoss: vLLM 0.10.2 `get_mxfp4_backend` on SM 9.0 takes Marlin when triton_kernels is not
/// importable, and the 0.10.x wheels neither vendor nor require it (vllm PR 27370 made it a
/// dependency in October 2025): without the key the step is the stated `marlin`'s, which the template
/// costs (its 8 kernels, the preset's Marlin padding); a stated `triton_kernel` is kept and differs.
#[test]
fn vllm_0_10_mxfp4_on_h100_runs_marlin_the_template_cost() {
    let none = tpot(&gpt_oss_h100("version = \"0.10.2\"\n", "v010"));
    let marlin = tpot(&gpt_oss_h100(
        "version = \"0.10.2\"\nmoe_backend = \"marlin\"\n",
        "v010marlin",
    ));
    let triton = tpot(&gpt_oss_h100(
        "version = \"0.10.2\"\nmoe_backend = \"triton_kernel\"\n",
        "v010triton",
    ));
    assert!((none - marlin).abs() < 1e-9, "{none} vs {marlin}");
    assert!(
        (triton - none).abs() > 1e-9,
        "the stated triton_kernel must differ: {triton}"
    );
}

//! h200gl51 (issue #18): GLM-4.6 on 8× H200 (the GPUStack lab's vLLM 0.11.0 / SGLang 0.5.3 rows of
//! `throughput_newdeploys23.rs`, cloudrift's vLLM 0.11.0 rows of `throughput_newdeploys12.rs`).
//!
//! - vLLM's GLM-4.x MoE router gate is an fp32 `nn.Linear` (`tpsim_model::llm` module `router_fp32`)
//!   and an fp32 GEMM runs on the CUDA cores at `gpu.fp32_tflops` (H100 / H200 SXM 67 TFLOPS,
//!   datasheet; `passes::fp32_router`); SGLang's GLM gate stays bf16.
//! - The prefill's MoE GEMMs: tpsim's MoE curve against the project's own MoE-shaped grouped GEMMs on
//!   an H200 (`measurements/h200-grouped-gemm.tsv`) at GLM-4.6's TP 8 shapes.
//! - The attention path of the five rows: neither runs FlashInfer on SM 9.0.

use crate::common::*;

/// The cloudrift c 1 row (vLLM 0.11.0, 8× H200, TP 8, 1003-token prompts) cut to 2 requests of 16
/// output tokens, with `extra` lines after `[hardware]` and the engine rewritten by `engine`.
fn c1_variant(name: &str, extra: &str, sglang: bool) -> String {
    edited_variant("validation/glm-4.6-h200x8-vllm-0.11-tp8-c1.toml", name, |t| {
        let t = t
            .replace("num_requests = 100", "num_requests = 2")
            .replace("output_len = 1000", "output_len = 16")
            .replace("[model]\n", &format!("{extra}[model]\n"));
        if sglang {
            // SGLang 0.5.3 (the GPUStack page's SGLang release) with vLLM's context as context_length.
            t.replace("name = \"vllm\"", "name = \"sglang\"")
                .replace("version = \"0.11.0\"", "version = \"0.5.3\"")
                .replace("install = \"docker\"\n", "")
                .replace("gpu_memory_utilization = 0.9\n", "")
                .replace("max_num_seqs = 512\n", "")
                .replace("max_model_len = 8192", "context_length = 8192")
        } else {
            t
        }
    })
}

/// TTFT (ms, mean) of `file`.
fn ttft(file: &str) -> f64 {
    f(&run_json(file)["serving"]["ttft_ms"]["mean"])
}

/// The fp32 router's prefill cost under vLLM, by hand: GLM-4.6 (89 MoE layers, 160 experts,
/// hidden 5120) over a 500-token prompt does 2 × 160 × 5120 × 500 × 89 = 7.29088e10 FLOPs of fp32
/// gate GEMMs on every rank (the gate is replicated). At the H200's 67 TFLOPS that is 1.088191 ms, at
/// a fictitious 989 TFLOPS 0.073720 ms: the TTFTs differ by 1.014471 ms, and by nothing else (the
/// router's FLOPs are out of the MoE op in both runs). Tolerance ±0.005 ms (each layer's time is
/// rounded to the picosecond; the two runs are otherwise the same pass). The prompt is cut from the
/// row's 1,003 tokens to 500 so the prefill runs under vLLM's CUDA graphs (largest capture size 512):
/// since ttft54 a longer forward runs ungraphed, its kernels launched by the host, and the router's
/// GPU time then hides partly behind the launches (0.32 of its 2.04 ms at 1,003 tokens).
#[test]
fn vllm_glm_router_gemm_runs_at_the_fp32_rate() {
    let short = |file: String| {
        let t = std::fs::read_to_string(&file).unwrap();
        let cut = t.replace("prompt_len = 1003 ", "prompt_len = 500 ");
        assert_ne!(cut, t);
        std::fs::write(&file, cut).unwrap();
        file
    };
    let slow = ttft(&short(c1_variant("vllm67", "", false)));
    let fast = ttft(&short(c1_variant(
        "vllm989",
        "[hardware.gpu]\nfp32_tflops = 989.0\n",
        false,
    )));
    let flops: f64 = 2.0 * 160.0 * 5120.0 * 500.0 * 89.0;
    let want = flops / 67e12 * 1e3 - flops / 989e12 * 1e3;
    assert!((want - 1.014471).abs() < 1e-5, "{want}");
    assert!(
        (slow - fast - want).abs() < 0.005,
        "TTFT at 67 TFLOPS {slow} ms, at 989 {fast} ms: difference {} against {want}",
        slow - fast
    );
}

/// SGLang's `Glm4MoeGate` keeps the model dtype (0.5.3 `models/glm4_moe.py`): no fp32 GEMM, so the
/// FP32 rate changes nothing (exactly the same TTFT).
#[test]
fn sglang_glm_router_is_not_fp32() {
    let a = ttft(&c1_variant("sgl67", "", true));
    let b = ttft(&c1_variant(
        "sgl989",
        "[hardware.gpu]\nfp32_tflops = 989.0\n",
        true,
    ));
    assert!(a > 0.0);
    assert_eq!(a.to_bits(), b.to_bits(), "{a} against {b}");
}

/// `hardware.gpu.fp32_tflops` above the bf16 tensor rate is refused with the key and the bound.
#[test]
fn fp32_rate_above_the_bf16_rate_is_refused() {
    let file = c1_variant("bad", "[hardware.gpu]\nfp32_tflops = 2000.0\n", false);
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("hardware.gpu.fp32_tflops") && o.stderr.contains("below bf16_tflops = 990"),
        "{}",
        o.stderr
    );
}

/// Efficiency of the project's grouped-GEMM row (experts, tokens per expert, n, k) as a fraction of
/// the H200's 990 TFLOPS (`measurements/h200-grouped-gemm.tsv`: torch._grouped_mm, bf16).
fn grouped_eff(experts: u64, tokens: u64, n: u64, k: u64) -> f64 {
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../measurements/h200-grouped-gemm.tsv");
    let text = std::fs::read_to_string(path).unwrap();
    let key = [experts, tokens, n, k];
    let row: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("experts"))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|r| (0..4).all(|i| r[i].parse::<u64>().unwrap() == key[i]))
        .unwrap();
    row[7].parse::<f64>().unwrap() / 990.0
}

/// The prefill's MoE GEMMs. vLLM 0.11.0 prefills in 8,192-token chunks (`engine/arg_utils.py`: 8192
/// for the API server on a ≥ 70 GiB GPU); at TP 8 GLM-4.6's experts are w13 [384 × 5120] and w2
/// [5120 × 192] on each rank, 8,192 × 8 / 160 = 409.6 tokens an expert. tpsim costs a MoE layer's
/// FLOPs (2 × 8192 × (8 × 3 × 192 × 5120 + 3 × 192 × 5120) = 4.35e11 without the fp32 router) over its
/// 12 kernels, 3.63e10 a kernel, below the MoE curve's first point (5e10 → 0.50 of 990, assumed):
/// 0.50. The project's H200 grouped GEMMs at the nearest shapes (64 experts; w13-like n 512 × k 7168:
/// 631.1 and 735.4 TFLOPS at 256 and 2048 tokens an expert, w2-like n 7168 × k 256: 338.3 and 399.6)
/// give, with w13 two thirds of the FLOPs, 1 / (2/3 ÷ 0.6375 + 1/3 ÷ 0.3417) = 0.4947 at 256 and
/// 1 / (2/3 ÷ 0.7428 + 1/3 ÷ 0.4036) = 0.5806 at 2048 tokens an expert: tpsim's 0.50 lies inside that
/// bracket, so the burst rows' prefill gap (1.7-2.2× the TTFT) is not an optimistic GEMM
/// extrapolation against CUTLASS grouped GEMMs. vLLM runs the Triton `fused_moe` with its untuned
/// default tile there (0.11.0 ships no `E=160,N=192,device_name=NVIDIA_H200.json`), which no
/// measurement here times.
#[test]
fn moe_prefill_efficiency_lies_in_the_measured_grouped_gemm_bracket() {
    let mix = |w13: f64, w2: f64| 1.0 / (2.0 / 3.0 / w13 + 1.0 / 3.0 / w2);
    let lo = mix(grouped_eff(64, 256, 512, 7168), grouped_eff(64, 256, 7168, 256));
    let hi = mix(grouped_eff(64, 2048, 512, 7168), grouped_eff(64, 2048, 7168, 256));
    assert!(
        (lo - 0.4947).abs() < 5e-4 && (hi - 0.5806).abs() < 5e-4,
        "{lo} {hi}"
    );
    // The template's MoE curve at the chunk's per-kernel FLOPs.
    let per_kernel: f64 = 2.0 * 8192.0 * (8.0 * 3.0 * 192.0 * 5120.0 + 3.0 * 192.0 * 5120.0) / 12.0;
    assert!((per_kernel - 3.624e10).abs() < 1e7, "{per_kernel}");
    let t: toml::Value =
        toml::from_str(&std::fs::read_to_string(scenario("hardware/templates/h200-sxm.toml")).unwrap())
            .unwrap();
    let pts = t["compute"]["curves"]["moe"]["flops_points"].as_array().unwrap();
    let first = pts[0].as_array().unwrap();
    let (x0, e0) = (first[0].as_float().unwrap(), first[1].as_float().unwrap());
    assert!(
        per_kernel < x0,
        "the chunk's kernels sit below the curve's first point {x0}"
    );
    assert!(
        lo <= e0 && e0 <= hi,
        "MoE curve {e0} outside the grouped-GEMM bracket [{lo}, {hi}]"
    );
}

/// The attention path of the vLLM rows: vLLM 0.11.0 picks FLASH_ATTN (FlashAttention 3) on SM 9.0 for
/// bf16, head_dim 128 (`platforms/cuda.py` `get_attn_backend_cls`: FlashInfer first only on SM 10.x);
/// SGLang 0.5.3 takes fa3 on Hopper for a non-MLA model (`scenario::attention_backend`'s table; not in
/// the JSON, so not asserted here). FlashInfer's SM 9.0 kernels are not on these rows' path, so
/// nothing of them is charged here.
#[test]
fn the_vllm_rows_run_flashattention_3_not_flashinfer() {
    for file in [
        "glm-4.6-h200x8-vllm-0.11-tp8-c1.toml",
        "glm-4.6-h200x8-vllm-0.11-tp8-sharegpt-c4.toml",
    ] {
        let j = run_json(&scenario(&format!("validation/{file}")));
        assert_eq!(
            j["scenario"]["attention_backend"], "FLASH_ATTN (vLLM default)",
            "{file}"
        );
    }
}

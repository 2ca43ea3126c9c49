//! ampere62 (issue #17): vLLM's Marlin kernels on Ampere. Marlin W4A16 on SM 8.x streams its int4
//! weights at the factor of vllm PR 2497's bench.py table (A100, group 128, M 1–16: speed-up over
//! fp16 3.12 at M 1 → 3.12 × (0.5 + 2 / 128) / 2 = 0.80438), SM 8.6 / 8.7 borrowing SM 8.0's rows; an fp8
//! checkpoint on SM < 8.9 (or with `VLLM_TEST_FORCE_FP8_MARLIN=1`) runs vLLM's FP8 Marlin, whose dense fp8
//! bytes borrow the same factor on SM 8.x (`tpsim_model::llm::w4a16_cost`, `scenario::fp8_marlin`).

use crate::common::*;

/// Llama-3.3-70B AWQ (int4 g128 with zero points) on one RTX PRO 6000 under vLLM 0.11, c 400.
const LLAMA: &str = "validation/llama-3.3-70b-awq-pro6000-vllm-0.11-tp1-c400.toml";
/// club-3090's Agents-A1 FP8-dynamic on 2× RTX 3090 (SM 8.6), vLLM 0.24.0 (deploys37).
const A1_3090: &str = "validation/agents-a1-fp8-dynamic-rtx3090x2-vllm-0.24-tp2-c1.toml";
/// The same checkpoint on 2× RTX 5090 (SM 12.0) with `VLLM_TEST_FORCE_FP8_MARLIN=1` (deploys37).
const A1_5090: &str = "validation/agents-a1-fp8-dynamic-rtx5090x2-vllm-0.24-tp2-c1.toml";

/// [`LLAMA`] on one A100 SXM4 80GB in fp16, one stream of 8 requests, with AWQ group `group`.
fn a100(name: &str, group: u32) -> String {
    edited_variant(LLAMA, name, |t| {
        t.replace(
            "preset = \"rtx-pro-6000-ws-8x-dual-genoa-direct\"",
            "preset = \"a100-sxm4-80gb-1x\"",
        )
        .replace("[engine]\n", "[engine]\ndtype = \"float16\"\n")
        .replace("concurrency = 400", "concurrency = 1")
        .replace("num_requests = 1200", "num_requests = 8")
        .replace("output_len = 1000", "output_len = 64")
        .replace("group_size = 128", &format!("group_size = {group}"))
    })
}

/// On an A100, AWQ group 128 runs Marlin (awq_marlin) and group 256 the unconverted `awq` kernels
/// (Marlin takes groups −1 / 32 / 64 / 128: w4a16_60), which have no row. At one stream the MLP op is
/// its int4 weight stream plus its kernels' fixed cost: Marlin's over AWQ's is (b·T / f + o) / (T + o),
/// with f = 0.80438 and b the bytes ratio (0.5 + 2.5 / 128) / (0.5 + 2.5 / 256) = 1.01916 (an fp16
/// scale and a 4-bit zero a group): at most b / f = 1.2670 (o = 0), at least 1.2427 (o = 10 % of T).
#[test]
fn marlin_on_an_a100_streams_at_the_pr_2497_factor() {
    let marlin = run_json(&a100("a100_g128", 128));
    let awq = run_json(&a100("a100_g256", 256));
    assert!(warned(
        &marlin,
        "vLLM's marlin kernel on SM 80: tpsim streams the dense linears' int4 weights at 0.804 of the fp16 \
         GEMM's efficiency at one row (measured at M 1 to 16"
    ));
    assert!(warned(&awq, "runs this checkpoint with `awq`"));
    let b: f64 = (0.5 + 2.5 / 128.0) / (0.5 + 2.5 / 256.0);
    assert!((b - 1.01916).abs() < 1e-5);
    let op = |j: &serde_json::Value, k: &str| f(&j["breakdown_by_op"][k]);
    let mlp = op(&marlin, "mlp") / op(&awq, "mlp");
    assert!((1.2427..=b / 0.80438 + 1e-4).contains(&mlp), "mlp ratio {mlp}");
}

/// On the reference 2× RTX 3090 (SM 8.6) the fp8 checkpoint runs FP8 Marlin: vLLM's warning and the
/// kernel line with the borrowed factor. Only the dense fp8 linears move (attention and Gated DeltaNet
/// projections: deploys37's 1.59 ms a step, about 0.84 ms of it fp8 weight bytes, → 1.80 ms), the MoE
/// op not (fused_marlin_moe unmeasured): 1.78 ms as before, ±0.01.
#[test]
fn fp8_on_the_reference_rig_runs_fp8_marlin() {
    let j = run_json(&scenario(A1_3090));
    assert!(warned(
        &j,
        "Weight-only FP8 compression will be used leveraging the Marlin kernel"
    ));
    assert!(warned(
        &j,
        "runs the fp8 weights through FP8 Marlin (compute capability 86 < 89)"
    ));
    assert!(warned(
        &j,
        "fp8 weights at 0.804 of the fp16 GEMM's efficiency at one row (Marlin's int4 rows of SM 80, M 1 to 16, borrowed"
    ));
    let op = |k: &str| f(&j["breakdown_by_op"][k]);
    assert!((op("moe") - 1.78).abs() < 0.01, "moe {}", op("moe"));
    assert!(
        (op("attention") - 1.80).abs() < 0.01,
        "attention {}",
        op("attention")
    );
}

/// `VLLM_TEST_FORCE_FP8_MARLIN=1` on SM 12.0: FP8 Marlin is named, but no row measures it there, so the
/// figure is the native path's, to the digit (the scenario's header); without the variable no Marlin
/// line. Under SGLang the variable is not one tpsim reads: refused (exit 2).
#[test]
fn forced_fp8_marlin_is_named_not_costed_off_ampere() {
    let forced = run_json(&scenario(A1_5090));
    assert!(warned(
        &forced,
        "runs the fp8 weights through FP8 Marlin (VLLM_TEST_FORCE_FP8_MARLIN=1)"
    ));
    assert!(warned(&forced, "no benchmark of it on SM 120 is bundled"));
    let plain = run_json(&edited_variant(A1_5090, "a1_5090_native", |t| {
        t.replace(
            "VLLM_TEST_FORCE_FP8_MARLIN = \"1\"",
            "VLLM_TEST_FORCE_FP8_MARLIN = \"yes\"",
        )
    }));
    assert!(!warned(&plain, "FP8 Marlin"));
    let tok = |j: &serde_json::Value| f(&j["throughput"]["output_tok_s"]);
    assert!(
        (tok(&forced) - tok(&plain)).abs() < 1e-9,
        "{} vs {}",
        tok(&forced),
        tok(&plain)
    );
    let sglang = edited_variant(A1_5090, "a1_5090_sglang", |t| {
        // SGLang 0.5.9 with only the keys both engines read.
        t.lines()
            .filter(|l| {
                ![
                    "gpu_memory_utilization",
                    "max_num_seqs",
                    "max_num_batched_tokens",
                    "enable_prefix_caching",
                ]
                .iter()
                .any(|k| l.starts_with(k))
            })
            .collect::<Vec<_>>()
            .join("\n")
            .replace("name = \"vllm\"", "name = \"sglang\"")
            .replace("version = \"0.24.0\"", "version = \"0.5.9\"")
            .replace("max_model_len = 262144", "context_length = 262144")
    });
    let o = tpsim(&["run", &sglang]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("VLLM_TEST_FORCE_FP8_MARLIN"), "{}", o.stderr);
}

//! deploys29 (issue #18): new out-of-sample deployment rows of 2026 models with a pinned engine release, from
//! two pull requests of sgl-project/sglang that add AMD MI300X cells to the cookbook (SGLang 0.5.13.post1, docker
//! `lmsysorg/sglang:v0.5.13.post1-rocm720-mi30x`, the harness deploys28 took for pull 31044's MiniMax-M2.7).
//!
//! **1. sglang pull request 30812** ("[AMD] GLM-5.1-FP8: MI300X benchmarks + FP8 cells", 2026-07-10):
//! zai-org/GLM-5.1-FP8 at TP 8 on 8× MI300X, `--trust-remote-code --tp 8 --dsa-prefill-backend tilelang
//! --dsa-decode-backend tilelang --chunked-prefill-size 131072 --watchdog-timeout 1200 --mem-fraction-static 0.8`,
//! the KV cache set to bf16 by SGLang's DSA rule; `sglang.bench_serving` random 1000/1000, `--warmup-requests 64`,
//! with the prompt counts the table prints (64, 256, 512, 1024 at concurrency 1, 16, 64, 256). The same figures
//! and the run's flags are the cookbook's `docs_new/src/snippets/configs/zai-org/glm-5.1-benchmarks.jsx` (code
//! index id 54955681780) and its `glm-5.1.jsx` cell (id 54581456306, verified). newdeploys22 left the PR for
//! want of a preset; `zai-org/GLM-5.1-FP8` has since been an alias of `glm-5-fp8` (scenarios/models/hf-ids.toml:
//! the config.json key for key). Rows taken: concurrency 1, 16, 64 and 256; all four are known misses, tpsim's
//! step 0.49-0.54× the table's.
//!
//! **2. sglang pull request 31216** ("benchmark: MI300X BF16 speed + accuracy data for Gemma 4 31B", 2026-07-14):
//! google/gemma-4-31B-it bf16 on one MI300X ("auto-selects tp=1"), the same image; server flags from the
//! cookbook's MI300X 31b cell (`docs_new/src/snippets/configs/google/gemma4.jsx`, read at 9a8fd30):
//! `--mem-fraction-static 0.8`. newdeploys4 and newdeploys8 left it for want of a preset; `gemma-4-31b-it` has
//! been bundled since families30. Rows taken: concurrency 1, 16, 64 and 256 (the 1024 and 4096 points are queues of
//! 218 and 641 s TTFT, too long for a debug-build row test). The PR prints no prompt count: the scenarios use pull
//! 30812's counts at the same concurrency (the same author, harness and image four days earlier). c 1 is within
//! (+13.1 %); c 16, 64 and 256 are known misses.
//!
//! **A lead, modelled at the merge** (Gemma 4 on ROCm): SGLang 0.5.13's `server_args.py` (PyPI wheel) runs
//! `_handle_model_specific_adjustments` before `_handle_attention_backend_compatibility`; the first sets Gemma4's
//! default attention backend to `trtllm_mha` on SM 10.x and `triton` elsewhere, then asserts it is one of
//! `trtllm_mha`, `triton`, `intel_xpu` (tpsim's `scenario::gemma4::sglang_default` reads the same rule, but only
//! on the NVIDIA path). Without `attention_backend` in the scenario tpsim takes its ROCm default
//! (`scenario::rocm::sglang_default_backend`: `aiter` for every non-MLA model) instead, scales `mem_fraction_static`
//! by 0.85 and sizes aiter's workspace for 2048 requests at 262,144 tokens: the verdict is OOM where the engine ran
//! before the merge; `scenario::rocm::sglang_default_backend` now applies the Gemma4 rule on ROCm
//! ([`gemma4_rocm_default_backend_is_the_models_own`]) and the scenarios state no backend.
//!
//! Each run is a scenario (`scenarios/validation/glm-5.1-fp8-mi300x8-*.toml`,
//! `scenarios/validation/gemma-4-31b-mi300x1-*.toml`, assumptions listed there) compared with the **default
//! (uncalibrated) profile**: 1000 ÷ the table's TPOT (taken as bench_serving's mean TPOT, as deploys28 took pull
//! 31044's) against 1000 ÷ tpsim's mean TPOT, held to [`TARGET`](crate::throughput_rows::TARGET) or listed in
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Searched this round and not taken: vllm pull request 26887 (Qwen3-Next-80B-A3B-Instruct-FP8 on 2× H100 TP 2,
//! vLLM 0.11.0, 1024/128 and 128/1024 at c 64: the stored description stops at the first table's header, no
//! figure); vllm pull request 43276 (MiniMax-M2 FP32 router kernel: a dev build, the GPU not named in the stored
//! text); vllm pull request 29346 (DeepGEMM off at TP 8: a dev build, the model not named in the excerpt);
//! vllm-project/recipes pull requests 476 and 443 (Ministral 3 on one MI300X under `vllm-openai-rocm:latest`: the
//! Instruct repositories hold FP8 weights where the bundled presets are the BF16 releases, as newdeploys22 found;
//! one GPU, TP 1) and 112 (MiniMax-M2 on H100 with and without DeepGEMM: TP and release not in the excerpt);
//! InferenceX issue 870's concurrency-4 comment (run 22737795957: three jobs on three different H200 runners, the
//! 1k/1k TPOT twice the 1k/8k one; which launch script ran it is not in the stored text) and pull requests 837 /
//! 836 (MiniMax-M2.5 on MI300X / MI325X under vLLM 0.16.0: no figures in the stored text); sglang pull request
//! 31554 and issue 32790 (GLM-5.2: no preset; EAGLE speculative decoding), the GLM-5.1 cookbook's H200 cell (EAGLE,
//! a commit, no release), TensorRT-LLM pull request 11559 (GLM-4.7 FP8 on 8× H100 under trtllm-serve: not an
//! engine tpsim simulates), BBuf/AI-Infra-Auto-Driven-SKILLS pull request 18 (Qwen2.5 on 2× H100 at 1 req/s and
//! 20 prompts: an arrival-bound output rate and P99 TPOT only), devforth.io's GPT-OSS-20B page (one GPU, its own
//! load tool), the r/LocalLLaMA "Qwen3.5-122B at 198 tok/s on 2x RTX PRO 6000" post (no preset; speculative
//! decoding) and the 4× RTX PRO 6000 Qwen3.5-397B NVFP4 report (refused before: no benchmark command),
//! yangwenbo.com's Qwen3 FP8 runs on one L40S (a self-built SGLang with the author's own SM 8.9 FP8 kernel) and its
//! DeepSeek-R1 INT8 on 32 L40S (decode-log throughput of a patched build), wangjunjian.com's Jetson Thor runs (no
//! preset). PCIe
//! boxes were searched first (RTX PRO 6000, RTX 5090, RTX 4090, L40S, RTX A6000 in the issues, code and pages
//! corpora); no run with a launch, lengths, a release and a decode figure that earlier rounds had not taken or
//! refused was found.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives the
//! measured and predicted step. [`every_deploys29_row_is_compared`] fails if a row of these sources is added
//! without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS29_SOURCES: &[(&str, &str)] = &[(SRC_30812, "GLM-5.1"), (SRC_31216, "Gemma-4-31B")];

/// The prefix of the GLM-5.1 rows' source: sglang pull request 30812's description.
const SRC_30812: &str = "github.com/sgl-project/sglang pull 30812 (description, 2026-07-10";

/// The prefix of the Gemma 4 rows' source: sglang pull request 31216's description.
const SRC_31216: &str = "github.com/sgl-project/sglang pull 31216 (description, 2026-07-14";

/// One row: (notes prefix, the table's TPOT in ms, scenario file, label).
type Row = (&'static str, f64, &'static str, &'static str);

/// Pull 30812's rows, concurrency 1, 16, 64, 256.
const GLM_ROWS: &[Row] = &[
    (
        "8x MI300X TP 8 random 1000/1000 c 1:",
        28.38,
        "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c1.toml",
        "GLM-5.1 FP8, SGLang 0.5.13.post1, 8× MI300X TP 8, random 1k/1k c 1 (per-stream mean TPOT)",
    ),
    (
        "8x MI300X TP 8 random 1000/1000 c 16:",
        51.63,
        "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c16.toml",
        "GLM-5.1 FP8, SGLang 0.5.13.post1, 8× MI300X TP 8, random 1k/1k c 16 (per-stream mean TPOT)",
    ),
    (
        "8x MI300X TP 8 random 1000/1000 c 64:",
        87.27,
        "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c64.toml",
        "GLM-5.1 FP8, SGLang 0.5.13.post1, 8× MI300X TP 8, random 1k/1k c 64 (per-stream mean TPOT)",
    ),
    (
        "8x MI300X TP 8 random 1000/1000 c 256:",
        169.96,
        "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c256.toml",
        "GLM-5.1 FP8, SGLang 0.5.13.post1, 8× MI300X TP 8, random 1k/1k c 256 (per-stream mean TPOT)",
    ),
];

/// Pull 31216's rows, concurrency 1, 16, 64, 256.
const GEMMA_ROWS: &[Row] = &[
    (
        "1x MI300X TP 1 random 1000/1000 c 1:",
        21.49,
        "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c1.toml",
        "Gemma-4-31B bf16, SGLang 0.5.13.post1, 1× MI300X TP 1, random 1k/1k c 1 (per-stream mean TPOT)",
    ),
    (
        "1x MI300X TP 1 random 1000/1000 c 16:",
        31.45,
        "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c16.toml",
        "Gemma-4-31B bf16, SGLang 0.5.13.post1, 1× MI300X TP 1, random 1k/1k c 16 (per-stream mean TPOT)",
    ),
    (
        "1x MI300X TP 1 random 1000/1000 c 64:",
        62.93,
        "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c64.toml",
        "Gemma-4-31B bf16, SGLang 0.5.13.post1, 1× MI300X TP 1, random 1k/1k c 64 (per-stream mean TPOT)",
    ),
    (
        "1x MI300X TP 1 random 1000/1000 c 256:",
        192.91,
        "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c256.toml",
        "Gemma-4-31B bf16, SGLang 0.5.13.post1, 1× MI300X TP 1, random 1k/1k c 256 (per-stream mean TPOT)",
    ),
];

/// Row `i` of [`GLM_ROWS`]: 1000 ÷ the table's TPOT against 1000 ÷ tpsim's mean TPOT.
fn glm_row(i: usize) {
    let (note, tpot_ms, file, label) = GLM_ROWS[i];
    compare_mean_tpot_row((SRC_30812, "GLM-5.1", note), tpot_ms, file, label);
}

/// Row `i` of [`GEMMA_ROWS`]: 1000 ÷ the table's TPOT against 1000 ÷ tpsim's mean TPOT.
fn gemma_row(i: usize) {
    let (note, tpot_ms, file, label) = GEMMA_ROWS[i];
    compare_mean_tpot_row((SRC_31216, "Gemma-4-31B", note), tpot_ms, file, label);
}

#[test]
pub(crate) fn validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c1() {
    // "| 1 | 64 | 585 | 28.38 | 4 |": 1000 ÷ 28.38 = 35.24 tok/s a stream.
    glm_row(0);
}

#[test]
pub(crate) fn validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c16() {
    // "| 16 | 256 | 338 | 51.63 | 37 |": 1000 ÷ 51.63 = 19.37 tok/s a stream.
    glm_row(1);
}

#[test]
pub(crate) fn validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c64() {
    // "| 64 | 512 | 634 | 87.27 | 85 |": 1000 ÷ 87.27 = 11.46 tok/s a stream.
    glm_row(2);
}

#[test]
pub(crate) fn validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c256() {
    // "| 256 | 1024 | 2,017 | 169.96 | 169 |": 1000 ÷ 169.96 = 5.88 tok/s a stream.
    glm_row(3);
}

#[test]
pub(crate) fn validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c1() {
    // "| Balanced | 1 | 1 | 130 | 21.49 | 46 | 46 |": 1000 ÷ 21.49 = 46.53 tok/s a stream.
    gemma_row(0);
}

#[test]
pub(crate) fn validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c16() {
    // "| Balanced | 1 | 16 | 151 | 31.45 | 492 | 492 |": 1000 ÷ 31.45 = 31.80 tok/s a stream.
    gemma_row(1);
}

#[test]
pub(crate) fn validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c64() {
    // "| Balanced | 1 | 64 | 588 | 62.93 | 951 | 951 |": 1000 ÷ 62.93 = 15.89 tok/s a stream.
    gemma_row(2);
}

#[test]
pub(crate) fn validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c256() {
    // "| Balanced | 1 | 256 | 39,891 | 192.91 | 1,047 | 1,047 |": 1000 ÷ 192.91 = 5.18 tok/s a stream.
    gemma_row(3);
}

#[test]
fn tables_output_rates_fit_their_tpot() {
    // Each table's output rate (GLM-5.1: tok/s/GPU × 8 GPUs; Gemma 4: "Throughput") cannot exceed concurrency ×
    // 1000 ÷ TPOT (every stream decoding every step): 4 × 8 = 32 ≤ 1 × 35.24; 37 × 8 = 296 ≤ 16 × 19.37 = 309.9;
    // 85 × 8 = 680 ≤ 64 × 11.46 = 733.4; 169 × 8 = 1352 ≤ 256 × 5.88 = 1506.3; Gemma 46 ≤ 46.53, 492 ≤ 508.7,
    // 951 ≤ 1017.0, 1047 ≤ 1327.1. The Gemma c 256 rate implies 1047 ÷ 5.184 = 202 streams decoding on average
    // of 256 offered (the queue its 39,891 ms TTFT shows), the others 91-97 %.
    let glm_out = [32.0, 296.0, 680.0, 1352.0];
    let gemma_out = [46.0, 492.0, 951.0, 1047.0];
    let conc = [1.0, 16.0, 64.0, 256.0];
    for (rows, out) in [(GLM_ROWS, glm_out), (GEMMA_ROWS, gemma_out)] {
        for ((&(_, tpot, file, _), o), c) in rows.iter().zip(out).zip(conc) {
            let bound = c * 1000.0 / tpot;
            assert!(o <= bound, "{file}: {o} > {bound}");
            // And more than half of it: the table's TPOT is a decode step of most of the streams.
            assert!(o > 0.5 * bound, "{file}: {o} ≤ half of {bound}");
        }
    }
    assert!((1047.0_f64 * 192.91 / 1000.0 - 201.98).abs() < 0.01);
}

#[test]
fn scenarios_are_the_prs_runs() {
    // (tp, in flight, prompts): the tables' TP and concurrency, pull 30812's prompt counts (Gemma: assumed the same).
    let expect: [(u64, u64); 4] = [(1, 64), (16, 256), (64, 512), (256, 1024)];
    for (rows, tp, preset, src, model) in [
        (GLM_ROWS, 8, "glm-5-fp8", SRC_30812, "GLM-5.1"),
        (GEMMA_ROWS, 1, "gemma-4-31b-it", SRC_31216, "Gemma-4-31B"),
    ] {
        for (&(note, _, file, _), (c, n)) in rows.iter().zip(expect) {
            let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
            assert_eq!(scenario_int_key(&text, "tp"), tp, "{file}");
            assert_eq!(scenario_int_key(&text, "concurrency"), c, "{file}");
            assert_eq!(scenario_int_key(&text, "num_requests"), n, "{file}");
            assert_eq!(random_len(&text, "prompt_len"), Some(1000), "{file}");
            assert_eq!(random_len(&text, "output_len"), Some(1000), "{file}");
            assert!(
                text.contains("\nname = \"sglang\"\nversion = \"0.5.13\""),
                "{file}"
            );
            assert!(text.contains(&format!("\npreset = \"{preset}\"\n")), "{file}");
            assert!(text.contains("\npreset = \"mi300x-8x-xgmi\"\n"), "{file}");
            assert!(text.contains("\nmem_fraction_static = 0.8\n"), "{file}");
            if tp == 8 {
                assert_eq!(scenario_int_key(&text, "chunked_prefill_size"), 131_072, "{file}");
                assert!(text.contains("\ntrust_remote_code = true\n"), "{file}");
            } else {
                // The backend is the engine's own choice (`gemma4_rocm_default_backend_is_the_models_own`).
                assert!(!text.contains("\nattention_backend"), "{file}");
            }
            let r = throughput_row(src, model, note);
            assert_eq!((r.tp, r.concurrency), (tp, c), "{file}");
        }
    }
}

#[test]
fn glm_5_1_runs_with_sglangs_dsa_adjustments() {
    // SGLang sets page size 64 and a bf16 KV cache for DSA on this device, as the jsx comment says ("KV cache
    // auto-set to bfloat16 (DSA on SM9 device)"); tpsim prints both adjustments and starts the engine.
    let v = run_json(&scenario(&format!("validation/{}", GLM_ROWS[0].2)));
    assert_eq!(v["verdict"], "ok");
    assert!(warned(&v, "Setting page size to 64 for DeepSeek DSA."));
    assert!(warned(
        &v,
        "Setting KV cache dtype to bfloat16 for DeepSeek DSA on SM9 device."
    ));
}

/// Gemma 4 on ROCm under SGLang 0.5.13 (the module doc's lead, fixed at merge): SGLang's
/// `_handle_model_specific_adjustments` (0.5.13 `server_args.py`) runs before the `is_hip()` default and sets
/// Gemma4's backend to `triton` off SM 10.x, so the scenarios state no backend and tpsim takes `triton` too: no
/// AITER fraction factor (0.8 stays 0.8, where `aiter` would scale it by 0.85 above 8,192 tokens of context) and
/// the engine starts. Naming `aiter` is refused with 0.5.13's assert text.
#[test]
fn gemma4_rocm_default_backend_is_the_models_own() {
    let file = format!("validation/{}", GEMMA_ROWS[0].2);
    let text = std::fs::read_to_string(scenario(&file)).expect("scenario");
    assert!(
        !text.contains("\nattention_backend"),
        "the scenario leaves the backend to the engine"
    );
    let v = run_json(&scenario(&file));
    assert_eq!(v["verdict"], "ok");
    assert!(!warned(&v, "attention_backend aiter"), "{v}");
    let named = edited_variant(&file, "deploys29_gemma4_rocm_aiter", |t| {
        t.replace(
            "mem_fraction_static = 0.8\n",
            "mem_fraction_static = 0.8\nattention_backend = \"aiter\"\n",
        )
    });
    let o = tpsim(&["run", &named]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr
            .contains("Gemma4 only supports trtllm_mha, triton, or intel_xpu attention backend"),
        "{}",
        o.stderr
    );
}

#[test]
fn every_deploys29_row_is_compared() {
    // Four GLM-5.1 rows of sglang pull request 30812, four Gemma 4 31B rows of pull request 31216; the tests above
    // compare each once.
    assert_eq!((GLM_ROWS.len(), GEMMA_ROWS.len()), (4, 4));
    assert_eq!(throughput_rows_per_source(DEPLOYS29_SOURCES), [4, 4]);
}

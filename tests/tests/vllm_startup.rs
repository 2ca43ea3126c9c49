//! Issue #17 point 5: vLLM's "GPU KV cache size" PREDICTED from a scenario — no logged weights,
//! activation or non-torch figure — for every vLLM row of `tests/data/engine-memory.tsv` whose model
//! has a bundled preset (`scenarios/models/`). One scenario per row is built from the row's model,
//! GPU, tp, `gpu_memory_utilization` and dtype/quantization flags, and planned through the library
//! (`tpsim::plan_memory`, the path of `tpsim memory`).
//!
//! The modelled parts (`tpsim_model::vllm_startup`, `sim/src/decode/vllm_parts.rs`): torch's total
//! (`hardware.gpu.torch_total_gib`, 79.19 GiB on H100 SXM), weights = the preset's bytes per rank +
//! RoPE caches, peak activation and non-torch growth from `engines/vllm.toml`'s coefficients. Those
//! coefficients: the activation is code-derived (its 32 MiB base checked against rows), the non-torch
//! growth fitted to rows that had no preset then (`refit` below; named in vllm.toml).
//! Presets added since (codellama-7b, qwen2.5-7b, qwen3-8b, and kimi-vl-a3b) make lines 13, 15, 29,
//! 33, 34, 35 and 38 predictable: for them the plain prediction is IN SAMPLE, and
//! `leave_one_row_out` gives the out-of-sample figure (coefficients refitted without the row).
//!
//! Tolerance: the 0.3 % on tokens. Rows that miss it assert their measured miss instead
//! (± 0.05 percentage points), with the part that is off named — the tolerance is not loosened.

use crate::common::{data_path, preset_key, read_tsv};
use std::path::Path;

const GIB: f64 = (1u64 << 30) as f64;

/// One engine-memory.tsv row with the cells the tests read.
struct Row {
    line: usize,
    model: String,
    tp: u32,
    mem_frac: f64,
    kv_tokens: u64,
    notes: String,
}

impl Row {
    /// A `key=value` number of the notes column ("activation=0.77; …").
    fn note(&self, key: &str) -> Option<f64> {
        self.notes
            .split(';')
            .filter_map(|kv| kv.trim().split_once('='))
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.trim().parse().ok())
    }
}

fn rows() -> Vec<Row> {
    let t = read_tsv(&data_path("engine-memory.tsv"));
    let c = |n: &str| t.col(n);
    let num = |s: &str| -> f64 {
        s.split_whitespace()
            .next()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.0)
    };
    t.rows
        .iter()
        .filter(|r| r.get(c("engine")) == "vllm")
        .map(|r| Row {
            line: r.line,
            model: r.get(c("model")).to_string(),
            tp: num(r.get(c("tp"))) as u32,
            mem_frac: num(r.get(c("mem_frac"))),
            kv_tokens: num(r.get(c("kv_tokens"))) as u64,
            notes: r.get(c("notes")).to_string(),
        })
        .collect()
}

fn row(line: usize, model: &str) -> Row {
    let r = rows().into_iter().find(|r| r.line == line).expect("row");
    assert_eq!(r.model, model, "engine-memory.tsv line {line}");
    r
}

/// How a covered row maps to a scenario.
struct Case {
    line: usize,
    model: &'static str,
    preset: &'static str,
    /// Extra `[model]` keys (quantization flags of the row: `quant=…`, `--kv-cache-dtype`).
    model_extra: &'static str,
}

/// The rows predicted from a preset (all out of sample: no fit row has a preset).
const CASES: &[Case] = &[
    // Llama-3.3-70B has Llama-3.1-70B's geometry; compressed-tensors FP8-dynamic: fp8 linears with
    // per-channel scales, embeddings and lm_head bf16.
    Case {
        line: 14,
        model: "RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic",
        preset: "llama-3.1-70b",
        model_extra: "quantization = { dtype = \"fp8\", per_channel = true }\n",
    },
    Case {
        line: 16,
        model: "google/gemma-2-2b-it",
        preset: "gemma-2-2b-it",
        model_extra: "",
    },
    Case {
        line: 17,
        model: "google/gemma-3-12b-it",
        preset: "gemma-3-12b-it",
        model_extra: "",
    },
    Case {
        line: 18,
        model: "google/gemma-3-4b-it",
        preset: "gemma-3-4b-it",
        model_extra: "",
    },
    Case {
        line: 20,
        model: "ibm-granite/granite-3.3-8b-instruct",
        preset: "granite-3.3-8b",
        model_extra: "",
    },
    Case {
        line: 21,
        model: "meta-llama/Llama-3.1-8B-Instruct",
        preset: "llama-3.1-8b",
        model_extra: "quantization = { dtype = \"bf16\", kv_cache_dtype = \"fp8_e4m3\" }\n",
    },
    // `--quantization fp8`: vLLM quantizes the bf16 linears to fp8 per-tensor at load.
    Case {
        line: 22,
        model: "meta-llama/Llama-3.1-8B-Instruct",
        preset: "llama-3.1-8b",
        model_extra: "quantization = { dtype = \"fp8\" }\n",
    },
    Case {
        line: 25,
        model: "meta-llama/Llama-3.1-8B-Instruct",
        preset: "llama-3.1-8b",
        model_extra: "",
    },
    Case {
        line: 27,
        model: "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        preset: "mistral-small-3.2-24b",
        model_extra: "",
    },
    Case {
        line: 30,
        model: "openai/gpt-oss-20b",
        preset: "gpt-oss-20b",
        model_extra: "",
    },
    Case {
        line: 31,
        model: "openai/gpt-oss-20b",
        preset: "gpt-oss-20b",
        model_extra: "",
    },
    // w4a16 (GPTQ int4, group 128, fp16 scales), served in fp16 (same bytes as bf16).
    Case {
        line: 36,
        model: "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16",
        preset: "llama-3.1-8b",
        model_extra: "quantization = { dtype = \"int4\", group_size = 128, scale_dtype = \"fp16\" }\n",
    },
    // w8a8: int8 linears with per-channel scales.
    Case {
        line: 37,
        model: "RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8",
        preset: "mistral-small-3.2-24b",
        model_extra: "quantization = { dtype = \"int8\", per_channel = true }\n",
    },
    // `--dtype float32` (vrows, issue #17: `engine.dtype`): weights, activations and the KV cache
    // in float32.
    Case {
        line: 23,
        model: "meta-llama/Llama-3.1-8B-Instruct",
        preset: "llama-3.1-8b",
        model_extra: "",
    },
    // Pipeline parallelism (vrows, issue #17): pp 4, predicted with no per-stage figure. The binding
    // stage is the last (8 layers + LM head: 4.26 GiB with the RoPE cache; the sampler's activation
    // is the last stage's), as the log's binding worker PP3 (pipeline.rs).
    Case {
        line: 24,
        model: "meta-llama/Llama-3.1-8B-Instruct",
        preset: "llama-3.1-8b",
        model_extra: "",
    },
    // vrows (issue #17): presets added for the former fit rows (in sample: see `leave_one_row_out`).
    Case {
        line: 13,
        model: "codellama/CodeLlama-7b-hf",
        preset: "codellama-7b",
        model_extra: "",
    },
    // compressed-tensors FP8-dynamic, as line 14.
    Case {
        line: 15,
        model: "RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic",
        preset: "qwen2.5-7b",
        model_extra: "quantization = { dtype = \"fp8\", per_channel = true }\n",
    },
    Case {
        line: 29,
        model: "moonshotai/Kimi-VL-A3B-Instruct",
        preset: "kimi-vl-a3b",
        model_extra: "",
    },
    Case {
        line: 32,
        model: "Qwen/Qwen2.5-7B-Instruct",
        preset: "qwen2.5-7b",
        model_extra: "quantization = { dtype = \"bf16\", kv_cache_dtype = \"fp8_e4m3\" }\n",
    },
    Case {
        line: 33,
        model: "Qwen/Qwen2.5-7B-Instruct",
        preset: "qwen2.5-7b",
        model_extra: "",
    },
    Case {
        line: 34,
        model: "Qwen/Qwen2.5-7B-Instruct",
        preset: "qwen2.5-7b",
        model_extra: "",
    },
    Case {
        line: 35,
        model: "Qwen/Qwen3-8B",
        preset: "qwen3-8b",
        model_extra: "",
    },
    // vrows2 (issue #17): presets for two more fit rows (reconstructed configs, see their READMEs):
    // in-sample consistency checks; `leave_one_row_out` reports them out of sample.
    Case {
        line: 19,
        model: "ibm-granite/granite-3.1-2b-instruct",
        preset: "granite-3.1-2b",
        model_extra: "",
    },
    Case {
        line: 28,
        model: "moonshotai/Kimi-Dev-72B",
        preset: "kimi-dev-72b",
        model_extra: "",
    },
    // phi2 (issue #17): phi-2 (PhiForCausalLM: parallel attention + non-gated GELU MLP), fp16, a fit
    // row of the activation and non-torch coefficients (in sample; `leave_one_row_out` reports it
    // out of sample), as lines 19 and 28.
    Case {
        line: 26,
        model: "microsoft/phi-2",
        preset: "phi-2",
        model_extra: "",
    },
    // w8a8: int8 linears with per-channel scales, as line 37.
    Case {
        line: 38,
        model: "RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8",
        preset: "qwen2.5-7b",
        model_extra: "quantization = { dtype = \"int8\", per_channel = true }\n",
    },
    // logs (issue #17/#5 coverage): two architectures the coverage table listed as unverified under
    // vLLM, from the same v0.19.0 log set; neither row was used to fit anything (out of sample).
    Case {
        line: 41,
        model: "Qwen/Qwen1.5-MoE-A2.7B",
        preset: "qwen1.5-moe-a2.7b",
        model_extra: "",
    },
    Case {
        line: 42,
        model: "google/gemma-7b",
        preset: "gemma-7b",
        model_extra: "",
    },
    Case {
        line: 44,
        model: "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        preset: "llama-4-scout",
        model_extra: "",
    },
];

/// Rows not predicted from the scenario path, with the reason (line 39 is [`REFUSED`]).
const NOT_COVERED: &[(usize, &str)] = &[
    (
        64,
        "vLLM 0.10.1.1 Qwen2-7B-Instruct on 1× A100 at 0.25: predicted in vllmold52 (A100 total and FlashInfer \
         sampler from the log)",
    ),
    (
        65,
        "vLLM 0.10.1.1 Qwen2-7B-Instruct on 1× A100 at 0.5: predicted in vllmold52",
    ),
    (
        66,
        "vLLM 0.10.1.1 Qwen2-7B-Instruct on 2× A100 (SHM) at 0.25: predicted in vllmold52",
    ),
    (
        67,
        "vLLM 0.10.1.1 Qwen2-7B-Instruct on 2× A100 (SHM) at 0.5: predicted in vllmold52",
    ),
    (
        61,
        "vLLM 0.10.1 gpt-oss-120b on 1× H100, refused at the KV profile (no KV token count to compare): the \
         weights and the refusal are checked (gpt_oss_logs::vllm_0_10_1_gpt_oss_120b_h100_default_args_refuses)",
    ),
    (
        62,
        "vLLM ~0.11 gpt-oss-120b on 1× H100, refused for max_model_len: the KV budget and the refusal's needed \
         GiB are checked (gpt_oss_logs::vllm_0_11_gpt_oss_120b_h100_max_len_refusal)",
    ),
    (
        63,
        "vLLM 0.14.1 gpt-oss-120b on 1× H100, out of memory at a step not quoted: only the weights are \
         compared, −0.05 % (gpt_oss_logs::vllm_0_14_1_gpt_oss_120b_h100_triton_weights)",
    ),
    (
        50,
        "vLLM 0.11.0 with --quantization fp8 on 1× L40S (issue #17, onlinequant): the L40S preset has no \
         torch_total_gib, so the KV budget is not predicted from the scenario; the weights and the KV cell are \
         checked (online_quant::vllm_0_11_granite_4_micro_online_fp8)",
    ),
    (
        43,
        "vLLM 0.8.5 on 4× A10: the quoted log gives the weights and the KV token count but neither the \
     free memory nor the profile's parts, and tpsim has no A10 preset; only the weights are checked \
     (engine_memory_logs::vllm_0_8_5_qwen3_30b_a3b_weights_a10_tp4)",
    ),
    (
        46,
        "vLLM 0.15.0rc1, GLM-4.7-FP8 with pipeline parallelism 8: the quoted log is the refusal only (no \
         GPU, weights or profile lines), and its needed figure counts all stages' layers (the issue's \
         bug); the refusal's arithmetic is checked (engine_memory_logs::vllm_0_15_glm_4_7_refusal_pp8)",
    ),
    (
        47,
        "vLLM nightly 2025-11, Kimi-K2-Thinking on 8× H200: the quoted lines give the KV budget and \
         the token counts only (no weights, profile or free-memory lines); the block arithmetic, with \
         and without DCP 8, is replayed from the budget (engine_memory_logs::vllm_2025_11_kimi_k2_thinking_h200_tp8)",
    ),
    (
        48,
        "vLLM 0.29.1rc1, MiniMax-M2.7 AWQ on two DGX Sparks (GB10, no preset): the quote is the refusal \
         only; its needed memory and estimate are checked (engine_memory_logs::vllm_0_29_minimax_m2_7_refusal_dgx_spark_tp2)",
    ),
    (
        49,
        "vLLM 0.11.0, Nemotron-Nano-9B-v2 on an RTX 4090 (nemotronh): the quote keeps num_gpu_blocks only \
         (weights, profile and KV lines snipped), and tpsim's vLLM plan does not size the Mamba pages; the \
         hybrid page arithmetic behind the 286 blocks is checked (nemotron_h::vllm_0_11_nemotron_nano_9b_v2_blocks_rtx4090)",
    ),
    (
        51,
        "vLLM 0.10.2, Qwen3-Next-80B-A3B on 2× H200 (memlogs): a hybrid model, whose pool these cases do not \
         replay; the log's own budget parts give the pool exactly (memlogs::vllm_0_10_2_qwen3_next_80b_scenario_h200_tp2) \
         and the prediction without them is a recorded miss of the profile run (memlogs::vllm_0_10_2_qwen3_next_80b_predicted_budget_miss_h200_tp2)",
    ),
    (
        52,
        "vLLM 0.11.0 (NVIDIA 25.11 container), Mistral-7B-v0.2 GPTQ on a DGX Spark (GB10, no preset; the log has no \
         profile lines): the KV cell and the block arithmetic from the logged budget are checked \
         (memlogs::vllm_0_11_mistral_7b_v0_2_gptq_dgx_spark_tp1)",
    ),
    (
        53,
        "vLLM 0.18.0 with vllm-ascend, Qwen3-VL-8B on an Ascend NPU (no preset; the budget and the weights are \
         the Ascend worker's): the KV cell and the block arithmetic from the logged budget are checked \
         (memlogs::vllm_0_18_ascend_qwen3_vl_8b_tp1)",
    ),
    (
        54,
        "vLLM 0.11.0, Qwen3-VL-30B-A3B on 4× RTX 3090 (no RTX 3090 preset; the log has no profile lines): the \
         KV cell and the block arithmetic are checked (memlogs::vllm_0_11_qwen3_vl_30b_a3b_rtx3090_tp4), the \
         weights are a recorded miss (memlogs::vllm_0_11_qwen3_vl_30b_a3b_weights_miss_rtx3090_tp4)",
    ),
    (
        59,
        "vLLM 0.28.0, DeepSeek-R1-0528 FP8 on 8× H100 (sglanglogs): the workers run out of memory while \
         creating the weights, before any KV line; the allocation, the weights' lower bound and the load \
         verdict are checked (sglanglogs::vllm_0_28_deepseek_r1_0528_fp8_load_oom_h100_tp8)",
    ),
    (
        69,
        "vLLM ~0.11 Llama-3.1-8B on 1× H100 (vmem56, line 39's log set): no KV token count quoted; the \
         weights, the 0.11 sampler's activation and the KV budget in GiB are checked \
         (vmem56::llm_d_benchmark_vllm_0_11_h100_rows)",
    ),
    (
        70,
        "vLLM ~0.11 Qwen3-32B on 1× H100 (vmem56): as line 69 (vmem56::llm_d_benchmark_vllm_0_11_h100_rows)",
    ),
    (
        71,
        "vLLM ~0.11 Llama-3.3-70B FP8-dynamic on 2× H100 (vmem56): as line 69 \
         (vmem56::llm_d_benchmark_vllm_0_11_h100_rows)",
    ),
    (
        72,
        "vLLM ~0.11 gpt-oss-20b on 1× H100 (vgptoss56, line 39's log set): no KV token count quoted; the \
         weights by release are checked (vgptoss56::line_72_gpt_oss_20b_weights_fit_the_hopper_triton_layout)",
    ),
    (
        73,
        "vLLM ~0.11 gpt-oss-120b on 1× H100 (vgptoss56): a summary-table row (no KV token count, the \
         utilisation inferred); the weights are checked \
         (vgptoss56::line_73_gpt_oss_120b_weights_fit_the_hopper_triton_layout)",
    ),
    (
        74,
        "vLLM 0.10.2 Qwen3-8B-FP8 (--dtype float16) on one 23.53-GiB card (vllmmem63): the budget identity and \
         the blocks are checked, the non-torch growth is the in-sample Ada base \
         (vllmmem63::new_rows_close_their_own_budgets, vllmmem63::sm8_base_before_0_18)",
    ),
    (
        75,
        "vLLM 0.10.2 llava-v1.6-mistral-7b on 1× H100 (vllmmem63): the budget identity and the blocks are \
         checked; tpsim's Hopper non-torch base (0.25) is 0.18 GiB above the logged 0.07 \
         (vllmmem63::sm8_base_before_0_18)",
    ),
    (
        76,
        "vLLM 0.10.2 Qwen3-235B-A22B-FP8 on 8× L40S, tp 8 with EP (vllmmem63): the parts are predicted \
         (vllmmem63::line_76_l40s_tp8_parts); the logged tokens exceed the logged budget, so not replayed",
    ),
    (
        77,
        "vLLM 0.10.2 Qwen2.5-Omni-7B on 1× A100 40GB (vllmmem63, a digest that cuts the activation): the \
         non-torch growth is the in-sample Ampere base (vllmmem63::sm8_base_before_0_18)",
    ),
    (
        78,
        "vLLM 0.11.1.dev OPT-2.7B on 4× A30 in NVLink pairs (vllmmem63; no 4× A30 preset): the budget \
         identity is checked (vllmmem63::new_rows_close_their_own_budgets)",
    ),
];

/// vrows3 (issue #17 point 5): rows whose start vLLM refuses, predicted as that refusal from the
/// scenario ([`line_39_refused_by_vllm_0_11`]).
const REFUSED: &[usize] = &[39];

/// The scenario text of a case.
fn scenario_text(c: &Case, r: &Row) -> String {
    // The notes' `pp=` (line 24: pp 4 on four GPUs of the 8-GPU box).
    let pp = r.note("pp").map_or(1, |p| p as u32);
    let hw = if r.tp * pp == 1 {
        "h100-sxm-1x"
    } else {
        "h100-sxm-8x-nvlink"
    };
    let len = r
        .note("max_model_len")
        .map_or(String::new(), |l| format!("max_model_len = {l}\n"));
    let mut pp_key = if pp > 1 {
        format!("pp_size = {pp}\n")
    } else {
        String::new()
    };
    // The notes' `dtype=torch.float32` (line 23: `--dtype float32`) as `engine.dtype`.
    if r.notes.contains("dtype=torch.float32") {
        pp_key.push_str("dtype = \"float32\"\n");
    }
    format!(
        "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{}\"\n{}[engine]\nname = \"vllm\"\ntp = {}\n\
         gpu_memory_utilization = {}\n{len}{pp_key}",
        c.preset, c.model_extra, r.tp, r.mem_frac
    )
}

/// A case's prediction: tokens, and the modelled parts (GiB) next to the logged ones.
struct Predicted {
    tokens: u64,
    logged: u64,
    /// Signed relative error of the tokens.
    err: f64,
    /// (weights, peak activation, non-torch): predicted, then logged.
    parts: [f64; 3],
    logged_parts: [f64; 3],
}

fn predict(c: &Case) -> Predicted {
    predict_with(c, "")
}

/// [`predict`] with extra scenario text after the case's (e.g. an `[engine.costs]` override).
fn predict_with(c: &Case, extra: &str) -> Predicted {
    use tpsim::decode::MemKind;
    let r = row(c.line, c.model);
    let text = format!("{}{extra}", scenario_text(c, &r));
    let s = tpsim::scenario::load_str(&text, Path::new(&format!("engine-memory.tsv line {}", c.line)))
        .unwrap_or_else(|e| panic!("line {}: {e}\n{text}", c.line));
    let p = tpsim::plan_memory(&s);
    let part = |k: MemKind| {
        p.entries
            .iter()
            .find(|e| e.kind == k)
            .map_or(0.0, |e| e.bytes as f64 / GIB)
    };
    let weights = rows_weights(&r);
    Predicted {
        tokens: p.kv_tokens,
        logged: r.kv_tokens,
        err: (p.kv_tokens as f64 - r.kv_tokens as f64) / r.kv_tokens as f64,
        parts: [
            part(MemKind::TargetWeights),
            part(MemKind::PeakActivation),
            part(MemKind::NonTorchGrowth),
        ],
        logged_parts: [
            weights,
            r.note("activation").unwrap_or(f64::NAN),
            r.note("non_torch_fwd").unwrap_or(f64::NAN),
        ],
    }
}

/// The row's `weight_mem_gb`.
fn rows_weights(r: &Row) -> f64 {
    let t = read_tsv(&data_path("engine-memory.tsv"));
    let c = t.col("weight_mem_gb");
    let rec = t.rows.iter().find(|x| x.line == r.line).expect("row");
    rec.get(c)
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(f64::NAN)
}

/// Rows that miss 0.3 %: (line, measured signed error, the part that is off).
const MISSES: &[(usize, f64, &str)] = &[
    // vllmrows (issue #17): lines 20 and 19 (granite-3.3-8b +0.341 %, granite-3.1-2b +0.312 %
    // before) are within 0.3 % (−0.029 %, −0.004 %) now that the non-torch growth counts the local
    // memory the dummy sampler's Triton top-k/top-p kernel reserves for granite's odd vocabulary
    // (`tpsim_model::vllm_startup::topk_topp_stack_growth`: 1888 B frames, (1888 − 1024) × 132 ×
    // 2048 B = 0.2175 GiB on an H100 SXM, against the 0.46 − 0.25 = 0.21 GiB the logs show).
    // vrows (issue #17): `--dtype float32`.
    (
        23,
        0.00840,
        // Llama-3.1-8B in float32: weights 29.98 and non-torch 0.25 as logged; peak activation 1.84
        // (the forward pass: 8192 × (3 × 14,336 + 4 × 4096) × 4 B + 32 MiB) vs 2.21 logged (−0.37 GiB).
        // The sampler as vLLM 0.19 allocates it holds 12 B per logit in float32 (`.to(float32)`
        // aliases the logits): 1.72 GiB; the row needs one more 1024 × 128,256 float32 tensor
        // (0.49 GiB) that the 0.19 sources read do not show. −0.37 GiB of 42.80 = +0.84 % tokens.
        // vmem56: the row's 10,956 blocks bound the gap to 0.3584–0.3623 GiB, which one [1024, 128,256]
        // float32 tensor in the sampler fills and the forward pass cannot (vmem56.rs).
        "activation −0.37 GiB (float32 sampler peak: one logits-sized float32 tensor unaccounted for)",
    ),
    // vrows4 (issue #17): line 28 (Kimi-Dev-72B, +3.56 % before) is within 0.3 % now that the
    // weights count the caching allocator's blocks (`tpsim_model::torch_alloc`: 80 down_proj shards
    // of 231 MiB in 232 MiB blocks, +0.078 GiB) and the preset's RoPE cache has the Qwen2.5-72B
    // base's 131,072 positions (+0.023 GiB): 67.824 GiB vs 67.82 logged, +0.16 %. Line 44
    // (Llama-4-Scout, +0.36 % before) is at +0.22 %: its weights went from +0.01 to +0.03 GiB over the
    // log (38 of 48 qkv_proj shards of 17.5 MiB in 18 MiB blocks), which offsets part of its activation
    // (−0.03) and non-torch (−0.04) gaps, still not identified (book/src/vllm-memory.md).
];

#[test]
fn kv_tokens_predicted_from_the_scenario() {
    let mut failures = Vec::new();
    println!("| line | model | tp | predicted | logged | error | weights | activation | non-torch |");
    for c in CASES {
        let p = predict(c);
        let (pred, logged, err) = (p.tokens, p.logged, p.err);
        let d: Vec<String> = (0..3)
            .map(|i| format!("{:.2} ({:+.2})", p.parts[i], p.parts[i] - p.logged_parts[i]))
            .collect();
        println!(
            "| {} | {} | {} | {pred} | {logged} | {:+.3} % | {} |",
            c.line,
            c.model,
            row(c.line, c.model).tp,
            err * 100.0,
            d.join(" | ")
        );
        match MISSES.iter().find(|m| m.0 == c.line) {
            Some((_, measured, _)) => {
                if (err - measured).abs() > 0.0005 {
                    failures.push(format!(
                        "line {}: {:+.3} % moved from the recorded miss {:+.3} %",
                        c.line,
                        err * 100.0,
                        measured * 100.0
                    ));
                }
            }
            None => {
                if err.abs() > 0.003 {
                    failures.push(format!(
                        "line {}: {pred} vs {logged} ({:+.3} %) beyond 0.3 %",
                        c.line,
                        err * 100.0
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_vllm_row_is_covered_or_listed() {
    // 58 vLLM rows (lines 13-39, 41-44, 46-54, 59, 61-67, 69-78): each is predicted (CASES or
    // REFUSED) or listed with its reason (NOT_COVERED), never both.
    let all = rows();
    assert_eq!(all.len(), 58);
    for r in all {
        let covered = CASES.iter().any(|c| c.line == r.line) || REFUSED.contains(&r.line);
        let listed = NOT_COVERED.iter().any(|(l, _)| *l == r.line);
        assert!(covered ^ listed, "line {} ({})", r.line, r.model);
        assert!(
            !(REFUSED.contains(&r.line) && CASES.iter().any(|c| c.line == r.line)),
            "line {}",
            r.line
        );
    }
}

/// The check rows of the activation base (the cuBLAS workspace, code-derived): (line, model,
/// vocab_size, hidden_size, dense intermediate per rank, dtype bytes), the sizes from each model's
/// HF config.json (granite-3.1-2b: find_string id 61124332828, a copy of
/// ibm-granite/granite-3.1-2b-base's; phi-2, Qwen2.5-7B, Qwen3-8B and Kimi-Dev-72B (Qwen2.5-72B's
/// geometry, 29,568 / tp 2): their published config.json). The last field: the MLP is gated. phi-2's
/// is not (fc1 + GELU, phi2 / issue #17: `vllm_startup::forward_peak_bytes`): its forward term is
/// 8192 × (2 × 10,240 + 4 × 2560) × 2 B = 0.47 GiB, below its sampler's 0.76.
const ACTIVATION_FIT: &[(usize, &str, u64, u64, u64, u64, bool)] = &[
    (
        19,
        "ibm-granite/granite-3.1-2b-instruct",
        49_155,
        2_048,
        8_192,
        2,
        true,
    ),
    (26, "microsoft/phi-2", 51_200, 2_560, 10_240, 2, false),
    (28, "moonshotai/Kimi-Dev-72B", 152_064, 8_192, 14_784, 2, true),
    (33, "Qwen/Qwen2.5-7B-Instruct", 152_064, 3_584, 18_944, 2, true),
    (35, "Qwen/Qwen3-8B", 151_936, 4_096, 12_288, 2, true),
];

/// Single-GPU non-torch fit rows and the two tp > 1 rows of the communication part.
/// vllmrows (issue #17): line 19 (granite-3.1-2b) left the non-torch fit: its logged 0.46 GiB holds
/// the sampler kernel's stack reserve (0.2175 GiB, modelled apart), which the single-GPU part must
/// not absorb. The median of the seven others is 0.25 GiB, as it was with line 19 in.
const NON_TORCH_FIT_TP1: &[usize] = &[13, 15, 26, 29, 33, 35, 38];
const NON_TORCH_FIT_TP2: usize = 28;
const NON_TORCH_FIT_TP4: usize = 34;

/// A number of `engines/vllm.toml` in GiB (`key = "0.25GiB"`, `key = "32MiB"`) or plain (`key = 12`).
fn preset_value(key: &str) -> f64 {
    match preset_key("engines/vllm.toml", key).unwrap_or_else(|| panic!("vllm.toml has no {key}")) {
        toml::Value::String(v) => match v.strip_suffix("MiB") {
            Some(mib) => mib.parse::<f64>().unwrap() / 1024.0,
            None => v.trim_end_matches("GiB").parse().unwrap(),
        },
        toml::Value::Integer(n) => n as f64,
        toml::Value::Float(x) => x,
        other => panic!("vllm.toml {key}: {other}"),
    }
}

/// The coefficients of `engines/vllm.toml` (GiB except `per_logit`, bytes per logit).
#[derive(Debug, Clone, Copy)]
struct Fit {
    base: f64,
    per_logit: f64,
    median: f64,
    comm: f64,
    per_peer: f64,
}

impl Fit {
    /// The `[engine.costs]` block that sets these coefficients in a scenario.
    fn costs_toml(&self) -> String {
        format!(
            "[engine.costs]\nvllm_activation_base = \"{:.6}GiB\"\nvllm_sampler_bytes_per_logit = {:.6}\n\
             non_torch_memory = \"{:.6}GiB\"\nvllm_non_torch_comm = \"{:.6}GiB\"\nvllm_non_torch_per_peer = \"{:.6}GiB\"\n",
            self.base, self.per_logit, self.median, self.comm, self.per_peer
        )
    }
}

/// A check row's code-derived activation without `vllm_activation_base` (GiB): the larger of the
/// forward pass and the sampler plus the cuBLAS workspace, at vLLM's H100 default shape (8,192
/// tokens, 1,024 sequences, 132 SMs, compute capability 9.0).
fn code_activation(per_logit: f64, vocab: u64, hidden: u64, inter: u64, dtype: u64, gated: bool) -> f64 {
    use tpsim_model::vllm_startup::{ProfileShape, StartupParams, peak_activation};
    let p = StartupParams {
        activation_base_gib: 0.0,
        sampler_bytes_per_logit: per_logit,
        non_torch_base_gib: 0.0,
        non_torch_comm_gib: 0.0,
        non_torch_per_peer_gib: 0.0,
    };
    let s = ProfileShape {
        max_num_batched_tokens: 8_192,
        max_num_seqs: 1_024,
        hidden,
        mlp_intermediate: inter,
        mlp_gated: gated,
        vocab,
        dtype_bytes: dtype,
        sm_count: 132,
        encoder_bytes: 0,
        moe_workspace: 0,
        // H100 (compute capability 9.0): 32 MiB.
        cublas_workspace: tpsim_model::vllm_startup::cublas_workspace_bytes(9),
    };
    peak_activation(&p, &s).0 as f64 / GIB
}

/// vllm.toml's coefficients re-derived from their rows, leaving out `without` (a line) if given.
/// Activation: the sampler's bytes per logit are code-derived (the preset's 12); the base is the
/// mean of (logged activation − [`code_activation`]) over the check rows. Non-torch: the median of
/// the tp-1 rows; the tp-2 and tp-4 rows give comm + 1 peer and comm + 3 peers. With one of the two
/// tp > 1 rows left out the per-peer part cannot be fitted: it is 0 and comm = the remaining row −
/// the median.
fn fit(without: Option<usize>) -> Fit {
    let keep = |l: usize| without != Some(l);
    let per_logit = preset_value("vllm_sampler_bytes_per_logit");
    let residuals: Vec<f64> = ACTIVATION_FIT
        .iter()
        .filter(|f| keep(f.0))
        .map(|&(line, model, vocab, hidden, inter, dtype, gated)| {
            let r = row(line, model);
            r.note("activation").unwrap() - code_activation(per_logit, vocab, hidden, inter, dtype, gated)
        })
        .collect();
    // A byte count: a negative mean residual (rounding of the logged figures) means none.
    let base = (residuals.iter().sum::<f64>() / residuals.len() as f64).max(0.0);
    let nt = |l: usize| {
        rows()
            .into_iter()
            .find(|r| r.line == l)
            .unwrap()
            .note("non_torch_fwd")
            .unwrap()
    };
    let mut tp1: Vec<f64> = NON_TORCH_FIT_TP1
        .iter()
        .filter(|&&l| keep(l))
        .map(|&l| nt(l))
        .collect();
    tp1.sort_by(f64::total_cmp);
    let k = tp1.len();
    let median = if k.is_multiple_of(2) {
        (tp1[k / 2 - 1] + tp1[k / 2]) / 2.0
    } else {
        tp1[k / 2]
    };
    // vmemtp57: less FlashInfer's allreduce-fusion workspace, modelled apart (1.5 GiB on both rows).
    let nt = |l: usize| nt(l) - fi_workspace_gib(l);
    let (comm, per_peer) = match (keep(NON_TORCH_FIT_TP2), keep(NON_TORCH_FIT_TP4)) {
        (true, true) => {
            let per_peer = (nt(NON_TORCH_FIT_TP4) - nt(NON_TORCH_FIT_TP2)) / 2.0;
            (nt(NON_TORCH_FIT_TP2) - median - per_peer, per_peer)
        }
        (true, false) => (nt(NON_TORCH_FIT_TP2) - median, 0.0),
        _ => (nt(NON_TORCH_FIT_TP4) - median, 0.0),
    };
    Fit {
        base,
        per_logit,
        median,
        comm,
        per_peer,
    }
}

/// vmemtp57: the FlashInfer allreduce-fusion workspace (GiB) of the tp > 1 fit rows, from
/// `tpsim_model::vllm_fi_workspace` (H100 SXM, capability 9.0, 8,192-token profile, bf16): line 28
/// (Kimi-Dev-72B, hidden 8192, tp 2) and line 34 (Qwen2.5-7B, hidden 3584, tp 4), 3 × 512 MiB each.
fn fi_workspace_gib(line: usize) -> f64 {
    let (tp, hidden) = match line {
        NON_TORCH_FIT_TP2 => (2, 8_192),
        NON_TORCH_FIT_TP4 => (4, 3_584),
        _ => return 0.0,
    };
    tpsim_model::vllm_fi_workspace::fusion_workspace_bytes(90, tp, hidden, 2, 8_192).unwrap() as f64 / GIB
}

/// Re-derives `engines/vllm.toml`'s vLLM start-up coefficients from their rows and checks the preset
/// holds them: the refit command named in vllm.toml (`-- --nocapture` prints the values).
#[test]
fn refit() {
    let Fit {
        base,
        per_logit,
        median,
        comm,
        per_peer,
    } = fit(None);
    println!(
        "vllm_activation_base (check rows' mean residual) = \"{base:.4}GiB\"\nvllm_sampler_bytes_per_logit = {per_logit}\n\
         non_torch_memory = \"{median:.2}GiB\"\nvllm_non_torch_comm = \"{comm:.2}GiB\"\n\
         vllm_non_torch_per_peer = \"{per_peer:.2}GiB\""
    );
    // Nothing beyond the code-derived parts (cuBLAS workspace 32 MiB included): the check rows'
    // residuals (by hand from the rule: −0.0008, +0.0012, −0.0025, +0.0053, −0.0027 GiB) average
    // +0.0001 GiB. Tolerance 0.002 GiB: the logged activations are rounded to 0.01 GiB (± 0.005 each,
    // ± 0.0022 on a mean of 5).
    assert!((base - 0.0001).abs() < 0.0005, "{base}");
    // Non-torch, by hand: tp-1 median 0.25 GiB; per peer (2.13 − 2.09) / 2 = 0.02 GiB; comm 2.09 −
    // 0.25 − 0.02 − 1.5 (vmemtp57: the FlashInfer workspace, 3 × 512 MiB, modelled apart) = 0.32 GiB.
    assert!((fi_workspace_gib(NON_TORCH_FIT_TP2) - 1.5).abs() < 1e-12);
    assert!((fi_workspace_gib(NON_TORCH_FIT_TP4) - 1.5).abs() < 1e-12);
    assert!((comm - 0.32).abs() < 0.005, "{comm}");
    assert!((per_logit - 12.0).abs() < 1e-9, "{per_logit}");
    for (key, fitted, tol) in [
        ("vllm_activation_base", base, 0.002),
        ("non_torch_memory", median, 0.005),
        ("vllm_non_torch_comm", comm, 0.005),
        ("vllm_non_torch_per_peer", per_peer, 0.005),
    ] {
        let preset = preset_value(key);
        assert!(
            (preset - fitted).abs() <= tol,
            "vllm.toml {key} = {preset}, refit {fitted}"
        );
    }
}

/// Every fit row of the coefficients (activation or non-torch).
fn is_fit_row(line: usize) -> bool {
    ACTIVATION_FIT.iter().any(|f| f.0 == line)
        || NON_TORCH_FIT_TP1.contains(&line)
        || line == NON_TORCH_FIT_TP2
        || line == NON_TORCH_FIT_TP4
}

/// Fit rows that miss 0.3 % out of sample: (line, measured signed error, why).
/// Line 28 is within 0.3 % in sample (vrows4); line 19 is within it both ways since vllmrows.
const LOO_MISSES: &[(usize, f64, &str)] = &[(
    28,
    -0.01133,
    // In sample +0.16 % (vrows4). Without this row the tp-2 non-torch part is refitted from the
    // other tp-2 rows to 2.13 GiB, 0.04 GiB above this row's logged 2.09: on its 3.02 GiB KV
    // pool that is −1.13 % of the tokens.
    "non-torch refit without the row: 2.13 GiB vs 2.09 logged (+0.04) on a 3.02 GiB pool",
)];

/// Out-of-sample figures for the fit rows predicted from a preset: each row's coefficients are
/// refitted WITHOUT that row ([`fit`]), set in the scenario's `[engine.costs]`, and the row is
/// predicted. Tolerance: 0.3 % on tokens; recorded misses assert their measured error ± 0.05 pp.
#[test]
fn leave_one_row_out() {
    let mut failures = Vec::new();
    println!("| line | model | tp | in sample | out of sample (leave-one-row-out) | logged |");
    for c in CASES.iter().filter(|c| is_fit_row(c.line)) {
        let inside = predict(c);
        let f = fit(Some(c.line));
        let out = predict_with(c, &f.costs_toml());
        println!(
            "| {} | {} | {} | {} ({:+.3} %) | {} ({:+.3} %) | {} |",
            c.line,
            c.model,
            row(c.line, c.model).tp,
            inside.tokens,
            inside.err * 100.0,
            out.tokens,
            out.err * 100.0,
            out.logged
        );
        match LOO_MISSES.iter().find(|m| m.0 == c.line) {
            Some((_, measured, _)) if (out.err - measured).abs() > 0.0005 => failures.push(format!(
                "line {}: {:+.3} % moved from the recorded miss {:+.3} %",
                c.line,
                out.err * 100.0,
                measured * 100.0
            )),
            Some(_) => {}
            None if out.err.abs() > 0.003 => failures.push(format!(
                "line {}: out of sample {} vs {} ({:+.3} %) beyond 0.3 %",
                c.line,
                out.tokens,
                out.logged,
                out.err * 100.0
            )),
            None => {}
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `[engine.observed]` overrides the modelled parts under vLLM too: line 20 (modelled: −0.029 % since
/// vllmrows) with the log's weights, activation and non-torch growth lands within the
/// inputs' rounding (± 0.02 GiB of 58.66 GiB ≈ 0.034 %): 75.2305 − 15.25 − 0.85 − 0.46 = 58.6705 GiB
/// → ⌊58.6705 × 2^30 / (16 × 163,840)⌋ = 24,031 blocks = 384,496 tokens vs 384,432 logged.
#[test]
fn observed_parts_override_the_model() {
    let c = CASES.iter().find(|c| c.line == 20).unwrap();
    let r = row(20, c.model);
    let text = format!(
        "{}[engine.observed]\nweights_gib = 15.25\npeak_activation_gib = 0.85\nnon_torch_gib = 0.46\n",
        scenario_text(c, &r)
    );
    let s = tpsim::scenario::load_str(&text, Path::new("line20.toml")).unwrap();
    let p = tpsim::plan_memory(&s);
    assert_eq!(p.kv_tokens, 384_496);
    assert!((p.kv_tokens as f64 - r.kv_tokens as f64).abs() / (r.kv_tokens as f64) < 0.00034);
    use tpsim::decode::{MemKind, Source};
    for k in [
        MemKind::TargetWeights,
        MemKind::PeakActivation,
        MemKind::NonTorchGrowth,
    ] {
        assert_eq!(
            p.entries.iter().find(|e| e.kind == k).unwrap().source,
            Source::Observed,
            "{k:?}"
        );
    }
}

/// `engine.dtype = "bfloat16"` under vLLM on a GPU before compute capability 8.0 (V100, 7.0): vLLM
/// 0.11.0 `platforms/cuda.py` `check_if_supports_dtype` refuses it; `float16` starts.
#[test]
fn vllm_refuses_bfloat16_before_sm80() {
    let text = |d: &str| {
        format!(
            "[hardware]\npreset = \"v100-4x-plx\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
             tp = 4\ndtype = \"{d}\"\n"
        )
    };
    let e = tpsim::scenario::load_str(&text("bfloat16"), Path::new("v100.toml")).unwrap_err();
    assert!(
        e.to_string()
            .contains("Bfloat16 is only supported on GPUs with compute capability of at least 8.0"),
        "{e}"
    );
    let s = tpsim::scenario::load_str(&text("float16"), Path::new("v100.toml")).expect("float16 loads");
    assert_eq!(s.model.dtype, tpsim_model::llm::WeightDtype::Fp16);
}

/// phi2 (issue #17): engine-memory.tsv line 26 (vLLM 0.19.0, microsoft/phi-2, 1× H100, fp16,
/// gpu_memory_utilization 0.95, max_model_len 2048) predicted from the `phi-2` preset. By hand:
/// weights 2,779,683,840 parameters × 2 B = 5,559,367,680 B, plus the RoPE cache 2048 × 80 × 2 B =
/// 327,680, plus the caching allocator's blocks (vrows4, `tpsim_model::torch_alloc`): each layer's
/// 37.5 MiB `qkv_proj` takes a whole 38 MiB segment, 32 × 524,288 B = 16,777,216 (fc1, fc2, the
/// embedding and the LM head are multiples of 2 MiB; `dense`'s 12.5 MiB is split from a 14 MiB
/// segment), is 5,576,472,576 B (5.1935 GiB; logged 5.19); activation: the sampler binds,
/// 813,465,600 B + 32 MiB of cuBLAS workspace = 847,020,032 B (0.789 GiB; logged 0.79); non-torch growth 0.25 GiB (the tp-1 median;
/// logged 0.24). Requested 0.95 × 79.19 GiB; KV = requested − the three parts, in 16-token blocks of
/// 327,680 B each per token. Logged: 226,112 tokens (14,132 blocks). Tolerance: the 0.3 %.
#[test]
fn phi_2_h100_tp1_line_26() {
    let c = CASES.iter().find(|c| c.line == 26).expect("line 26 is a case");
    let p = predict(c);
    assert_eq!(p.logged, 226_112);
    // 226,080 predicted = 14,130 blocks (−2 blocks, −0.014 %): weights +0.003 GiB and non-torch
    // +0.01 GiB against the log.
    assert_eq!(p.tokens, 226_080);
    assert!(p.err.abs() <= 0.003, "{:+.3} %", p.err * 100.0);
    assert!((p.parts[0] - 5.1935).abs() < 0.0005, "weights {}", p.parts[0]);
    assert!((p.parts[1] - 0.7888).abs() < 0.0005, "activation {}", p.parts[1]);
}

/// vrows3 (issue #17 point 5): engine-memory.tsv line 39 — llm-d-benchmark's vLLM ~0.11 start of
/// RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic on one H100 (gpu_memory_utilization 0.90,
/// max-model-len 16000), which fails with "No available memory for the cache blocks" — predicted from
/// the scenario with `engine.version = "0.11.0"`, which selects the sorting dummy sampler
/// (`tpsim_model::vllm_sort_sampler`).
///
/// By hand: activation = (8192 + 2 × 1024) × 8192 × 2 = 167,772,160 + 1024 × 128,256 × 38 =
/// 4,990,697,472 + cuBLAS 33,554,432 = 5,192,024,064 B = 4.8355 GiB (logged 4.84; the forward pass,
/// 8192 × (3 × 28,672 + 4 × 8192) × 2 B = 1.81 GiB, is below it). Requested 0.90 × 79.19 = 71.271 GiB
/// − weights 67.73 (line 14's 33.88 per rank at tp 2, whole here) − 4.8355 − non-torch 0.25 (vLLM
/// 0.19's fitted tp-1 part; the 0.11 log gives 0.14, see below) = −1.54 GiB: ≤ 0, so vLLM 0.11.0
/// `v1/core/kv_cache_utils.py` `check_enough_kv_cache_memory` raises its `ValueError`. The row
/// logs −1.44: the 0.10 GiB gap is the non-torch part (0.25 modelled, 0.14 logged; vLLM 0.11's
/// `memory_profiling` ends before any CUDA-graph profiling, which 0.19 runs inside it).
/// Tolerances: activation ± 0.01 GiB (the log's rounding and the weights' ± 0.01), available KV
/// −1.54 ± 0.02 GiB.
///
/// Without `engine.version` the 0.19.0 rule applies (1.96 GiB of activation): 1.34 GiB are left,
/// fewer than one 16,000-token request's 4.88 GiB, so that scenario is refused too — but with the
/// other check's text, not the one the row logs.
#[test]
fn line_39_refused_by_vllm_0_11() {
    use tpsim::decode::{MemKind, Verdict};
    let r = row(39, "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic");
    let text = |version: &str| {
        format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-70b\"\n\
             quantization = {{ dtype = \"fp8\", per_channel = true }}\n[engine]\nname = \"vllm\"\ntp = 1\n\
             gpu_memory_utilization = {}\nmax_model_len = 16000\n{version}",
            r.mem_frac
        )
    };
    let s = tpsim::scenario::load_str(&text("version = \"0.11.0\"\n"), Path::new("line39.toml")).unwrap();
    let p = tpsim::plan_memory(&s);
    let act = p
        .entries
        .iter()
        .find(|e| e.kind == MemKind::PeakActivation)
        .unwrap()
        .bytes;
    assert_eq!(act, 5_192_024_064);
    assert!((act as f64 / GIB - 4.84).abs() <= 0.01);
    assert_eq!(p.kv_tokens, 0);
    match &p.verdict {
        Verdict::Oom { message, .. } => assert!(
            message.contains(
                "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when \
                 initializing the engine."
            ),
            "{message}"
        ),
        v => panic!("line 39 must be refused, got {v:?}"),
    }
    assert!(r.notes.contains("No available memory for the cache blocks"));
    // The predicted available KV memory: requested − the three parts.
    let part = |k: MemKind| {
        p.entries
            .iter()
            .find(|e| e.kind == k)
            .map_or(0.0, |e| e.bytes as f64 / GIB)
    };
    let avail = 0.90 * 79.19
        - part(MemKind::TargetWeights)
        - part(MemKind::PeakActivation)
        - part(MemKind::NonTorchGrowth);
    assert!((avail - (-1.54)).abs() <= 0.02, "{avail}");
    // vLLM 0.19's rule (no version): 1.34 GiB left, refused by the max_model_len check instead.
    let s19 = tpsim::scenario::load_str(&text(""), Path::new("line39-0.19.toml")).unwrap();
    match tpsim::plan_memory(&s19).verdict {
        Verdict::Oom { message, .. } => assert!(
            message.contains(
                "(4.88 GiB KV cache is needed, which is larger than the available KV cache memory (1.34 GiB)"
            ),
            "{message}"
        ),
        v => panic!("{v:?}"),
    }
}

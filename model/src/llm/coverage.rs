//! What tpsim reproduces of each architecture under each engine, and which public start-up log or
//! measurement checks it (issue #16, point 4).
//!
//! One [`Coverage`] per [`Architecture`] (the `match` in [`coverage`] is exhaustive, so a new
//! architecture cannot be added without saying what is exact and what checks it). The book's table
//! (book/src/coverage.md) is rendered from [`all`], and `tests/tests/coverage.rs` checks that the
//! book shows it and that every test a [`Check`] names exists. A run report names the checks of its
//! model under its engine, or says that none exists.

use serde::Serialize;

use super::{Architecture, SUPPORTED_ARCHITECTURES, architecture_of};

/// How closely tpsim follows the engine on one aspect of one architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// The engine's arithmetic, to the byte or token (given its inputs).
    Exact,
    /// Modelled, but from first principles or fitted constants rather than the engine's own figures.
    Approximate,
    /// The engine runs it but tpsim does not model it under this engine yet (it refuses the
    /// scenario, saying so).
    NotModelled,
    /// The engine refuses this architecture (tpsim refuses with its text).
    Refused,
}

impl Level {
    /// The word the book's table and the report use.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Exact => "exact",
            Level::Approximate => "approx.",
            Level::NotModelled => "not modelled",
            Level::Refused => "refused",
        }
    }
}

/// One public start-up log or measurement that checks tpsim on an architecture, and the test that
/// compares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The log or measurement (where it is, engine version, GPU, TP).
    pub source: &'static str,
    /// The test that compares tpsim with it: `module::function` of tests/tests/, or
    /// `llm::module::function` of the model crate's unit tests (model/src/llm/).
    pub test: &'static str,
}

/// What tpsim reproduces under one engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EngineCoverage {
    /// Weights per rank (the engine's sharding and the checkpoint's format).
    pub weights: Level,
    /// Bytes of KV cache (or state) per token per rank.
    pub kv_cell: Level,
    /// The pool layout and token count (pages, per-layer-type groups, SWA/NSA pools).
    pub pool: Level,
    /// Decode cost (kernels and collectives of an iteration).
    pub cost: Level,
    /// What checks it.
    pub checks: &'static [Check],
}

/// What tpsim reproduces of one architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Coverage {
    /// The architecture.
    pub arch: Architecture,
    /// The model families it serves, as users name them.
    pub families: &'static str,
    /// Under SGLang.
    pub sglang: EngineCoverage,
    /// Under vLLM.
    pub vllm: EngineCoverage,
}

/// Exact memory, approximate cost: what every architecture whose lowering follows the engine's
/// sharding and pool code gets.
const fn exact_memory(checks: &'static [Check]) -> EngineCoverage {
    EngineCoverage {
        weights: Level::Exact,
        kv_cell: Level::Exact,
        pool: Level::Exact,
        cost: Level::Approximate,
        checks,
    }
}

/// An engine under which tpsim refuses the architecture's scenarios, saying it does not model them.
const NOT_MODELLED: EngineCoverage = EngineCoverage {
    weights: Level::NotModelled,
    kv_cell: Level::NotModelled,
    pool: Level::NotModelled,
    cost: Level::NotModelled,
    checks: &[],
};

const fn check(source: &'static str, test: &'static str) -> Check {
    Check { source, test }
}

/// The coverage of `arch` (exhaustive: a new architecture must say what is exact and what checks it).
pub fn coverage(arch: Architecture) -> &'static Coverage {
    match arch {
        Architecture::Llama => &LLAMA,
        Architecture::Qwen2 => &QWEN2,
        Architecture::Qwen3 => &QWEN3,
        Architecture::Qwen3Moe => &QWEN3_MOE,
        Architecture::DeepseekV3 => &DEEPSEEK_V3,
        Architecture::KimiK25 => &KIMI_K25,
        Architecture::Glm4Moe => &GLM4_MOE,
        Architecture::Eagle3Llama => &EAGLE3_LLAMA,
        Architecture::Qwen35Moe => &QWEN35_MOE,
        Architecture::MiniMaxM2 => &MINIMAX_M2,
        Architecture::GptOss => &GPT_OSS,
        Architecture::Qwen25Vl => &QWEN25_VL,
        Architecture::Qwen2Moe => &QWEN2_MOE,
        Architecture::Phi3 => &PHI3,
        Architecture::Granite => &GRANITE,
        Architecture::Glm => &GLM,
        Architecture::Glm4 => &GLM4,
        Architecture::Mistral3 => &MISTRAL3,
        Architecture::Mllama => &MLLAMA,
        Architecture::Gemma => &GEMMA,
        Architecture::Gemma2 => &GEMMA2,
        Architecture::Gemma3 => &GEMMA3,
        Architecture::Mistral => &MISTRAL,
        Architecture::Mixtral => &MIXTRAL,
        Architecture::Llama4 => &LLAMA4,
        Architecture::DeepseekV2 => &DEEPSEEK_V2,
        Architecture::DeepseekV32 => &DEEPSEEK_V32,
        Architecture::GlmMoeDsa => &GLM_MOE_DSA,
        Architecture::KimiVl => &KIMI_VL,
        // fam (issue #16): GraniteMoE, Phi-3.5-MoE, LLaVA-NeXT.
        Architecture::GraniteMoe => &GRANITE_MOE,
        Architecture::PhiMoe => &PHI_MOE,
        Architecture::LlavaNext => &LLAVA_NEXT,
        // phi2 (issue #17): phi-1/1.5/2.
        Architecture::Phi => &PHI,
        // nemotronh (issue #17): Nemotron-H.
        Architecture::NemotronH => &NEMOTRON_H,
        // qwenhyb (issue #17): dense Qwen3.5 and Qwen3-Next.
        Architecture::Qwen35 => &QWEN35,
        Architecture::Qwen3Next => &QWEN3_NEXT,
        Architecture::Qwen3Vl => &QWEN3_VL,
        Architecture::Qwen3VlMoe => &QWEN3_VL_MOE,
        // families (issue #17): Granite-4.0-H.
        Architecture::GraniteMoeHybrid => &GRANITE_MOE_HYBRID,
        Architecture::SeedOss => &SEED_OSS,
        Architecture::Ernie45Moe => &ERNIE45_MOE,
        // families2 (issue #17): Ling / Ring 2.0.
        Architecture::BailingMoeV2 => &BAILING_MOE_V2,
        Architecture::Cohere2 => &COHERE2,
        Architecture::Olmo2 => &OLMO2,
        Architecture::Olmoe => &OLMOE,
        Architecture::Mimo => &MIMO,
        Architecture::NemotronNas => &NEMOTRON_NAS,
        Architecture::HunYuanMoeV1 => &HUNYUAN_MOE_V1,
        Architecture::Exaone4 => &EXAONE4,
        Architecture::Glm4vMoe => &GLM4V_MOE,
        // families8 (issue #17): Command R / R+.
        Architecture::Cohere => &COHERE,
        // families10 (issue #17): GLM-4.7-Flash.
        Architecture::Glm4MoeLite => &GLM4_MOE_LITE,
        // families11 (issue #17): InternLM2 / 2.5.
        Architecture::InternLM2 => &INTERNLM2,
        // families13 (issue #17): StarCoder2.
        Architecture::Starcoder2 => &STARCODER2,
        // families15 (issue #17): dots.llm1.
        Architecture::Dots1 => &DOTS1,
        // families16 (issue #17): Qwen2-VL.
        Architecture::Qwen2Vl => &QWEN2_VL,
        // families17 (issue #17): dense ERNIE-4.5 and dense Hunyuan.
        Architecture::Ernie45 => &ERNIE45,
        Architecture::HunYuanDenseV1 => &HUNYUAN_DENSE_V1,
        // families19 (issue #17): Kimi-Linear.
        Architecture::KimiLinear => &KIMI_LINEAR,
        // families18 (issue #17): GLM-4.1V.
        Architecture::Glm4v => &GLM4V,
        Architecture::Arcee => &ARCEE,
        Architecture::FalconH1 => &FALCON_H1,
        // families21 (issue #17): Apertus, MiniCPM, MiniCPM3.
        Architecture::Apertus => &APERTUS,
        Architecture::MiniCpm => &MINICPM,
        Architecture::MiniCpm3 => &MINICPM3,
        // families22 (issue #17): LFM2 and LFM2-MoE.
        Architecture::Lfm2 => &LFM2,
        Architecture::Lfm2Moe => &LFM2_MOE,
        // families23 (issue #17): MiMo-V2-Flash.
        Architecture::MiMoV2Flash => &MIMO_V2_FLASH,
        Architecture::Grok1 => &GROK1,
        // families25 (issue #17): LongCat-Flash.
        Architecture::LongcatFlash => &LONGCAT_FLASH,
        // families27 (issue #17): MiniMax-Text-01 / MiniMax-M1.
        Architecture::MiniMaxText01 => &MINIMAX_TEXT01,
        // families28 (issue #17): Step-3.5-Flash.
        Architecture::Step3p5 => &STEP3P5,
        // families30 (issue #17): Gemma 4.
        Architecture::Gemma4 => &GEMMA4,
        // families32 (issue #17): Kimi-K3.
        Architecture::KimiK3 => &KIMI_K3,
        // families31 (issue #17): Mistral Large 3.
        Architecture::MistralLarge3 => &MISTRAL_LARGE3,
        // families36 (issue #17): Hunyuan V3 / Hy3.
        Architecture::Hy3 => &HY3,
        // dsv4run55 (issue #17): DeepSeek-V4.
        Architecture::DeepseekV4 => &DEEPSEEK_V4,
        // families38 (issue #17): MiniMax-M3's text model.
        Architecture::MiniMaxM3 => &MINIMAX_M3,
    }
}

/// Every supported architecture's coverage, in the order of [`SUPPORTED_ARCHITECTURES`] (each once).
pub fn all() -> Vec<&'static Coverage> {
    let mut out: Vec<&'static Coverage> = Vec::new();
    for name in SUPPORTED_ARCHITECTURES {
        if let Some(arch) = architecture_of(name)
            && !out.iter().any(|c| c.arch == arch)
        {
            out.push(coverage(arch));
        }
    }
    out
}

static LLAMA: Coverage = Coverage {
    arch: Architecture::Llama,
    // families10 (issue #17): InternLM3 (`InternLM3ForCausalLM`) is a Llama in both engines.
    families: "Llama 2, Llama 3.x, CodeLlama; InternLM3 (InternLM3ForCausalLM, 8B-Instruct preset from public copies)",
    sglang: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 4: SGLang ~0.4.1, Llama-3.1-8B, 1× H100",
            "engine_memory_rows::sglang_0_4_1_llama_3_1_8b_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 11: SGLang ~0.3.5, Llama-3.1-8B, 1× H100",
            "engine_memory_rows::sglang_0_3_5_llama_3_1_8b_h100_tp1",
        ),
    ]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 13: vLLM 0.19.0, CodeLlama-7B, 1× H100",
            "engine_memory_rows::vllm_0_19_codellama_7b_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 25: vLLM 0.19.0, Llama-3.1-8B, 4× H100 TP 4",
            "engine_memory_rows::vllm_0_19_llama_3_1_8b_h100_tp4",
        ),
        check(
            "tests/data/engine-memory.tsv line 36: vLLM 0.19.0, Llama-3.1-8B W4A16 (GPTQ-Marlin), 1× H100",
            "engine_memory_rows::vllm_0_19_llama_3_1_8b_w4a16_h100_tp1",
        ),
    ]),
};

// families14 (issue #17): InternVL (`InternVLChatModel`) is listed here with its Qwen2 tower: it is
// lowered as the tower its `llm_config` names (`llm::internvl`), InternViT and mlp1 added.
static QWEN2: Coverage = Coverage {
    arch: Architecture::Qwen2,
    families: "Qwen2, Qwen2.5, QwQ; InternVL 2.5 / 3 / 3.5 (InternVLChatModel: InternViT + mlp1 + the llm_config tower, lowered as Qwen2, InternLM2, Llama / InternLM3, Qwen3, Qwen3-MoE or GPT-OSS; InternVL3-1B preset from a public transformers dump, InternVL3-78B from the cards' sizes; InternViT-6B's 25 heads at tp 2 / 4 / 8: SGLang pads dummy heads, vLLM keeps the attention whole on every rank; SGLang from 0.4.6.post3 (Qwen3-MoE towers and dummy heads from 0.4.9.post5, Qwen3 and GPT-OSS towers from 0.5.2), read from the wheels, without Llama / InternLM3 towers; the HF-format InternVLForConditionalGeneration not modelled)",
    sglang: exact_memory(&QWEN2_SGLANG_CHECKS),
    vllm: exact_memory(&QWEN2_VLLM_CHECKS),
};

/// SGLang: the QwQ-32B start-up row and the InternVL size checks.
const QWEN2_SGLANG_CHECKS: [Check; 3] = [
    check(
        "tests/data/engine-memory.tsv line 2: SGLang ~0.4.3, QwQ-32B, 4× L4 TP 4",
        "engine_memory_rows::sglang_0_4_3_qwq_32b_l4_tp4",
    ),
    INTERNVL_CHECK,
    INTERNVL3_78B_CHECK,
];

/// vLLM: the Qwen2.5-7B start-up rows, the InternVL size checks and the vLLM 0.10.1.1 Qwen2-7B rows.
const QWEN2_VLLM_CHECKS: [Check; 5] = [
    check(
        "tests/data/engine-memory.tsv line 34: vLLM 0.19.0, Qwen2.5-7B, 4× H100 TP 4",
        "engine_memory_rows::vllm_0_19_qwen2_5_7b_h100_tp4",
    ),
    check(
        "tests/data/engine-memory.tsv line 38: vLLM 0.19.0, Qwen2.5-7B W8A8, 1× H100",
        "engine_memory_rows::vllm_0_19_qwen2_5_7b_w8a8_h100_tp1",
    ),
    INTERNVL_CHECK,
    // vllmold52 (issue #17): the non-torch growth is measured on these rows (in sample).
    check(
        "tests/data/engine-memory.tsv lines 64-67: vLLM 0.10.1.1, Qwen2-7B-Instruct, 1× and 2× A100 (NCCL over SHM) at 0.25 and 0.5, KV tokens exact (0.10.1.x's non-torch growth measured on these rows)",
        "vllmold52::kv_cache_size_of_the_0_10_1_1_logs",
    ),
    INTERNVL3_78B_CHECK,
];

/// families14 (issue #17): InternVL3-1B's size, engine-independent (the weights both engines load).
const INTERNVL_CHECK: Check = check(
    "InternVL3-1B: \"0.9B\" (InternVL3 paper, Table 1, as a public summary copies it; find_string id 55794825236); 938,193,024 by hand, its language model's 357,898,112 non-embedding = Qwen2.5-0.5B's card \"0.36B\" (find_string id 70947550986); rounded sizes, not an engine log",
    "llm::tests_internvl::internvl3_1b_parameters_by_hand",
);

/// families26 (issue #17): InternVL3-78B's size with InternViT-6B, engine-independent at tp 1 (the
/// engines' per-rank layouts of its 25 heads: `llm::tests_families26::internvit_6b_per_rank_by_engine`).
const INTERNVL3_78B_CHECK: Check = check(
    "OpenGVLab/InternVL3-78B card: \"78.4B\"; 78,408,318,336 by hand (InternViT-6B-448px-V2.5 5,536,496,000 = its card's \"5.5B\"); rounded sizes, not an engine log",
    "llm::tests_families26::internvl3_78b_parameters_by_hand",
);

/// families26 (issue #17): InternVL3.5-38B's size (a Qwen3-32B tower with InternViT-6B).
const INTERNVL3_5_38B_CHECK: Check = check(
    "OpenGVLab/InternVL3_5-38B card: \"38.4B\"; 38,390,405,504 by hand, its Qwen3-32B tower's 31,206,293,504 non-embedding = Qwen3-32B's card \"31.2B\"; rounded sizes, not an engine log",
    "llm::tests_families26::internvl3_5_38b_parameters_by_hand",
);

static QWEN3: Coverage = Coverage {
    arch: Architecture::Qwen3,
    families: "Qwen3 dense; InternVL3.5 with a Qwen3 tower (InternVLChatModel, lowered as Qwen3: InternVL3.5-38B preset from the cards' sizes; SGLang from 0.5.2)",
    sglang: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 40: SGLang 2026-06 (ebaf86d), Qwen3-14B, 4× RTX 4090 TP 4, KV tokens (−0.008 %)",
            "engine_memory_logs::sglang_2026_06_qwen3_14b_rtx4090_tp4",
        ),
        check(
            "tests/data/engine-memory.tsv line 40: SGLang 2026-06 (ebaf86d), Qwen3-14B, 4× RTX 4090 TP 4, weights 6.878 GiB + the float32 RoPE cache 0.0195 + the allocator's kept segments 0.179 = 7.076 vs mem usage 7.08 (mem49; +0.20 GiB with the weights alone)",
            "engine_memory_logs::sglang_mem_usage_with_rope_and_segments",
        ),
        check(
            "tests/data/engine-memory.tsv line 68: SGLang 0.5.13.post1, Qwen3-32B, 4× RTX 5090 TP 4 (fixed fraction 0.88), weights + RoPE cache + kept segments 15.498 GiB vs 15.50; KV tokens −2.26 %, a known miss (the preset's init footprint; sglres53)",
            "sglres53::sglang_0_5_13_post1_qwen3_32b_rtx_5090_tp4",
        ),
        INTERNVL3_5_38B_CHECK,
    ]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 35: vLLM 0.19.0, Qwen3-8B, 1× H100",
            "engine_memory_rows::vllm_0_19_qwen3_8b_h100_tp1",
        ),
        INTERNVL3_5_38B_CHECK,
    ]),
};

static QWEN3_MOE: Coverage = Coverage {
    arch: Architecture::Qwen3Moe,
    families: "Qwen3 MoE (30B-A3B, 235B-A22B)",
    sglang: exact_memory(&[
        check(
            "github.com/vllm-project/vllm issue 21348: SGLang, Qwen3-235B-A22B-FP8, 4× H100 TP 4, K size line (KV cell)",
            "engine_memory::sglang_qwen3_235b_fp8_tp4_k_size_pins_the_kv_cell",
        ),
        check(
            "tests/data/engine-memory.tsv line 57: SGLang main 2026-08, Qwen3-30B-A3B-FP8, 1× H100, KV cell 98,304 B (K size 17.99 GB) and KV tokens from the logged free memory (+169 tokens, +0.043 %: the engine's free memory 15.8 MiB below its \"Load weight end\" line; a known miss, see below)",
            "sglanglogs::sglang_2026_08_qwen3_30b_a3b_fp8_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 57: SGLang main 2026-08, Qwen3-30B-A3B-FP8, 1× H100, KV tokens predicted from the scenario (−0.58 %, out of sample)",
            "sglanglogs::sglang_2026_08_qwen3_30b_a3b_fp8_predicted_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 57: SGLang main 2026-08, Qwen3-30B-A3B-FP8, 1× H100, weights with the RoPE cache and kept segments 29.056 vs mem usage 29.15 GiB (−0.32 %: the fp8 path's excess; a known miss, see below)",
            "sglanglogs::sglang_2026_08_qwen3_30b_a3b_fp8_weights_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 58: SGLang 0.5.13, Qwen3-30B-A3B bf16, 1× RTX PRO 6000, weights with the float32 RoPE cache (+0.000 %)",
            "sglanglogs::sglang_0_5_13_qwen3_30b_a3b_weights_rtx_pro_6000_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 58: SGLang 0.5.13, Qwen3-30B-A3B bf16, 1× RTX PRO 6000, max_total_tokens 4,096 caps the profile; K size 0.19 GB (exact)",
            "sglanglogs::sglang_0_5_13_qwen3_30b_a3b_capped_pool_rtx_pro_6000_tp1",
        ),
        // presets58 (issue #17): the Qwen3-Coder-30B-A3B-Instruct preset (config.json byte copy).
        check(
            "Qwen/Qwen3-Coder-30B-A3B-Instruct card: \"30.5B in total\" (copy in ztxz16/fastllm f8f04c33 Qwen3-Coder-30B-A3B-Instruct/README.md); 30,532,122,624 by hand from its config.json (sagui-nlp/nanoGPT-moe 2675cf4c); a rounded size, not an engine log",
            "presets58::qwen3_coder_30b_a3b_instruct_parameters_by_hand",
        ),
    ]),
    vllm: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 43: vLLM 0.8.5, Qwen3-30B-A3B, 4× A10 TP 4, weights per rank (−0.08 %)",
        "engine_memory_logs::vllm_0_8_5_qwen3_30b_a3b_weights_a10_tp4",
    )]),
};

static DEEPSEEK_V3: Coverage = Coverage {
    arch: Architecture::DeepseekV3,
    families: "DeepSeek-V3, R1, Kimi-K2",
    sglang: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 60: SGLang main 2026-08 (kt-kernel, routed experts on the CPU), DeepSeek-R1-0528, 8× H100 TP 8, MLA cell 70,272 B (KV size 61.03 GB) and KV tokens from the logged free memory, min over ranks (+0.008 %); weights not compared (the experts are on the CPU)",
            "sglanglogs::sglang_2026_08_deepseek_r1_0528_mla_pool_h100_tp8",
        ),
        // presets58 (issue #17): nvidia/DeepSeek-V3.1-NVFP4's per-projection split (o_proj NVFP4,
        // q_a / q_b / kv_a / kv_b bf16), read from its exclude list.
        check(
            "nvidia/DeepSeek-V3.1-NVFP4 hf_quant_config.json (byte copy, ai-dynamo/aiconfigurator 095f58a5): weights per rank at tp 8 by hand, 50,357,700,024 B, with o_proj NVFP4 and q_a / q_b / kv_a / kv_b bf16 (no public start-up log found; not an engine log)",
            "presets58::deepseek_v3_1_nvfp4_weights_tp8_by_hand",
        ),
    ]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 47: vLLM nightly 2025-11, Kimi-K2-Thinking, 8× H200 TP 8, KV tokens from the logged budget (MLA cell 70,272 B; +0.002 %)",
            "engine_memory_logs::vllm_2025_11_kimi_k2_thinking_h200_tp8",
        ),
        check(
            "tests/data/engine-memory.tsv line 47: vLLM nightly 2025-11, Kimi-K2-Thinking, 8× H200 TP 8 + DCP 8, KV tokens × 8 (−0.007 %)",
            "engine_memory_logs::vllm_2025_11_kimi_k2_thinking_dcp8_h200_tp8",
        ),
        check(
            "tests/data/engine-memory.tsv line 59: vLLM 0.28.0, DeepSeek-R1-0528 FP8, 8× H100 TP 8, out of memory while creating the weights: one layer's w13 is the logged 896.00 MiB, tpsim's 79.54 GiB per rank above what the log allows; the verdict is now the load's, not the KV profile's",
            "sglanglogs::vllm_0_28_deepseek_r1_0528_fp8_load_oom_h100_tp8",
        ),
    ]),
};

static KIMI_K25: Coverage = Coverage {
    arch: Architecture::KimiK25,
    families: "Kimi-K2.5",
    sglang: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 3: SGLang 0.5.8, Kimi-K2.5, 8× MI355X TP 8",
        "engine_memory_rows::sglang_0_5_8_kimi_k2_5_mi355x_tp8",
    )]),
    vllm: exact_memory(&[]),
};

static GLM4_MOE: Coverage = Coverage {
    arch: Architecture::Glm4Moe,
    families: "GLM-4.5, GLM-4.6, GLM-4.7",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 46: vLLM 0.15.0rc1, GLM-4.7-FP8, PP 8, refusal: needed 71.16 GiB at 202,752 tokens (KV cell, all 92 layers) and the estimated maximum model length 81,392 (exact)",
        "engine_memory_logs::vllm_0_15_glm_4_7_refusal_pp8",
    )]),
};

static EAGLE3_LLAMA: Coverage = Coverage {
    arch: Architecture::Eagle3Llama,
    families: "EAGLE-3 drafts (Llama layer)",
    // memlogs (issue #17): the SGLang docs CI log of an EAGLE-3 draft checks the draft's pool.
    sglang: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 55: SGLang ~0.4.4 (docs CI 2025-03-25), Llama-3.1-8B + EAGLE-3 draft, 1× H100, max_total_tokens 20,480: the draft's pool of 20,480 tokens over one layer (K size 0.04 GB) beside the target's (1.25 GB); weights not compared (shared CI GPU)",
        "memlogs::sglang_0_4_4_llama_3_1_8b_eagle3_draft_pool_h100_tp1",
    )]),
    // vLLM's EAGLE-3 proposer is modelled (issue #17: `scenario::vllm_spec::vllm_draft_weights`,
    // `decode::vllm_spec_memory`): the draft's weights as vLLM loads them (its own fc, lm_head of
    // draft_vocab_size, the d2t map; the target's embedding), its layer's pages in every KV block.
    // No public vLLM start-up log with an EAGLE-3 draft was found for the memory; the iteration is
    // compared with a published measurement, in sample for the draft-step overhead.
    vllm: exact_memory(&[check(
        "tests/data/spec-decode.tsv lines 10–15 (vllm issue #20780): vLLM, Llama-3.1-8B-Instruct + EAGLE-3, 1× H100, k = 2…7, tok/s within 10 % (in sample: the vLLM draft_step_overhead was fitted to these rows; cost only, not memory)",
        "spec_vllm::consistency_llama_8b_eagle3_vllm_h100_against_issue_20780",
    )]),
};

static QWEN35_MOE: Coverage = Coverage {
    arch: Architecture::Qwen35Moe,
    families: "Qwen3.5 MoE (hybrid Gated DeltaNet)",
    // The log is of the dense Qwen3.5-9B: the same Gated DeltaNet layers and SGLang state pool.
    sglang: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 45: SGLang 2026-04 (dev11582), Qwen3.5-9B (dense, same GDN layers), 2× RTX 4090 TP 2, state pool split: 186 slots, 62 requests, KV tokens exact from the engine's rest",
            "engine_memory_logs::sglang_2026_04_qwen3_5_9b_state_pool_split_rtx4090_tp2",
        ),
        check(
            "tests/data/engine-memory.tsv line 45: SGLang 2026-04 (dev11582), Qwen3.5-9B, 2× RTX 4090 TP 2, predicted from the logged free memory: 187 slots (logged 186), KV tokens +0.28 % (the engine's rest 0.038 GiB lower, not explained)",
            "engine_memory_logs::sglang_2026_04_qwen3_5_9b_predicted_from_free_memory_rtx4090_tp2",
        ),
    ]),
    // vLLM pages the Gated DeltaNet states with the attention blocks (`vllm_hybrid`, issue #17):
    // a vLLM 0.24 log of a Qwen3.5-MoE-shaped model checks the arithmetic.
    vllm: vllm_hybrid_exact(&[check(
        "github.com/noonghunna/club-3090 issue 612: vLLM 0.24.0, Qwen3.6-35B-A3B nvfp4 (shape assumed Qwen3.5-35B-A3B's), 1× RTX 5090, fp8 KV, prefix caching: 5.98 GiB → 299 blocks of 2,096 tokens, 567,978 tokens, 4.33x (exact)",
        "vllm_hybrid::qwen36_35b_a3b_vllm_0_24_log",
    )]),
};

static MINIMAX_M2: Coverage = Coverage {
    arch: Architecture::MiniMaxM2,
    families: "MiniMax-M2, M2.5, M2.7",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 48: vLLM 0.29.1rc1, MiniMax-M2.7 AWQ, 2× DGX Spark TP 2, refusal: needed 23.25 GiB at 196,608 tokens (KV cell, exact) and the estimated maximum model length (−16 tokens)",
        "engine_memory_logs::vllm_0_29_minimax_m2_7_refusal_dgx_spark_tp2",
    )]),
};

static GPT_OSS: Coverage = Coverage {
    arch: Architecture::GptOss,
    families: "gpt-oss-20b, gpt-oss-120b",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 31: vLLM 0.19.0, gpt-oss-20b, 2× H100 TP 2",
            "engine_memory_rows::vllm_0_19_gpt_oss_20b_h100_tp2",
        ),
        check(
            "tests/data/engine-memory.tsv line 30: vLLM 0.19.0, gpt-oss-20b, 1× H100 (fails after the KV line)",
            "engine_memory_rows::vllm_0_19_gpt_oss_20b_h100_tp1_failed_after_kv",
        ),
        // sglogs2 (issue #17): gpt-oss-120b on one H100 from vLLM issues.
        check(
            "tests/data/engine-memory.tsv line 61: vLLM 0.10.1, gpt-oss-120b, 1× H100, default args: weights 65.9310 vs logged 65.9651 GiB (−0.05 %), KV budget −2.05 vs −2.14 GiB, both refuse (No available memory for the cache blocks)",
            "gpt_oss_logs::vllm_0_10_1_gpt_oss_120b_h100_default_args_refuses",
        ),
        check(
            "tests/data/engine-memory.tsv line 62: vLLM ~0.11, gpt-oss-120b, 1× H100, max len 131,072: KV budget 1.71 vs logged 1.71 GiB; refusal needs 4.54 GiB (full + sliding-window layers' own need, exact)",
            "gpt_oss_logs::vllm_0_11_gpt_oss_120b_h100_max_len_refusal",
        ),
        check(
            "tests/data/engine-memory.tsv line 63: vLLM 0.14.1, gpt-oss-120b, 1× H100, Triton MXFP4 backend (triton_kernels Hopper layout: ×64 intermediate, fp32 biases, swizzled scale copy): weights 64.35 vs logged 64.38 GiB (−0.05 %)",
            "gpt_oss_logs::vllm_0_14_1_gpt_oss_120b_h100_triton_weights",
        ),
        // vgptoss56 (issue #17): the llm-d-benchmark gpt-oss rows (vLLM ~0.11 image).
        check(
            "tests/data/engine-memory.tsv lines 72–73: vLLM ~0.11 image, gpt-oss-20b / gpt-oss-120b, 1× H100: weights 13.44 / 64.35 vs logged 13.47 / 64.38 GiB (−0.24 % / −0.05 %) on the triton_kernels Hopper layout (vLLM ≥ 0.11.1 with triton_kernels; 0.11.0's torch 2.8.0 keeps the strided layout, no scale copy)",
            "vgptoss56::line_72_gpt_oss_20b_weights_fit_the_hopper_triton_layout",
        ),
    ]),
};

static QWEN25_VL: Coverage = Coverage {
    arch: Architecture::Qwen25Vl,
    families: "Qwen2.5-VL (text tower + Qwen2.5 ViT)",
    // memlogs (issue #17): the SGLang docs CI log of 2025-06 checks the multimodal fraction rule
    // (`sglang_vlm_fraction`, added for it) and the KV cell.
    sglang: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 56: SGLang main 2025-06-15 (0.4.7.post1 rules), Qwen2.5-VL-7B, 1× H100: default 0.874 reduced to 0.787 for a multimodal model (the model runner's × 0.90, 0.4.5 – 0.4.8), K size 0.55 GB at the CI's 20,480 tokens",
        "memlogs::sglang_2025_06_qwen2_5_vl_7b_multimodal_fraction_h100_tp1",
    )]),
    vllm: exact_memory(&[
        check(
            "github.com/vllm-project/vllm issue 16570: vLLM 0.8.3, Qwen2.5-VL-72B, 4× A100 TP 4, weights per rank",
            "llm::tests_h3::qwen25_vl_72b_tp4_matches_vllm_log",
        ),
        check(
            "github.com/QwenLM/Qwen3-VL issue 1057: vLLM 0.8.2, Qwen2.5-VL-7B, 1× H100, weights and KV cell",
            "llm::tests_h3::qwen25_vl_7b_kv_cell_and_vllm_log",
        ),
    ]),
};

static QWEN2_MOE: Coverage = Coverage {
    arch: Architecture::Qwen2Moe,
    families: "Qwen1.5-MoE, Qwen2-MoE (shared expert)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 41: vLLM 0.19.0, Qwen1.5-MoE-A2.7B, 1× H100, KV tokens (+0.013 %)",
            "engine_memory_logs::vllm_0_19_qwen1_5_moe_a2_7b_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 41: vLLM 0.19.0, Qwen1.5-MoE-A2.7B, 1× H100, weights (−0.02 %)",
            "engine_memory_logs::vllm_0_19_qwen1_5_moe_a2_7b_weights_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 41: vLLM 0.19.0, Qwen1.5-MoE-A2.7B, 1× H100, KV tokens predicted from the scenario (+0.006 %, out of sample)",
            "vllm_startup::kv_tokens_predicted_from_the_scenario",
        ),
    ]),
};

static PHI3: Coverage = Coverage {
    arch: Architecture::Phi3,
    families: "Phi-3, Phi-3.5, Phi-4 (dense)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

static GRANITE: Coverage = Coverage {
    arch: Architecture::Granite,
    families: "Granite 3.x (dense)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 20: vLLM 0.19.0, granite-3.3-8b, 1× H100, weights",
            "engine_memory_rows::vllm_0_19_weights_of_bundled_vlm_and_granite_presets",
        ),
        check(
            "tests/data/engine-memory.tsv line 20: vLLM 0.19.0, granite-3.3-8b, 1× H100, KV tokens",
            "engine_memory_rows::vllm_0_19_granite_3_3_8b_h100_tp1",
        ),
    ]),
};

static GLM: Coverage = Coverage {
    arch: Architecture::Glm,
    families: "GLM-4-9B (glm-4-9b-chat-hf)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

static GLM4: Coverage = Coverage {
    arch: Architecture::Glm4,
    families: "GLM-4-0414 (9B, 32B)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

// families12 (issue #17): Ministral 3 (a `ministral3` text tower, the Llama layout in both engines)
// under the same architecture; its sizes are checked against the model cards' rounded figures.
static MISTRAL3: Coverage = Coverage {
    arch: Architecture::Mistral3,
    families: "Mistral-Small-3.1, 3.2 (text tower + Pixtral); Ministral 3 3B/8B/14B (ministral3 text tower; -BF16 presets reconstructed from public copies of their parts; SGLang from 0.5.6.post1 (read from the wheels), vLLM from 0.12.0 (assumed from the pull request))",
    sglang: exact_memory(MINISTRAL3_CHECKS),
    vllm: exact_memory(&MISTRAL3_VLLM_CHECKS),
};

/// vLLM: the Mistral-Small-3.1 start-up row and the Ministral 3 size check.
const MISTRAL3_VLLM_CHECKS: [Check; 3] = [
    check(
        "tests/data/engine-memory.tsv line 27: vLLM 0.19.0, Mistral-Small-3.1-24B, 1× H100, weights",
        "engine_memory_rows::vllm_0_19_weights_of_bundled_vlm_and_granite_presets",
    ),
    check(
        "tests/data/engine-memory.tsv line 27: vLLM 0.19.0, Mistral-Small-3.1-24B, 1× H100, KV tokens",
        "engine_memory_rows::vllm_0_19_mistral_small_3_1_24b_h100_tp1",
    ),
    MINISTRAL3_CHECK,
];

/// families12 (issue #17): the published sizes, engine-independent (the weights both engines load).
const MINISTRAL3_CHECKS: &[Check] = &[MINISTRAL3_CHECK];

/// families12 (issue #17): Ministral 3's size check (see [`MINISTRAL3_CHECKS`]).
const MINISTRAL3_CHECK: Check = check(
    "Ministral-3-14B: \"13.5B Language Model + 0.4B Vision Encoder\" (model card, as public mirrors copy it); 13,506,073,600 + 438,958,080 by hand; rounded sizes, not an engine log",
    "llm::tests_ministral3::ministral3_14b_parameters_by_hand",
);

static MLLAMA: Coverage = Coverage {
    arch: Architecture::Mllama,
    families: "Llama-3.2-Vision (cross-attention)",
    // SGLang: one pool over all text layers; the image tokens each request also holds in it are not
    // counted, and cross-attention layers are costed as self-attention.
    sglang: EngineCoverage {
        weights: Level::Exact,
        kv_cell: Level::Exact,
        pool: Level::Approximate,
        cost: Level::Approximate,
        checks: &[],
    },
    // vLLM ≥ 0.11 no longer supports the architecture; tpsim refuses with vLLM's text.
    vllm: EngineCoverage {
        weights: Level::Refused,
        kv_cell: Level::Refused,
        pool: Level::Refused,
        cost: Level::Refused,
        checks: &[],
    },
};

static GEMMA: Coverage = Coverage {
    arch: Architecture::Gemma,
    families: "Gemma 1",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 42: vLLM 0.19.0, gemma-7b, 1× H100, KV tokens (exact)",
            "engine_memory_logs::vllm_0_19_gemma_7b_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 42: vLLM 0.19.0, gemma-7b, 1× H100, weights (−0.05 %)",
            "engine_memory_logs::vllm_0_19_gemma_7b_weights_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 42: vLLM 0.19.0, gemma-7b, 1× H100, KV tokens predicted from the scenario (exact, out of sample)",
            "vllm_startup::kv_tokens_predicted_from_the_scenario",
        ),
    ]),
};

static GEMMA2: Coverage = Coverage {
    arch: Architecture::Gemma2,
    families: "Gemma 2 (alternating sliding-window)",
    // SGLang disables its SWA pool for Gemma-2/3 (with a warning): one plain pool over all layers.
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 16: vLLM 0.19.0, gemma-2-2b, 1× H100, KV tokens (hybrid groups)",
            "engine_memory_rows::vllm_0_19_gemma_2_2b_h100_tp1",
        ),
        // h5 (issue #16): weights of the gemma-2-2b-it preset.
        check(
            "tests/data/engine-memory.tsv line 16: vLLM 0.19.0, gemma-2-2b-it, 1× H100, weights (tensor bytes −0.54 %; the 0.026 GiB gap is the caching allocator's blocks, vllm_weight_blocks::gemma_2_2b_it_tp1)",
            "engine_memory_rows::vllm_0_19_gemma_2_2b_weights_h100_tp1",
        ),
    ]),
};

static GEMMA3: Coverage = Coverage {
    arch: Architecture::Gemma3,
    families: "Gemma 3 (5:1 local:global; text and SigLIP VLM)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 17: vLLM 0.19.0, gemma-3-12b, 1× H100, KV tokens (hybrid groups)",
            "engine_memory_rows::vllm_0_19_gemma_3_12b_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 18: vLLM 0.19.0, gemma-3-4b, 1× H100, KV tokens (7 groups, 1 padding layer)",
            "engine_memory_rows::vllm_0_19_gemma_3_4b_h100_tp1",
        ),
        // h5 (issue #16): weights of the gemma-3-12b-it / gemma-3-4b-it presets.
        check(
            "tests/data/engine-memory.tsv line 17: vLLM 0.19.0, gemma-3-12b-it, 1× H100, weights + RoPE caches",
            "engine_memory_rows::vllm_0_19_gemma_3_12b_weights_h100_tp1",
        ),
        check(
            "tests/data/engine-memory.tsv line 18: vLLM 0.19.0, gemma-3-4b-it, 1× H100, weights + RoPE caches",
            "engine_memory_rows::vllm_0_19_gemma_3_4b_weights_h100_tp1",
        ),
    ]),
};

static MISTRAL: Coverage = Coverage {
    arch: Architecture::Mistral,
    families: "Mistral 7B (sliding_window when set); Ministral 3's text model under its own class (Ministral3ForCausalLM; SGLang from 0.5.6.post1, vLLM from 0.20.0, both read from the wheels)",
    sglang: exact_memory(&[]),
    // memlogs (issue #17): a vLLM 0.11.0 start-up of Mistral-7B-v0.2 (GPTQ) checks the KV cell and
    // the block arithmetic; its GPTQ weights are not compared (GB10, the gptq kernel's layout).
    vllm: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 52: vLLM 0.11.0 (NVIDIA 25.11), Mistral-7B-Instruct-v0.2 GPTQ, DGX Spark, KV cell 131,072 B: 102.56 GiB → 52,510 blocks, 840,160 tokens, 25.64x (exact; no sliding window)",
        "memlogs::vllm_0_11_mistral_7b_v0_2_gptq_dgx_spark_tp1",
    )]),
};

static MIXTRAL: Coverage = Coverage {
    arch: Architecture::Mixtral,
    families: "Mixtral 8x7B, 8x22B",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

static LLAMA4: Coverage = Coverage {
    arch: Architecture::Llama4,
    families: "Llama 4 Scout, Maverick (chunked local attention, interleaved MoE)",
    // SGLang's hybrid SWA pool (0.5.8 by layers, 0.5.9 by bytes); vLLM 0.11 turns its hybrid
    // manager off for chunked attention (with its warning) and sizes every layer in full.
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 44: vLLM 0.19.0, Llama-4-Scout, 4× H100 TP 4, KV tokens (−0.013 %; max_model_len = chunk, so hybrid and full layouts coincide)",
            "engine_memory_logs::vllm_0_19_llama_4_scout_h100_tp4",
        ),
        check(
            "tests/data/engine-memory.tsv line 44: vLLM 0.19.0, Llama-4-Scout, 4× H100 TP 4, weights (+0.01 %)",
            "engine_memory_logs::vllm_0_19_llama_4_scout_weights_h100_tp4",
        ),
        check(
            "tests/data/engine-memory.tsv line 44: vLLM 0.19.0, Llama-4-Scout, 4× H100 TP 4, KV tokens predicted from the scenario (+0.22 %: weights +0.03, activation −0.03, non-torch −0.04 GiB, in part cancelling)",
            "vllm_startup::kv_tokens_predicted_from_the_scenario",
        ),
    ]),
};

static DEEPSEEK_V2: Coverage = Coverage {
    arch: Architecture::DeepseekV2,
    families: "DeepSeek-V2, V2-Lite (MLA)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[check(
        "github.com/vllm-project/vllm issues 15871 (V2-Lite, \"0.95 GiB KV cache is needed\" at 32,768 tokens) and 20665 (4× L4, per-stage KV tokens, −0.03 %)",
        "llm::tests_dsa::deepseek_v2_lite_lowering",
    )]),
};

static DEEPSEEK_V32: Coverage = Coverage {
    arch: Architecture::DeepseekV32,
    families: "DeepSeek-V3.2, V3.2-Exp (sparse attention, DSA/NSA)",
    // SGLang: the budget per token (by build: latent only, + indexer, or the allocated layout from
    // 0.5.17) and what NSATokenToKVPool allocates, with the verdict when the excess does not fit. The
    // PR's KV-size lines are reproduced from its token counts; the token counts themselves need the
    // free memory the log does not give.
    sglang: exact_memory(&[check(
        "github.com/sgl-project/sglang PR 11309: SGLang main 2025-10, DeepSeek-V3.2-Exp, 8× B200, KV size lines 54.52 / 65.49 / 43.67 GB",
        "llm::tests_dsa::sglang_pr_11309_kv_lines",
    )]),
    vllm: exact_memory(&[]),
};

static GLM_MOE_DSA: Coverage = Coverage {
    arch: Architecture::GlmMoeDsa,
    families: "GLM-5 (sparse attention, DSA/NSA)",
    sglang: exact_memory(&[]),
    // vLLM 0.11 predates GLM-5: its DeepSeek-V3.2 rules (fp8_ds_mla, block 64) are applied.
    vllm: EngineCoverage {
        weights: Level::Exact,
        kv_cell: Level::Approximate,
        pool: Level::Approximate,
        cost: Level::Approximate,
        checks: &[],
    },
};

static KIMI_VL: Coverage = Coverage {
    arch: Architecture::KimiVl,
    families: "Kimi-VL (MLA MoE text tower + MoonViT)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 29: vLLM 0.19.0, Kimi-VL-A3B, 1× H100, KV tokens",
            "engine_memory_rows::vllm_0_19_kimi_vl_a3b_h100_tp1",
        ),
        // fam (issue #16): weights of the kimi-vl-a3b preset (reconstructed config).
        check(
            "tests/data/engine-memory.tsv line 29: vLLM 0.19.0, Kimi-VL-A3B, 1× H100, weights (−0.24 %; preset config reconstructed)",
            "engine_memory_rows::vllm_0_19_kimi_vl_a3b_weights_h100_tp1",
        ),
    ]),
};

// fam (issue #16): GraniteMoE, Phi-3.5-MoE, LLaVA-NeXT.
static GRANITE_MOE: Coverage = Coverage {
    arch: Architecture::GraniteMoe,
    families: "Granite 3.x MoE (1B-A400M, 3B-A800M)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

static PHI_MOE: Coverage = Coverage {
    arch: Architecture::PhiMoe,
    families: "Phi-3.5-MoE (config reconstructed from a field listing)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

static LLAVA_NEXT: Coverage = Coverage {
    arch: Architecture::LlavaNext,
    families: "LLaVA-v1.6 llava-hf (Mistral/Llama text tower + CLIP; config reconstructed)",
    // SGLang 0.5.9 has no native LlavaNextForConditionalGeneration and would fall back to its
    // Transformers backend, which tpsim does not model: the scenario is refused, saying so.
    sglang: NOT_MODELLED,
    vllm: exact_memory(&[]),
};

// phi2 (issue #17): phi-1/1.5/2.
static PHI: Coverage = Coverage {
    arch: Architecture::Phi,
    families: "Phi-1, Phi-1.5, Phi-2 (parallel attention + GELU MLP)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 26: vLLM 0.19.0, phi-2, 1× H100, KV tokens",
        "vllm_startup::phi_2_h100_tp1_line_26",
    )]),
};

// nemotronh (issue #17): Nemotron-H (Mamba-2 hybrid). SGLang's state pool is its arithmetic
// (`state_pool`); vLLM's mamba pages are sized as vLLM does (`vllm_hybrid`, issue #17).
static NEMOTRON_H: Coverage = Coverage {
    arch: Architecture::NemotronH,
    families: "Nemotron-H 8B/47B/56B, NVIDIA-Nemotron-Nano-9B/12B-v2 (hybrid Mamba-2)",
    sglang: exact_memory(NEMOTRON_H_SGLANG_CHECKS),
    vllm: vllm_hybrid_exact(NEMOTRON_H_VLLM_CHECKS),
};
/// The public figures that check Nemotron-H under SGLang (none found: the state pool is the Qwen3.5
/// pool's arithmetic, checked there, over the Mamba-2 state per request).
const NEMOTRON_H_SGLANG_CHECKS: &[Check] = &[];
/// The public figures that check Nemotron-H under vLLM.
const NEMOTRON_H_VLLM_CHECKS: &[Check] = &[
    check(
        "vLLM issue #24280: Nemotron-Nano-9B-v2's hybrid attention block of 672 tokens (mamba page vs attention page)",
        "llm::tests_nemotron_h::nano_9b_v2_vllm_block_size_is_672",
    ),
    check(
        "tests/data/engine-memory.tsv line 49: vLLM 0.11.0, Nemotron-Nano-9B-v2, 1× RTX 4090, 286 blocks = 2.93 GiB of bf16 mamba/attention pages",
        "nemotron_h::vllm_0_11_nemotron_nano_9b_v2_blocks_rtx4090",
    ),
    check(
        "tests/data/engine-memory.tsv line 49: vLLM 0.11.0, Nemotron-Nano-9B-v2, the plan's pool for the log's 286 blocks: 23,520 tokens, 1.41x, the padding and block-size lines (the plan's own budget is 0.89 GiB lower: not the pool; a known miss, see below)",
        "vllm_hybrid::nemotron_nano_9b_v2_pages",
    ),
    check(
        "vLLM issue #23230: \"Model loading took 16.5557 GiB\" for Nemotron-Nano-9B-v2, the checkpoint without a RoPE cache (tpsim: +29 MiB of allocator rounding, open); line 49's profile peak by hand (the 0.11.0 sorting sampler, 256 × 131,072 logits)",
        "nemotron_h::vllm_0_11_nemotron_nano_budget_parts",
    ),
];

// qwenhyb (issue #17): the dense Qwen3.5 and Qwen3-Next hybrids. Under vLLM the state pages of the
// linear layers are sized as vLLM does (`tpsim_model::vllm_hybrid`, issue #17); the pool is rated
// exact where a log checks it.
/// vLLM on a hybrid model whose state pages no public log checks yet: weights and the attention cell
/// exact, the pool approximate.
const fn vllm_hybrid(checks: &'static [Check]) -> EngineCoverage {
    EngineCoverage {
        weights: Level::Exact,
        kv_cell: Level::Exact,
        pool: Level::Approximate,
        cost: Level::Approximate,
        checks,
    }
}

/// vLLM on a hybrid model whose state pages a public log checks: the pool exact too.
const fn vllm_hybrid_exact(checks: &'static [Check]) -> EngineCoverage {
    EngineCoverage {
        pool: Level::Exact,
        ..vllm_hybrid(checks)
    }
}

static QWEN35: Coverage = Coverage {
    arch: Architecture::Qwen35,
    families: "Qwen3.5 dense (9B, 27B; hybrid Gated DeltaNet)",
    sglang: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 45: SGLang 2026-04 (dev11582), Qwen3.5-9B, 2× RTX 4090 TP 2, state pool split: 186 slots, 62 requests, KV tokens exact from the engine's rest",
            "engine_memory_logs::sglang_2026_04_qwen3_5_9b_state_pool_split_rtx4090_tp2",
        ),
        check(
            "tests/data/engine-memory.tsv line 45: SGLang 2026-04 (dev11582), Qwen3.5-9B, 2× RTX 4090 TP 2, predicted from the logged free memory: 187 slots (logged 186), KV tokens +0.28 % (the engine's rest 0.038 GiB lower, not explained)",
            "engine_memory_logs::sglang_2026_04_qwen3_5_9b_predicted_from_free_memory_rtx4090_tp2",
        ),
        check(
            "tests/data/engine-memory.tsv line 45: SGLang 2026-04 (dev11582), Qwen3.5-9B, 2× RTX 4090 TP 2, weights with the Qwen3-VL tower 8.768 GiB + the float32 M-RoPE cache 0.0625 vs the logged mem usage 8.85 (0.0175 GiB left: the kept segments, mem49)",
            "engine_memory_logs::sglang_2026_04_qwen3_5_9b_weights_rtx4090_tp2",
        ),
    ]),
    vllm: vllm_hybrid_exact(&[
        check(
            "find_string id 59375171630: vLLM 0.28.0 note, Qwen3.5-9B, 1× RTX 4070 Ti Super, kv_cache_memory_bytes 640 MiB / 1 GiB / 512 MiB: 17,788 / 29,023 / 14,108 / 18,207 tokens, 1.09x / 1.77x / 1.15x (exact)",
            "vllm_hybrid::qwen35_9b_vllm_0_28_reproduces_the_note",
        ),
        check(
            "github.com/mitchross/talos-argocd-proxmox PR 1995: vLLM ≥ 0.21, Qwen3.x-27B FP8 (Qwen3.5-27B's shape), 2× RTX 3090 TP 2, fp8 KV, prefix caching: block 1,568, 302,921 tokens, 2.31x from 4.99 GiB (exact)",
            "vllm_hybrid::qwen35_27b_tp2_fp8_kv_prefix_caching",
        ),
    ]),
};

static QWEN3_NEXT: Coverage = Coverage {
    arch: Architecture::Qwen3Next,
    families: "Qwen3-Next (80B-A3B Instruct/Thinking, FP8)",
    sglang: exact_memory(&[]),
    // Sized as Qwen3.5 under vLLM (both states at the model dtype: no `mamba_ssm_dtype`); memlogs
    // (issue #17): a vLLM 0.10.2 start-up log of Qwen3-Next-80B-A3B on 2× H200 checks the pages,
    // the pool and the weights.
    vllm: vllm_hybrid_exact(&[
        check(
            "tests/data/engine-memory.tsv line 51: vLLM 0.10.2, Qwen3-Next-80B-A3B, 2× H200 TP 2: block 544 tokens, state page padded 1.49 %, 7,162 blocks from the logged 47,878,721,024 B, 973,760 tokens, 14.77x (exact)",
            "memlogs::vllm_0_10_2_qwen3_next_80b_pages_h200_tp2",
        ),
        check(
            "tests/data/engine-memory.tsv line 51: vLLM 0.10.2, Qwen3-Next-80B-A3B, 2× H200 TP 2, the scenario with the logged weights, activation and non-torch figures: 973,760 tokens, 14.77x (exact)",
            "memlogs::vllm_0_10_2_qwen3_next_80b_scenario_h200_tp2",
        ),
        check(
            "tests/data/engine-memory.tsv line 51: vLLM 0.10.2, Qwen3-Next-80B-A3B, 2× H200 TP 2, weights 74.281 vs 74.2812 GiB (−0.0003 %; the 64-dim RoPE cache of 256 × 0.25)",
            "memlogs::vllm_0_10_2_qwen3_next_80b_weights_h200_tp2",
        ),
        check(
            "tests/data/engine-memory.tsv line 51: vLLM 0.10.2, Qwen3-Next-80B-A3B, 2× H200 TP 2, predicted from the scenario: 984,640 tokens (+1.12 %: the activation matches the log, 5.5765 vs 5.58 GiB, since vllmmem60 frees the unquantized fused-MoE workspace per layer before 0.14; the non-torch growth 0.8888 vs 1.38 GiB since nontorch61 counts NCCL's ring and the custom allreduce's buffers inside 0.10.2's window, the rest not located; +1.79 % before nontorch61, +0.39 % before vllmmem60; a known miss, see below)",
            "memlogs::vllm_0_10_2_qwen3_next_80b_predicted_budget_miss_h200_tp2",
        ),
    ]),
};

static QWEN3_VL: Coverage = Coverage {
    arch: Architecture::Qwen3Vl,
    families: "Qwen3-VL dense (8B; Qwen3 text + Qwen3-VL ViT with DeepStack mergers)",
    sglang: exact_memory(&[]),
    // memlogs (issue #17): a vLLM 0.18.0 start-up on Ascend (vllm-ascend) checks the text tower's
    // KV cell through vLLM's block arithmetic; its weights line is the NPU runner's (not compared).
    vllm: exact_memory(&[check(
        "tests/data/engine-memory.tsv line 53: vLLM 0.18.0 + vllm-ascend, Qwen3-VL-8B-Instruct, 1 Ascend NPU, KV cell 147,456 B in blocks of 128: 34.65 GiB → 1,971 blocks, 252,288 tokens, 15.40x (exact)",
        "memlogs::vllm_0_18_ascend_qwen3_vl_8b_tp1",
    )]),
};

static QWEN3_VL_MOE: Coverage = Coverage {
    arch: Architecture::Qwen3VlMoe,
    families: "Qwen3-VL MoE (30B-A3B, 235B-A22B)",
    sglang: exact_memory(&[]),
    // memlogs (issue #17): a vLLM 0.11.0 start-up of Qwen3-VL-30B-A3B on 4× RTX 3090 checks the KV
    // cell and the blocks; its weights line is 0.02 GiB above tpsim's (with the M-RoPE cache, rope17).
    vllm: exact_memory(&[
        check(
            "tests/data/engine-memory.tsv line 54: vLLM 0.11.0, Qwen3-VL-30B-A3B-Instruct, 4× RTX 3090 TP 4, KV cell 24,576 B: 2.31 GiB → 6,297 blocks (inside the printed figure's 6,294 … 6,321), 100,752 tokens, 1.54x",
            "memlogs::vllm_0_11_qwen3_vl_30b_a3b_rtx3090_tp4",
        ),
        check(
            "tests/data/engine-memory.tsv line 54: vLLM 0.11.0, Qwen3-VL-30B-A3B-Instruct, 4× RTX 3090 TP 4, weights 14.7710 vs 14.7708 GiB (+0.001 %, with vLLM's M-RoPE cache of 4 × 262,144 rows and the DeepStack buffers, vllmmem60)",
            "memlogs::vllm_0_11_qwen3_vl_30b_a3b_weights_rtx3090_tp4",
        ),
    ]),
};

// families (issue #17): Granite-4.0-H (Mamba-2 hybrid, MoE + shared MLP). SGLang's state pool is
// the Mamba-2 arithmetic of Nemotron-H; vLLM's mamba pages are not sized (pool approximate). No
// public engine start-up log was found: the weights are checked against the parameter count
// llama.cpp prints for the checkpoint.
static GRANITE_MOE_HYBRID: Coverage = Coverage {
    arch: Architecture::GraniteMoeHybrid,
    families: "Granite-4.0-H Tiny, Small, Micro (hybrid Mamba-2, MoE + shared MLP or dense; configs written out from public copies)",
    sglang: exact_memory(&[
        check(
            "llama.cpp print_info for Granite 4.0 H Tiny: model params = 6.94 B (koboldcpp issue #1781; not an engine log)",
            "llm::tests_families::granite_4_0_h_tiny_parameters_match_llama_cpp",
        ),
        // families2 (issue #17): the H-Small and H-Micro presets.
        check(
            "Granite-4.0-H-Small's checkpoint size, 59.99 GiB of safetensors (a public table of Hugging Face metadata; not an engine log)",
            "llm::tests_families::granite_4_0_h_small_parameters_match_the_checkpoint_size",
        ),
    ]),
    vllm: vllm_hybrid(&[]),
};

// families (issue #17): Seed-OSS (dense GQA with a q/k/v bias). No public engine start-up log was
// found; the weights are checked against the checkpoint's parameter count.
static SEED_OSS: Coverage = Coverage {
    arch: Architecture::SeedOss,
    families: "Seed-OSS-36B (Base, Instruct; config written out from public copies)",
    sglang: exact_memory(&[check(
        "Seed-OSS-36B-Instruct's safetensors parameter count 36,151,104,512 (a public model table, \"params/index\"; not an engine log)",
        "llm::tests_families::seed_oss_36b_parameters_match_the_checkpoint",
    )]),
    vllm: exact_memory(&[]),
};

// families (issue #17): ERNIE-4.5 MoE. Weights follow SGLang (router and correction bias at the model
// dtype); vLLM keeps both in fp32 (`llm::ernie`), which tpsim does not add: vLLM's weights approx.
static ERNIE45_MOE: Coverage = Coverage {
    arch: Architecture::Ernie45Moe,
    families: "ERNIE-4.5 MoE (21B-A3B, 300B-A47B; config written out from public copies)",
    sglang: exact_memory(&[check(
        "ERNIE-4.5-21B-A3B's published size, 21.8 B parameters (a public restatement of the config; not an engine log)",
        "llm::tests_families::ernie_4_5_21b_a3b_parameters_by_hand",
    )]),
    vllm: EngineCoverage {
        weights: Level::Approximate,
        kv_cell: Level::Exact,
        pool: Level::Exact,
        cost: Level::Approximate,
        checks: &[],
    },
};

// families2 (issue #17): Bailing MoE V2 (Ling / Ring 2.0). Both engines build the same pieces (fp32
// router with `router_dtype = "fp32"`, fp32 expert bias). No public engine start-up log was found:
// the weights are checked against the checkpoint's safetensors parameter count (Ling-flash-2.0) and
// the published total (Ling-mini-2.0).
static BAILING_MOE_V2: Coverage = Coverage {
    arch: Architecture::BailingMoeV2,
    families: "Ling 2.0 / Ring 2.0 (Ling-mini-2.0 16B-A1.4B, Ling-flash-2.0 100B-A6.1B; configs written out from public copies)",
    sglang: exact_memory(&[
        check(
            "Ling-flash-2.0's safetensors parameter count, BF16 102,889,697,280 + F32 7,936 (the Hugging Face API's model record, copied in a public repository; not an engine log)",
            "llm::tests_families::ling_flash_2_0_parameters_match_the_checkpoint",
        ),
        check(
            "Ling-mini-2.0's published size, 16.26 B parameters, 789 M activated non-embedding (the Ling-V2 README; not an engine log)",
            "llm::tests_families::ling_mini_2_0_parameters_by_hand",
        ),
    ]),
    vllm: exact_memory(&[]),
};

// families2 (issue #17): Cohere2 (Command R7B). SGLang serves it as Cohere and gives it no hybrid
// SWA pool: the plain pool over every layer, as for Gemma-2/3; vLLM slides 3 layers in 4 (hybrid KV
// groups). No public engine start-up log was found: the weights are checked against the published
// size.
static COHERE2: Coverage = Coverage {
    arch: Architecture::Cohere2,
    families: "Command R7B (config written out from a public copy of the published file); Command A by the same rules, no preset",
    sglang: exact_memory(&[check(
        "Command R7B's published size, \"7B\" = its non-embedding parameters (8.03 B with the tied embedding; the model card; not an engine log)",
        "llm::tests_families::command_r7b_parameters_by_hand",
    )]),
    vllm: exact_memory(&[]),
};

// families3 (issue #17): OLMo-2 (the Llama projections, post-norm, whole-width q/k norms whose
// two all-gathers per layer are costed as NCCL all-gathers). No public engine start-up log or
// parameter count was reproduced: checked by none (the count by hand is in `llm::tests_olmo2`).
// families9 (issue #17): OLMo-3 shares the row (both engines build it as `Olmo2ForCausalLM`, its
// sliding layers from `layer_types`; SGLang's plain pool, vLLM's sliding groups); checked by none.
static OLMO2: Coverage = Coverage {
    arch: Architecture::Olmo2,
    families: "OLMo-2 (0425-1B preset; config written out from a public copy); 1124-7B/13B, 0325-32B by the same rules, no preset; OLMo-3 (Olmo3ForCausalLM, 7B-Instruct preset from a public copy; 3 sliding layers in 4)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

// families3 (issue #17): OLMoE. vLLM as OLMo-2 (whole-width q/k norms, all-gathered); SGLang 0.5.9
// normalises the rank's slice of q with a norm built `hidden_size` wide and gathers nothing, so tp > 1
// is refused under SGLang (`tpsim::scenario::engine`). The published total (6.9 B) is reproduced by
// hand (`llm::tests_olmo2::olmoe_1b_7b_parameters_by_hand`; a secondary listing, not an engine log).
static OLMOE: Coverage = Coverage {
    arch: Architecture::Olmoe,
    families: "OLMoE-1B-7B (0924 preset; config written out from public copies); SGLang at tp 1 only",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

// families4 (issue #17): MiMo-7B, the Qwen2 decoder with MTP layers that both engines' target model
// skips; SGLang's `MiMoMTP` draft runs through `tpsim::scenario::draft`'s MTP draft, vLLM's is refused
// (`tpsim::scenario::vllm_spec`). Its total with the one MTP layer (7,833,409,536 by hand, `llm::tests_mimo`) rounds to the
// Hub's "params 7.8B" as a listing page captured it (a secondary listing, not an engine log):
// checked by none.
static MIMO: Coverage = Coverage {
    arch: Architecture::Mimo,
    families: "MiMo-7B Base/SFT/RL (7B-RL preset; config written out from public copies); MTP draft under SGLang only (vLLM's mimo_mtp not modelled, refused)",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

// families6 (issue #17): Llama-Nemotron NAS. Super-49B's total by hand (49,867,145,216 parameters,
// `llm::tests_nemotron_nas`) is the "49B" of its name and model card, a published figure the count
// reproduces; no engine start-up log was found: checked by that count only.
static NEMOTRON_NAS: Coverage = Coverage {
    arch: Architecture::NemotronNas,
    families: "Llama-3.3-Nemotron-Super-49B v1/v1.5, Llama-3.1-Nemotron-Ultra-253B (DeciLM NAS blocks: no-op attention/FFN, per-layer MLP widths); one KV head count (VGQA and replace_with_linear refused)",
    sglang: exact_memory(NEMOTRON_NAS_CHECKS),
    vllm: exact_memory(NEMOTRON_NAS_CHECKS),
};
/// Super-49B's published size, reproduced by hand from the preset.
const NEMOTRON_NAS_CHECKS: &[Check] = &[check(
    "the model card's 49B (nvidia/Llama-3_3-Nemotron-Super-49B-v1): 49,867,145,216 parameters by hand from block_configs",
    "llm::tests_nemotron_nas::super_49b_parameters_by_hand",
)];

// families6 (issue #17): Hunyuan-A13B (config keys copied from public copies; the total by hand,
// 80,393,183,232 parameters, rounds to the model card's "80B total", but that is the card's rounding,
// not a count to the parameter): checked by none.
static HUNYUAN_MOE_V1: Coverage = Coverage {
    arch: Architecture::HunYuanMoeV1,
    families: "Hunyuan-A13B (Instruct preset; config keys copied from public copies); cross-layer attention (use_cla) and per-layer MoE shapes refused",
    sglang: exact_memory(&[]),
    vllm: exact_memory(&[]),
};

// families5 (issue #17): EXAONE 4 (post-norm, per-head q/k norms, 3 sliding layers to 1 NoPE full
// one). SGLang 0.5.9 (the first release with `models/exaone4.py`) turns its hybrid SWA pool off for
// it: the plain pool over every layer; vLLM slides 3 layers in 4 (hybrid KV groups). SGLang before
// 0.5.9, and vLLM before 0.10.0, would serve it through their Transformers fallbacks, which tpsim
// refuses (`scenario::exaone4` in the sim crate). No public engine
// start-up log was found: the weights are checked against the model cards' non-embedding counts.
static EXAONE4: Coverage = Coverage {
    arch: Architecture::Exaone4,
    families: "EXAONE 4.0 32B and 1.2B (1.2B preset written out from public copies; 32B preset reconstructed, see its README); SGLang from 0.5.9, vLLM from 0.10.0",
    sglang: exact_memory(EXAONE4_CHECKS),
    vllm: exact_memory(EXAONE4_CHECKS),
};

/// The model cards' parameter counts, engine-independent (the weights both engines load).
const EXAONE4_CHECKS: &[Check] = &[
    check(
        "EXAONE-4.0-32B model card: \"Number of Parameters (without embeddings): 30.95B\" (not an engine log)",
        "llm::tests_exaone4::exaone4_32b_parameters_by_hand",
    ),
    check(
        "EXAONE-4.0-1.2B model card: \"Number of Parameters (without embeddings): 1.07B\" (not an engine log)",
        "llm::tests_exaone4::exaone4_1_2b_parameters_by_hand",
    ),
];

// families7 (issue #17): GLM-4.5V / GLM-4.6V: GLM-4.5-Air's text tower (lowered as Glm4Moe, the plain
// GQA pool in both engines) plus the GLM-4V ViT (`llm::glm4v`). No public engine start-up log was
// found: the weights are checked against the checkpoint's parameter total from a public dump of
// its weight list. SGLang's merger `proj` is replicated, vLLM's column-sharded (vLLM's weights
// 24 MiB a rank smaller at tp 4: not modelled, so vLLM's weights are approximate).
static GLM4V_MOE: Coverage = Coverage {
    arch: Architecture::Glm4vMoe,
    families: "GLM-4.5V, GLM-4.6V (GLM-4.5V preset from a public dump of its config and weight list); SGLang from 0.5.0, vLLM from 0.10.1; text-only decode; the tower's 12 heads limit tp to 1, 2, 4 (data-parallel encoders not modelled)",
    sglang: exact_memory(GLM4V_CHECKS),
    vllm: EngineCoverage {
        weights: Level::Approximate,
        ..exact_memory(GLM4V_CHECKS)
    },
};

/// The checkpoint's parameter total, engine-independent.
const GLM4V_CHECKS: &[Check] = &[check(
    "GLM-4.5V checkpoint: 107,710,933,120 parameters in a public dump of its weight list (find_string id 62538297598; not an engine log)",
    "llm::tests_glm4v::glm45v_parameters_by_hand",
)];

// families8 (issue #17): Command R / R+ (`CohereForCausalLM`): Cohere2's parallel block with every
// layer full attention; the R+ configs' per-head q/k LayerNorms sharded with the heads. Both engines
// serve it with the one `commandr.py` class (SGLang 0.5.9, vLLM 0.19.0) and the plain pool. No public
// engine start-up log or exact parameter count was found: the weights are checked against the R+
// model card's rounded size (Command R 08-2024's count by hand, `llm::tests_cohere`, is checked by none).
static COHERE: Coverage = Coverage {
    arch: Architecture::Cohere,
    families: "Command R 08-2024 and Command R+ 08-2024 (presets written out from public copies of the published files); Command R v01 (MHA) and R+ 04-2024 by the same rules, no preset",
    sglang: exact_memory(COHERE_CHECKS),
    vllm: exact_memory(COHERE_CHECKS),
};

/// The model card's size, engine-independent (the weights both engines load).
const COHERE_CHECKS: &[Check] = &[check(
    "Command R+ model card: \"Model Size: 104 billion parameters\" (a copy of the card at thecoli.com, threads/large-language-models-news-discussions.952923/page-78; R+ 08-2024 has the same shapes); 103,810,674,688 by hand with the q/k LayerNorms; the card's rounding, not an engine log",
    "llm::tests_cohere::command_r_plus_08_2024_parameters_by_hand",
)];

// families10 (issue #17): GLM-4.7-Flash (`Glm4MoeLiteForCausalLM`): DeepSeek-V2's MLA (one latent
// KV head of kv_lora_rank + qk_rope_head_dim, replicated on every rank) with GLM-4.5's MoE (fp32
// gate, noaux_tc bias, one shared expert). Both engines build it from their DeepSeek-V2 attention
// classes (SGLang / vLLM `models/glm4_moe_lite.py`). No public engine start-up log was found: the
// weights are checked against the published sizes (rounded).
static GLM4_MOE_LITE: Coverage = Coverage {
    arch: Architecture::Glm4MoeLite,
    families: "GLM-4.7-Flash (30B-A3B preset; config written out from public copies); SGLang from 0.5.8, vLLM from 0.15.0 (both as read from third-party reports, not from wheels)",
    sglang: exact_memory(GLM4_MOE_LITE_CHECKS),
    vllm: exact_memory(GLM4_MOE_LITE_CHECKS),
};

/// The published sizes, engine-independent (the weights both engines load).
const GLM4_MOE_LITE_CHECKS: &[Check] = &[check(
    "GLM-4.7-Flash: \"30B-A3B\" (model card, as the Fireworks and xinference pages copy it) and 29.9B in Ollama's library listing of its GGUF (ollama.com/library/glm-4.7-flash); 29,943,393,920 by hand without the MTP layer; rounded sizes, not an engine log",
    "llm::tests_glm4_moe_lite::glm47_flash_parameters_by_hand",
)];

// families11 (issue #17): InternLM2 / 2.5 (`InternLM2ForCausalLM`): the Llama layer from a packed
// `wqkv`. SGLang 0.5.8 reorders the packed rows at load (a Llama at run time); vLLM 0.19.0 keeps them
// and all-gathers the qkv output in every layer at tp > 1 (`InternLM2Attention.split_qkv`), costed
// under vLLM only; vLLM at tp > num_key_value_heads is refused (its view of the gathered tensor
// fails). No public engine start-up log was found: the weights are checked against a public count
// of the loaded parameters.
static INTERNLM2: Coverage = Coverage {
    arch: Architecture::InternLM2,
    families: "InternLM2 / InternLM2.5 (7B-Chat preset written out from public copies; 20B by the same rules); vLLM's per-layer qkv all-gather at tp > 1",
    sglang: exact_memory(INTERNLM2_CHECKS),
    vllm: exact_memory(INTERNLM2_CHECKS),
};

/// A public count of the loaded parameters, engine-independent (the weights both engines load).
const INTERNLM2_CHECKS: &[Check] = &[check(
    "AI4Chem/ChemLLM-7B-Chat (an InternLM2-7B fine-tune: 32 layers, hidden 4,096, 32 heads, vocab 92,544): 7,737,708,544 BF16 parameters from its safetensors header, 758,120,448 embedding + 6,979,588,096 non-embedding (a project's fixtures, find_string ids 60319221975 and 60519112762); not an engine log",
    "llm::tests_internlm2::internlm2_5_7b_parameters_by_hand",
)];

// families13 (issue #17): StarCoder2 (`Starcoder2ForCausalLM`): GQA with RoPE, two biased LayerNorms,
// biased projections, a non-gated GELU MLP, tied embeddings. vLLM 0.19.0 slides every layer over
// `sliding_window` (`SlidingWindowSpec` pages, window-bounded reads); SGLang 0.5.8 applies no window
// (full-context pool and reads). No public engine start-up log was found: the weights are checked
// against the published (rounded) parameter count.
static STARCODER2: Coverage = Coverage {
    arch: Architecture::Starcoder2,
    families: "StarCoder2 3B (preset: the published config.json as a public copy pins it); 7B and 15B by the same rules; vLLM slides every layer, SGLang none",
    sglang: exact_memory(STARCODER2_CHECKS),
    vllm: exact_memory(STARCODER2_CHECKS),
};

/// The published size, engine-independent (the weights both engines load).
const STARCODER2_CHECKS: &[Check] = &[check(
    "bigcode/starcoder2-3b: \"Parameter Count 3.03B\" (the Hub's count as promptlayer.com/models/starcoder2-3b copies it); 3,030,371,328 by hand with tied embeddings and every bias; a rounded size, not an engine log",
    "llm::tests_starcoder2::starcoder2_3b_parameters_by_hand",
)];

// families15 (issue #17): dots.llm1 (`Dots1ForCausalLM`): Qwen3-style GQA with per-head q/k norms,
// a dense first layer, then DeepSeek-V3-style MoE (128 experts top-6, 2 shared, noaux_tc bias), untied
// head. vLLM `models/dots1.py` from 0.9.2; no SGLang release ships a model file (the scenario is
// refused). No public engine start-up log was found: the weights are checked against the published
// (rounded) parameter counts.
static DOTS1: Coverage = Coverage {
    arch: Architecture::Dots1,
    families: "dots.llm1 base / inst (preset reconstructed from a public trimmed copy of the config); vLLM only",
    sglang: NOT_MODELLED,
    vllm: exact_memory(DOTS1_CHECKS),
};

/// The published sizes, engine-independent (the weights vLLM loads).
const DOTS1_CHECKS: &[Check] = &[check(
    "rednote-hilab/dots.llm1.inst model card: \"14B activated and 142B total parameters\"; 142,774,381,696 total and 14,016,588,928 active by hand; rounded sizes, not an engine log",
    "llm::tests_dots1::dots1_parameters_by_hand",
)];

// families16 (issue #17): Qwen2-VL (`Qwen2VLForConditionalGeneration`): the Qwen2 text tower with
// M-RoPE and the Qwen2-VL ViT (`llm::vlm`), sharded with the text tower by both engines. SGLang from
// 0.3.4.post1, vLLM from 0.6.1 (read from the wheels, `sim::scenario::first_release`). No public start-up
// log was found: the weights are checked against the published (rounded) parameter count.
static QWEN2_VL: Coverage = Coverage {
    arch: Architecture::Qwen2Vl,
    families: "Qwen2-VL 2B / 7B / 72B (text tower + Qwen2-VL ViT; 7B preset from a public copy of the config)",
    sglang: exact_memory(QWEN2_VL_CHECKS),
    vllm: exact_memory(QWEN2_VL_CHECKS),
};

/// The published sizes, engine-independent (the weights both engines load).
const QWEN2_VL_CHECKS: &[Check] = &[
    check(
        "Qwen/Qwen2-VL-7B-Instruct: \"8.29B\" parameters (the Hub's safetensors count; no stored copy of the page was found); 8,291,375,616 by hand (7,615,616,512 text tower + 675,759,104 ViT and merger); a rounded size, not an engine log",
        "llm::tests_qwen2_vl::qwen2_vl_7b_parameters_by_hand",
    ),
    check(
        "Qwen/Qwen2-VL-2B-Instruct: \"Parameters 2.21\" (billions; ai-nexus-293.pages.dev/model/huggingface:qwen:qwen2-vl-2b-instruct, a copy of the Hub's figures); 2,208,985,600 by hand; a rounded size, not an engine log",
        "llm::tests_qwen2_vl::qwen2_vl_2b_parameters_by_hand",
    ),
];
// families17 (issue #17): dense ERNIE-4.5 (`Ernie4_5ForCausalLM` / `Ernie4_5_ForCausalLM`): the Llama
// layer, tied embeddings. vLLM `models/ernie45.py` (a `LlamaForCausalLM`) from 0.9.2 under the
// remote-code name, from 0.10.1 under transformers' name; SGLang `models/ernie4.py` from 0.5.0 under the
// remote-code name only (the other is refused: `sim::scenario::ernie45`). No public engine start-up
// log was found: the weights are checked against the published (rounded) parameter count.
static ERNIE45: Coverage = Coverage {
    arch: Architecture::Ernie45,
    families: "ERNIE-4.5-0.3B (preset: the first release's config from a public copy, under transformers' name); SGLang only under the remote-code name Ernie4_5_ForCausalLM",
    sglang: exact_memory(ERNIE45_CHECKS),
    vllm: exact_memory(ERNIE45_CHECKS),
};

/// The published size, engine-independent (the weights both engines load).
const ERNIE45_CHECKS: &[Check] = &[check(
    "ERNIE-4.5-0.3B: \"360 million parameters\" (apxml.com/models/ernie-45-03b-base); 360,748,032 by hand with tied embeddings; a rounded size, not an engine log",
    "llm::tests_families17::ernie45_03b_parameters_by_hand",
)];

// families17 (issue #17): dense Hunyuan (`HunYuanDenseV1ForCausalLM`): Hunyuan-A13B's attention with
// per-head q/k norms and a dense SwiGLU, tied embeddings. SGLang `models/hunyuan.py` from 0.4.9.post3,
// vLLM `models/hunyuan_v1.py` from 0.10.0 (both in `sim::scenario::ernie45`). No public engine start-up log
// or exact published count was found: the hand count is checked against the size in the name.
static HUNYUAN_DENSE_V1: Coverage = Coverage {
    arch: Architecture::HunYuanDenseV1,
    families: "Hunyuan dense 0.5B-7B, Hy-MT (preset: Hy-MT2-7B's published config as a public copy holds it, Hunyuan-7B's layout); use_cla refused",
    sglang: exact_memory(HUNYUAN_DENSE_CHECKS),
    vllm: exact_memory(HUNYUAN_DENSE_CHECKS),
};

/// The size in the name, engine-independent (the weights both engines load).
const HUNYUAN_DENSE_CHECKS: &[Check] = &[check(
    "tencent/Hy-MT2-7B: the \"7B\" of the name; 7,504,568,320 by hand with tied embeddings (7,504,670,720 loaded with the vocabulary padded to 128,192); a rounded size, not an engine log",
    "llm::tests_families17::hy_mt2_7b_parameters_by_hand",
)];

// families19 (issue #17): Kimi-Linear (`KimiLinearForCausalLM`): KDA linear-attention layers with
// short convolutions and MLA layers without rotary embedding (3 KDA to 1 MLA), a dense first layer then
// DeepSeek-style MoE. SGLang `models/kimi_linear.py` from 0.5.4.post2, vLLM from 0.11.1 (read from the
// wheels, `sim::scenario::first_release`). Weights, the MLA cell and the KDA state per request follow the
// engines' code; the pools are approximate: SGLang's hybrid pool is the Qwen3.5 one over an MLA cell, and
// vLLM's hybrid block size is aligned to 16 (`VLLM_KERNEL_BLOCK_ALIGNMENT`) where an MLA backend may
// ask for another kernel block size. No public start-up log was found.
static KIMI_LINEAR: Coverage = Coverage {
    arch: Architecture::KimiLinear,
    families: "Kimi-Linear-48B-A3B Base / Instruct (preset from a public copy of the config)",
    sglang: EngineCoverage {
        pool: Level::Approximate,
        ..exact_memory(KIMI_LINEAR_CHECKS)
    },
    vllm: EngineCoverage {
        pool: Level::Approximate,
        ..exact_memory(KIMI_LINEAR_CHECKS)
    },
};

/// The published sizes and the state per request by hand, engine-independent.
const KIMI_LINEAR_CHECKS: &[Check] = &[
    check(
        "moonshotai/Kimi-Linear-48B-A3B-Instruct model card: \"48B\" total, \"3B\" activated; 49,122,681,728 total (48,367,707,008 without embedding and head) and 3,484,459,904 active (2,729,485,184 without) by hand; rounded sizes, not an engine log",
        "llm::tests_kimi_linear::kimi_linear_48b_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.8 KimiLinearCacheParams.mamba_cache_per_req and vLLM 0.19.0 kda_state_shape / kda_state_dtype by hand: 20 KDA layers at tp 2",
        "families19::kimi_linear_state_per_request_both_engines",
    ),
];
// families18 (issue #17): GLM-4.1V (`Glm4vForConditionalGeneration`): GLM-4-0414's dense text tower
// (the plain GQA pool in both engines) plus GLM-4.5V's GLM-4V ViT (`llm::glm4v`). SGLang `models/glm4v.py`
// from 0.5.0, vLLM `models/glm4_1v.py` from 0.9.2 (read from the wheels, `sim::scenario::glm4v`). No
// public engine start-up log or exact published count was found: the hand count is checked against
// the size in the name. vLLM's merger `proj` is column-sharded (`gather_output=True`), SGLang's
// replicated, as for GLM-4.5V: vLLM's weights approximate.
static GLM4V: Coverage = Coverage {
    arch: Architecture::Glm4v,
    families: "GLM-4.1V-9B-Thinking / -Base (preset from a public copy of the published config); SGLang from 0.5.0, vLLM from 0.9.2; text-only decode; the tower's 12 heads limit tp to 1, 2, 4",
    sglang: exact_memory(GLM4V_DENSE_CHECKS),
    vllm: EngineCoverage {
        weights: Level::Approximate,
        ..exact_memory(GLM4V_DENSE_CHECKS)
    },
};

/// The size in the name, engine-independent.
const GLM4V_DENSE_CHECKS: &[Check] = &[check(
    "zai-org/GLM-4.1V-9B-Thinking: the \"9B\" of the name (its text tower is GLM-4-9B-0414's layout); 10,292,777,472 by hand (9,400,279,040 text tower + 892,498,432 ViT and merger); a rounded size, not an engine log",
    "llm::tests_families18::glm41v_9b_parameters_by_hand",
)];

// families18 (issue #17): Arcee AFM (`ArceeForCausalLM`): the Llama attention with a non-gated ReLU²
// MLP, untied head. SGLang `models/arcee.py` from 0.4.10, vLLM `models/arcee.py` from 0.10.0 (read from
// the wheels, `sim::scenario::arcee`). No public engine start-up log or exact published count was
// found: the hand count is checked against the size in the name.
static ARCEE: Coverage = Coverage {
    arch: Architecture::Arcee,
    families: "Arcee AFM-4.5B / -Base (preset from a public copy of the config's values); SGLang from 0.4.10, vLLM from 0.10.0; tied embeddings and biases refused",
    sglang: exact_memory(ARCEE_CHECKS),
    vllm: exact_memory(ARCEE_CHECKS),
};

/// The size in the name, engine-independent (the weights both engines load).
const ARCEE_CHECKS: &[Check] = &[check(
    "arcee-ai/AFM-4.5B: the \"4.5B\" of the name; 4,619,184,640 by hand with an untied head; a rounded size, not an engine log",
    "llm::tests_families18::afm_4_5b_parameters_by_hand",
)];

// families20 (issue #17): Falcon-H1 (`FalconH1ForCausalLM`): a Mamba-2 mixer and a GQA attention side
// by side in every layer, then a SwiGLU MLP (`llm::falcon_h1`). SGLang `models/falcon_h1.py` from 0.5.3,
// vLLM from 0.9.0 (read from the wheels, `sim::scenario::first_release`). SGLang's state pool is the
// Mamba-2 arithmetic of Nemotron-H over every layer; vLLM's pages follow `vllm_hybrid` (no per-model SSM
// dtype rule for Falcon-H1). No public engine start-up log was found: the weights are checked against
// the size in the name. hybrid50: SGLang's float32 LM head and unused q/k norms are counted
// (`ModelSpec::serve_as_sglang`), so its weights are the engine's arithmetic too.
static FALCON_H1: Coverage = Coverage {
    arch: Architecture::FalconH1,
    families: "Falcon-H1 0.5B … 34B, Falcon-H1R (preset Falcon-H1-7B-Instruct from public copies of the config's values); SGLang from 0.5.3, vLLM from 0.9.0",
    sglang: exact_memory(FALCON_H1_CHECKS),
    vllm: vllm_hybrid(FALCON_H1_CHECKS),
};

/// The size in the name and the state per request by hand.
const FALCON_H1_CHECKS: &[Check] = &[
    check(
        "tiiuae/Falcon-H1-7B-Instruct: the \"7B\" of the name (7.59 B on the model card); 7,585,648,736 by hand with an untied head and the Mamba gated-norm weights; a rounded size, not an engine log",
        "llm::tests_falcon_h1::falcon_h1_7b_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.8 Mamba2StateShape over all 44 layers and vLLM 0.19.0 mamba2_state_shape at the model dtype by hand, tp 2",
        "families20::falcon_h1_state_per_request_both_engines",
    ),
    check(
        "SGLang 0.5.3 – 0.5.23 falcon_h1.py: the LM head cast to float32 and the unused q_norm / k_norm, by hand (8,054,771,840 B a rank at tp 2)",
        "llm::tests_falcon_h1::falcon_h1_7b_under_sglang_holds_a_float32_head_and_its_qk_norms",
    ),
];
// families21 (issue #17): Apertus (`ApertusForCausalLM`): the Llama attention with per-head q/k
// RMSNorms, a non-gated xIELU MLP with two learned scalars a layer (`llm::apertus`). SGLang
// `models/apertus.py` from 0.5.3rc0, vLLM from 0.10.2 (read from the wheels' file lists, first_release's
// TABLE). No public engine start-up log or exact published count was found: the hand count is checked
// against the size in the name.
static APERTUS: Coverage = Coverage {
    arch: Architecture::Apertus,
    families: "swiss-ai Apertus-8B / -70B (-2509, -Instruct; preset from a public copy of the config's values); SGLang from 0.5.3rc0, vLLM from 0.10.2; biases and other activations refused",
    sglang: exact_memory(APERTUS_CHECKS),
    vllm: exact_memory(APERTUS_CHECKS),
};

/// The size in the name, engine-independent.
const APERTUS_CHECKS: &[Check] = &[check(
    "swiss-ai/Apertus-8B-2509: the \"8B\" of the name; 8,053,338,176 by hand (untied head, 2 xIELU scalars a layer); a rounded size, not an engine log",
    "llm::tests_families21::apertus_8b_parameters_by_hand",
)];

// families21 (issue #17): MiniCPM (`MiniCPMForCausalLM`): the Llama layer with muP scalings that change
// no size (`llm::minicpm`). SGLang `models/minicpm.py` from 0.1.19, vLLM from 0.4.1 (wheels' file
// lists). No public engine start-up log was found: the hand count is checked against the size in the name.
static MINICPM: Coverage = Coverage {
    arch: Architecture::MiniCpm,
    families: "MiniCPM 1B / 2B, MiniCPM4 0.5B / 8B (preset from a public copy of the published config); SGLang from 0.1.19, vLLM from 0.4.1; MiniCPM-MoE and fatrelu (MiniCPM-S) refused; the muP scalings' elementwise kernels not costed",
    sglang: exact_memory(MINICPM_CHECKS),
    vllm: exact_memory(MINICPM_CHECKS),
};

/// The size in the name, engine-independent.
const MINICPM_CHECKS: &[Check] = &[check(
    "openbmb/MiniCPM4-8B: the \"8B\" of the name; 8,185,253,888 by hand (untied head); a rounded size, not an engine log",
    "llm::tests_families21::minicpm4_8b_parameters_by_hand",
)];

// families21 (issue #17): MiniCPM3 (`MiniCPM3ForCausalLM`): DeepSeek-V2's MLA with a dense SwiGLU in
// every layer (`llm::minicpm`). SGLang `models/minicpm3.py` from 0.3.1 caches the latent and decodes
// absorbed (tpsim's MLA path); vLLM's from 0.6.2 materialises per-head K/V (`Attention`, not its MLA
// path): its cell and weights are exact, its decode is costed as plain attention over that K/V.
static MINICPM3: Coverage = Coverage {
    arch: Architecture::MiniCpm3,
    families: "MiniCPM3-4B (preset from a public copy of the published config); SGLang from 0.3.1 (latent MLA cache), vLLM from 0.6.2 (per-head K/V of 96, costed as plain attention over them)",
    sglang: exact_memory(MINICPM3_CHECKS),
    vllm: exact_memory(MINICPM3_CHECKS),
};

/// The size in the name, engine-independent.
const MINICPM3_CHECKS: &[Check] = &[check(
    "openbmb/MiniCPM3-4B: the \"4B\" of the name; 4,073,875,968 by hand (tied head); a rounded size, not an engine log",
    "llm::tests_families21::minicpm3_4b_parameters_by_hand",
)];

// families22 (issue #17): LFM2 (`Lfm2ForCausalLM`): gated short-conv and GQA layers per `layer_types`,
// each with a SwiGLU MLP (`llm::lfm2`). SGLang `models/lfm2.py` from 0.5.9, vLLM from 0.10.2 (read from
// the wheels, `sim::scenario::first_release`). SGLang's state pool is its `Mamba2StateShape` with no SSM
// state over the conv layers; vLLM's pages follow `vllm_hybrid` with the conv window at
// `--mamba-cache-dtype`. No public engine start-up log was found: the weights are checked against the
// model card's count.
static LFM2: Coverage = Coverage {
    arch: Architecture::Lfm2,
    families: "LFM2-350M … 2.6B (preset LFM2-1.2B from public copies of the config); SGLang from 0.5.9, vLLM from 0.10.2",
    sglang: exact_memory(LFM2_CHECKS),
    vllm: vllm_hybrid(LFM2_CHECKS),
};

/// The model card's count and the state per request by hand.
const LFM2_CHECKS: &[Check] = &[
    check(
        "LiquidAI/LFM2-1.2B: the model card's 1,170,340,608 parameters; 1,170,340,608 by hand (tied head); not an engine log",
        "llm::tests_families22::lfm2_1_2b_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.9 Mamba2StateShape (state 0) over the 10 conv layers and vLLM 0.11.1 short_conv_state_shape by hand",
        "families22::lfm2_state_per_request_both_engines",
    ),
];

// families22 (issue #17): LFM2-MoE (`Lfm2MoeForCausalLM`): LFM2's layers with two dense MLP layers then
// a sigmoid-routed MoE (32 experts top-4, fp32 expert bias, no shared expert). SGLang
// `models/lfm2_moe.py` from 0.5.9, vLLM `models/lfm2_moe.py` from 0.11.1.
static LFM2_MOE: Coverage = Coverage {
    arch: Architecture::Lfm2Moe,
    families: "LFM2-8B-A1B (preset from public copies of the config); SGLang from 0.5.9, vLLM from 0.11.1",
    sglang: exact_memory(LFM2_MOE_CHECKS),
    vllm: vllm_hybrid(LFM2_MOE_CHECKS),
};

/// The model card's rounded count and the refusals by hand.
const LFM2_MOE_CHECKS: &[Check] = &[check(
    "LiquidAI/LFM2-8B-A1B: the model card's 8.3B total / 1.5B active; 8,339,930,560 by hand (tied head), 1,557,740,992 active; a rounded size, not an engine log",
    "llm::tests_families22::lfm2_8b_a1b_parameters_by_hand",
)];

// families23 (issue #17): MiMo-V2-Flash (`MiMoV2FlashForCausalLM`): global and 128-token sliding GQA
// layers with their own KV heads, a dense first layer then MoE (`llm::mimo_v2`). SGLang
// `models/mimo_v2_flash.py` from 0.5.7 (read from the wheels, `sim::scenario::first_release`), its
// cell and two-pool split by release (0.5.7 / 0.5.8 count the global cell over every layer); the
// decode attention is the generic GQA kernel per layer kind (sliding reads capped at the window), an
// approximation. vLLM serves it from 0.14.0; grok52 models 0.14 – 0.19 (`models/mimo_v2_flash.py`:
// V padded to the q/k width, pages unified to the sliding layers', vLLM's groups), vllmnew53 0.20 on
// (V at its own width on the DiffKV backends; 0.20 – 0.24 refused on GPUs without FA3 / FA4:
// `sim::scenario::vllm_diffkv`), exact by the engine's code but checked by no public log (pool
// approximate). One public SGLang start-up log (sglang PR 15464) checks the layer cells; the weights are
// checked against the model card's count.
static MIMO_V2_FLASH: Coverage = Coverage {
    arch: Architecture::MiMoV2Flash,
    families: "MiMo-V2-Flash (preset from public copies of the config, FP8 checkpoint); SGLang from 0.5.7, vLLM from 0.14 (0.20 – 0.24 on SM 9.x / 10.x only); MiMo-V2.5-Pro (MiMoV2ForCausalLM, families40: preset the published config.json from a public dump, FP8, q/k/v fused in 8 tensor-parallel chunks; SGLang from 0.5.11 at tp 1, 2, 4, 8, vLLM from 0.21.0 at tp 8 only; MiMo-V2.5's vision and audio encoders refused)",
    sglang: exact_memory(MIMO_V2_FLASH_CHECKS),
    vllm: EngineCoverage {
        weights: Level::Exact,
        kv_cell: Level::Exact,
        pool: Level::Approximate,
        cost: Level::Approximate,
        checks: &[
            check(
                "vLLM 0.19.0 models/mimo_v2_flash.py (V padded to 192) and v1/core/kv_cache_utils.py (unify_kv_cache_spec_page_size, uniform-page groups) by hand; no public vLLM log",
                "grok52::mimo_v2_flash_vllm_pages_by_hand",
            ),
            check(
                "vLLM 0.20.0 / 0.22.0 / 0.25.1 / 0.34.0 (head_size_v on the DiffKV backends, kv_cache_interface.py page sizes; FA-DiffKV's sinks need FA3 / FA4 before 0.25) by hand; no public vLLM log",
                "vllmnew53::mimo_v2_flash_vllm_by_release",
            ),
            check(
                "families40: MiMo-V2.5-Pro under vLLM 0.21.0 at tp 8 (models/mimo_v2.py MiMoV2ForCausalLM, one fused qkv_proj chunk a rank): the FP8 weights a rank by hand, the same as SGLang's; no public vLLM log",
                "families40::mimo_v2_5_pro_sglang_h200_by_hand",
            ),
        ],
    },
};

/// The model card's rounded counts and SGLang's pools by hand.
const MIMO_V2_FLASH_CHECKS: &[Check] = &[
    check(
        "XiaomiMiMo/MiMo-V2-Flash model card: 309B total / 15B active; 308,778,780,864 by hand (MTP layers excluded), 15,445,936,320 active; rounded sizes, not an engine log",
        "llm::tests_families23::mimo_v2_flash_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.8 get_cell_size_per_token / set_num_tokens_hybrid_swa and 0.5.9's by hand",
        "families23::mimo_v2_flash_sglang_pools_by_hand",
    ),
    check(
        "sglang PR 15464 start-up log (4× B200, tp 4): sliding pool K 41.76 / V 27.84 GB, full pool K 4.82 / V 3.21 GB, SWAKVPool 77.63 GB at 1,496,958 tokens: the layer cells match to the log's decimals; its equal pool sizes (ratio 1.0, launch command not shown) are not reproduced with the 0.8 default",
        "llm::tests_families23::mimo_v2_flash_layer_cells_match_the_sglang_log",
    ),
    check(
        "families40: a public dump of XiaomiMiMo/MiMo-V2.5-Pro's config.json and tensor list (find_string id 62727537601): 1,023,244,718,976 elements = 1,021,248,126,336 text-model parameters by hand + 61,790,976 fp32 block scales + 3 MTP layers of 644,933,888 (exact); a count, not an engine log",
        "families40::mimo_v2_5_pro_parameters_by_hand",
    ),
    check(
        "families40: MiMo-V2.5-Pro FP8 on 8× H200 (SGLang 0.5.23, TP 8): 129,434,616,576 B a rank and the 44,800 B cell (70 layers × one KV head × (192 + 128) × 2 B) by hand; no public log",
        "families40::mimo_v2_5_pro_sglang_h200_by_hand",
    ),
];

// families24 (issue #17): Grok-1 / Grok-2 (`Grok1ForCausalLM`): GQA, every layer 8 GELU experts top-2
// behind an fp32 router, Grok-2's residual MLP of `intermediate_size` (`llm::grok`). SGLang
// `models/grok.py` (every wheel read, 0.4.3 on), Grok-2's residual MLP from 0.5.1
// (`sim::scenario::first_release`). vLLM serves Grok-2 from 0.14.0 (`models/grok1.py` reads
// `residual_moe`; 0.11.0 – 0.13.0 do not) until 0.22.0 (the 0.26.0 registry lists `Grok1ForCausalLM`
// as removed after 0.24.0); not modelled by tpsim: refused. One public SGLang start-up log (8× H100,
// tp 8, online fp8) checks the KV cell; its weights (40.69 GiB a rank against tpsim's 31.65) are a
// recorded known miss.
static GROK1: Coverage = Coverage {
    arch: Architecture::Grok1,
    families: "Grok-2 (preset from public copies of the config, bf16 checkpoint served with --quantization fp8); SGLang from 0.5.1, vLLM not modelled",
    sglang: exact_memory(GROK1_CHECKS),
    vllm: NOT_MODELLED,
};

/// The model card's rounded counts and the public SGLang log.
const GROK1_CHECKS: &[Check] = &[
    check(
        "xai-org/grok-2 discussion 6: 269,515,497,472 total (equal by hand) / ~115B active (114,896,674,816 by hand, the discussion's 115,019,056,768 is 0.1 % more); a count, not an engine log",
        "llm::tests_families24::grok2_parameters_by_hand",
    ),
    check(
        "SGLang v0.5.2rc2 start-up log (8× H100 80 GB, tp 8, --quantization fp8; engine-memory.tsv): K size 13.79 GB at 903,439 tokens = 64 layers × 1 KV head × 128 × 2 B a token; its load usage 40.69 GiB a rank against tpsim's 37.56 GiB (weights 31.65 + per-layer float32 RoPE caches 4.06 + kept load segments 1.85; a known miss of −7.7 %, was −22 %), tpsim's 894,698 tokens 0.97 % below its 903,439",
        "families24::grok2_h100_log_kv_cell",
    ),
    check(
        "the same log's load usage and pool with SGLang's 64 per-layer ScalingRotaryEmbedding caches (grok.py)",
        "grok52::grok2_h100_log_with_layer_caches",
    ),
];

// families25 (issue #17): Meituan LongCat-Flash (`LongcatFlashForCausalLM`): 28 layers of two MLA
// blocks, two dense MLPs and one MoE of 512 real + 256 identity experts, top-12, behind an fp32 router
// (`llm::longcat`). SGLang `models/longcat_flash.py` from 0.5.2 (the 0.5.1.post3 wheel has none;
// `sim::scenario::first_release`). vLLM ships `models/longcat_flash.py` from 0.11.0 (0.10.2 has none):
// the same blocks (`FlashDecoderLayer`: two `DeepseekV2MLAAttention`, two `FlashMLP`, `LongcatMoe` with
// an fp32 router by `FlashConfig`'s default `router_dtype`, `FusedMoE(zero_expert_num=...)`, five
// all-reducing blocks a layer), MLA KV (`config/model.py` `is_deepseek_mla` lists `longcat_flash`). No
// public start-up log with its memory lines was found; the checks are hand counts.
static LONGCAT_FLASH: Coverage = Coverage {
    arch: Architecture::LongcatFlash,
    families: "LongCat-Flash-Chat (preset reconstructed from public copies of the config; bf16 and an ASSUMED block-FP8 layout for the FP8 release); SGLang from 0.5.2, vLLM from 0.11.0",
    sglang: exact_memory(LONGCAT_FLASH_CHECKS),
    vllm: exact_memory(LONGCAT_FLASH_VLLM_CHECKS),
};

/// vLLM 0.11.0: the same weights and cell by hand (no engine log found).
const LONGCAT_FLASH_VLLM_CHECKS: &[Check] = &[check(
    "vLLM 0.11.0 longcat_flash.py / config/model.py is_deepseek_mla: the FP8 example under vLLM with --enable-expert-parallel: the same 71,568,504,832 B a rank and 64,512 B a token as SGLang's, KV in whole blocks",
    "families25::longcat_fp8_vllm_by_hand",
)];

/// The model card's rounded counts (no engine log found).
const LONGCAT_FLASH_CHECKS: &[Check] = &[
    check(
        "meituan-longcat/LongCat-Flash-Chat model card: 560B total (560,664,980,480 by hand without the MTP layer, +0.1 %) and 18.6B–31.3B (~27B on average) active (by hand without the input embedding: 18.69B with no real expert, 31.38B with 12, 27.15B with 8); a count, not an engine log",
        "llm::tests_families25::longcat_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.8 model_config.py num_attention_layers = 2 × 28 MLA layers: 56 × (512 + 64) × 2 B = 64,512 B a token on every rank; the FP8 example's weights and pool by hand",
        "families25::longcat_fp8_h200_by_hand",
    ),
];

// families27 (issue #17): MiniMax-Text-01 / MiniMax-M1 (`MiniMaxText01ForCausalLM`,
// `MiniMaxM1ForCausalLM`): lightning attention in 70 of 80 layers (a heads × head_dim × head_dim state
// per request, no KV), GQA in every 8th, 32 experts top-2 behind an fp32 router, an fp32 LM head
// (`llm::minimax01`). vLLM `models/minimax_text_01.py` on V1 from 0.10.2 (`layers/mamba/linear_attn.py`)
// until the registry drops it (the 0.26.0 registry: "supported in vLLM until v0.23.0"); no SGLang
// release registers it: refused (`sim::scenario::first_release`). The state page follows vLLM's
// `linear_attention_state_shape` / `_dtype`; the hybrid pool is rated approximate, as every vLLM hybrid
// without a log. No public start-up log with its KV-cache line was found.
static MINIMAX_TEXT01: Coverage = Coverage {
    arch: Architecture::MiniMaxText01,
    families: "MiniMax-Text-01, MiniMax-M1-40k / -80k (preset minimax-m1-80k from a public copy of the config, bf16); vLLM 0.10.2 to 0.23, SGLang not served",
    sglang: NOT_MODELLED,
    vllm: vllm_hybrid(MINIMAX_TEXT01_CHECKS),
};

/// The model card's rounded counts and the state per request by hand.
const MINIMAX_TEXT01_CHECKS: &[Check] = &[
    check(
        "MiniMaxAI/MiniMax-M1-80k / MiniMax-Text-01 model cards: \"456 billion total parameters, of which 45.9 billion are activated per token\"; 456,089,655,296 total and 45,944,920,064 active without the embedding and head by hand; rounded sizes, not an engine log",
        "llm::tests_families27::minimax_m1_parameters_by_hand",
    ),
    check(
        "vLLM 0.11.0 linear_attention_state_shape / linear_attention_state_dtype by hand: 70 lightning layers at tp 8, bf16: 70 × 8 × 128 × 128 × 2 = 18,350,080 B a request a rank",
        "llm::tests_families27::lightning_state_by_hand",
    ),
    check(
        "vLLM 0.11.0 HybridAttentionMambaModelConfig by hand: the softmax block raised to 262,144 / 512 = 512 tokens (no padding), 8 groups of 10 layers, reported tokens = KV blocks / 8 × 512; --mamba-cache-dtype float32 refused by 0.19.0, a 1,024-token block at 0.22.0",
        "families27::minimax_m1_example_under_vllm",
    ),
];

// families28 (issue #17): StepFun Step-3.5-Flash (`Step3p5ForCausalLM`): 45 layers, full and 512-token
// sliding GQA (64 / 96 query heads, 8 KV heads), 3 dense then 42 MoE layers of 288 experts top-8 and
// one shared expert (`llm::step3p5`, lowered onto `llm::mimo_v2`). SGLang `models/step3p5.py` from
// 0.5.9 (the 0.5.8.post1 wheel has none; `sim::scenario::first_release`), a hybrid SWA model there
// (`configs/model_config.py`). vLLM ships `models/step3p5.py` from 0.15.1 (0.15.0 has none;
// vllmnew53): the same sharding, one 512 B page a layer at tp 8, the hybrid manager's groups of 12
// layers. The head-wise attention gate's weights are counted, its sigmoid-multiply kernel is not (known
// miss); sglmem54: both RoPE caches (64 and 128 wide) are counted. No public start-up log found; the
// checks are hand counts.
static STEP3P5: Coverage = Coverage {
    arch: Architecture::Step3p5,
    families: "Step-3.5-Flash (preset from public copies of the config, bf16 checkpoint; the head-wise attention gate's kernels not costed); SGLang from 0.5.9, vLLM from 0.15.1",
    sglang: exact_memory(STEP3P5_CHECKS),
    vllm: EngineCoverage {
        // sglmem54: both RoPE caches are counted; the load's allocator rounding is a replay and no
        // public log checks the load.
        weights: Level::Approximate,
        kv_cell: Level::Exact,
        pool: Level::Approximate,
        cost: Level::Approximate,
        checks: &[check(
            "vLLM 0.19.0 models/step3p5.py sharding and v1/core/kv_cache_utils.py groups (12 full + 33 sliding layers of 512 B, groups of 12, 3 padding layers) by hand; no public vLLM log",
            "vllmnew53::step3p5_vllm_rtxpro6000_by_hand",
        )],
    },
};

/// The model card's rounded counts (no engine log found).
const STEP3P5_CHECKS: &[Check] = &[
    check(
        "stepfun-ai/Step-3.5-Flash model card: 196B total / 11B active; 196,956,130,368 by hand without the MTP layers (+0.5 %), 11.46B active without the input embedding; a count, not an engine log",
        "llm::tests_families28::step3p5_flash_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.9 hybrid SWA pools: 12 full + 33 sliding layers of 1 KV head a rank × 256 × 2 B at tp 8 (23,040 B a token); the bf16 example's weights, split and pools by hand",
        "families28::step3p5_sglang_rtxpro6000_by_hand",
    ),
];

// families30 (issue #17): Google Gemma 4 (`Gemma4ForCausalLM`, `Gemma4ForConditionalGeneration`): the
// dense text decoder (31B: 60 layers, 50 sliding of 16 KV heads × 256 and 10 full of 4 KV heads × 512
// whose keys serve as values; 26B-A4B: a MoE block of 128 experts of 704 top-8 beside each layer's dense
// MLP), lowered onto `llm::mimo_v2`'s two kinds (`llm::gemma4`). SGLang
// `models/gemma4_causal.py` / `gemma4_mm.py` from 0.5.11 (0.5.10 and 0.5.10.post1 have none), a hybrid
// SWA model there (`configs/model_config.py`). vLLM ships `models/gemma4.py` from 0.19.0 (0.18.1 has
// none); families39: modelled there — the vision tower whole on every rank (`gemma4_mm.py`), the two
// kinds' pages unified (the full layers' block doubled at tp 1 – 4), vLLM's groups and reported tokens
// (`v1/core/kv_cache_utils.py` 0.19.0), Gemma4Config's backend rule by release
// (`sim::scenario::gemma4::vllm_default`); the profile run's activation and non-torch growth modelled,
// so the pool is approximate.
// vision54: the vision tower and `embed_vision` are counted as SGLang shards them (`llm::gemma4_vit`),
// and SGLang's default fraction is lowered for them (`adjust_mem_fraction_for_vlm`, × 0.909736328125
// for 27 × 1,152). No public start-up log found; the checks are hand counts.
static GEMMA4: Coverage = Coverage {
    arch: Architecture::Gemma4,
    families: "Gemma 4 31B and 26B-A4B (text decoders: dense, and the MoE block beside the dense MLP; the 27 × 1,152 vision tower and its projection; presets from public copies of the configs, bf16; E2B / E4B per-layer embeddings and KV sharing refused, an audio tower not counted); SGLang from 0.5.11, vLLM from 0.19.0 (families39: TRITON_ATTN, or FA4 on SM 9.x – 11.x from 0.24)",
    // vision54: the tower is counted and SGLang's default fraction lowered for it (0.5.23
    // `arg_groups/memory_hook.py` `adjust_mem_fraction_for_vlm`: × 0.95 × a factor of the ViT's layers
    // and width); its opt-in post-capture branch (− 8 GiB / GPU memory,
    // `SGLANG_ENABLE_POST_CAPTURE_KV_SIZING`, false by default) is not modelled. Exact by hand, no log.
    sglang: EngineCoverage {
        weights: Level::Exact,
        kv_cell: Level::Exact,
        pool: Level::Exact,
        cost: Level::Approximate,
        checks: GEMMA4_CHECKS,
    },
    // families39 (issue #17): weights and cell by the engine's code; the pool rests on tpsim's modelled
    // profile-run activation and non-torch growth; no public vLLM log of Gemma 4 found.
    vllm: EngineCoverage {
        weights: Level::Exact,
        kv_cell: Level::Exact,
        pool: Level::Approximate,
        cost: Level::Approximate,
        checks: GEMMA4_VLLM_CHECKS,
    },
};

/// families39: vLLM's arithmetic by hand (no public vLLM start-up log of Gemma 4 found).
const GEMMA4_VLLM_CHECKS: &[Check] = &[
    check(
        "vLLM 0.19.0 gemma4.py / gemma4_mm.py / v1/core/kv_cache_utils.py: 31B at tp 2, weights a rank with the whole 575,743,536-parameter tower, pages unified at 131,072 B (full layers 32 tokens a block), 6 groups of 10 layers, GPU KV cache size = num_blocks // 6 × 16; 13.52 GiB for one 262,144-token request; by hand",
        "families39::gemma4_31b_vllm_by_hand",
    ),
    check(
        "vLLM 0.19.0 Gemma4MoE (FusedMoE, reduce_results) / gemma4_mm.py: 26B-A4B at tp 4, the whole tower, equal 2,048 B pages, 6 groups of 5 layers; by hand",
        "families39::gemma4_26b_a4b_vllm_by_hand",
    ),
    check(
        "vLLM 0.21.0 _report_kv_cache_config: GPU KV cache size = int(max_concurrency × max_model_len) (0.20.0 and before num_blocks // groups × 16; tpsim gives the 0.21+ line as a memory note); vllm-project/vllm issue 43308 (Gemma 4 31B AWQ, one A100, ~50 GB of KV): ~55k tokens under 0.20.0, ~525k under 0.21.0 — the switch, not pinned (its arguments are not given); 4,933 pages a 65,536-token request by hand",
        "families39::gemma4_31b_vllm_reported_tokens_by_release",
    ),
    check(
        "vLLM 0.19.0 – 0.34.0 models/config.py Gemma4Config: TRITON_ATTN forced (0.19 – 0.23), FA4 on SM 9.x – 11.x else TRITON_ATTN (0.24 on), with the engine's log lines; FLASH_ATTN refused for 512-wide heads",
        "families39::gemma4_vllm_backend_and_refusals",
    ),
];

/// The model card's rounded count and the engine's pool by hand (no engine log found).
const GEMMA4_CHECKS: &[Check] = &[
    check(
        "google/gemma-4-31B model card: 30.7B parameters; 30,697,345,340 by hand for the text decoder (no v_proj in the 10 full layers); a count, not an engine log",
        "llm::tests_families30::gemma4_31b_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.23 hybrid SWA pools: 10 full layers of 4 KV heads × 512 and 50 sliding layers of 16 KV heads × 256 (K and V, bf16); the example's weights a rank and cell by hand",
        "families30::gemma4_31b_sglang_by_hand",
    ),
    check(
        "google/gemma-4-26B-A4B model card: 25.2B total / 3.8B active; 25,233,141,790 / 3,822,530,590 by hand for the text decoder; a count, not an engine log",
        "llm::tests_families30::gemma4_26b_a4b_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.23, 26B-A4B at tp 4: 128 experts of 704 sharded, the dense MLP and the MoE all-reduced apart (91 a pass), 61,440 B cell; the example's weights a rank and pools by hand",
        "families30::gemma4_26b_a4b_sglang_by_hand",
    ),
    check(
        "SGLang 0.5.23 gemma4_vision.py / gemma4_mm.py: the vision tower 569,550,384 parameters (the card's ~550M vision encoder, +3.6 %), 303,272,496 a rank with embed_vision at tp 2; by hand",
        "vision54::gemma4_vision_tower_by_hand",
    ),
    check(
        "SGLang 0.5.23 adjust_mem_fraction_for_vlm: default 0.861 × 0.909736328125 on the 31B example, KV tokens 149,399 → 126,397 against the same checkpoint without vision_config; by hand",
        "vision54::gemma4_31b_pool_before_after",
    ),
];

// families32 (issue #17): Moonshot Kimi-K3 (`KimiK3ForConditionalGeneration`): 93 layers, 69 KDA (96
// heads of 128, full-rank gate) and 24 MLA (q_lora_rank 1536, output gate, no RoPE), a dense layer 0
// then 92 MoE layers of 896 MXFP4 experts top-16 in a 3,584-wide latent space and 2 shared experts,
// block attention residuals (`llm::kimi_k3`); vision54: the MoonViT3d tower (`llm::kimi_k3_vit`) and
// SGLang's multimodal fraction. SGLang `models/kimi_k3.py` from 0.5.17 (the 0.5.16 wheel
// has none; `sim::scenario::first_release`). vLLM lists it from 0.27.0 (`vllm/models/kimi_k3/`, a
// package of its own kernels) and is refused as not modelled. No public start-up log found; the
// checks are hand counts against the published checkpoint's tensor list.
static KIMI_K3: Coverage = Coverage {
    arch: Architecture::KimiK3,
    families: "Kimi-K3 (preset from a public copy of the config and tensor list; the MoonViT3d tower replicated on every rank, SGLang's multimodal fraction; the fused latent-and-shared all-reduce's width and the SiTU kernels not modelled); SGLang from 0.5.17, vLLM not modelled",
    sglang: exact_memory(KIMI_K3_CHECKS),
    vllm: NOT_MODELLED,
};

/// Hand counts (no engine log found).
const KIMI_K3_CHECKS: &[Check] = &[
    check(
        "public tensor list of moonshotai/Kimi-K3: 1,503,647,073,024 stored elements (MXFP4 packed two to a byte); the text model's parameters by hand from the same shapes",
        "families32::kimi_k3_parameters_by_hand",
    ),
    check(
        "SGLang 0.5.23 KimiLinearCacheParams (KDA state per request) and the MLA cell, 16 ranks: weights a rank, state and cell by hand",
        "families32::kimi_k3_sglang_tp16_by_hand",
    ),
    check(
        "SGLang 0.5.23 kimi_k3_vl.py MoonViT3d + mm_projector replicated (447,358,976 parameters, the tensor list's) and adjust_mem_fraction_for_vlm's 0.938125 (0.89 → 0.83493125 on the example); by hand",
        "vision54::kimi_k3_vision_tower_by_hand",
    ),
];

// families31 (issue #17): Mistral Large 3 (`MistralLarge3ForCausalLM`): DeepSeek-V3's layers (61, MLA
// with 128 heads, 3 dense then 58 MoE layers of 128 experts top-4 and one shared expert of 4,096) under
// another class name: SGLang from 0.5.6.post1, vLLM from 0.12.0 (`sim::scenario::first_release`). The
// checkpoint's 2.5B-parameter vision encoder (the engines serve the Mistral-format checkpoint as
// `PixtralForConditionalGeneration`) is not lowered: its public config was not found (known miss);
// vision54: nor, therefore, SGLang's multimodal fraction (`adjust_mem_fraction_for_vlm` reads the
// Pixtral `vision_config` that 0.5.9 `utils/mistral_utils.py` builds from it) or vLLM's encoder profile.
static MISTRAL_LARGE3: Coverage = Coverage {
    arch: Architecture::MistralLarge3,
    families: "Mistral Large 3 675B (text model only: the 2.5B vision encoder's config was not found, its weights are not counted; preset from public copies of params.json); SGLang from 0.5.6.post1, vLLM from 0.12.0",
    sglang: exact_memory(MISTRAL_LARGE3_CHECKS),
    vllm: exact_memory(MISTRAL_LARGE3_CHECKS),
};

/// The model card's rounded counts and hand counts (no engine log found).
const MISTRAL_LARGE3_CHECKS: &[Check] = &[
    check(
        "mistralai/Mistral-Large-3-675B-Instruct-2512 model card: \"A Granular MoE Language Model with 673B params and 39B active\"; 673,421,089,792 by hand (+0.06 %), 39.0B active without the input embedding; a count, not an engine log",
        "llm::tests_families31::mistral_large3_parameters_by_hand",
    ),
    check(
        "the FP8 example on 8× H200 (vLLM 0.13.0, TP 8): block-FP8 weights a rank and the 70,272 B MLA cell by hand",
        "families31::mistral_large3_fp8_vllm_h200_by_hand",
    ),
];

// families36 (issue #17): Hunyuan V3 / Hy3 (`HYV3ForCausalLM`, tencent/Hy3): 80 layers of GQA (64 query
// / 8 KV heads of 128, per-head q/k norms), one dense layer then MoE layers of 192 experts top-8 behind
// an fp32 router and fp32 expert bias, with one shared expert of 1,536 (`llm::hy3`): SGLang from
// 0.5.11, vLLM from 0.20.0 (`sim::scenario::first_release`). Known miss: vLLM 0.20.0 – 0.25.1 hold the
// expert bias at the model dtype (30,336 B a rank less than tpsim counts).
static HY3: Coverage = Coverage {
    arch: Architecture::Hy3,
    families: "Hunyuan V3 / Hy3 295B-A21B (config: the hub's 40 keys as a public test quotes them; key order assumed); SGLang from 0.5.11, vLLM from 0.20.0",
    sglang: exact_memory(HY3_CHECKS),
    vllm: exact_memory(HY3_CHECKS),
};

/// The model card's rounded counts and hand counts (no engine log found).
const HY3_CHECKS: &[Check] = &[
    check(
        "tencent/Hy3 model card: 295B parameters, 21B active; 295,033,543,488 and 20,675,730,240 by hand from the reconstructed config; a count, not an engine log",
        "llm::tests_families34::hy3_parameters_by_hand",
    ),
    check(
        "the bf16 example on 8× H200 (SGLang 0.5.23, TP 8): weights a rank, the 40,960 B GQA cell (80 layers × K and V × 1 KV head × 128 × 2 B) and the pool by hand",
        "families36::hy3_bf16_sglang_h200_by_hand",
    ),
];

// dsv4run55 (issue #17): DeepSeek-V4 (`DeepseekV4ForCausalLM`; `llm::deepseek_v4` and its pools,
// weights and decode companions): SGLang 0.5.12 – 0.5.23 on CUDA at plain TP, its weights in SGLang's
// formats and its pools by release; vLLM refused. dsv4dec55: the decode step is lowered
// (`llm::deepseek_v4_layer`: assumed kernel counts and efficiency classes, no measured row), so its
// cost is approximate.
static DEEPSEEK_V4: Coverage = Coverage {
    arch: Architecture::DeepseekV4,
    families: "DeepSeek-V4-Flash 284B-A13B, DeepSeek-V4-Pro; SGLang 0.5.12 - 0.5.23 (decode cost assumed, unvalidated); vLLM from 0.20.0 not modelled",
    sglang: exact_memory(DEEPSEEK_V4_CHECKS),
    vllm: NOT_MODELLED,
};

/// Hand counts and the one public start-up log read (a DSv4 branch, not a release).
const DEEPSEEK_V4_CHECKS: &[Check] = &[
    check(
        "DeepSeek-V4-Flash model card: 284B parameters, 13B active; 284,332,240,471 and 13,799,632,471 by hand from its config",
        "llm::tests_families29::deepseek_v4_flash_parameters_by_hand",
    ),
    check(
        "the Flash example on 8× H200 (SGLang 0.5.23, TP 8): weights a rank in SGLang's formats, the DSV4 pools and the start-up verdict by hand",
        "dsv4run55::flash_sglang_h200_memory_by_hand",
    ),
    check(
        "dsv4dec55: the decode step's bytes a rank at 8,192 tokens (tp 8, Flash) by hand from the weights and pool layout; kernel counts assumed",
        "dsv4dec55::step_bytes_at_8192_by_hand",
    ),
];

// families38 (issue #17): MiniMax-M3's text model (`MiniMaxM3SparseForCausalLM`; `llm::minimax_m3`):
// SGLang 0.5.16 – 0.5.23 at bf16 on CUDA at plain TP, its weights and `MiniMaxSparseKVPool` cell by
// hand; the decode step's MSA kernels at assumed efficiencies, no measured row; vLLM and the
// vision-language wrapper refused.
static MINIMAX_M3: Coverage = Coverage {
    arch: Architecture::MiniMaxM3,
    families: "MiniMax-M3 428B-A23B text model (config: text_config of a public dump); SGLang 0.5.16 - 0.5.23 bf16 (decode cost assumed, unvalidated); vLLM from 0.24.0 and the VL wrapper not modelled",
    sglang: exact_memory(MINIMAX_M3_CHECKS),
    vllm: NOT_MODELLED,
};

/// Hand counts of the text model and its SGLang start-up.
const MINIMAX_M3_CHECKS: &[Check] = &[
    check(
        "a public weight inventory of MiniMaxAI/MiniMax-M3: 427,040,140,160 parameters, 426,174,572,928 of them the text model by hand",
        "families37::minimax_m3_parameters_by_hand",
    ),
    check(
        "the text model on 8× H200 (SGLang 0.5.23, TP 8): weights a rank, the 45,312 B MiniMaxSparseKVPool cell, page 128 and the pool by hand",
        "families38::minimax_m3_sglang_h200_memory_by_hand",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_architecture_finds_its_own_entry() {
        let all = all();
        for c in &all {
            assert_eq!(coverage(c.arch).arch, c.arch, "{:?}", c.arch);
        }
        // Every architecture tpsim lowers today, once: 59 with families19's Kimi-Linear, 61 with
        // families18's GLM-4.1V and Arcee, 62 with families20's Falcon-H1, 65 with families21's Apertus,
        // MiniCPM and MiniCPM3, 67 with families22's LFM2 and LFM2-MoE, 68 with families23's
        // MiMo-V2-Flash, 69 with families24's Grok-1 / Grok-2, 70 with families25's LongCat-Flash, 71 with
        // families27's MiniMax-Text-01 / M1, 72 with families28's Step-3.5-Flash, 73 with families30's
        // Gemma 4, 74 with families32's Kimi-K3, 75 with families31's Mistral Large 3, 76 with
        // families36's Hy3, 77 with dsv4run55's DeepSeek-V4, 78 with families38's MiniMax-M3.
        assert_eq!(all.len(), 78);
        assert_eq!(Level::Approximate.as_str(), "approx.");
    }
}

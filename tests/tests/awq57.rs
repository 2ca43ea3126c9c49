//! awq57 (issue #17/#18): cloudrift-ai/server-benchmark's GLM-4.5-Air AWQ rows
//! (`results/rtx4900_rtx5900_pro6000_08_10_2025/`, commit f8e34f1): cpatonn/GLM-4.5-Air-AWQ-4bit under vLLM
//! (docker `vllm/vllm-openai:latest` on 2025-10-08, v0.11.0 assumed), random 1000/1000, 1,200 prompts:
//! `tensor-parallel/rtx5090_x_4_…` (TP 4 with `--enable-expert-parallel`, c 200, `--max-num-seqs 192`) and the
//! pipeline-parallel `rtx5090_x_4_…` (PP 4), `rtx4090_x_4_…` (PP 4) and `l40s_x_2_…` (PP 2), c 400.
//!
//! **Why tpsim refused TP 4, and what the engine's rule is.** deploys32 read the repository's other AWQ rows'
//! layout (int4 group 128 on every decoder linear) into this checkpoint: layer 0's dense MLP is 10,944 wide,
//! 2,736 a rank at tp 4, not a multiple of 128 (nor of 32: 2,736 = 85 × 32 + 16), and tpsim refuses a
//! quantized shard that does not hold whole groups. vLLM 0.11.0's rule for a compressed-tensors W4A16 linear
//! layer is stricter, not looser: `kernels/mixed_precision/__init__.py` `choose_mp_linear_kernel` tries
//! CUTLASS W4A8 and Machete (SM 9.0 only), AllSpark (SM 8.x only, `utils/allspark_utils.py`), Marlin, then
//! Exllama and the optional BitBLAS / Conch, and raises "Failed to find a kernel that can implement the WNA16
//! linear layer." when none can; Marlin (`utils/marlin_utils.py` `verify_marlin_supports_shape`) needs the
//! output shard a multiple of `GPTQ_MARLIN_MIN_THREAD_N` = 64 and the input shard a multiple of
//! `GPTQ_MARLIN_MIN_THREAD_K` = 128 and of the group, and Exllama (`exllama.py` `can_implement`) "only
//! supports float16 activations". vLLM pull request 43731 (merged 2026-05-27) lists the same gap on
//! Ampere and adds `TritonW4A16LinearKernel` to CUDA's list: in the wheels from 0.23.0
//! (`kernels/linear/__init__.py` `_POSSIBLE_KERNELS`; 0.20.0 and 0.22.0 list it for ROCm only), not
//! modelled by release here. So on an RTX 5090 (SM 12.0) with bf16 activations an
//! int4 down-projection whose input shard is not a multiple of 128 does not load at all: layer 0's (10,944
//! at tp 1, 10,944 % 128 = 64; 2,736 at tp 4) and the shared expert's at tp 4 (1,408 / 4 = 352, 352 % 128 =
//! 96). The runs at tp 1 (`pro6000_x_1_…`, not taken: one GPU) and tp 4 completed, so the checkpoint does not
//! store those layers int4 for Marlin. The routed experts take vLLM's MoE Marlin path
//! (`check_moe_marlin_supports_layer`: intermediate shard a multiple of max(64, group)); with expert
//! parallelism they stay whole (1,408).
//!
//! **The layout** (cpatonn's `quantization_config` was not found in the stored corpora; ASSUMED from the
//! evidence): int4 group 32, asymmetric, bf16 scales on the attention projections and the routed experts;
//! layer 0's dense MLP and the shared experts bf16; KV fp8 (`--kv-cache-dtype fp8`). Group 32: the checkpoint
//! is 63.4 GB (59.07 GiB) by two public notes (code index ids 70317827448 and 59758038658), 63.5 – 64.8 GB by
//! hand under group 32 and 57.3 – 58.7 GB under group 128 ([`the_checkpoint_size_points_at_group_32`]); and
//! the author's later card for the same network (hf.ixdev.cn/cyankiwi/GLM-4.5-Air-Derestricted-AWQ-4bit:
//! "tensor-parallel-size > 2 requires --enable-expert-parallel") is vLLM's MoE Marlin rule under group 32
//! (704 % 64 = 0 at tp 2, 352 % 64 = 32 at tp 4) and not under 128 (704 % 128 = 64 fails at tp 2 already).
//! Which of bf16 dense/shared layers or a float16 checkpoint (Exllama would then take them) the author chose
//! is not settled: the size by hand fits all-int4 slightly better (63.52 GB against 64.82), which only a
//! float16 checkpoint would load. tpsim has no float16-activation Exllama path; the bf16 layout is used.
//!
//! **What is compared**: each file's "Output token throughput" against tpsim's end-to-end output rate,
//! default (uncalibrated) profile, held to [`TARGET`](crate::throughput_rows::TARGET). As run (before the
//! lead re-blesses): PP 4 on 4× RTX 5090 2,378.1 against 2,312.83 (+2.8 %), PP 4 on 4× RTX 4090 996.6
//! against 866.39 (+15.0 %), PP 2 on 2× L40S 954.0 against 829.12 (+15.1 %); TP 4 EP on 4× RTX 5090 3,570.0
//! against 1,153.51 (+209.5 %), a known miss (`throughput_rows::AWQ57_GLM_AIR_TP4_MISS`).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. [`every_awq57_row_is_compared`] fails
//! if a row of this source is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate_e2e_row;
use tpsim_model::llm::{ModelSpec, Quantization};

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const AWQ57_SOURCES: &[(&str, &str)] = &[(
    "github.com/cloudrift-ai/server-benchmark results/rtx4900_rtx5900_pro6000_08_10_2025",
    "GLM-4.5-Air",
)];

/// The TP 4 scenario.
const TP4: &str = "validation/glm-4.5-air-awq-rtx5090x4-vllm-0.11-tp4-ep-c200.toml";

/// The label of the TP 4 row ([`validate`] files it under this; `throughput_rows::KNOWN_MISSES` names it).
pub(crate) const TP4_LABEL: &str = "GLM-4.5-Air AWQ, vLLM 0.11, 4x RTX 5090 TP 4 EP, c 200, 1k/1k";

/// GLM-4.5-Air (the `glm-4.5-air` preset) with the quantization `toml` (quant.toml keys).
fn air(toml_text: &str) -> ModelSpec {
    let q: Quantization = toml::from_str(toml_text).expect("quantization");
    let text = std::fs::read_to_string(scenario("models/glm-4.5-air/config.json")).expect("config");
    ModelSpec::from_config_json(&text, q).expect("GLM-4.5-Air")
}

/// The assumed layout (the scenarios' `[model] quantization`).
const ASSUMED: &str = "dtype = \"int4\"\ngroup_size = 32\nscale_dtype = \"bf16\"\nzero_point = true\n\
                       dense_mlp = { dtype = \"bf16\" }\nshared_experts = { dtype = \"bf16\" }\n\
                       kv_cache_dtype = \"fp8_e4m3\"\n";

/// Every decoder linear int4 at group `g` (the layout deploys32 read into the checkpoint at g = 128).
fn all_int4(g: u32) -> String {
    format!("dtype = \"int4\"\ngroup_size = {g}\nscale_dtype = \"bf16\"\nzero_point = true\n")
}

/// The shard rule as tpsim applies it. All-int4 at tp 4 is refused at group 128 and at group 32 on layer 0's
/// dense MLP: 10,944 / 4 = 2,736 a rank; 2,736 % 128 = 48 and 2,736 % 32 = 16 (vLLM 0.11.0 would refuse it
/// too, on Marlin's 128: see the module doc). The assumed layout loads at tp 4 with expert parallelism (the
/// run), and at tp 1 (the PP rows' stages): its int4 shards are the attention's (q 12,288 / 4 = 3,072 rows,
/// o's input 3,072: both multiples of 32 and of Marlin's 64 / 128) and the whole routed experts (1,408 =
/// 44 × 32; 11 × 128 for MoE Marlin's max(64, 32) = 64 → 22 × 64).
#[test]
fn the_shard_rule_at_tp_4() {
    for g in [128, 32] {
        let e = air(&all_int4(g))
            .validate_parallel(4, 4)
            .expect_err("all int4 at tp 4");
        let s = e.to_string();
        assert!(s.contains("10944 / tp 4 = 2736"), "g {g}: {s}");
        assert!(s.contains(&format!("group/block of {g}")), "g {g}: {s}");
    }
    let a = air(ASSUMED);
    a.validate_parallel(4, 4).expect("the assumed layout at tp 4, EP");
    a.validate_parallel(1, 1).expect("the assumed layout at tp 1");
    // The arithmetic the doc states: Marlin's min_thread_k 128 against the two down-projections.
    assert_eq!((10_944 % 128, 2_736 % 128, 352 % 128), (64, 48, 96));
    // MoE Marlin under group 32 (max(64, 32) = 64): tp 2 passes, tp 4 does not — the card's "tp > 2
    // requires --enable-expert-parallel"; under group 128 tp 2 fails already.
    assert_eq!((1_408 / 2 % 64, 1_408 / 4 % 64, 1_408 / 2 % 128), (0, 32, 64));
}

/// The checkpoint is 63.4 GB (59.07 GiB; the module doc's two notes). tpsim's weights at tp 1 under the
/// assumed layout, by hand: routed experts 45 layers × 128 × 3 × 4,096 × 1,408 = 99,656,294,400 parameters
/// at 0.5 + 2/32 + 0.5/32 = 0.578125 B (int4, a bf16 scale and a packed int4 zero point a group of 32) =
/// 57.61 GB; attention 46 × (4,096 × 14,336 + 12,288 × 4,096) = 5,016,387,584 at 0.578125 = 2.90 GB; shared
/// experts 45 × 17,301,504 and the dense MLP 134,479,872 at 2 B = 1.83 GB; embeddings and LM head 2 × 151,552
/// × 4,096 × 2 B = 2.48 GB; norms, biases and routers 0.05 GB: 64.87 GB, +2.3 % over 63.4. Under group 128
/// the same layout is 58.7 GB (−7.4 %). Fails if tpsim's bytes leave 62.5 – 66.5 GB.
#[test]
fn the_checkpoint_size_points_at_group_32() {
    let gb = |q: &str| air(q).weight_bytes_per_rank(1).0 as f64 / 1e9;
    let g32 = gb(ASSUMED);
    assert!((62.5..66.5).contains(&g32), "group 32: {g32} GB");
    let g128 = gb(&ASSUMED.replace("group_size = 32", "group_size = 128"));
    assert!(g128 < 60.0, "group 128: {g128} GB");
}

/// Runs `validation/glm-4.5-air-awq-{file}.toml` and holds its end-to-end output rate to the row whose notes
/// start with `note` (its measured value checked against the figure the file prints).
fn compare(label: &str, note: &str, printed: f64, file: &str) {
    let (src, model) = AWQ57_SOURCES[0];
    validate_e2e_row(
        (src, model),
        (note, printed),
        &format!("glm-4.5-air-awq-{file}.toml"),
        label,
        1.0,
    );
}

#[test]
pub(crate) fn validation_glm_air_awq_rtx5090x4_vllm_tp4_ep() {
    // tensor-parallel/rtx5090_x_4: "Output token throughput (tok/s): 1153.51" at 200 in flight.
    compare(
        TP4_LABEL,
        "4x RTX 5090 TP 4 EP conc 200:",
        1153.51,
        "rtx5090x4-vllm-0.11-tp4-ep-c200",
    );
}

#[test]
pub(crate) fn validation_glm_air_awq_rtx5090x4_vllm_pp4() {
    // rtx5090_x_4: "Output token throughput (tok/s): 2312.83" at 400 in flight.
    compare(
        "GLM-4.5-Air AWQ, vLLM 0.11, 4x RTX 5090 PP 4, c 400, 1k/1k",
        "4x RTX 5090 PP 4 conc 400:",
        2312.83,
        "rtx5090x4-vllm-0.11-pp4-c400",
    );
}

#[test]
pub(crate) fn validation_glm_air_awq_rtx4090x4_vllm_pp4() {
    // rtx4090_x_4: "Output token throughput (tok/s): 866.39" at 400 in flight.
    compare(
        "GLM-4.5-Air AWQ, vLLM 0.11, 4x RTX 4090 PP 4, c 400, 1k/1k",
        "4x RTX 4090 PP 4 conc 400:",
        866.39,
        "rtx4090x4-vllm-0.11-pp4-c400",
    );
}

#[test]
pub(crate) fn validation_glm_air_awq_l40sx2_vllm_pp2() {
    // l40s_x_2: "Output token throughput (tok/s): 829.12" at 400 in flight.
    compare(
        "GLM-4.5-Air AWQ, vLLM 0.11, 2x L40S PP 2, c 400, 1k/1k",
        "2x L40S PP 2 conc 400:",
        829.12,
        "l40sx2-vllm-0.11-pp2-c400",
    );
}

/// The TP 4 scenario runs its file's launch: tp 4 with expert parallelism, 192 sequences, 200 in flight,
/// 1,200 prompts of 1,000 output tokens, KV fp8, vLLM 0.11.0.
#[test]
fn tp4_scenario_runs_the_files_launch() {
    let text = std::fs::read_to_string(scenario(TP4)).expect("scenario");
    assert_eq!(scenario_int_key(&text, "tp"), 4);
    assert!(text.contains("enable_expert_parallel = true\n"));
    assert_eq!(scenario_int_key(&text, "max_num_seqs"), 192);
    assert_eq!(scenario_int_key(&text, "max_model_len"), 8192);
    assert_eq!(scenario_int_key(&text, "concurrency"), 200);
    assert_eq!(scenario_int_key(&text, "num_requests"), 1200);
    assert_eq!(scenario_int_key(&text, "output_len"), 1000);
    assert!(text.contains("kv_cache_dtype = \"fp8_e4m3\""));
    assert!(text.contains("version = \"0.11.0\""));
}

#[test]
fn every_awq57_row_is_compared() {
    // Four rows of the directory (TP 4 EP and three PP runs); the tests above compare each once.
    assert_eq!(throughput_rows_per_source(AWQ57_SOURCES), [4]);
}

//! The decode-throughput totals the README and the book state, and the book's table of every
//! compared row, computed here from the comparisons themselves (no figure typed by hand).
//!
//! [`decode_totals_and_rows_table_match_the_book`] runs every row test of the `throughput_*` suites
//! ([`ROW_TESTS`]; [`every_row_test_is_counted`] fails when a suite grows one the list lacks), collects
//! what each passed to `throughput_rows::validate` (label, measured, predicted, error) and checks:
//! - book/src/validation.md states "**W of N compared rows are within ±20 %; the median |error| is M %**
//!   (out-of-sample only, leaving out the K in-sample rows: W' of N', median M' %)", and README.md the
//!   same figures ("W of N measured decode rates are within ±20 % (median |error| M %; out-of-sample
//!   only, W' of N' and M' %");
//! - the table between `<!-- throughput-rows:begin -->` and `<!-- throughput-rows:end -->` in
//!   validation.md is the one these comparisons give, and so are the by-GPU and by-family tables between
//!   `<!-- throughput-groups:begin -->` and `<!-- throughput-groups:end -->` ([`gpu_of`], [`family_of`]
//!   place each row by its label) (`TPSIM_BLESS_BOOK=1` rewrites both; review the diff).
//!
//! Errors are counted as the table prints them (rounded to 0.1 %); the median of an even count is the
//! mean of the middle two. The in-sample rows are `throughput_rows::IN_SAMPLE`. The vLLM rows of
//! `tests/data/moe-backend-sm120.tsv` (voipmonitor; `moe_backend_sm120.rs`) are another table, compared
//! on their own in the book, and not counted here.
//!
//! The test is `#[ignore]`d because it runs every row a second time (about 200 s of CPU in a debug
//! build); `.ci/run` runs it: `cargo test -p tpsim-tests --test integration throughput_totals -- --ignored`.

use crate::throughput_rows::{COMPARED, Compared, IN_SAMPLE, KNOWN_MISSES, TARGET};

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Every test of the `throughput_*` suites that compares rows through `validate`, in the order the
/// book's table lists them.
const ROW_TESTS: &[(&str, fn())] = &[
    (
        "throughput_rows::validation_minimax_m25_nvfp4_sglang_2x_rtx_pro_6000_bs1",
        crate::throughput_rows::validation_minimax_m25_nvfp4_sglang_2x_rtx_pro_6000_bs1,
    ),
    (
        "throughput_rows::validation_minimax_m25_awq_vllm_2x_rtx_pro_6000_bs1",
        crate::throughput_rows::validation_minimax_m25_awq_vllm_2x_rtx_pro_6000_bs1,
    ),
    (
        "throughput_rows::validation_minimax_m25_fp8_sglang_4x_rtx_pro_6000_bs1",
        crate::throughput_rows::validation_minimax_m25_fp8_sglang_4x_rtx_pro_6000_bs1,
    ),
    (
        "throughput_rows::validation_minimax_m25_fp8_ep_sglang_8x_rtx_pro_6000_bs1",
        crate::throughput_rows::validation_minimax_m25_fp8_ep_sglang_8x_rtx_pro_6000_bs1,
    ),
    (
        "throughput_rows::validation_llama_13b_fp16_vllm_2x_a30_bs32_nccl_and_custom_allreduce",
        crate::throughput_rows::validation_llama_13b_fp16_vllm_2x_a30_bs32_nccl_and_custom_allreduce,
    ),
    (
        "throughput_qwen35::validation_sglang_nvfp4_tp4_batch1_nccl",
        crate::throughput_qwen35::validation_sglang_nvfp4_tp4_batch1_nccl,
    ),
    (
        "throughput_qwen35::validation_sglang_nvfp4_tp4_pcie_oneshot_allreduce",
        crate::throughput_qwen35::validation_sglang_nvfp4_tp4_pcie_oneshot_allreduce,
    ),
    (
        "throughput_qwen35::validation_vllm_nvfp4_tp4_no_mtp",
        crate::throughput_qwen35::validation_vllm_nvfp4_tp4_no_mtp,
    ),
    (
        "throughput_qwen35_mtp::validation_vllm_mtp2_ratio_and_absolute",
        crate::throughput_qwen35_mtp::validation_vllm_mtp2_ratio_and_absolute,
    ),
    (
        "throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp1_c8",
        crate::throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp1_c8,
    ),
    (
        "throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp2_c8",
        crate::throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp2_c8,
    ),
    (
        "throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp1_c16",
        crate::throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp1_c16,
    ),
    (
        "throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp2_c16",
        crate::throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp2_c16,
    ),
    (
        "throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp1_c32",
        crate::throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp1_c32,
    ),
    (
        "throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp2_c32",
        crate::throughput_breadth::validation_qwen25_7b_a100_pcie_vllm_tp2_c32,
    ),
    (
        "throughput_breadth::validation_gpt_oss_120b_h100_vllm_tp2_c64",
        crate::throughput_breadth::validation_gpt_oss_120b_h100_vllm_tp2_c64,
    ),
    (
        "throughput_breadth::validation_gpt_oss_120b_h100_vllm_tp4_c64",
        crate::throughput_breadth::validation_gpt_oss_120b_h100_vllm_tp4_c64,
    ),
    (
        "throughput_breadth::validation_gpt_oss_120b_h100_vllm_tp8_c4",
        crate::throughput_breadth::validation_gpt_oss_120b_h100_vllm_tp8_c4,
    ),
    (
        "throughput_breadth::validation_gpt_oss_120b_h100_vllm_tp8_c64",
        crate::throughput_breadth::validation_gpt_oss_120b_h100_vllm_tp8_c64,
    ),
    (
        "throughput_breadth::validation_qwen3_14b_awq_a100_vllm_eager_c1",
        crate::throughput_breadth::validation_qwen3_14b_awq_a100_vllm_eager_c1,
    ),
    (
        "throughput_breadth::validation_qwen3_8b_rtx4090_vllm_c1",
        crate::throughput_breadth::validation_qwen3_8b_rtx4090_vllm_c1,
    ),
    (
        "throughput_breadth::validation_llama_3_1_8b_a100_40gb_vllm_c1",
        crate::throughput_breadth::validation_llama_3_1_8b_a100_40gb_vllm_c1,
    ),
    (
        "throughput_breadth::validation_qwen3_32b_bf16_a100_pcie_vllm_eager",
        crate::throughput_breadth::validation_qwen3_32b_bf16_a100_pcie_vllm_eager,
    ),
    (
        "throughput_breadth::validation_qwen3_32b_awq_a100_pcie_vllm_eager",
        crate::throughput_breadth::validation_qwen3_32b_awq_a100_pcie_vllm_eager,
    ),
    (
        "throughput_newdeploys::validation_qwen25_72b_h100_vllm_tp2_c1",
        crate::throughput_newdeploys::validation_qwen25_72b_h100_vllm_tp2_c1,
    ),
    (
        "throughput_newdeploys::validation_kimi_k25_vllm_rtx6000x8_dcp1",
        crate::throughput_newdeploys::validation_kimi_k25_vllm_rtx6000x8_dcp1,
    ),
    (
        "throughput_newdeploys::validation_kimi_k25_vllm_rtx6000x8_dcp8",
        crate::throughput_newdeploys::validation_kimi_k25_vllm_rtx6000x8_dcp8,
    ),
    (
        "throughput_newdeploys::validation_llama31_70b_awq_rtx3090ti_vllm",
        crate::throughput_newdeploys::validation_llama31_70b_awq_rtx3090ti_vllm,
    ),
    (
        "throughput_newdeploys::validation_deepseek_r1_fp8_h200_sglang_tp8",
        crate::throughput_newdeploys::validation_deepseek_r1_fp8_h200_sglang_tp8,
    ),
    (
        "throughput_newdeploys3::validation_gpt_oss_120b_h100_vllm_0_10_2_tp2_sharegpt_c4",
        crate::throughput_newdeploys3::validation_gpt_oss_120b_h100_vllm_0_10_2_tp2_sharegpt_c4,
    ),
    (
        "throughput_newdeploys3::validation_gpt_oss_120b_h100_vllm_0_10_2_tp2_bursts",
        crate::throughput_newdeploys3::validation_gpt_oss_120b_h100_vllm_0_10_2_tp2_bursts,
    ),
    (
        "throughput_newdeploys3::validation_qwen3_235b_h100_vllm_tp8_bursts",
        crate::throughput_newdeploys3::validation_qwen3_235b_h100_vllm_tp8_bursts,
    ),
    (
        "throughput_newdeploys3::validation_qwen3_235b_fp8_h100_vllm_tp4_bursts",
        crate::throughput_newdeploys3::validation_qwen3_235b_fp8_h100_vllm_tp4_bursts,
    ),
    (
        "throughput_newdeploys3::validation_minimax_m25_nvfp4_vllm_rtx6000",
        crate::throughput_newdeploys3::validation_minimax_m25_nvfp4_vllm_rtx6000,
    ),
    (
        "throughput_newdeploys4::validation_gpt_oss_120b_mi300x_vllm_0_17_tp1",
        crate::throughput_newdeploys4::validation_gpt_oss_120b_mi300x_vllm_0_17_tp1,
    ),
    (
        "throughput_newdeploys4::validation_gpt_oss_120b_mi300x_vllm_0_17_tp8_c1",
        crate::throughput_newdeploys4::validation_gpt_oss_120b_mi300x_vllm_0_17_tp8_c1,
    ),
    (
        "throughput_newdeploys4::validation_minimax_m25_fp8_h100_vllm_0_16_tp4_ep4_c4",
        crate::throughput_newdeploys4::validation_minimax_m25_fp8_h100_vllm_0_16_tp4_ep4_c4,
    ),
    (
        "throughput_newdeploys5::validation_llama33_70b_awq_rtx5090x2_vllm_pp2",
        crate::throughput_newdeploys5::validation_llama33_70b_awq_rtx5090x2_vllm_pp2,
    ),
    (
        "throughput_newdeploys5::validation_llama33_70b_awq_rtx4090x2_vllm_pp2",
        crate::throughput_newdeploys5::validation_llama33_70b_awq_rtx4090x2_vllm_pp2,
    ),
    (
        "throughput_newdeploys5::validation_llama33_70b_awq_rtx5090x4_vllm_2x_pp2",
        crate::throughput_newdeploys5::validation_llama33_70b_awq_rtx5090x4_vllm_2x_pp2,
    ),
    (
        "throughput_newdeploys5::validation_llama33_70b_awq_rtx4090x4_vllm_2x_pp2",
        crate::throughput_newdeploys5::validation_llama33_70b_awq_rtx4090x4_vllm_2x_pp2,
    ),
    (
        "throughput_newdeploys5::validation_llama33_70b_awq_pro6000_vllm_tp1",
        crate::throughput_newdeploys5::validation_llama33_70b_awq_pro6000_vllm_tp1,
    ),
    (
        "throughput_newdeploys6::validation_qwen3_8b_h100_vllm_0_11_sharegpt_c4",
        crate::throughput_newdeploys6::validation_qwen3_8b_h100_vllm_0_11_sharegpt_c4,
    ),
    (
        "throughput_newdeploys6::validation_qwen3_8b_h100_sglang_0_5_3_sharegpt_c4",
        crate::throughput_newdeploys6::validation_qwen3_8b_h100_sglang_0_5_3_sharegpt_c4,
    ),
    (
        "throughput_newdeploys6::validation_qwen3_8b_fp8_h100_sglang_0_5_3_sharegpt_c4",
        crate::throughput_newdeploys6::validation_qwen3_8b_fp8_h100_sglang_0_5_3_sharegpt_c4,
    ),
    (
        "throughput_newdeploys6::validation_qwen3_14b_a100_vllm_0_11_bursts",
        crate::throughput_newdeploys6::validation_qwen3_14b_a100_vllm_0_11_bursts,
    ),
    (
        "throughput_newdeploys6::validation_qwen3_14b_h100_vllm_0_11_bursts",
        crate::throughput_newdeploys6::validation_qwen3_14b_h100_vllm_0_11_bursts,
    ),
    (
        "throughput_newdeploys7::validation_qwen3_32b_a100_vllm_0_11_bursts",
        crate::throughput_newdeploys7::validation_qwen3_32b_a100_vllm_0_11_bursts,
    ),
    (
        "throughput_newdeploys7::validation_gpt_oss_20b_h100_vllm_0_11_bursts",
        crate::throughput_newdeploys7::validation_gpt_oss_20b_h100_vllm_0_11_bursts,
    ),
    (
        "throughput_newdeploys7::validation_gpt_oss_20b_a100_vllm_0_11_bursts",
        crate::throughput_newdeploys7::validation_gpt_oss_20b_a100_vllm_0_11_bursts,
    ),
    (
        "throughput_newdeploys8::validation_qwen3_next_b200_vllm_tp4_c256",
        crate::throughput_newdeploys8::validation_qwen3_next_b200_vllm_tp4_c256,
    ),
    (
        "throughput_newdeploys8::validation_qwen3_8b_mi300x_vllm_tp1_c32",
        crate::throughput_newdeploys8::validation_qwen3_8b_mi300x_vllm_tp1_c32,
    ),
    (
        "throughput_newdeploys8::validation_llama_3_3_70b_fp8_mi355x_vllm_tp1_c64",
        crate::throughput_newdeploys8::validation_llama_3_3_70b_fp8_mi355x_vllm_tp1_c64,
    ),
    (
        "throughput_newdeploys8::validation_qwen3_next_h200_sglang_c8",
        crate::throughput_newdeploys8::validation_qwen3_next_h200_sglang_c8,
    ),
    (
        "throughput_newdeploys8::validation_qwen3_next_h20_sglang_c32",
        crate::throughput_newdeploys8::validation_qwen3_next_h20_sglang_c32,
    ),
    (
        "throughput_newdeploys8::validation_deepseek_v3_h20_sglang_tp8_c8",
        crate::throughput_newdeploys8::validation_deepseek_v3_h20_sglang_tp8_c8,
    ),
    (
        "throughput_newdeploys9::validation_a40_vllm_c50",
        crate::throughput_newdeploys9::validation_a40_vllm_c50,
    ),
    (
        "throughput_newdeploys9::validation_rtx_3090_x2_vllm_tp2",
        crate::throughput_newdeploys9::validation_rtx_3090_x2_vllm_tp2,
    ),
    (
        "throughput_newdeploys9::validation_llama_3_1_8b_l4_vllm_sharegpt",
        crate::throughput_newdeploys9::validation_llama_3_1_8b_l4_vllm_sharegpt,
    ),
    (
        "throughput_newdeploys11::validation_gpt_oss_120b_a100_vllm_0_11_bursts",
        crate::throughput_newdeploys11::validation_gpt_oss_120b_a100_vllm_0_11_bursts,
    ),
    (
        "throughput_newdeploys11::validation_deepseek_v32_h200_vllm_0_13_bursts",
        crate::throughput_newdeploys11::validation_deepseek_v32_h200_vllm_0_13_bursts,
    ),
    (
        "throughput_newdeploys11::validation_deepseek_r1_h200_vllm_0_11_bursts",
        crate::throughput_newdeploys11::validation_deepseek_r1_h200_vllm_0_11_bursts,
    ),
    (
        "throughput_newdeploys11::validation_gpustack_sharegpt_c4_a100_h200",
        crate::throughput_newdeploys11::validation_gpustack_sharegpt_c4_a100_h200,
    ),
    (
        "throughput_newdeploys12::validation_glm_4_6_fp8_rtx_pro_6000_x8_tp8",
        crate::throughput_newdeploys12::validation_glm_4_6_fp8_rtx_pro_6000_x8_tp8,
    ),
    (
        "throughput_newdeploys12::validation_glm_4_6_fp8_rtx_pro_6000_x8_pp8",
        crate::throughput_newdeploys12::validation_glm_4_6_fp8_rtx_pro_6000_x8_pp8,
    ),
    (
        "throughput_newdeploys12::validation_glm_4_6_h200_x8_tp8",
        crate::throughput_newdeploys12::validation_glm_4_6_h200_x8_tp8,
    ),
    (
        "throughput_newdeploys13::validation_qwen3_coder_30b_awq_rtx4090_vllm",
        crate::throughput_newdeploys13::validation_qwen3_coder_30b_awq_rtx4090_vllm,
    ),
    (
        "throughput_newdeploys13::validation_qwen3_coder_30b_awq_rtx5090_vllm",
        crate::throughput_newdeploys13::validation_qwen3_coder_30b_awq_rtx5090_vllm,
    ),
    (
        "throughput_newdeploys13::validation_qwen3_coder_30b_awq_pro6000_l40s_vllm",
        crate::throughput_newdeploys13::validation_qwen3_coder_30b_awq_pro6000_l40s_vllm,
    ),
    (
        "throughput_newdeploys14::validation_r1_distill_llama_8b_rtx4090_vllm_0_8_5",
        crate::throughput_newdeploys14::validation_r1_distill_llama_8b_rtx4090_vllm_0_8_5,
    ),
    (
        "throughput_newdeploys14::validation_r1_distill_qwen_7b_rtx4090_vllm_0_8_5",
        crate::throughput_newdeploys14::validation_r1_distill_qwen_7b_rtx4090_vllm_0_8_5,
    ),
    (
        "throughput_newdeploys14::validation_llama_8b_qwen_7b_h100_pcie_vllm_0_8_5",
        crate::throughput_newdeploys14::validation_llama_8b_qwen_7b_h100_pcie_vllm_0_8_5,
    ),
    (
        "throughput_newdeploys15::validation_r1_distill_qwen_14b_rtx4090_vllm_0_8_5",
        crate::throughput_newdeploys15::validation_r1_distill_qwen_14b_rtx4090_vllm_0_8_5,
    ),
    (
        "throughput_newdeploys15::validation_qwen2_5_32b_h100_pcie_vllm_0_8_5",
        crate::throughput_newdeploys15::validation_qwen2_5_32b_h100_pcie_vllm_0_8_5,
    ),
    (
        "throughput_newdeploys15::validation_llama_70b_h100_pcie_x2_vllm_0_8_5",
        crate::throughput_newdeploys15::validation_llama_70b_h100_pcie_x2_vllm_0_8_5,
    ),
    (
        "throughput_newdeploys15::validation_iog_light_load_vllm_0_8_5",
        crate::throughput_newdeploys15::validation_iog_light_load_vllm_0_8_5,
    ),
    (
        "throughput_newdeploys16::validation_llama_3_3_70b_sglang_h200x4_online",
        crate::throughput_newdeploys16::validation_llama_3_3_70b_sglang_h200x4_online,
    ),
    (
        "throughput_newdeploys16::validation_llama_3_3_70b_sglang_h200x4_bursts",
        crate::throughput_newdeploys16::validation_llama_3_3_70b_sglang_h200x4_bursts,
    ),
    (
        "throughput_newdeploys16::validation_minimax_m2_5_fp8_sglang_h100x8_tp8_ep8",
        crate::throughput_newdeploys16::validation_minimax_m2_5_fp8_sglang_h100x8_tp8_ep8,
    ),
    (
        "throughput_newdeploys16::validation_minimax_m2_5_fp8_sglang_b200x8_tp8_ep8",
        crate::throughput_newdeploys16::validation_minimax_m2_5_fp8_sglang_b200x8_tp8_ep8,
    ),
    (
        "throughput_newdeploys17::validation_glm_4_6_sglang_b200x8_tp8",
        crate::throughput_newdeploys17::validation_glm_4_6_sglang_b200x8_tp8,
    ),
    (
        "throughput_newdeploys17::validation_qwen3_235b_sglang_b200x8_tp8",
        crate::throughput_newdeploys17::validation_qwen3_235b_sglang_b200x8_tp8,
    ),
    (
        "throughput_newdeploys17::validation_qwen3_next_sglang_b200_tp8_tp2",
        crate::throughput_newdeploys17::validation_qwen3_next_sglang_b200_tp8_tp2,
    ),
    (
        "throughput_newdeploys17::validation_gpt_oss_120b_sglang_b200x8_tp8",
        crate::throughput_newdeploys17::validation_gpt_oss_120b_sglang_b200x8_tp8,
    ),
    (
        "throughput_newdeploys18::validation_kimi_k2_5_sglang_h200x8_tp8",
        crate::throughput_newdeploys18::validation_kimi_k2_5_sglang_h200x8_tp8,
    ),
    (
        "throughput_newdeploys18::validation_deepseek_r1_sglang_b200x8_tp8",
        crate::throughput_newdeploys18::validation_deepseek_r1_sglang_b200x8_tp8,
    ),
    (
        "throughput_newdeploys18::validation_glm_4_7_flash_sglang_b200x1_tp1",
        crate::throughput_newdeploys18::validation_glm_4_7_flash_sglang_b200x1_tp1,
    ),
    (
        "throughput_newdeploys19::validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k",
        crate::throughput_newdeploys19::validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k,
    ),
    (
        "throughput_newdeploys19::validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_c4",
        crate::throughput_newdeploys19::validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_c4,
    ),
    (
        "throughput_newdeploys19::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k",
        crate::throughput_newdeploys19::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k,
    ),
    (
        "throughput_newdeploys19::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c4",
        crate::throughput_newdeploys19::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c4,
    ),
    (
        "throughput_newdeploys20::validation_gpt_oss_20b_vllm_pro6000x1_1k_c1",
        crate::throughput_newdeploys20::validation_gpt_oss_20b_vllm_pro6000x1_1k_c1,
    ),
    (
        "throughput_newdeploys20::validation_gpt_oss_20b_vllm_pro6000x1_1k_c5",
        crate::throughput_newdeploys20::validation_gpt_oss_20b_vllm_pro6000x1_1k_c5,
    ),
    (
        "throughput_newdeploys20::validation_gpt_oss_20b_vllm_pro6000x1_128k_c1",
        crate::throughput_newdeploys20::validation_gpt_oss_20b_vllm_pro6000x1_128k_c1,
    ),
    (
        "throughput_newdeploys21::validation_qwen3_coder_next_fp8_vllm_h200x1_1k_c1",
        crate::throughput_newdeploys21::validation_qwen3_coder_next_fp8_vllm_h200x1_1k_c1,
    ),
    (
        "throughput_newdeploys21::validation_qwen3_coder_next_fp8_vllm_h200x1_1k_c10",
        crate::throughput_newdeploys21::validation_qwen3_coder_next_fp8_vllm_h200x1_1k_c10,
    ),
    (
        "throughput_newdeploys21::validation_qwen3_coder_next_fp8_vllm_h200x1_256k_c1",
        crate::throughput_newdeploys21::validation_qwen3_coder_next_fp8_vllm_h200x1_256k_c1,
    ),
    (
        "throughput_newdeploys22::validation_kimi_linear_sglang_mi300x4_tp4_c1",
        crate::throughput_newdeploys22::validation_kimi_linear_sglang_mi300x4_tp4_c1,
    ),
    (
        "throughput_newdeploys22::validation_kimi_linear_sglang_mi300x4_tp4_c16",
        crate::throughput_newdeploys22::validation_kimi_linear_sglang_mi300x4_tp4_c16,
    ),
    (
        "throughput_newdeploys22::validation_kimi_linear_sglang_mi300x4_tp4_c100",
        crate::throughput_newdeploys22::validation_kimi_linear_sglang_mi300x4_tp4_c100,
    ),
    (
        "throughput_newdeploys22::validation_ernie_4_5_sglang_mi300x1_tp1_c1",
        crate::throughput_newdeploys22::validation_ernie_4_5_sglang_mi300x1_tp1_c1,
    ),
    (
        "throughput_newdeploys22::validation_ernie_4_5_sglang_mi300x1_tp1_c16",
        crate::throughput_newdeploys22::validation_ernie_4_5_sglang_mi300x1_tp1_c16,
    ),
    (
        "throughput_newdeploys22::validation_ernie_4_5_sglang_mi300x1_tp1_c100",
        crate::throughput_newdeploys22::validation_ernie_4_5_sglang_mi300x1_tp1_c100,
    ),
    (
        "throughput_newdeploys23::validation_glm_4_6_h200x8_vllm_0_11_burst_4k",
        crate::throughput_newdeploys23::validation_glm_4_6_h200x8_vllm_0_11_burst_4k,
    ),
    (
        "throughput_newdeploys23::validation_glm_4_6_h200x8_vllm_0_11_burst_2k",
        crate::throughput_newdeploys23::validation_glm_4_6_h200x8_vllm_0_11_burst_2k,
    ),
    (
        "throughput_newdeploys23::validation_glm_4_6_h200x8_vllm_0_11_sharegpt_c4",
        crate::throughput_newdeploys23::validation_glm_4_6_h200x8_vllm_0_11_sharegpt_c4,
    ),
    (
        "throughput_newdeploys23::validation_glm_4_6_fp8_h200x4_sglang_0_5_3_burst_4k",
        crate::throughput_newdeploys23::validation_glm_4_6_fp8_h200x4_sglang_0_5_3_burst_4k,
    ),
    (
        "throughput_newdeploys23::validation_glm_4_6_fp8_h200x4_sglang_0_5_3_burst_2k",
        crate::throughput_newdeploys23::validation_glm_4_6_fp8_h200x4_sglang_0_5_3_burst_2k,
    ),
    (
        "deploys24::validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c256",
        crate::deploys24::validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c256,
    ),
    (
        "deploys24::validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c256_100_1900",
        crate::deploys24::validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c256_100_1900,
    ),
    (
        "deploys24::validation_qwen3_coder_480b_awq_rtxpro6000x8_pp4_c256",
        crate::deploys24::validation_qwen3_coder_480b_awq_rtxpro6000x8_pp4_c256,
    ),
    (
        "deploys24::validation_qwen3_coder_480b_awq_h200x8_tp4_ep_c512",
        crate::deploys24::validation_qwen3_coder_480b_awq_h200x8_tp4_ep_c512,
    ),
    (
        "deploys24::validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c1",
        crate::deploys24::validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c1,
    ),
    (
        "deploys24::validation_qwen3_coder_480b_awq_h200x8_tp4_ep_c1",
        crate::deploys24::validation_qwen3_coder_480b_awq_h200x8_tp4_ep_c1,
    ),
    (
        "deploys25::validation_qwen2_7b_a100_vllm_0_10_1_tp1_c1",
        crate::deploys25::validation_qwen2_7b_a100_vllm_0_10_1_tp1_c1,
    ),
    (
        "deploys25::validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c1",
        crate::deploys25::validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c1,
    ),
    (
        "deploys25::validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c10",
        crate::deploys25::validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c10,
    ),
    (
        "deploys25::validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c50",
        crate::deploys25::validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c50,
    ),
    (
        "deploys25::validation_qwen2_5_32b_a100x2_vllm_0_10_1_tp2_c1",
        crate::deploys25::validation_qwen2_5_32b_a100x2_vllm_0_10_1_tp2_c1,
    ),
    (
        "deploys25::validation_qwen2_5_32b_a100x2_vllm_0_10_1_tp2_c10",
        crate::deploys25::validation_qwen2_5_32b_a100x2_vllm_0_10_1_tp2_c10,
    ),
    (
        "deploys25::validation_qwen2_5_32b_a100_vllm_0_10_1_tp1_c10",
        crate::deploys25::validation_qwen2_5_32b_a100_vllm_0_10_1_tp1_c10,
    ),
    (
        "deploys25::validation_qwen2_72b_a100x2_vllm_0_10_1_tp2_c1",
        crate::deploys25::validation_qwen2_72b_a100x2_vllm_0_10_1_tp2_c1,
    ),
    (
        "deploys25::validation_qwen2_72b_a100x2_vllm_0_10_1_tp2_c10",
        crate::deploys25::validation_qwen2_72b_a100x2_vllm_0_10_1_tp2_c10,
    ),
    (
        "deploys26::validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c4",
        crate::deploys26::validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c4,
    ),
    (
        "deploys26::validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c16",
        crate::deploys26::validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c16,
    ),
    (
        "deploys26::validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c64",
        crate::deploys26::validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c64,
    ),
    (
        "deploys26::validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c4",
        crate::deploys26::validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c4,
    ),
    (
        "deploys26::validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c16",
        crate::deploys26::validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c16,
    ),
    (
        "deploys26::validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c64",
        crate::deploys26::validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c64,
    ),
    (
        "deploys27::validation_qwen3_30b_a3b_l20x8_sglang_tp2_rate10",
        crate::deploys27::validation_qwen3_30b_a3b_l20x8_sglang_tp2_rate10,
    ),
    (
        "deploys27::validation_qwen3_30b_a3b_l20x8_sglang_tp4_rate10",
        crate::deploys27::validation_qwen3_30b_a3b_l20x8_sglang_tp4_rate10,
    ),
    (
        "deploys27::validation_qwen3_30b_a3b_fp8_h200x4_sglang_tp4_ep4_c1",
        crate::deploys27::validation_qwen3_30b_a3b_fp8_h200x4_sglang_tp4_ep4_c1,
    ),
    (
        "deploys27::validation_deepseek_v3_h200x16_2node_sglang_tp16_c8",
        crate::deploys27::validation_deepseek_v3_h200x16_2node_sglang_tp16_c8,
    ),
    (
        "deploys27::validation_deepseek_v3_b200x8_sglang_tp8_triton_bs1",
        crate::deploys27::validation_deepseek_v3_b200x8_sglang_tp8_triton_bs1,
    ),
    (
        "deploys27::validation_deepseek_v3_b200x8_sglang_tp8_triton_bs32",
        crate::deploys27::validation_deepseek_v3_b200x8_sglang_tp8_triton_bs32,
    ),
    (
        "deploys28::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c1",
        crate::deploys28::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c1,
    ),
    (
        "deploys28::validation_kimi_k2_5_nvfp4_b200x8_sglang_0_5_9_tp8_c1",
        crate::deploys28::validation_kimi_k2_5_nvfp4_b200x8_sglang_0_5_9_tp8_c1,
    ),
    (
        "deploys28::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c8",
        crate::deploys28::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c8,
    ),
    (
        "deploys28::validation_kimi_k2_5_nvfp4_b200x4_vllm_0_16_tp4_c32",
        crate::deploys28::validation_kimi_k2_5_nvfp4_b200x4_vllm_0_16_tp4_c32,
    ),
    (
        "deploys28::validation_kimi_k2_5_nvfp4_b200x4_sglang_0_5_9_tp4_c16",
        crate::deploys28::validation_kimi_k2_5_nvfp4_b200x4_sglang_0_5_9_tp4_c16,
    ),
    (
        "deploys28::validation_minimax_m2_7_mi300x2_sglang_0_5_13_tp2_ep2_c1",
        crate::deploys28::validation_minimax_m2_7_mi300x2_sglang_0_5_13_tp2_ep2_c1,
    ),
    (
        "deploys28::validation_minimax_m2_7_mi300x2_sglang_0_5_13_tp2_ep2_c16",
        crate::deploys28::validation_minimax_m2_7_mi300x2_sglang_0_5_13_tp2_ep2_c16,
    ),
    (
        "deploys28::validation_minimax_m2_7_mi300x4_sglang_0_5_13_tp4_ep4_c64",
        crate::deploys28::validation_minimax_m2_7_mi300x4_sglang_0_5_13_tp4_ep4_c64,
    ),
    (
        "deploys28::validation_minimax_m2_7_mi300x4_sglang_0_5_13_tp4_ep4_c256",
        crate::deploys28::validation_minimax_m2_7_mi300x4_sglang_0_5_13_tp4_ep4_c256,
    ),
    (
        "deploys29::validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c1",
        crate::deploys29::validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c1,
    ),
    (
        "deploys29::validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c16",
        crate::deploys29::validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c16,
    ),
    (
        "deploys29::validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c64",
        crate::deploys29::validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c64,
    ),
    (
        "deploys29::validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c256",
        crate::deploys29::validation_glm_5_1_fp8_mi300x8_sglang_0_5_13_tp8_c256,
    ),
    (
        "deploys29::validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c1",
        crate::deploys29::validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c1,
    ),
    (
        "deploys29::validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c16",
        crate::deploys29::validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c16,
    ),
    (
        "deploys29::validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c64",
        crate::deploys29::validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c64,
    ),
    (
        "deploys29::validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c256",
        crate::deploys29::validation_gemma_4_31b_mi300x1_sglang_0_5_13_tp1_c256,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c12",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c12,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c20",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c20,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c24",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c24,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c28",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c28,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c36",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c36,
    ),
    (
        "deploys30::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c16",
        crate::deploys30::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c16,
    ),
    (
        "deploys30::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c24",
        crate::deploys30::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c24,
    ),
    (
        "deploys30::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c32",
        crate::deploys30::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c32,
    ),
    (
        "deploys30::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c40",
        crate::deploys30::validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c40,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c8",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c8,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c12",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c12,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c16",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c16,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c32",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c32,
    ),
    (
        "deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx128k_c16",
        crate::deploys30::validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx128k_c16,
    ),
    (
        "deploys30::validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_ctx8k_c8",
        crate::deploys30::validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_ctx8k_c8,
    ),
    (
        "deploys30::validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_ctx8k_c12",
        crate::deploys30::validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_ctx8k_c12,
    ),
    (
        "deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c1",
        crate::deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c1,
    ),
    (
        "deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c2",
        crate::deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c2,
    ),
    (
        "deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c4",
        crate::deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c4,
    ),
    (
        "deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c8",
        crate::deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c8,
    ),
    (
        "deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c64",
        crate::deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c64,
    ),
    (
        "deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c128",
        crate::deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c128,
    ),
    (
        "deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c256",
        crate::deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c256,
    ),
    (
        "deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c512",
        crate::deploys31::validation_qwen2_5_7b_vllm_a6000x1_chat_c512,
    ),
    (
        "deploys32::validation_qwen3_5_122b_fp8_vllm_pro6000maxqx8_tp8_4k4k_c64_np128",
        crate::deploys32::validation_qwen3_5_122b_fp8_vllm_pro6000maxqx8_tp8_4k4k_c64_np128,
    ),
    (
        "deploys32::validation_qwen3_5_122b_fp8_vllm_pro6000maxqx8_tp8_4k4k_c64_np64",
        crate::deploys32::validation_qwen3_5_122b_fp8_vllm_pro6000maxqx8_tp8_4k4k_c64_np64,
    ),
    (
        "dsv4k56::validation_deepseek_v4_flash_h200x4_sglang_0_5_16_tp4_c1024",
        crate::dsv4k56::validation_deepseek_v4_flash_h200x4_sglang_0_5_16_tp4_c1024,
    ),
    (
        "dsv4k57::validation_deepseek_v4_flash_h200x4_sglang_0_5_16_tp4_c4096",
        crate::dsv4k57::validation_deepseek_v4_flash_h200x4_sglang_0_5_16_tp4_c4096,
    ),
    (
        "deploys33::validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c1",
        crate::deploys33::validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c1,
    ),
    (
        "deploys33::validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c16",
        crate::deploys33::validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c16,
    ),
    (
        "deploys33::validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c100",
        crate::deploys33::validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c100,
    ),
    (
        "deploys33::validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c1",
        crate::deploys33::validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c1,
    ),
    (
        "deploys33::validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c16",
        crate::deploys33::validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c16,
    ),
    (
        "deploys33::validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c100",
        crate::deploys33::validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c100,
    ),
    (
        "deploys33::validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c1",
        crate::deploys33::validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c1,
    ),
    (
        "deploys33::validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c16",
        crate::deploys33::validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c16,
    ),
    (
        "deploys33::validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c100",
        crate::deploys33::validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c100,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c1",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c1,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c16",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c16,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c100",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c100,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c1",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c1,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c16",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c16,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c64",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c64,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c1",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c1,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c16",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c16,
    ),
    (
        "deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c64",
        crate::deploys33::validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c64,
    ),
    (
        "deploys33::validation_step_3_5_flash_h200x4_vllm_0_15_1_tp4_2k1k_c10",
        crate::deploys33::validation_step_3_5_flash_h200x4_vllm_0_15_1_tp4_2k1k_c10,
    ),
    (
        "deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c1",
        crate::deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c1,
    ),
    (
        "deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c16",
        crate::deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c16,
    ),
    (
        "deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c64",
        crate::deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c64,
    ),
    (
        "deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c1",
        crate::deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c1,
    ),
    (
        "deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c16",
        crate::deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c16,
    ),
    (
        "deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c64",
        crate::deploys33::validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c64,
    ),
    (
        "deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c1",
        crate::deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c1,
    ),
    (
        "deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c16",
        crate::deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c16,
    ),
    (
        "deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c64",
        crate::deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c64,
    ),
    (
        "deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c1",
        crate::deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c1,
    ),
    (
        "deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c16",
        crate::deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c16,
    ),
    (
        "deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c64",
        crate::deploys33::validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c64,
    ),
    (
        "deploys34::validation_iog_rtx4090_tp_vllm_0_8_5_1qps",
        crate::deploys34::validation_iog_rtx4090_tp_vllm_0_8_5_1qps,
    ),
    (
        "deploys34::validation_iog_rtx4090_tp_vllm_0_8_5_4qps",
        crate::deploys34::validation_iog_rtx4090_tp_vllm_0_8_5_4qps,
    ),
    (
        "deploys34::validation_iog_rtx4090_tp_vllm_0_8_5_32qps",
        crate::deploys34::validation_iog_rtx4090_tp_vllm_0_8_5_32qps,
    ),
    (
        "deploys35::validation_iog_h100_pcie_x2_vllm_0_8_5_4qps",
        crate::deploys35::validation_iog_h100_pcie_x2_vllm_0_8_5_4qps,
    ),
    (
        "deploys35::validation_iog_h100_pcie_x2_vllm_0_8_5_32qps",
        crate::deploys35::validation_iog_h100_pcie_x2_vllm_0_8_5_32qps,
    ),
    (
        "deploys36::validation_club3090_rtx5090_x2_vllm_0_25_autoround_int4",
        crate::deploys36::validation_club3090_rtx5090_x2_vllm_0_25_autoround_int4,
    ),
    (
        "deploys36::validation_club3090_rtx5090_x2_vllm_0_25_nvfp4",
        crate::deploys36::validation_club3090_rtx5090_x2_vllm_0_25_nvfp4,
    ),
    (
        "deploys37::validation_club3090_rtx3090_x2_vllm_0_22_autoround_int4",
        crate::deploys37::validation_club3090_rtx3090_x2_vllm_0_22_autoround_int4,
    ),
    (
        "deploys37::validation_club3090_rtx3090_x2_vllm_0_24_agents_a1_fp8",
        crate::deploys37::validation_club3090_rtx3090_x2_vllm_0_24_agents_a1_fp8,
    ),
    (
        "deploys37::validation_club3090_rtx5090_x2_vllm_0_24_agents_a1_fp8",
        crate::deploys37::validation_club3090_rtx5090_x2_vllm_0_24_agents_a1_fp8,
    ),
    (
        "deploys37::validation_club3090_rtx3090_x2_vllm_0_24_nvfp4_fast",
        crate::deploys37::validation_club3090_rtx3090_x2_vllm_0_24_nvfp4_fast,
    ),
    (
        "deploys38::validation_plx_pro6000_x2_sglang_b12x_minimax_m27_nvfp4",
        crate::deploys38::validation_plx_pro6000_x2_sglang_b12x_minimax_m27_nvfp4,
    ),
    (
        "deploys38::validation_plx_pro6000_x2_vllm_0_19_1_minimax_m25_nvfp4",
        crate::deploys38::validation_plx_pro6000_x2_vllm_0_19_1_minimax_m25_nvfp4,
    ),
    (
        "deploys39::validation_plx_pro6000_x2_vllm_0_19_1_gemma4_31b_nvfp4",
        crate::deploys39::validation_plx_pro6000_x2_vllm_0_19_1_gemma4_31b_nvfp4,
    ),
    (
        "deploys39::validation_plx_pro6000_x2_vllm_0_19_1_qwen35_27b_nvfp4",
        crate::deploys39::validation_plx_pro6000_x2_vllm_0_19_1_qwen35_27b_nvfp4,
    ),
    (
        "deploys39::validation_plx_pro6000_x2_vllm_0_19_1_qwen35_122b_nvfp4",
        crate::deploys39::validation_plx_pro6000_x2_vllm_0_19_1_qwen35_122b_nvfp4,
    ),
    (
        "deploys40::validation_festr_pro6000_x8_vllm_kimi_k26_dcp1_ctx0",
        crate::deploys40::validation_festr_pro6000_x8_vllm_kimi_k26_dcp1_ctx0,
    ),
    (
        "deploys40::validation_festr_pro6000_x8_vllm_kimi_k26_dcp1_long_ctx",
        crate::deploys40::validation_festr_pro6000_x8_vllm_kimi_k26_dcp1_long_ctx,
    ),
    (
        "deploys40::validation_festr_pro6000_x8_vllm_kimi_k26_dcp1_long_ctx_batch",
        crate::deploys40::validation_festr_pro6000_x8_vllm_kimi_k26_dcp1_long_ctx_batch,
    ),
];

/// The figures the README and the book state.
#[derive(Debug, PartialEq)]
struct Totals {
    within: usize,
    compared: usize,
    /// Median |error| in %, of the errors rounded to 0.1 %.
    median_pct: f64,
}

/// Within-target count, row count and median |error| (%) of `errors` (signed, relative).
fn totals(errors: &[f64]) -> Totals {
    let mut pct: Vec<f64> = errors.iter().map(|e| (e.abs() * 1000.0).round() / 10.0).collect();
    pct.sort_by(f64::total_cmp);
    let n = pct.len();
    assert!(n > 0, "no compared rows");
    let median_pct = if n % 2 == 1 {
        pct[n / 2]
    } else {
        (pct[n / 2 - 1] + pct[n / 2]) / 2.0
    };
    Totals {
        within: errors.iter().filter(|e| e.abs() <= TARGET).count(),
        compared: n,
        median_pct,
    }
}

/// A percentage as the book writes it: at most two decimals, trailing zeros dropped (19.65, 20.3, 21).
fn pct(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `text` with every run of whitespace made one space (prose wraps anywhere).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn repo_file(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// One line of the book's table.
fn table_line(c: &Compared) -> String {
    let (lo, hi) = c.measured;
    // A single value is passed as (m, m); a range prints as low–high.
    let measured = if (hi - lo).abs() < 0.05 {
        format!("{lo:.1}")
    } else {
        format!("{lo:.1}–{hi:.1}")
    };
    let status = if IN_SAMPLE.contains(&c.label.as_str()) {
        "within ±20 %, in-sample"
    } else if c.err.abs() <= TARGET {
        "within ±20 %"
    } else if KNOWN_MISSES.iter().any(|(l, _)| *l == c.label) {
        "known miss"
    } else {
        "MISS"
    };
    format!(
        "| {} | {measured} | {:.1} | {:+.1} % | {status} |",
        c.label,
        c.predicted,
        c.err * 100.0
    )
}

/// The GPU of a row, read from its label; rows whose label names no GPU are the rtx6kpro pages' RTX PRO
/// 6000 rows (Qwen3.5, MiniMax-M2.5). Panics on a label it cannot place, so a new row must be placed.
fn gpu_of(label: &str) -> &'static str {
    const NAMED: &[(&str, &str)] = &[
        ("MI300X", "AMD MI300X"),
        ("MI355X", "AMD MI355X"),
        ("B200", "B200"),
        ("H200", "H200"),
        ("× H20 ", "H20"),
        // newdeploys14: the IOG Foundation's single H100 PCIe rows, before "H100".
        ("H100 PCIe", "H100 PCIe"),
        ("H100", "H100 SXM"),
        ("A30", "A30"),
        // deploys25: dennislee22's A100 80GB rows (form factor not stated, PCIe assumed), before "A100 80GB".
        ("A100 80GB (PCIe assumed)", "A100 80GB PCIe"),
        ("A100 PCIe", "A100 80GB PCIe"),
        ("A100 SXM", "A100 80GB SXM"),
        ("A100 80GB", "A100 80GB (SXM assumed)"),
        ("A100 40GB", "A100 40GB (SXM assumed)"),
        ("RTX 4090", "RTX 4090"),
        ("RTX 5090", "RTX 5090"),
        ("RTX 3090 Ti", "RTX 3090 Ti"),
        ("RTX 3090", "RTX 3090"),
        ("× A40", "A40"),
        ("× L4,", "L4"),
        // newdeploys13: cloudrift's 2× L40S row (labels "2× L40S (2 engines)").
        ("× L40S", "L40S"),
        // deploys27: sglang pull request 5877's L20 rows (labels "2× L20", "4× L20").
        ("× L20 ", "L20"),
        ("RTX PRO 6000", "RTX PRO 6000 Blackwell"),
        // deploys31: ld-singh's single RTX A6000 rows (labels "1× RTX A6000 TP 1").
        ("RTX A6000", "RTX A6000"),
    ];
    if let Some((_, gpu)) = NAMED.iter().find(|(k, _)| label.contains(k)) {
        return gpu;
    }
    if label.starts_with("Qwen3.5") || label.starts_with("MiniMax-M2.5") {
        return "RTX PRO 6000 Blackwell";
    }
    panic!("throughput_totals::gpu_of: place the row {label:?}")
}

/// The model family of a row, read from the start of its label. Panics on a label it cannot place.
fn family_of(label: &str) -> &'static str {
    const FAMILIES: &[(&str, &str)] = &[
        // deploys40: rtx6kpro's Kimi-K2.6 rows (Kimi-K2.5's network, native INT4 experts).
        ("Kimi-K2.6", "Kimi-K2.6 (MLA MoE, INT4 experts)"),
        // deploys36: club-3090's Qwen3.6-35B-A3B rows (the qwen3.5-35b-a3b preset's shape, alias).
        ("Qwen3.6-35B", "Qwen3.6-35B-A3B (hybrid MoE)"),
        // deploys37: club-3090's Agents-A1 rows (Qwen3.6-35B-A3B's geometry, the same preset).
        ("Agents-A1", "Qwen3.6-35B-A3B (hybrid MoE)"),
        // deploys26: the first Qwen3.5 dense rows (9B, Gated DeltaNet hybrid), before "Qwen3.5".
        ("Qwen3.5-9B", "Qwen3.5-9B (hybrid dense)"),
        // deploys39: Visual-Synthesizer's Qwen3.5-27B NVFP4 rows (the first 27B rows: Gated DeltaNet hybrid, dense), before "Qwen3.5".
        ("Qwen3.5-27B", "Qwen3.5-27B (hybrid dense, NVFP4 MLPs)"),
        // deploys39: Visual-Synthesizer's Qwen3.5-122B-A10B NVFP4 rows (NVFP4 experts, not FP8), before "Qwen3.5-122B".
        (
            "Qwen3.5-122B-A10B NVFP4",
            "Qwen3.5-122B-A10B (hybrid MoE, NVFP4 experts)",
        ),
        // deploys32: deplodock's Qwen3.5-122B-A10B FP8 rows (the 397B's hybrid MoE at another size), before "Qwen3.5".
        ("Qwen3.5-122B", "Qwen3.5-122B-A10B (hybrid MoE, FP8)"),
        ("Qwen3.5", "Qwen3.5-397B-A17B (hybrid MoE)"),
        ("Qwen3-235B", "Qwen3-235B-A22B (MoE)"),
        ("Qwen3-Next", "Qwen3-Next-80B-A3B (hybrid MoE)"),
        // newdeploys17: Qwen3-Coder-Next has Qwen3-Next-80B-A3B's architecture, before "Qwen3-".
        ("Qwen3-Coder-Next", "Qwen3-Next-80B-A3B (hybrid MoE)"),
        // newdeploys13: the first Qwen3 MoE rows (Qwen3MoeForCausalLM, INT4 AWQ), before "Qwen3-".
        ("Qwen3-Coder-30B", "Qwen3-Coder-30B-A3B (MoE, AWQ INT4)"),
        // deploys27: sglang pull requests 5877 / 12343's Qwen3-30B-A3B rows (bf16 and FP8), before "Qwen3-".
        ("Qwen3-30B-A3B", "Qwen3-30B-A3B (MoE, BF16 and FP8)"),
        (
            "Qwen3Guard",
            "Qwen3 dense (8B BF16 and FP8; 14B BF16 and AWQ; 32B BF16 and AWQ)",
        ),
        (
            "Qwen3-",
            "Qwen3 dense (8B BF16 and FP8; 14B BF16 and AWQ; 32B BF16 and AWQ)",
        ),
        // deploys25: dennislee22's Qwen2-7B-Instruct / Qwen2.5-32B / Qwen2-72B rows join the Qwen2.5 rows
        // (the same shapes: the qwen2.5-7b / qwen2.5-72b presets).
        ("Qwen2.5", "Qwen2 / Qwen2.5 dense (7B; 32B; 72B)"),
        ("Qwen2-", "Qwen2 / Qwen2.5 dense (7B; 32B; 72B)"),
        ("MiniMax-M2.5", "MiniMax-M2.5 (MoE)"),
        // deploys28: sglang pull request 31044's MiniMax-M2.7 rows (M2.5's shapes, its own context length).
        // deploys38: Visual-Synthesizer's MiniMax-M2.7 NVFP4 rows (the same shapes, NVFP4 experts), before "MiniMax-M2.7".
        ("MiniMax-M2.7 NVFP4", "MiniMax-M2.7 (MoE, NVFP4)"),
        ("MiniMax-M2.7", "MiniMax-M2.7 (MoE, FP8)"),
        // deploys33: the SGLang cookbook's Llama 4 Scout / Maverick rows (Llama4ForConditionalGeneration:
        // interleaved MoE, chunked local attention), before "Llama".
        ("Llama-4", "Llama 4 (interleaved MoE, chunked attention, bf16)"),
        (
            "Llama",
            "Llama dense (2-13B; 3.1-8B; 3.1/3.3-70B AWQ; 3.3-70B FP8)",
        ),
        // deploys28: deplodock's Kimi-K2.5-NVFP4 rows (NVFP4 experts, not INT4), before "Kimi-K2.5".
        ("Kimi-K2.5 NVFP4", "Kimi-K2.5 (MLA MoE, NVFP4 experts)"),
        ("Kimi-K2.5", "Kimi-K2.5 (MLA MoE, INT4 experts)"),
        ("gpt-oss-120b", "gpt-oss-120b (MoE, MXFP4)"),
        ("gpt-oss-20b", "gpt-oss-20b (MoE, MXFP4)"),
        ("DeepSeek-R1", "DeepSeek-R1 (MLA MoE, FP8)"),
        // newdeploys11: DeepSeek-V3.2's sparse attention (DSA) is its own family, before "DeepSeek-V3".
        ("DeepSeek-V3.2", "DeepSeek-V3.2 (MLA + DSA MoE, FP8)"),
        ("DeepSeek-V3", "DeepSeek-V3 (MLA MoE, FP8)"),
        ("gemma-3", "Gemma 3 dense (12B)"),
        // newdeploys12: the first GLM-4.5-family rows (Glm4MoeForCausalLM).
        ("GLM-4.6", "GLM-4.6 (MoE, bf16 and FP8)"),
        // newdeploys18: the first GLM-4.7-Flash rows (Glm4MoeLiteForCausalLM: MLA + GLM MoE).
        ("GLM-4.7-Flash", "GLM-4.7-Flash (MLA MoE, bf16)"),
        // newdeploys22: the first Kimi-Linear rows (KimiLinearForCausalLM: KDA + MLA, MoE) and ERNIE 4.5 rows.
        ("Kimi-Linear", "Kimi-Linear-48B-A3B (KDA + MLA hybrid MoE, bf16)"),
        ("ERNIE-4.5", "ERNIE-4.5-21B-A3B (MoE, bf16)"),
        // deploys29: sglang pull 30812's GLM-5.1-FP8 rows (GlmMoeDsa: MLA + DSA MoE, the glm-5-fp8 preset) and
        // pull 31216's Gemma 4 31B rows (dense, hybrid sliding-window attention).
        ("GLM-5.1", "GLM-5 / GLM-5.1 (MLA + DSA MoE, FP8)"),
        // deploys39: Visual-Synthesizer's Gemma-4-31B NVFP4 rows (NVFP4 MLPs), before "Gemma-4-31B".
        ("Gemma-4-31B NVFP4", "Gemma 4 dense (31B, NVFP4 MLPs)"),
        ("Gemma-4-31B", "Gemma 4 dense (31B)"),
        // dsv4k56: sglang pull 33109's DeepSeek-V4-Flash row (DeepseekV4ForCausalLM: compressed sparse
        // attention, mHC, FP4 experts), its own family.
        (
            "DeepSeek-V4",
            "DeepSeek-V4 (compressed sparse attention MoE, FP4 experts)",
        ), // deploys33: the SGLang cookbook's MiniMax-M2 rows (run as minimax-m2.5, the same shapes; "MiniMax-M2 "
        // with its space, apart from M2.5 / M2.7) and vLLM's Step-3.5-Flash recipe row (Step3p5ForCausalLM).
        ("MiniMax-M2 ", "MiniMax-M2 (MoE, FP8)"),
        (
            "Step-3.5-Flash",
            "Step-3.5-Flash (sliding-window hybrid MoE, bf16)",
        ),
    ];
    FAMILIES
        .iter()
        .find(|(k, _)| label.starts_with(k))
        .map(|(_, f)| *f)
        .unwrap_or_else(|| panic!("throughput_totals::family_of: place the row {label:?}"))
}

/// The by-GPU and by-family tables: rows, within the target, median |error| (all rows; the in-sample
/// ones are on the RTX PRO 6000 and Qwen3.5 lines), groups in the order their first row appears.
fn grouped_tables(rows: &[Compared]) -> String {
    let mut out = String::new();
    for (title, key) in [("GPU", gpu_of as fn(&str) -> &'static str), ("family", family_of)] {
        let mut groups: Vec<(&str, Vec<f64>)> = Vec::new();
        for r in rows {
            let k = key(&r.label);
            match groups.iter_mut().find(|(g, _)| *g == k) {
                Some((_, v)) => v.push(r.err),
                None => groups.push((k, vec![r.err])),
            }
        }
        out.push_str(&format!(
            "| {title} | rows | within ±20 % | median \\|error\\| |\n|---|---|---|---|\n"
        ));
        for (g, errs) in groups {
            let t = totals(&errs);
            out.push_str(&format!(
                "| {g} | {} | {} | {} % |\n",
                t.compared,
                t.within,
                pct(t.median_pct)
            ));
        }
        out.push('\n');
    }
    out.pop();
    out
}

/// Replaces the text between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in `book` with `want`
/// when `bless`; otherwise says whether it differs.
fn generated_block(book: &mut String, name: &str, want: &str, bless: bool) -> Option<String> {
    let (begin, end) = (format!("<!-- {name}:begin -->\n"), format!("<!-- {name}:end -->"));
    let start = book
        .find(&begin)
        .unwrap_or_else(|| panic!("validation.md lacks {begin}"))
        + begin.len();
    let stop = start + book[start..].find(&end).expect("the end marker");
    if book[start..stop] == *want {
        return None;
    }
    if bless {
        book.replace_range(start..stop, want);
        None
    } else {
        Some(format!(
            "validation.md's generated block {name} is stale (TPSIM_BLESS_BOOK=1 rewrites it); it should be:\n{want}"
        ))
    }
}

/// Runs every row test (on up to four threads) and returns the comparisons in [`ROW_TESTS`] order,
/// each label once.
fn compare_every_row() -> Vec<Compared> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Vec<Compared>)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, test)) = ROW_TESTS.get(i) else {
                        break;
                    };
                    COMPARED.with(|c| c.borrow_mut().clear());
                    test();
                    let rows = COMPARED.with(|c| std::mem::take(&mut *c.borrow_mut()));
                    done.lock().unwrap().push((i, rows));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|(i, _)| *i);
    let mut out: Vec<Compared> = Vec::new();
    for (i, rows) in done {
        assert!(!rows.is_empty(), "{} compared no row", ROW_TESTS[i].0);
        for r in rows {
            if !out.iter().any(|o| o.label == r.label) {
                out.push(r);
            }
        }
    }
    out
}

#[test]
#[ignore = "runs every throughput row a second time (≈ 200 s CPU in debug); .ci/run runs it"]
fn decode_totals_and_rows_table_match_the_book() {
    let rows = compare_every_row();
    let all: Vec<f64> = rows.iter().map(|r| r.err).collect();
    let oos: Vec<f64> = rows
        .iter()
        .filter(|r| !IN_SAMPLE.contains(&r.label.as_str()))
        .map(|r| r.err)
        .collect();
    assert_eq!(
        all.len() - oos.len(),
        IN_SAMPLE.len(),
        "every in-sample label is a compared row"
    );
    let (t, o) = (totals(&all), totals(&oos));
    let book_sentence = format!(
        "**{} of {} compared rows are within ±20 %; the median |error| is {} %** (out-of-sample only, \
         leaving out the {} in-sample rows: {} of {}, median {} %)",
        t.within,
        t.compared,
        pct(t.median_pct),
        IN_SAMPLE.len(),
        o.within,
        o.compared,
        pct(o.median_pct)
    );
    let readme_sentence = format!(
        "{} of {} measured decode rates are within ±20 % (median |error| {} %; out-of-sample only, {} of \
         {} and {} %",
        t.within,
        t.compared,
        pct(t.median_pct),
        o.within,
        o.compared,
        pct(o.median_pct)
    );
    let book_path = repo_file("book/src/validation.md");
    let book = std::fs::read_to_string(&book_path).unwrap();
    let readme = std::fs::read_to_string(repo_file("README.md")).unwrap();

    // The generated blocks, blessed like the book's command outputs.
    let bless = std::env::var_os("TPSIM_BLESS_BOOK").is_some();
    let mut table =
        String::from("| row | measured tok/s | predicted tok/s | error | status |\n|---|---|---|---|---|\n");
    for r in &rows {
        table.push_str(&table_line(r));
        table.push('\n');
    }
    let mut edited = book.clone();
    let mut failures: Vec<String> = [
        generated_block(&mut edited, "throughput-rows", &table, bless),
        generated_block(&mut edited, "throughput-groups", &grouped_tables(&rows), bless),
    ]
    .into_iter()
    .flatten()
    .collect();
    if edited != book {
        std::fs::write(&book_path, &edited).unwrap();
    }
    if !flat(&book).contains(&book_sentence) {
        failures.push(format!("validation.md should state: {book_sentence}"));
    }
    if !flat(&readme).contains(&readme_sentence) {
        failures.push(format!("README.md should state: {readme_sentence}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_row_test_is_counted() {
    // A new `fn validation_*` in a throughput or deploys suite must be in ROW_TESTS (and `pub(crate)`), or the
    // totals would silently leave its rows out.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        // deploys24 on, the new-row suites are named deploysNN (deploys35's rows were left out of the
        // totals until this check read them too).
        let row_suite = name.starts_with("throughput_") || name.starts_with("deploys");
        if !row_suite || name == "throughput_totals" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            let line = line.strip_prefix("pub(crate) ").unwrap_or(line);
            if let Some(rest) = line.strip_prefix("fn validation_") {
                let f = format!("{name}::validation_{}", rest.split('(').next().unwrap());
                if !ROW_TESTS.iter().any(|(n, _)| *n == f) {
                    missing.push(f);
                }
            }
        }
    }
    assert!(missing.is_empty(), "not in ROW_TESTS: {missing:?}");
}

#[test]
fn totals_by_hand() {
    // Four rows: |errors| 5.04 → 5.0, 19.96 → 20.0 (within: 0.1996 ≤ 0.20), 25.0, 40.0 %: 2 within,
    // median (20.0 + 25.0) / 2 = 22.5; three rows: the middle one.
    let t = totals(&[0.0504, -0.1996, 0.25, -0.40]);
    assert_eq!(
        t,
        Totals {
            within: 2,
            compared: 4,
            median_pct: 22.5
        }
    );
    assert!((totals(&[0.1, 0.3, -0.2]).median_pct - 20.0).abs() < 1e-9);
    assert_eq!(pct(19.65), "19.65");
    assert_eq!(pct(20.3), "20.3");
    assert_eq!(pct(21.0), "21");
}

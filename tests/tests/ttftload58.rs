//! ttftload58 (issue #18): TTFT under load, out of sample. Every row of `tests/data/throughput.tsv`
//! whose notes state a measured TTFT (median, mean or unnamed; at any concurrency, request rate or
//! burst) is run through its own scenario under `scenarios/validation/` (the one the row's suite
//! checks its decode figure with) and tpsim's TTFT of the same statistic is set against it: a median
//! (`median TTFT`, `P50 TTFT`) against tpsim's p50, a mean or a TTFT whose statistic the source does
//! not name against tpsim's mean. The measured value is read from the notes by ttft54's reader
//! ([`stated_ttft`]), never copied here. Nothing in tpsim was fitted to a TTFT of this file (the
//! prefill curves' fit rows are prefill.tsv's; book/src/validation.md "TTFT under load (ttftload58)"
//! names them). `cargo test -p tpsim-tests --test integration ttftload58:: -- --include-ignored --nocapture` prints
//! the book's tables.

use crate::common::*;
use crate::ttft54::{throughput_notes, ttft_after};

/// The project's target: |predicted ÷ measured − 1| ≤ 20 % (book/src/validation.md).
const TARGET: f64 = 0.20;

/// (throughput.tsv line, scenario under `scenarios/validation/`): every line whose notes contain
/// "TTFT" ([`every_ttft_row_is_listed`] checks the list is complete).
const ROWS: &[(usize, &str)] = &[
    (64, "qwen3-14b-awq-a100-vllm-eager-c1.toml"),
    (73, "qwen2.5-72b-h100-vllm-tp2-c1.toml"),
    (85, "gpt-oss-120b-h100-vllm-0.10.2-tp2-sharegpt-c4.toml"),
    (86, "gpt-oss-120b-h100-vllm-0.10.2-tp2-burst-4k.toml"),
    (87, "gpt-oss-120b-h100-vllm-0.10.2-tp2-burst-2k.toml"),
    (88, "qwen3-235b-h100x8-vllm-tp8-burst-4k.toml"),
    (89, "qwen3-235b-h100x8-vllm-tp8-burst-2k.toml"),
    (90, "qwen3-235b-fp8-h100x4-vllm-tp4-burst-4k.toml"),
    (91, "qwen3-235b-fp8-h100x4-vllm-tp4-burst-2k.toml"),
    (99, "gpt-oss-120b-mi300x-vllm-0.17-tp8-c1.toml"),
    (100, "minimax-m2.5-fp8-h100-vllm-0.16-tp4-ep4-c4.toml"),
    (106, "qwen3-8b-h100-vllm-0.11-sharegpt-c4.toml"),
    (107, "qwen3-8b-h100-sglang-0.5.3-sharegpt-c4.toml"),
    (108, "qwen3-8b-fp8-h100-sglang-0.5.3-sharegpt-c4.toml"),
    (109, "qwen3-14b-a100-vllm-0.11-burst-4k.toml"),
    (110, "qwen3-14b-a100-vllm-0.11-burst-2k.toml"),
    (111, "qwen3-14b-h100-vllm-0.11-burst-4k.toml"),
    (112, "qwen3-14b-h100-vllm-0.11-burst-2k.toml"),
    (113, "qwen3-32b-a100-vllm-0.11-burst-4k.toml"),
    (114, "qwen3-32b-a100-vllm-0.11-burst-2k.toml"),
    (115, "gpt-oss-20b-h100-vllm-0.11-burst-4k.toml"),
    (116, "gpt-oss-20b-h100-vllm-0.11-burst-2k.toml"),
    (117, "gpt-oss-20b-a100-vllm-0.11-burst-4k.toml"),
    (118, "gpt-oss-20b-a100-vllm-0.11-burst-2k.toml"),
    (119, "qwen3-next-80b-b200x8-vllm-0.10.2-tp4-c256.toml"),
    (120, "qwen3-8b-mi300x-vllm-rocm-tp1-c32.toml"),
    (121, "llama-3.3-70b-fp8-mi355x-vllm-rocm-tp1-c64.toml"),
    (127, "deepseek-v3-fp8-h20x8-sglang-tp8-c8.toml"),
    (128, "llama-3.1-8b-a40-vllm-c50.toml"),
    (129, "deepseek-r1-distill-llama-8b-a40-vllm-c50.toml"),
    (130, "qwen2.5-7b-a40-vllm-c50.toml"),
    (131, "gemma-3-12b-a40-vllm-c50.toml"),
    (135, "gpt-oss-120b-a100-vllm-0.11-tp1-burst-4k.toml"),
    (136, "gpt-oss-120b-a100-vllm-0.11-tp1-burst-2k.toml"),
    (137, "gpt-oss-120b-a100-vllm-0.11-tp1-opt-burst-4k.toml"),
    (138, "gpt-oss-120b-a100-vllm-0.11-tp1-opt-burst-2k.toml"),
    (139, "deepseek-v3.2-h200x8-vllm-0.13-tp8-burst-1k2k.toml"),
    (140, "deepseek-v3.2-h200x8-vllm-0.13-tp8-burst-4k.toml"),
    (141, "deepseek-v3.2-h200x8-vllm-0.13-tp8-burst-2k.toml"),
    (142, "deepseek-r1-h200x8-vllm-0.11-tp8-burst-4k.toml"),
    (143, "deepseek-r1-h200x8-vllm-0.11-tp8-burst-2k.toml"),
    (144, "gpt-oss-120b-a100-vllm-0.11-tp1-sharegpt-c4.toml"),
    (145, "gpt-oss-120b-a100-vllm-0.11-tp1-opt-sharegpt-c4.toml"),
    (146, "deepseek-r1-h200x8-vllm-0.11-tp8-sharegpt-c4.toml"),
    (147, "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-tp8-c1.toml"),
    (148, "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-tp8-c256.toml"),
    (149, "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-tp8-c256-100-1900.toml"),
    (150, "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-pp8-c256.toml"),
    (151, "glm-4.6-h200x8-vllm-0.11-tp8-c1.toml"),
    (152, "glm-4.6-h200x8-vllm-0.11-tp8-c512.toml"),
    (153, "qwen3-coder-30b-a3b-awq-rtx4090x1-vllm-0.11-tp1-c400.toml"),
    (
        154,
        "qwen3-coder-30b-a3b-awq-rtx4090x2-vllm-0.11-tp1-replica-of-2-c400.toml",
    ),
    (
        155,
        "qwen3-coder-30b-a3b-awq-rtx4090x4-vllm-0.11-tp1-replica-of-4-c400.toml",
    ),
    (156, "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.11-tp1-c400.toml"),
    (
        157,
        "qwen3-coder-30b-a3b-awq-rtx5090x2-vllm-0.11-tp1-replica-of-2-c400.toml",
    ),
    (
        158,
        "qwen3-coder-30b-a3b-awq-rtx5090x4-vllm-0.11-tp1-replica-of-4-c400.toml",
    ),
    (159, "qwen3-coder-30b-a3b-awq-pro6000x1-vllm-0.11-tp1-c400.toml"),
    (
        160,
        "qwen3-coder-30b-a3b-awq-l40sx2-vllm-0.11-tp1-replica-of-2-c400.toml",
    ),
    (203, "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q1.toml"),
    (204, "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q2.toml"),
    (205, "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q4.toml"),
    (206, "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q8.toml"),
    (207, "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q16.toml"),
    (208, "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-1k1k.toml"),
    (209, "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-1k512.toml"),
    (210, "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-4k2k.toml"),
    (211, "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-4k1k.toml"),
    (212, "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-256-512.toml"),
    (213, "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c1.toml"),
    (214, "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c16.toml"),
    (215, "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c100.toml"),
    (216, "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c1.toml"),
    (217, "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c16.toml"),
    (218, "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c100.toml"),
    (219, "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml"),
    (220, "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c16.toml"),
    (221, "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c100.toml"),
    (222, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml"),
    (223, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c16.toml"),
    (224, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c100.toml"),
    (225, "qwen3-next-80b-a3b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml"),
    (226, "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c1.toml"),
    (227, "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c16.toml"),
    (228, "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c100.toml"),
    (229, "gpt-oss-120b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml"),
    (230, "kimi-k2.5-h200x8-sglang-0.5.6-tp8-1k1k-c1.toml"),
    (231, "kimi-k2.5-h200x8-sglang-0.5.6-tp8-1k1k-c16.toml"),
    (232, "kimi-k2.5-h200x8-sglang-0.5.6-tp8-1k1k-c100.toml"),
    (233, "glm-4.7-flash-b200x1-sglang-0.5.7-tp1-1k1k-c1.toml"),
    (234, "glm-4.7-flash-b200x1-sglang-0.5.7-tp1-1k1k-c16.toml"),
    (235, "glm-4.7-flash-b200x1-sglang-0.5.7-tp1-1k1k-c100.toml"),
    (236, "deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml"),
    (237, "deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c16.toml"),
    (238, "deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c100.toml"),
    (
        239,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c8.toml",
    ),
    (
        240,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c12.toml",
    ),
    (
        241,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c16.toml",
    ),
    (242, "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c8.toml"),
    (243, "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c16.toml"),
    (244, "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c32.toml"),
    (
        245,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c4-ctx8k.toml",
    ),
    (
        246,
        "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c4-ctx8k.toml",
    ),
    (247, "gpt-oss-20b-pro6000x1-vllm-0.14-tp1-c1.toml"),
    (249, "gpt-oss-20b-pro6000x1-vllm-0.14-tp1-c1-ctx128k.toml"),
    (250, "qwen3-coder-next-fp8-h200x1-vllm-0.15-tp1-c1.toml"),
    (252, "qwen3-coder-next-fp8-h200x1-vllm-0.15-tp1-c1-ctx256k.toml"),
    (253, "kimi-linear-48b-a3b-mi300x4-sglang-0.5.7-tp4-1k1k-c1.toml"),
    (254, "kimi-linear-48b-a3b-mi300x4-sglang-0.5.7-tp4-1k1k-c16.toml"),
    (255, "kimi-linear-48b-a3b-mi300x4-sglang-0.5.7-tp4-1k1k-c100.toml"),
    (256, "ernie-4.5-21b-a3b-mi300x1-sglang-0.5.7-tp1-1k1k-c1.toml"),
    (257, "ernie-4.5-21b-a3b-mi300x1-sglang-0.5.7-tp1-1k1k-c16.toml"),
    (258, "ernie-4.5-21b-a3b-mi300x1-sglang-0.5.7-tp1-1k1k-c100.toml"),
    (259, "glm-4.6-h200x8-vllm-0.11-tp8-burst-4k.toml"),
    (260, "glm-4.6-h200x8-vllm-0.11-tp8-burst-2k.toml"),
    (261, "glm-4.6-h200x8-vllm-0.11-tp8-sharegpt-c4.toml"),
    (262, "glm-4.6-fp8-h200x4-sglang-0.5.3-tp4-burst-4k.toml"),
    (263, "glm-4.6-fp8-h200x4-sglang-0.5.3-tp4-burst-2k.toml"),
    (
        264,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-tp4-ep-replica-of-2-c256.toml",
    ),
    (
        265,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-tp4-ep-replica-of-2-c256-100-1900.toml",
    ),
    (
        266,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-tp4-ep-replica-of-2-c1.toml",
    ),
    (
        267,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-pp4-replica-of-2-c256.toml",
    ),
    (
        268,
        "qwen3-coder-480b-awq-h200x8-vllm-0.11-tp4-ep-replica-of-2-c512.toml",
    ),
    (
        269,
        "qwen3-coder-480b-awq-h200x8-vllm-0.11-tp4-ep-replica-of-2-c1.toml",
    ),
    (291, "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c1.toml"),
    (292, "kimi-k2.5-nvfp4-b200x8-sglang-0.5.9-tp8-8k8k-c1.toml"),
    (293, "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c8.toml"),
    (294, "kimi-k2.5-nvfp4-b200x4-vllm-0.16-tp4-4k4k-c32.toml"),
    (295, "kimi-k2.5-nvfp4-b200x4-sglang-0.5.9-tp4-8k8k-c16.toml"),
    (296, "minimax-m2.7-mi300x2-sglang-0.5.13-tp2-ep2-1k1k-c1.toml"),
    (297, "minimax-m2.7-mi300x2-sglang-0.5.13-tp2-ep2-1k1k-c16.toml"),
    (298, "minimax-m2.7-mi300x4-sglang-0.5.13-tp4-ep4-1k1k-c64.toml"),
    (299, "minimax-m2.7-mi300x4-sglang-0.5.13-tp4-ep4-1k1k-c256.toml"),
    (300, "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c1.toml"),
    (301, "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c16.toml"),
    (302, "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c64.toml"),
    (303, "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c256.toml"),
    (304, "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c1.toml"),
    (305, "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c16.toml"),
    (306, "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c64.toml"),
    (307, "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c256.toml"),
    (308, "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c12.toml"),
    (309, "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c20.toml"),
    (310, "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c24.toml"),
    (311, "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c28.toml"),
    (312, "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c36.toml"),
    (313, "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c16.toml"),
    (314, "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c24.toml"),
    (315, "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c32.toml"),
    (316, "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c40.toml"),
    (
        317,
        "qwen3-coder-next-fp8-pro6000ws1-vllm-0.15-tp1-4k4k-c8-ctx8k.toml",
    ),
    (
        318,
        "qwen3-coder-next-fp8-pro6000ws1-vllm-0.15-tp1-4k4k-c12-ctx8k.toml",
    ),
    (
        319,
        "qwen3-coder-next-fp8-pro6000ws1-vllm-0.15-tp1-4k4k-c16-ctx8k.toml",
    ),
    (
        320,
        "qwen3-coder-next-fp8-pro6000ws1-vllm-0.15-tp1-4k4k-c32-ctx8k.toml",
    ),
    (
        321,
        "qwen3-coder-next-fp8-pro6000ws1-vllm-0.15-tp1-4k4k-c16-ctx128k.toml",
    ),
    (
        322,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.15-tp1-4k4k-c8-ctx8k.toml",
    ),
    (
        323,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.15-tp1-4k4k-c12-ctx8k.toml",
    ),
    (332, "deepseek-v4-flash-h200x4-sglang-0.5.16-tp4-8k1k-c1024.toml"),
    (
        333,
        "qwen3.5-122b-a10b-fp8-pro6000maxqx8-vllm-0.19-tp8-4k4k-c64-np128.toml",
    ),
    (
        334,
        "qwen3.5-122b-a10b-fp8-pro6000maxqx8-vllm-0.19-tp8-4k4k-c64-np64.toml",
    ),
    (335, "deepseek-v4-flash-h200x4-sglang-0.5.16-tp4-8k1k-c4096.toml"),
    (336, "llama-4-scout-mi300x8-sglang-0.5.9-tp8-1k1k-c1.toml"),
    (337, "llama-4-scout-mi300x8-sglang-0.5.9-tp8-1k1k-c16.toml"),
    (338, "llama-4-scout-mi300x8-sglang-0.5.9-tp8-1k1k-c100.toml"),
    (339, "llama-4-maverick-mi300x8-sglang-0.5.9-tp8-1k1k-c1.toml"),
    (340, "llama-4-maverick-mi300x8-sglang-0.5.9-tp8-1k1k-c16.toml"),
    (341, "llama-4-maverick-mi300x8-sglang-0.5.9-tp8-1k1k-c100.toml"),
    (342, "minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c1.toml"),
    (343, "minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c16.toml"),
    (344, "minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c100.toml"),
    (345, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c1.toml"),
    (346, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c16.toml"),
    (347, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c100.toml"),
    (348, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c1.toml"),
    (349, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c16.toml"),
    (350, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c64.toml"),
    (351, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c1.toml"),
    (352, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c16.toml"),
    (353, "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c64.toml"),
    (354, "step-3.5-flash-h200x4-vllm-0.15.1-tp4-2k1k-c10.toml"),
    (355, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k8k-c1.toml"),
    (356, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k8k-c16.toml"),
    (357, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k8k-c64.toml"),
    (358, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-8k1k-c1.toml"),
    (359, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-8k1k-c16.toml"),
    (360, "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-8k1k-c64.toml"),
    (361, "glm-4.6-b200x8-sglang-0.5.6-tp8-1k8k-c1.toml"),
    (362, "glm-4.6-b200x8-sglang-0.5.6-tp8-1k8k-c16.toml"),
    (363, "glm-4.6-b200x8-sglang-0.5.6-tp8-1k8k-c64.toml"),
    (364, "glm-4.6-b200x8-sglang-0.5.6-tp8-8k1k-c1.toml"),
    (365, "glm-4.6-b200x8-sglang-0.5.6-tp8-8k1k-c16.toml"),
    (366, "glm-4.6-b200x8-sglang-0.5.6-tp8-8k1k-c64.toml"),
    (367, "glm-4.5-air-awq-rtx5090x4-vllm-0.11-tp4-ep-c200.toml"),
    // deploys36 (club-3090's bench.sh, one stream): line 395 states its five runs' range, "TTFT 41 ms
    // to 44 ms", and is compared with the range's low end; line 396 one figure, 57 ms.
    (
        395,
        "qwen3.6-35b-a3b-autoround-int4-rtx5090x2-vllm-0.25-tp2-c1.toml",
    ),
    (396, "qwen3.6-35b-a3b-nvfp4-rtx5090x2-vllm-0.25-tp2-c1.toml"),
    // deploys37 (club-3090's bench.sh, one stream): lines 398 and 399 state the narrative's TTFT
    // before the code's ("TTFT 130 ms / 128 ms", "TTFT 49 ms / 49 ms"); the narrative's is read.
    (398, "agents-a1-fp8-dynamic-rtx3090x2-vllm-0.24-tp2-c1.toml"),
    (399, "agents-a1-fp8-dynamic-rtx5090x2-vllm-0.24-tp2-c1.toml"),
];

/// The measured TTFT throughput.tsv line `line` states: (tpsim's statistic to compare it with, ms).
/// The first of "median TTFT", "P50 TTFT" (→ p50), "mean TTFT", "TTFT single request", "with TTFT"
/// and a bare "TTFT" (→ mean) that a number follows.
pub(crate) fn stated_ttft(line: usize) -> (&'static str, f64) {
    let (_, notes) = throughput_notes(line);
    const KEYS: &[(&str, &str)] = &[
        ("median TTFT ", "p50"),
        ("P50 TTFT ", "p50"),
        ("mean TTFT ", "mean"),
        ("TTFT single request ", "mean"),
        ("with TTFT ", "mean"),
        ("TTFT ", "mean"),
    ];
    KEYS.iter()
        .find_map(|(k, stat)| ttft_after(line, &notes, k).map(|v| (*stat, v)))
        .unwrap_or_else(|| panic!("line {line}: no stated TTFT in the notes"))
}

/// The GPU class of throughput.tsv's `gpu` column: HBM data-centre NVIDIA parts, GDDR NVIDIA parts
/// (A40, L40S, GeForce, RTX PRO), AMD Instinct.
fn gpu_class(gpu: &str) -> &'static str {
    if gpu.starts_with("MI") {
        "AMD Instinct"
    } else if ["A100", "H100", "H200", "H20", "B200"]
        .iter()
        .any(|p| gpu.starts_with(p))
    {
        "NVIDIA HBM"
    } else {
        "NVIDIA GDDR"
    }
}

/// One compared row.
struct Compared {
    line: usize,
    engine: String,
    class: &'static str,
    concurrency: String,
    stat: &'static str,
    measured_ms: f64,
    tpsim_ms: f64,
}

impl Compared {
    fn ratio(&self) -> f64 {
        self.tpsim_ms / self.measured_ms
    }
}

/// Every row of [`ROWS`] run and compared, in [`ROWS`] order (four threads: the bursts of 500 to
/// 6,000 requests take most of the time).
fn compare_all() -> Vec<Compared> {
    let t = read_tsv(&data_path("throughput.tsv"));
    let (e, g, b) = (t.col("engine"), t.col("gpu"), t.col("batch_or_concurrency"));
    let run = |&(line, file): &(usize, &str)| {
        let row = t.rows.iter().find(|r| r.line == line).unwrap();
        let (stat, measured_ms) = stated_ttft(line);
        let v = run_json(&scenario(&format!("validation/{file}")));
        Compared {
            line,
            engine: row.get(e).to_string(),
            class: gpu_class(row.get(g)),
            concurrency: row.get(b).to_string(),
            stat,
            measured_ms,
            tpsim_ms: f(&v["serving"]["ttft_ms"][stat]),
        }
    };
    let threads = 4;
    let mut out: Vec<Compared> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let run = &run;
                s.spawn(move || ROWS.iter().skip(k).step_by(threads).map(run).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    out.sort_by_key(|c| c.line);
    out
}

/// (rows, within ±20 %, within 2×, median |tpsim ÷ measured − 1|, median tpsim ÷ measured).
fn figure(rows: &[&Compared]) -> (usize, usize, usize, f64, f64) {
    let err: Vec<f64> = rows.iter().map(|r| (r.ratio() - 1.0).abs()).collect();
    let ratio: Vec<f64> = rows.iter().map(|r| r.ratio()).collect();
    let within = err.iter().filter(|x| **x <= TARGET).count();
    let two = ratio.iter().filter(|x| (0.5..=2.0).contains(*x)).count();
    (rows.len(), within, two, median(&err), median(&ratio))
}

fn print_figure(label: &str, rows: &[&Compared]) {
    if rows.is_empty() {
        return;
    }
    let (n, w, two, e, r) = figure(rows);
    println!("| {label} | {n} | {w} | {two} | {:.1} % | {r:.3} |", e * 100.0);
}

#[test]
fn every_ttft_row_is_listed() {
    // Every line whose notes say "TTFT" is in ROWS, once, and each one's TTFT is read.
    let t = read_tsv(&data_path("throughput.tsv"));
    let n = t.col("notes");
    let want: Vec<usize> = t
        .rows
        .iter()
        .filter(|r| r.get(n).contains("TTFT"))
        .map(|r| r.line)
        .collect();
    let have: Vec<usize> = ROWS.iter().map(|r| r.0).collect();
    assert_eq!(have, want, "ROWS against the lines that state a TTFT");
    for (line, _) in ROWS {
        let (_, ms) = stated_ttft(*line);
        assert!(ms > 0.0, "line {line}");
    }
}

#[test]
fn stated_ttfts_are_read_with_their_statistic() {
    // Line 256 states "median TTFT 36.81 ms" before "mean TTFT 4152.58 ms": the median is read.
    assert_eq!(stated_ttft(256), ("p50", 36.81));
    // Line 307 states "TTFT 39,891 ms" (statistic not named): 39,891 ms, against tpsim's mean.
    assert_eq!(stated_ttft(307), ("mean", 39_891.0));
    // Line 332 states "P50 TTFT 195108.42 ms".
    assert_eq!(stated_ttft(332), ("p50", 195_108.42));
    // Line 64 states "with TTFT 3.45 s": 3.45 × 1000 = 3,450 ms (to 1e-9: 3.45 is not exact in binary).
    let (stat, ms) = stated_ttft(64);
    assert!(stat == "mean" && (ms - 3450.0).abs() < 1e-9, "{stat} {ms}");
    // Line 153 states "mean TTFT 262205.54 ms".
    assert_eq!(stated_ttft(153), ("mean", 262_205.54));
}

#[test]
#[ignore = "runs 192 validation scenarios, bursts of thousands of requests among them (minutes in debug); .ci/run runs it"]
fn ttft_under_load_table() {
    let rows = compare_all();
    println!(
        "| throughput.tsv line | engine | GPU class | concurrency | statistic | measured ms | tpsim ms | tpsim / measured |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.3} |",
            r.line,
            r.engine,
            r.class,
            r.concurrency,
            r.stat,
            r.measured_ms,
            r.tpsim_ms,
            r.ratio()
        );
    }
    println!("\n| rows | n | within ±20 % | within 2× | median abs(error) | median tpsim / measured |");
    println!("|---|---|---|---|---|---|");
    let all: Vec<&Compared> = rows.iter().collect();
    print_figure("all", &all);
    let c1: Vec<&Compared> = rows.iter().filter(|r| r.concurrency == "1").collect();
    let load: Vec<&Compared> = rows.iter().filter(|r| r.concurrency != "1").collect();
    print_figure("concurrency 1", &c1);
    print_figure("under load (c > 1, rate, burst)", &load);
    for e in ["SGLang", "vLLM"] {
        let sel: Vec<&Compared> = rows.iter().filter(|r| r.engine == e).collect();
        print_figure(e, &sel);
    }
    for g in ["NVIDIA HBM", "NVIDIA GDDR", "AMD Instinct"] {
        let sel: Vec<&Compared> = rows.iter().filter(|r| r.class == g).collect();
        print_figure(g, &sel);
    }
    for e in ["SGLang", "vLLM"] {
        for g in ["NVIDIA HBM", "NVIDIA GDDR", "AMD Instinct"] {
            let sel: Vec<&Compared> = rows.iter().filter(|r| r.engine == e && r.class == g).collect();
            print_figure(&format!("{e}, {g}"), &sel);
        }
    }
    let mut worst: Vec<&Compared> = rows.iter().collect();
    worst.sort_by(|a, b| {
        let ea = a.ratio().ln().abs();
        let eb = b.ratio().ln().abs();
        eb.total_cmp(&ea)
    });
    println!("\nworst rows (|ln ratio|):");
    for r in worst.iter().take(12) {
        println!("line {}: {:.3}", r.line, r.ratio());
    }

    // The figure the book states (book/src/validation.md "TTFT under load (ttftload58)").
    let (n, within, two, med, _) = figure(&all);
    let (ln, lwithin, ltwo, lmed, _) = figure(&load);
    println!("\nall: {n} {within} {two} {med:.4}; under load: {ln} {lwithin} {ltwo} {lmed:.4}");
    assert_eq!(
        (n, within, two),
        PINNED_ALL,
        "all rows: n, within ±20 %, within 2x"
    );
    assert_eq!(
        (ln, lwithin, ltwo),
        PINNED_LOAD,
        "under load: n, within ±20 %, within 2x"
    );
    // Medians pinned to ±0.1 percentage point of |error|.
    assert!((med - PINNED_MEDIAN.0).abs() < 0.001, "median |error| {med:.4}");
    assert!(
        (lmed - PINNED_MEDIAN.1).abs() < 0.001,
        "median |error| under load {lmed:.4}"
    );

    // Each row outside the target is a listed miss; a listed miss that comes within fails.
    for r in &rows {
        let listed = KNOWN_MISSES.iter().any(|(lines, _)| lines.contains(&r.line));
        let out = (r.ratio() - 1.0).abs() > TARGET;
        assert_eq!(
            out,
            listed,
            "line {}: tpsim {:.2} ms against {:.2} ms ({:.3}): {}",
            r.line,
            r.tpsim_ms,
            r.measured_ms,
            r.ratio(),
            if out {
                "outside the target, not listed"
            } else {
                "listed but now within: remove it"
            }
        );
    }
}

/// (rows, within ±20 %, within 2×) over all rows: printed by [`ttft_under_load_table`].
const PINNED_ALL: (usize, usize, usize) = (196, 40, 137);
/// The same over the rows under load (concurrency above 1, a request rate or a burst).
const PINNED_LOAD: (usize, usize, usize) = (154, 38, 114);
/// Median |tpsim ÷ measured − 1|: (all rows, rows under load).
/// (0.5363, 0.5241) when the branch was made; server58 (the RTX PRO 6000 Editions' memory) and
/// mi300x58 (the DeepSeek-V3 MI300X step) moved their rows' TTFTs: (0.5384, 0.5280); stop 59:
/// sglttft59 (SGLang's overlap-scheduler first-token delay: every SGLang row longer, 299 within) and
/// vllmchunk59 (cheaper mixed steps: 90, 109, 110, 157, 265 leave the target, 154 enters): (0.5190,
/// 0.5228), with (192, 22, 80) / (154, 21, 69) → (192, 19, 89) / (154, 18, 71); stop 60: sglfront60
/// (SGLang's 3.66 ms request path before the scheduler: 214, 215, 221, 223, 224, 238, 257, 363 come
/// within) and deploys36's two c 1 rows (395, 396: vLLM, short, light load): (0.4520, 0.4412), with
/// (194, 27, 108) / (154, 26, 89); stop 61: vllmttft61 (vLLM's request path: the 2 ms microbatch wait of
/// 0.10.1-0.23 and 1 µs a prompt token of tokenization; 73, 242-244, 265, 309-312, 317 come within),
/// mmnorm61, sglprefill61 (Qwen3-Next's SGLang prefill chain), nontorch61, and deploys37's two c 1 rows
/// that state a TTFT (398, 399: vLLM, short, light load): (0.4026, 0.3563), with (196, 37, 130) /
/// (154, 35, 110); stop 62: moeroute62 (SGLang's routing launches in the MoE prefills) and b200moe62
/// (the untuned triton tile on SM 10.0) lengthen the SGLang B200 prefills, and 220, 356 and 362 (c 16)
/// come within: (0.3934, 0.3400), with (196, 40, 135) / (154, 38, 113); stop 63: mi300x63 (AITER's
/// untuned q_b / o_proj GEMMs on gfx942: every DeepSeek MI300X TTFT holds longer decode steps),
/// b200sg63 (the TRT-LLM FP8 MoE call's fixed kernels, in the B200 prefill too), ttft63 (SGLang
/// 0.5.6's second `kv_b_proj` in the MLA prefill: line 236 comes within 2×), h200_63 (vLLM's
/// untuned tile on H200): (0.3897, 0.3377), with (196, 40, 136) / (154, 38, 113); stop 64: b200host64
/// (the bf16 TRT-LLM MoE call's fixed part in the SM 10.0 prefills), sm120fp4_64 (NVFP4 dense MLPs on SM
/// 12.x) and enginemem64 (vLLM's KV pools on non-P2P boxes) move TTFTs: one row under load comes within
/// 2× (medians unchanged): (196, 40, 137) / (154, 38, 114).
const PINNED_MEDIAN: (f64, f64) = (0.3897, 0.3377);

/// Rows outside [`TARGET`], by cause: (throughput.tsv lines, decomposition; book/src/validation.md
/// "TTFT under load (ttftload58)").
const KNOWN_MISSES: &[(&[usize], &str)] = &[
    (
        &[
            64, 99, 147, 151, 213, 216, 219, 222, 225, 226, 229, 230, 233, 236, 249, 250, 252, 253, 256, 266,
            269, 291, 292, 296, 300, 304, 336, 339, 342, 345, 348, 351, 355, 358, 361, 364, 395, 396, 398,
            399,
        ],
        "light load: ttft54/ttft55: at concurrency 1 every row is short (no row long); the SGLang cluster's missing time is in the forward (per-layer host time of the eager or piecewise prefill, sglfront/pcglaunch18), not the client or the front end (at most 6.9 ms, tt-inference-server issue 3560); the vLLM H200 chat rows' 146-343 ms are not located; the long-prompt rows are prefill-bound (FLOP side). Not fitted.",
    ),
    (
        &[
            108, 127, 217, 218, 227, 228, 231, 232, 234, 235, 237, 254, 255, 258, 295, 297, 298, 301, 302,
            303, 305, 306, 307, 332, 337, 338, 340, 341, 343, 344, 346, 347, 349, 350, 352, 353, 357, 359,
            360, 365, 366,
        ],
        "sgl closed loop: SGLang closed loop (max-concurrency 4-1,024, no queue in the engine at c 16, a short one at c 64-100): the measured median TTFT moves little from c 1 (e.g. line 213 -> 214 -> 215: 80.4, 82.3, 95.2 ms), so the miss is the light-load one carried over (same rows' c 1 ratios 0.13-0.62), not queueing (sglfront60's 3.66 ms request path brought 214, 215, 221, 223, 224, 238, 257 and 363 within); where tpsim queues (c 64-1,024) its wait follows its decode step, short by the TPOT miss (median step ratio 0.71 on these rows). Not fitted.",
    ),
    (
        &[203, 204, 205, 206, 207],
        "sgl rate: SGLang 0.4 at Poisson request rates 1-16 (Llama-3.3-70B, 4x H200): at rates 1-4 no request waits (tpsim's peak waiting 0), so the TTFT is one prefill plus the per-request gap of the light-load rows (46.8-53.0 ms against 85.8-106.1); at rates 8 and 16 the measured TTFT rises (191, 614 ms) with the decode batch, tpsim's less (its ITL at rate 8 is 0.27 of the measured one). Not fitted.",
    ),
    (
        &[
            86, 87, 89, 90, 91, 109, 110, 111, 112, 115, 116, 118, 139, 140, 141, 142, 143, 208, 209, 211,
            212, 259, 260, 262, 263, 335,
        ],
        "burst drain: bench_serving / vllm bench serve with --request-rate inf: every request is sent at t 0, so the median TTFT is the time to drain half the queue (bigbatch: 0.46-0.55 of the run); tpsim's drain is short by its prefill-carrying step (median step ratio 0.72 on these rows; GPUStack's H100 box 0.53x the SXM's GEMM rate, newdeploys6/h100mixed). The bursts within the target are the A100 ones (113, 114, 117, 135-138: on 135-138 tpsim's TPOT is 0.38-0.44 of the measured one yet its drain is right, prefill-bound), Qwen3-235B at 4K on 8x H100 (88) and SGLang's 4096/2048 burst (210); 109, 110 (A100) and 90 (4x H100) left at 0.77-0.80 when vllmchunk59 made the mixed steps cheaper (a chunk's attention over its own prefix). Not fitted.",
    ),
    (
        &[
            85, 100, 106, 119, 120, 121, 129, 130, 146, 148, 149, 150, 152, 157, 158, 159, 160, 239, 240,
            241, 245, 246, 264, 267, 268, 293, 294, 308, 313, 314, 315, 316, 318, 319, 320, 321, 322, 323,
            333, 334, 354, 367,
        ],
        "vllm closed loop: vLLM closed loop (max-concurrency 4-512): at c 4 with ShareGPT prompts (85, 100, 106, 146: 0.33-0.54) no request waits in tpsim, the light-load gap. At 4,000-token prompts and c 8-36 on one RTX 5090 or RTX PRO 6000 (239-244, 308-323: 0.32-0.56) tpsim's TTFT is about half the measured one although its decode step is as long or longer (step ratio 0.86-1.44): the new request's prefill is chunked into mixed steps under vLLM V1's token budget, which tpsim runs faster than the engine; the budget's default by release and GPU memory was not re-read here (a lead); 245 and 246 (c 4) and 293, 294, 333, 334 (Kimi-K2.5 on B200, Qwen3.5-122B on Max-Q) are the same shape (0.07-0.79). At c 256-512 (119, 148-152, 264, 267, 268, 367: 0.07-0.74, step 0.32-1.05) the wait for a free slot follows the decode step. The c 400 runs of 1,200 requests follow tpsim's step: 153-156 within, 157 just out (0.78 since vllmchunk59's cheaper mixed steps), 158-160 short (0.36-0.50, step 0.72-0.75); 265 (c 256) left at 0.80 with the same change. Line 121 (MI355X, 8k prompts, 1.39) is long with its step (1.12). Not fitted.",
    ),
    (
        &[128, 131],
        "a40 above peak: tpsim long (2.2-2.5x): the rows' measured TTFTs are below what the A40's datasheet peak allows: 50 prompts of 100 tokens arrive at once and the P99 TTFT (the last of one batch) needs all 5,000 tokens' linear layers: Llama-3.1-8B 2 x 6.98e9 x 5,000 = 6.98e13 FLOPs / 149.7e12 FLOP/s = 466 ms > 242.82 ms measured (line 128); Gemma-3-12B 2 x 10.76e9 x 5,000 = 1.08e14 / 149.7e12 = 719 ms > 573.97 ms (line 131). The same source's R1-Distill-Llama-8B (line 129, same architecture as 128) states 756.72 ms. The prompts the server saw were shorter than the notes say (not located). Not fitted.",
    ),
];

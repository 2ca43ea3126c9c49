//! vllmfloor: what a vLLM 0.8.5 V1 decode step under TP costs on the IOG Foundation boxes that tpsim
//! does not charge (book/src/validation.md, "The light-load TP gap under vLLM 0.8.5 (vllmfloor)").
//! Read from the vllm-0.8.5 wheel, torch 2.6.0's wheel METADATA and NVIDIA/nccl v2.21.5-1; nothing
//! here is fitted to the throughput rows. Two release facts tpsim now follows (the NCCL vLLM 0.8.5
//! runs; the symmetric-memory cutoff table only from vLLM 0.11.0) and the figures of the negative:
//! the light-load gap per collective, on boxes with and without NCCL's SHM transport.

use crate::common::*;

const IOG: &str = "github.com/IOG-Foundation/llm-inference-benchmarks";

/// vLLM 0.8.5 and 0.8.5.post1 require torch==2.6.0, whose wheel requires nvidia-nccl-cu12==2.21.5
/// (wheel METADATA); pynccl loads that libnccl. The IOG scenarios (engine.version "0.8.5") run it,
/// and say where it came from.
#[test]
fn vllm_0_8_5_runs_the_nccl_its_torch_pins() {
    for file in [
        "deepseek-r1-distill-qwen-14b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        "deepseek-r1-distill-qwen-14b-rtx4090x8-vllm-0.8.5-tp8-sharegpt-q1.toml",
        "deepseek-r1-distill-llama-8b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q8.toml",
    ] {
        let v = run_json(&scenario(&format!("validation/{file}")));
        assert_eq!(v["scenario"]["nccl_version"], "2.21.5", "{file}");
        assert_eq!(
            v["scenario"]["nccl_version_source"], "vllm 0.8.5's torch pin",
            "{file}"
        );
    }
}

/// A scenario of Llama-3.1-8B under vLLM `version` on 8 H200 (compute capability 9.0), custom
/// allreduce requested.
fn h200_vllm(version: &str) -> String {
    let dir = scratch(&format!("vllmfloor-{version}"));
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n\
         [engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 8\nallreduce = \"custom\"\n\
         [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 128\n"
    );
    let p = dir.join("scenario.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The algorithm `tpsim collective` picks per size (`custom …` or `nccl …`).
fn algorithms(file: &str, sizes: &str) -> Vec<String> {
    let o = tpsim(&["collective", file, "--json", "--sizes", sizes]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["algorithm"].as_str().unwrap().to_string())
        .collect()
}

/// The symmetric-memory cutoff table (`CUSTOM_ALL_REDUCE_MAX_SIZES["9.0"][8]` = 256 KiB) lowers the
/// custom allreduce's 8 MiB `max_size` only where `VLLM_ALLREDUCE_USE_SYMM_MEM` is on by default:
/// vLLM 0.11.0. vLLM 0.8.5 has no such allreduce and vLLM 0.10.2 defaults it to "0" (their wheels'
/// `envs.py`, `custom_all_reduce.py`), so there a 4 MiB allreduce on 8 H200 is still custom; 9 MiB
/// (above 8 MiB) is NCCL everywhere.
#[test]
fn symm_mem_cutoff_table_only_from_vllm_0_11() {
    for (version, at_4m) in [("0.8.5", "custom"), ("0.10.2", "custom"), ("0.11.0", "nccl")] {
        let a = algorithms(&h200_vllm(version), "4M,9M");
        assert!(a[0].starts_with(at_4m), "vLLM {version}, 4 MiB: {a:?}");
        assert!(a[1].starts_with("nccl"), "vLLM {version}, 9 MiB: {a:?}");
    }
}

/// One light-load row: (model, notes prefix, scenario file, collectives a decode step (2 a layer +
/// the final norm's), the allreduce tpsim runs, the gap per collective in µs).
type GapRow = (&'static str, &'static str, &'static str, f64, &'static str, f64);

/// The IOG rows at 1 request a second, where the batch is 1-3 and the step is the floor. The gap is
/// (1000 ÷ the row's tok/s − tpsim's median TPOT) ÷ collectives a step, by hand from throughput.tsv
/// and `tpsim run` at this commit: 14B on RTX 4090 (97 a step: 48 layers) TP 2 / 4 / 8
/// (1000/39.5 − 21.693) / 97 = 37.4, (1000/45.4 − 13.497) / 97 = 87.9, (1000/54.8 − 10.964) / 97 =
/// 75.1 µs (shm52: the RTX 4090 presets' borrowed SHM read fraction 0.4496 → 0.5859; 32.9, 83.9 and
/// 70.6 µs before, from 22.129, 13.883 and 11.400 ms); the 70B models on 2× H100 PCIe (161 a step: 80 layers), where vLLM's custom allreduce
/// runs over the bridge and no NCCL SHM is involved: (1000/18.8 − 47.010) / 161 = 38.4,
/// (1000/18.8 − 46.876) / 161 = 39.2, (1000/31.3 − 25.115) / 161 = 42.4 µs.
const LIGHT: &[GapRow] = &[
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "2x RTX 4090 TP 2 ShareGPT 1 qps:",
        "deepseek-r1-distill-qwen-14b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        97.0,
        "nccl",
        37.4,
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "4x RTX 4090 TP 4 ShareGPT 1 qps:",
        "deepseek-r1-distill-qwen-14b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q1.toml",
        97.0,
        "nccl",
        87.9,
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "8x RTX 4090 TP 8 ShareGPT 1 qps:",
        "deepseek-r1-distill-qwen-14b-rtx4090x8-vllm-0.8.5-tp8-sharegpt-q1.toml",
        97.0,
        "nccl",
        75.1,
    ),
    (
        "DeepSeek-R1-Distill-Llama-70B",
        "2x H100 PCIe TP 2 ShareGPT 1 qps:",
        "deepseek-r1-distill-llama-70b-h100pciex2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        161.0,
        "custom",
        38.4,
    ),
    (
        "Meta-Llama-3-70B-Instruct",
        "2x H100 PCIe TP 2 ShareGPT 1 qps:",
        "meta-llama-3-70b-instruct-h100pciex2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        161.0,
        "custom",
        39.2,
    ),
    (
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
        "2x H100 PCIe TP 2 ShareGPT 1 qps:",
        "llama-3.1-nemotron-70b-instruct-hf-fp8-dynamic-h100pciex2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        161.0,
        "custom",
        42.4,
    ),
];

/// The negative's figures (±0.5 µs a collective): at TP 2 the missing time per collective is 37-42 µs
/// whether the allreduce is NCCL over SHM (RTX 4090) or vLLM's custom allreduce over an NVLink bridge
/// (H100 PCIe), so the light-load gap is not the SHM transport's; on the RTX 4090 boxes it grows to
/// 75-88 µs at TP 4 / 8. One GPU is not short: the 32B models on one H100 PCIe at 1 req/s come out
/// 1.26 / 0.95 ms long (1000/24.2 − 42.581, 1000/24.1 − 42.446; ±0.02 ms). curves56: −1.33 → −1.26, the
/// H100 PCIe's measured FLOP curve (templates/h100-pcie.toml) shortens the prefill steps the median
/// TPOT at 1 req/s takes in (42.648 → 42.581 ms).
#[test]
fn light_load_gap_per_collective() {
    for (model, note, file, per_step, allreduce, want) in LIGHT {
        let tpot = 1000.0 / measured_throughput(IOG, model, |n| n.starts_with(note));
        let v = run_json(&scenario(&format!("validation/{file}")));
        assert_eq!(v["scenario"]["allreduce"], *allreduce, "{file}");
        let gap_us = (tpot - f(&v["serving"]["tpot_ms"]["p50"])) * 1000.0 / per_step;
        assert!(
            (gap_us - want).abs() < 0.5,
            "{file}: {gap_us} µs a collective, by hand {want}"
        );
    }
    for (model, file, want) in [
        (
            "DeepSeek-R1-Distill-Qwen-32B",
            "deepseek-r1-distill-qwen-32b-h100pcie-vllm-0.8.5-tp1-sharegpt-q1.toml",
            -1.26,
        ),
        (
            "QwQ-32B-Preview",
            "qwq-32b-preview-h100pcie-vllm-0.8.5-tp1-sharegpt-q1.toml",
            -0.95,
        ),
    ] {
        let tpot =
            1000.0 / measured_throughput(IOG, model, |n| n.starts_with("1x H100 PCIe TP 1 ShareGPT 1 qps:"));
        let v = run_json(&scenario(&format!("validation/{file}")));
        let gap = tpot - f(&v["serving"]["tpot_ms"]["p50"]);
        assert!((gap - want).abs() < 0.02, "{file}: {gap} ms, by hand {want}");
    }
}

//! families21 (issue #17): Apertus (`ApertusForCausalLM`), MiniCPM (`MiniCPMForCausalLM`) and MiniCPM3
//! (`MiniCPM3ForCausalLM`) end to end. The weights and cells are pinned by hand in
//! `model/src/llm/tests_families21.rs`; here the examples run under both engines (MiniCPM3 with each
//! engine's own KV layout) and releases before each engine's first file are refused.

use crate::common::*;

const APERTUS_SGLANG: &str = "examples/apertus-8b-instruct-2509-sglang-rtx4090x2.toml";
const MINICPM4_VLLM: &str = "examples/minicpm4-8b-vllm-rtx4090x2.toml";
const MINICPM3_SGLANG: &str = "examples/minicpm3-4b-sglang-rtx4090.toml";

/// The Apertus example under `engine` (vLLM: `context_length` becomes `max_model_len`).
fn apertus(name: &str, engine: &str, version: Option<&str>) -> String {
    let p = engine_variant(APERTUS_SGLANG, "sglang", name, engine, version);
    if engine == "vllm" {
        let text = std::fs::read_to_string(&p)
            .unwrap()
            .replace("context_length = 32768", "max_model_len = 32768");
        std::fs::write(&p, text).unwrap();
    }
    p
}

/// Apertus-8B at tp 2: 4,026,806,336 parameters a rank (`tests_families21`) × 2 B = 8,053,612,672 B is
/// SGLang's weights line exactly and a floor of vLLM's (which adds its rotary cache, under 1 GiB).
/// Cell: 32 layers × 4 KV heads a rank × 2 × 128 × 2 B = 65,536 under both; two all-reduces a layer ×
/// 32 + the embedding's = 65.
#[test]
fn apertus_example_runs_under_both_engines() {
    let sg = run_json(&scenario(APERTUS_SGLANG));
    assert_eq!(entry_bytes(&sg, "target weights"), 8_053_612_672);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    assert_eq!(sg["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 65);
    assert!(f(&sg["throughput"]["tpot_ms"]) > 0.0);

    let vl = run_json(&apertus("apertus-vllm", "vllm", None));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 8_053_612_672, "{w}");
    assert!(w < 8_053_612_672 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 65);
}

/// SGLang ships `models/apertus.py` from 0.5.3rc0, vLLM from 0.10.2 (read from the wheels' file
/// lists): SGLang 0.5.2 and vLLM 0.10.1.1 are refused on `engine.version`, naming the file.
#[test]
fn apertus_before_its_first_release_is_refused() {
    let out = tpsim(&["run", &apertus("apertus-sg-052", "sglang", Some("0.5.2"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.version"), "{}", out.stderr);
    assert!(
        out.stderr.contains("SGLang 0.5.2 has no models/apertus.py"),
        "{}",
        out.stderr
    );
    let out = tpsim(&["run", &apertus("apertus-vl-01011", "vllm", Some("0.10.1.1"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("vLLM adds it in 0.10.2"), "{}", out.stderr);
    let out = tpsim(&["run", &apertus("apertus-vl-0102", "vllm", Some("0.10.2"))]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// MiniCPM4-8B at tp 2: 4,092,858,368 parameters a rank (`tests_families21`, the vocabulary padded to
/// 73,472) × 2 B = 8,185,716,736 B is SGLang's weights line exactly and a floor of vLLM's. Cell: 32
/// layers × 1 KV head a rank × 2 × 128 × 2 B = 16,384 under both; 65 all-reduces a pass.
#[test]
fn minicpm4_example_runs_under_both_engines() {
    let vl = run_json(&scenario(MINICPM4_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 8_185_716_736, "{w}");
    assert!(w < 8_185_716_736 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 16_384);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 65);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);

    let sg = run_json(&engine_variant(
        MINICPM4_VLLM,
        "vllm",
        "minicpm4-sglang",
        "sglang",
        None,
    ));
    assert_eq!(entry_bytes(&sg, "target weights"), 8_185_716_736);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 16_384);
}

/// MiniCPM3-4B at tp 1, each engine's layout (`tests_families21`). SGLang: the latent (256 + 32) ×
/// 62 × 2 B = 35,712 a token and the absorbed copies, 4,155,202,048 × 2 B = 8,310,404,096 B of
/// weights exactly, an MLA backend. vLLM (max_model_len 8,192 so that it starts): per-head K/V, 40 × 2
/// × 96 × 62 × 2 B = 952,320 a token, no copies (8,310,404,096 − 162,529,280 = 8,147,874,816 B, a
/// floor of its weights line, which adds no rotary cache for the model but the allocator's rounding),
/// and a plain attention backend (vLLM does not take its MLA path for `minicpm3`).
#[test]
fn minicpm3_cells_follow_each_engine() {
    let sg = run_json(&scenario(MINICPM3_SGLANG));
    assert_eq!(entry_bytes(&sg, "target weights"), 8_310_404_096);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 35_712);
    assert!(f(&sg["throughput"]["tpot_ms"]) > 0.0);

    let p = engine_variant(MINICPM3_SGLANG, "sglang", "minicpm3-vllm", "vllm", None);
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("tp = 1\n", "tp = 1\nmax_model_len = 8192\n");
    std::fs::write(&p, text).unwrap();
    let vl = run_json(&p);
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 8_147_874_816, "{w}");
    assert!(w < 8_147_874_816 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 952_320);
    let backend = vl["scenario"]["attention_backend"].as_str().unwrap().to_string();
    assert!(!backend.contains("MLA"), "{backend}");
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);
}

/// hybrid50: the example's batches of 32 exceed SGLang 0.5.8's `cuda_graph_max_bs` of 24 on a 24 GB
/// GPU at tp 1, so its decode steps run eager and the host launches every kernel of `minicpm3.py`:
/// 62 layers × (42 + 6) (`tests_families21::minicpm3_sglang_layer_kernels`) + 1 for the step's
/// head + 1 for the `hidden_states / scale_width` before it (hybrids51, `minicpm3.py`
/// `MiniCPM3ForCausalLM.forward`) = 2,978 launches × SGLang's `launch_overhead` 31.7 µs = 94.4026 ms
/// of `launch` on the step's critical path (the DeepSeek-V2 template's 931 gave 29.5127 ms; hybrid50's
/// count without the scaling 2,977, 94.3709 ms). Tolerance 1 µs (rounding).
#[test]
fn minicpm3_sglang_eager_step_launches_every_kernel() {
    let sg = run_json(&scenario(MINICPM3_SGLANG));
    let launch = f(&sg["breakdown_by_op"]["launch"]);
    assert!((launch - 94.4026).abs() < 1e-3, "{launch}");
}

/// MiniCPM3's first releases: SGLang `models/minicpm3.py` from 0.3.1 is older than any SGLang
/// release tpsim runs, so only vLLM's bound (0.6.2; 0.6.1.post2 has only `minicpm.py`) is reachable
/// from a scenario; its refusal names the file.
#[test]
fn minicpm3_before_vllm_0_6_2_is_refused() {
    let p = engine_variant(
        MINICPM3_SGLANG,
        "sglang",
        "minicpm3-vl-0612",
        "vllm",
        Some("0.6.1.post2"),
    );
    let out = tpsim(&["run", &p]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("models/minicpm3.py"), "{}", out.stderr);
    assert!(out.stderr.contains("vLLM adds it in 0.6.2"), "{}", out.stderr);
}

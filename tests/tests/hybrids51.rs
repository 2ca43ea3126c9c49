//! hybrids51 (issue #17): the hybrid-model engine rules that were missing.
//!
//! 1. SGLang's overlap scheduler / radix cache for Nemotron-H, Falcon-H1, Granite-4.0-H, Kimi-Linear,
//!    LFM2 and LFM2-MoE by release (`tpsim::scenario::sglang_overlap`; read in the PyPI wheels'
//!    `srt/server_args.py` 0.5.1 – 0.5.23, `srt/arg_groups/overrides.py` 0.5.15 – 0.5.23 and
//!    `srt/model_executor/model_runner.py` 0.5.2 – 0.5.7).
//! 2. vLLM's LFM2 / LFM2-MoE prefix-caching assertion (`models/lfm2.py`, `models/lfm2_moe.py`).
//! 3. vLLM's short-conv projections without `quant_config` before 0.27.0
//!    (`model_executor/layers/mamba/short_conv.py`).
//! 4. MiniCPM's muP scalings and float casts as SGLang launches them (`models/minicpm.py`).

use crate::common::*;
use tpsim::scenario::sglang_overlap::{Launch, settle};
use tpsim_model::llm::{Architecture as A, ModelSpec, Quantization, WeightDtype, WeightFormat};

/// A launch with the radix cache and the overlap scheduler on, Triton attention, no speculative
/// decoding, on CUDA.
fn launch(version: &str, arch: A) -> Launch<'_> {
    Launch::radix_and_overlap(version, arch)
}

/// (overlap, radix cache) after SGLang's adjustment.
fn outcome(l: &Launch) -> (bool, bool) {
    let s = settle(l).unwrap();
    (s.overlap, s.radix_cache)
}

/// Each release's (overlap, radix cache) for the six hybrids, read from the wheels (module doc of
/// `sglang_overlap`; exact): `model_runner.py` drops the radix cache for Falcon-H1 (0.5.3 as a
/// "Hybrid GDN" model, 0.5.4 – 0.5.6 by `mamba2_config`) and Nemotron-H (0.5.4 – 0.5.6); Kimi-Linear's
/// branch drops it 0.5.5 – 0.5.13; with the radix cache kept the `no_buffer` strategy turns the
/// overlap off (Nemotron-H and Falcon-H1 0.5.7 – 0.5.13, Granite-4.0-H and LFM2 0.5.9 – 0.5.13); from
/// 0.5.14 `auto` takes `extra_buffer` (overlap kept) for Nemotron-H, Falcon-H1, Granite-4.0-H and
/// (0.5.16 on) Kimi-Linear, `no_buffer` (overlap off) for Kimi-Linear 0.5.14 – 0.5.15, LFM2 and
/// (0.5.17 on, when it enters the branch) LFM2-MoE. 0.5.30 (unread) is taken as 0.5.23.
#[test]
fn overlap_and_radix_by_release() {
    const T: (bool, bool) = (true, true); // both kept
    const R: (bool, bool) = (true, false); // radix cache off
    const O: (bool, bool) = (false, true); // overlap off
    // (version, Nemotron-H, Falcon-H1, Granite-4.0-H, Kimi-Linear, LFM2, LFM2-MoE)
    let table: [(&str, [(bool, bool); 6]); 15] = [
        ("0.5.1", [T, T, T, T, T, T]),
        ("0.5.2", [T, T, T, T, T, T]),
        ("0.5.3", [T, R, T, T, T, T]),
        ("0.5.4", [R, R, T, T, T, T]),
        ("0.5.5", [R, R, T, R, T, T]),
        ("0.5.6", [R, R, T, R, T, T]),
        ("0.5.7", [O, O, T, R, T, T]),
        ("0.5.8", [O, O, T, R, T, T]),
        ("0.5.9", [O, O, O, R, O, T]),
        ("0.5.13", [O, O, O, R, O, T]),
        ("0.5.14", [T, T, T, O, O, T]),
        ("0.5.15", [T, T, T, O, O, T]),
        ("0.5.16", [T, T, T, T, O, T]),
        ("0.5.17", [T, T, T, T, O, O]),
        ("0.5.30", [T, T, T, T, O, O]),
    ];
    let archs = [
        A::NemotronH,
        A::FalconH1,
        A::GraniteMoeHybrid,
        A::KimiLinear,
        A::Lfm2,
        A::Lfm2Moe,
    ];
    for (v, want) in table {
        for (a, w) in archs.iter().zip(want) {
            assert_eq!(outcome(&launch(v, *a)), w, "{v} {a:?}");
        }
    }
    // Granite-4.0 without a Mamba layer (Granite-4.0-Micro's all-attention config) is not in the
    // branch (`any(layer_type == "mamba")`).
    for v in ["0.5.9", "0.5.14"] {
        let l = Launch {
            has_linear: false,
            ..launch(v, A::GraniteMoeHybrid)
        };
        assert_eq!(outcome(&l), T, "{v}");
    }
    // The radix cache off at launch: nothing changes, nothing is logged.
    let s = settle(&Launch {
        radix_cache: false,
        ..launch("0.5.9", A::NemotronH)
    })
    .unwrap();
    assert!(s.overlap && s.warnings.is_empty());
}

/// The log lines quoted (SGLang's text, the class name or config class filled in).
#[test]
fn log_lines_by_release() {
    let first = |v: &str, a: A| settle(&launch(v, a)).unwrap().warnings[0].clone();
    assert_eq!(
        first("0.5.3", A::FalconH1),
        "SGLang: Hybrid GDN model detected, disable radix cache"
    );
    assert_eq!(
        first("0.5.4", A::NemotronH),
        "SGLang: NemotronHConfig model detected, disable radix cache"
    );
    assert_eq!(
        first("0.5.13", A::KimiLinear),
        "SGLang: Disabling Radix Cache for KimiLinearForCausalLM as it is not yet supported."
    );
    assert!(first("0.5.7", A::NemotronH).starts_with(
        "SGLang: Disabling overlap schedule since MambaRadixCache is not compatible with overlap schedule \
         currently, try to use --disable-radix-cache if overlap schedule is necessary"
    ));
    assert!(first("0.5.9", A::Lfm2).starts_with(
        "SGLang: Disabling overlap schedule since mamba no_buffer is not compatible with overlap schedule, try \
         to use --disable-radix-cache if overlap schedule is necessary"
    ));
    assert!(first("0.5.14", A::Lfm2).contains("auto → no_buffer for Lfm2ForCausalLM"));
    assert!(first("0.5.14", A::NemotronH).contains("extra_buffer for NemotronHForCausalLM"));
}

/// Speculative decoding and `trtllm_mha` with the radix cache on (exact, from the wheels): Nemotron-H
/// 0.5.7 has no speculative branch (the overlap goes), 0.5.8 and 0.5.9 drop the radix cache, 0.5.10
/// refuses, 0.5.11 – 0.5.13 refuse on CUDA and drop the radix cache on ROCm, 0.5.14 takes
/// `extra_buffer`; Falcon-H1 0.5.7 with `trtllm_mha` loses the radix cache and keeps the overlap;
/// LFM2 0.5.14 (`no_buffer`) with `trtllm_mha` is refused.
#[test]
fn speculative_and_trtllm_mha() {
    let spec = |v| Launch {
        speculative: true,
        ..launch(v, A::NemotronH)
    };
    assert_eq!(outcome(&spec("0.5.7")), (false, true));
    assert_eq!(outcome(&spec("0.5.8")), (true, false));
    assert_eq!(outcome(&spec("0.5.9")), (true, false));
    let e = settle(&spec("0.5.10")).unwrap_err();
    assert!(
        e.contains("Speculative decoding for NemotronHForCausalLM is not compatible with radix cache"),
        "{e}"
    );
    assert!(settle(&spec("0.5.11")).is_err());
    let rocm = settle(&Launch {
        rocm: true,
        ..spec("0.5.11")
    })
    .unwrap();
    assert!(rocm.overlap && !rocm.radix_cache);
    assert!(rocm.warnings[0].contains("on ROCm devices. Automatically disabling radix cache."));
    assert_eq!(outcome(&spec("0.5.14")), (true, true));
    let trt = |v, a| Launch {
        backend: Some("trtllm_mha"),
        ..launch(v, a)
    };
    assert_eq!(outcome(&trt("0.5.7", A::FalconH1)), (true, false));
    assert_eq!(outcome(&trt("0.5.9", A::Lfm2)), (true, false));
    let e = settle(&trt("0.5.14", A::Lfm2)).unwrap_err();
    assert!(
        e.contains("no_buffer do not support trtllm_mha attention backend."),
        "{e}"
    );
}

const NEMOTRON: &str = "examples/nemotron-3-nano-30b-a3b-sglang-rtx4090x4.toml";

/// The Nemotron-3-Nano example (no `engine.version`: SGLang 0.5.9 since release52, whose `no_buffer`
/// check words the warning; 0.5.8's said "MambaRadixCache is not compatible", the radix cache on) runs
/// without the overlap scheduler: each decode step waits for the scheduler's host work (engines/sglang.toml
/// `host_overhead`, 300 µs, assumed), so the example's mean TPOT (`throughput.tpot_ms`, 15.15 →
/// 15.45 ms a step) grows by 0.300 ms (± 0.001 ms of rounding) against the same run with
/// `disable_radix_cache = true` and `max_running_requests = 16`, where SGLang keeps the overlap (without
/// the radix cache the state pool is sized by the running-request cap, which the example's 16
/// requests reach either way; the workload shares no prefix). Under 0.5.6 `model_runner.py` drops the
/// radix cache itself ("NemotronHConfig model detected, disable radix cache") and keeps the overlap.
#[test]
fn nemotron_example_loses_the_overlap_scheduler() {
    assert_overlap_off_costs_host_overhead(
        NEMOTRON,
        "nemotron-noradix",
        "max_running_requests = 16\n",
        "Disabling overlap schedule since mamba no_buffer is not compatible with overlap schedule",
    );
    let old = run_json(&edited_variant(NEMOTRON, "nemotron-056", |t| {
        t.replace("[engine]\n", "[engine]\nversion = \"0.5.6\"\n")
    }));
    assert!(warned(
        &old,
        "NemotronHConfig model detected, disable radix cache"
    ));
    assert!(!warned(&old, "Disabling overlap schedule"));
}

/// LFM2-1.2B under SGLang 0.5.14 on a B200 box with `trtllm_mha` named and the radix cache on: `auto` takes
/// `no_buffer` (LFM2 is not in the extra-buffer list), whose check refuses the backend — through the
/// CLI, exit 2 naming the key.
#[test]
fn lfm2_sglang_0514_trtllm_mha_is_refused_through_the_cli() {
    let p = edited_variant("examples/lfm2-8b-a1b-vllm-rtx4090x2.toml", "lfm2-trtllm", |t| {
        t.replace(
            "name = \"vllm\"",
            "name = \"sglang\"\nversion = \"0.5.14\"\nattention_backend = \"trtllm_mha\"",
        )
        .replace("max_model_len = 32768", "context_length = 32768")
        .replace("preset = \"lfm2-8b-a1b\"", "preset = \"lfm2-1.2b\"")
        .replace("[engine]\n", "[engine]\ncosts.era = \"late-2025\"\n")
        .replace("preset = \"rtx-4090-2x-no-p2p\"", "preset = \"b200-8x-nvlink\"")
    });
    let o = tpsim(&["run", &p]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("engine.disable_radix_cache"), "{}", o.stderr);
    assert!(
        o.stderr.contains("no_buffer do not support trtllm_mha"),
        "{}",
        o.stderr
    );
}

const LFM2_MOE_VLLM: &str = "examples/lfm2-8b-a1b-vllm-rtx4090x2.toml";

/// vLLM with `enable_prefix_caching = true`: LFM2-MoE asserts it off in 0.11.1 – 0.15.0 (the 0.13.0
/// wheel's "Lfm2Moe currently does not support prefix caching"): refused, exit 2 naming the key;
/// 0.16.0 has no assertion and runs. 0.11.1's `MambaModelConfig` turns prefix caching off first
/// (its log line), so the assertion never fires there.
#[test]
fn vllm_lfm2_prefix_caching_assertion() {
    let at = |v: &str| {
        edited_variant(LFM2_MOE_VLLM, &format!("lfm2-pc-{v}"), |t| {
            t.replace(
                "[engine]\n",
                &format!("[engine]\nversion = \"{v}\"\nenable_prefix_caching = true\n"),
            )
        })
    };
    let o = tpsim(&["run", &at("0.13.0")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("engine.enable_prefix_caching"), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("Lfm2Moe currently does not support prefix caching"),
        "{}",
        o.stderr
    );
    assert_eq!(tpsim(&["run", &at("0.16.0")]).code, 0);
    let old = run_json(&at("0.11.1"));
    assert!(warned(
        &old,
        "Hybrid or mamba-based model detected: disabling prefix caching"
    ));
}

/// LFM2-8B-A1B with FP8 weights (one fp32 scale per tensor) at tp 2: vLLM before 0.27.0 builds the
/// short conv's `in_proj` / `out_proj` without `quant_config`, so each of the 18 conv layers holds
/// them at bf16: in_proj 3 × 1,024 × 2,048 = 6,291,456 and out_proj 2,048 × 1,024 = 2,097,152
/// parameters a rank, 2 B each = 16,777,216 B, where the FP8 build holds 8,388,608 + 2 × 4 (scales)
/// = 8,388,616 B: 8,388,600 B more a layer, 150,994,800 B a rank. Exact.
#[test]
fn vllm_short_conv_projections_stay_bf16() {
    let text = std::fs::read_to_string(scenario("models/lfm2-8b-a1b/config.json")).unwrap();
    let fp8 = Quantization {
        weights: WeightFormat {
            dtype: WeightDtype::Fp8,
            ..WeightFormat::plain(WeightDtype::Bf16)
        },
        ..Quantization::bf16()
    };
    let sglang = ModelSpec::from_config_json(&text, fp8).unwrap();
    let mut old = sglang.clone();
    old.serve_lfm2_as_vllm([0, 26]);
    let mut new = sglang.clone();
    new.serve_lfm2_as_vllm([0, 27]);
    let w = |m: &ModelSpec| m.weight_bytes_per_rank(2).0;
    assert_eq!(w(&old) - w(&sglang), 150_994_800);
    assert_eq!(w(&new), w(&sglang));
    // bf16 weights: no difference.
    let mut bf = ModelSpec::from_config_json(&text, Quantization::bf16()).unwrap();
    let before = w(&bf);
    bf.serve_lfm2_as_vllm([0, 26]);
    assert_eq!(w(&bf), before);
}

/// MiniCPM4-8B under SGLang (`minicpm.py`): a decode layer's attention half launches the template's
/// 5 (RMSNorm, qkv_proj, rotary, attention, o_proj) + q/k `.float()` and `.to(orig_dtype)` (4) + the
/// muP multiply and residual add (2) = 11, its MLP half RMSNorm, gate_up_proj, SiluAndMul, down_proj,
/// multiply, add = 6; the pass adds `× scale_emb` after the embedding and `/ scale_width` before the
/// head (1, 1). MiniCPM4's LongRoPE rotary runs as 22 PyTorch kernels under SGLang 0.5.8 where the
/// template counts 1 (rope51, `llm::partial_rotary`): its attention half is 11 + 21 = 32. As lowered (vLLM's compiled graph) the template's 5 + 4 and (0, 0). MiniCPM3-4B
/// keeps hybrid50's 42 + 6 and gains the same (1, 1) a pass. Exact.
#[test]
fn minicpm_sglang_mup_kernels() {
    let load = |p: &str| bf16_spec(scenario(p));
    let m4 = load("models/minicpm4-8b/config.json");
    let l = &m4.forward_pass(1, 32).layers[0];
    assert_eq!((l.attn_kernels, l.ffn_kernels), (5, 4));
    assert_eq!(m4.pass_extra_kernels(), (0, 0));
    let mut s4 = m4.clone();
    s4.serve_as_sglang(Some([0, 5, 8]));
    let fp = s4.forward_pass(1, 32);
    assert!(
        fp.layers
            .iter()
            .all(|l| (l.attn_kernels, l.ffn_kernels) == (32, 6))
    );
    assert_eq!(s4.pass_extra_kernels(), (1, 1));
    let mut m3 = load("models/minicpm3-4b/config.json");
    m3.serve_as_sglang(Some([0, 5, 8]));
    let l = &m3.forward_pass(1, 32).layers[0];
    assert_eq!((l.attn_kernels, l.ffn_kernels), (42, 6));
    assert_eq!(m3.pass_extra_kernels(), (1, 1));
}

/// SGLang with pp > 1 logs "Pipeline parallelism is incompatible with overlap schedule."
/// (`server_args.py` `_handle_pipeline_parallelism`, every wheel read from 0.4.9 to 0.5.23); vLLM
/// does not, and SGLang at pp 1 does not.
#[test]
fn sglang_pipeline_parallelism_logs_the_overlap_line() {
    const PP: &str = "examples/llama-3.1-70b-pp2-tp4-rtx6000x8.toml";
    let line = "Pipeline parallelism is incompatible with overlap schedule.";
    assert!(warned(&run_json(&scenario(PP)), line));
    let pp1 = run_json(&edited_variant(PP, "pp-1", |t| {
        t.replace("pp_size = 2", "pp_size = 1")
    }));
    assert!(!warned(&pp1, line));
    let vl = run_json(&edited_variant(PP, "pp-vllm", |t| {
        t.replace("name = \"sglang\"", "name = \"vllm\"")
    }));
    assert!(!warned(&vl, line));
}

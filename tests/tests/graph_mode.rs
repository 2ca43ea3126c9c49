//! graphmode: vLLM's `compilation_config.cudagraph_mode` (`engine.cudagraph_mode`,
//! `sim/src/scenario/cudagraph_mode.rs`): the key, its defaults by release, the engine's fallbacks,
//! the flag forms `engine-args` prints and `import-command` reads, and the host cost of PIECEWISE
//! graphs (`sim/src/decode/passes/piecewise.rs`).

use crate::common::*;
use tpsim::decode::predict;
use tpsim::scenario::cudagraph_mode::CudagraphMode;
use tpsim::scenario::load_str;

/// A vLLM Qwen2.5-7B scenario on one H100 at batch 1 with `extra` appended to `[engine]`.
fn text(extra: &str) -> String {
    format!(
        "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"qwen2.5-7b\"\n[engine]\nname = \"vllm\"\n\
         tp = 1\n{extra}\n[workload]\nconcurrency = 1\nnum_requests = 2\nprompt_len = 64\noutput_len = 16\n"
    )
}

fn load(extra: &str) -> Result<tpsim::scenario::Scenario, String> {
    load_str(&text(extra), std::path::Path::new("gm.toml")).map_err(|e| e.to_string())
}

/// (TPOT ms, critical-path launch ms) of the scenario.
fn run(extra: &str) -> (f64, f64) {
    let s = load(extra).unwrap();
    let p = predict(&s).unwrap().main;
    (p.tpot_ms(), p.by_op_ms().get("launch").copied().unwrap_or(0.0))
}

#[test]
fn default_mode_follows_the_release() {
    // vLLM PR 25444: FULL_AND_PIECEWISE from 0.11.0; PIECEWISE in 0.8-0.10 (V1); V0 before 0.8
    // captured whole decode forwards (FULL_DECODE_ONLY's split).
    let mode = |v: &str| load(&format!("version = \"{v}\"")).unwrap().engine.cudagraph_mode;
    assert_eq!(mode("0.10.2"), Some(CudagraphMode::Piecewise));
    assert_eq!(mode("0.11.0"), Some(CudagraphMode::FullAndPiecewise));
    assert_eq!(mode("0.19.0"), Some(CudagraphMode::FullAndPiecewise));
    assert_eq!(mode("0.5.3"), Some(CudagraphMode::FullDecodeOnly));
    // SGLang has no such mode.
    let s = load_str(
        &text("").replace("name = \"vllm\"", "name = \"sglang\""),
        std::path::Path::new("gm.toml"),
    )
    .unwrap();
    assert_eq!(s.engine.cudagraph_mode, None);
}

#[test]
fn enforce_eager_and_never_captured_backends_override_the_mode() {
    // --enforce-eager: NONE, with a warning naming the mode replaced.
    let s = load("cuda_graph = false\ncudagraph_mode = \"FULL\"").unwrap();
    assert_eq!(s.engine.cudagraph_mode, Some(CudagraphMode::None));
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("\"FULL\" is replaced by NONE")),
        "{:?}",
        s.warnings
    );
    // NONE itself turns graphs off (no capture memory, every kernel launched).
    let s = load("cudagraph_mode = \"none\"").unwrap();
    assert!(!s.engine.cuda_graph);
    // graphverify: FlexAttention's builder cannot be captured (AttentionCGSupport.NEVER, as vLLM
    // logs for `FlexAttentionMetadataBuilder`): `_check_and_update_cudagraph_mode` turns the FULL
    // decode of FULL_AND_PIECEWISE and of FULL_DECODE_ONLY into PIECEWISE (attention is a splitting op
    // by default, `set_splitting_ops_for_v1`), with its warning.
    let s = load("attention_backend = \"FLEX_ATTENTION\"").unwrap();
    assert_eq!(s.engine.cudagraph_mode, Some(CudagraphMode::Piecewise));
    let w = "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with FLEX_ATTENTION backend (support: \
             AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE because attention is compiled piecewise";
    assert!(s.warnings.iter().any(|x| x == w), "{:?}", s.warnings);
    let s = load("attention_backend = \"FLEX_ATTENTION\"\ncudagraph_mode = \"FULL_DECODE_ONLY\"").unwrap();
    assert_eq!(s.engine.cudagraph_mode, Some(CudagraphMode::Piecewise));
}

/// graphverify: the backend-dependent resolution of `GPUModelRunner._check_and_update_cudagraph_mode`
/// (vLLM ≥ 0.11.1; `sim/src/scenario/cudagraph_support.rs`) and the levels of
/// `docs/design/cuda_graphs.md` and `flash_attn.py`.
#[test]
fn the_mode_is_settled_against_the_attention_backend() {
    let mode = |extra: &str| {
        let s = load(extra).unwrap();
        (s.engine.cudagraph_mode, s.warnings)
    };
    // FULL needs ALWAYS: FlashAttention 3 (SM 9.0, this H100) keeps it, no warning.
    let (m, w) = mode("attention_backend = \"FLASH_ATTN\"\ncudagraph_mode = \"FULL\"");
    assert_eq!(m, Some(CudagraphMode::Full));
    assert!(!w.iter().any(|x| x.contains("CUDAGraphMode")), "{w:?}");
    // FlashInfer (UNIFORM_SINGLE_TOKEN_DECODE): FULL becomes FULL_AND_PIECEWISE, with vLLM's warning.
    let (m, w) = mode("attention_backend = \"FLASHINFER\"\ncudagraph_mode = \"FULL\"");
    assert_eq!(m, Some(CudagraphMode::FullAndPiecewise));
    let expect = "CUDAGraphMode.FULL is not supported with FLASHINFER backend (support: \
                  AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting cudagraph_mode=FULL_AND_PIECEWISE";
    assert!(w.iter().any(|x| x == expect), "{w:?}");
    // The default FULL_AND_PIECEWISE with FlashInfer keeps its FULL decode.
    assert_eq!(
        mode("attention_backend = \"FLASHINFER\"").0,
        Some(CudagraphMode::FullAndPiecewise)
    );
    // vLLM's own pick counts too: DeepSeek-V2-Lite (MLA) on an A100 gets TRITON_MLA (no FlashMLA,
    // FA3 or CUTLASS MLA below SM 9.0), NEVER (as vLLM logs for `TritonMLABackend`): the default
    // FULL_AND_PIECEWISE decodes PIECEWISE, each layer's attention launched from the host.
    let a100 = text("version = \"0.11.0\"")
        .replace("h100-sxm-1x", "a100-sxm4-80gb-1x")
        .replace("qwen2.5-7b", "deepseek-v2-lite");
    let s = load_str(&a100, std::path::Path::new("gm.toml")).unwrap();
    assert_eq!(s.engine.attention_backend.as_deref(), Some("TRITON_MLA"));
    assert_eq!(s.engine.cudagraph_mode, Some(CudagraphMode::Piecewise));
    assert!(
        s.warnings
            .iter()
            .any(|x| x.contains("TRITON_MLA backend (support: AttentionCGSupport.NEVER)")),
        "{:?}",
        s.warnings
    );
    // FULL with a NEVER backend: vLLM raises ValueError (exit 2 with its text).
    let p = scratch("gm-flex-full").join("s.toml");
    std::fs::write(
        &p,
        text("attention_backend = \"FLEX_ATTENTION\"\ncudagraph_mode = \"FULL\""),
    )
    .unwrap();
    let o = tpsim(&["run", p.to_str().unwrap()]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("engine.cudagraph_mode")
            && o.stderr.contains("please try cudagraph_mode=PIECEWISE"),
        "{}",
        o.stderr
    );
}

#[test]
fn bad_values_are_refused_with_exit_2() {
    for (name, extra, expect) in [
        (
            "gm-bogus",
            "cudagraph_mode = \"FULLGRAPH\"",
            "expected one of NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE",
        ),
        (
            "gm-old",
            "version = \"0.10.2\"\ncudagraph_mode = \"FULL\"",
            "from vLLM 0.11.0",
        ),
        (
            "gm-extra",
            "extra_args = [\"-cc.cudagraph_mode=PIECEWISE\"]",
            "stated by the scenario key engine.cudagraph_mode",
        ),
        (
            "gm-extra-json",
            "extra_args = [\"--compilation-config\", '{\"cudagraph_mode\": \"FULL\"}']",
            "stated by the scenario key engine.cudagraph_mode",
        ),
        (
            "gm-dotted-plain",
            "extra_args = [\"--max-num-seqs.x=3\"]",
            "unrecognized arguments: --max-num-seqs.x",
        ),
    ] {
        let p = scratch(name).join("s.toml");
        std::fs::write(&p, text(extra)).unwrap();
        let o = tpsim(&["run", p.to_str().unwrap()]);
        assert_eq!(o.code, 2, "{name}: {}", o.stderr);
        assert!(
            o.stderr.contains("engine.") && o.stderr.contains(expect),
            "{name}: {}",
            o.stderr
        );
    }
    let p = scratch("gm-sglang").join("s.toml");
    std::fs::write(
        &p,
        text("cudagraph_mode = \"PIECEWISE\"").replace("name = \"vllm\"", "name = \"sglang\""),
    )
    .unwrap();
    let o = tpsim(&["run", p.to_str().unwrap()]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("engine.cudagraph_mode") && o.stderr.contains("a vLLM setting"),
        "{}",
        o.stderr
    );
}

#[test]
fn engine_args_prints_and_import_command_reads_the_mode() {
    let p = scratch("gm-args").join("s.toml");
    std::fs::write(&p, text("cudagraph_mode = \"piecewise\"")).unwrap();
    let o = tpsim(&["engine-args", p.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains(r#"--compilation-config '{"cudagraph_mode": "PIECEWISE"}'"#),
        "{}",
        o.stdout
    );
    // The dotted form and the JSON form, the JSON's other fields kept in extra_args.
    let o = tpsim(&[
        "import-command",
        "--hardware",
        "h100-sxm-1x",
        "vllm serve Qwen/Qwen2.5-7B-Instruct -cc.cudagraph_mode=PIECEWISE",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("cudagraph_mode = \"PIECEWISE\""),
        "{}",
        o.stdout
    );
    let o = tpsim(&[
        "import-command",
        "--hardware",
        "h100-sxm-1x",
        r#"vllm serve Qwen/Qwen2.5-7B-Instruct --compilation-config '{"cudagraph_mode":"FULL_DECODE_ONLY","mode":3}'"#,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("cudagraph_mode = \"FULL_DECODE_ONLY\""),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains(r#"extra_args = ["--compilation-config", '{"mode":3}']"#),
        "{}",
        o.stdout
    );
}

#[test]
fn piecewise_launches_each_attention_from_the_host() {
    // Full graphs (the 0.19 default) launch nothing; NONE is --enforce-eager exactly.
    let (full, l_full) = run("");
    assert!(l_full.abs() < 1e-12, "{l_full}");
    assert_eq!(run("cudagraph_mode = \"NONE\""), run("cuda_graph = false"));
    // PIECEWISE, GPU-bound (a Qwen2.5-7B layer reads ≈ 0.5 GB, ≈ 0.16 ms on an H100, against
    // 28.1 + 9.75 = 37.85 µs of host time a layer): only the first layer's launch is on the
    // critical path. splitkv50: at this 64-token prompt the two modes also differ on the GPU. Under
    // full graphs vLLM passes FA3 max_num_splits = 32 (0.11.0 wheel's v1/attention/backends/
    // flash_attn.py: only when `use_full_cuda_graph`), so each of the 28 layers launches the
    // combine kernel; under PIECEWISE it passes 0 and FA3's heuristic keeps ≤ 80 tokens (1 tile
    // of 128, ≤ 4) in one split: no combine. Full is then slower by 28 combines (≈ 3.1 µs each:
    // the Hopper 3 µs kernel_overhead plus its few bytes) less the 37.85 µs launch:
    // 28 × 3 − 37.85 = 46.15 µs ≤ full − piecewise ≤ 28 × 3.2 − 37.85 = 51.75 µs.
    let (pw, l_pw) = run("cudagraph_mode = \"PIECEWISE\"");
    assert!((l_pw - 0.03785).abs() < 1e-9, "launch {l_pw} ms");
    let d = full - pw;
    assert!(
        (0.04615..0.05175).contains(&d),
        "piecewise {pw} ms, full {full} ms"
    );
    // At a 4,096-token prompt both modes split and launch the combine: 4,097-4,111 tokens are 33
    // tiles; FA3's heuristic over 4 KV heads on 132 SMs reaches 85 % of the best wave efficiency
    // (1.0 at 33) at 29 splits (116 / 132 = 0.879), full graphs 32; the dynamic count is cdiv(33,
    // ceil(33 × 1.1 × 4 / 132) = 2) = 17 under both. The step grows by the launch alone.
    let long = |extra: &str| {
        let t = text(extra).replace("prompt_len = 64", "prompt_len = 4096");
        let s = load_str(&t, std::path::Path::new("gm.toml")).unwrap();
        predict(&s).unwrap().main.tpot_ms()
    };
    let (full_l, pw_l) = (long(""), long("cudagraph_mode = \"PIECEWISE\""));
    assert!(
        pw_l > full_l && pw_l - full_l < 0.04,
        "piecewise {pw_l} ms, full {full_l} ms"
    );
    // Host-bound (launch_overhead 1 ms, as prefill_rows.rs forces it): the 28 layers' attention
    // launches, 1 ms + 9.75 µs each (vLLM PR 9715), are all before the last attention.
    let (_, l_slow) = run("cudagraph_mode = \"PIECEWISE\"\n[engine.costs]\nlaunch_overhead = \"1ms\"");
    assert!((l_slow - 28.0 * 1.00975).abs() < 1e-9, "launch {l_slow} ms");
}

//! vllmsampler (issue #17 point 5): `VLLM_USE_FLASHINFER_SAMPLER` of `[engine.env]` selects the
//! profile run's dummy sampler as vLLM's `v1/sample/ops/topk_topp_sampler.py` and `envs.py` read it
//! at each release (`tpsim::scenario::flashinfer_sampler`, read in the PyPI wheels 0.8.0 … 0.34.0),
//! with vLLM's refusals (exit 2) and warnings. Peaks are exact integer bytes computed by hand for
//! Llama-3.1-8B on one H100 (8,192 tokens / 1,024 sequences, vocab 128,256, hidden 4,096, bf16):
//! - FlashInfer: (8192 + 2048) × 4096 × 2 = 83,886,080 + 1024 × 128,256 × 14 = 1,838,678,016, plus
//!   the 32 MiB cuBLAS workspace = 1,956,118,528 B (tests/tests/vllm_install.rs);
//! - sorting: 83,886,080 + 1024 × 128,256 × 38 = 4,990,697,472, + 32 MiB = 5,108,137,984 B;
//! - 0.17's in-place Triton filter: 2,023,837,696 B (tests/tests/vllm_install.rs, the 0.19.0 row).

use crate::common::*;
use std::path::Path;
use tpsim::decode::MemKind;

const FLASHINFER: u64 = 1_956_118_528;
const SORT: u64 = 5_108_137_984;
const IN_PLACE: u64 = 2_023_837_696;

/// A vLLM scenario on `hardware` at `version`, with `extra` lines in `[engine]` and the variable.
fn text(hardware: &str, version: &str, extra: &str, var: Option<&str>) -> String {
    let env = var.map_or(String::new(), |v| {
        format!("[engine.env]\nVLLM_USE_FLASHINFER_SAMPLER = \"{v}\"\n")
    });
    format!(
        "[hardware]\npreset = \"{hardware}\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
         tp = 1\nversion = \"{version}\"\n{extra}{env}[workload]\nconcurrency = 1\nnum_requests = 1\n\
         prompt_len = 16\noutput_len = 4\n"
    )
}

/// The profile run's peak activation, bytes, and the scenario's warnings.
fn peak(t: &str) -> (u64, Vec<String>) {
    let s = tpsim::scenario::load_str(t, Path::new("f.toml")).unwrap();
    let p = tpsim::plan_memory(&s);
    let b = p
        .entries
        .iter()
        .find(|e| e.kind == MemKind::PeakActivation)
        .unwrap()
        .bytes;
    (b, s.warnings.clone())
}

fn h100(version: &str, extra: &str, var: Option<&str>) -> (u64, Vec<String>) {
    peak(&text("h100-sxm-1x", version, extra, var))
}

const DOCKER: &str = "install = \"docker\"\n";

#[test]
fn the_variable_selects_the_sampler_by_release() {
    // 0.9.0 – 0.11.0: on by default where FlashInfer imports; "0" turns it off with vLLM's warning.
    assert_eq!(h100("0.11.0", DOCKER, None).0, FLASHINFER);
    assert_eq!(h100("0.11.0", DOCKER, Some("1")).0, FLASHINFER);
    let (b, w) = h100("0.11.0", DOCKER, Some("0"));
    assert_eq!(b, SORT);
    assert!(
        w.iter()
            .any(|l| l.contains("FlashInfer is available, but it is not enabled")),
        "{w:?}"
    );
    // A pip install lacks FlashInfer: "1" is moot, vLLM warns.
    let (b, w) = h100("0.10.1", "", Some("1"));
    assert_eq!(b, SORT);
    assert!(
        w.iter().any(|l| l.contains("FlashInfer is not available")),
        "{w:?}"
    );
    // 0.11.1 – 0.20: opt-in (any install: the wheels require flashinfer-python).
    assert_eq!(h100("0.11.1", "", None).0, SORT);
    assert_eq!(h100("0.11.1", "", Some("1")).0, FLASHINFER);
    assert_eq!(h100("0.12.0", "", Some("1")).0, FLASHINFER);
    // Python's int(): "2" and " 01 " are on, "0_0" off.
    assert_eq!(h100("0.12.0", "", Some("2")).0, FLASHINFER);
    assert_eq!(h100("0.12.0", "", Some(" 01 ")).0, FLASHINFER);
    assert_eq!(h100("0.12.0", "", Some("0_0")).0, SORT);
    // The native filter sorts through 0.16.0 and filters in place from 0.17.0.
    assert_eq!(h100("0.13.0", "", None).0, SORT);
    assert_eq!(h100("0.16.0", "", None).0, SORT);
    assert_eq!(h100("0.16.0", "", Some("1")).0, FLASHINFER);
    assert_eq!(h100("0.17.0", "", None).0, IN_PLACE);
    assert_eq!(h100("0.19.0", "", Some("1")).0, FLASHINFER);
    assert_eq!(h100("0.19.0", "", Some("0")).0, IN_PLACE);
    // 0.21.0 on: on by default, and the dummy run samples again through the Triton filter: the
    // larger peak, the in-place one.
    assert_eq!(h100("0.21.0", "", None).0, IN_PLACE);
    assert_eq!(h100("0.21.0", "", Some("0")).0, IN_PLACE);
    // 0.8.x: the sort, whatever the variable.
    assert_eq!(h100("0.8.5", DOCKER, Some("1")).0, SORT);
}

/// Refusals: a value Python's int() rejects; an opt-in vLLM refuses on a GPU outside FlashInfer's
/// compute capabilities (V100, SM 7.0); 0.11.0's default FlashInfer sampler on a V100 (vLLM issue
/// 27729). Each exits 2 naming the file and the key.
#[test]
fn refusals_exit_2() {
    let dir = scratch("refusals");
    for (name, hw, version, extra, var, expect) in [
        (
            "word.toml",
            "h100-sxm-1x",
            "0.12.0",
            "",
            Some("true"),
            "invalid literal for int()",
        ),
        (
            "float.toml",
            "h100-sxm-1x",
            "0.19.0",
            "",
            Some("1.0"),
            "invalid literal for int()",
        ),
        (
            "v100-012.toml",
            "v100-4x-plx",
            "0.12.0",
            "",
            Some("1"),
            "does not support compute capability 7.0",
        ),
        (
            "v100-021.toml",
            "v100-4x-plx",
            "0.21.0",
            "",
            Some("1"),
            "does not support compute capability 7.0",
        ),
        (
            "v100-0111.toml",
            "v100-4x-plx",
            "0.11.1",
            "",
            Some("1"),
            "issue 27729",
        ),
        (
            "v100-0110.toml",
            "v100-4x-plx",
            "0.11.0",
            DOCKER,
            None,
            "issue 27729",
        ),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text(hw, version, extra, var)).unwrap();
        let f = file.to_str().unwrap();
        let o = tpsim(&["memory", f]);
        assert_eq!(o.code, 2, "{name}: {}", o.stderr);
        assert!(o.stderr.contains(f), "{}", o.stderr);
        assert!(
            o.stderr.contains("engine.env.VLLM_USE_FLASHINFER_SAMPLER"),
            "{}",
            o.stderr
        );
        assert!(o.stderr.contains(expect), "{name}: {}", o.stderr);
    }
}

/// Where vLLM goes on: the V100 with "0" (0.11.0 image, 0.12.0), 0.21's default on a V100 (native,
/// vLLM's warning), ROCm (the variable is not read there) and 0.11.0 pip on a V100 (no FlashInfer).
#[test]
fn accepted_with_vllm_warnings() {
    let (b, w) = peak(&text("v100-4x-plx", "0.11.0", DOCKER, Some("0")));
    assert!(b > 0);
    assert!(w.iter().any(|l| l.contains("not enabled")), "{w:?}");
    assert!(
        tpsim::scenario::load_str(&text("v100-4x-plx", "0.12.0", "", Some("0")), Path::new("f.toml")).is_ok()
    );
    assert!(tpsim::scenario::load_str(&text("v100-4x-plx", "0.11.0", "", None), Path::new("f.toml")).is_ok());
    let (_, w) = peak(&text("v100-4x-plx", "0.21.0", "", None));
    assert!(
        w.iter()
            .any(|l| l.contains("not supported on compute capability 7.0; falling back")),
        "{w:?}"
    );
    assert!(
        tpsim::scenario::load_str(
            &text("mi300x-8x-xgmi", "0.12.0", "", Some("1")),
            Path::new("f.toml")
        )
        .is_ok()
    );
}

/// SGLang does not read the variable: it stays an unknown `[engine.env]` variable (exit 2).
#[test]
fn sglang_refuses_the_variable() {
    let t = text("h100-sxm-1x", "0.5.8", "", Some("1")).replace("name = \"vllm\"", "name = \"sglang\"");
    let e = tpsim::scenario::load_str(&t, Path::new("f.toml")).unwrap_err();
    assert!(e.to_string().contains("VLLM_USE_FLASHINFER_SAMPLER"), "{e}");
}

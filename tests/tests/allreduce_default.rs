//! Issues #17 point 3 and #19 point 3: an unset `engine.allreduce` is the engine's default. The
//! dispatch table, case by case, from the engines' `custom_all_reduce.py` `CustomAllreduce.__init__`
//! (vLLM main at commit 00d618aa, the same checks as 0.11.0; SGLang main at commit 004e6561, adapted
//! from vLLM v0.6.4.post1), in their order: group across nodes → off; world size not in
//! `[2, 4, 6, 8]` → off; world size > 2 without full NVLink (`is_fully_connected` / `is_full_nvlink`;
//! xGMI on ROCm) → off, "not supported on more than two PCIe-only GPUs"; CUDA and the P2P test fails
//! → off; else on. Explicit `"nccl"` / `"custom"` keep their meaning.

use crate::common::scratch;
use std::path::Path;
use tpsim::engine_args;
use tpsim::scenario::{self, AllreduceBackend};

/// A Llama-3.1-8B scenario on `preset` with `engine` at `tp` and `extra` lines in `[engine]`.
fn write(preset: &str, engine: &str, tp: u32, extra: &str, tag: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{preset}\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"{engine}\"\n\
         tp = {tp}\n{extra}[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
    );
    let p = scratch(tag).join("s.toml");
    std::fs::write(&p, text).expect("write");
    p.to_str().expect("utf-8").to_string()
}

fn resolved(
    preset: &str,
    engine: &str,
    tp: u32,
    extra: &str,
    tag: &str,
) -> (AllreduceBackend, Option<String>) {
    let s = scenario::load(Path::new(&write(preset, engine, tp, extra, tag))).expect("loads");
    (s.engine.allreduce, s.engine.allreduce_default)
}

/// The table: (preset, engine, tp) → the backend and the reason's text, each row from the rule
/// named beside it. (The world-size rule is not a row: no bundled model takes a tp outside 2/4/6/8
/// and ≤ 8 that the model checks accept.)
#[test]
fn engine_default_table() {
    use AllreduceBackend::{Custom, Nccl};
    let rows: [(&str, &str, u32, AllreduceBackend, &str); 10] = [
        // NVSwitch box (gpu.nvlink): fully connected at every supported size.
        (
            "h100-sxm-8x-nvlink",
            "vllm",
            8,
            Custom,
            "vLLM custom allreduce, 8 fully connected GPUs",
        ),
        (
            "h100-sxm-8x-nvlink",
            "sglang",
            2,
            Custom,
            "SGLang custom allreduce, 2 fully connected GPUs",
        ),
        // More than two PCIe-only GPUs (RTX PRO 6000 behind one switch: p2p = true, no NVLink).
        (
            "rtx-pro-6000-8x-1switch",
            "sglang",
            4,
            Nccl,
            "SGLang disables its custom allreduce: 4 > 2 PCIe-only GPUs",
        ),
        (
            "rtx-pro-6000-8x-1switch",
            "vllm",
            8,
            Nccl,
            "vLLM disables its custom allreduce: 8 > 2 PCIe-only GPUs",
        ),
        // Two PCIe GPUs with P2P: the world-size-2 exception, then the P2P test passes.
        (
            "rtx-pro-6000-8x-1switch",
            "vllm",
            2,
            Custom,
            "vLLM custom allreduce, 2 GPUs with P2P",
        ),
        // GeForce on the stock driver: no P2P, the P2P test fails.
        (
            "rtx-4090-2x-no-p2p",
            "vllm",
            2,
            Nccl,
            "vLLM disables its custom allreduce: no GPU P2P (the P2P test fails)",
        ),
        // Two P2P-capable GPUs one per socket of an Intel host (SYS): the driver reports no peer
        // access across QPI/UPI, so the P2P test fails (allreduce_default.rs module doc: vLLM's
        // `_can_p2p` trusts `cudaDeviceCanAccessPeer`; the box of tests/data/throughput.tsv lines
        // 54-59).
        (
            "a100-pcie-80gb-2x-cross-socket",
            "vllm",
            2,
            Nccl,
            "vLLM disables its custom allreduce: no GPU P2P across the sockets of an Intel host (the P2P test fails)",
        ),
        // Two P2P-capable GPUs of an Intel host on one socket (one switch): the P2P test passes.
        (
            "a30-2x-pcie",
            "vllm",
            2,
            Custom,
            "vLLM custom allreduce, 2 GPUs with P2P",
        ),
        // ROCm: an xGMI mesh is fully connected and the P2P test is skipped.
        (
            "mi300x-8x-xgmi",
            "vllm",
            8,
            Custom,
            "vLLM custom allreduce, 8 fully connected GPUs",
        ),
        // One rank: no allreduce.
        (
            "h100-sxm-8x-nvlink",
            "vllm",
            1,
            Nccl,
            "vLLM disables its custom allreduce: one rank, no allreduce",
        ),
    ];
    for (i, (preset, engine, tp, backend, why)) in rows.into_iter().enumerate() {
        let (b, w) = resolved(preset, engine, tp, "", &format!("row{i}"));
        assert_eq!(
            (b, w.as_deref()),
            (backend, Some(why)),
            "{preset} {engine} tp {tp}"
        );
    }
}

/// A stated backend is kept as stated, with no engine-default reason (a forced `custom` on 8 PCIe GPUs
/// stays the locally patched engine; `nccl` on NVLink stays NCCL).
#[test]
fn stated_backends_are_kept() {
    let (b, w) = resolved(
        "rtx-pro-6000-8x-1switch",
        "sglang",
        8,
        "allreduce = \"custom\"\n",
        "stated-custom",
    );
    assert_eq!((b, w), (AllreduceBackend::Custom, None));
    let (b, w) = resolved(
        "h100-sxm-8x-nvlink",
        "vllm",
        8,
        "allreduce = \"nccl\"\n",
        "stated-nccl",
    );
    assert_eq!((b, w), (AllreduceBackend::Nccl, None));
}

/// `tpsim engine-args` prints `--disable-custom-all-reduce` only for a stated `"nccl"`; unset, the
/// command leaves the engine its default (no flag, no note about it), whatever that default is.
#[test]
fn engine_args_flag_only_when_nccl_is_stated() {
    let flag = "--disable-custom-all-reduce";
    for (preset, tp, tag) in [
        ("h100-sxm-8x-nvlink", 8, "args-nv"),
        ("rtx-pro-6000-8x-1switch", 8, "args-pcie"),
    ] {
        let (_, c) =
            engine_args::for_file(Path::new(&write(preset, "sglang", tp, "", tag))).expect("command");
        assert!(!c.args.iter().any(|a| a == flag), "{preset}: {:?}", c.args);
        assert!(!c.notes.iter().any(|n| n.contains("allreduce")), "{:?}", c.notes);
    }
    let nccl = write(
        "h100-sxm-8x-nvlink",
        "vllm",
        8,
        "allreduce = \"nccl\"\n",
        "args-nccl",
    );
    let (_, c) = engine_args::for_file(Path::new(&nccl)).expect("command");
    assert!(c.args.iter().any(|a| a == flag), "{:?}", c.args);
}

/// The report says which default applied: the header's `allreduce=` and `--json`'s
/// `allreduce_engine_default` (null when stated).
#[test]
fn report_names_the_engine_default() {
    let f = write("h100-sxm-8x-nvlink", "vllm", 8, "", "report");
    let o = crate::common::tpsim(&["run", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("allreduce=Custom (engine default: vLLM custom allreduce, 8 fully connected GPUs)"),
        "{}",
        o.stdout
    );
    let j = crate::common::run_json(&f);
    assert_eq!(j["scenario"]["allreduce"], "custom");
    assert_eq!(
        j["scenario"]["allreduce_engine_default"],
        "vLLM custom allreduce, 8 fully connected GPUs"
    );
    let stated = write(
        "h100-sxm-8x-nvlink",
        "vllm",
        8,
        "allreduce = \"custom\"\n",
        "report-stated",
    );
    let j = crate::common::run_json(&stated);
    assert!(
        j["scenario"]["allreduce_engine_default"].is_null(),
        "{}",
        j["scenario"]
    );
}

/// The "local patch" warning (stock SGLang turns its custom allreduce off on > 2 PCIe-only GPUs)
/// is for a custom allreduce the scenario forces on, never for one the engine chose itself: a
/// vLLM data-parallel scenario whose tp-2 groups run the engine's default custom kernel on a PCIe
/// switch box printed it (with the 8 ranks of its expert group) before this was fixed.
#[test]
fn the_local_patch_warning_is_only_for_a_stated_custom_allreduce() {
    const WARN: &str = "this models a local patch that forces it on";
    let default = write("rtx-pro-6000-8x-1switch", "vllm", 2, "", "patch-default");
    let o = crate::common::tpsim(&["run", &default]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("allreduce=Custom (engine default:"),
        "{}",
        o.stdout
    );
    assert!(
        !o.stdout.contains(WARN) && !o.stderr.contains(WARN),
        "{}",
        o.stdout
    );
    let stated = write(
        "rtx-pro-6000-8x-1switch",
        "sglang",
        4,
        "allreduce = \"custom\"\n",
        "patch-stated",
    );
    let o = crate::common::tpsim(&["run", &stated]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains(WARN) || o.stderr.contains(WARN), "{}", o.stdout);
    let both = format!("{}{}", o.stdout, o.stderr);
    assert!(
        both.contains("stock SGLang disables its custom allreduce"),
        "{both}"
    );
    // The same rule under vLLM names vLLM (`custom_all_reduce.py`, 0.19.0: "not supported on more than
    // two PCIe-only GPUs"); it said "SGLang" for every engine until stop 64.
    let vllm = write(
        "rtx-pro-6000-8x-1switch",
        "vllm",
        4,
        "allreduce = \"custom\"\n",
        "patch-stated-vllm",
    );
    let o = crate::common::tpsim(&["run", &vllm]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let both = format!("{}{}", o.stdout, o.stderr);
    assert!(
        both.contains("stock vLLM disables its custom allreduce on more than two PCIe-only GPUs (tp = 4)"),
        "{both}"
    );
}

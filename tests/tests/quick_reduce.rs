//! Issue #17 point 4: vLLM's QuickReduce on ROCm as `tpsim collective --algo quickreduce-<level>`
//! (`tpsim_model::quick_reduce`, `sim::allreduce` `CustomAlgo::QuickReduce`): its two-shot of encoded
//! partitions, refused where vLLM would not build it.

use crate::common::*;

/// AMD's ROCm blog "QuickReduce FP4 Quantization and Benchmarking on MI355"
/// (rocm.blogs.amd.com/artificial-intelligence/quick-reduce-2): at TP = 2 and 1 GB, QuickReduce FP4
/// is 4.14× faster than RCCL, INT4 "comparable". tpsim on mi355x-8x-xgmi, 2 GPUs, 1 GiB: RCCL
/// 2929.6 µs, QuickReduce INT4 752.0 µs → 3.90× (−5.8 %); tolerance 10 %. (At TP = 8 the blog's 1.52×
/// is not reproduced: tpsim gives 3.9×, the codec's compute being untimed — see the module docs.)
#[test]
fn mi355x_tp2_speedup_over_rccl_matches_amds_blog() {
    let rccl = times("mi355x-8x-xgmi", "nccl", "2", &[1 << 30], &[])[0];
    let qr = times("mi355x-8x-xgmi", "quickreduce-int4", "2", &[1 << 30], &[])[0];
    let speedup = rccl / qr;
    assert!((speedup / 4.14 - 1.0).abs() < 0.10, "{rccl} / {qr} = {speedup}");
}

/// The codecs shrink the payload (quick_reduce_impl.cuh strides per 4096 B: FP 4096, Q8 2176,
/// Q6 1664, Q4 1152): at 256 MiB on 8× MI300X, where the mesh's bandwidth dominates, the times keep
/// that order and INT4 / FP stays within 10 % of 1152 / 4096 = 0.28125 (measured 0.283).
#[test]
fn quantized_payloads_shorten_the_two_shot_in_proportion() {
    let t: Vec<f64> = [
        "quickreduce-fp",
        "quickreduce-int8",
        "quickreduce-int6",
        "quickreduce-int4",
    ]
    .iter()
    .map(|a| times("mi300x-8x-xgmi", a, "8", &[256 << 20], &[])[0])
    .collect();
    assert!(t[0] > t[1] && t[1] > t[2] && t[2] > t[3], "{t:?}");
    assert!((t[3] / t[0] / 0.28125 - 1.0).abs() < 0.10, "{}", t[3] / t[0]);
}

/// vLLM builds QuickReduce only on ROCm, for world sizes 2, 4, 8 (quick_all_reduce.py): the command
/// exits 2 with its reason elsewhere.
#[test]
fn refused_where_vllm_does_not_build_it() {
    let o = tpsim(&[
        "collective",
        "--hardware",
        "h200-8x-nvlink",
        "--gpus",
        "8",
        "--algo",
        "quickreduce-int4",
        "--sizes",
        "16M",
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("only supported on ROCm MI300 series"),
        "{}",
        o.stderr
    );
    let o = tpsim(&[
        "collective",
        "--hardware",
        "mi300x-8x-xgmi",
        "--gpus",
        "6",
        "--algo",
        "quickreduce-fp",
        "--sizes",
        "16M",
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(o.stderr.contains("unsupported world size: 6"), "{}", o.stderr);
}

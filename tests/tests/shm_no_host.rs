//! Issue #19 point 1 (shmhost19): no silent 2.2 GB/s. Where NCCL takes SHM on a box whose file has
//! no `[host]` section, the SHM rate is the template's `shm_copy_bw`, fitted on one 2x RTX 4090 host
//! (`scenarios/hardware/templates/pcie-nccl-host.toml`, allreduce.tsv lines 70-79): `tpsim collective`
//! and every scenario then say so once, naming the file and how to give the host's facts. Not with
//! `[host]`, not where every hop is P2P, and not where the box's file measured its own `shm_copy_bw`.

use crate::common::{scratch, tpsim};

/// The warning for a box file `file` whose ring of `n` GPUs has `shm` SHM hops.
fn warning(shm: usize, n: usize, file: &str) -> String {
    format!(
        "NCCL takes SHM on {shm} of the {n} ring hops of GPUs 0-{}, and {file} has no [host] section: each \
         SHM connection is costed at shm_copy_bw = 2.2 GB/s, the template's value fitted on another host \
         (<preset hardware/templates/pcie-nccl-host.toml>: tests/data/allreduce.tsv lines 70-79 (2x GeForce \
         RTX 4090 without P2P, NCCL over SHM: busbw 2.06-2.24 GB/s from 4 MB up)), not this host's rate. Give \
         the host's facts as a [host] section (cpu_model, sockets, memory_channels, dimm_mts, socket_links, \
         socket_link_bw) with [params] shm_read_efficiency (book: collectives.md, \"SHM from host facts\"; \
         `tpsim import-topo --cpu-model NAME --sockets N` writes them)",
        n - 1
    )
}

/// 4x RTX PRO 6000 on one EPYC 9575F NUMA node, each GPU on its own root complex: every pair is NODE,
/// beyond NCCL's default level on AMD with more than 2 GPUs (PXB), so all 4 ring hops are SHM. Without
/// `[host]` the 512 KiB allreduce is costed at 2.2 GB/s per connection (723.8 µs, book/src/cli.md),
/// and the command says why, once; the time itself does not move.
#[test]
fn the_command_warns_where_shm_runs_without_host_facts() {
    let o = tpsim(&[
        "collective",
        "--hardware",
        "rtx-pro-6000-4x-turin-same-numa",
        "--gpus",
        "4",
        "--sizes",
        "512K",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let want = format!(
        "warning: {}\n",
        warning(4, 4, "<preset hardware/rtx-pro-6000-4x-turin-same-numa.toml>")
    );
    assert_eq!(o.stderr, want);
    assert!(o.stdout.contains("723.8"), "{}", o.stdout);
    // The same box with [host] (the -shm preset): 51.6 µs, no warning.
    let o = tpsim(&[
        "collective",
        "--hardware",
        "rtx-pro-6000-4x-turin-same-numa-shm",
        "--gpus",
        "4",
        "--sizes",
        "512K",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stderr, "");
    assert!(o.stdout.contains("51.6"), "{}", o.stdout);
}

/// P2P on every hop (NCCL_P2P_LEVEL=SYS on the same box; two GPUs of a box whose pair is P2P at the
/// default level) moves nothing through host memory: no warning. A box that measured its own
/// `shm_copy_bw` (the ASUS ESC8000A-E13P, 30.3 GB/s, whose partition-crossing hops are SHM) neither.
#[test]
fn no_warning_on_p2p_paths_or_a_measured_shm_rate() {
    for args in [
        &[
            "--hardware",
            "rtx-pro-6000-4x-turin-same-numa",
            "--gpus",
            "4",
            "--env",
            "NCCL_P2P_LEVEL=SYS",
        ][..],
        &["--hardware", "rtx-pro-6000-8x-asus-esc8000a-e13p", "--gpus", "4"][..],
    ] {
        let mut a = vec!["collective", "--sizes", "512K"];
        a.extend_from_slice(args);
        let o = tpsim(&a);
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
        assert_eq!(o.stderr, "", "{args:?}");
    }
}

/// A scenario's warnings carry it once, for its TP group: Llama-3.1-8B under SGLang at TP 4 on the
/// `[host]`-less box; at TP 4 on the -shm preset, none.
#[test]
fn a_scenario_carries_the_warning_once() {
    let dir = scratch("scenario");
    for (hw, want) in [
        ("rtx-pro-6000-4x-turin-same-numa", 1),
        ("rtx-pro-6000-4x-turin-same-numa-shm", 0),
    ] {
        let p = dir.join(format!("{hw}.toml"));
        std::fs::write(
            &p,
            format!(
                "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"llama-3.1-8b\"\n\
                 [engine]\nname = \"sglang\"\ntp = 4\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
            ),
        )
        .unwrap();
        let s = tpsim::scenario::load(&p).unwrap();
        let w = warning(4, 4, "<preset hardware/rtx-pro-6000-4x-turin-same-numa.toml>");
        let found = s
            .warnings
            .iter()
            .filter(|x| x.contains("no [host] section"))
            .count();
        assert_eq!(found, want, "{hw}: {:?}", s.warnings);
        if want == 1 {
            assert!(s.warnings.contains(&w), "{:?}", s.warnings);
        }
    }
}

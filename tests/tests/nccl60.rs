//! Issue #19 (nccl60): `tpsim topo` labels GPU pairs above the switches by their NUMA nodes, as
//! `nvidia-smi topo -m` does. Its legend (tests/data/nvidia-smi-topo/club-3090-issue-46.txt): "SYS =
//! Connection traversing PCIe as well as the SMP interconnect between NUMA nodes", "NODE = ... the
//! interconnect between PCIe Host Bridges within a NUMA node", "PHB = ... a PCIe Host Bridge". So two
//! quadrants of one socket in NPS4 (or SNC) are SYS, and two sockets on one NPS0 node are NODE. The
//! NUMA nodes are the ones NCCL files GPUs under (ncclhost59: `[host] gpu_numa_nodes`,
//! `hardware.numa_nodes`), and the transport matrix now reads NCCL's class, as the ring NCCL runs does.

use crate::common::*;
use tpsim::import_topo::{Link, parse_matrix};

const AIKITORIA: &str = "rtx-5090-8x-dual-turin-p2p-aikitoria";
const BOX_B: &str = "rtx-5090-4x-syncopate-epyc-9b14";

/// `tpsim topo` with `args`: its output (exit 0 checked).
#[track_caller]
fn topo(args: &[&str]) -> String {
    let mut all = vec!["topo"];
    all.extend_from_slice(args);
    let o = tpsim(&all);
    assert_eq!(o.code, 0, "{}", o.stderr);
    o.stdout
}

/// The label of every pair `i < j` of the printed matrix, row by row.
#[track_caller]
fn labels(text: &str) -> Vec<Vec<String>> {
    let m = parse_matrix(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m.links
        .iter()
        .enumerate()
        .map(|(i, row)| row[i + 1..].iter().map(|&l| name(l).to_string()).collect())
        .collect()
}

/// nvidia-smi's label of a link.
fn name(l: Link) -> &'static str {
    match l {
        Link::SelfLink => "X",
        Link::Nv(_) => "NV",
        Link::Pix => "PIX",
        Link::Pxb => "PXB",
        Link::Phb => "PHB",
        Link::Node => "NODE",
        Link::Sys => "SYS",
    }
}

/// The transport matrix's cell for GPUs `i`, `j` (the rows after "Transport per pair").
#[track_caller]
fn transport_cell(text: &str, i: usize, j: usize) -> String {
    let tail = &text[text.find("Transport per pair").expect("transport matrix")..];
    let row = tail
        .lines()
        .find(|l| l.starts_with(&format!("GPU{i} ")))
        .expect("row");
    row.split_whitespace().nth(j + 1).expect("cell").to_string()
}

/// Box B of tests/data/allreduce.tsv lines 206-225: one EPYC 9B14 socket in NPS4, GPUs 0/1 under one
/// host bridge on NUMA node 3, GPU 2 on node 2, GPU 3 on node 0. Its source describes the matrix
/// (ChaoyuWang04/Syncopate_Async_AgenticRL docs/syncopate/08-machine-and-environment.md at 4dcc00c,
/// "硬件画像（实测）", 2026-08-27): "单 socket：GPU0/1 同桥（PHB）@node3 · GPU2@node2 · GPU3@node0，跨
/// NUMA 走 SYS": PHB for 0-1, SYS for the five pairs across quadrants. Before nccl60 `tpsim topo`
/// printed those five NODE (one socket in the tree). Exact.
#[test]
fn box_b_prints_sys_between_its_nps4_quadrants() {
    let out = topo(&["--hardware", BOX_B]);
    let l = labels(&out);
    assert_eq!(l[0], ["PHB", "SYS", "SYS"], "{out}");
    assert_eq!(l[1], ["SYS", "SYS"], "{out}");
    assert_eq!(l[2], ["SYS"], "{out}");
    assert!(
        out.contains("NUMA node per GPU ([host] gpu_numa_nodes): GPU0 3, GPU1 3, GPU2 2, GPU3 0"),
        "{out}"
    );
    // The matrix still imports (SYS groups become sockets) into a box that prints it again.
    assert!(out.contains("SYS = across NUMA nodes"), "{out}");
}

/// aikitoria's box with its two sockets as one NUMA node (NPS0, ncclhost59's what-if): nvidia-smi's
/// legend makes a pair between host bridges of one NUMA node NODE, so GPU3-GPU4 (socket0/root3,
/// socket1/root4) is NODE, not SYS. At `NCCL_P2P_LEVEL=PHB` NCCL classes that pair PHB (one CPU node)
/// and connects it P2P; before nccl60 the transport matrix read the tree's SYS and printed SHM while
/// the ring NCCL runs (`tpsim collective`) was P2P on every hop. As shipped (one node a socket) the
/// pair stays SYS and SHM. Exact.
#[test]
fn one_numa_node_over_two_sockets_prints_node_and_p2p_at_phb() {
    let base = data_path(&format!("../../scenarios/hardware/{AIKITORIA}.toml"));
    let base = base.canonicalize().expect("preset path");
    let file = scratch("nccl60-nps0").join("hw.toml");
    let text = format!("extends = {:?}\nnuma_nodes = 1\n", base.to_str().expect("utf8"));
    std::fs::write(&file, text).expect("write");
    let nps0 = file.to_str().expect("utf8");
    let env = ["--env", "NCCL_P2P_LEVEL=PHB"];
    let out = topo(&[&["--hardware", nps0][..], &env[..]].concat());
    let l = labels(&out);
    assert_eq!(l[3][0], "NODE", "{out}"); // GPU3-GPU4
    assert!(l.iter().flatten().all(|x| x == "NODE"), "{out}");
    assert_eq!(transport_cell(&out, 3, 4), "P2P*", "{out}");
    assert!(
        out.contains("NUMA node per GPU (numa_nodes = 1: one node for the box): GPU0 0,"),
        "{out}"
    );
    let shipped = topo(&[&["--hardware", AIKITORIA][..], &env[..]].concat());
    assert_eq!(labels(&shipped)[3][0], "SYS", "{shipped}");
    assert_eq!(transport_cell(&shipped, 3, 4), "SHM*", "{shipped}");
    assert!(!shipped.contains("NUMA node per GPU"), "{shipped}");
    // The ring NCCL runs on the NPS0 box: every hop P2P (no SHM hop), as the matrix now says.
    let c = tpsim(&[
        "collective",
        "--hardware",
        nps0,
        "--gpus",
        "8",
        "--sizes",
        "1M",
        "--env",
        "NCCL_P2P_LEVEL=PHB",
        "--json",
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    let v: serde_json::Value = serde_json::from_str(&c.stdout).expect("json");
    assert_eq!(v["shm_hops"].as_u64(), Some(0), "{}", c.stdout);
}

/// A captured matrix (tests/data/nvidia-smi-topo/club-3090-issue-46.txt: noonghunna/club-3090 issue 46,
/// a dual-socket host, GPU0 on NUMA node 1, GPU1-GPU4 on node 0 in two host-bridge pairs) imported by
/// `tpsim import-topo` prints every pair as captured: SYS across the nodes, PHB within a host bridge,
/// NODE between the bridges of node 0. The labels of one NUMA node a socket are unchanged by nccl60.
#[test]
fn the_captured_dual_socket_matrix_prints_back_as_captured() {
    let capture = data_path("nvidia-smi-topo/club-3090-issue-46.txt");
    let captured = std::fs::read_to_string(&capture).expect("capture");
    let out = scratch("nccl60-club").join("box.toml");
    let o = tpsim(&[
        "import-topo",
        "--gpu",
        "rtx-4090",
        "--cpu-vendor",
        "intel",
        capture.to_str().expect("utf8"),
        "-o",
        out.to_str().expect("utf8"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let printed = topo(&["--hardware", out.to_str().expect("utf8")]);
    assert_eq!(labels(&printed), labels(&captured), "{printed}");
    assert_eq!(labels(&captured)[0], ["SYS", "SYS", "SYS", "SYS"]);
    assert_eq!(labels(&captured)[1], ["PHB", "NODE", "NODE"]);
}

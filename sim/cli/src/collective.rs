//! The text of `tpsim collective` and `tpsim topo` ([`tpsim::collective`]).

use std::fmt::Write as _;
pub(crate) use tpsim::collective::*;
use tpsim::comm::Comm;

/// The text table.
pub fn text(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# {} on {} GPUs of {}", r.op, r.gpus, r.hardware);
    if let Some(p) = &r.profile {
        let _ = writeln!(o, "# profile {p} over the preset's parameters");
    }
    // A ring that mixes transports says how many of its hops run on SHM.
    let mixed = if r.shm_hops > 0 && r.shm_hops < r.gpus {
        format!(" on {} of {} ring hops, p2p on the rest", r.shm_hops, r.gpus)
    } else {
        String::new()
    };
    let _ = writeln!(
        o,
        "# NCCL: transport {}{mixed} (P2P level {}), graph {}",
        r.transport, r.p2p_level, r.nccl_graph
    );
    // Issue #19 points 1-2: said only when not nccl-tests' default (eager).
    if r.launch == tpsim::launch::Launch::Graph {
        let _ = writeln!(
            o,
            "# launch: replayed from a CUDA graph (nccl-tests -G), NCCL {}",
            r.nccl_version
        );
    }
    let cmp = r.rows.iter().any(|x| x.measured_us.is_some());
    let _ = write!(
        o,
        "#{:>12} {:>11} {:>11} {:>11}  {:<22} {:>3}  bottleneck",
        "size(B)", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "algorithm", "ch"
    );
    if cmp {
        let _ = write!(o, "  {:>11} {:>8}", "meas.(us)", "error");
    }
    let _ = writeln!(o);
    for x in &r.rows {
        let _ = write!(
            o,
            " {:>12} {:>11.2} {:>11.3} {:>11.3}  {:<22} {:>3}  {}",
            x.size_bytes,
            x.time_us,
            x.algbw_gbps,
            x.busbw_gbps,
            x.algorithm,
            x.channels,
            x.bottleneck.as_deref().unwrap_or("-")
        );
        if let (Some(m), Some(e)) = (x.measured_us, x.error) {
            let _ = write!(o, "  {m:>11.2} {:>+7.1}%", e * 100.0);
        }
        let _ = writeln!(o);
    }
    if let (Some(m), Some(w)) = (r.median_abs_error, r.worst_abs_error) {
        let _ = writeln!(
            o,
            "# error vs measured: median {:.1} %, worst {:.1} %",
            m * 100.0,
            w * 100.0
        );
    }
    crate::intervals::collective_text(&mut o, r); // issue #19 point 6
    o
}

/// `tpsim topo`: the nvidia-smi matrix and the transports.
pub fn topo_text(setup: &Setup) -> String {
    let hw = &setup.hardware;
    let t = &hw.topology;
    let n = setup.gpus;
    let comm = Comm::new(hw, n, &setup.env);
    // Issue #17 point 4: an xGMI mesh joins every pair like NVLink (shown as NV); nccl60: the
    // labels above the switches and NCCL's classes follow the NUMA nodes (`Hardware::smi_label`,
    // `Hardware::nccl_path_class`).
    let mut o = String::new();
    let _ = writeln!(o, "{} ({} GPUs shown of {})", hw.name, n, t.gpu_count());
    let _ = write!(o, "{:<8}", "");
    for j in 0..n {
        let _ = write!(o, "{:<7}", format!("GPU{j}"));
    }
    let _ = writeln!(o, "path");
    for i in 0..n {
        let _ = write!(o, "{:<8}", format!("GPU{i}"));
        for j in 0..n {
            let _ = write!(o, "{:<7}", hw.smi_label(i, j));
        }
        let _ = writeln!(o, "{}", t.path_of(i));
    }
    let _ = writeln!(
        o,
        "\nLegend: X = self, NV = NVLink, PIX = one PCIe switch, PXB = several switches, PHB = through one CPU host bridge, NODE = between host bridges of a NUMA node, SYS = across NUMA nodes (sockets, or NPS2/NPS4/SNC quadrants of one)"
    );
    numa_line(&mut o, hw, n);
    let _ = writeln!(
        o,
        "\nTransport per pair (NCCL P2P level {}): P2P, SHM (through host DRAM); * = kernel peer loads staged through system memory",
        comm.level.as_str()
    );
    let _ = write!(o, "{:<8}", "");
    for j in 0..n {
        let _ = write!(o, "{:<7}", format!("GPU{j}"));
    }
    let _ = writeln!(o);
    for i in 0..n {
        let _ = write!(o, "{:<8}", format!("GPU{i}"));
        for j in 0..n {
            let cell = if i == j {
                "X".to_string()
            } else {
                let tr = tpsim_model::nccl::transport(hw.nccl_path_class(i, j), hw.gpu.p2p, comm.level);
                let name = match tr {
                    tpsim_model::hw::Transport::P2p => "P2P",
                    tpsim_model::hw::Transport::Shm => "SHM",
                };
                format!("{name}{}", if comm.fabric.is_staged(i, j) { "*" } else { "" })
            };
            let _ = write!(o, "{cell:<7}");
        }
        let _ = writeln!(o);
    }
    let _ = writeln!(
        o,
        "\nNCCL ring graph: {} channel(s) × {:.1} GB/s{}",
        comm.graph.channels,
        comm.graph.bw_per_channel_gbps,
        if comm.graph.simple_order_fallback {
            " — the search failed and fell back to the simple order"
        } else {
            ""
        }
    );
    let p = &hw.params;
    if p.collapse_factor < 1.0 {
        let _ = writeln!(
            o,
            "Posted-write collapse: a switch or root port writing to ≥ {} root complexes from ≥ {} of its GPUs keeps {:.1} % of its write bandwidth{}",
            p.collapse_min_roots,
            p.collapse_min_sources,
            p.collapse_factor * 100.0,
            if p.collapse_reads {
                "; the data of peer reads counts too (collapse_reads)"
            } else {
                ""
            }
        );
    }
    o
}

/// nccl60: the NUMA node of each shown GPU, when the box states them apart from its sockets (`[host]
/// gpu_numa_nodes` with several nodes a socket, or `numa_nodes = 1`): the nodes the SYS / NODE labels
/// and NCCL's CPU nodes come from (nvidia-smi prints them as its "NUMA Affinity" column).
fn numa_line(o: &mut String, hw: &tpsim::scenario::Hardware, n: usize) {
    let split = hw.host.as_ref().is_some_and(|h| h.numa_nodes_per_socket > 1);
    if !split && hw.numa_nodes != Some(1) {
        return;
    }
    let nodes: Vec<String> = (0..n)
        .map(|g| format!("GPU{g} {}", hw.nccl_cpu_node(g)))
        .collect();
    let how = if split {
        "[host] gpu_numa_nodes"
    } else {
        "numa_nodes = 1: one node for the box"
    };
    let _ = writeln!(o, "NUMA node per GPU ({how}): {}", nodes.join(", "));
}

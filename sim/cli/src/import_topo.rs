//! `tpsim import-topo` (issue #19): a user's box from the `nvidia-smi topo -m` matrix it prints,
//! written as a hardware preset; the library reads it (`tpsim::import_topo`), this file reads the
//! files and writes the TOML.

use super::{bad_input, stdin_text, write_imported};
use std::io::Write;
use std::path::PathBuf;
use tpsim::import_topo::{self, Options};

#[derive(Debug, clap::Args)]
pub struct ImportTopoArgs {
    /// The GPU: a bundled hardware template (scenarios/hardware/templates/NAME.toml), e.g.
    /// rtx-pro-6000-workstation, rtx-5090, l40s, h100-pcie.
    #[arg(long, value_name = "TEMPLATE")]
    gpu: String,
    /// The host CPU's vendor, amd or intel: NCCL's default P2P level and the inter-socket model
    /// depend on it, and the matrix does not show it.
    #[arg(long, value_name = "amd|intel")]
    cpu_vendor: String,
    /// The output of `nvidia-smi topo -p2p r` on the same box: sets gpu.p2p (every pair OK or not).
    #[arg(long, value_name = "FILE")]
    p2p: Option<PathBuf>,
    /// The GPUs' own PCIe links on the same box: sets gpu.pcie_gen / pcie_width. Any one of: the csv
    /// of `nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.max,pcie.link.gen.current,
    /// pcie.link.width.max,pcie.link.width.current --format=csv`, `nvidia-smi -q` (GPU Link Info) or
    /// `lspci -vv` of the GPUs (LnkCap/LnkSta). The maximum generation is used (the current one drops
    /// at idle); a current width below the maximum is used, with a warning.
    #[arg(long, value_name = "FILE")]
    pcie: Option<PathBuf>,
    /// The host CPU as lscpu names it (e.g. "AMD EPYC 9575F"): with the sockets, writes a [host]
    /// section (issue #19 point 1: NCCL's SHM costed from the host's facts). AMD EPYC 7002/7003/9004/9005,
    /// Intel Xeon Scalable 1st-5th gen and Xeon 6 6700P/6900P give memory channels, DIMM rate and socket links from a sourced
    /// table; other CPUs need --memory-channels, --dimm-mts (and with 2+ sockets --socket-links,
    /// --socket-link-bw).
    #[arg(long, value_name = "NAME")]
    cpu_model: Option<String>,
    /// CPU sockets of the host (lscpu's Socket(s)).
    #[arg(long, value_name = "N")]
    sockets: Option<u32>,
    /// Populated DRAM channels per socket (default: the platform's, all populated).
    #[arg(long, value_name = "N")]
    memory_channels: Option<u32>,
    /// The DIMMs' rate, MT/s (default: the platform's top rate).
    #[arg(long, value_name = "MT/S")]
    dimm_mts: Option<u32>,
    /// UPI / xGMI links between two sockets (default: the platform's).
    #[arg(long, value_name = "N")]
    socket_links: Option<u32>,
    /// One socket link's GB/s per direction (default: the platform's).
    #[arg(long, value_name = "GB/S")]
    socket_link_bw: Option<f64>,
    /// The fraction of a GPU parent port's link rate at which its GPUs read NCCL's SHM buffers
    /// (default 0.5859, the median of the eight measured SHM hosts).
    #[arg(long, value_name = "FRACTION")]
    shm_read_efficiency: Option<f64>,
    /// The output of `lscpu` on the same box: Model name, Socket(s) and NUMA node(s) (NPS / SNC:
    /// nodes per socket, with the matrix's NUMA Affinity column) (flags win over it).
    #[arg(long, value_name = "FILE")]
    lscpu: Option<PathBuf>,
    /// The output of `dmidecode -t memory` on the same box (or its `grep | sort | uniq -c` excerpt):
    /// populated DIMMs (beyond the platform's channels: 2 DIMMs per channel) and their Configured
    /// Memory Speed (flags win over it).
    #[arg(long, value_name = "FILE")]
    dmidecode: Option<PathBuf>,
    /// The preset's name (default: GPU count, template and source).
    #[arg(long)]
    name: Option<String>,
    /// Write the preset to FILE instead of stdout; a scenario names it as [hardware] preset = "./FILE".
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The output of `nvidia-smi topo -m` (none or `-`: standard input).
    #[arg(value_name = "FILE")]
    matrix: Option<PathBuf>,
}

pub fn run(a: ImportTopoArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let read = |p: &PathBuf| tpsim::files::read_text(p).map_err(|e| format!("{}: {e}", p.display()));
    let matrix = match a.matrix.as_ref().filter(|p| p.as_os_str() != "-") {
        Some(p) => read(p),
        None => stdin_text(),
    };
    let matrix = match matrix {
        Ok(t) => t,
        Err(m) => return bad_input(err, &m),
    };
    let p2p = match a.p2p.as_ref().map(read).transpose() {
        Ok(t) => t,
        Err(m) => return bad_input(err, &m),
    };
    let pcie = match a.pcie.as_ref().map(read).transpose() {
        Ok(t) => t,
        Err(m) => return bad_input(err, &m),
    };
    let lscpu = match a.lscpu.as_ref().map(read).transpose() {
        Ok(t) => t,
        Err(m) => return bad_input(err, &m),
    };
    let dmidecode = match a.dmidecode.as_ref().map(read).transpose() {
        Ok(t) => t,
        Err(m) => return bad_input(err, &m),
    };
    let o = Options {
        template: a.gpu,
        cpu_vendor: a.cpu_vendor,
        name: a.name,
        p2p,
        pcie,
        host: import_topo::host::HostInput {
            cpu_model: a.cpu_model,
            sockets: a.sockets,
            memory_channels: a.memory_channels,
            dimm_mts: a.dimm_mts,
            socket_links: a.socket_links,
            socket_link_gbps: a.socket_link_bw,
            shm_read_efficiency: a.shm_read_efficiency,
            lscpu,
            dmidecode,
            gpu_numa: Vec::new(),
        },
    };
    let source = a
        .matrix
        .as_ref()
        .map_or("<stdin>".to_string(), |p| p.display().to_string());
    let imported = match import_topo::import(&matrix, &o) {
        Ok(i) => i,
        // The --pcie file's own errors name its lines: prefix its path, not the matrix's.
        Err(e) if e.is_pcie() => {
            let p = a.pcie.as_ref().map_or(String::new(), |p| p.display().to_string());
            return bad_input(err, &format!("{p}: {e}"));
        }
        // Issue #19 point 1: the host files' errors name their lines: prefix their paths.
        Err(e @ import_topo::TopoImportError::Host(_)) => {
            let m = e.to_string();
            let file = [("--lscpu", &a.lscpu), ("--dmidecode", &a.dmidecode)]
                .into_iter()
                .find(|(flag, _)| m.starts_with(flag))
                .and_then(|(_, p)| p.as_ref());
            return match file {
                Some(p) => bad_input(err, &format!("{}: {m}", p.display())),
                None => bad_input(err, &m),
            };
        }
        Err(e) => return bad_input(err, &format!("{source}: {e}")),
    };
    let inputs: Vec<PathBuf> = a
        .matrix
        .into_iter()
        .chain(a.p2p)
        .chain(a.pcie)
        .chain(a.lscpu)
        .chain(a.dmidecode)
        .collect();
    write_imported(
        &imported.text,
        &imported.notes,
        &imported.warnings,
        "",
        a.output.as_deref().map(|p| (p, inputs.as_slice())),
        out,
        err,
    )
}

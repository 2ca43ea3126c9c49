//! `tpsim import-topo`: a user's own box from what `nvidia-smi topo -m` prints on it, written as a
//! hardware preset (the PCIe tree of `tpsim_model::topo`) over a bundled GPU template.
//!
//! The matrix gives, per GPU pair, the path class NVIDIA's driver reports (legend of
//! `nvidia-smi topo -m`): PIX (at most one PCIe bridge: the same switch), PXB (several bridges
//! without a host bridge: switches under a common switch), PHB (through one PCIe host bridge: the same
//! root complex), NODE (between host bridges of one NUMA node), SYS (across the SMP interconnect
//! between NUMA nodes, QPI/UPI/xGMI), NV# (a bonded set of # NVLinks). Those are equivalence classes
//! of a tree: GPUs joined by anything but SYS share a socket; by PIX, PXB or PHB a root complex; by
//! PIX or PXB a root port; by PIX a switch. The tree is rebuilt from them and checked against every
//! pair of the matrix, so a matrix no PCIe tree explains is refused rather than approximated.
//!
//! What the matrix cannot say is assumed and stated in the file: a GPU alone on its root port is
//! written direct-attached (a lone GPU behind a switch prints the same); switches under a common one
//! are written two levels deep (deeper hierarchies print the same PXB); link widths and generations
//! are the template's unless `--pcie` gives the GPUs' links (`pcie`: `nvidia-smi --query-gpu` CSV,
//! `nvidia-smi -q` or `lspci -vv`; pcie19). `nvidia-smi topo -p2p r` (given with `--p2p`) sets `gpu.p2p`.

pub mod host;
pub mod pcie;

use std::collections::BTreeMap;
use tpsim_model::hw::PathClass;
use tpsim_model::topo::Topology;

/// One cell of `nvidia-smi topo -m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// `X`: the GPU itself.
    SelfLink,
    /// `NV#`: NVLink, with the number of bonded links.
    Nv(u32),
    Pix,
    Pxb,
    Phb,
    Node,
    Sys,
}

impl Link {
    fn parse(s: &str) -> Option<Link> {
        Some(match s {
            "X" => Link::SelfLink,
            "PIX" => Link::Pix,
            "PXB" => Link::Pxb,
            "PHB" => Link::Phb,
            "NODE" => Link::Node,
            "SYS" => Link::Sys,
            // `tpsim topo` prints a bare NV (its NVLink is one flag per box, no link count).
            "NV" => Link::Nv(0),
            _ => Link::Nv(s.strip_prefix("NV")?.parse().ok()?),
        })
    }

    fn label(self) -> String {
        match self {
            Link::SelfLink => "X".into(),
            Link::Nv(n) => format!("NV{n}"),
            Link::Pix => "PIX".into(),
            Link::Pxb => "PXB".into(),
            Link::Phb => "PHB".into(),
            Link::Node => "NODE".into(),
            Link::Sys => "SYS".into(),
        }
    }
}

/// The GPU part of a `nvidia-smi topo -m` matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    /// `links[i][j]`: the class between GPU i and GPU j.
    pub links: Vec<Vec<Link>>,
    /// Each GPU's "NUMA Affinity" column, where printed as one node.
    pub numa: Vec<Option<u32>>,
}

/// Errors in the input matrices or options (each names the line or the pair it is about).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopoImportError {
    #[error(
        "no matrix found: expected a header line whose first column is GPU0 (the output of `nvidia-smi topo -m`)"
    )]
    NoHeader,
    #[error("line {line}: row `{row}` has {found} cells where the header has {expected} GPU columns")]
    ShortRow {
        line: usize,
        row: String,
        found: usize,
        expected: usize,
    },
    #[error("line {line}: `{cell}` is not a path class; expected X, PIX, PXB, PHB, NODE, SYS or NV<n>")]
    BadCell { line: usize, cell: String },
    #[error("line {line}: `{cell}` is not a P2P status; expected X, OK, NS, CNS, GNS, TNS, DR or U")]
    BadStatus { line: usize, cell: String },
    #[error("GPU{gpu}: its row is missing (the header lists {count} GPUs)")]
    MissingRow { gpu: usize, count: usize },
    #[error("line {line}: GPU{gpu} is listed twice")]
    DuplicateRow { line: usize, gpu: usize },
    #[error("GPU{a}–GPU{b}: the matrix says {ab} one way and {ba} the other; expected the same both ways")]
    Asymmetric {
        a: usize,
        b: usize,
        ab: String,
        ba: String,
    },
    #[error("GPU{gpu}: its own cell is {cell}; expected X")]
    NotSelf { gpu: usize, cell: String },
    #[error(
        "GPU{a}–GPU{b}: the matrix says {said}, but the tree its other pairs force makes it {built}: no PCIe tree gives this matrix"
    )]
    NoTree {
        a: usize,
        b: usize,
        said: String,
        built: String,
    },
    #[error("the P2P matrix lists {found} GPUs, the topology matrix {expected}")]
    P2pCount { found: usize, expected: usize },
    #[error(
        "--pcie: no PCIe link report found; expected the csv of `nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.max,pcie.link.gen.current,pcie.link.width.max,pcie.link.width.current --format=csv` (with its header), `nvidia-smi -q` (its GPU Link Info) or `lspci -vv` of the GPUs (LnkCap/LnkSta)"
    )]
    PcieNoReport,
    #[error(
        "--pcie line {line}: the csv header has no `{missing}` column; expected the header nvidia-smi prints for --query-gpu=index,pci.bus_id,pcie.link.gen.max,pcie.link.gen.current,pcie.link.width.max,pcie.link.width.current --format=csv (not noheader)"
    )]
    PcieHeader { line: usize, missing: String },
    #[error(
        "--pcie line {line}: {key} `{value}` is not a number; expected e.g. 4 (generation) or 16 (lanes)"
    )]
    PcieValue { line: usize, key: String, value: String },
    #[error("--pcie line {line}: {found} cells where the csv header has {expected}")]
    PcieShortRow {
        line: usize,
        found: usize,
        expected: usize,
    },
    #[error("--pcie line {line}: GPU{gpu} has no {key}")]
    PcieMissingKey { line: usize, gpu: usize, key: String },
    #[error("--pcie line {line}: GPU{gpu} is listed twice")]
    PcieDuplicate { line: usize, gpu: usize },
    #[error("--pcie line {line}: GPU{gpu} is not in the topology matrix, which has {count} GPUs (GPU0 to GPU{})", count - 1)]
    PcieExtraGpu { line: usize, gpu: usize, count: usize },
    #[error("GPU{gpu}: in the topology matrix but not in the --pcie report")]
    PcieMissingGpu { gpu: usize },
    #[error("--pcie line {line}: GPU{gpu}'s {what}; expected {expected}")]
    PcieRange {
        line: usize,
        gpu: usize,
        what: String,
        expected: &'static str,
    },
    /// Issue #19 point 1 (shmhost19): the host facts (flags, `--lscpu`, `--dmidecode`); the message
    /// names the flag, and the file's line where one is read.
    #[error("{0}")]
    Host(String),
    #[error("--cpu-vendor `{0}`: expected amd or intel")]
    CpuVendor(String),
    #[error("--gpu `{name}`: no such bundled GPU template; expected one of: {known}")]
    Template { name: String, known: String },
}

impl TopoImportError {
    /// Whether the error is about the `--pcie` report (its lines), not the matrix.
    pub fn is_pcie(&self) -> bool {
        matches!(
            self,
            TopoImportError::PcieNoReport
                | TopoImportError::PcieHeader { .. }
                | TopoImportError::PcieValue { .. }
                | TopoImportError::PcieShortRow { .. }
                | TopoImportError::PcieMissingKey { .. }
                | TopoImportError::PcieDuplicate { .. }
                | TopoImportError::PcieExtraGpu { .. }
                | TopoImportError::PcieMissingGpu { .. }
                | TopoImportError::PcieRange { .. }
        )
    }
}

/// Splits a line into its cells: tabs and runs of spaces both separate (`nvidia-smi` pads with
/// either, and copies pasted into issues keep one or the other).
fn cells(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

fn gpu_index(cell: &str) -> Option<usize> {
    cell.strip_prefix("GPU")?.parse().ok()
}

/// One data row of a matrix: line number (1-based), the row label's GPU index, the cells after it.
type Row = (usize, usize, Vec<String>);

/// The first matrix block of `text` whose header starts with GPU0: its GPU count and data rows.
fn block(text: &str) -> Result<(usize, Vec<Row>), TopoImportError> {
    let lines: Vec<&str> = text.lines().collect();
    let (h, n) = lines
        .iter()
        .enumerate()
        .find_map(|(i, l)| {
            let c = cells(l);
            if c.first().copied() != Some("GPU0") {
                return None;
            }
            // The header's GPU columns are GPU0, GPU1, … in order; NIC, mlx5_… and the affinity
            // columns follow.
            let n = c
                .iter()
                .enumerate()
                .take_while(|(k, x)| gpu_index(x) == Some(*k))
                .count();
            Some((i, n))
        })
        .ok_or(TopoImportError::NoHeader)?;
    let mut rows = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(h + 1) {
        let c = cells(l);
        let Some(first) = c.first() else {
            if rows.is_empty() {
                continue;
            }
            break; // a blank line ends the block (the legend or a second matrix follows)
        };
        if first.starts_with("GPU0") && c.get(1).is_some_and(|x| gpu_index(x).is_some()) {
            break; // a second header
        }
        let Some(g) = gpu_index(first) else {
            if first.starts_with("Legend") {
                break;
            }
            continue; // NIC rows and anything else
        };
        rows.push((i + 1, g, c[1..].iter().map(|s| s.to_string()).collect()));
    }
    Ok((n, rows))
}

/// Reads the GPU part of `nvidia-smi topo -m` (tabs or spaces, NIC columns and rows, the affinity
/// columns and the legend all allowed).
pub fn parse_matrix(text: &str) -> Result<Matrix, TopoImportError> {
    let (n, rows) = block(text)?;
    let mut links: Vec<Option<Vec<Link>>> = vec![None; n];
    let mut numa = vec![None; n];
    for (line, g, c) in rows {
        if g >= n {
            continue;
        }
        if links[g].is_some() {
            return Err(TopoImportError::DuplicateRow { line, gpu: g });
        }
        if c.len() < n {
            return Err(TopoImportError::ShortRow {
                line,
                row: format!("GPU{g}"),
                found: c.len(),
                expected: n,
            });
        }
        let row = c[..n]
            .iter()
            .map(|s| {
                Link::parse(s).ok_or_else(|| TopoImportError::BadCell {
                    line,
                    cell: s.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        // After the GPU and device columns: CPU affinity, NUMA affinity, GPU NUMA ID. The NUMA
        // affinity is the first lone integer after the class cells that follows a CPU list.
        let tail: Vec<&String> = c[n..].iter().skip_while(|s| Link::parse(s).is_some()).collect();
        if tail.len() >= 2 {
            numa[g] = tail[1].parse().ok();
        }
        links[g] = Some(row);
    }
    let links = links
        .into_iter()
        .enumerate()
        .map(|(g, r)| r.ok_or(TopoImportError::MissingRow { gpu: g, count: n }))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, row) in links.iter().enumerate() {
        if row[i] != Link::SelfLink {
            return Err(TopoImportError::NotSelf {
                gpu: i,
                cell: row[i].label(),
            });
        }
        for (j, &l) in row.iter().enumerate().skip(i + 1) {
            if l != links[j][i] {
                return Err(TopoImportError::Asymmetric {
                    a: i,
                    b: j,
                    ab: l.label(),
                    ba: links[j][i].label(),
                });
            }
        }
    }
    Ok(Matrix { links, numa })
}

/// `nvidia-smi topo -p2p r` (or `w`, `rw`, `n`, `a`): whether every GPU pair reports OK, with the
/// statuses other than OK that it printed (CNS, GNS, TNS, NS, DR, U).
pub fn parse_p2p(text: &str) -> Result<(usize, BTreeMap<String, usize>), TopoImportError> {
    let (n, rows) = block(text)?;
    let mut not_ok = BTreeMap::new();
    for (line, g, c) in rows {
        if g >= n {
            continue;
        }
        for (j, s) in c.iter().take(n).enumerate() {
            match s.as_str() {
                "X" if j == g => {}
                "OK" => {}
                "NS" | "CNS" | "GNS" | "TNS" | "DR" | "U" => *not_ok.entry(s.clone()).or_default() += 1,
                _ => {
                    return Err(TopoImportError::BadStatus {
                        line,
                        cell: s.clone(),
                    });
                }
            }
        }
    }
    Ok((n, not_ok))
}

/// Union-find over GPU indices.
struct Classes(Vec<usize>);

impl Classes {
    fn new(n: usize) -> Self {
        Classes((0..n).collect())
    }
    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.0[r] != r {
            r = self.0[r];
        }
        self.0[x] = r;
        r
    }
    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        // The smaller root wins, so classes are named by their first GPU (deterministic order).
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        self.0[hi] = lo;
    }
    /// Classes joined by the pairs whose link `pick` accepts.
    fn of(m: &Matrix, pick: impl Fn(Link, usize, usize) -> bool) -> Self {
        let n = m.links.len();
        let mut c = Classes::new(n);
        for i in 0..n {
            for j in i + 1..n {
                if pick(m.links[i][j], i, j) {
                    c.join(i, j);
                }
            }
        }
        c
    }
}

/// The tree `m` implies: one path per GPU, as `[hardware.topology] gpus` writes them.
pub fn tree_paths(m: &Matrix) -> Result<Vec<String>, TopoImportError> {
    let n = m.links.len();
    use Link::*;
    // NVLink pairs hide their PCIe class: they join a socket only when their NUMA nodes agree.
    let mut socket = Classes::of(m, |l, i, j| match l {
        Pix | Pxb | Phb | Node => true,
        Nv(_) => m.numa[i].is_some() && m.numa[i] == m.numa[j],
        _ => false,
    });
    let mut rc = Classes::of(m, |l, _, _| matches!(l, Pix | Pxb | Phb));
    let mut root = Classes::of(m, |l, _, _| matches!(l, Pix | Pxb));
    let mut leaf = Classes::of(m, |l, _, _| l == Pix);
    // Sockets with a PHB pair get `rc` segments (PHB: one host bridge, several root ports).
    let phb_sockets: Vec<usize> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|&(i, j)| m.links[i][j] == Phb)
        .map(|(i, _)| socket.find(i))
        .collect();
    let mut names: BTreeMap<(u8, usize), String> = BTreeMap::new();
    let mut counters = [0usize; 4];
    let mut name = |kind: u8, class: usize, prefix: &str| -> String {
        names
            .entry((kind, class))
            .or_insert_with(|| {
                let k = counters[kind as usize];
                counters[kind as usize] += 1;
                format!("{prefix}{k}")
            })
            .clone()
    };
    let mut paths = Vec::with_capacity(n);
    for g in 0..n {
        let s = socket.find(g);
        let mut p = vec![name(0, s, "socket")];
        if phb_sockets.contains(&s) {
            p.push(name(1, rc.find(g), "rc"));
        }
        let r = root.find(g);
        p.push(name(2, r, "root"));
        let members: Vec<usize> = (0..n).filter(|&x| root.find(x) == r).collect();
        if members.len() > 1 {
            let mut leaves: Vec<usize> = members.iter().map(|&x| leaf.find(x)).collect();
            leaves.sort_unstable();
            leaves.dedup();
            if leaves.len() > 1 {
                // Switches under a common switch (PXB between them); written two levels deep.
                p.push(name(3, n + r, "switch"));
            }
            p.push(name(3, leaf.find(g), "switch"));
        }
        paths.push(p.join("/"));
    }
    check(m, &paths)?;
    Ok(paths)
}

/// NUMA nodes of one socket put back on it (issue #19: AMD NPS2 / NPS4, Intel SNC). nvidia-smi prints
/// SYS between GPUs on different NUMA nodes of one socket, so [`tree_paths`] makes each node a socket.
/// Where lscpu gives `sockets` and `nodes` > `sockets` (a whole number of nodes a socket), the tree has
/// more sockets than that, each tree socket's GPUs share one NUMA node (the matrix's NUMA Affinity
/// column) and no two tree sockets share one, each is moved onto socket `node ÷ (nodes ÷ sockets)`
/// (Linux numbers an NPS / SNC host's nodes socket by socket: an assumption, stated in the note), its
/// host bridges becoming root complexes of that socket. The pairs between nodes are then NODE in the
/// tree and SYS to NCCL through `[host]`'s `gpu_numa_nodes` (ncclhost59), which the host lines write from
/// the same column. Returns the note, or `None` (paths untouched) where a condition fails.
fn fold_numa_nodes(paths: &mut [String], numa: &[Option<u32>], sockets: u32, nodes: u32) -> Option<String> {
    if sockets == 0 || nodes <= sockets || !nodes.is_multiple_of(sockets) {
        return None;
    }
    let nps = nodes / sockets;
    let node_of: Vec<u32> = numa.iter().copied().collect::<Option<_>>()?;
    if node_of.iter().any(|&x| x >= nodes) {
        return None;
    }
    let mut node_of_group: BTreeMap<&str, u32> = BTreeMap::new();
    for (p, &x) in paths.iter().zip(&node_of) {
        let g = p.split('/').next().unwrap_or("");
        if *node_of_group.entry(g).or_insert(x) != x {
            return None;
        }
    }
    let mut groups_of_node: BTreeMap<u32, usize> = BTreeMap::new();
    for &x in node_of_group.values() {
        *groups_of_node.entry(x).or_default() += 1;
    }
    if node_of_group.len() as u32 <= sockets || groups_of_node.values().any(|&c| c > 1) {
        return None;
    }
    // Root complexes: a tree socket's `rc` segment, or each of its roots where it has none.
    let mut rcs: Vec<(String, String)> = Vec::new();
    let new: Vec<String> = paths
        .iter()
        .zip(&node_of)
        .map(|(p, &x)| {
            let segs: Vec<&str> = p.split('/').collect();
            let key = (segs[0].to_string(), segs[1].to_string());
            let rest = if segs[1].starts_with("rc") {
                &segs[2..]
            } else {
                &segs[1..]
            };
            let k = rcs.iter().position(|r| *r == key).unwrap_or_else(|| {
                rcs.push(key);
                rcs.len() - 1
            });
            format!("socket{}/rc{k}/{}", x / nps, rest.join("/"))
        })
        .collect();
    paths.clone_from_slice(&new);
    Some(format!(
        "NUMA nodes on sockets: lscpu gives {nodes} NUMA nodes on {sockets} socket(s) (NPS{nps} / SNC{nps}), so the matrix's SYS pairs between nodes are one socket's quadrants, not sockets: node k is put on socket k / {nps} (Linux numbers nodes socket by socket; assumed), each node's host bridges root complexes of it; NCCL sees the pairs across nodes as SYS through gpu_numa_nodes"
    ))
}

/// Every pair of the matrix against the tree: the class NCCL's path search gives on the tree, and
/// for PHB / NODE whether the pair shares a root complex.
fn check(m: &Matrix, paths: &[String]) -> Result<(), TopoImportError> {
    let t = Topology::from_paths(paths).map_err(|e| TopoImportError::NoTree {
        a: 0,
        b: 0,
        said: "a tree".into(),
        built: e.to_string(),
    })?;
    let n = m.links.len();
    for i in 0..n {
        for j in i + 1..n {
            let said = m.links[i][j];
            let got = t.path_class(i, j, false);
            let same_rc = t.root_complex_of(i) == t.root_complex_of(j);
            let built = match (got, same_rc) {
                (PathClass::Pix, _) => Link::Pix,
                (PathClass::Pxb, _) => Link::Pxb,
                (PathClass::Phb, true) => Link::Phb,
                (PathClass::Phb, false) => Link::Node,
                _ => Link::Sys,
            };
            let ok = match said {
                Link::Nv(_) => true,
                // A root port is its own root complex when no `rc` segment is written: NODE pairs
                // are then different root ports, PHB pairs never arise without an rc segment.
                s => s == built,
            };
            if !ok {
                return Err(TopoImportError::NoTree {
                    a: i,
                    b: j,
                    said: said.label(),
                    built: built.label(),
                });
            }
        }
    }
    Ok(())
}

/// What `tpsim import-topo` is told besides the matrix.
#[derive(Debug, Clone)]
pub struct Options {
    /// A bundled GPU template (`scenarios/hardware/templates/<name>.toml`).
    pub template: String,
    /// `amd` or `intel`: NCCL's default P2P level and the inter-socket model depend on it.
    pub cpu_vendor: String,
    /// The preset's `name`; default: the GPU count, the template and where it came from.
    pub name: Option<String>,
    /// The text of `nvidia-smi topo -p2p r`, when given.
    pub p2p: Option<String>,
    /// The GPUs' PCIe links (`pcie::parse_pcie`'s formats), when given.
    pub pcie: Option<String>,
    /// Issue #19 point 1 (shmhost19): the host's facts, for a `[host]` section (`host`).
    pub host: host::HostInput,
}

/// A hardware preset read from a matrix.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The TOML file.
    pub text: String,
    /// One path per GPU.
    pub paths: Vec<String>,
    /// What was assumed or read, for the user (also written in the file as comments).
    pub notes: Vec<String>,
    /// What tpsim cannot model of the box as given.
    pub warnings: Vec<String>,
}

/// A bundled template's value at a dotted key, following its `extends` chain.
fn template_value(name: &str, section: &str, key: &str) -> Option<toml::Value> {
    let text = crate::presets::hardware_template(name)?;
    let v: toml::Value = toml::from_str(text).ok()?;
    if let Some(x) = v.get(section).and_then(|s| s.get(key)) {
        return Some(x.clone());
    }
    let parent = v.get("extends")?.as_str()?.to_string();
    template_value(&parent, section, key)
}

/// The whole import: matrix → tree → hardware TOML over `o.template`.
pub fn import(topo_text: &str, o: &Options) -> Result<Imported, TopoImportError> {
    if crate::presets::hardware_template(&o.template).is_none() {
        return Err(TopoImportError::Template {
            name: o.template.clone(),
            known: crate::presets::names("hardware-template").join(", "),
        });
    }
    let vendor = o.cpu_vendor.to_ascii_lowercase();
    if vendor != "amd" && vendor != "intel" {
        return Err(TopoImportError::CpuVendor(o.cpu_vendor.clone()));
    }
    let m = parse_matrix(topo_text)?;
    let mut paths = tree_paths(&m)?;
    // Issue #19: an NPS2/NPS4 or SNC host prints SYS between the NUMA nodes of one socket; with lscpu's
    // counts the nodes go back on their sockets.
    let lscpu = o.host.lscpu.as_deref().map(host::parse_lscpu).transpose()?;
    let folded = lscpu.as_ref().and_then(|l| {
        let sockets = o.host.sockets.or(l.sockets.map(|(s, _)| s))?;
        fold_numa_nodes(&mut paths, &m.numa, sockets, l.numa_nodes?.0)
    });
    let n = paths.len();
    let mut notes = Vec::new();
    let mut warnings = Vec::new();
    let pairs = n * (n - 1) / 2;
    let nv = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|&(i, j)| matches!(m.links[i][j], Link::Nv(_)))
        .count();
    let template_nvlink =
        template_value(&o.template, "gpu", "nvlink").and_then(|v| v.as_bool()) == Some(true);
    let mut gpu_lines = Vec::new();
    if nv > 0 && nv == pairs {
        notes.push(
            "every pair is NVLink: the PCIe tree behind it is not printed, so each GPU is placed on its own root port of its NUMA node".into(),
        );
        gpu_lines
            .push("nvlink = true                     # NV# on every pair of nvidia-smi topo -m".to_string());
        if template_value(&o.template, "params", "nvlink_bw").is_none() {
            warnings.push(format!(
                "template `{}` gives no NVLink figures: add [params] nvlink_bw and nvlink_latency (as the bundled NVLink presets do, e.g. h100-sxm-8x-nvlink)",
                o.template
            ));
        }
    } else if nv > 0 {
        warnings.push(format!(
            "{nv} of {pairs} pairs are NVLink (bridges): tpsim's NVLink is one flag per box, so these pairs are modelled on PCIe as placed by their NUMA node"
        ));
    } else if template_nvlink {
        warnings.push(format!(
            "template `{}` has NVLink (gpu.nvlink) but the matrix shows none: choose a PCIe template",
            o.template
        ));
    }
    let sockets: Vec<&str> = {
        let mut s: Vec<&str> = paths.iter().map(|p| p.split('/').next().unwrap_or("")).collect();
        s.dedup();
        s
    };
    let numa_of_socket: BTreeMap<&str, Vec<u32>> =
        paths
            .iter()
            .zip(&m.numa)
            .fold(BTreeMap::new(), |mut acc, (p, nu)| {
                let e: &mut Vec<u32> = acc.entry(p.split('/').next().unwrap_or("")).or_default();
                if let Some(x) = nu
                    && !e.contains(x)
                {
                    e.push(*x);
                }
                acc
            });
    for (s, nodes) in &numa_of_socket {
        if !nodes.is_empty() {
            notes.push(format!(
                "{s}: NUMA node {} (the matrix's NUMA Affinity column)",
                nodes.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    if let Some(note) = folded {
        notes.push(note);
    } else if numa_of_socket.len() > 1 {
        notes.push(
            "SYS pairs become sockets: an EPYC set to NPS2/NPS4 prints SYS between its own NUMA nodes, which tpsim then models as separate sockets joined by the template's inter-socket link".into(),
        );
    }
    let direct = paths.iter().filter(|p| !p.contains("switch")).count();
    if direct > 0 {
        notes.push(format!(
            "{direct} GPU(s) share no switch with another GPU and are written direct-attached to their own root port (a lone GPU behind a switch prints the same)"
        ));
    }
    if paths.iter().any(|p| p.matches("switch").count() > 1) {
        notes.push(
            "switches joined by PXB are written under one common switch (a deeper hierarchy prints the same)"
                .into(),
        );
    }
    if let Some(text) = &o.pcie {
        let (format, links) = pcie::parse_pcie(text)?;
        let (pg, width, n2, w2) = pcie::box_link(format, &links, n)?;
        notes.extend(n2);
        warnings.extend(w2);
        // The comments start in column 35, as the other lines of the file.
        gpu_lines.push(format!(
            "{:<34}# {}: {}",
            format!("pcie_gen = {pg}"),
            format.label(),
            if format == pcie::PcieFormat::Lspci {
                "the GPUs' LnkCap speed"
            } else {
                "the maximum generation (the lowest where GPUs differ)"
            }
        ));
        gpu_lines.push(format!(
            "{:<34}# {}: the width each GPU trained at (the lowest where GPUs differ)",
            format!("pcie_width = {width}"),
            format.label()
        ));
        let switches = paths.iter().any(|p| p.contains("switch"));
        if switches {
            notes.push(
                "a switch's uplink is not in the GPUs' reports: it defaults to the GPUs' generation at x16; give it as [topology.nodes.<name>] gen / width".into(),
            );
        }
    } else {
        notes.push(format!(
            "link widths and PCIe generations are the template's (`{}`); give a switch's uplink as [topology.nodes.<name>] gen / width",
            o.template
        ));
    }
    if let Some(p) = &o.p2p {
        let (pn, not_ok) = parse_p2p(p)?;
        if pn != n {
            return Err(TopoImportError::P2pCount {
                found: pn,
                expected: n,
            });
        }
        if not_ok.is_empty() {
            gpu_lines.push(
                "p2p = true                        # nvidia-smi topo -p2p: OK on every pair".to_string(),
            );
        } else {
            let what = not_ok
                .iter()
                .map(|(k, v)| format!("{k} on {} of {pairs} pairs", v / 2))
                .collect::<Vec<_>>()
                .join(", ");
            if not_ok.values().sum::<usize>() / 2 < pairs {
                warnings.push(format!(
                    "P2P is reported on some pairs only ({what}): tpsim's P2P is one flag per box, set to false"
                ));
            }
            gpu_lines.push(format!(
                "p2p = false                       # nvidia-smi topo -p2p: {what}"
            ));
        }
    } else {
        let v = template_value(&o.template, "gpu", "p2p").and_then(|v| v.as_bool());
        notes.push(format!(
            "P2P support not given: the template's p2p = {} stands (pass `nvidia-smi topo -p2p r` with --p2p)",
            v.map_or("(unset)".to_string(), |b| b.to_string())
        ));
    }
    // Issue #19 point 1 (shmhost19): the host's facts, when given; else say what SHM then costs.
    let host_lines = if o.host.any() {
        let used = paths
            .iter()
            .map(|p| p.split('/').next().unwrap_or(""))
            .collect::<std::collections::BTreeSet<_>>()
            .len() as u32;
        let mut input = o.host.clone();
        input.gpu_numa = m.numa.clone();
        let h = host::host_lines(&input, used)?;
        notes.extend(h.notes.iter().cloned());
        Some(h)
    } else {
        notes.push(
            "no [host] section (CPU, sockets, memory channels): where NCCL takes SHM (no P2P, or paths beyond NCCL_P2P_LEVEL) tpsim costs it at the template's shm_copy_bw, fitted on another host; give --cpu-model, --sockets (or --lscpu FILE) to describe the host".into(),
        );
        None
    };
    let name = o.name.clone().unwrap_or_else(|| {
        format!(
            "{n}x {} ({} socket(s)), imported from nvidia-smi topo -m",
            o.template,
            sockets.len()
        )
    });
    let mut t = String::new();
    t.push_str("# Written by `tpsim import-topo` from an `nvidia-smi topo -m` matrix (issue #19: the box from what it\n");
    t.push_str("# reports). The tree below reproduces every GPU pair's class of that matrix.\n");
    for x in notes.iter().chain(&warnings) {
        t.push_str(&wrap_comment(x));
    }
    t.push_str(&format!("name = {}\n", toml::Value::String(name)));
    t.push_str(&format!("cpu_vendor = \"{vendor}\"\n"));
    for l in host_lines.iter().flat_map(|h| &h.top) {
        t.push_str(&format!("{l}\n"));
    }
    t.push_str(&format!(
        "extends = \"{}\"                   # the GPU and the shared constants: templates/{}.toml\n\n",
        o.template, o.template
    ));
    t.push_str("[topology]\ngpus = [\n");
    for (g, p) in paths.iter().enumerate() {
        let numa = m.numa[g].map_or(String::new(), |x| format!(" (NUMA {x})"));
        t.push_str(&format!("  \"{p}\",   # GPU{g}{numa}\n"));
    }
    t.push_str("]\n");
    if !gpu_lines.is_empty() {
        t.push_str(&format!("\n[gpu]\n{}\n", gpu_lines.join("\n")));
    }
    if let Some(h) = host_lines {
        t.push_str(&format!("\n[host]\n{}\n", h.host.join("\n")));
        t.push_str(&format!("\n[params]\n{}\n", h.params));
    }
    Ok(Imported {
        text: t,
        paths,
        notes,
        warnings,
    })
}

/// A note as `#` comment lines of at most about 110 characters.
fn wrap_comment(s: &str) -> String {
    let mut out = String::new();
    let mut line = String::from("#");
    for w in s.split_whitespace() {
        if line.len() + 1 + w.len() > 110 && line.len() > 1 {
            out.push_str(&line);
            out.push('\n');
            line = String::from("#  ");
        }
        line.push(' ');
        line.push_str(w);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 5-GPU box posted with a benchmark (noonghunna/club-3090 issue 46, "[bench] Dual 4090",
    /// 2026-05-03): GPU0 on NUMA node 1, GPU1–4 on node 0 in two host-bridge pairs.
    const CLUB3090_46: &str =
        "        GPU0    GPU1    GPU2    GPU3    GPU4    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      SYS     SYS     SYS     SYS     8-15,24-31      1               N/A
GPU1    SYS      X      PHB     NODE    NODE    0-7,16-23       0               N/A
GPU2    SYS     PHB      X      NODE    NODE    0-7,16-23       0               N/A
GPU3    SYS     NODE    NODE     X      PHB     0-7,16-23       0               N/A
GPU4    SYS     NODE    NODE    PHB      X      0-7,16-23       0               N/A

Legend:

  X    = Self
";

    #[test]
    fn phb_pairs_share_a_root_complex_and_sys_splits_sockets() {
        let m = parse_matrix(CLUB3090_46).unwrap();
        assert_eq!(m.numa, vec![Some(1), Some(0), Some(0), Some(0), Some(0)]);
        let p = tree_paths(&m).unwrap();
        assert_eq!(
            p,
            vec![
                "socket0/root0",
                "socket1/rc0/root1",
                "socket1/rc0/root2",
                "socket1/rc1/root3",
                "socket1/rc1/root4",
            ]
        );
    }

    /// kubernetes/kubernetes issue 53497 (2017-11-15): 8 GPUs in switch pairs, two pairs a socket
    /// under one host bridge, and an mlx4_0 column between the GPUs and the affinity.
    const K8S_53497: &str =
        "        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    GPU6    GPU7    mlx4_0  CPU Affinity
GPU0     X      PIX     PHB     PHB     SYS     SYS     SYS     SYS     PHB     0-9,20-29
GPU1    PIX      X      PHB     PHB     SYS     SYS     SYS     SYS     PHB     0-9,20-29
GPU2    PHB     PHB      X      PIX     SYS     SYS     SYS     SYS     PHB     0-9,20-29
GPU3    PHB     PHB     PIX      X      SYS     SYS     SYS     SYS     PHB     0-9,20-29
GPU4    SYS     SYS     SYS     SYS      X      PIX     PHB     PHB     SYS     10-19,30-39
GPU5    SYS     SYS     SYS     SYS     PIX      X      PHB     PHB     SYS     10-19,30-39
GPU6    SYS     SYS     SYS     SYS     PHB     PHB      X      PIX     SYS     10-19,30-39
GPU7    SYS     SYS     SYS     SYS     PHB     PHB     PIX      X      SYS     10-19,30-39
mlx4_0  PHB     PHB     PHB     PHB     SYS     SYS     SYS     SYS      X
";

    #[test]
    fn switch_pairs_under_one_host_bridge() {
        let m = parse_matrix(K8S_53497).unwrap();
        assert_eq!(m.numa, vec![None; 8]);
        let p = tree_paths(&m).unwrap();
        assert_eq!(p[0], "socket0/rc0/root0/switch0");
        assert_eq!(p[1], "socket0/rc0/root0/switch0");
        assert_eq!(p[2], "socket0/rc0/root1/switch1");
        assert_eq!(p[4], "socket1/rc1/root2/switch2");
        assert_eq!(p[7], "socket1/rc1/root3/switch3");
    }

    #[test]
    fn leaf_switches_under_a_common_switch() {
        // Two PIX pairs joined by PXB: one root switch above two leaves.
        let text = "GPU0 GPU1 GPU2 GPU3\nGPU0 X PIX PXB PXB\nGPU1 PIX X PXB PXB\nGPU2 PXB PXB X PIX\nGPU3 PXB PXB PIX X\n";
        let p = tree_paths(&parse_matrix(text).unwrap()).unwrap();
        assert_eq!(
            p,
            vec![
                "socket0/root0/switch0/switch1",
                "socket0/root0/switch0/switch1",
                "socket0/root0/switch0/switch2",
                "socket0/root0/switch0/switch2",
            ]
        );
    }

    #[test]
    fn a_matrix_no_tree_gives_is_refused() {
        // PIX is a switch: GPU0–1 and GPU1–2 PIX force GPU0–2 PIX, not NODE.
        let text = "GPU0 GPU1 GPU2\nGPU0 X PIX NODE\nGPU1 PIX X PIX\nGPU2 NODE PIX X\n";
        let e = tree_paths(&parse_matrix(text).unwrap()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "GPU0–GPU2: the matrix says NODE, but the tree its other pairs force makes it PIX: no PCIe tree gives this matrix"
        );
    }

    #[test]
    fn bad_matrices_name_the_line_and_cell() {
        let e = parse_matrix("hello\n").unwrap_err();
        assert_eq!(e, TopoImportError::NoHeader);
        let e = parse_matrix("GPU0 GPU1\nGPU0 X PIQ\nGPU1 PIX X\n").unwrap_err();
        assert_eq!(
            e,
            TopoImportError::BadCell {
                line: 2,
                cell: "PIQ".into()
            }
        );
        let e = parse_matrix("GPU0 GPU1\nGPU0 X PIX\nGPU1 PXB X\n").unwrap_err();
        assert!(e.to_string().contains("PIX one way and PXB the other"), "{e}");
        let e = parse_matrix("GPU0 GPU1\nGPU0 X PIX\n").unwrap_err();
        assert_eq!(e, TopoImportError::MissingRow { gpu: 1, count: 2 });
        let e = parse_matrix("GPU0 GPU1\nGPU0 X\nGPU1 PIX X\n").unwrap_err();
        assert!(
            matches!(
                e,
                TopoImportError::ShortRow {
                    line: 2,
                    found: 1,
                    expected: 2,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn p2p_statuses() {
        // noonghunna/club-3090 issue 1229: `topo -p2p rw` of 2 RTX 5090 on the stock driver.
        let (n, not_ok) = parse_p2p(" \tGPU0\tGPU1\t\n GPU0\tX\tGNS\t\n GPU1\tGNS\tX\t\n").unwrap();
        assert_eq!(n, 2);
        assert_eq!(not_ok.get("GNS"), Some(&2));
        let o = Options {
            template: "rtx-5090".into(),
            cpu_vendor: "AMD".into(),
            name: None,
            pcie: None,
            host: Default::default(),
            p2p: Some(" \tGPU0\tGPU1\t\n GPU0\tX\tGNS\t\n GPU1\tGNS\tX\t\n".into()),
        };
        let matrix = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \tPHB\t0-63\t0\t\tN/A\nGPU1\tPHB\t X \t0-63\t0\t\tN/A\n";
        let i = import(matrix, &o).unwrap();
        assert_eq!(i.paths, vec!["socket0/rc0/root0", "socket0/rc0/root1"]);
        assert!(
            i.text
                .contains("p2p = false                       # nvidia-smi topo -p2p: GNS on 1 of 1 pairs"),
            "{}",
            i.text
        );
        assert!(i.warnings.is_empty(), "{:?}", i.warnings);
    }

    /// The matrix `tpsim topo --hardware rtx-5090-4x-syncopate-epyc-9b14` draws, in nvidia-smi's layout
    /// (constructed, not a box's report): one EPYC 9B14 in NPS4, GPUs 0/1 under one host bridge on node 3,
    /// GPU 2 on node 2, GPU 3 on node 0 (the Syncopate probe's hardware profile); SYS between the nodes.
    const NPS4_SYNCOPATE: &str =
        "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      PHB     SYS     SYS     72-95,168-191   3               N/A
GPU1    PHB      X      SYS     SYS     72-95,168-191   3               N/A
GPU2    SYS     SYS      X      SYS     48-71,144-167   2               N/A
GPU3    SYS     SYS     SYS      X      0-23,96-119     0               N/A
";

    fn nps4_options(lscpu: &str) -> Options {
        Options {
            template: "rtx-5090".into(),
            cpu_vendor: "amd".into(),
            name: None,
            pcie: None,
            p2p: None,
            host: host::HostInput {
                lscpu: Some(lscpu.into()),
                ..Default::default()
            },
        }
    }

    #[test]
    fn nps4_nodes_go_back_on_their_socket_with_lscpu() {
        // Without lscpu's counts each NUMA node is a socket (three: {0, 1}, {2}, {3}).
        let m = parse_matrix(NPS4_SYNCOPATE).unwrap();
        assert_eq!(
            tree_paths(&m).unwrap(),
            vec![
                "socket0/rc0/root0",
                "socket0/rc0/root1",
                "socket1/root2",
                "socket2/root3"
            ]
        );
        // lscpu: 1 socket, 4 NUMA nodes → NPS4: the three tree sockets are root complexes of socket 0,
        // the bundled preset's tree, and the host lines carry the nodes.
        let lscpu = "Model name:            AMD EPYC 9B14 96-Core Processor\nSocket(s):             1\nNUMA node(s):          4\n";
        let i = import(NPS4_SYNCOPATE, &nps4_options(lscpu)).unwrap();
        assert_eq!(
            i.paths,
            vec![
                "socket0/rc0/root0",
                "socket0/rc0/root1",
                "socket0/rc1/root2",
                "socket0/rc2/root3"
            ]
        );
        assert!(i.text.contains("numa_nodes_per_socket = 4 "), "{}", i.text);
        assert!(i.text.contains("gpu_numa_nodes = [3, 3, 2, 0] "), "{}", i.text);
        assert!(
            i.notes.iter().any(|n| n.contains("(NPS4 / SNC4)")),
            "{:?}",
            i.notes
        );
        assert!(!i.notes.iter().any(|n| n.starts_with("SYS pairs become sockets")));
        // Two sockets of NPS2 (4 nodes): nodes 0/1 on socket 0, 2/3 on socket 1 — node 3 (GPUs 0/1)
        // and node 2 (GPU 2) share socket 1, node 0 (GPU 3) is socket 0.
        let two = "Model name:            AMD EPYC 9B14 96-Core Processor\nSocket(s):             2\nNUMA node(s):          4\n";
        let i = import(NPS4_SYNCOPATE, &nps4_options(two)).unwrap();
        assert_eq!(
            i.paths,
            vec![
                "socket1/rc0/root0",
                "socket1/rc0/root1",
                "socket1/rc1/root2",
                "socket0/rc2/root3"
            ]
        );
        // One node a socket (lscpu: 1 and 1): nothing to fold, and the host lines refuse a socket count
        // below the tree's three.
        let one = "Model name:            AMD EPYC 9B14 96-Core Processor\nSocket(s):             1\nNUMA node(s):          1\n";
        let e = import(NPS4_SYNCOPATE, &nps4_options(one))
            .unwrap_err()
            .to_string();
        assert!(e.contains("the matrix puts GPUs on 3 NUMA nodes"), "{e}");
    }
}

//! Issue #19 point 1 (shmhost19): `tpsim import-topo`'s `[host]` section from what the box says of
//! its host: `--cpu-model`, `--sockets`, `--memory-channels`, `--dimm-mts`, `--socket-links`,
//! `--socket-link-bw`, `--shm-read-efficiency` given as flags, or read from `lscpu` (`Model name:`,
//! `Socket(s):`, `NUMA node(s):`) and `dmidecode -t memory` (populated DIMMs, `Configured Memory
//! Speed:`). What neither gives comes from a small table of CPU platforms ([`PLATFORMS`]), each figure
//! with its source; a flag wins over a file, a file over the table. Every line of the section says
//! where its value came from, with the label the presets use (`[given]`, `[measured]`, `[datasheet]`,
//! `[assumed]`, `[derived]`).

use super::TopoImportError;

/// A CPU platform's host figures (per socket), as the bundled presets with a `[host]` state them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Platform {
    /// How the platform is named in the file's comments.
    pub name: &'static str,
    /// DRAM channels per socket.
    pub channels: u32,
    /// DIMM rate, MT/s (the platform's top rate: populated at it is assumed).
    pub dimm_mts: u32,
    /// Socket links between two sockets (UPI / xGMI) and one link's GB/s per direction.
    pub socket_links: u32,
    pub socket_link_gbps: f64,
    /// Where the channel count and DIMM rate are from.
    pub memory_source: &'static str,
    /// Where the link count and rate are from.
    pub link_source: &'static str,
}

/// The platforms tpsim knows by CPU model name. The EPYC generation is the model number's last digit
/// (AMD's naming from the EPYC 9004 launch: series, cores, performance, generation, then P/F/X;
/// e.g. 9575F = 9005 series, 7542 = 7002 series); an Intel Xeon Scalable's is the second digit of
/// its number (Gold 6148 first, 6248 second generation). The figures are those the bundled presets
/// state for these platforms (rtx-pro-6000-4x-turin-same-numa-shm.toml, rtx-5090-syncopate-epyc-9v74
/// template, rtx-4090-8x-epyc-7542-shm.toml, rtx-4090-kalavai-xeon template).
pub const PLATFORMS: [(&str, Platform); 10] = [
    (
        "epyc-9005",
        Platform {
            name: "AMD EPYC 9005 (Zen 5 Turin, SP5)",
            channels: 12,
            dimm_mts: 6400,
            socket_links: 4,
            socket_link_gbps: 64.0,
            memory_source: "12 DDR5 channels per SP5 socket, DDR5-6400 the EPYC 9005 family's top rate (AMD EPYC 9005 platform)",
            link_source: "3 or 4 xGMI links between two SP5 sockets, 4 assumed; xGMI at 32 Gb/s x 16 lanes = 64 GB/s per direction per link (AMD EPYC 9004/9005 platform)",
        },
    ),
    (
        "epyc-9004",
        Platform {
            name: "AMD EPYC 9004 (Zen 4 Genoa, SP5)",
            channels: 12,
            dimm_mts: 4800,
            socket_links: 4,
            socket_link_gbps: 64.0,
            memory_source: "12 DDR5 channels per SP5 socket, DDR5-4800 the EPYC 9004 family's rate (AMD EPYC 9004 platform)",
            link_source: "3 or 4 xGMI links between two SP5 sockets, 4 assumed; xGMI at 32 Gb/s x 16 lanes = 64 GB/s per direction per link (AMD EPYC 9004 platform)",
        },
    ),
    (
        "epyc-7002",
        Platform {
            name: "AMD EPYC 7002 (Zen 2 Rome, SP3)",
            channels: 8,
            dimm_mts: 3200,
            socket_links: 4,
            socket_link_gbps: 32.0,
            memory_source: "8 DDR4 channels per SP3 socket, DDR4-3200 (AMD EPYC 7002 platform)",
            link_source: "3 or 4 xGMI links between two EPYC 7002 sockets, 4 assumed; xGMI-2 at 16 Gb/s x 16 lanes = 32 GB/s per direction per link (AMD EPYC 7002 platform)",
        },
    ),
    (
        "epyc-7003",
        Platform {
            name: "AMD EPYC 7003 (Zen 3 Milan, SP3)",
            channels: 8,
            dimm_mts: 3200,
            socket_links: 4,
            socket_link_gbps: 32.0,
            memory_source: "8 DDR4 channels per SP3 socket, DDR4-3200 (AMD EPYC 7003 platform; an EPYC 7713's memory controller reads \"Eight Channel ... DDR4 3199 MT/s\" in CoreFreq, gist cyring/32df20caa4034cb74500d16507a9bbe1)",
            link_source: "3 or 4 xGMI links between two SP3 sockets, 4 assumed; xGMI-2 at 16 Gb/s x 16 lanes = 32 GB/s per direction per link, the EPYC 7002 socket's (AMD EPYC 7003 platform: SP3, drop-in for 7002)",
        },
    ),
    (
        "xeon-scalable-1-2",
        Platform {
            name: "Intel Xeon Scalable, 1st or 2nd generation",
            channels: 6,
            dimm_mts: 2666,
            socket_links: 2,
            socket_link_gbps: 20.8,
            memory_source: "6 DDR4 channels per socket on Xeon Scalable 1st/2nd gen, DDR4-2666 the rate every Gold part supports (Intel ARK)",
            link_source: "2 or 3 UPI links on Gold parts, 2 assumed (Intel ARK); UPI at 10.4 GT/s = 20.8 GB/s per direction per link (Intel Xeon Scalable datasheet)",
        },
    ),
    (
        "xeon-scalable-3",
        Platform {
            name: "Intel Xeon Scalable, 3rd generation (Ice Lake-SP)",
            channels: 8,
            dimm_mts: 3200,
            socket_links: 3,
            socket_link_gbps: 22.4,
            memory_source: "8 DDR4 channels per socket, DDR4-3200 (3rd gen Xeon Scalable, Ice Lake-SP: Microway, \"Detailed Specifications of the Ice Lake SP Intel Xeon Processor Scalable Family CPUs\", 2021)",
            link_source: "2 or 3 UPI links by SKU, 3 assumed (Platinum 8380: 3, Intel ARK); UPI at 11.2 GT/s = 22.4 GB/s per direction per link (Microway, Ice Lake SP: \"11.2GT/s UPI links\")",
        },
    ),
    (
        "xeon-scalable-4",
        Platform {
            name: "Intel Xeon Scalable, 4th generation (Sapphire Rapids)",
            channels: 8,
            dimm_mts: 4800,
            socket_links: 4,
            socket_link_gbps: 32.0,
            memory_source: "8 DDR5 channels per socket, DDR5-4800 (4th gen Xeon Scalable, Eagle Stream; wccftech and TechPowerUp on Sapphire Rapids-SP)",
            link_source: "up to 4 UPI 2.0 links by SKU, 4 assumed (Platinum 8480+: 4, Intel ARK); UPI 2.0 at 16 GT/s = 32 GB/s per direction per link (TechPowerUp, Sapphire Rapids memory and UPI 2.0 at 16 GT/s)",
        },
    ),
    (
        "xeon-scalable-5",
        Platform {
            name: "Intel Xeon Scalable, 5th generation (Emerald Rapids)",
            channels: 8,
            dimm_mts: 5600,
            socket_links: 4,
            socket_link_gbps: 40.0,
            memory_source: "8 DDR5 channels per socket, DDR5-5600 at one DIMM per channel (5th gen Xeon, Eagle Stream; wccftech and smbom on Emerald Rapids)",
            link_source: "up to 4 UPI 2.0 links by SKU, 4 assumed (smbom: 2 per tile, 4 in all); UPI 2.0 at 20 GT/s = 40 GB/s per direction per link (Tom's Hardware: 16 -> 20 GT/s over Sapphire Rapids)",
        },
    ),
    (
        "xeon-6900p",
        Platform {
            name: "Intel Xeon 6 6900P (Granite Rapids-AP)",
            channels: 12,
            dimm_mts: 6400,
            socket_links: 6,
            socket_link_gbps: 48.0,
            memory_source: "12 DDR5 channels per socket, DDR5-6400 at one DIMM per channel, MRDIMM 8800 not assumed (Xeon 6900P: hardwareluxx 6980P/6972P table, ServeTheHome)",
            link_source: "6 UPI 2.0 links at up to 24 GT/s (Intel's Xeon 6900P launch, dedirock summary), all 6 assumed between two sockets; 24 GT/s = 48 GB/s per direction per link",
        },
    ),
    (
        "xeon-6700p",
        Platform {
            name: "Intel Xeon 6 6700P (Granite Rapids-SP)",
            channels: 8,
            dimm_mts: 6400,
            socket_links: 4,
            socket_link_gbps: 48.0,
            memory_source: "8 DDR5 channels per socket, DDR5-6400 at one DIMM per channel (Xeon 6700P/6500P, LGA 4710: cnews.cz, 2025-03)",
            link_source: "4 UPI 2.0 links assumed (the sources give the 6900P's 6, not the 6700P's count); 24 GT/s = 48 GB/s per direction per link assumed, the 6900P's rate",
        },
    ),
];

/// The platform of a CPU model name as `lscpu` prints it (`AMD EPYC 9575F 64-Core Processor`,
/// `Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz`), or `None` when the table does not know it.
pub fn platform_of(model: &str) -> Option<&'static Platform> {
    let words: Vec<&str> = model.split_whitespace().collect();
    let key = if let Some(i) = words.iter().position(|w| w.eq_ignore_ascii_case("EPYC")) {
        // The model number: four characters, digits with at most one letter inside (9V74, 9B14),
        // then an optional suffix (F, P, X).
        let num = words.get(i + 1)?;
        let core: String = num.chars().take(4).collect();
        let (series, generation) = (core.chars().next()?, core.chars().nth(3)?);
        match (series, generation) {
            ('9', '5') => "epyc-9005",
            ('9', '4') => "epyc-9004",
            ('7', '2') => "epyc-7002",
            ('7', '3') => "epyc-7003",
            _ => return None,
        }
    } else if model.to_ascii_lowercase().contains("xeon") {
        if let Some(i) = words
            .iter()
            .position(|w| ["Bronze", "Silver", "Gold", "Platinum"].contains(w))
        {
            let num = words.get(i + 1)?;
            // Cooper Lake (83xxH / 83xxHL, 4-8 sockets, 6 channels) shares the 3rd generation's digit
            // but not Ice Lake-SP's platform.
            if num.len() < 4 || num.ends_with('H') || num.ends_with("HL") {
                return None;
            }
            match num.chars().nth(1)? {
                '1' | '2' => "xeon-scalable-1-2",
                '3' => "xeon-scalable-3",
                '4' => "xeon-scalable-4",
                '5' => "xeon-scalable-5",
                _ => return None,
            }
        } else {
            // Xeon 6 has no metal: `Intel(R) Xeon(R) 6980P`; the P-core parts end in P (E: Sierra
            // Forest, not in the table), the series is the first two digits.
            let num = words
                .iter()
                .map(|w| w.split('-').next().unwrap_or(w))
                .find(|w| w.len() == 5 && w.ends_with('P') && w[..4].chars().all(|c| c.is_ascii_digit()))?;
            match &num[..2] {
                "69" => "xeon-6900p",
                "67" => "xeon-6700p",
                _ => return None,
            }
        }
    } else {
        return None;
    };
    PLATFORMS.iter().find(|(k, _)| *k == key).map(|(_, p)| p)
}

/// What `lscpu` says of the host: (value, line) of each key found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lscpu {
    pub model_name: Option<(String, usize)>,
    pub sockets: Option<(u32, usize)>,
    pub numa_nodes: Option<(u32, usize)>,
    pub vendor_id: Option<(String, usize)>,
}

/// Reads `lscpu`'s `Key: value` lines. `Model name` is required; a `Socket(s)` or `NUMA node(s)`
/// that is not a positive count is refused with its line.
pub fn parse_lscpu(text: &str) -> Result<Lscpu, TopoImportError> {
    let mut l = Lscpu::default();
    for (i, line) in text.lines().enumerate() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v, n) = (k.trim(), v.trim(), i + 1);
        let count = |key: &str| match v.parse::<u32>() {
            Ok(x) if x > 0 => Ok((x, n)),
            _ => Err(TopoImportError::Host(format!(
                "--lscpu line {n}: {key} `{v}` is not a count; expected a whole number ≥ 1"
            ))),
        };
        match k {
            "Model name" if l.model_name.is_none() => l.model_name = Some((v.to_string(), n)),
            "Vendor ID" if l.vendor_id.is_none() => l.vendor_id = Some((v.to_string(), n)),
            "Socket(s)" => l.sockets = Some(count("Socket(s)")?),
            "NUMA node(s)" => l.numa_nodes = Some(count("NUMA node(s)")?),
            _ => {}
        }
    }
    if l.model_name.is_none() {
        return Err(TopoImportError::Host(
            "--lscpu: no `Model name:` line; expected the output of `lscpu` (Model name, Socket(s), NUMA node(s))"
                .into(),
        ));
    }
    Ok(l)
}

/// What `dmidecode -t memory` says: populated DIMMs (a `Size:` in GB/MB, not "No Module
/// Installed") and their configured rate (MT/s, the lowest where they differ), with its line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dimms {
    pub populated: u32,
    pub configured_mts: Option<(u32, usize)>,
}

/// Reads `dmidecode -t memory` (also its `grep`ped excerpts: `Size:` and `Configured Memory Speed:`
/// lines). A rate that is not `N MT/s` (or `N MHz`, older dmidecode) is refused with its line;
/// "Unknown" (an empty slot's) is skipped.
pub fn parse_dmidecode(text: &str) -> Result<Dimms, TopoImportError> {
    let mut d = Dimms::default();
    for (i, line) in text.lines().enumerate() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v, n) = (k.trim(), v.trim(), i + 1);
        // shm49: `… | sort | uniq -c` excerpts put each distinct line's count before it ("32 \tSize: 64 GB").
        let (times, k) = match k.split_once(char::is_whitespace) {
            Some((c, rest)) if c.chars().all(|x| x.is_ascii_digit()) => {
                (c.parse::<u32>().unwrap_or(1), rest.trim())
            }
            _ => (1, k),
        };
        match k {
            "Size" if v.ends_with(" GB") || v.ends_with(" MB") || v.ends_with(" TB") => d.populated += times,
            "Configured Memory Speed" | "Configured Clock Speed" if v != "Unknown" => {
                let num = v.strip_suffix(" MT/s").or_else(|| v.strip_suffix(" MHz"));
                let Some(mts) = num.and_then(|x| x.trim().parse::<u32>().ok()).filter(|&x| x > 0) else {
                    return Err(TopoImportError::Host(format!(
                        "--dmidecode line {n}: {k} `{v}`: expected a rate like 4800 MT/s"
                    )));
                };
                if d.configured_mts.is_none_or(|(m, _)| mts < m) {
                    d.configured_mts = Some((mts, n));
                }
            }
            _ => {}
        }
    }
    if d.populated == 0 {
        return Err(TopoImportError::Host(
            "--dmidecode: no populated DIMM (a `Size: N GB` line); expected the output of `dmidecode -t memory`".into(),
        ));
    }
    Ok(d)
}

/// The host facts `tpsim import-topo` is told (flags) or given files for.
#[derive(Debug, Clone, Default)]
pub struct HostInput {
    pub cpu_model: Option<String>,
    pub sockets: Option<u32>,
    pub memory_channels: Option<u32>,
    pub dimm_mts: Option<u32>,
    pub socket_links: Option<u32>,
    /// GB/s per direction per link.
    pub socket_link_gbps: Option<f64>,
    pub shm_read_efficiency: Option<f64>,
    /// The text of `lscpu` and of `dmidecode -t memory`.
    pub lscpu: Option<String>,
    pub dmidecode: Option<String>,
    /// shm49: each GPU's NUMA node from the matrix's NUMA Affinity column (set by the importer).
    pub gpu_numa: Vec<Option<u32>>,
}

impl HostInput {
    /// Whether anything of the host was given (then a `[host]` section is written).
    pub fn any(&self) -> bool {
        self.cpu_model.is_some()
            || self.sockets.is_some()
            || self.memory_channels.is_some()
            || self.dimm_mts.is_some()
            || self.socket_links.is_some()
            || self.socket_link_gbps.is_some()
            || self.shm_read_efficiency.is_some()
            || self.lscpu.is_some()
            || self.dmidecode.is_some()
    }
}

/// The median of the eight measured SHM hosts' `shm_read_efficiency` (shm52), as `tpsim import-topo`
/// writes it for a host without its own figure and the bundled no-P2P presets without their own rows
/// borrow it (rtx-5090-2x-no-p2p.toml and seven more). Each host's value is its preset's `[fitted]` one:
/// 0.3607 kalavai (tests/data/allreduce.tsv lines 70-79), 0.4262 DGX A100 (226-229), 0.5384 Syncopate
/// box A (189, 193), 0.565 the ASUS ESC8000A-E13P (outside the table: rtx6kpro hardware/
/// asus-esc8000a-e13p-broadcom-switches.md, 30.3 / 53.6), 0.6068 charlie0129 (279-282), 0.6557 AutoDL
/// (251-257), 0.6680 Syncopate box B at its Gen4 x16 rate (209, shm51) and 0.6869 PR 2080 (323-324):
/// (0.565 + 0.6068) / 2 = 0.5859. They span 0.36-0.69, so a host without its own figure is an
/// assumption within -38 % / +17 % (book/src/collectives.md, "SHM from host facts"; no `[host]` fact
/// orders them, shm52). Before shm52: 0.4496, the median of four with box B at 0.3041 of a Gen5 port.
pub const MEDIAN_SHM_READ_EFFICIENCY: f64 = 0.5859;

/// The `[host]` section and the `[params] shm_read_efficiency` line, in the file's comment style.
#[derive(Debug, Clone, PartialEq)]
pub struct HostLines {
    /// Top-level hardware keys the host facts give (ncclhost59: `numa_nodes = 1` for one NUMA node
    /// over several sockets, NPS0), in the file's comment style.
    pub top: Vec<String>,
    pub host: Vec<String>,
    pub params: String,
    pub notes: Vec<String>,
}

/// `key = value` and its source comment from column 35, as the bundled presets write them.
fn line(kv: String, why: &str) -> String {
    format!("{kv:<33} # {why}")
}

/// Builds the section from the input; `topo_sockets`: the sockets the imported tree puts GPUs on.
pub fn host_lines(h: &HostInput, topo_sockets: u32) -> Result<HostLines, TopoImportError> {
    let err = |m: String| Err(TopoImportError::Host(m));
    let lscpu = h.lscpu.as_deref().map(parse_lscpu).transpose()?;
    let dimms = h.dmidecode.as_deref().map(parse_dmidecode).transpose()?;
    let mut notes = Vec::new();
    let (cpu_model, model_why) = match (&h.cpu_model, lscpu.as_ref().and_then(|l| l.model_name.clone())) {
        (Some(m), _) => (m.clone(), "[given] --cpu-model".to_string()),
        (None, Some((m, n))) => (m, format!("[measured] lscpu line {n} (Model name)")),
        (None, None) => {
            return err(
                "[host]: no CPU model: give --cpu-model \"AMD EPYC 9575F\" or --lscpu FILE (the output of `lscpu`)".into(),
            );
        }
    };
    if cpu_model.trim().is_empty() || cpu_model.contains('"') || cpu_model.contains('\n') {
        return err(format!(
            "--cpu-model `{cpu_model}`: expected the CPU's name as lscpu prints it, without quotes"
        ));
    }
    let platform = platform_of(&cpu_model);
    match platform {
        Some(p) => notes.push(format!("CPU `{cpu_model}`: platform {}", p.name)),
        None => notes.push(format!(
            "CPU `{cpu_model}`: not in tpsim's platform table (AMD EPYC 7002/7003/9004/9005, Intel Xeon Scalable 1st-5th gen, Xeon 6 6700P/6900P): memory channels, DIMM rate and socket links must be given"
        )),
    }
    let (sockets, sockets_why) = match (h.sockets, lscpu.as_ref().and_then(|l| l.sockets)) {
        (Some(s), _) => (s, "[given] --sockets".to_string()),
        (None, Some((s, n))) => (s, format!("[measured] lscpu line {n} (Socket(s))")),
        (None, None) => return err("[host]: no socket count: give --sockets N or --lscpu FILE".into()),
    };
    if !(1..=8).contains(&sockets) {
        return err(format!("--sockets {sockets}: expected 1 to 8 sockets"));
    }
    if topo_sockets > sockets {
        let numa = lscpu
            .as_ref()
            .and_then(|l| l.numa_nodes)
            .map_or(String::new(), |(x, _)| format!(" (lscpu: {x} NUMA nodes)"));
        return err(format!(
            "--sockets {sockets}: the matrix puts GPUs on {topo_sockets} NUMA nodes joined by SYS{numa}, which tpsim models as sockets; \
             expected at least {topo_sockets} (an EPYC in NPS2/NPS4 or a Xeon in SNC prints SYS between its own nodes: give --lscpu with the box's \
             NUMA node(s), which puts the nodes back on their sockets, or --sockets {topo_sockets} and --memory-channels per node)"
        ));
    }
    let (memory_channels, channels_why) = match (h.memory_channels, &dimms, platform) {
        (Some(c), _, _) => (c, "[given] --memory-channels".to_string()),
        (None, Some(d), p) => {
            let per = d.populated.div_ceil(sockets);
            // shm49: more DIMMs than the platform has channels is two (or more) DIMMs a channel
            // (2DPC): the channels stay the platform's, and the lower 2DPC rate is what dmidecode's
            // Configured Memory Speed reports (read below).
            let (c, cap) = match p {
                Some(p) if per > p.channels => (
                    p.channels,
                    format!(
                        "{per} a socket on the platform's {} channels: {} DIMMs per channel",
                        p.channels,
                        per.div_ceil(p.channels)
                    ),
                ),
                _ => (per, "one per channel assumed".to_string()),
            };
            (
                c,
                format!(
                    "[measured] dmidecode: {} populated DIMMs on {sockets} socket(s), {cap}",
                    d.populated
                ),
            )
        }
        (None, None, Some(p)) => (
            p.channels,
            format!("[datasheet] {}; all populated: assumed", p.memory_source),
        ),
        (None, None, None) => {
            return err(format!(
                "[host]: CPU `{cpu_model}` is not in the platform table: give --memory-channels N (populated DRAM channels per socket) or --dmidecode FILE"
            ));
        }
    };
    if !(1..=24).contains(&memory_channels) {
        return err(format!(
            "--memory-channels {memory_channels}: expected 1 to 24 DRAM channels per socket"
        ));
    }
    let (dimm_mts, mts_why) = match (
        h.dimm_mts,
        dimms.as_ref().and_then(|d| d.configured_mts),
        platform,
    ) {
        (Some(m), _, _) => (m, "[given] --dimm-mts".to_string()),
        (None, Some((m, n)), _) => (
            m,
            format!("[measured] dmidecode line {n} (Configured Memory Speed, the lowest)"),
        ),
        (None, None, Some(p)) => (
            p.dimm_mts,
            format!("[datasheet] {}; assumed populated at it", p.memory_source),
        ),
        (None, None, None) => {
            return err(format!(
                "[host]: CPU `{cpu_model}` is not in the platform table: give --dimm-mts N (the DIMMs' MT/s) or --dmidecode FILE"
            ));
        }
    };
    if !(800..=12800).contains(&dimm_mts) {
        return err(format!(
            "--dimm-mts {dimm_mts}: expected a DIMM rate of 800 to 12800 MT/s"
        ));
    }
    if let (Some(d), Some(p), true) = (&dimms, platform, mts_why.starts_with("[datasheet]"))
        && h.memory_channels.is_none()
        && d.populated.div_ceil(sockets) > p.channels
    {
        notes.push(format!(
            "dimm_mts = {dimm_mts} is the platform's one-DIMM-per-channel rate, but dmidecode shows more DIMMs than channels and no Configured Memory Speed: two DIMMs a channel run slower (give --dimm-mts)"
        ));
    }
    let mut host = vec![
        line(format!("cpu_model = \"{cpu_model}\""), &model_why),
        line(format!("sockets = {sockets}"), &sockets_why),
        line(format!("memory_channels = {memory_channels}"), &channels_why),
        line(format!("dimm_mts = {dimm_mts}"), &mts_why),
    ];
    if sockets > 1 {
        let (links, links_why) = match (h.socket_links, platform) {
            (Some(l), _) => (l, "[given] --socket-links".to_string()),
            (None, Some(p)) => (p.socket_links, format!("[assumed] {}", p.link_source)),
            (None, None) => {
                return err(format!(
                    "[host]: {sockets} sockets and CPU `{cpu_model}` is not in the platform table: give --socket-links N (UPI / xGMI links) and --socket-link-bw GB/s"
                ));
            }
        };
        if links == 0 {
            return err("--socket-links 0: expected ≥ 1 link between two sockets".into());
        }
        let (bw, bw_why) = match (h.socket_link_gbps, platform) {
            (Some(b), _) => (b, "[given] --socket-link-bw".to_string()),
            (None, Some(p)) => (p.socket_link_gbps, format!("[datasheet] {}", p.link_source)),
            (None, None) => {
                return err(format!(
                    "[host]: {sockets} sockets and CPU `{cpu_model}` is not in the platform table: give --socket-link-bw GB/s (one link, per direction)"
                ));
            }
        };
        if !(bw.is_finite() && bw > 0.0) {
            return err(format!("--socket-link-bw {bw}: expected GB/s > 0"));
        }
        host.push(line(format!("socket_links = {links}"), &links_why));
        host.push(line(format!("socket_link_bw = \"{bw}GB/s\""), &bw_why));
    }
    // shm49: NUMA nodes per socket (AMD NPS2/NPS4, Intel SNC) from lscpu's `NUMA node(s)` over
    // `Socket(s)`; each node then has `memory_channels / nps` channels, and the GPUs' nodes (the
    // matrix's NUMA Affinity column) say whose DRAM holds their SHM buffers (tpsim_model::shm).
    if let Some((nodes, nl)) = lscpu.as_ref().and_then(|l| l.numa_nodes)
        && nodes > sockets
    {
        if !nodes.is_multiple_of(sockets) {
            return err(format!(
                "--lscpu line {nl}: NUMA node(s) {nodes} on {sockets} socket(s): expected a whole number of nodes per socket (NPS / SNC)"
            ));
        }
        let nps = nodes / sockets;
        if !memory_channels.is_multiple_of(nps) || nps > 8 {
            return err(format!(
                "--lscpu line {nl}: {nps} NUMA nodes per socket do not split its {memory_channels} memory channels evenly: expected NPS2/NPS4 or SNC2/3/4 over equal channel sets (or give --memory-channels)"
            ));
        }
        let known: Option<Vec<u32>> = h.gpu_numa.iter().copied().collect();
        match known {
            Some(v) if !v.is_empty() => {
                if let Some((g, x)) = v.iter().enumerate().find(|(_, x)| **x >= nodes) {
                    return err(format!(
                        "the matrix puts GPU{g} on NUMA node {x}, but --lscpu line {nl} gives {nodes} node(s): expected the lscpu of the same box"
                    ));
                }
                host.push(line(
                    format!("numa_nodes_per_socket = {nps}"),
                    &format!("[measured] lscpu line {nl} (NUMA node(s) {nodes}) over {sockets} socket(s): NPS / SNC, {} channels a node", memory_channels / nps),
                ));
                let list = v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
                host.push(line(
                    format!("gpu_numa_nodes = [{list}]"),
                    "[measured] the matrix's NUMA Affinity column",
                ));
            }
            _ => notes.push(format!(
                "lscpu line {nl}: {nps} NUMA nodes per socket, but the matrix gives no NUMA Affinity for every GPU: numa_nodes_per_socket left out, so SHM buffers draw on the whole socket's DRAM"
            )),
        }
    }
    // ncclhost59: one NUMA node over several sockets (AMD NPS0) is one CPU node to NCCL.
    let mut top = Vec::new();
    if let Some((1, nl)) = lscpu.as_ref().and_then(|l| l.numa_nodes)
        && sockets > 1
    {
        top.push(line(
            "numa_nodes = 1".into(),
            &format!("[measured] lscpu line {nl} (NUMA node(s) 1) over {sockets} sockets: one node for the box (NPS0), one CPU node to NCCL"),
        ));
    }
    host.push(line(
        "shm_buffer = \"receiver\"".into(),
        "[derived] NCCL src/transport/shm.cc (2.19.3, 2.27.7, 2.28.9): NCCL_SHM_LOCALITY defaults to the receiver side",
    ));
    let params = match h.shm_read_efficiency {
        Some(f) if f > 0.0 && f <= 1.0 => line(
            format!("shm_read_efficiency = {f}"),
            "[given] --shm-read-efficiency",
        ),
        Some(f) => {
            return err(format!(
                "--shm-read-efficiency {f}: expected a fraction in (0, 1]"
            ));
        }
        None => {
            notes.push(format!(
                "shm_read_efficiency = {MEDIAN_SHM_READ_EFFICIENCY}: the median of the eight measured SHM hosts (they span 0.36-0.69; an assumption within -38 % / +17 %): give the box's own with --shm-read-efficiency"
            ));
            line(
                format!("shm_read_efficiency = {MEDIAN_SHM_READ_EFFICIENCY}"),
                "[derived] the median of the measured SHM hosts (book/src/collectives.md)",
            )
        }
    };
    Ok(HostLines {
        top,
        host,
        params,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Model names as lscpu prints them map to their platform by the model number; Naples (7xx1),
    /// Cooper Lake (83xxH), a Sierra Forest Xeon 6 (6780E) and a Ryzen are not in the table.
    #[test]
    fn platforms_by_model_name() {
        let key = |m: &str| platform_of(m).map(|p| p.name);
        assert_eq!(
            key("AMD EPYC 9575F 64-Core Processor"),
            Some("AMD EPYC 9005 (Zen 5 Turin, SP5)")
        );
        assert_eq!(
            key("AMD EPYC 9V74 80-Core Processor"),
            Some("AMD EPYC 9004 (Zen 4 Genoa, SP5)")
        );
        assert_eq!(
            key("AMD EPYC 9374F 32-Core Processor"),
            Some("AMD EPYC 9004 (Zen 4 Genoa, SP5)")
        );
        assert_eq!(
            key("AMD EPYC 7542 32-Core Processor"),
            Some("AMD EPYC 7002 (Zen 2 Rome, SP3)")
        );
        assert_eq!(
            key("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"),
            Some("Intel Xeon Scalable, 1st or 2nd generation")
        );
        assert_eq!(
            key("AMD EPYC 7763 64-Core Processor"),
            Some("AMD EPYC 7003 (Zen 3 Milan, SP3)")
        );
        assert_eq!(
            key("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"),
            Some("Intel Xeon Scalable, 3rd generation (Ice Lake-SP)")
        );
        assert_eq!(
            key("Intel(R) Xeon(R) Platinum 8480+"),
            Some("Intel Xeon Scalable, 4th generation (Sapphire Rapids)")
        );
        assert_eq!(
            key("Intel(R) Xeon(R) Platinum 8592+"),
            Some("Intel Xeon Scalable, 5th generation (Emerald Rapids)")
        );
        assert_eq!(
            key("Intel(R) Xeon(R) 6980P"),
            Some("Intel Xeon 6 6900P (Granite Rapids-AP)")
        );
        assert_eq!(
            key("Intel(R) Xeon(R) 6787P"),
            Some("Intel Xeon 6 6700P (Granite Rapids-SP)")
        );
        assert_eq!(
            key("Intel(R) Xeon(R) 6985P-C"),
            Some("Intel Xeon 6 6900P (Granite Rapids-AP)")
        );
        assert_eq!(key("AMD EPYC 7601 32-Core Processor"), None);
        assert_eq!(key("Intel(R) Xeon(R) Platinum 8380H CPU @ 2.90GHz"), None);
        assert_eq!(key("Intel(R) Xeon(R) 6780E"), None);
        assert_eq!(key("AMD Ryzen 9 5900X 12-Core Processor"), None);
    }

    /// seedhost19: a two-socket `--cpu-model` of each platform added to the table resolves to its
    /// figures (per socket): channels × DIMM rate, and links × GB/s per link and direction. By hand
    /// from the sources in [`PLATFORMS`]: Milan 8 × DDR4-3200, 4 xGMI-2 × 32 GB/s (16 Gb/s × 16 lanes);
    /// Ice Lake-SP 8 × DDR4-3200, 3 UPI × 22.4 GB/s (11.2 GT/s × 2 B); Sapphire Rapids 8 × DDR5-4800,
    /// 4 UPI 2.0 × 32 GB/s (16 GT/s); Emerald Rapids 8 × DDR5-5600, 4 × 40 GB/s (20 GT/s); Xeon 6900P
    /// 12 × DDR5-6400, 6 × 48 GB/s (24 GT/s); Xeon 6700P 8 × DDR5-6400, 4 × 48 GB/s.
    #[test]
    fn added_platforms_resolve_to_their_figures() {
        for (model, channels, mts, links, gbps) in [
            ("AMD EPYC 7763 64-Core Processor", 8, 3200, 4, "32"),
            ("Intel(R) Xeon(R) Platinum 8380 CPU @ 2.30GHz", 8, 3200, 3, "22.4"),
            ("Intel(R) Xeon(R) Platinum 8480+", 8, 4800, 4, "32"),
            ("Intel(R) Xeon(R) Gold 6548Y+", 8, 5600, 4, "40"),
            ("Intel(R) Xeon(R) 6980P", 12, 6400, 6, "48"),
            ("Intel(R) Xeon(R) 6787P", 8, 6400, 4, "48"),
        ] {
            let h = HostInput {
                cpu_model: Some(model.into()),
                sockets: Some(2),
                ..HostInput::default()
            };
            let l = host_lines(&h, 2).unwrap();
            let has = |prefix: String| l.host.iter().any(|x| x.starts_with(&format!("{prefix} ")));
            assert!(has(format!("memory_channels = {channels}")), "{model}: {l:?}");
            assert!(has(format!("dimm_mts = {mts}")), "{model}: {l:?}");
            assert!(has(format!("socket_links = {links}")), "{model}: {l:?}");
            assert!(has(format!("socket_link_bw = \"{gbps}GB/s\"")), "{model}: {l:?}");
            assert!(l.notes[0].contains("platform "), "{model}: {l:?}");
        }
    }

    /// lscpu's keys with their lines; a dmidecode excerpt's DIMMs (empty slots skipped) and lowest rate.
    #[test]
    fn lscpu_and_dmidecode_keys() {
        let l = parse_lscpu("Vendor ID: AuthenticAMD\nModel name:  AMD EPYC 9575F 64-Core Processor\nSocket(s): 2\nNUMA node(s): 4\n").unwrap();
        assert_eq!(l.model_name, Some(("AMD EPYC 9575F 64-Core Processor".into(), 2)));
        assert_eq!((l.sockets, l.numa_nodes), (Some((2, 3)), Some((4, 4))));
        let d = parse_dmidecode(
            "\tSize: 32 GB\n\tConfigured Memory Speed: 4800 MT/s\n\tSize: No Module Installed\n\tConfigured Memory Speed: Unknown\n\tSize: 32 GB\n\tConfigured Memory Speed: 4400 MT/s\n",
        )
        .unwrap();
        assert_eq!((d.populated, d.configured_mts), (2, Some((4400, 6))));
        assert!(parse_dmidecode("\tSize: 32 GB\n\tConfigured Memory Speed: fast\n").is_err());
        assert!(parse_lscpu("Socket(s): 2\n").is_err());
    }

    /// shm49: a real two-DIMMs-a-channel host (tests/data/lscpu/hpe-xd670-xeon-8480-2dpc.dmidecode.txt,
    /// a `uniq -c` excerpt): 32 populated DIMMs on 2 sockets is 16 a socket on Sapphire Rapids' 8
    /// channels, 2 a channel: memory_channels stays 8 and dimm_mts is the configured 4400 (line 2), so
    /// DRAM is 8 × 4400 × 8 B × 0.7 = 197.12 GB/s a socket, not the one-DIMM-a-channel 8 × 4800 × 8 ×
    /// 0.7 = 215.04. Without a configured rate the platform's 4800 is written with a note.
    #[test]
    fn a_two_dimm_per_channel_dump() {
        let text = include_str!("../../../tests/data/lscpu/hpe-xd670-xeon-8480-2dpc.dmidecode.txt");
        let d = parse_dmidecode(text).unwrap();
        assert_eq!((d.populated, d.configured_mts), (32, Some((4400, 2))));
        let h = HostInput {
            cpu_model: Some("Intel(R) Xeon(R) Platinum 8480+".into()),
            sockets: Some(2),
            dmidecode: Some(text.into()),
            ..HostInput::default()
        };
        let l = host_lines(&h, 2).unwrap();
        let has = |p: &str| l.host.iter().find(|x| x.starts_with(p)).cloned();
        let ch = has("memory_channels = 8 ").expect("8 channels");
        assert!(
            ch.contains("16 a socket on the platform's 8 channels: 2 DIMMs per channel"),
            "{ch}"
        );
        assert!(has("dimm_mts = 4400 ").is_some(), "{l:?}");
        let bw = tpsim_model::shm::dram_bw(8, 4400).unwrap().as_gbps();
        assert!((bw - 197.12).abs() < 1e-9, "{bw}");
        let no_rate = HostInput {
            dmidecode: Some("32 \tSize: 64 GB\n".into()),
            ..h
        };
        let l = host_lines(&no_rate, 2).unwrap();
        assert!(l.host.iter().any(|x| x.starts_with("dimm_mts = 4800 ")), "{l:?}");
        assert!(
            l.notes
                .iter()
                .any(|n| n.contains("two DIMMs a channel run slower")),
            "{l:?}"
        );
    }

    /// shm49: lscpu's NUMA node(s) over Socket(s) is the NPS / SNC mode. Box B's host (one EPYC 9B14,
    /// 4 nodes: NPS4) with the matrix's NUMA Affinity 3, 3, 2, 0 writes numa_nodes_per_socket = 4 (12 /
    /// 4 = 3 channels a node) and the GPUs' nodes; 3 nodes on 2 sockets, 8 nodes over 12 channels and a
    /// GPU on node 4 of 4 are refused naming the lscpu line; a matrix without NUMA Affinity leaves the
    /// key out with a note. Two nodes on two sockets (NPS1) write nothing.
    #[test]
    fn numa_nodes_per_socket_from_lscpu() {
        let lscpu = |nodes: u32, sockets: u32| {
            format!(
                "Model name: AMD EPYC 9B14 96-Core Processor\nSocket(s): {sockets}\nNUMA node(s): {nodes}\n"
            )
        };
        let h = HostInput {
            lscpu: Some(lscpu(4, 1)),
            gpu_numa: vec![Some(3), Some(3), Some(2), Some(0)],
            ..HostInput::default()
        };
        let l = host_lines(&h, 1).unwrap();
        let nps = l
            .host
            .iter()
            .find(|x| x.starts_with("numa_nodes_per_socket = 4 "))
            .expect("nps");
        assert!(
            nps.contains("lscpu line 3 (NUMA node(s) 4) over 1 socket(s): NPS / SNC, 3 channels a node"),
            "{nps}"
        );
        assert!(
            l.host
                .iter()
                .any(|x| x.starts_with("gpu_numa_nodes = [3, 3, 2, 0] ")),
            "{l:?}"
        );
        assert!(l.top.is_empty(), "{l:?}");
        // ncclhost59: NUMA node(s) 1 over 2 sockets (NPS0) writes the top-level numa_nodes = 1.
        let nps0 = HostInput {
            lscpu: Some(lscpu(1, 2)),
            ..HostInput::default()
        };
        let l0 = host_lines(&nps0, 2).unwrap();
        assert_eq!(l0.top.len(), 1, "{l0:?}");
        assert!(
            l0.top[0].starts_with("numa_nodes = 1 ")
                && l0.top[0].contains("lscpu line 3 (NUMA node(s) 1) over 2 sockets"),
            "{l0:?}"
        );
        let e = |h: &HostInput| match host_lines(h, 1) {
            Err(TopoImportError::Host(m)) => m,
            x => panic!("{x:?}"),
        };
        let m = e(&HostInput {
            lscpu: Some(lscpu(3, 2)),
            ..h.clone()
        });
        assert!(
            m.contains(
                "--lscpu line 3: NUMA node(s) 3 on 2 socket(s): expected a whole number of nodes per socket"
            ),
            "{m}"
        );
        let m = e(&HostInput {
            lscpu: Some(lscpu(8, 1)),
            ..h.clone()
        });
        assert!(
            m.contains("--lscpu line 3: 8 NUMA nodes per socket do not split its 12 memory channels evenly"),
            "{m}"
        );
        let m = e(&HostInput {
            gpu_numa: vec![Some(3), Some(4)],
            ..h.clone()
        });
        assert!(
            m.contains("the matrix puts GPU1 on NUMA node 4, but --lscpu line 3 gives 4 node(s)"),
            "{m}"
        );
        let l = host_lines(
            &HostInput {
                gpu_numa: vec![Some(3), None],
                ..h.clone()
            },
            1,
        )
        .unwrap();
        assert!(
            !l.host.iter().any(|x| x.starts_with("numa_nodes_per_socket")),
            "{l:?}"
        );
        assert!(
            l.notes
                .iter()
                .any(|n| n.contains("numa_nodes_per_socket left out")),
            "{l:?}"
        );
        let l = host_lines(
            &HostInput {
                lscpu: Some(lscpu(2, 2)),
                ..h
            },
            2,
        )
        .unwrap();
        assert!(
            !l.host
                .iter()
                .any(|x| x.starts_with("numa_nodes_per_socket") || x.starts_with("gpu_numa")),
            "{l:?}"
        );
    }

    /// One socket writes no link keys; a 2-socket EPYC 9005 gets the table's 4 × 64 GB/s.
    #[test]
    fn sections_by_socket_count() {
        let h = HostInput {
            cpu_model: Some("AMD EPYC 9575F".into()),
            sockets: Some(1),
            ..HostInput::default()
        };
        let l = host_lines(&h, 1).unwrap();
        assert!(!l.host.iter().any(|x| x.starts_with("socket_link")), "{l:?}");
        assert_eq!(
            l.params,
            format!(
                "{:<33} # [derived] the median of the measured SHM hosts (book/src/collectives.md)",
                "shm_read_efficiency = 0.5859"
            )
        );
        let h = HostInput {
            sockets: Some(2),
            ..h
        };
        let l = host_lines(&h, 1).unwrap();
        assert!(l.host.iter().any(|x| x.starts_with("socket_links = 4 ")), "{l:?}");
        assert!(
            l.host
                .iter()
                .any(|x| x.starts_with("socket_link_bw = \"64GB/s\"")),
            "{l:?}"
        );
        // The matrix puts GPUs on 2 sockets: --sockets 1 is refused.
        let h = HostInput {
            sockets: Some(1),
            ..h
        };
        assert!(host_lines(&h, 2).is_err());
    }
}

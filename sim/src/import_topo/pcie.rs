//! `tpsim import-topo --pcie FILE` (pcie19): each GPU's own PCIe link (generation and width), which
//! the `nvidia-smi topo -m` matrix cannot show, read from what the box reports. Three formats, found
//! by what the text holds:
//!
//! - the CSV of `nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.max,pcie.link.gen.current,
//!   pcie.link.width.max,pcie.link.width.current --format=csv`: a header line naming the fields
//!   (`index, pci.bus_id, pcie.link.gen.max, …`, comma and space separated) and one row per GPU.
//!   Field names and meanings from `nvidia-smi --help-query-gpu` (quoted in NVIDIA/gpu-monitoring-tools
//!   issue 215): `pcie.link.gen.max` / `pcie.link.width.max` are "the maximum … possible with this GPU
//!   and system configuration"; the current ones "may be reduced when the GPU is not in use".
//! - `nvidia-smi -q`'s "GPU Link Info" section per GPU: "PCIe Generation" with Max / Current (newer
//!   drivers add Device Max, Host Max, Device Current) and "Link Width" with Max / Current as `16x`.
//!   GPUs are numbered in the order `-q` lists them (its `GPU 00000000:2D:00.0` headers), which is
//!   nvidia-smi's index order (PCI bus order).
//! - `lspci -vv` of the GPUs: a device line `01:00.0 VGA compatible controller: NVIDIA …` (or `3D
//!   controller`) and its `LnkCap:` (the device's capability: `Speed 16GT/s, Width x16`) and `LnkSta:`
//!   (what trained: `Speed 2.5GT/s (downgraded), Width x16`). NVIDIA devices in bus order are the
//!   GPUs in nvidia-smi's order; other functions (the audio function, bridges) are skipped.
//!
//! The *current* generation drops at idle (power saving: NVIDIA's help text above; nvtop issue 6), so
//! the maximum generation is used; a current width below the maximum is a link that trained narrower
//! (riser, bifurcated or shared slot), so the current width is used, with a warning.

use super::TopoImportError;

/// One GPU's link as reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcieLink {
    /// nvidia-smi's GPU index.
    pub gpu: usize,
    /// The 1-based line of the input it was read from (the CSV row, the `-q` GPU header, the lspci
    /// device line).
    pub line: usize,
    pub gen_max: u32,
    pub gen_current: Option<u32>,
    pub width_max: u32,
    pub width_current: u32,
}

/// Which report the links were read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PcieFormat {
    QueryCsv,
    Query,
    Lspci,
}

impl PcieFormat {
    /// The report's name in notes.
    pub fn label(self) -> &'static str {
        match self {
            PcieFormat::QueryCsv => "nvidia-smi --query-gpu csv",
            PcieFormat::Query => "nvidia-smi -q GPU Link Info",
            PcieFormat::Lspci => "lspci -vv LnkCap/LnkSta",
        }
    }

    /// The names of the maximum and current generation and width in this report.
    fn keys(self) -> [&'static str; 4] {
        match self {
            PcieFormat::QueryCsv => [
                "pcie.link.gen.max",
                "pcie.link.gen.current",
                "pcie.link.width.max",
                "pcie.link.width.current",
            ],
            PcieFormat::Query => [
                "PCIe Generation Max",
                "PCIe Generation Current",
                "Link Width Max",
                "Link Width Current",
            ],
            PcieFormat::Lspci => ["LnkCap Speed", "LnkSta Speed", "LnkCap Width", "LnkSta Width"],
        }
    }
}

/// Reads the report, whichever of the three formats it is.
pub fn parse_pcie(text: &str) -> Result<(PcieFormat, Vec<PcieLink>), TopoImportError> {
    let lines: Vec<&str> = text.lines().collect();
    if let Some(h) = lines.iter().position(|l| l.contains("pcie.link.")) {
        return Ok((PcieFormat::QueryCsv, parse_csv(&lines, h)?));
    }
    if lines.iter().any(|l| l.trim() == "GPU Link Info") {
        return Ok((PcieFormat::Query, parse_query(&lines)?));
    }
    if lines.iter().any(|l| l.trim_start().starts_with("LnkSta:")) {
        return Ok((PcieFormat::Lspci, parse_lspci(&lines)?));
    }
    Err(TopoImportError::PcieNoReport)
}

fn number(line: usize, key: &str, value: &str) -> Result<u32, TopoImportError> {
    value.trim().parse().map_err(|_| TopoImportError::PcieValue {
        line,
        key: key.to_string(),
        value: value.trim().to_string(),
    })
}

/// The CSV: header at line index `h`, rows until a blank line.
fn parse_csv(lines: &[&str], h: usize) -> Result<Vec<PcieLink>, TopoImportError> {
    let header: Vec<&str> = lines[h].split(',').map(str::trim).collect();
    let col = |k: &str| header.iter().position(|x| *x == k);
    let need = |k: &str| {
        col(k).ok_or_else(|| TopoImportError::PcieHeader {
            line: h + 1,
            missing: k.to_string(),
        })
    };
    let [gm, gc, wm, wc] = PcieFormat::QueryCsv.keys();
    let (i_index, i_gm, i_wm, i_wc) = (need("index")?, need(gm)?, need(wm)?, need(wc)?);
    let i_gc = col(gc);
    let mut out = Vec::new();
    for (k, l) in lines.iter().enumerate().skip(h + 1) {
        if l.trim().is_empty() {
            if out.is_empty() {
                continue;
            }
            break;
        }
        let line = k + 1;
        let c: Vec<&str> = l.split(',').map(str::trim).collect();
        if c.len() != header.len() {
            return Err(TopoImportError::PcieShortRow {
                line,
                found: c.len(),
                expected: header.len(),
            });
        }
        out.push(PcieLink {
            gpu: number(line, "index", c[i_index])? as usize,
            line,
            gen_max: number(line, gm, c[i_gm])?,
            gen_current: i_gc.map(|i| number(line, gc, c[i])).transpose()?,
            width_max: number(line, wm, c[i_wm])?,
            width_current: number(line, wc, c[i_wc])?,
        });
    }
    Ok(out)
}

/// A width as `-q` prints it (`16x`) or lspci (`x16`).
fn width(line: usize, key: &str, v: &str) -> Result<u32, TopoImportError> {
    let t = v.trim();
    let digits = t.trim_end_matches('x').trim_start_matches('x');
    number(line, key, digits).map_err(|_| TopoImportError::PcieValue {
        line,
        key: key.to_string(),
        value: t.to_string(),
    })
}

/// `nvidia-smi -q`: per `GPU <bus id>` header, the Max / Current pairs under "PCIe Generation" and
/// "Link Width" of "GPU Link Info".
fn parse_query(lines: &[&str]) -> Result<Vec<PcieLink>, TopoImportError> {
    #[derive(Default)]
    struct Acc {
        line: usize,
        gen_max: Option<u32>,
        device_max: Option<u32>,
        host_max: Option<u32>,
        gen_current: Option<u32>,
        width_max: Option<u32>,
        width_current: Option<u32>,
    }
    let [gm, gc, wm, wc] = PcieFormat::Query.keys();
    let finish = |gpu: usize, a: Acc| -> Result<PcieLink, TopoImportError> {
        let missing = |k: &str| TopoImportError::PcieMissingKey {
            line: a.line,
            gpu,
            key: k.to_string(),
        };
        // Newer drivers print Device Max and Host Max beside Max (the lower of the two).
        let gen_max = a
            .gen_max
            .or_else(|| Some(a.device_max?.min(a.host_max?)))
            .ok_or_else(|| missing(gm))?;
        Ok(PcieLink {
            gpu,
            line: a.line,
            gen_max,
            gen_current: a.gen_current,
            width_max: a.width_max.ok_or_else(|| missing(wm))?,
            width_current: a.width_current.ok_or_else(|| missing(wc))?,
        })
    };
    let mut out = Vec::new();
    let mut cur: Option<Acc> = None;
    // Which sub-section of GPU Link Info the Max / Current lines belong to.
    let mut sub: Option<bool> = None; // Some(true): generation; Some(false): width
    for (k, l) in lines.iter().enumerate() {
        let line = k + 1;
        let t = l.trim();
        if let Some(rest) = t.strip_prefix("GPU ")
            && rest.contains(':')
            && !rest.contains(" : ")
        {
            if let Some(a) = cur.take() {
                out.push(finish(out.len(), a)?);
            }
            cur = Some(Acc {
                line,
                ..Acc::default()
            });
            sub = None;
            continue;
        }
        let Some(a) = cur.as_mut() else { continue };
        match t {
            "PCIe Generation" => {
                sub = Some(true);
                continue;
            }
            "Link Width" => {
                sub = Some(false);
                continue;
            }
            _ => {}
        }
        let Some((key, value)) = t.split_once(':') else {
            sub = None;
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match (sub, key) {
            (Some(true), "Max") => a.gen_max = Some(number(line, gm, value)?),
            (Some(true), "Device Max") => a.device_max = Some(number(line, gm, value)?),
            (Some(true), "Host Max") => a.host_max = Some(number(line, gm, value)?),
            (Some(true), "Current" | "Device Current") => {
                a.gen_current = Some(number(line, gc, value)?);
            }
            (Some(false), "Max") => a.width_max = Some(width(line, wm, value)?),
            (Some(false), "Current") => a.width_current = Some(width(line, wc, value)?),
            _ => sub = None,
        }
    }
    if let Some(a) = cur.take() {
        out.push(finish(out.len(), a)?);
    }
    Ok(out)
}

/// PCIe generation of a transfer rate as lspci prints it (`2.5GT/s` … `64GT/s`; PCIe base
/// specification rates per generation).
fn gen_of_speed(line: usize, key: &str, v: &str) -> Result<u32, TopoImportError> {
    let rate = v.trim().trim_end_matches("GT/s");
    Ok(match rate {
        "2.5" => 1,
        "5" | "5.0" => 2,
        "8" | "8.0" => 3,
        "16" | "16.0" => 4,
        "32" | "32.0" => 5,
        "64" | "64.0" => 6,
        _ => {
            return Err(TopoImportError::PcieValue {
                line,
                key: key.to_string(),
                value: v.trim().to_string(),
            });
        }
    })
}

/// `Speed 16GT/s, Width x16` (LnkCap has more fields after; LnkSta may mark `(downgraded)`).
fn speed_width(line: usize, which: &str, rest: &str) -> Result<(u32, u32), TopoImportError> {
    let field = |name: &str| {
        rest.split(',')
            .map(str::trim)
            .find_map(|f| f.strip_prefix(name))
            .map(|v| v.trim().trim_end_matches("(downgraded)").trim().to_string())
    };
    let (sk, wk) = (format!("{which} Speed"), format!("{which} Width"));
    let s = field("Speed ").ok_or_else(|| TopoImportError::PcieValue {
        line,
        key: sk.clone(),
        value: rest.trim().to_string(),
    })?;
    let w = field("Width ").ok_or_else(|| TopoImportError::PcieValue {
        line,
        key: wk.clone(),
        value: rest.trim().to_string(),
    })?;
    Ok((gen_of_speed(line, &sk, &s)?, width(line, &wk, &w)?))
}

/// A device line of `lspci`: `01:00.0 …` or `0000:01:00.0 …` at the start of the line.
fn device_line(l: &str) -> Option<&str> {
    if l.starts_with(char::is_whitespace) {
        return None;
    }
    let (addr, desc) = l.split_once(' ')?;
    let bdf = addr.rsplit(':').next()?;
    (addr.contains(':')
        && bdf.contains('.')
        && addr
            .chars()
            .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.'))
    .then_some(desc)
}

fn parse_lspci(lines: &[&str]) -> Result<Vec<PcieLink>, TopoImportError> {
    struct Acc {
        line: usize,
        cap: Option<(u32, u32)>,
        sta: Option<(u32, u32)>,
    }
    let finish = |gpu: usize, a: &Acc| -> Result<PcieLink, TopoImportError> {
        let missing = |k: &str| TopoImportError::PcieMissingKey {
            line: a.line,
            gpu,
            key: k.to_string(),
        };
        let (gen_max, width_max) = a.cap.ok_or_else(|| missing("LnkCap"))?;
        let (gen_current, width_current) = a.sta.ok_or_else(|| missing("LnkSta"))?;
        Ok(PcieLink {
            gpu,
            line: a.line,
            gen_max,
            gen_current: Some(gen_current),
            width_max,
            width_current,
        })
    };
    let mut gpus: Vec<Acc> = Vec::new();
    let mut in_gpu = false;
    for (k, l) in lines.iter().enumerate() {
        let line = k + 1;
        if let Some(desc) = device_line(l) {
            in_gpu = desc.contains("NVIDIA")
                && (desc.starts_with("VGA compatible controller") || desc.starts_with("3D controller"));
            if in_gpu {
                gpus.push(Acc {
                    line,
                    cap: None,
                    sta: None,
                });
            }
            continue;
        }
        let Some(a) = gpus.last_mut().filter(|_| in_gpu) else {
            continue;
        };
        let t = l.trim();
        if let Some(rest) = t.strip_prefix("LnkCap:") {
            a.cap = Some(speed_width(line, "LnkCap", rest)?);
        } else if let Some(rest) = t.strip_prefix("LnkSta:") {
            a.sta = Some(speed_width(line, "LnkSta", rest)?);
        }
    }
    if gpus.is_empty() {
        return Err(TopoImportError::PcieNoReport);
    }
    gpus.iter().enumerate().map(|(g, a)| finish(g, a)).collect()
}

/// The box's GPU link from the per-GPU reports: (generation, width, notes, warnings). tpsim's GPU
/// link is one per box (`hardware.gpu.pcie_gen` / `pcie_width`); where GPUs differ the slowest is
/// written (a ring allreduce moves at its slowest link) with a warning naming them.
pub fn box_link(
    format: PcieFormat,
    links: &[PcieLink],
    gpus: usize,
) -> Result<(u32, u32, Vec<String>, Vec<String>), TopoImportError> {
    let mut seen: Vec<Option<&PcieLink>> = vec![None; gpus];
    for l in links {
        if l.gpu >= gpus {
            return Err(TopoImportError::PcieExtraGpu {
                line: l.line,
                gpu: l.gpu,
                count: gpus,
            });
        }
        if seen[l.gpu].is_some() {
            return Err(TopoImportError::PcieDuplicate {
                line: l.line,
                gpu: l.gpu,
            });
        }
        seen[l.gpu] = Some(l);
    }
    if let Some(g) = seen.iter().position(Option::is_none) {
        return Err(TopoImportError::PcieMissingGpu { gpu: g });
    }
    let [gm, gc, wm, wc] = format.keys();
    let mut per = Vec::new(); // (gpu, generation, width)
    let (mut notes, mut warnings) = (Vec::new(), Vec::new());
    let mut idle = Vec::new();
    // (current, max) width → the GPUs trained at it, for one warning per kind.
    let mut narrow: std::collections::BTreeMap<(u32, u32), Vec<String>> = Default::default();
    for l in links {
        if !(3..=6).contains(&l.gen_max) {
            return Err(TopoImportError::PcieRange {
                line: l.line,
                gpu: l.gpu,
                what: format!("{gm} {}", l.gen_max),
                expected: "3 to 6 (tpsim models PCIe Gen3 to Gen6)",
            });
        }
        let w = if l.width_current < l.width_max {
            narrow
                .entry((l.width_current, l.width_max))
                .or_default()
                .push(format!("GPU{}", l.gpu));
            l.width_current
        } else {
            l.width_max
        };
        if ![1, 2, 4, 8, 16].contains(&w) {
            return Err(TopoImportError::PcieRange {
                line: l.line,
                gpu: l.gpu,
                what: format!("width x{w}"),
                expected: "x1, x2, x4, x8 or x16",
            });
        }
        if l.gen_current.is_some_and(|c| c < l.gen_max) {
            idle.push(format!("GPU{}", l.gpu));
        }
        per.push((l.gpu, l.gen_max, w));
    }
    for ((cur, max), g) in &narrow {
        warnings.push(format!(
            "{}: {wc} x{cur} is below {wm} x{max}: {} narrower than {} can (riser, bifurcated or shared slot); x{cur} is used",
            g.join(", "),
            if g.len() == 1 { "a link trained" } else { "links trained" },
            if g.len() == 1 { "it" } else { "they" }
        ));
    }
    per.sort_unstable();
    let pg = per.iter().map(|p| p.1).min().unwrap_or(4);
    let wid = per.iter().map(|p| p.2).min().unwrap_or(16);
    notes.push(format!(
        "the GPUs' own links from {}: Gen{pg} x{wid}; the generation is {gm} (the current one drops when the GPU is idle{})",
        format.label(),
        if idle.is_empty() {
            String::new()
        } else {
            format!(": {gc} below it on {}", idle.join(", "))
        }
    ));
    if format == PcieFormat::Lspci {
        notes.push(
            "lspci's LnkCap is the GPU's own capability, not the slot's: a GPU in a slot of a lower generation reads its own maximum there (nvidia-smi's pcie.link.gen.max is the system's)".into(),
        );
    }
    if per.iter().any(|p| (p.1, p.2) != (pg, wid)) {
        let each: Vec<String> = per
            .iter()
            .map(|p| format!("GPU{} Gen{} x{}", p.0, p.1, p.2))
            .collect();
        warnings.push(format!(
            "the GPUs' links differ ({}): tpsim's GPU link is one per box, so the lowest generation and width, Gen{pg} x{wid}, are written (the slowest link bounds a ring allreduce; the faster GPUs' own host traffic is undercounted)",
            each.join(", ")
        ));
    }
    Ok((pg, wid, notes, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CSV as nvidia-smi prints it for the brief's query (header and row format as a public PCIe
    /// tutorial quotes them, find_string id 61920110765): GPU0 trained at x8 on an x16 card, GPU1 idle
    /// at Gen1.
    const CSV: &str = "index, pci.bus_id, pcie.link.gen.max, pcie.link.gen.current, pcie.link.width.max, pcie.link.width.current
0, 00000000:01:00.0, 4, 4, 16, 8
1, 00000000:02:00.0, 4, 1, 16, 16
";

    #[test]
    fn the_csv_is_read_by_its_header() {
        let (f, l) = parse_pcie(CSV).unwrap();
        assert_eq!(f, PcieFormat::QueryCsv);
        assert_eq!(
            l,
            vec![
                PcieLink {
                    gpu: 0,
                    line: 2,
                    gen_max: 4,
                    gen_current: Some(4),
                    width_max: 16,
                    width_current: 8
                },
                PcieLink {
                    gpu: 1,
                    line: 3,
                    gen_max: 4,
                    gen_current: Some(1),
                    width_max: 16,
                    width_current: 16
                },
            ]
        );
        // Columns in another order, index last, no current generation: read by name.
        let (_, l) = parse_pcie(
            "pcie.link.width.current, pcie.link.width.max, pcie.link.gen.max, index\n8, 16, 5, 0\n",
        )
        .unwrap();
        assert_eq!(
            (l[0].gpu, l[0].gen_max, l[0].gen_current, l[0].width_current),
            (0, 5, None, 8)
        );
    }

    /// GPU0 at x8 of x16: warned, x8 used; GPU1 at Gen1 of Gen4 at idle: Gen4 used, a note only. The
    /// box is Gen4 x8 (the lowest width), with a warning that the GPUs differ.
    #[test]
    fn max_generation_and_the_trained_width() {
        let (f, l) = parse_pcie(CSV).unwrap();
        let (g, w, notes, warnings) = box_link(f, &l, 2).unwrap();
        assert_eq!((g, w), (4, 8));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].starts_with("GPU0: pcie.link.width.current x8 is below pcie.link.width.max x16"),
            "{warnings:?}"
        );
        assert!(
            warnings[1].contains("(GPU0 Gen4 x8, GPU1 Gen4 x16)"),
            "{warnings:?}"
        );
        assert!(
            notes[0].contains("pcie.link.gen.current below it on GPU1"),
            "{notes:?}"
        );
    }

    /// `nvidia-smi -q` of newer drivers: Device/Host Max beside Max, Device Current beside Current
    /// (as a public PCIe tutorial quotes `nvidia-smi -q -d PCI`, find_string id 61920110765).
    #[test]
    fn query_with_device_and_host_max() {
        let q = "GPU 00000000:E3:00.0\n    PCI\n        GPU Link Info\n            PCIe Generation\n                Max                       : 5\n                Current                   : 4\n                Device Current            : 4\n                Device Max                : 5\n                Host Max                  : 5\n            Link Width\n                Max                       : 16x\n                Current                   : 16x\n        Bridge Chip\n            Type                          : N/A\n";
        let (f, l) = parse_pcie(q).unwrap();
        assert_eq!(f, PcieFormat::Query);
        assert_eq!(
            (l[0].gen_max, l[0].gen_current, l[0].width_max, l[0].width_current),
            (5, Some(4), 16, 16)
        );
    }

    /// lspci: the GPU's LnkCap and LnkSta (line forms as geerlingguy/raspberry-pi-pcie-devices issue
    /// 692 and janhq/jan issue 183 print them); the audio function and a bridge are skipped, NVIDIA
    /// display functions in bus order are GPU0, GPU1.
    #[test]
    fn lspci_gpus_in_bus_order() {
        let t = "00:01.1 PCI bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge
\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <64us
\t\tLnkSta:\tSpeed 16GT/s, Width x16
01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1) (prog-if 00 [VGA controller])
\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <512ns, L1 <4us
\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16
\t\tLnkCap2: Supported Link Speeds: 2.5-16GT/s, Crosslink- Retimer+ 2Retimers+ DRS-
01:00.1 Audio device: NVIDIA Corporation GA102 High Definition Audio Controller (rev a1)
\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <512ns, L1 <4us
\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16
0000:2d:00.0 3D controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1)
\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM L0s L1, Exit Latency L0s <512ns, L1 <4us
\t\tLnkSta:\tSpeed 16GT/s, Width x4 (downgraded)
";
        let (f, l) = parse_pcie(t).unwrap();
        assert_eq!(f, PcieFormat::Lspci);
        assert_eq!(l.len(), 2);
        assert_eq!(
            (
                l[0].gpu,
                l[0].line,
                l[0].gen_max,
                l[0].gen_current,
                l[0].width_current
            ),
            (0, 4, 4, Some(1), 16)
        );
        assert_eq!(
            (
                l[1].gpu,
                l[1].line,
                l[1].gen_max,
                l[1].width_max,
                l[1].width_current
            ),
            (1, 11, 4, 16, 4)
        );
        let (g, w, _, warnings) = box_link(f, &l, 2).unwrap();
        assert_eq!((g, w), (4, 4));
        assert!(
            warnings[0].starts_with("GPU1: LnkSta Width x4 is below LnkCap Width x16"),
            "{warnings:?}"
        );
    }

    #[test]
    fn garbage_names_the_line_and_key() {
        assert_eq!(parse_pcie("hello\n").unwrap_err(), TopoImportError::PcieNoReport);
        // A header without pcie.link.width.max.
        let e = parse_pcie("index, pcie.link.gen.max, pcie.link.width.current\n0, 4, 16\n").unwrap_err();
        assert_eq!(
            e,
            TopoImportError::PcieHeader {
                line: 1,
                missing: "pcie.link.width.max".into()
            }
        );
        // A width nvidia-smi could not read.
        let e = parse_pcie(&CSV.replace("16, 8", "16, [N/A]")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--pcie line 2: pcie.link.width.current `[N/A]` is not a number; expected e.g. 4 (generation) or 16 (lanes)"
        );
        let e = parse_pcie(&CSV.replace("1, 16, 16", "1, 16")).unwrap_err();
        assert_eq!(
            e,
            TopoImportError::PcieShortRow {
                line: 3,
                found: 5,
                expected: 6
            }
        );
        let e = parse_pcie("GPU 00000000:01:00.0\n        GPU Link Info\n            PCIe Generation\n                Max : 4\n            Link Width\n                Max : 16x\n").unwrap_err();
        assert_eq!(e.to_string(), "--pcie line 1: GPU0 has no Link Width Current");
    }

    #[test]
    fn gpus_must_match_the_matrix() {
        let (f, l) = parse_pcie(CSV).unwrap();
        assert_eq!(
            box_link(f, &l, 1).unwrap_err().to_string(),
            "--pcie line 3: GPU1 is not in the topology matrix, which has 1 GPUs (GPU0 to GPU0)"
        );
        assert_eq!(
            box_link(f, &l, 3).unwrap_err(),
            TopoImportError::PcieMissingGpu { gpu: 2 }
        );
        let (f, l) = parse_pcie(&CSV.replace("1, 00000000:02", "0, 00000000:02")).unwrap();
        assert_eq!(
            box_link(f, &l, 2).unwrap_err(),
            TopoImportError::PcieDuplicate { line: 3, gpu: 0 }
        );
        // A Gen2 link (PCIe 2.0 board) is outside what tpsim models.
        let (f, l) =
            parse_pcie(&CSV.replace("0, 00000000:01:00.0, 4, 4", "0, 00000000:01:00.0, 2, 2")).unwrap();
        assert_eq!(
            box_link(f, &l, 2).unwrap_err().to_string(),
            "--pcie line 2: GPU0's pcie.link.gen.max 2; expected 3 to 6 (tpsim models PCIe Gen3 to Gen6)"
        );
    }
}

//! The pure half of `bench`: what to measure (sizes, shapes, iteration counts) and how raw timings
//! become the numbers written to the measurement file. Compiled without the `cuda` feature so that
//! every formula here is unit-tested on machines without a GPU.

use std::collections::BTreeSet;

use tpsim_model::llm::{Attention, Ffn, ModelSpec, Quantization};

use crate::measurement::{MeasurementFile, Provenance, Record};

/// One benchmark family, as named on the command line (`--only mem,p2p,gemm,nccl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// D2D, H2D and D2H copy bandwidth.
    Mem,
    /// Peer copy bandwidth and one-way flag latency for every GPU pair.
    P2p,
    /// cuBLAS GEMM/GEMV at decode shapes.
    Gemm,
    /// NCCL allreduce sweep over all GPUs.
    Nccl,
}

impl Family {
    /// All families, in the order `bench` runs them.
    pub const ALL: [Family; 4] = [Family::Mem, Family::P2p, Family::Gemm, Family::Nccl];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Family::Mem => "mem",
            Family::P2p => "p2p",
            Family::Gemm => "gemm",
            Family::Nccl => "nccl",
        }
    }
}

/// Parse `--only`: a comma-separated list of family names (at least one, no repeats needed).
pub fn parse_only(s: &str) -> Result<BTreeSet<Family>, String> {
    let mut set = BTreeSet::new();
    for part in s.split(',').map(str::trim) {
        let fam = Family::ALL
            .into_iter()
            .find(|f| f.name() == part)
            .ok_or_else(|| {
                format!("unknown benchmark `{part}`: expected a comma-separated list of mem, p2p, gemm, nccl")
            })?;
        set.insert(fam);
    }
    Ok(set)
}

/// Parse a byte size with an optional binary suffix: `4K` = 4096, `256M` = 268435456, `1G`, or a
/// plain number of bytes. Suffixes are powers of 1024 as in nccl-tests' `-b 4K -e 256M`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.eq_ignore_ascii_case(&'k') => (&t[..i], 10),
        Some((i, c)) if c.eq_ignore_ascii_case(&'m') => (&t[..i], 20),
        Some((i, c)) if c.eq_ignore_ascii_case(&'g') => (&t[..i], 30),
        _ => (t, 0),
    };
    let n: u64 = digits.parse().map_err(|_| {
        format!(
            "invalid size `{s}`: expected a whole number with an optional K, M or G suffix (e.g. 4K, 256M)"
        )
    })?;
    n.checked_mul(1u64 << shift)
        .filter(|&b| b > 0)
        .ok_or_else(|| format!("invalid size `{s}`: must be between 1 byte and 16 EiB"))
}

/// An inclusive range of collective sizes, `LO..HI`, swept by doubling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeRange {
    /// Smallest size in bytes.
    pub lo: u64,
    /// Largest size in bytes (included when it is `lo` × a power of two).
    pub hi: u64,
}

impl SizeRange {
    /// The default sweep: 4 KB to 256 MB (#7 point 1).
    pub const DEFAULT: SizeRange = SizeRange {
        lo: 4 << 10,
        hi: 256 << 20,
    };

    /// The sizes `lo, 2·lo, 4·lo, … ≤ hi`.
    pub fn sizes(self) -> Vec<u64> {
        let mut v = Vec::new();
        let mut s = self.lo;
        while s <= self.hi {
            v.push(s);
            match s.checked_mul(2) {
                Some(n) => s = n,
                None => break,
            }
        }
        v
    }
}

/// Parse `--sizes LO..HI` (e.g. `4K..256M`).
pub fn parse_sizes(s: &str) -> Result<SizeRange, String> {
    let (lo, hi) = s
        .split_once("..")
        .ok_or_else(|| format!("invalid size range `{s}`: expected LO..HI, e.g. 4K..256M"))?;
    let (lo, hi) = (parse_size(lo)?, parse_size(hi)?);
    if lo > hi {
        return Err(format!(
            "invalid size range `{s}`: {lo} bytes is larger than {hi} bytes"
        ));
    }
    Ok(SizeRange { lo, hi })
}

/// Iteration counts and buffer sizes of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Families to run.
    pub only: BTreeSet<Family>,
    /// Allreduce sizes.
    pub sizes: SizeRange,
    /// Untimed calls before timing starts (clocks up, caches and NCCL connections set up).
    pub warmup: u32,
    /// Timed calls per measurement.
    pub iters: u32,
    /// Independent repeats of a timed batch; the statistic is taken over these.
    pub repeats: u32,
    /// Bytes of the D2D copy (the issue asks for 1 GiB).
    pub d2d_bytes: u64,
    /// Bytes of each H2D/D2H and peer copy.
    pub copy_bytes: u64,
    /// Round trips of the flag ping-pong in the long run; the short run does a quarter of them.
    pub pingpong_round_trips: u32,
}

impl Plan {
    /// The full plan, or the `--quick` one (smaller buffers, fewer iterations: a smoke test of the
    /// whole path in seconds, not a calibration).
    pub fn new(quick: bool, only: BTreeSet<Family>, sizes: SizeRange) -> Plan {
        if quick {
            Plan {
                only,
                sizes,
                warmup: 2,
                iters: 5,
                repeats: 3,
                d2d_bytes: 64 << 20,
                copy_bytes: 16 << 20,
                pingpong_round_trips: 1000,
            }
        } else {
            Plan {
                only,
                sizes,
                warmup: 5,
                iters: 20,
                repeats: 10,
                d2d_bytes: 1 << 30,
                copy_bytes: 256 << 20,
                pingpong_round_trips: 20_000,
            }
        }
    }

    /// Whether a family is selected.
    pub fn runs(&self, f: Family) -> bool {
        self.only.contains(&f)
    }
}

/// Minimum, median and mean of repeated timings (any unit).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub min: f64,
    pub median: f64,
    pub mean: f64,
}

/// Statistics of a sample; `None` when it is empty or holds a non-finite value (a timing that
/// could not be read must not become a number in the file).
pub fn stats(sample: &[f64]) -> Option<Stats> {
    if sample.is_empty() || sample.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut v = sample.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let mean = v.iter().sum::<f64>() / n as f64;
    Some(Stats {
        min: v[0],
        median,
        mean,
    })
}

/// Bandwidth in GB/s (1e9 B/s) of `bytes` moved in `ms` milliseconds; `None` for a zero or
/// non-finite time.
pub fn gbps(bytes: u64, ms: f64) -> Option<f64> {
    (ms.is_finite() && ms > 0.0).then(|| bytes as f64 / (ms * 1e6))
}

/// Bandwidth of a device-to-device copy of `bytes` within one GPU, counting the read and the write
/// (2 × bytes ÷ time), as CUDA's `bandwidthTest` reports device-to-device bandwidth; this is the
/// figure to compare with the HBM datasheet bandwidth.
pub fn d2d_gbps(bytes: u64, ms: f64) -> Option<f64> {
    gbps(bytes.saturating_mul(2), ms)
}

/// nccl-tests' bus bandwidth of an allreduce: algbw × 2(n−1)/n, with algbw = size ÷ time
/// (nccl-tests `doc/PERFORMANCE.md`, "AllReduce"). GB/s = 1e9 B/s; `None` for n < 1 or a bad time.
pub fn allreduce_busbw_gbps(size_bytes: u64, time_us: f64, n_gpus: u32) -> Option<f64> {
    if n_gpus == 0 || !(time_us.is_finite() && time_us > 0.0) {
        return None;
    }
    let algbw = size_bytes as f64 / (time_us * 1e3);
    let n = f64::from(n_gpus);
    Some(algbw * 2.0 * (n - 1.0) / n)
}

/// One-way latency in µs from two ping-pong runs of `n1` and `n2` round trips taking `t1_ms` and
/// `t2_ms`: the difference removes the fixed cost (kernel launch, start-up skew between the two
/// GPUs), and a round trip is two one-way trips.
pub fn one_way_latency_us(t1_ms: f64, n1: u32, t2_ms: f64, n2: u32) -> Option<f64> {
    if n2 <= n1 || !t1_ms.is_finite() || !t2_ms.is_finite() {
        return None;
    }
    let per_round_trip_us = (t2_ms - t1_ms) * 1e3 / f64::from(n2 - n1);
    (per_round_trip_us > 0.0).then_some(per_round_trip_us / 2.0)
}

/// Copies of a weight matrix to cycle through so that consecutive GEMM calls read it from HBM, not
/// from L2 as a decode step (whose weights are far larger than L2) does: enough copies to span twice
/// the L2 size, at least 1 and at most 64 (memory bound on the largest shapes).
pub fn rotation_copies(weight_bytes: u64, l2_bytes: u64) -> u32 {
    if weight_bytes == 0 {
        return 1;
    }
    let need = (2 * l2_bytes).div_ceil(weight_bytes);
    need.clamp(1, 64) as u32
}

/// Token counts of the GEMM/GEMV sweep: decode batches (issue #7 point 1).
pub const GEMM_M: [u64; 5] = [1, 4, 8, 16, 32];

/// Tensor-parallel degree of the decode shapes (the seed box runs TP 8, `reference/seed-story.md`).
pub const GEMM_TP: u64 = 8;

/// One projection of a decoder: Y[m×n] = X[m×k] · Wᵀ, W being n×k on one rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projection {
    /// `<model>/<projection>`, e.g. `llama-3.1-8b/qkv_proj`.
    pub name: String,
    /// Output features on this rank.
    pub n: u64,
    /// Input features on this rank.
    pub k: u64,
}

/// The per-rank projection shapes of one decode step of `spec` at tensor parallelism `tp`, with
/// SGLang's sharding (the table in `model/src/llm/weights.rs`): GQA q/k/v and MLP gate/up
/// column-parallel, o/down row-parallel, MLA `fused_qkv_a_proj_with_mqa` and the MoE router
/// replicated, routed and shared experts split by intermediate (TP-MoE), LM head vocab-parallel.
/// MLA's absorbed w_kc/w_vc are batched per-head GEMMs over the KV cache, not projections: left out.
pub fn decode_projections(label: &str, spec: &ModelSpec, tp: u64) -> Vec<Projection> {
    let tp = tp.max(1);
    let h = spec.hidden;
    let mut out = Vec::new();
    let mut push = |what: &str, n: u64, k: u64| {
        if n > 0 && k > 0 {
            out.push(Projection {
                name: format!("{label}/{what}"),
                n,
                k,
            });
        }
    };
    match spec.attention {
        Attention::Gqa {
            heads,
            kv_heads,
            head_dim,
        } => {
            // KV heads are replicated when tp > kv_heads (QKVParallelLinear).
            let kv = kv_heads.div_ceil(tp).max(1);
            push("qkv_proj", (heads / tp + 2 * kv) * head_dim, h);
            push("o_proj", h, heads / tp * head_dim);
        }
        Attention::Mla {
            q_lora_rank,
            kv_lora_rank,
            qk_nope_head_dim,
            qk_rope_head_dim,
            v_head_dim,
        } => {
            let heads = spec.heads / tp;
            match q_lora_rank {
                Some(q) => {
                    push("fused_qkv_a_proj", q + kv_lora_rank + qk_rope_head_dim, h);
                    push("q_b_proj", heads * (qk_nope_head_dim + qk_rope_head_dim), q);
                }
                None => {
                    push("kv_a_proj", kv_lora_rank + qk_rope_head_dim, h);
                    push("q_proj", heads * (qk_nope_head_dim + qk_rope_head_dim), h);
                }
            }
            push("o_proj", h, heads * v_head_dim);
        }
    }
    let dense = spec.layers.iter().any(|l| matches!(l, Ffn::Dense { .. }));
    if dense && spec.dense_intermediate > 0 {
        let i = spec.dense_intermediate / tp;
        push("mlp.gate_up_proj", 2 * i, h);
        push("mlp.down_proj", h, i);
    }
    if let Some(moe) = spec.moe {
        push("moe.router", moe.n_routed_experts, h);
        let i = moe.moe_intermediate / tp;
        push("moe.expert.gate_up_proj", 2 * i, h);
        push("moe.expert.down_proj", h, i);
        if moe.n_shared_experts > 0 {
            let s = moe.moe_intermediate * moe.n_shared_experts / tp;
            push("moe.shared.gate_up_proj", 2 * s, h);
            push("moe.shared.down_proj", h, s);
        }
    }
    push("lm_head", spec.vocab.div_ceil(tp), h);
    out
}

/// The models whose decode shapes `bench` times (configs from `scenarios/models/`, compiled in so
/// the benchmark binary needs no checkout): Llama-3.1-8B and Kimi-K2.5, the seed story's model.
const GEMM_MODELS: [(&str, &str); 2] = [
    (
        "llama-3.1-8b",
        include_str!("../../../scenarios/models/llama-3.1-8b/config.json"),
    ),
    (
        "kimi-k2.5",
        include_str!("../../../scenarios/models/kimi-k2.5/config.json"),
    ),
];

/// Projection shapes of the compiled-in models at [`GEMM_TP`], in model order; an error names the
/// config that failed to parse (a defect of the repository, not of the user's input).
pub fn gemm_projections() -> Result<Vec<Projection>, String> {
    let mut all = Vec::new();
    for (label, json) in GEMM_MODELS {
        let spec = ModelSpec::from_config_json(json, Quantization::bf16())
            .map_err(|e| format!("scenarios/models/{label}/config.json: {e}"))?;
        all.extend(decode_projections(label, &spec, GEMM_TP));
    }
    Ok(all)
}

/// The distinct (n, k) pairs of `projections`, in first-seen order, with the names sharing each.
pub fn distinct_shapes(projections: &[Projection]) -> Vec<(u64, u64, Vec<String>)> {
    let mut out: Vec<(u64, u64, Vec<String>)> = Vec::new();
    for p in projections {
        match out.iter_mut().find(|(n, k, _)| *n == p.n && *k == p.k) {
            Some((_, _, names)) => names.push(p.name.clone()),
            None => out.push((p.n, p.k, vec![p.name.clone()])),
        }
    }
    out
}

/// Properties of one GPU as the driver reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: u32,
    pub name: String,
    pub total_mem_bytes: u64,
    pub sm_count: u32,
    /// Compute capability (major, minor).
    pub cc: (u32, u32),
    /// `domain:bus:device.0` in hex, as `nvidia-smi` prints it.
    pub pci_bus_id: String,
    pub l2_bytes: u64,
    /// Peak memory clock in kHz and bus width in bits (driver attributes 36 and 37).
    pub mem_clock_khz: u64,
    pub mem_bus_bits: u64,
    /// PCIe link now and at most, from Linux sysfs (the driver API has no attribute for them).
    pub pcie: PcieLinks,
}

/// A PCIe link: generation and lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcieLink {
    pub generation: u32,
    pub lanes: u32,
}

/// A device's PCIe link as trained now and its maximum; `None` where sysfs does not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PcieLinks {
    pub current: Option<PcieLink>,
    pub max: Option<PcieLink>,
}

impl DeviceInfo {
    /// Peak memory bandwidth implied by the driver's clock and bus width: 2 (double data rate) ×
    /// clock × width ÷ 8, in GB/s, as CUDA's `deviceQuery` sample derives it. 0 when unreported.
    pub fn peak_mem_gbps(&self) -> f64 {
        2.0 * self.mem_clock_khz as f64 * 1e3 * (self.mem_bus_bits as f64 / 8.0) / 1e9
    }

    /// One line for the provenance notes.
    pub fn note(&self) -> String {
        let link =
            |l: Option<PcieLink>| l.map_or("?".to_string(), |l| format!("gen{} x{}", l.generation, l.lanes));
        format!(
            "gpu {}: {}, {} MiB, {} SMs, sm_{}{}, L2 {} MiB, pci {} PCIe {} (max {}; an idle GPU may train its link down), peak memory bandwidth from driver attributes {:.0} GB/s",
            self.ordinal,
            self.name,
            self.total_mem_bytes >> 20,
            self.sm_count,
            self.cc.0,
            self.cc.1,
            self.l2_bytes >> 20,
            self.pci_bus_id,
            link(self.pcie.current),
            link(self.pcie.max),
            self.peak_mem_gbps()
        )
    }
}

/// PCIe generation of a sysfs link speed (`32.0 GT/s PCIe`, `8 GT/s`, `2.5 GT/s`): the per-lane
/// rates of generations 1–6 are 2.5, 5, 8, 16, 32 and 64 GT/s (PCI-SIG base specifications).
pub fn pcie_gen(speed: &str) -> Option<u32> {
    let gts: f64 = speed.split_whitespace().next()?.parse().ok()?;
    [2.5, 5.0, 8.0, 16.0, 32.0, 64.0]
        .iter()
        .position(|r| (gts - r).abs() < 0.01)
        .map(|i| i as u32 + 1)
}

/// The link described by the text of sysfs `*_link_speed` and `*_link_width`.
pub fn pcie_link(speed: &str, width: &str) -> Option<PcieLink> {
    Some(PcieLink {
        generation: pcie_gen(speed)?,
        lanes: width.trim().parse().ok().filter(|&w| w > 0)?,
    })
}

/// The current and maximum PCIe link of the device at `bus_id` (`0000:19:00.0`) from
/// `/sys/bus/pci/devices/<bus_id>/{current,max}_link_{speed,width}`.
pub fn pcie_links_from_sysfs(bus_id: &str) -> PcieLinks {
    let read = |f: &str| std::fs::read_to_string(format!("/sys/bus/pci/devices/{bus_id}/{f}")).ok();
    let link = |kind: &str| {
        pcie_link(
            &read(&format!("{kind}_link_speed"))?,
            &read(&format!("{kind}_link_width"))?,
        )
    };
    PcieLinks {
        current: link("current"),
        max: link("max"),
    }
}

/// Format a CUDA driver API version (`cuDriverGetVersion`, 1000 × major + 10 × minor): 12080 → "12.8".
pub fn cuda_version_string(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// Format an NCCL version code (`ncclGetVersion`; 10000 × major + 100 × minor + patch since 2.9,
/// 1000 × major + 100 × minor + patch before, per `nccl.h` `NCCL_VERSION`): 22703 → "2.27.3".
pub fn nccl_version_string(code: i32) -> String {
    if code >= 20900 {
        format!("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100)
    }
}

/// The kernel-module version from `/proc/driver/nvidia/version`'s first line
/// (`NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Thu …`, or `… Open Kernel Module for
/// x86_64  575.57.08 …`): the first dotted number after "Kernel Module".
pub fn parse_driver_version(proc_text: &str) -> Option<String> {
    let line = proc_text.lines().next()?;
    let rest = &line[line.find("Kernel Module")? + "Kernel Module".len()..];
    rest.split_whitespace()
        .find(|v| v.contains('.') && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_string)
}

/// What `bench` learned about the machine, for the provenance block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MachineFacts {
    pub hostname: Option<String>,
    pub devices: Vec<DeviceInfo>,
    pub driver_version: Option<String>,
    /// `cuDriverGetVersion`.
    pub cuda_driver_api: Option<i32>,
    /// `ncclGetVersion`, when libnccl could be loaded.
    pub nccl_code: Option<i32>,
}

/// Methodology notes written into every bench file, so a reader of the numbers knows what they mean.
pub fn method_notes(plan: &Plan) -> Vec<String> {
    vec![
        format!(
            "timing: CUDA events; {} warm-up calls, then {} repeats of {} timed calls; copies report the best repeat, GEMM and allreduce the median repeat's mean per call",
            plan.warmup, plan.repeats, plan.iters
        ),
        format!("d2d: {} B copy within one GPU; gbps counts read + write (2 x size / time) as CUDA bandwidthTest does", plan.d2d_bytes),
        format!("h2d/d2h/p2p: {} B copies, pinned host memory; p2p peer_access=false is the driver's path without peer mappings (staged through the host)", plan.copy_bytes),
        "p2p latency: NVRTC flag ping-pong, one thread per GPU; peer_access=true puts each flag in the polling GPU's memory, peer_access=false puts both flags in mapped pinned host memory".to_string(),
        format!("gemm: cuBLAS bf16 TN (Y = X W^T, fp32 accumulate), decode shapes of Llama-3.1-8B and Kimi-K2.5 at TP {GEMM_TP}, weights rotated through copies spanning 2x L2; fp8 not measured (cudarc's cublasLt wrapper has no fp8 matmul)"),
        "nccl: bf16 in-place allreduce (sum), one communicator per GPU from ncclCommInitAll, group calls; time_us is the slowest rank; busbw = algbw x 2(n-1)/n".to_string(),
    ]
}

/// Assemble the measurement file: provenance from the machine facts (GPU name of GPU 0, or the
/// distinct names joined by " + " on a mixed box), device lines and method notes, then the records
/// in the order measured, then any warnings (skipped benchmarks).
pub fn assemble(
    facts: &MachineFacts,
    plan: &Plan,
    records: Vec<Record>,
    warnings: Vec<String>,
) -> MeasurementFile {
    let mut names: Vec<&str> = Vec::new();
    for d in &facts.devices {
        if !names.contains(&d.name.as_str()) {
            names.push(&d.name);
        }
    }
    let mut notes: Vec<String> = facts.devices.iter().map(DeviceInfo::note).collect();
    notes.extend(method_notes(plan));
    notes.extend(warnings);
    let provenance = Provenance {
        tool: "bench".to_string(),
        machine: facts.hostname.clone(),
        gpu: (!names.is_empty()).then(|| names.join(" + ")),
        gpu_count: (!facts.devices.is_empty()).then_some(facts.devices.len() as u32),
        driver_version: facts.driver_version.clone(),
        cuda_version: facts.cuda_driver_api.map(cuda_version_string),
        nccl_version: facts.nccl_code.map(nccl_version_string),
        sources: Vec::new(),
        notes,
    };
    let mut file = MeasurementFile::new(provenance);
    file.records = records;
    file
}

/// This machine's host name from the kernel (`/proc/sys/kernel/hostname`), else `/etc/hostname`.
pub fn hostname() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests;

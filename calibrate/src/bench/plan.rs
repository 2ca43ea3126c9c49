//! The pure half of `bench`: what to measure (benchmark families, sizes, iteration counts) and how
//! raw timings become the numbers written to the measurement file (statistics, bandwidths, busbw,
//! latency). GEMM shapes are in [`super::shapes`], machine facts and file assembly in [`super::facts`]. Compiled without the `cuda` feature so that
//! every formula here is unit-tested on machines without a GPU.

use std::collections::BTreeSet;

/// One benchmark family, as named on the command line (`--only mem,p2p,gemm,nccl`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// D2D, H2D and D2H copy bandwidth.
    Mem,
    /// Peer copy bandwidth and one-way flag latency for every GPU pair.
    P2p,
    /// cuBLAS GEMM/GEMV at decode shapes.
    Gemm,
    /// Streaming reads of growing size and an empty kernel: memory efficiency by kernel size and the
    /// per-kernel fixed cost, eager and in a CUDA graph.
    Stream,
    /// NCCL allreduce sweep over all GPUs.
    Nccl,
}

impl Family {
    /// All families, in the order `bench` runs them.
    pub const ALL: [Family; 5] = [
        Family::Mem,
        Family::P2p,
        Family::Gemm,
        Family::Stream,
        Family::Nccl,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Family::Mem => "mem",
            Family::P2p => "p2p",
            Family::Gemm => "gemm",
            Family::Stream => "stream",
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
                format!("unknown benchmark `{part}`: expected a comma-separated list of mem, p2p, gemm, stream, nccl")
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
    /// Bytes read by each timed streaming-read kernel (0: the empty kernel).
    pub stream_sizes: Vec<u64>,
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
                stream_sizes: vec![0, 64 << 10, 1 << 20, 16 << 20, 256 << 20],
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
                // Powers of 4 from 16 KiB (a norm's activations) to 1 GiB (far past any weight matrix).
                stream_sizes: (0..=8).map(|i| 16u64 << (10 + 2 * i)).fold(vec![0], |mut v, b| {
                    v.push(b);
                    v
                }),
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

#[cfg(test)]
mod tests;

//! vLLM's QuickReduce (ROCm quick allreduce, issue #17 point 4): a two-shot allreduce over IPC
//! buffers whose payload may be quantized, for MI300-class GPUs (gfx94x, gfx95x) only.
//!
//! Sources (vLLM 0.11.0): `vllm/distributed/device_communicators/quick_all_reduce.py`
//! (`QuickAllReduce`: world sizes 2, 4, 8; fp16/bf16 inputs; the per-(dtype, world size) minimum
//! sizes `_QR_MIN_SIZE`, indexed by regime FP, INT8, INT6, INT4; a size must also be a multiple of
//! 16 bytes and at most `qr_max_size`); `vllm/envs.py` (`VLLM_ROCM_QUICK_REDUCE_QUANTIZATION` ∈
//! FP, INT8, INT6, INT4, NONE, default NONE = off; `VLLM_ROCM_QUICK_REDUCE_CAST_BF16_TO_FP16`,
//! default true, makes bf16 use the fp16 table; `VLLM_ROCM_QUICK_REDUCE_MAX_SIZE_BYTES_MB`);
//! `csrc/quickreduce/quick_reduce.h` as stored for vllm-project/vllm at commit 0300b226 (`DeviceComms::kMaxProblemSize` = 2 GiB, the default
//! `qr_max_size`; the two-shot kernel for every regime) and `csrc/quickreduce/quick_reduce_impl.cuh`
//! (the codecs: per 4096-byte fp16 atom of a 256-thread block, FP sends 4096 B, Q8 a 2176-byte
//! stride — 2048 B of codes + scales —, Q6 1664 B, Q4 1152 B).
//!
//! The timing model (`sim::allreduce`, `CustomAlgo::QuickReduce`) follows the algorithm: each rank
//! writes the 1/n partition owned by each peer into that peer's buffer (payload × codec ratio),
//! reduces the n partitions it received, then writes its reduced partition to every peer (same
//! payload), with a flag barrier between and after.

/// The quantization regime (`QuickReduceRegime`, without NONE = off).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Regime {
    Fp,
    Int8,
    Int6,
    Int4,
}

impl Regime {
    /// `VLLM_ROCM_QUICK_REDUCE_QUANTIZATION`'s value: `Ok(None)` for NONE (off), `Err` for a value
    /// vLLM's `env_with_choices` rejects.
    pub fn parse(v: &str) -> Result<Option<Regime>, String> {
        match v {
            "FP" => Ok(Some(Regime::Fp)),
            "INT8" => Ok(Some(Regime::Int8)),
            "INT6" => Ok(Some(Regime::Int6)),
            "INT4" => Ok(Some(Regime::Int4)),
            "NONE" => Ok(None),
            other => Err(format!(
                "Invalid value '{other}' for VLLM_ROCM_QUICK_REDUCE_QUANTIZATION. Valid options: ['FP', 'INT8', 'INT6', 'INT4', 'NONE']"
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Regime::Fp => "FP",
            Regime::Int8 => "INT8",
            Regime::Int6 => "INT6",
            Regime::Int4 => "INT4",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    /// Bytes sent per 4096 bytes of fp16 data (quick_reduce_impl.cuh `kRankTileStride` per atom).
    pub fn sent_per_4096(self) -> u64 {
        match self {
            Regime::Fp => 4096,
            Regime::Int8 => 2176,
            Regime::Int6 => 1664,
            Regime::Int4 => 1152,
        }
    }

    /// Bytes on the wire for `bytes` of fp16/bf16 data.
    pub fn payload(self, bytes: u64) -> u64 {
        bytes.div_ceil(4096) * self.sent_per_4096()
    }
}

/// quick_all_reduce.py `_SUPPORTED_WORLD_SIZES`.
pub const WORLD_SIZES: [u32; 3] = [2, 4, 8];
/// quick_reduce.h `DeviceComms::kMaxProblemSize` (the default `qr_max_size`).
pub const MAX_PROBLEM_SIZE: u64 = 2 << 30;
const MB: u64 = 1 << 20;

/// quick_all_reduce.py `_QR_MIN_SIZE[(dtype, world_size)][regime]`; `fp16` selects the float16 rows.
pub fn min_size(fp16: bool, world: u32, regime: Regime) -> Option<u64> {
    let row: [u64; 4] = match (fp16, world) {
        (true, 2) => [1, 2, 2, 1],
        (true, 4) => [1, 16, 4, 2],
        (true, 8) => [16, 4, 4, 2],
        (false, 2) => [2, 8, 8, 8],
        (false, 4) => [8, 64, 64, 16],
        (false, 8) => [16, 2048, 2048, 2048],
        _ => return None,
    };
    Some(row[regime.index()] * MB)
}

/// The message sizes (bytes, inclusive) QuickReduce takes for a `bf16` (else fp16) model at world
/// size `world`, with `cast_bf16_to_fp16` and the `max_size_mb` override; `None` when it takes none.
pub fn window(
    bf16: bool,
    cast_bf16_to_fp16: bool,
    world: u32,
    regime: Regime,
    max_size_mb: Option<u64>,
) -> Option<(u64, u64)> {
    let fp16_table = !bf16 || cast_bf16_to_fp16;
    let lo = min_size(fp16_table, world, regime)?;
    let hi = max_size_mb.map_or(MAX_PROBLEM_SIZE, |m| m * MB);
    (lo <= hi).then_some((lo, hi))
}

/// Whether a message of `bytes` goes to QuickReduce with window `w` (also a multiple of 16 bytes).
pub fn takes(w: Option<(u64, u64)>, bytes: u64) -> bool {
    w.is_some_and(|(lo, hi)| bytes.is_multiple_of(16) && bytes >= lo && bytes <= hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codec ratios: 2176 / 4096 = 0.53125, 1664 / 4096 = 0.40625, 1152 / 4096 = 0.28125.
    #[test]
    fn codec_payloads() {
        assert_eq!(Regime::Fp.payload(1 << 20), 1 << 20);
        assert_eq!(Regime::Int8.payload(1 << 20), 557_056); // 256 atoms × 2176
        assert_eq!(Regime::Int6.payload(1 << 20), 425_984); // 256 × 1664
        assert_eq!(Regime::Int4.payload(1 << 20), 294_912); // 256 × 1152
        assert_eq!(Regime::Int4.payload(1), 1152);
    }

    /// vLLM's table: bf16 at TP 8 takes FP from 16 MiB and the quantized regimes only from 2 GiB
    /// (= the 2 GiB maximum: exactly one size); with the default cast to fp16, INT4 from 2 MiB.
    #[test]
    fn windows_from_the_table() {
        assert_eq!(window(true, false, 8, Regime::Fp, None), Some((16 * MB, 2 << 30)));
        assert_eq!(
            window(true, false, 8, Regime::Int4, None),
            Some((2 << 30, 2 << 30))
        );
        assert_eq!(window(true, true, 8, Regime::Int4, None), Some((2 * MB, 2 << 30)));
        assert_eq!(window(false, false, 4, Regime::Int8, Some(8)), None);
        assert_eq!(window(true, true, 6, Regime::Fp, None), None);
        assert!(takes(window(true, true, 8, Regime::Int4, None), 4 * MB));
        assert!(!takes(window(true, true, 8, Regime::Int4, None), 4 * MB + 8));
        assert!(!takes(window(true, true, 8, Regime::Int4, None), MB));
        assert!(Regime::parse("int4").unwrap_err().contains("Valid options"));
        assert_eq!(Regime::parse("NONE"), Ok(None));
    }
}

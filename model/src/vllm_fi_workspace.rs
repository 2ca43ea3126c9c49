//! vmemtp57 (issue #17): the FlashInfer allreduce + RMSNorm fusion workspace that vLLM allocates
//! inside its start-up profile at tp > 1 on multicast-capable (NVSwitch) Hopper / Blackwell boxes —
//! the bulk of the "non-torch forward increase" the vLLM 0.19 logs show at tp 2 – 4 on H100 SXM.
//!
//! Where it comes from (vLLM 0.19.0 wheel):
//! - `config/vllm.py` `enable_allreduce_rms_fusion`: on by default at the default optimization level
//!   (O2) when tp > 1, the platform is CUDA, FlashInfer is installed, the GPU is SM 9.0 or of the
//!   10.x family, and neither DP nor PP is used (the 0.17.0, 0.18.0 and 0.19.0 wheels carry the rule;
//!   0.12.0 – 0.16.0 set `fuse_allreduce_rms` False at every level); `--enforce-eager` turns
//!   torch.compile off, and with it the pass.
//! - `compilation/passes/fusion/allreduce_rms_fusion.py` `AllReduceFusionPass.__init__` (run when
//!   torch.compile builds its passes, i.e. in the profile run's first forward, after vLLM's
//!   `init_snapshot`): `max_size` = `FI_ALLREDUCE_FUSION_MAX_SIZE_MB[capability][tp]`
//!   ([`max_size_bytes`]), `max_token_num = min(max_size // (hidden × dtype bytes),
//!   max_num_batched_tokens)`, then `distributed/device_communicators/flashinfer_all_reduce.py`
//!   `get_fi_ar_workspace` → FlashInfer `create_allreduce_fusion_workspace(backend="trtllm")` (the
//!   quant workspace reuses it).
//! - FlashInfer 0.6.6 (the release vLLM 0.18.0 / 0.19.0 pin; 0.6.4 for 0.17.0 builds the same
//!   way) `comm/allreduce.py` `TRTLLMAllReduceFusionWorkspace` calls `comm/trtllm_ar.py`
//!   `trtllm_create_ipc_workspace_for_all_reduce_fusion(use_symm_dev_mem=True, use_fp32_lamport =
//!   dtype is float32)`: three buffers, `buffer = tp × tokens × hidden × 2`, `flag = tp × 256 × 4`,
//!   `lamport = 3 × min(tp × tokens × hidden × (2 or 4), MAX_COMM_SIZE)`, each rounded up to 2 MiB
//!   and each a `comm/mnnvl.py` `SymmDeviceMemory`: `cuMemCreate` of
//!   `round_up(round_up(size + SIGNAL_PAD_SIZE, allocation granularity), multicast granularity)`
//!   bytes on the rank's own GPU (the peers' buffers are imported, not allocated). It raises on a
//!   GPU without multicast support ("Device does not support multicasting"), which vLLM catches,
//!   warning that this "is expected on GPUs without NVSwitch (e.g., NVLink bridge-only or PCIe
//!   topologies)": no workspace there.
//!
//! The multicast granularity that rounding uses ([`MULTICAST_GRANULARITY_BYTES`]) is what makes the
//! workspace 1.5 GiB whatever the model: every buffer of the 0.19 table is below 512 MiB.

/// `CU_MULTICAST_GRANULARITY_RECOMMENDED` on the NVSwitch boxes: 512 MiB. Source: the FlashInfer
/// workspace log in sgl-project/sglang pull 18341 (mmangkad, 2026-02-07, tp 2): the unicast pointers
/// of consecutive ranks of each `SymmDeviceMemory` are 0x20000000 B apart (`uc_ptrs[i] = base +
/// allocation_size × i`, mnnvl.py `_allocate_unicast_buffers`) for buffers of 24 MiB and 2 MiB.
/// That log does not name its GPU: ASSUMED for every NVSwitch Hopper / Blackwell box. The vLLM 0.19
/// rows agree (tests/tests/vmemtp57.rs): gpt-oss-20b at tp 2 (hidden 2880: 362 MiB of buffers at a
/// 2 MiB granularity) logs the same 2.07 GiB as Llama-3.1-8B (hidden 4096: 514 MiB).
pub const MULTICAST_GRANULARITY_BYTES: u64 = 512 << 20;

/// FlashInfer 0.6.6 `comm/mnnvl.py` `SIGNAL_PAD_SIZE` (2048 B), added to each buffer before rounding.
pub const SIGNAL_PAD_BYTES: u64 = 2048;

/// FlashInfer 0.6.6 `comm/trtllm_ar.py` `BarrierFlagCount` (256 int32 flags per rank).
const BARRIER_FLAG_COUNT: u64 = 256;

/// FlashInfer 0.6.6 `comm/trtllm_ar.py` `MAX_COMM_SIZE`: `INT32_MAX` rounded down to 2 MiB.
const MAX_COMM_SIZE: u64 = 2_147_483_647 & !((1 << 21) - 1);

const TWO_MIB: u64 = 2 << 20;

/// vLLM 0.19.0 `allreduce_rms_fusion.py` `FI_ALLREDUCE_FUSION_MAX_SIZE_MB`: the largest input (bytes)
/// the fused allreduce takes, by compute capability (major × 10 + minor) and tp; `None` where the
/// table has no entry (other GPUs, tp not 2 / 4 / 8: `PassConfig.flashinfer_max_size`), and then
/// vLLM builds no workspace.
pub fn max_size_bytes(capability: u32, tp: u32) -> Option<u64> {
    const MIB: u64 = 1 << 20;
    let size = match (capability, tp) {
        (90, 2) => 64 * MIB,
        (90, 4) => 2 * MIB,
        (90, 8) => MIB / 2,
        (100, 2) => 64 * MIB,
        (100, 4) => 32 * MIB,
        (100, 8) => MIB,
        (103, 2) => 64 * MIB,
        (103, 4) => 64 * MIB,
        (103, 8) => 2 * MIB,
        _ => return None,
    };
    Some(size)
}

/// The fusion pass's `max_token_num`: `min(max_size // (hidden × dtype bytes),
/// max_num_batched_tokens)`.
pub fn max_token_num(max_size: u64, hidden: u64, dtype_bytes: u64, max_num_batched_tokens: u64) -> u64 {
    (max_size / (hidden * dtype_bytes).max(1)).min(max_num_batched_tokens)
}

fn round_up(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

/// The three buffers' requested sizes (bytes, before any rounding): (buffer, flag, lamport), as
/// `trtllm_create_ipc_workspace_for_all_reduce_fusion` computes them.
pub fn buffer_sizes(tp: u32, tokens: u64, hidden: u64, fp32: bool) -> [u64; 3] {
    let tp = u64::from(tp);
    let lamport_elem = if fp32 { 4 } else { 2 };
    let lamport_comm = (tp * tokens * hidden * lamport_elem).min(MAX_COMM_SIZE);
    [
        tp * tokens * hidden * 2,
        tp * BARRIER_FLAG_COUNT * 4,
        3 * lamport_comm,
    ]
}

/// Bytes one rank's GPU gives the workspace: each buffer rounded to 2 MiB, plus the signal pad,
/// rounded to the allocation granularity (2 MiB) and then to `mc_granularity`.
pub fn workspace_bytes(tp: u32, tokens: u64, hidden: u64, fp32: bool, mc_granularity: u64) -> u64 {
    buffer_sizes(tp, tokens, hidden, fp32)
        .iter()
        .map(|&s| {
            let aligned = round_up(s, TWO_MIB);
            round_up(
                round_up(aligned + SIGNAL_PAD_BYTES, TWO_MIB),
                mc_granularity.max(1),
            )
        })
        .sum()
}

/// The workspace of a deployment where vLLM builds it (the caller checks release, GPU family,
/// multicast, DP/PP and eager mode): `None` where the size table has no entry for
/// (`capability`, `tp`).
pub fn fusion_workspace_bytes(
    capability: u32,
    tp: u32,
    hidden: u64,
    dtype_bytes: u64,
    max_num_batched_tokens: u64,
) -> Option<u64> {
    let max_size = max_size_bytes(capability, tp)?;
    let tokens = max_token_num(max_size, hidden, dtype_bytes, max_num_batched_tokens);
    Some(workspace_bytes(
        tp,
        tokens,
        hidden,
        dtype_bytes == 4,
        MULTICAST_GRANULARITY_BYTES,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Llama-3.1-8B at tp 2 on H100 (the 0.19 log: "Maximal number of tokens used by Flashinfer
    /// Allreduce Fusion: 8192"): 64 MiB // (4096 × 2) = 8192 tokens; buffer 2 × 8192 × 4096 × 2 =
    /// 128 MiB, flag 2 KiB, lamport 3 × 128 MiB = 384 MiB: each in one 512 MiB allocation.
    #[test]
    fn llama_8b_tp2_h100() {
        assert_eq!(max_token_num(64 << 20, 4096, 2, 8192), 8192);
        assert_eq!(buffer_sizes(2, 8192, 4096, false), [128 << 20, 2048, 384 << 20]);
        assert_eq!(
            fusion_workspace_bytes(90, 2, 4096, 2, 8192),
            Some(3 * (512 << 20))
        );
        // At a 2 MiB granularity: 130 + 4 + 386 MiB (each + the pad, rounded to 2 MiB).
        assert_eq!(
            workspace_bytes(2, 8192, 4096, false, TWO_MIB),
            (130 + 4 + 386) << 20
        );
    }

    /// The logs' token counts: 70B (hidden 8192) 4096 at tp 2 and 128 at tp 4; Llama-4-Scout (5120)
    /// 204 at tp 4; Llama-3.1-8B 256 at tp 4.
    #[test]
    fn token_counts_of_the_logs() {
        assert_eq!(max_token_num(64 << 20, 8192, 2, 8192), 4096);
        assert_eq!(max_token_num(2 << 20, 8192, 2, 8192), 128);
        assert_eq!(max_token_num(2 << 20, 5120, 2, 8192), 204);
        assert_eq!(max_token_num(2 << 20, 4096, 2, 8192), 256);
        assert_eq!(max_size_bytes(89, 2), None);
        assert_eq!(max_size_bytes(90, 3), None);
    }
}

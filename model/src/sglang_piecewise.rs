//! SGLang's `--enable-piecewise-cuda-graph` reserve (issue #17 point 5), SGLang 0.5.9
//! `srt/server_args.py`: the capture sizes `_generate_piecewise_cuda_graph_tokens` lists up to
//! `piecewise_cuda_graph_max_tokens` (default: `chunked_prefill_size`, or 2048 with an MLA attention
//! backend), and the default `mem_fraction_static` reserves 8 MiB of non-torch memory per size
//! (`reserved_mem += len(piecewise_cuda_graph_tokens) * 8`, before the 10 GiB floor of cards above
//! 60 GiB). SGLang 0.5.23 (`arg_groups/memory_hook.py` `reserve_for_graph_mb`) keeps 8 MiB per size
//! for non-MLA models but reserves a flat 1.5 GiB for MLA and caps MLA capture at min(8192,
//! chunked_prefill_size); that newer rule is [`piecewise_reserve_mib_0_5_23`].

/// SGLang 0.5.9's piecewise capture sizes up to `max_tokens`: 4–32 by 4, 48–256 by 16, 288–512 by
/// 32, 576–1024 by 64, 1280–4096 by 256, 4608–`max_tokens` by 512.
pub fn piecewise_capture_tokens(max_tokens: u64) -> Vec<u64> {
    let ranges: [(u64, u64, u64); 6] = [
        (4, 32, 4),
        (48, 256, 16),
        (288, 512, 32),
        (576, 1024, 64),
        (1280, 4096, 256),
        (4608, max_tokens, 512),
    ];
    ranges
        .iter()
        .flat_map(|&(lo, hi, step)| (lo..=hi).step_by(step as usize))
        .filter(|&t| t <= max_tokens)
        .collect()
}

/// `piecewise_cuda_graph_max_tokens`' default (0.5.9): `chunked_prefill_size`, or 2048 for MLA.
pub fn piecewise_max_tokens(chunked_prefill_size: u64, mla: bool) -> u64 {
    if mla { 2048 } else { chunked_prefill_size }
}

/// The reserve (MiB) SGLang 0.5.9 adds for piecewise CUDA graphs: 8 MiB per capture size.
pub fn piecewise_reserve_mib(chunked_prefill_size: u64, mla: bool) -> f64 {
    8.0 * piecewise_capture_tokens(piecewise_max_tokens(chunked_prefill_size, mla)).len() as f64
}

/// SGLang 0.5.23's prefill-graph reserve: 8 MiB per size up to `chunked_prefill_size` without MLA,
/// a flat 1.5 GiB with MLA.
pub fn piecewise_reserve_mib_0_5_23(chunked_prefill_size: u64, mla: bool) -> f64 {
    if mla {
        1.5 * 1024.0
    } else {
        8.0 * piecewise_capture_tokens(chunked_prefill_size).len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_sizes_and_reserves() {
        // Up to 8192: 8 + 14 + 8 + 8 + 12 + 8 = 58 sizes → 464 MiB; MLA (2048): 8 + 14 + 8 + 8 + 4 = 42
        // → 336 MiB; 0.5.23 MLA: 1536 MiB.
        let t = piecewise_capture_tokens(8192);
        assert_eq!(t.len(), 58);
        assert_eq!((t[0], t[7], t[8], t[57]), (4, 32, 48, 8192));
        assert!((piecewise_reserve_mib(8192, false) - 464.0).abs() < 1e-9);
        assert!((piecewise_reserve_mib(8192, true) - 336.0).abs() < 1e-9);
        assert!((piecewise_reserve_mib_0_5_23(8192, true) - 1536.0).abs() < 1e-9);
        // chunked 2048 (cards < 35 GiB): 42 sizes.
        assert_eq!(piecewise_capture_tokens(2048).len(), 42);
    }
}

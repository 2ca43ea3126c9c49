//! marlin (issue #17): the tensors vLLM 0.19.0 allocates and frees for one int4 group-quantized
//! linear layer, GPTQ (`gptq_marlin.py`) or AWQ (`awq_marlin.py`), and the kernel that processes
//! them after loading (`kernels/linear/__init__.py` `choose_mp_linear_kernel`). Each step is read
//! off the Python source; temporaries of a few hundred bytes (index lists, `shifts`) are left out:
//! the small pool they come from returns them whole. w4a16_60: the kernel by release
//! ([`Int4Rules`], `llm::vllm_w4a16`), and AWQ's direct Marlin repack of vLLM ≤ 0.17.

use super::{Int4Sizes, Post, QuantTensors};
use crate::llm::vllm_w4a16::Int4Rules;

/// The mixed-precision kernel vLLM 0.19.0 picks for an int4 layer with fp16/bf16 activations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Int4Kernel {
    /// CUTLASS Machete (`mixed_precision/machete.py`): Hopper only.
    Machete,
    /// Marlin (`mixed_precision/marlin.py`): every other NVIDIA GPU from SM 7.5.
    Marlin,
}

/// The GPU a vLLM load runs on, as far as the int4 kernel choice needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadGpu {
    /// Compute capability as [`crate::hw::sm_version`] gives it (90 = Hopper).
    pub sm_version: u32,
    /// Streaming multiprocessors (`num_compute_units`; Marlin's workspace has one int32 each).
    pub sm_count: u32,
    /// Whether vLLM runs on CUDA: on ROCm `_POSSIBLE_KERNELS` has neither Machete nor Marlin
    /// (`gptq_marlin` / `awq_marlin` are not taken), and int4 layers are not modelled.
    pub cuda: bool,
    /// w4a16_60: the vLLM release's W4A16 rules (0.19.0's unless [`LoadGpu::with_int4_rules`]).
    pub int4: Int4Rules,
}

impl LoadGpu {
    /// An NVIDIA GPU of `spec` (CUDA).
    pub fn nvidia(spec: &crate::hw::GpuSpec) -> LoadGpu {
        LoadGpu {
            sm_version: crate::hw::sm_version(&spec.compute_capability),
            sm_count: spec.sm_count,
            cuda: true,
            int4: Int4Rules::default(),
        }
    }

    /// This GPU under the W4A16 rules `int4` of another vLLM release.
    pub fn with_int4_rules(self, int4: Int4Rules) -> LoadGpu {
        LoadGpu { int4, ..self }
    }

    /// An AMD GPU of `spec` (ROCm).
    pub fn rocm(spec: &crate::hw::GpuSpec) -> LoadGpu {
        LoadGpu {
            cuda: false,
            ..LoadGpu::nvidia(spec)
        }
    }
}

impl Int4Kernel {
    /// The kernel vLLM (the release of `gpu.int4`) runs for an int4 layer of `group` elements per
    /// scale, with zero points (`zero_point`: AWQ) or not (symmetric GPTQ), `in_features` ×
    /// `out_features` a rank; `None` where its memory is not modelled (ROCm, a GPU below Marlin's
    /// minimum capability or a group Marlin rejects: the checkpoint's own `awq` / `gptq` kernels).
    /// vLLM ≥ 0.19 (GPTQ: every release read) takes the first of `_POSSIBLE_KERNELS[CUDA]` that can
    /// implement the layer: `CutlassW4A8LinearKernel` needs fp8 activations and
    /// `AllSparkLinearKernel` 8-bit weights without groups (`allspark_utils.py`), so Machete where
    /// [`Int4Rules::machete_supports`] (0.19: SM 9.0 exactly, groups 64 / 128, tile-multiple shape),
    /// else Marlin. AWQ before 0.19 calls Marlin directly ([`Int4Kernel::Marlin`]).
    pub fn vllm(
        gpu: &LoadGpu,
        group: u32,
        zero_point: bool,
        in_features: u64,
        out_features: u64,
    ) -> Option<Int4Kernel> {
        let r = &gpu.int4;
        if !gpu.cuda || !r.marlin_supports(gpu.sm_version, group) {
            None
        } else if (!zero_point || r.awq_chooser)
            && r.machete_supports(gpu.sm_version, group, zero_point, in_features, out_features)
        {
            Some(Int4Kernel::Machete)
        } else {
            Some(Int4Kernel::Marlin)
        }
    }
}

/// A GPTQ checkpoint (`GPTQMarlinLinearMethod.create_weights`; symmetric only: `gptq_marlin`'s
/// `TYPE_MAP` has no zero-point types): `qweight` int32 `[in / 8, out]`, `g_idx` int32 `[in]` of
/// `g_idx` bytes, then `qzeros` and `scales` (the dicts holding their `torch.empty` are built in that
/// order; the parameters are registered scales first), numbered 0 to 3. Act-order (`desc_act`)
/// checkpoints are not modelled: `g_idx` is taken as unused.
pub(super) fn gptq(s: &Int4Sizes, g_idx: u64, kernel: Int4Kernel) -> QuantTensors {
    let tensors = vec![s.packed, g_idx, s.zeros, s.scales];
    match kernel {
        // `MacheteLinearKernel.process_weights_after_loading`: `x.data.t().contiguous()` (4), its
        // `machete_prepack_B` result (5); the argument is freed when the call returns, the old
        // `qweight` when `x.data` is replaced. Scales: `.contiguous()` copies nothing; `g_idx` and
        // `qzeros` stay.
        Int4Kernel::Machete => QuantTensors {
            tensors,
            extra: g_idx.saturating_add(s.zeros),
            post: machete_qweight(0, 4, s.packed),
        },
        // `MarlinLinearKernel.process_weights_after_loading`: the workspace (4); `g_idx` and
        // `qzeros` replaced by empty tensors (`marlin_make_empty_g_idx`, 0 bytes: the allocator
        // hands out nothing); `gptq_marlin_repack` into a tensor of `[in / 16, out × 2]` int32, the
        // same bytes (5), the old freed; `marlin_permute_scales` indexes the scales into a new
        // tensor (6; `.contiguous()` of its reshape copies nothing), the old freed.
        Int4Kernel::Marlin => QuantTensors {
            tensors,
            extra: s.workspace,
            post: vec![
                Post::New(s.workspace),
                Post::Drop(1),
                Post::Drop(2),
                Post::New(s.packed),
                Post::Drop(0),
                Post::New(s.scales),
                Post::Drop(3),
            ],
        },
    }
}

/// Machete's repack of the packed weight `old` of `p` bytes, the layer's next tensor numbered
/// `next`: the transposed copy and the packed result, the copy freed, then the old weight.
fn machete_qweight(old: usize, next: usize, p: u64) -> Vec<Post> {
    vec![Post::New(p), Post::New(p), Post::Drop(next), Post::Drop(old)]
}

/// An AWQ checkpoint (`AWQMarlinLinearMethod.create_weights`, no `g_idx`): `qweight` int32
/// `[in, out / 8]`, `qzeros` int32 `[in / group, out / 8]`, `scales` `[in / group, out]` (0 to 2).
/// After loading, `_convert_awq_to_standard_format` repacks both packed tensors along the other
/// dimension through int32 temporaries of 8 × their bytes, then the kernel processes them.
pub(super) fn awq(s: &Int4Sizes, kernel: Int4Kernel, chooser: bool) -> QuantTensors {
    if !chooser {
        return awq_direct_marlin(s);
    }
    let mut post = Vec::new();
    let (p, z) = (s.packed, s.zeros);
    // qweight: `(qw.unsqueeze(-1) >> shifts)` (3) `& mask` (4), 3 freed; `[:, :, reverse_order]`
    // (5), 4 freed; the reshapes are views and `.to(torch.int32)` returns the tensor itself;
    // `<< shifts` (6), `.sum(dim=1)` the new qweight (7), 6 freed. The old qweight is held by the
    // local `qw` until the function returns.
    post.extend([
        Post::New(8 * p),
        Post::New(8 * p),
        Post::Drop(3),
        Post::New(8 * p),
        Post::Drop(4),
        Post::New(8 * p),
        Post::New(p),
        Post::Drop(6),
    ]);
    // qzeros: the same (8, 9; 10), then `.T.reshape(…)` of the transposed view copies (11), 10
    // freed; `<< shifts` (12), `.sum` the new qzeros (13), 12 freed.
    post.extend([
        Post::New(8 * z),
        Post::New(8 * z),
        Post::Drop(8),
        Post::New(8 * z),
        Post::Drop(9),
        Post::New(8 * z),
        Post::Drop(10),
        Post::New(8 * z),
        Post::New(z),
        Post::Drop(12),
    ]);
    // The function returns: its locals are released in the order they were bound (`qw`,
    // `unpacked`, `qz`, `unpacked_zp`).
    post.extend([Post::Drop(0), Post::Drop(5), Post::Drop(1), Post::Drop(11)]);
    let (qweight, qzeros, scales) = (7, 13, 2);
    let extra = match kernel {
        Int4Kernel::Marlin => {
            // The workspace (14); no `g_idx` (an empty one is set). Zero points:
            // `unpack_cols(x.t())` comes back from the host as int32 `[in / group, out]` (15);
            // `marlin_zero_points` indexes it by `scale_perm` (16) and by `interleave` (17; 16
            // freed), `pack_cols` returns the packed result (18); 17 is freed on return, 15 after the
            // call, the converted qzeros when replaced. Then qweight and scales as for GPTQ.
            post.extend([
                Post::New(s.workspace),
                Post::New(8 * z),
                Post::New(8 * z),
                Post::New(8 * z),
                Post::Drop(16),
                Post::New(z),
                Post::Drop(17),
                Post::Drop(15),
                Post::Drop(qzeros),
                Post::New(p),
                Post::Drop(qweight),
                Post::New(s.scales),
                Post::Drop(scales),
            ]);
            s.workspace
        }
        Int4Kernel::Machete => {
            // qweight as for GPTQ (14, 15). Zero points (`transform_w_zp`):
            // `unpack_quantized_values_into_int32` fills `torch.zeros` int32 `[in / group, out]`
            // (16) with eight `(w >> k) & mask` slices, each two `qzeros`-sized temporaries; then
            // `-1.0 * w_s` (A), `x_unpacked.to(dtype)` (B), their product (C): A and B freed, the
            // converted qzeros replaced by C, 16 freed on return. The zero points are kept as
            // scales-sized tensors in the model dtype.
            post.extend(machete_qweight(qweight, 14, p));
            post.push(Post::New(8 * z));
            let mut n = 17;
            for _ in 0..8 {
                post.extend([Post::New(z), Post::New(z), Post::Drop(n), Post::Drop(n + 1)]);
                n += 2;
            }
            post.extend([
                Post::New(s.scales),
                Post::New(s.scales),
                Post::New(s.scales),
                Post::Drop(n),
                Post::Drop(n + 1),
                Post::Drop(qzeros),
                Post::Drop(16),
            ]);
            s.scales.saturating_sub(z)
        }
    };
    QuantTensors {
        tensors: vec![p, z, s.scales],
        extra,
        post,
    }
}

/// w4a16_60: an AWQ layer under vLLM ≤ 0.17's `AWQMarlinLinearMethod.process_weights_after_loading`
/// (0.17.0 `awq_marlin.py`), Marlin without the GPTQ-format conversion: `qweight` (0), `qzeros` (1),
/// `scales` (2); the workspace (3); `awq_marlin_repack` (4), the old qweight freed; `marlin_permute_scales`
/// (5), the old scales freed; `awq_to_marlin_zero_points`: `unpack_cols` int32 `[in / group, out]`
/// (6), the undo-interleave index (7; 6 freed when `q_zp` is rebound), `marlin_zero_points`' scale-perm
/// index (8) and interleave index (9; 8 freed), `pack_cols` (10); 9 freed on return, 7 on the outer
/// return, then the old qzeros when replaced. Held beyond the checkpoint: the workspace.
fn awq_direct_marlin(s: &Int4Sizes) -> QuantTensors {
    let (p, z) = (s.packed, s.zeros);
    QuantTensors {
        tensors: vec![p, z, s.scales],
        extra: s.workspace,
        post: vec![
            Post::New(s.workspace),
            Post::New(p),
            Post::Drop(0),
            Post::New(s.scales),
            Post::Drop(2),
            Post::New(8 * z),
            Post::New(8 * z),
            Post::Drop(6),
            Post::New(8 * z),
            Post::New(8 * z),
            Post::Drop(8),
            Post::New(z),
            Post::Drop(9),
            Post::Drop(7),
            Post::Drop(1),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(sm_version: u32, cuda: bool) -> LoadGpu {
        LoadGpu {
            sm_version,
            sm_count: 128,
            cuda,
            int4: Int4Rules::default(),
        }
    }

    /// `MacheteLinearKernel.can_implement`: `is_device_capability(90)` and groups 64 / 128 with
    /// 16-bit activations; Marlin takes the rest (machete.py, marlin.py, vLLM 0.19.0).
    #[test]
    fn machete_on_hopper_only() {
        let k = |g: &LoadGpu, group: u32| Int4Kernel::vllm(g, group, false, 4096, 6144);
        assert_eq!(k(&gpu(90, true), 128), Some(Int4Kernel::Machete));
        assert_eq!(k(&gpu(90, true), 64), Some(Int4Kernel::Machete));
        assert_eq!(k(&gpu(90, true), 32), Some(Int4Kernel::Marlin));
        for sm in [80, 86, 89, 100, 120] {
            assert_eq!(k(&gpu(sm, true), 128), Some(Int4Kernel::Marlin));
        }
        assert_eq!(k(&gpu(94, false), 128), None);
        // w4a16_60: a Marlin-rejected group (256) and a Volta card run the checkpoint's own kernels.
        assert_eq!(k(&gpu(90, true), 256), None);
        assert_eq!(k(&gpu(70, true), 128), None);
    }

    /// w4a16_60: by release (`vllm_w4a16`): AWQ on Hopper is Marlin before 0.19 (no chooser), Machete
    /// from 0.19; SM 7.5 has Marlin from 0.14.0 (80 before); SM 12.0 took Machete up to 0.9.2.
    #[test]
    fn kernel_by_release() {
        let at = |sm: u32, v: &[u64]| gpu(sm, true).with_int4_rules(Int4Rules::vllm(v));
        assert_eq!(
            Int4Kernel::vllm(&at(90, &[0, 17, 0]), 128, true, 4096, 6144),
            Some(Int4Kernel::Marlin)
        );
        assert_eq!(
            Int4Kernel::vllm(&at(90, &[0, 19, 0]), 128, true, 4096, 6144),
            Some(Int4Kernel::Machete)
        );
        assert_eq!(
            Int4Kernel::vllm(&at(75, &[0, 13, 0]), 128, false, 4096, 6144),
            None
        );
        assert_eq!(
            Int4Kernel::vllm(&at(75, &[0, 14, 0]), 128, false, 4096, 6144),
            Some(Int4Kernel::Marlin)
        );
        assert_eq!(
            Int4Kernel::vllm(&at(120, &[0, 9, 2]), 128, false, 4096, 6144),
            Some(Int4Kernel::Machete)
        );
        assert_eq!(
            Int4Kernel::vllm(&at(120, &[0, 10, 1]), 128, false, 4096, 6144),
            Some(Int4Kernel::Marlin)
        );
    }

    /// w4a16_60: AWQ's direct Marlin path (≤ 0.17) holds the same bytes as the checkpoint plus the
    /// workspace; its largest transient is the unpacked zero points (8 × qzeros), 11 allocations,
    /// every temporary freed.
    #[test]
    fn awq_direct_marlin_steps() {
        let s = Int4Sizes {
            packed: 100,
            zeros: 10,
            scales: 20,
            workspace: 512,
        };
        let q = awq(&s, Int4Kernel::Marlin, false);
        assert_eq!((q.tensors.clone(), q.extra), (vec![100, 10, 20], 512));
        let news: Vec<u64> = q
            .post
            .iter()
            .filter_map(|p| if let Post::New(b) = p { Some(*b) } else { None })
            .collect();
        assert_eq!(news, vec![512, 100, 20, 80, 80, 80, 80, 10]);
        // 3 created + 8 new = 11 tensors; kept: workspace, qweight, scales, qzeros → 7 freed.
        assert_eq!(q.post.iter().filter(|p| matches!(p, Post::Drop(_))).count(), 7);
    }

    /// GPTQ under Marlin: 4 created, the workspace, `g_idx` and `qzeros` freed, the packed weight and
    /// scales replaced; only the workspace is held beyond the checkpoint.
    #[test]
    fn gptq_marlin_steps() {
        let s = Int4Sizes {
            packed: 100,
            zeros: 10,
            scales: 20,
            workspace: 512,
        };
        let q = gptq(&s, 40, Int4Kernel::Marlin);
        assert_eq!(q.tensors, vec![100, 40, 10, 20]);
        assert_eq!(q.extra, 512);
        assert_eq!(q.post.iter().filter(|p| matches!(p, Post::Drop(_))).count(), 4);
        let m = gptq(&s, 40, Int4Kernel::Machete);
        assert_eq!(m.extra, 50);
    }
}

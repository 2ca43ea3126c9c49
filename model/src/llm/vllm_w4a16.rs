//! w4a16_60 (issue #17): vLLM's handling of a W4A16 checkpoint (AWQ or GPTQ, 4-bit with group scales)
//! by release — the quantization method it runs, the mixed-precision linear kernel, its log lines and
//! its refusals. Read in the vLLM wheels 0.8.0 – 0.34.0 (`model_executor/layers/quantization/`):
//!
//! - **Conversion.** Up to 0.23 an AWQ checkpoint runs `awq_marlin` when `is_awq_marlin_compatible`
//!   (`awq_marlin.py`: CUDA, 4 bits, `check_marlin_supported` — the GPU at or above Marlin's minimum
//!   capability, the group one of `MARLIN_SUPPORTED_GROUP_SIZES` = −1, 32, 64, 128, zero points for
//!   the `uint4` type), logging "The model is convertible to awq_marlin during runtime. Using
//!   awq_marlin kernel."; else `awq` (`awq.py`). From 0.24 `auto_awq.py` replaces both (`get_name`
//!   "auto_awq", no conversion line) and runs Marlin when `check_marlin_supported`, else its own AWQ
//!   kernels. A GPTQ checkpoint runs `gptq_marlin` up to 0.21 when `is_gptq_marlin_compatible`
//!   (symmetric: `TYPE_MAP` has only `uint4b8`; the same group and capability checks), with the same
//!   log line, else `gptq` (`gptq.py`, ExLlama v2); from 0.22 `auto_gptq.py` ("auto_gptq") hands every
//!   layer to `choose_mp_linear_kernel`.
//! - **Marlin's minimum capability** (`utils/marlin_utils.py` `query_marlin_supported_quant_types`,
//!   `MarlinLinearKernel.get_min_capability`): 80 up to 0.13.0, 75 from 0.14.0.
//! - **The kernel** (`choose_mp_linear_kernel`, `kernels/mixed_precision/__init__.py` to 0.15,
//!   `kernels/linear/__init__.py` from 0.17): the first of `_POSSIBLE_KERNELS` (CUTLASS W4A8 — fp8
//!   activations only —, Machete, AllSpark — 8-bit only —, Marlin, …) that can implement the layer.
//!   Machete (`mixed_precision/machete.py`, min capability 90): up to 0.9.0 no zero points ("Zero
//!   points currently not supported by Machete") and groups −1 / 128 (`MACHETE_SUPPORTED_GROUP_SIZES`);
//!   from 0.9.2 zero points and groups −1 / 64 / 128 (`query_machete_supported_group_sizes`); up to
//!   0.9.2 any GPU of capability ≥ 90 (SM 10.0 and 12.0 included), from 0.10.1 exactly 9.0
//!   (`is_device_capability(90)`); the partition's input features a multiple of 64 and output
//!   features of 128 (`check_machete_supports_shape`, `MACHETE_PREPACKED_BLOCK_SHAPE`). 0.9.1 and
//!   0.10.0 were not read: tpsim gives them the earlier release's rule.
//! - **AWQ's linear method** (`AWQMarlinLinearMethod`): up to 0.17 it calls Marlin directly
//!   (`awq_marlin_repack`; no `choose_mp_linear_kernel`, no "Using … for" line); from 0.19 it goes
//!   through `choose_mp_linear_kernel` and logs "Using MacheteLinearKernel for AWQMarlinLinearMethod"
//!   (0.18 was not read: tpsim gives it 0.17's rule). GPTQ's logs "Using %s for
//!   GPTQMarlinLinearMethod" in every release read (AutoGPTQ's "… for AutoGPTQLinearMethod" from 0.22).
//! - **Refusals** (`config/vllm.py` `_get_quantization_config`, 0.19.0; the same text in the earlier
//!   `model_loader` / `config.py`): "The quantization method awq is not supported for the current
//!   GPU. Minimum capability: 75. Current capability: 70." (`awq` and `auto_awq` need 75, `gptq` 60,
//!   the Marlin methods Marlin's minimum) and "torch.bfloat16 is not supported for quantization method
//!   awq. Supported dtypes: [torch.float16]" (`awq` and `gptq` run fp16 only; the Marlin methods and
//!   the `auto_` ones fp16 and bf16).
//!
//! Releases before 0.8.0 were not read: they get 0.8.0's rules.
//!
//! Not modelled: act-order (`desc_act`) GPTQ checkpoints, whose partitioned `g_idx` keeps Machete off
//! row-parallel layers; GPTQ's conversion needing `sym` and `desc_act` spelled out in the config
//! (tpsim reads an absent `sym` as symmetric); the MoE method (`AWQMarlinMoEMethod` /
//! `GPTQMarlinMoEMethod` against `moe_wna16`); ROCm's kernels.

/// The W4A16 rules of one vLLM release (see the module doc), on CUDA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Int4Rules {
    /// Marlin's minimum compute capability (`sm_version` form: 80, 75).
    pub marlin_min_sm: u32,
    /// Machete takes layers with zero points (AWQ); from 0.9.2.
    pub machete_zero_points: bool,
    /// Machete takes group 64 besides 128; from 0.9.2.
    pub machete_group_64: bool,
    /// Machete only on SM 9.0 exactly; from 0.10.1 (before: any SM ≥ 9.0).
    pub machete_sm90_only: bool,
    /// AWQ layers go through `choose_mp_linear_kernel` (from 0.19); before, straight to Marlin.
    pub awq_chooser: bool,
    /// AWQ runs `auto_awq` (from 0.24), GPTQ `auto_gptq` (from 0.22): no conversion line.
    pub auto_awq: bool,
    /// GPTQ runs `auto_gptq` (from 0.22).
    pub auto_gptq: bool,
}

impl Default for Int4Rules {
    /// vLLM 0.19.0's rules (the release the int4 load order was read in).
    fn default() -> Self {
        Int4Rules::vllm(&[0, 19, 0])
    }
}

impl Int4Rules {
    /// The rules of vLLM `release` (`[major, minor, patch]`; an empty slice: the newest read, 0.34).
    pub fn vllm(release: &[u64]) -> Int4Rules {
        let at_least = |mm: [u64; 3]| release.is_empty() || release >= mm.as_slice();
        Int4Rules {
            marlin_min_sm: if at_least([0, 14, 0]) { 75 } else { 80 },
            machete_zero_points: at_least([0, 9, 2]),
            machete_group_64: at_least([0, 9, 2]),
            machete_sm90_only: at_least([0, 10, 1]),
            awq_chooser: at_least([0, 19, 0]),
            auto_awq: at_least([0, 24, 0]),
            auto_gptq: at_least([0, 22, 0]),
        }
    }

    /// Whether Marlin takes `group` on SM `sm` (`check_marlin_supported`): the capability and
    /// `MARLIN_SUPPORTED_GROUP_SIZES` (−1 is not a group tpsim reads; 32, 64, 128).
    pub fn marlin_supports(&self, sm: u32, group: u32) -> bool {
        sm >= self.marlin_min_sm && matches!(group, 32 | 64 | 128)
    }

    /// Whether Machete can implement a layer of `group`, with or without zero points, on SM `sm`,
    /// `in_features` × `out_features` a rank (`MacheteLinearKernel.can_implement`).
    pub fn machete_supports(
        &self,
        sm: u32,
        group: u32,
        zero_points: bool,
        in_features: u64,
        out_features: u64,
    ) -> bool {
        let sm_ok = if self.machete_sm90_only {
            sm == 90
        } else {
            sm >= 90
        };
        let group_ok = group == 128 || (group == 64 && self.machete_group_64);
        sm_ok
            && group_ok
            && (!zero_points || self.machete_zero_points)
            && in_features.is_multiple_of(64)
            && out_features.is_multiple_of(128)
    }
}

/// The W4A16 checkpoint's format, as its `quantization_config.quant_method` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum W4a16Checkpoint {
    /// AutoAWQ (`quant_method = "awq"`): zero points.
    Awq,
    /// GPTQ (`quant_method = "gptq"`); `zero_point` when asymmetric (`sym = false`).
    Gptq,
}

/// w4a16cost61: the kernel that runs a W4A16 checkpoint's linear layers ([`W4a16Method::kernel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum W4a16Kernel {
    /// `MacheteLinearKernel` (CUTLASS, SM 9.0).
    Machete,
    /// Marlin (`MarlinLinearKernel`, or AWQ's direct `awq_marlin_repack` path up to 0.17).
    Marlin,
    /// The checkpoint's own unconverted kernels (`awq`'s AWQ GEMM, `gptq`'s ExLlama v2).
    Unconverted,
}

impl W4a16Kernel {
    /// Lower-case name (`machete`, `marlin`, `unconverted`), as in tests/data/w4a16-kernels.tsv.
    pub fn name(self) -> &'static str {
        match self {
            W4a16Kernel::Machete => "machete",
            W4a16Kernel::Marlin => "marlin",
            W4a16Kernel::Unconverted => "unconverted",
        }
    }
}

/// What vLLM runs for a W4A16 checkpoint ([`vllm_method`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct W4a16Method {
    /// The quantization method vLLM settles on (`awq_marlin`, `gptq_marlin`, `awq`, `gptq`,
    /// `auto_awq`, `auto_gptq`).
    pub method: &'static str,
    /// Whether the linear layers run a Marlin-family kernel (Marlin or, on Hopper, Machete) rather
    /// than the checkpoint's own unconverted kernels (AWQ GEMM, ExLlama v2).
    pub marlin_family: bool,
    /// w4a16cost61: the linear kernel of the first quantized layer: Machete where the release's
    /// chooser picks it, else Marlin for the Marlin family, else the unconverted kernels.
    pub kernel: W4a16Kernel,
    /// vLLM's INFO lines about the choice, verbatim (without the logger prefix).
    pub log: Vec<String>,
}

/// The method vLLM `rules` runs for a `ckpt` checkpoint of `group` elements per scale (`zero_point`:
/// the checkpoint stores zero points) on SM `sm` with activations in bf16 (`bf16`) or fp16, the first
/// quantized linear being `in_features` × `out_features` on a rank (for the kernel line); or vLLM's
/// refusal, verbatim.
pub fn vllm_method(
    rules: &Int4Rules,
    ckpt: W4a16Checkpoint,
    group: u32,
    zero_point: bool,
    sm: u32,
    bf16: bool,
    first_layer: (u64, u64),
) -> Result<W4a16Method, String> {
    let marlin = rules.marlin_supports(sm, group);
    let (method, min_sm, fp16_only, convertible) = match ckpt {
        // AWQ's `TYPE_MAP` is `uint4`, which Marlin takes with zero points only.
        W4a16Checkpoint::Awq if rules.auto_awq => ("auto_awq", 75, false, false),
        W4a16Checkpoint::Awq if marlin && zero_point => ("awq_marlin", rules.marlin_min_sm, false, true),
        W4a16Checkpoint::Awq => ("awq", 75, true, false),
        W4a16Checkpoint::Gptq if rules.auto_gptq => ("auto_gptq", 60, false, false),
        W4a16Checkpoint::Gptq if marlin && !zero_point => ("gptq_marlin", rules.marlin_min_sm, false, true),
        W4a16Checkpoint::Gptq => ("gptq", 60, true, false),
    };
    if sm < min_sm {
        return Err(format!(
            "The quantization method {method} is not supported for the current GPU. Minimum capability: \
             {min_sm}. Current capability: {sm}."
        ));
    }
    if fp16_only && bf16 {
        return Err(format!(
            "torch.bfloat16 is not supported for quantization method {method}. Supported dtypes: \
             [torch.float16]"
        ));
    }
    let mut log = Vec::new();
    if convertible {
        log.push(format!(
            "The model is convertible to {method} during runtime. Using {method} kernel."
        ));
    }
    let marlin_family = match ckpt {
        W4a16Checkpoint::Awq => marlin && zero_point,
        W4a16Checkpoint::Gptq if rules.auto_gptq => {
            marlin || rules.machete_supports(sm, group, zero_point, first_layer.0, first_layer.1)
        }
        W4a16Checkpoint::Gptq => marlin && !zero_point,
    };
    let linear_method = match (ckpt, rules.auto_awq, rules.auto_gptq) {
        (W4a16Checkpoint::Awq, true, _) => "AutoAWQMarlinLinearMethod",
        (W4a16Checkpoint::Awq, false, _) => "AWQMarlinLinearMethod",
        (W4a16Checkpoint::Gptq, _, true) => "AutoGPTQLinearMethod",
        (W4a16Checkpoint::Gptq, _, false) => "GPTQMarlinLinearMethod",
    };
    let chooser = match ckpt {
        W4a16Checkpoint::Awq => rules.awq_chooser,
        W4a16Checkpoint::Gptq => true,
    };
    let (k, n) = first_layer;
    let kernel = match (
        marlin_family,
        chooser && rules.machete_supports(sm, group, zero_point, k, n),
    ) {
        (false, _) => W4a16Kernel::Unconverted,
        (true, true) => W4a16Kernel::Machete,
        (true, false) => W4a16Kernel::Marlin,
    };
    if marlin_family && chooser {
        let name = match kernel {
            W4a16Kernel::Machete => "MacheteLinearKernel",
            _ => "MarlinLinearKernel",
        };
        // `auto_awq`'s linear method logs the kernel too (0.24 – 0.34 `auto_awq.py`).
        log.push(format!("Using {name} for {linear_method}"));
    }
    Ok(W4a16Method {
        method,
        marlin_family,
        kernel,
        log,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use W4a16Checkpoint::{Awq, Gptq};

    /// Llama-3.1-8B's `qkv_proj` at tp 1: 4,096 in, 6,144 out (both tile multiples).
    const QKV: (u64, u64) = (4096, 6144);

    /// The rules by release (module doc): Marlin 80 → 75 at 0.14.0; Machete's zero points and group
    /// 64 at 0.9.2, its exact SM 9.0 at 0.10.1; AWQ through the chooser at 0.19; `auto_gptq` at
    /// 0.22, `auto_awq` at 0.24.
    #[test]
    fn rules_by_release() {
        let r = |v: &[u64]| Int4Rules::vllm(v);
        assert_eq!(r(&[0, 13, 0]).marlin_min_sm, 80);
        assert_eq!(r(&[0, 14, 0]).marlin_min_sm, 75);
        assert!(!r(&[0, 9, 0]).machete_zero_points && r(&[0, 9, 2]).machete_zero_points);
        assert!(!r(&[0, 9, 2]).machete_sm90_only && r(&[0, 10, 1]).machete_sm90_only);
        assert!(!r(&[0, 17, 0]).awq_chooser && r(&[0, 19, 0]).awq_chooser);
        assert!(!r(&[0, 21, 0]).auto_gptq && r(&[0, 22, 0]).auto_gptq);
        assert!(!r(&[0, 23, 0]).auto_awq && r(&[0, 24, 0]).auto_awq);
        assert_eq!(Int4Rules::default(), r(&[0, 19, 0]));
    }

    /// engine-memory.tsv line 36 (vLLM 0.19.0, Llama-3.1-8B W4A16 GPTQ, H100) logs the conversion and
    /// "Using MacheteLinearKernel for GPTQMarlinLinearMethod"; the same checkpoint on an A100 runs
    /// Marlin; on a V100 (SM 7.0) vLLM 0.19 falls back to `gptq` (ExLlama), fp16 only.
    #[test]
    fn gptq_by_gpu_at_0_19() {
        let r = Int4Rules::vllm(&[0, 19, 0]);
        let h100 = vllm_method(&r, Gptq, 128, false, 90, false, QKV).unwrap();
        assert_eq!(h100.method, "gptq_marlin");
        assert_eq!(
            h100.log,
            vec![
                "The model is convertible to gptq_marlin during runtime. Using gptq_marlin kernel."
                    .to_string(),
                "Using MacheteLinearKernel for GPTQMarlinLinearMethod".to_string(),
            ]
        );
        let a100 = vllm_method(&r, Gptq, 128, false, 80, false, QKV).unwrap();
        assert_eq!(a100.log[1], "Using MarlinLinearKernel for GPTQMarlinLinearMethod");
        let v100 = vllm_method(&r, Gptq, 128, false, 70, false, QKV).unwrap();
        assert_eq!(
            (v100.method, v100.marlin_family, v100.log.len()),
            ("gptq", false, 0)
        );
        assert_eq!(
            vllm_method(&r, Gptq, 128, false, 70, true, QKV).unwrap_err(),
            "torch.bfloat16 is not supported for quantization method gptq. Supported dtypes: [torch.float16]"
        );
    }

    /// AWQ on a V100 (SM 7.0): below `awq`'s 75 in every release; `auto_awq` from 0.24. On a Turing
    /// card (SM 7.5) 0.13 has no Marlin (80) and runs `awq`, 0.14 converts.
    #[test]
    fn awq_refusals_and_turing() {
        let v100 = vllm_method(&Int4Rules::vllm(&[0, 19, 0]), Awq, 128, true, 70, false, QKV);
        assert_eq!(
            v100.unwrap_err(),
            "The quantization method awq is not supported for the current GPU. Minimum capability: 75. \
             Current capability: 70."
        );
        let new = vllm_method(&Int4Rules::vllm(&[0, 34, 0]), Awq, 128, true, 70, false, QKV);
        assert!(
            new.unwrap_err()
                .starts_with("The quantization method auto_awq is not supported")
        );
        let t13 = vllm_method(&Int4Rules::vllm(&[0, 13, 0]), Awq, 128, true, 75, false, QKV).unwrap();
        assert_eq!((t13.method, t13.marlin_family), ("awq", false));
        let t14 = vllm_method(&Int4Rules::vllm(&[0, 14, 0]), Awq, 128, true, 75, false, QKV).unwrap();
        assert_eq!((t14.method, t14.marlin_family), ("awq_marlin", true));
        // 0.14 calls Marlin directly: only the conversion line.
        assert_eq!(t14.log.len(), 1);
    }

    /// w4a16cost61: the kernel each case runs. AWQ on an H100: Marlin at 0.17 (direct repack), Machete
    /// at 0.19 (the chooser); GPTQ on an A100 at 0.19: Marlin; on a V100: `gptq`'s own (ExLlama).
    #[test]
    fn w4a16cost61_kernel_by_release() {
        let k = |v: &[u64], c, zp, sm| {
            vllm_method(&Int4Rules::vllm(v), c, 128, zp, sm, false, QKV)
                .unwrap()
                .kernel
        };
        assert_eq!(k(&[0, 17, 0], Awq, true, 90), W4a16Kernel::Marlin);
        assert_eq!(k(&[0, 19, 0], Awq, true, 90), W4a16Kernel::Machete);
        assert_eq!(k(&[0, 19, 0], Gptq, false, 80), W4a16Kernel::Marlin);
        assert_eq!(k(&[0, 19, 0], Gptq, false, 70), W4a16Kernel::Unconverted);
        assert_eq!(W4a16Kernel::Machete.name(), "machete");
    }

    /// AWQ on an H100: Marlin directly up to 0.17; from 0.19 the chooser gives Machete (zero points
    /// taken since 0.9.2); a group of 32 stays on Marlin; a group of 256 is no Marlin group → `awq`.
    #[test]
    fn awq_on_hopper_by_release() {
        let at = |v: &[u64], g: u32| vllm_method(&Int4Rules::vllm(v), Awq, g, true, 90, true, QKV).unwrap();
        assert_eq!(at(&[0, 17, 0], 128).log.len(), 1);
        assert_eq!(
            at(&[0, 19, 0], 128).log[1],
            "Using MacheteLinearKernel for AWQMarlinLinearMethod"
        );
        assert_eq!(
            at(&[0, 19, 0], 32).log[1],
            "Using MarlinLinearKernel for AWQMarlinLinearMethod"
        );
        assert_eq!(
            vllm_method(&Int4Rules::vllm(&[0, 19, 0]), Awq, 256, true, 90, true, QKV).unwrap_err(),
            "torch.bfloat16 is not supported for quantization method awq. Supported dtypes: [torch.float16]"
        );
        let auto = at(&[0, 24, 0], 128);
        assert_eq!(auto.method, "auto_awq");
        assert_eq!(
            auto.log,
            vec!["Using MacheteLinearKernel for AutoAWQMarlinLinearMethod".to_string()]
        );
    }

    /// Machete's shape check: 4,096 × 6,144 fits; an output width of 6,000 (not a multiple of 128)
    /// goes to Marlin; on SM 12.0 Machete is taken up to 0.9.2 only.
    #[test]
    fn machete_shape_and_blackwell() {
        let r = Int4Rules::vllm(&[0, 19, 0]);
        assert!(r.machete_supports(90, 128, false, 4096, 6144));
        assert!(!r.machete_supports(90, 128, false, 4096, 6000));
        assert!(!r.machete_supports(120, 128, false, 4096, 6144));
        assert!(Int4Rules::vllm(&[0, 9, 2]).machete_supports(120, 128, false, 4096, 6144));
        assert!(!Int4Rules::vllm(&[0, 9, 0]).machete_supports(90, 64, false, 4096, 6144));
    }
}

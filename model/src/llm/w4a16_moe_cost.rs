//! moew4a16_62 (issue #17): the decode cost of vLLM's fused Marlin MoE call (`fused_marlin_moe`), the
//! kernel an AWQ / GPTQ / compressed-tensors W4A16 checkpoint's routed experts run on CUDA, from
//! published timings (tests/data/w4a16-moe-kernels.tsv, bundled here).
//!
//! Each row times one whole call (moe_align_block_size, the w13 Marlin GEMM, SiLU-and-mul, the w2
//! Marlin GEMM, moe_sum: [`CALL_KERNELS`]) at `m` tokens with uniform random routing. The weight bytes
//! a call reads are those of the experts the tokens touch, `e·(1 − (1 − topk/e)^m)` of them in
//! expectation, each `3·k·n` int4 weights with one bf16 scale per `group` ([`MoeRow::bytes`]). Over
//! the rows marked `fit` (the weight-streaming ones) the time is a straight line in those bytes,
//! least squares: a fixed part in µs and a streaming rate ([`fit`]). On the H20 rows (FlagGems PR
//! 3609) that is 50.60 µs + bytes at 1.665 TB/s, the nine rows within −8.7 … +11.7 %. The rate is
//! 0.416 of the H20's 4.0 TB/s, [`MarlinMoeFit::factor`] 0.520 of the 0.80 memory efficiency tpsim
//! streams weights at on an H20 (h20.toml, borrowed): about the 0.54 that dense Marlin keeps of
//! cuBLAS's fp16 efficiency on an H100 (`llm::w4a16_cost`). The rows marked `flops` are bound by the
//! Marlin MoE FLOP ceiling instead (the Mixtral shape at 64 tokens: 45.1 GFLOP in 1.206 ms, 0.253 of
//! the H20's 148 TFLOPS, against the 0.257 of sglang PR 38884 in the H100 / H200 templates).
//!
//! Per SM version: the H20 and H200 are both SM 9.0 (GH100), so the fit is applied by SM
//! ([measured on H20, transferred]: the H200 has 132 SMs to the H20's 78, so an issue-bound kernel
//! may stream faster there; no H100 / H200 timing of the call with a named GPU was found). No rows:
//! no fit (the op class's efficiency alone, as before).

use std::sync::OnceLock;

/// The bundled rows (tests/data/w4a16-moe-kernels.tsv).
const TABLE: &str = include_str!("../../../tests/data/w4a16-moe-kernels.tsv");

/// Kernels of the timed call (module doc): moe_align_block_size, w13 GEMM, SiLU-and-mul, w2 GEMM,
/// moe_sum (vLLM 0.11.0 `fused_moe/fused_marlin_moe.py` `fused_marlin_moe`).
pub const CALL_KERNELS: u32 = 5;

/// The weight-streaming efficiency tpsim's H20 template applies (scenarios/hardware/templates/h20.toml
/// `mem_efficiency`, borrowed from pcie-nccl-host, assumed): the fitted rate over peak ÷ this is the
/// factor on the op class's efficiency.
pub const H20_MEM_EFFICIENCY: f64 = 0.80;

/// One timed call.
#[derive(Debug, Clone, PartialEq)]
pub struct MoeRow {
    /// The kernel (`marlin_moe`).
    pub kernel: String,
    /// Compute capability of the GPU, `sm_version` form (90).
    pub sm: u32,
    /// The GPU's HBM bandwidth, TB/s.
    pub peak_tb_s: f64,
    /// Tokens.
    pub m: u32,
    /// Experts.
    pub e: u32,
    /// Hidden size.
    pub k: u64,
    /// Expert intermediate size.
    pub n: u64,
    /// Experts per token.
    pub topk: u32,
    /// Weight elements per bf16 scale.
    pub group: u64,
    /// The call's time, ms.
    pub ms: f64,
    /// `fit` or `flops` (module doc).
    pub usage: String,
}

impl MoeRow {
    /// Experts the `m` tokens touch under uniform routing, in expectation: `e·(1 − (1 − topk/e)^m)`.
    pub fn experts_touched(&self) -> f64 {
        let e = f64::from(self.e);
        e * (1.0 - (1.0 - f64::from(self.topk) / e).powi(self.m as i32))
    }

    /// Weight bytes the call reads: the touched experts' `3·k·n` int4 weights, 0.5 B each plus a
    /// 2-byte scale per `group`.
    pub fn bytes(&self) -> f64 {
        let per_weight = 0.5 + 2.0 / self.group as f64;
        self.experts_touched() * 3.0 * (self.k * self.n) as f64 * per_weight
    }

    /// The call's GEMM FLOPs: `2·m·topk·3·k·n`.
    pub fn flops(&self) -> f64 {
        2.0 * f64::from(self.m) * f64::from(self.topk) * 3.0 * (self.k * self.n) as f64
    }
}

/// The fitted call cost on one SM version ([`fit`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarlinMoeFit {
    /// The call's fixed part, µs (over its [`CALL_KERNELS`] kernels).
    pub fixed_us: f64,
    /// The weight-streaming rate, TB/s.
    pub rate_tb_s: f64,
    /// The rate over the GPU's peak ÷ [`H20_MEM_EFFICIENCY`]: what multiplies tpsim's op-class
    /// efficiency for the experts' int4 bytes.
    pub factor: f64,
    /// Rows fitted.
    pub rows: usize,
}

/// Parses the table text: a header line (`kernel` first), `#` comments, 13 tab-separated columns.
pub fn parse(text: &str) -> Result<Vec<MoeRow>, String> {
    let mut rows = Vec::new();
    for line in crate::llm::w4a16_cost::table_lines(text, "w4a16-moe-kernels.tsv", 13) {
        let (n, c) = line?;
        let bad = |what: &str| format!("w4a16-moe-kernels.tsv line {n}: {what}");
        let num = |j: usize, name: &str| -> Result<f64, String> {
            c[j].parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| bad(&format!("`{name}` is not a positive number: {:?}", c[j])))
        };
        if !matches!(c[11], "fit" | "flops") {
            return Err(bad(&format!("`use` must be fit or flops, found {:?}", c[11])));
        }
        let row = MoeRow {
            kernel: c[0].to_string(),
            sm: num(1, "sm")? as u32,
            peak_tb_s: num(3, "peak_tb_s")?,
            m: num(4, "m")? as u32,
            e: num(5, "e")? as u32,
            k: num(6, "k")? as u64,
            n: num(7, "n")? as u64,
            topk: num(8, "topk")? as u32,
            group: num(9, "group")? as u64,
            ms: num(10, "ms")?,
            usage: c[11].to_string(),
        };
        if row.topk > row.e {
            return Err(bad("topk must not exceed e"));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The bundled rows; empty if the table does not parse (a unit test keeps it parsing).
pub fn rows() -> &'static [MoeRow] {
    static ROWS: OnceLock<Vec<MoeRow>> = OnceLock::new();
    ROWS.get_or_init(|| parse(TABLE).unwrap_or_default())
}

/// The least-squares line `ms·1000 = fixed_us + bytes / rate` through `rows`; `None` with fewer than
/// two rows or bytes all equal or a non-positive slope.
pub fn fit_rows(rows: &[&MoeRow]) -> Option<MarlinMoeFit> {
    let n = rows.len() as f64;
    if rows.len() < 2 {
        return None;
    }
    let xs: Vec<f64> = rows.iter().map(|r| r.bytes() / 1e6).collect(); // MB
    let ys: Vec<f64> = rows.iter().map(|r| r.ms * 1e3).collect(); // µs
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    if sxx <= 0.0 || sxy <= 0.0 {
        return None;
    }
    let slope = sxy / sxx; // µs per MB
    let rate_tb_s = 1.0 / slope; // MB/µs = TB/s
    let peak = rows.iter().map(|r| r.peak_tb_s).sum::<f64>() / n;
    Some(MarlinMoeFit {
        fixed_us: my - slope * mx,
        rate_tb_s,
        factor: (rate_tb_s / peak / H20_MEM_EFFICIENCY).min(1.0),
        rows: rows.len(),
    })
}

/// The fused Marlin MoE fit on SM `sm` from the bundled `fit` rows; `None` without rows.
pub fn fit(sm: u32) -> Option<MarlinMoeFit> {
    let mine: Vec<&MoeRow> = rows()
        .iter()
        .filter(|r| r.kernel == "marlin_moe" && r.sm == sm && r.usage == "fit")
        .collect();
    fit_rows(&mine)
}

/// vLLM's `check_moe_marlin_supports_layer` (0.11.0 `utils/marlin_utils.py`; the same in 0.19.0 and
/// 0.24.0): hidden size a multiple of 128, the intermediate shard a multiple of max(64, group), the
/// group one of 32 / 64 / 128 or one scale per channel (`group` 0 here, -1 there). Its other
/// conditions, silu activation and no router weight on the input, hold for the bundled MoE presets.
pub fn marlin_moe_supports(hidden: u64, intermediate_shard: u64, group: u64) -> bool {
    hidden.is_multiple_of(128)
        && intermediate_shard.is_multiple_of(64.max(group))
        && matches!(group, 0 | 32 | 64 | 128)
}

/// The kernel vLLM runs a W4A16 checkpoint's routed experts with on CUDA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum W4a16MoeKernel {
    /// `fused_marlin_moe` (AWQ `AWQMoEMethod`, GPTQ Marlin MoE, `CompressedTensorsWNA16MarlinMoEMethod`;
    /// 0.24.0: the `MARLIN` WNA16 MoE backend on SM 9.0, FlashInfer's TRT-LLM MXINT4 first where it
    /// applies).
    FusedMarlinMoe,
    /// The Triton `moe_wna16` fallback ("Falling back to Moe WNA16 kernels."), unmeasured here.
    MoeWna16,
}

impl W4a16MoeKernel {
    /// The kernel's name in vLLM's code.
    pub fn name(self) -> &'static str {
        match self {
            W4a16MoeKernel::FusedMarlinMoe => "fused_marlin_moe",
            W4a16MoeKernel::MoeWna16 => "moe_wna16",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_with_another_cell_count_is_refused_with_its_line() {
        // Line 1 is a comment, line 2 the header, line 3 two cells.
        let e = parse("# c\nkernel\tx\nMarlin\t90\n").unwrap_err();
        assert_eq!(
            e,
            "w4a16-moe-kernels.tsv line 3: expected 13 tab-separated columns, found 2"
        );
    }

    /// By hand: the DeepSeek shape at one token touches 256·(1 − (1 − 8/256)) = 8 experts of
    /// 3·7168·2048 weights at 0.515625 B = 22.709 MB each, 181.67 MB; the Qwen3.5 shape at 16 tokens
    /// 512·(1 − (502/512)^16) = 138.569 experts of 6.488 MB, 899.0 MB.
    #[test]
    fn moew4a16_62_bytes_by_hand() {
        let r = parse(TABLE).unwrap();
        assert_eq!(r.len(), 13);
        let ds1 = r.iter().find(|x| x.e == 256 && x.m == 1).unwrap();
        assert!((ds1.experts_touched() - 8.0).abs() < 1e-9);
        assert!((ds1.bytes() / 1e6 - 181.665).abs() < 0.01, "{}", ds1.bytes());
        let q16 = r.iter().find(|x| x.e == 512 && x.m == 16).unwrap();
        let touched = 512.0 * (1.0 - (502.0f64 / 512.0).powi(16));
        assert!((q16.experts_touched() - touched).abs() < 1e-9 && (touched - 138.569).abs() < 0.001);
        assert!((q16.bytes() / 1e6 - 899.0).abs() < 0.1, "{}", q16.bytes());
    }

    /// The H20 fit (module doc): 50.60 µs + bytes at 1.665 TB/s over nine rows, factor
    /// 1.665 / 4.0 / 0.80 = 0.5204 (± 0.01 µs, 0.001 TB/s); every fitted row within −8.7 … +11.7 %.
    #[test]
    fn moew4a16_62_h20_fit_by_hand() {
        let f = fit(90).unwrap();
        assert_eq!(f.rows, 9);
        assert!((f.fixed_us - 50.60).abs() < 0.01, "{f:?}");
        assert!((f.rate_tb_s - 1.6653).abs() < 0.001, "{f:?}");
        assert!((f.factor - 1.6653 / 4.0 / 0.8).abs() < 0.001, "{f:?}");
        for r in rows().iter().filter(|r| r.usage == "fit") {
            let err = (f.fixed_us + r.bytes() / 1e6 / f.rate_tb_s) / (r.ms * 1e3) - 1.0;
            assert!((-0.088..=0.118).contains(&err), "{r:?} {err}");
        }
        assert!(fit(80).is_none() && fit(120).is_none());
    }

    /// The Mixtral shape at 64 tokens is FLOP-bound: 2·64·2·3·4096·14336 = 45.10 GFLOP in 1.206 ms
    /// = 37.40 TFLOPS, 0.2527 of the H20's 148 (the ceiling in the templates: 0.257); the streaming
    /// line alone would say 482.6 µs, 60 % short.
    #[test]
    fn moew4a16_62_mixtral_64_is_flop_bound() {
        let r = rows().iter().find(|x| x.e == 8 && x.m == 64).unwrap();
        assert_eq!(r.usage, "flops");
        let tflops = r.flops() / (r.ms * 1e-3) / 1e12;
        assert!((tflops / 148.0 - 0.2527).abs() < 0.0005, "{tflops}");
        let f = fit(90).unwrap();
        let stream = f.fixed_us + r.bytes() / 1e6 / f.rate_tb_s;
        assert!(stream < 0.41 * r.ms * 1e3, "{stream}");
    }

    #[test]
    fn moew4a16_62_marlin_shape_rule_and_bad_rows() {
        // Qwen3-Coder-480B under EP: hidden 6144, intermediate 2560 whole, group 128.
        assert!(marlin_moe_supports(6144, 2560, 128));
        // GLM-4.5-Air at tp 4, group 32: 1408 / 4 = 352, not a multiple of 64 (awq57).
        assert!(!marlin_moe_supports(4096, 352, 32));
        assert!(marlin_moe_supports(4096, 704, 32) && !marlin_moe_supports(4096, 704, 16));
        let e = parse("marlin_moe\t90\tH20\t4.0\t1\t8\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("13 tab-separated"), "{e}");
        let line = "marlin_moe\t90\tH20\t4.0\t1\t8\t4096\t14336\t2\t128\tx\tfit\ts\n";
        assert!(parse(line).unwrap_err().contains("`ms`"));
        let line = "marlin_moe\t90\tH20\t4.0\t1\t8\t4096\t14336\t2\t128\t0.1\tmaybe\ts\n";
        assert!(parse(line).unwrap_err().contains("fit or flops"));
    }
}

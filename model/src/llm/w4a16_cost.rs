//! w4a16cost61 (issue #17): the decode cost of vLLM's W4A16 linear kernels, from published
//! micro-benchmarks (tests/data/w4a16-kernels.tsv, bundled here).
//!
//! Each row is one kernel on one GPU at one GEMM shape and row count M, against torch's fp16 GEMM on
//! the same matrix and M. Its **factor** is the kernel's weight-streaming efficiency relative to the
//! fp16 GEMM's: the measured speed-up × the bytes ratio, `(kernel_tflops / fp16_tflops) × (0.5 + 2 /
//! g) / 2` with `g` the group (the input features for one scale per channel). 1 is the ideal int4
//! speed-up (the 3.87× of group 128 in Marlin's README); the H100 rows give 0.54: vLLM's Marlin,
//! written for Ampere's `mma`, streams its int4 weights at about half the efficiency cuBLAS streams
//! fp16 at (Machete's motivation in vllm PR 7174). tpsim's class efficiencies are those of bf16 /
//! fp16 GEMMs, so the factor multiplies them for the int4 weight bytes of the dense linears.
//!
//! Per kernel and SM the factors form a curve in M (piecewise-linear in ln M, as
//! [`crate::curves::Curve`]); outside the measured M range the nearest end holds, and
//! [`KernelFactor::extrapolated`] says so. A kernel and SM without rows has no factor (the class
//! efficiency alone, as before): Machete, the unconverted AWQ / ExLlama kernels, Marlin off SM 8.x and
//! 9.0, and the MoE kernels (`fused_marlin_moe`, `moe_wna16`), which no bundled row measures.
//!
//! ampere62: Marlin on SM 8.0 has rows (vllm PR 2497's bench.py table, M 1–16: factors 0.80–0.82, the
//! GPU read as A100 in the table's header). The other Ampere SMs (8.6, 8.7) have none of their own
//! and **borrow** SM 8.0's curve ([`KernelFactor::measured_sm`] says so): the same `mma.sync` kernel on
//! the same architecture; Marlin's README (IST-DASLab/marlin) reports near-ideal speed-ups on the A10
//! (SM 8.6) too, so the borrowed factor may overstate the cost there. vLLM's FP8 Marlin (weight-only
//! fp8, [`fp8_marlin_factor`]) is the GPTQ-Marlin kernel with 8-bit weights (vllm PR 5975: "Based on
//! existing 8-bit integer support in GPTQ Marlin kernel"); no bundled row measures it on Ampere, so on
//! SM 8.x it borrows the int4 curve too. On Hopper humming PR 2 measures Marlin's 8-bit weights at
//! 3.46 / 2.30 × (1 + 2 / 8,192) / 2 = 0.752 of the fp16 GEMM's efficiency at M 1, above the int4
//! kernel's 0.542: the borrowed factor is likely a lower bound on FP8 Marlin's efficiency.

use std::sync::OnceLock;

use crate::curves::Curve;
use crate::llm::vllm_w4a16::W4a16Kernel;

/// The bundled rows (tests/data/w4a16-kernels.tsv).
const TABLE: &str = include_str!("../../../tests/data/w4a16-kernels.tsv");

/// One measured row of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelRow {
    /// The kernel (`marlin`, `machete`, `unconverted`).
    pub kernel: String,
    /// Compute capability of the GPU, `sm_version` form (90).
    pub sm: u32,
    /// The GPU as the source names it.
    pub gpu: String,
    /// Output features.
    pub n: u64,
    /// Input features.
    pub k: u64,
    /// Weight elements per fp16 scale; 0: one scale per output channel.
    pub group: u64,
    /// Rows of activations (the decode batch).
    pub m: u32,
    /// The kernel's TFLOPS (2·m·n·k / time).
    pub kernel_tflops: f64,
    /// torch's fp16 GEMM's TFLOPS on the same matrix and M.
    pub fp16_tflops: f64,
    /// Where the row was read.
    pub source: String,
}

impl KernelRow {
    /// The row's factor (module doc): speed-up over fp16 × the int4 bytes per fp16 byte.
    pub fn factor(&self) -> f64 {
        let g = if self.group == 0 { self.k } else { self.group } as f64;
        self.kernel_tflops / self.fp16_tflops * (0.5 + 2.0 / g) / 2.0
    }
}

/// A kernel's factor at one M ([`factor`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelFactor {
    /// Weight-streaming efficiency relative to the fp16 GEMM's, (0, 1].
    pub value: f64,
    /// M lies outside the measured rows: the nearest end's factor is held.
    pub extrapolated: bool,
    /// The measured M range, `[min, max]`.
    pub m_range: [u32; 2],
    /// The SM the rows were measured on (`sm_version` form): the SM asked for, or SM 8.0 where an
    /// Ampere SM without rows of its own borrows them (module doc).
    pub measured_sm: u32,
}

/// The SM whose rows `sm` borrows when it has none (module doc): SM 8.0 for the other Ampere SMs.
fn borrowed_sm(sm: u32) -> Option<u32> {
    // Ampere: compute capability 8.0 (A100), 8.6 (GA10x: RTX 30x0, A10, A40, RTX A6000), 8.7 (Orin);
    // 8.9 is Ada (CUDA C++ Programming Guide, "Compute Capabilities").
    (matches!(sm, 86 | 87)).then_some(80)
}

/// The data lines of a bundled kernel table (`file` names it in errors): (line number from 1, its
/// tab-separated cells), blank lines, `#` comments and the `kernel` header skipped; a line without
/// exactly `cols` cells is an error naming the file and line. Shared by this table's parser and
/// `w4a16_moe_cost`'s.
pub(crate) fn table_lines<'a>(
    text: &'a str,
    file: &'a str,
    cols: usize,
) -> impl Iterator<Item = Result<(usize, Vec<&'a str>), String>> + 'a {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !(l.trim().is_empty() || l.starts_with('#') || l.starts_with("kernel\t")))
        .map(move |(i, l)| {
            let c: Vec<&str> = l.split('\t').collect();
            if c.len() == cols {
                Ok((i + 1, c))
            } else {
                Err(format!(
                    "{file} line {}: expected {cols} tab-separated columns, found {}",
                    i + 1,
                    c.len()
                ))
            }
        })
}

/// Parses the table text: a header line (`kernel` first), `#` comments, ten tab-separated columns.
pub fn parse(text: &str) -> Result<Vec<KernelRow>, String> {
    let mut rows = Vec::new();
    for line in table_lines(text, "w4a16-kernels.tsv", 10) {
        let (n, c) = line?;
        let bad = |what: &str| format!("w4a16-kernels.tsv line {n}: {what}");
        let num = |j: usize, name: &str| -> Result<f64, String> {
            c[j].parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or_else(|| bad(&format!("`{name}` is not a non-negative number: {:?}", c[j])))
        };
        let row = KernelRow {
            kernel: c[0].to_string(),
            sm: num(1, "sm")? as u32,
            gpu: c[2].to_string(),
            n: num(3, "n")? as u64,
            k: num(4, "k")? as u64,
            group: num(5, "group")? as u64,
            m: num(6, "m")? as u32,
            kernel_tflops: num(7, "kernel_tflops")?,
            fp16_tflops: num(8, "fp16_tflops")?,
            source: c[9].to_string(),
        };
        if row.m == 0 || row.k == 0 || row.fp16_tflops <= 0.0 || row.kernel_tflops <= 0.0 {
            return Err(bad("m, k and both TFLOPS figures must be positive"));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The bundled rows; empty if the table does not parse (a unit test keeps it parsing).
pub fn rows() -> &'static [KernelRow] {
    static ROWS: OnceLock<Vec<KernelRow>> = OnceLock::new();
    ROWS.get_or_init(|| parse(TABLE).unwrap_or_default())
}

/// The factor of `kernel` on SM `sm` at `m` rows: the rows' curve in M (the mean factor where a
/// kernel, SM and M have several rows), each factor capped at 1; `None` without rows.
/// An Ampere SM without rows of its own borrows SM 8.0's ([`KernelFactor::measured_sm`]).
pub fn factor(kernel: W4a16Kernel, sm: u32, m: u32) -> Option<KernelFactor> {
    factor_on(kernel, sm, m).or_else(|| factor_on(kernel, borrowed_sm(sm)?, m))
}

/// vLLM's FP8 Marlin (weight-only fp8: fp8 → fp16/bf16 dequantized in the kernel) on SM `sm` at `m`
/// rows: Marlin's int4 curve of the SM's Ampere rows, borrowed (module doc); `None` off SM 8.x,
/// where no row measures it (forced with `VLLM_TEST_FORCE_FP8_MARLIN` on SM 8.9 and later).
pub fn fp8_marlin_factor(sm: u32, m: u32) -> Option<KernelFactor> {
    if !(80..89).contains(&sm) {
        return None;
    }
    factor(W4a16Kernel::Marlin, sm, m)
}

/// [`factor`] from the rows of `sm` itself.
fn factor_on(kernel: W4a16Kernel, sm: u32, m: u32) -> Option<KernelFactor> {
    let mut points: Vec<(f64, f64)> = Vec::new();
    let mut mine: Vec<&KernelRow> = rows()
        .iter()
        .filter(|r| r.kernel == kernel.name() && r.sm == sm)
        .collect();
    mine.sort_by_key(|r| r.m);
    for same_m in mine.chunk_by(|a, b| a.m == b.m) {
        let mean = same_m.iter().map(|r| r.factor().min(1.0)).sum::<f64>() / same_m.len() as f64;
        points.push((f64::from(same_m[0].m), mean));
    }
    let (lo, hi) = (points.first()?.0 as u32, points.last()?.0 as u32);
    let curve = Curve::new(points).ok()?;
    Some(KernelFactor {
        value: curve.at(f64::from(m.max(1))),
        extrapolated: m < lo || m > hi,
        m_range: [lo, hi],
        measured_sm: sm,
    })
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
            "w4a16-kernels.tsv line 3: expected 10 tab-separated columns, found 2"
        );
    }

    /// The bundled table parses; its three H100 Marlin rows give, by hand,
    /// 4.98 / 2.30 × (0.5 + 2 / 8192) / 2 = 0.54157, 10.02 / 4.63 × 0.250122 = 0.54130 and
    /// 19.85 / 9.26 × 0.250122 = 0.53617 (inclusionAI/humming PR 2, H100, n = k = 8192).
    #[test]
    fn w4a16cost61_h100_marlin_rows_by_hand() {
        // ampere62 added five SM 8.0 rows after the three H100 ones (ampere62_* below).
        let r: Vec<KernelRow> = parse(TABLE).unwrap().into_iter().filter(|r| r.sm == 90).collect();
        assert_eq!(r.len(), 3);
        let f: Vec<f64> = r.iter().map(KernelRow::factor).collect();
        for (got, want) in f.iter().zip([0.54157, 0.54130, 0.53617]) {
            assert!((got - want).abs() < 5e-5, "{got} vs {want}");
        }
        let at1 = factor(W4a16Kernel::Marlin, 90, 1).unwrap();
        assert!((at1.value - f[0]).abs() < 1e-12 && !at1.extrapolated);
        assert_eq!(at1.m_range, [1, 4]);
        // M 3: between M 2 and 4 in ln M, halfway at ln 3 ≈ 0.585 of the way.
        let t = (3f64.ln() - 2f64.ln()) / (4f64.ln() - 2f64.ln());
        let at3 = factor(W4a16Kernel::Marlin, 90, 3).unwrap().value;
        assert!((at3 - (f[1] + t * (f[2] - f[1]))).abs() < 1e-12);
        // M 64: beyond the rows, M 4's factor held and said so.
        let at64 = factor(W4a16Kernel::Marlin, 90, 64).unwrap();
        assert!((at64.value - f[2]).abs() < 1e-12 && at64.extrapolated);
        // No rows: Machete, Marlin on Ada (SM 8.9), the unconverted kernels (Marlin on Ampere has
        // rows since ampere62).
        assert!(factor(W4a16Kernel::Machete, 90, 1).is_none());
        assert!(factor(W4a16Kernel::Marlin, 89, 1).is_none());
        assert!(factor(W4a16Kernel::Unconverted, 90, 1).is_none());
    }

    /// vllm PR 2497's table (A100, group 128): the factor is the speed-up × (0.5 + 2 / 128) / 2
    /// = speed-up × 0.2578125: 3.12 → 0.80438, 3.10 → 0.79922, 3.14 → 0.80953, 3.20 → 0.82500,
    /// 3.19 → 0.82242 (the table's fp16 TFLOPS are derived to 4 decimals: tolerance 5e-5). SM 8.6
    /// borrows them, and FP8 Marlin too; SM 8.9 (Ada) and SM 9.0 get no FP8 Marlin factor.
    #[test]
    fn ampere62_marlin_on_ampere_by_hand() {
        let r: Vec<KernelRow> = parse(TABLE).unwrap().into_iter().filter(|r| r.sm == 80).collect();
        let want = [
            (1, 0.80438),
            (2, 0.79922),
            (4, 0.80953),
            (8, 0.82500),
            (16, 0.82242),
        ];
        assert_eq!(r.len(), want.len());
        for (row, (m, f)) in r.iter().zip(want) {
            assert_eq!(row.m, m);
            assert!((row.factor() - f).abs() < 5e-5, "M {m}: {} vs {f}", row.factor());
        }
        let a100 = factor(W4a16Kernel::Marlin, 80, 1).unwrap();
        assert!((a100.value - 0.80438).abs() < 5e-5 && a100.measured_sm == 80 && !a100.extrapolated);
        let ga102 = factor(W4a16Kernel::Marlin, 86, 1).unwrap();
        assert_eq!(
            (ga102.value, ga102.measured_sm, ga102.m_range),
            (a100.value, 80, [1, 16])
        );
        // M 64: beyond the memory-bound rows, M 16's factor held.
        let at64 = factor(W4a16Kernel::Marlin, 86, 64).unwrap();
        assert!((at64.value - 0.82242).abs() < 5e-5 && at64.extrapolated);
        assert_eq!(fp8_marlin_factor(86, 1), Some(ga102));
        assert!(fp8_marlin_factor(89, 1).is_none() && fp8_marlin_factor(90, 1).is_none());
        assert!(fp8_marlin_factor(120, 1).is_none());
    }

    #[test]
    fn w4a16cost61_bad_rows_are_refused() {
        let e = parse("marlin\t90\tH100\t8192\t8192\t0\t1\t4.98\n").unwrap_err();
        assert!(e.contains("line 1") && e.contains("10 tab-separated"), "{e}");
        let e = parse("marlin\t90\tH100\t8192\t8192\t0\t1\tx\t2.3\ts\n").unwrap_err();
        assert!(e.contains("`kernel_tflops`"), "{e}");
        let e = parse("marlin\t90\tH100\t8192\t8192\t0\t0\t1\t2.3\ts\n").unwrap_err();
        assert!(e.contains("must be positive"), "{e}");
    }
}

//! Hardware profiles: fitted values of `[hardware.params]` keys, written by `tpsim-calibrate fit` and
//! read by scenarios (`[hardware] profile = "…"`) and `tpsim collective --profile`.
//!
//! A profile is a TOML file with `[provenance]` (which tool wrote it, from which measurement files, on
//! which machine, and the date only when the user passed one: no wall clock reaches a file) and one
//! `[params.<name>]` table per parameter: `value` in `unit`, optional 95 % interval `ci_low`/`ci_high`
//! and a `source` sentence. Merge order: preset < profile < the scenario's inline `[hardware.params]`
//! (book/src/calibration.md).

use super::error::{self, ScenarioError};
use super::{ComputeSection, HwParams};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tpsim_model::curves::{ClassCurves, Curve, Curves, OpClass, format_from_key};
use tpsim_model::llm::WeightDtype;
use tpsim_model::units::{Bandwidth, Bytes, Duration};

/// The unit a profile parameter is written in (the `unit` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamUnit {
    /// Decimal GB/s (10^9 B/s), written `"GB/s"`.
    GbPerS,
    /// Microseconds, written `"us"`.
    Us,
    /// Binary gigabytes, written `"GiB"`.
    Gib,
    /// A fraction in (0, 1], written `""`.
    Fraction,
    /// A slowdown factor ≥ 1, written `""`.
    Factor,
}

impl ParamUnit {
    /// The `unit` string of a profile.
    pub fn as_str(self) -> &'static str {
        match self {
            ParamUnit::GbPerS => "GB/s",
            ParamUnit::Us => "us",
            ParamUnit::Gib => "GiB",
            ParamUnit::Fraction | ParamUnit::Factor => "",
        }
    }
}

/// The `[hardware.params]` keys a profile may carry: every continuous one. The integer collapse
/// thresholds and the `collapse_reads` and `force_p2p` switches describe the box, not a measured
/// rate: scenarios set them.
pub const PROFILE_PARAMS: &[(&str, ParamUnit)] = &[
    ("context_overhead", ParamUnit::Gib),
    ("mem_efficiency", ParamUnit::Fraction),
    ("flops_efficiency", ParamUnit::Fraction),
    ("kernel_overhead", ParamUnit::Us),
    ("pcie_gen5_x16_bw", ParamUnit::GbPerS),
    ("pcie_gen4_x16_bw", ParamUnit::GbPerS),
    ("pcie_gen3_x16_bw", ParamUnit::GbPerS),
    ("pcie_hop_latency", ParamUnit::Us),
    ("root_complex_latency", ParamUnit::Us),
    ("root_complex_bw", ParamUnit::GbPerS),
    ("inter_socket_bw", ParamUnit::GbPerS),
    ("inter_socket_latency", ParamUnit::Us),
    ("host_memory_bw", ParamUnit::GbPerS),
    ("shm_copy_bw", ParamUnit::GbPerS),
    ("nccl_channel_bw", ParamUnit::GbPerS),
    ("nccl_simple_step_latency", ParamUnit::Us),
    ("shm_step_cost", ParamUnit::Us),
    ("shm_cross_socket_step_cost", ParamUnit::Us),
    ("collapse_factor", ParamUnit::Fraction),
    ("staged_peer_read_factor", ParamUnit::Factor),
    ("staged_latency", ParamUnit::Us),
    ("nvlink_bw", ParamUnit::GbPerS),
    ("nvlink_latency", ParamUnit::Us),
    // Issue #19 point 1: SHM reads per parent port with a `[host]`.
    ("shm_read_efficiency", ParamUnit::Fraction),
];

/// The unit of profile parameter `name`, or `None` if a profile cannot carry it.
pub fn param_unit(name: &str) -> Option<ParamUnit> {
    PROFILE_PARAMS.iter().find(|(n, _)| *n == name).map(|(_, u)| *u)
}

/// The value of parameter `name` of `p` in its profile unit (`None` for an unknown name or an unset
/// NVLink or Gen3 value).
pub fn get(p: &HwParams, name: &str) -> Option<f64> {
    let bw = |b: Bandwidth| Some(b.as_gbps());
    let us = |d: Duration| Some(d.as_us_f64());
    match name {
        "context_overhead" => Some(p.context_overhead.as_gib_f64()),
        "mem_efficiency" => Some(p.mem_efficiency),
        "flops_efficiency" => Some(p.flops_efficiency),
        "kernel_overhead" => us(p.kernel_overhead),
        "pcie_gen5_x16_bw" => bw(p.pcie_gen5_x16_bw),
        "pcie_gen4_x16_bw" => bw(p.pcie_gen4_x16_bw),
        "pcie_gen3_x16_bw" => p.pcie_gen3_x16_bw.and_then(bw),
        "pcie_hop_latency" => us(p.pcie_hop_latency),
        "root_complex_latency" => us(p.root_complex_latency),
        "root_complex_bw" => bw(p.root_complex_bw),
        "inter_socket_bw" => bw(p.inter_socket_bw),
        "inter_socket_latency" => us(p.inter_socket_latency),
        "host_memory_bw" => bw(p.host_memory_bw),
        "shm_copy_bw" => bw(p.shm_copy_bw),
        "nccl_channel_bw" => bw(p.nccl_channel_bw),
        "nccl_simple_step_latency" => us(p.nccl_simple_step_latency),
        "shm_step_cost" => us(p.shm_step_cost),
        "shm_cross_socket_step_cost" => us(p.shm_cross_socket_step_cost),
        "collapse_factor" => Some(p.collapse_factor),
        "staged_peer_read_factor" => Some(p.staged_peer_read_factor),
        "staged_latency" => us(p.staged_latency),
        "nvlink_bw" => p.nvlink_bw.and_then(bw),
        "nvlink_latency" => p.nvlink_latency.and_then(us),
        "shm_read_efficiency" => p.shm_read_efficiency,
        _ => None,
    }
}

/// Checks that `v` (in the profile unit) is a valid value of parameter `name`: bandwidths > 0,
/// durations and sizes ≥ 0, fractions in (0, 1], factors ≥ 1, all finite. Errors in words.
pub fn check(name: &str, v: f64) -> Result<ParamUnit, String> {
    let unit = param_unit(name).ok_or_else(|| unknown_message(name))?;
    let ok = v.is_finite()
        && match unit {
            ParamUnit::GbPerS => v > 0.0,
            ParamUnit::Us | ParamUnit::Gib => v >= 0.0,
            ParamUnit::Fraction => v > 0.0 && v <= 1.0,
            ParamUnit::Factor => v >= 1.0,
        };
    if ok {
        return Ok(unit);
    }
    let range = match unit {
        ParamUnit::GbPerS => "a bandwidth > 0 GB/s",
        ParamUnit::Us => "a duration ≥ 0 µs",
        ParamUnit::Gib => "a size ≥ 0 GiB",
        ParamUnit::Fraction => "a fraction in (0, 1]",
        ParamUnit::Factor => "a factor ≥ 1",
    };
    Err(format!("{v}: expected {range}"))
}

/// Sets parameter `name` of `p` to `v` (in its profile unit), after [`check`].
pub fn set(p: &mut HwParams, name: &str, v: f64) -> Result<(), String> {
    check(name, v)?;
    let bw = Bandwidth::from_gbps(v).ok_or_else(|| format!("{v}: expected a bandwidth > 0 GB/s"));
    let us = Duration::from_us_f64(v);
    match name {
        "context_overhead" => p.context_overhead = Bytes::from_gib_f64(v),
        "mem_efficiency" => p.mem_efficiency = v,
        "flops_efficiency" => p.flops_efficiency = v,
        "kernel_overhead" => p.kernel_overhead = us,
        "pcie_gen5_x16_bw" => p.pcie_gen5_x16_bw = bw?,
        "pcie_gen4_x16_bw" => p.pcie_gen4_x16_bw = bw?,
        "pcie_gen3_x16_bw" => p.pcie_gen3_x16_bw = Some(bw?),
        "pcie_hop_latency" => p.pcie_hop_latency = us,
        "root_complex_latency" => p.root_complex_latency = us,
        "root_complex_bw" => p.root_complex_bw = bw?,
        "inter_socket_bw" => p.inter_socket_bw = bw?,
        "inter_socket_latency" => p.inter_socket_latency = us,
        "host_memory_bw" => p.host_memory_bw = bw?,
        "shm_copy_bw" => p.shm_copy_bw = bw?,
        "nccl_channel_bw" => p.nccl_channel_bw = bw?,
        "nccl_simple_step_latency" => p.nccl_simple_step_latency = us,
        "shm_step_cost" => p.shm_step_cost = us,
        "shm_cross_socket_step_cost" => p.shm_cross_socket_step_cost = us,
        "collapse_factor" => p.collapse_factor = v,
        "staged_peer_read_factor" => p.staged_peer_read_factor = v,
        "staged_latency" => p.staged_latency = us,
        "nvlink_bw" => p.nvlink_bw = Some(bw?),
        "nvlink_latency" => p.nvlink_latency = Some(us),
        "shm_read_efficiency" => p.shm_read_efficiency = Some(v),
        _ => return Err(unknown_message(name)),
    }
    Ok(())
}

fn unknown_message(name: &str) -> String {
    format!(
        "`{name}` is not a profile parameter: expected one of {}",
        PROFILE_PARAMS
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A whole profile file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileFile {
    pub provenance: ProfileProvenance,
    /// One entry per parameter, keyed by its `[hardware.params]` name (sorted: BTreeMap).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, ProfileParam>,
    /// Fitted efficiency curves, `[compute.curves.<class>]` (with `ci` and `source`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute: Option<ComputeSection>,
    /// Issue #19 point 6: the fit's correlation of its parameters (absent: assumed independent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation: Option<super::profile_fit::ProfileCorrelation>,
}

/// Where a profile's values come from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileProvenance {
    /// The program that wrote it, e.g. `tpsim-calibrate fit 0.1.0`, or `hand` for a hand-written one.
    pub tool: String,
    /// Date given by the user (`--date`); never taken from the clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// The hardware preset the values were fitted against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<String>,
    /// Host name or label of the measured machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// Measurement files, in the order given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measurements: Vec<String>,
    /// Free-form notes (goodness of fit, rows held out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Issue #19 point 6: the span of the fitted rows (batch, tp, GPUs, bytes); absent: not stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<super::profile_fit::ProfileRange>,
}

/// One parameter of a profile: value and 95 % interval in `unit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileParam {
    pub value: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high: Option<f64>,
    /// `GB/s`, `us`, `GiB` or `""` (fractions and factors): must match the parameter's unit.
    pub unit: String,
    /// How the value was obtained, e.g. `fit: 24 collective rows, R² = 0.98`.
    pub source: String,
}

/// A profile as applied to a box: what the report shows.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedProfile {
    /// The file, as resolved (relative to the scenario, or to the working directory on the CLI).
    pub file: PathBuf,
    pub provenance: ProfileProvenance,
    /// Parameters whose value came from the profile, by name.
    pub applied: Vec<(String, ProfileParam)>,
    /// Parameters of the profile that the scenario's inline `[hardware.params]` overrode.
    pub overridden: Vec<String>,
    /// Curve classes that came from the profile (those the scenario's inline
    /// `[hardware.compute.curves]` did not replace).
    pub curves: Vec<String>,
    /// Issue #19 point 6: the fit's correlation of its parameters, when the profile has one.
    pub correlation: Option<super::profile_fit::ProfileCorrelation>,
}

/// Checks a `[compute]` section and builds its curves. An error is (key below the section's owner,
/// e.g. `compute.curves.mlp.points`, message saying what was expected).
pub fn curves_of(sec: &ComputeSection) -> Result<Curves, (String, String)> {
    let mut out = Curves::default();
    for (name, c) in &sec.curves {
        let key = format!("compute.curves.{name}");
        let class = OpClass::from_key(name).map_err(|e| (key.clone(), e.to_string()))?;
        let curve = |k: &str, p: &Option<Vec<[f64; 2]>>| -> Result<Option<Curve>, (String, String)> {
            p.as_ref()
                .map(|p| Curve::new(p.iter().map(|q| (q[0], q[1])).collect()))
                .transpose()
                .map_err(|e| (format!("{key}.{k}"), e.to_string()))
        };
        let mem = curve("points", &c.points)?;
        let flops = curve("flops_points", &c.flops_points)?;
        if let Some([lo, hi]) = c.flops_range {
            if c.flops_points.is_none() {
                return Err((
                    format!("{key}.flops_range"),
                    "a measured FLOP range without a FLOP curve: expected `flops_points` beside it".into(),
                ));
            }
            if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > lo) {
                return Err((
                    format!("{key}.flops_range"),
                    format!("[{lo}, {hi}]: expected [low, high] FLOPs per kernel, finite, 0 < low < high"),
                ));
            }
        }
        if mem.is_none() && flops.is_none() {
            return Err((
                key,
                "no curve: expected `points = [[bytes, efficiency], …]` and/or `flops_points = [[flops, efficiency], …]`"
                    .into(),
            ));
        }
        if let Some(ci) = &c.ci {
            let pts = c.points.as_deref().unwrap_or_default();
            if ci.len() != pts.len() {
                return Err((
                    format!("{key}.ci"),
                    format!(
                        "{} intervals for {} points: expected one [low, high] per point",
                        ci.len(),
                        pts.len()
                    ),
                ));
            }
            for (i, ([lo, hi], [_, v])) in ci.iter().zip(pts).enumerate() {
                if !(lo.is_finite() && hi.is_finite() && lo <= v && v <= hi) {
                    return Err((
                        format!("{key}.ci"),
                        format!("interval {i} [{lo}, {hi}] must be finite and contain the efficiency {v}"),
                    ));
                }
            }
        }
        out.classes.insert(class, ClassCurves { mem, flops });
    }
    for (group, map) in [
        ("formats", &sec.formats),
        ("attention_backends", &sec.attention_backends),
    ] {
        for (name, c) in map {
            let key = format!("compute.{group}.{name}");
            let format = if group == "formats" {
                Some(format_from_key(name).map_err(|e| (key.clone(), e.to_string()))?)
            } else {
                None
            };
            if format.is_none() && !crate::scenario::attention_backend::is_known_backend(name) {
                return Err((
                    key,
                    format!(
                        "`{name}` is not an SGLang or vLLM --attention-backend: expected one of {} (SGLang) or {} (vLLM)",
                        crate::scenario::attention_backend::SGLANG_ATTENTION_BACKENDS.join(", "),
                        crate::scenario::attention_backend::VLLM_ATTENTION_BACKENDS.join(", ")
                    ),
                ));
            }
            // fp8rate: a low-precision tensor-core format (fp8, nvfp4) may carry the FLOP efficiency
            // of its GEMMs, a fraction of its own peak (`gpu.fp8_tflops` / `fp4_tflops`).
            let low = matches!(format, Some(WeightDtype::Fp8 | WeightDtype::Nvfp4));
            if (c.flops_points.is_some() && !low) || c.ci.is_some() || c.flops_range.is_some() {
                return Err((
                    key,
                    "only `points = [[bytes per kernel, factor], …]` (and `source`; fp8 and nvfp4 also \
                     `flops_points = [[FLOPs per kernel, efficiency], …]`): the factor scales memory \
                     streaming, not FLOPs"
                        .into(),
                ));
            }
            if let Some(fp) = c.flops_points.as_ref().filter(|_| low) {
                let curve = Curve::new(fp.iter().map(|q| (q[0], q[1])).collect())
                    .map_err(|e| (format!("{key}.flops_points"), e.to_string()))?;
                if let Some(f) = format {
                    out.format_flops.insert(f, curve);
                }
            }
            let Some(p) = &c.points else {
                if c.flops_points.is_some() {
                    continue;
                }
                return Err((
                    key,
                    "no curve: expected `points = [[bytes per kernel, factor], …]`".into(),
                ));
            };
            let curve = Curve::new(p.iter().map(|q| (q[0], q[1])).collect())
                .map_err(|e| (format!("{key}.points"), e.to_string()))?;
            match format {
                Some(f) => {
                    out.formats.insert(f, curve);
                }
                None => {
                    out.attention_backends.insert(name.clone(), curve);
                }
            }
        }
    }
    for (name, m) in &sec.moe_backends {
        let key = format!("compute.moe_backends.{name}");
        crate::scenario::moe_backend::check(name.clone()).map_err(|e| (key.clone(), e))?;
        // Simulator bound, not a fact: 1 s a MoE layer, far above any backend's (garbage_in found
        // i64::MAX µs overflowing the serving clock's picoseconds).
        const MAX_MOE_OVERHEAD_US: f64 = 1e6;
        if !(m.overhead_us.is_finite() && (0.0..=MAX_MOE_OVERHEAD_US).contains(&m.overhead_us)) {
            return Err((
                format!("{key}.overhead_us"),
                format!(
                    "{}: expected a finite number of µs ≥ 0, at most {MAX_MOE_OVERHEAD_US} (1 s)",
                    m.overhead_us
                ),
            ));
        }
        out.moe_backends.insert(name.clone(), m.overhead_us);
        if let Some(e) = m.flops_efficiency {
            if !(e.is_finite() && e > 0.0 && e <= 1.0) {
                return Err((
                    format!("{key}.flops_efficiency"),
                    format!("{e}: expected a fraction of the bf16 peak in (0, 1]"),
                ));
            }
            out.moe_backend_flops.insert(name.clone(), e);
        }
    }
    Ok(out)
}

/// Reads a profile and checks every key: known name, matching unit, value in range. Errors name the
/// file, the key `params.<name>…` and its line.
pub fn read(path: &Path) -> Result<ProfileFile, ScenarioError> {
    let text = crate::files::read_text(path).map_err(|e| ScenarioError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    let file: ProfileFile = error::parse_toml(&text, path)?;
    for (name, p) in &file.params {
        let key = format!("params.{name}");
        let bad = |k: &str, m: String| ScenarioError::invalid(path, &text, k, m);
        let unit = param_unit(name).ok_or_else(|| bad(&key, unknown_message(name)))?;
        if p.unit != unit.as_str() {
            return Err(bad(
                &format!("{key}.unit"),
                format!("`{}`: expected \"{}\" for {name}", p.unit, unit.as_str()),
            ));
        }
        check(name, p.value).map_err(|m| bad(&format!("{key}.value"), m))?;
    }
    // Issue #19 point 6: intervals (both ends, finite, around the value), correlation, range.
    super::profile_fit::check_file(&file).map_err(|(k, m)| ScenarioError::invalid(path, &text, &k, m))?;
    if let Some(c) = &file.compute {
        curves_of(c).map_err(|(k, m)| ScenarioError::invalid(path, &text, &k, m))?;
    }
    Ok(file)
}

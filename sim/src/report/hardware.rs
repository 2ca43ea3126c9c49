//! The `hardware` object of `tpsim run --json`: the box and, when a profile was applied, which
//! parameters came from it with their 95 % intervals (book/src/json.md).

use crate::scenario::Hardware;
use crate::scenario::profile::AppliedProfile;
use serde::Serialize;

/// The hardware a run used.
#[derive(Debug, Clone, Serialize)]
pub struct HardwareReport {
    pub name: String,
    pub gpus: usize,
    /// The profile applied over the preset, or null.
    pub profile: Option<ProfileReport>,
}

/// A profile applied over the preset.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileReport {
    /// The file as resolved (relative to the scenario).
    pub file: String,
    /// The tool that wrote it and the date given to it, if any.
    pub tool: String,
    pub date: Option<String>,
    /// Measurement files it was fitted from.
    pub measurements: Vec<String>,
    /// Parameters whose value came from the profile, sorted by name.
    pub params: Vec<ProfileParamReport>,
    /// Parameters of the profile that the scenario's inline `[hardware.params]` overrode.
    pub overridden_inline: Vec<String>,
    /// Efficiency-curve classes (`compute.curves.<class>`) taken from the profile; absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curves: Vec<String>,
}

/// One parameter taken from a profile, in its profile unit.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileParamReport {
    pub name: String,
    pub value: f64,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// `GB/s`, `us`, `GiB` or `""` (fractions, factors).
    pub unit: String,
    pub source: String,
}

/// The report object of `hw`.
pub fn build(hw: &Hardware) -> HardwareReport {
    HardwareReport {
        name: hw.name.clone(),
        gpus: hw.topology.gpu_count(),
        profile: hw.profile.as_ref().map(profile),
    }
}

fn profile(p: &AppliedProfile) -> ProfileReport {
    ProfileReport {
        file: p.file.display().to_string(),
        tool: p.provenance.tool.clone(),
        date: p.provenance.date.clone(),
        measurements: p.provenance.measurements.clone(),
        params: p
            .applied
            .iter()
            .map(|(name, v)| ProfileParamReport {
                name: name.clone(),
                value: v.value,
                ci_low: v.ci_low,
                ci_high: v.ci_high,
                unit: v.unit.clone(),
                source: v.source.clone(),
            })
            .collect(),
        overridden_inline: p.overridden.clone(),
        curves: p.curves.clone(),
    }
}

//! Issue #19 point 6: 95 % intervals of `tpsim collective`'s times from the profile's fitted
//! intervals, by the same linearisation as `tpsim run` ([`crate::intervals`], book/src/intervals.md):
//! each fitted parameter at both ends of its interval, the others at their values, combined in log
//! space with the profile's correlation.

use crate::collective::{Op, Row, Setup};
use crate::comm::{Comm, Request};
use crate::intervals::{combine, correlation, fitted_params};
use crate::report::intervals::{FigureInterval, LEVEL, METHOD, ParamEffect};
use crate::scenario::profile;
use rayon::prelude::*;

/// Sets each row's `time_us_interval`; returns the correlation label (or why there is none), None
/// without a profile.
pub fn attach(setup: &Setup, op: Op, req: Request, rows: &mut [Row]) -> Option<String> {
    let applied = setup.hardware.profile.as_ref()?;
    let params = fitted_params(&setup.hardware);
    if params.is_empty() {
        return Some("none: no fitted intervals in the profile".into());
    }
    let sizes: Vec<u64> = rows.iter().map(|r| r.size_bytes).collect();
    let jobs: Vec<(usize, f64)> = params
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [(i, p.ci_low), (i, p.ci_high)])
        .collect();
    // One time per size per run; `collect` keeps the order whatever the thread count.
    let runs: Vec<Option<Vec<f64>>> = jobs
        .par_iter()
        .map(|&(i, v)| {
            let mut hw = setup.hardware.clone();
            profile::set(&mut hw.params, &params[i].name, v).ok()?;
            let comm = Comm::new(&hw, setup.gpus, &setup.env).with_custom(setup.custom);
            Some(
                sizes
                    .iter()
                    .map(|&s| match op {
                        Op::Allreduce => comm.allreduce(s, req).time.as_us_f64(),
                        Op::Allgather => comm.allgather(s).time.as_us_f64(),
                    })
                    .collect(),
            )
        })
        .collect();
    let (corr, label) = correlation(applied.correlation.as_ref(), &params);
    for (k, row) in rows.iter_mut().enumerate() {
        let effects: Option<Vec<ParamEffect>> = params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Some(ParamEffect {
                    name: p.name.clone(),
                    ci_low: p.ci_low,
                    ci_high: p.ci_high,
                    at_ci_low: runs[2 * i].as_ref()?[k],
                    at_ci_high: runs[2 * i + 1].as_ref()?[k],
                })
            })
            .collect();
        let Some(effects) = effects else {
            continue;
        };
        let ends: Vec<(f64, f64)> = effects.iter().map(|e| (e.at_ci_low, e.at_ci_high)).collect();
        let (low, high) = combine(row.time_us, &ends, &corr);
        row.time_us_interval = Some(FigureInterval {
            value: row.time_us,
            low,
            high,
            level: LEVEL,
            method: METHOD,
            params: effects,
        });
    }
    Some(label)
}

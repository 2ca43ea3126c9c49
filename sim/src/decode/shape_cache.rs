//! The process-wide cache of iteration shape costs (sweepfast): what one simulated iteration shape
//! costs (its makespan and critical-path breakdowns), with the side effects building it has on the
//! prediction (its prefill-kernel record additions, the collectives it asks for), by everything that
//! determines it. Sweep points that differ only in what the pass builders never read (the
//! workload, `mem_fraction_static`, the acceptance model) share their shapes instead of each
//! building and scheduling the same task graphs again.
//!
//! A shape's cost is a pure function of the builder's scenario less those fields and of the shape
//! (`passes::Builder` reads neither `Scenario::workload`, `slo`, `warnings`, `file`, `inputs`,
//! `Engine::mem_fraction_static` nor `Speculative::acceptance`, and its memos — routing estimates,
//! shared-expert bytes — are pure functions of their keys). The key is the `Debug` text of those
//! fields (as `Costs::params_used` keys its cache), so a hit returns exactly what a build would;
//! which thread filled an entry cannot change a value, and a point's output is byte-identical with
//! or without the cache.

use super::passes::{Collective, KernelAdd};
use super::{ShapeCost, ShapeKey};
use crate::scenario::Scenario;
use crate::serve::GroupShape;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use tpsim_model::spec::AcceptanceModel;

/// A shape within one scenario key: a decode, prefill or mixed shape ([`ShapeKey`]) or an SGLang
/// DP-attention SUM_LEN step over its groups' shapes, each with or without speculation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Key {
    Shape { spec: bool, shape: ShapeKey },
    Dp { spec: bool, groups: Vec<GroupShape> },
}

/// A cached shape: its cost and the side effects its build had.
#[derive(Debug)]
pub(super) struct Entry {
    pub cost: ShapeCost,
    /// Additions to the prefill-kernel record of the main builder and of the eager builder.
    pub main_log: Vec<KernelAdd>,
    pub eager_log: Vec<KernelAdd>,
    /// The collectives the build asked for.
    pub calls: Vec<Collective>,
}

/// The shapes of one scenario key.
#[derive(Debug, Default)]
pub(super) struct Table(Mutex<BTreeMap<Key, Arc<Entry>>>);

impl Table {
    /// The entry of `key`, if some prediction built it.
    pub fn get(&self, key: &Key) -> Option<Arc<Entry>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    /// Stores `entry` under `key` (a racing thread's equal entry may already be there: either is it).
    pub fn insert(&self, key: Key, entry: Entry) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_insert_with(|| Arc::new(entry));
    }
}

/// Scenario keys kept before the cache is emptied (a bound on memory for callers that predict many
/// different boxes, e.g. calibration's perturbed parameters; a simulator resolution, not a physical
/// constant: emptying only costs the rebuilds).
const MAX_SCENARIOS: usize = 64;

/// The tables by scenario key.
static TABLES: Mutex<BTreeMap<String, Arc<Table>>> = Mutex::new(BTreeMap::new());

/// The table of the pass builder's scenario `s`.
pub(super) fn table(s: &Scenario) -> Arc<Table> {
    let key = scenario_key(s);
    let mut tables = TABLES.lock().unwrap_or_else(PoisonError::into_inner);
    if !tables.contains_key(&key) && tables.len() >= MAX_SCENARIOS {
        tables.clear();
    }
    tables.entry(key).or_default().clone()
}

/// The `Debug` text of everything in `s` a pass builder may read: the scenario less its workload,
/// `[slo]`, warnings, file names, `mem_fraction_static` and acceptance model.
fn scenario_key(s: &Scenario) -> String {
    let mut engine = s.engine.clone();
    engine.mem_fraction_static = 0.0;
    let spec = s.speculative.as_ref().map(|sp| {
        let mut sp = sp.clone();
        sp.acceptance = AcceptanceModel::Trace(Vec::new());
        sp
    });
    format!(
        "{}|{:?}|{}|{:?}|{:?}|{:?}|{:?}",
        s.seed, s.hardware, s.model_name, s.model, s.routing_skew, engine, spec
    )
}

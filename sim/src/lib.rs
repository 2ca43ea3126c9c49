//! # tpsim — time
//!
//! The deterministic event engine, the task-graph executor, scenario files, the decode loop, reports
//! (as data). The `tpsim` command line, its text rendering, progress bars and plots live in `tpsim-cli`
//! (sim/cli). All costs come from `tpsim-model`; this crate decides *when* things
//! happen. Same scenario and seed → byte-identical output (book/src/architecture.md).
//!
//! ## The API
//!
//! What a caller (the CLI, `tpsim-calibrate`, a user's program) needs, re-exported here:
//! - load a scenario: [`load`] (a file) or [`scenario::load_str`] (text) → [`Scenario`];
//! - predict: [`predict`] → [`Prediction`], and [`report::build`] for the report object (`--json`);
//! - plan memory: [`plan_memory`] → [`MemoryPlan`] (the engine's verdict and KV tokens);
//! - simulate a collective: [`collective::Source::setup`] then [`simulate_collective`] across sizes;
//! - sweep: [`Sweep::new`] then [`Sweep::run`].
//!
//! The other modules are public for the integration tests of the engine (network, executor, fabric)
//! and for calibration's comparisons; their items may change without notice.

pub mod allreduce;
pub mod best_spec;
pub mod collective;
pub mod comm;
pub mod custom_kernels; // issue #19 point 3: custom allreduce kernels as they run
pub mod decode;
pub mod diff;
pub mod engine;
// Issue #17 point 6: the engine launch command equivalent to a scenario.
pub mod engine_args;
pub mod engine_args_nodes; // issue #17 point 4: one launch per node of a cluster
pub mod engine_args_versions; // issue #17: engine-flag lists by version, renames, the flag check
pub mod engine_release; // issue #17 (consistency): the release an unversioned scenario means
pub mod exec;
pub mod fabric;
pub mod files;
pub mod import_command; // issue #17 (cmdparse): a launch command read into a scenario
pub mod import_command_build;
pub mod import_command_flags;
pub mod import_command_shell; // cmdsurvey57: shell redirections and `$((…))` in a pasted launch
pub mod import_topo; // issue #19: a box from what `nvidia-smi topo -m` prints on it
// Issue #17 point 4: transfers between the boxes of a `[hardware.cluster]`.
pub mod internode;
pub mod intervals; // issue #19 point 6: prediction intervals from a profile's fit
pub mod intervals_collective; // issue #19 point 6: the same for `tpsim collective`
pub mod intervals_diff; // issue #19 point 6: intervals on `tpsim diff`'s ratios
pub mod launch; // issue #19 points 1-2: eager vs CUDA-graph launch of collectives
pub mod memory;
pub mod net;
pub mod presets;
pub mod quick_reduce; // issue #17 point 4: where vLLM QuickReduce runs (ROCm, 2/4/8, fully connected)
pub mod regress;
pub mod report;
pub mod scenario;
pub mod serve; // issue #18: the serving loop (engine schedulers, KV pool, streaming statistics)
pub mod sweep;
pub mod trace;
// Issue #18 point 2: the requests a workload sends.
pub mod capacity; // issue #18 (load): highest rate or concurrency under SLOs
pub mod slo;
#[cfg(test)]
mod vopr;
pub mod workload; // issue #18 (load): service-level objectives and goodput

pub use collective::run as simulate_collective;
pub use decode::{MemoryPlan, Prediction, plan_memory, predict};
pub use scenario::{Scenario, ScenarioError, load};
pub use sweep::Sweep;

//! # tpsim — time
//!
//! The deterministic event engine, the task-graph executor, scenario files, the decode loop, reports
//! and the `tpsim` command line. All costs come from `tpsim-model`; this crate decides *when* things
//! happen. Same scenario and seed → byte-identical output (book/src/architecture.md).

pub mod allreduce;
pub mod cli;
pub mod comm;
pub mod decode;
pub mod engine;
pub mod exec;
pub mod fabric;
pub mod files;
pub mod net;
pub mod presets;
pub mod regress;
pub mod report;
pub mod scenario;
pub mod sweep;
pub mod trace;
#[cfg(test)]
mod vopr;

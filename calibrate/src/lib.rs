//! tpsim-calibrate: measurements on real GPUs (feature `cuda`), ingestion of engine logs and
//! benchmark outputs, fitting of hardware profiles, and checks of predictions against
//! measurements. The binary `tpsim-calibrate` is a thin layer over this library ([`cli`]).

pub mod bench;
pub mod check;
pub mod cli;
pub mod crossval;
pub mod fit;
// Issue #19 point 4: which box explains what a box measured.
pub mod identify;
pub mod ingest;
pub mod measurement;
pub mod predict;
// Issue #17 point 6: run the real engine and check the prediction against it.
pub mod run_engine;
pub mod trace_from_bench; // issue #18 (load)
pub mod tsv;

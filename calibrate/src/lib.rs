//! tpsim-calibrate: measurements on real GPUs (feature `cuda`), ingestion of engine logs and
//! benchmark outputs, fitting of hardware profiles, and checks of predictions against
//! measurements. The binary `tpsim-calibrate` is a thin layer over this library ([`cli`]).

pub mod bench;
pub mod check;
pub mod cli;
pub mod crossval;
pub mod fit;
pub mod ingest;
pub mod measurement;
pub mod predict;
pub mod tsv;

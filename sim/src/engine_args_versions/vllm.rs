//! vLLM: the flags older releases spell differently or lack, rewritten into each release's spelling.
//!
//! - vLLM before 0.8.5 registers booleans with `store_true` (0.5.x `--enable-chunked-prefill`: the
//!   `StoreBoolean` action, `nargs="?"`, taking `true`/`false`), not `BooleanOptionalAction`, so there
//!   is no `--no-x`: `--no-enable-prefix-caching` is the default of 0.5.x (`enable_prefix_caching: bool
//!   = False`) and prints nothing; `--no-enable-chunked-prefill` is `--enable-chunked-prefill=false`.
//!   vLLM 0.2.6 has neither setting (no prefix caching, no chunked prefill: both print nothing, with a
//!   note) and no custom allreduce (`--disable-custom-all-reduce` first in 0.3.0's `arg_utils.py`).

use super::{FlagList, FlagSpec, remove_flag};
use crate::scenario::EngineKind;
use std::collections::BTreeMap;

/// Rewrites vLLM `args` into `list`'s spelling (the cases above), with a note per rewrite.
pub(super) fn rename(
    list: &FlagList,
    flags: &BTreeMap<String, FlagSpec>,
    args: &mut Vec<String>,
    notes: &mut Vec<String>,
) {
    // flags55: vLLM before 0.8.5 has no `--no-x` (module doc).
    if list.engine == EngineKind::Vllm && !list.negatable() {
        if let Some(i) = args.iter().position(|a| a == "--no-enable-prefix-caching") {
            args.remove(i);
            notes.push(if flags.contains_key("--enable-prefix-caching") {
                format!(
                    "vLLM {} caches prefixes only under --enable-prefix-caching (off by default): no flag",
                    list.version
                )
            } else {
                format!("vLLM {} has no prefix caching: no flag", list.version)
            });
        }
        if let Some(i) = args.iter().position(|a| a == "--no-enable-chunked-prefill") {
            if flags.contains_key("--enable-chunked-prefill") {
                args[i] = "--enable-chunked-prefill=false".into();
                notes.push(format!(
                    "vLLM {} has no --no-enable-chunked-prefill: its StoreBoolean spelling --enable-chunked-prefill=false",
                    list.version
                ));
            } else {
                args.remove(i);
                notes.push(format!("vLLM {} has no chunked prefill: no flag", list.version));
            }
        }
    }
    // flags55: vLLM 0.2.6 `arg_utils.py` has no `--disable-custom-all-reduce` (no custom allreduce:
    // vllm PR 2192 added both, in 0.3.0's `arg_utils.py`); NCCL is its only allreduce, so
    // `engine.allreduce = "nccl"` needs no flag there.
    if list.engine == EngineKind::Vllm
        && args.iter().any(|a| a == "--disable-custom-all-reduce")
        && !flags.contains_key("--disable-custom-all-reduce")
    {
        remove_flag(args, "--disable-custom-all-reduce", false);
        notes.push(format!(
            "vLLM {} has no custom allreduce (no --disable-custom-all-reduce): NCCL is its only allreduce, \
             so engine.allreduce = \"nccl\" needs no flag",
            list.version
        ));
    }
}

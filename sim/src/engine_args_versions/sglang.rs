//! SGLang: the flags renamed or dropped between releases, rewritten into each release's spelling.
//!
//! Renames, each from the newer release's source:
//! - SGLang 0.5.23 `server_args.py` registers `--disable-cuda-graph` and `--enable-dp-attention` with
//!   `DeprecatedStoreTrueAction`, whose messages name the replacements:
//!   `--cuda-graph-backend-{decode,prefill}=disabled` and `--attn-dp-size <dp-size>` (in place of
//!   `--dp-size <dp-size> --enable-dp-attention`). Printed in the new spelling.
//! - SGLang 0.5.23 has no `--enable-piecewise-cuda-graph`: prefill graphs are a per-phase backend
//!   (`--cuda-graph-backend-prefill`, `model_executor/cuda_graph_config.py` `Backend`: full,
//!   breakable, disabled), and `default_prefill_backend()` picks `breakable` on CUDA. Printed as
//!   `--cuda-graph-backend-prefill breakable`.
//!
//! - SGLang 0.5.10 turns prefill (piecewise) graphs on by default and adds `--disable-piecewise-cuda-graph`,
//!   which `engine.enable_piecewise_cuda_graph = false` prints; 0.5.14 – 0.5.19 keep it as a
//!   `DeprecatedStoreConstAction` naming `--cuda-graph-backend-prefill=disabled` (printed as given, with
//!   the deprecation note); 0.5.20 drops it: printed as `--cuda-graph-backend-prefill disabled`. Before
//!   0.5.10 the graphs are opt-in, so `false` prints no flag.
//!
//! flags55, older releases (each from the named release's own source):
//! - SGLang 0.4.0.post1 – 0.4.10 build the MoE layer as `EPMoE` only under `--enable-ep-moe`
//!   (`models/deepseek_v2.py`: `EPMoE if global_server_args_dict["enable_ep_moe"] else FusedMoE`),
//!   which sets `ep_size = tp_size` (`server_args.py` `__post_init__`); 0.5.0rc0 deprecates it ("Please
//!   set `--ep-size` to the same value as `--tp-size`"). `--ep-size` equal to `--tp-size` is printed as
//!   `--enable-ep-moe` there. flags56: 0.4.10 itself sets no `ep_size` from the flag ([`enable_ep_moe`]),
//!   so there `--ep-size N --enable-ep-moe` is printed.
//! - SGLang 0.4.3 – 0.4.5 force an MLA model onto the triton backend unless `--enable-flashinfer-mla`
//!   (`model_executor/model_runner.py` `__init__`: "MLA optimization is turned on. Use triton backend."):
//!   `engine.attention_backend = "flashinfer"` on an MLA model is printed so there (`engine_args.rs`).
//! - SGLang before 0.5.3.post3 has no piecewise CUDA graphs (neither `--enable-` nor
//!   `--disable-piecewise-cuda-graph`): `engine.enable_piecewise_cuda_graph = false` prints no flag.

use super::{FlagList, FlagSpec, release, remove_flag};
use std::collections::BTreeMap;

/// Rewrites SGLang `args` into `list`'s spelling (the renames above), with a note per rewrite.
pub(super) fn rename(
    list: &FlagList,
    flags: &BTreeMap<String, FlagSpec>,
    args: &mut Vec<String>,
    notes: &mut Vec<String>,
) {
    let usable = |f: &str| flags.get(f).is_some_and(|s| s.kind != "deprecated" && !s.alias);
    let has = |args: &Vec<String>, f: &str| args.iter().any(|a| a == f);
    if has(args, "--disable-cuda-graph")
        && !usable("--disable-cuda-graph")
        && usable("--cuda-graph-backend-decode")
        && usable("--cuda-graph-backend-prefill")
    {
        remove_flag(args, "--disable-cuda-graph", false);
        remove_flag(args, "--enable-piecewise-cuda-graph", false);
        remove_flag(args, "--disable-piecewise-cuda-graph", false);
        args.extend(
            [
                "--cuda-graph-backend-decode",
                "disabled",
                "--cuda-graph-backend-prefill",
                "disabled",
            ]
            .map(String::from),
        );
        notes.push(format!(
            "--disable-cuda-graph is deprecated in SGLang {}: printed as --cuda-graph-backend-decode/-prefill disabled",
            list.version
        ));
    }
    if has(args, "--enable-piecewise-cuda-graph")
        && !usable("--enable-piecewise-cuda-graph")
        && usable("--cuda-graph-backend-prefill")
    {
        remove_flag(args, "--enable-piecewise-cuda-graph", false);
        // flags53: 0.5.14 has no `default_prefill_backend` (tc_piecewise is its prefill default,
        // `scenario::piecewise`); 0.5.15's `model_executor/cuda_graph_config.py` picks breakable on CUDA.
        let backend = if list.version == "0.5.14" {
            "tc_piecewise"
        } else {
            "breakable"
        };
        args.extend(["--cuda-graph-backend-prefill", backend].map(String::from));
        notes.push(format!(
            "SGLang {} has no --enable-piecewise-cuda-graph: piecewise prefill graphs are --cuda-graph-backend-prefill \
             {backend} (its default on CUDA)",
            list.version
        ));
    }
    // flags53: prefill graphs off. SGLang 0.5.10 - 0.5.19 `--disable-piecewise-cuda-graph` (a
    // `DeprecatedStoreConstAction` from 0.5.14, kept: it still starts); gone from 0.5.20, whose
    // spelling is the one 0.5.14's deprecation names, `--cuda-graph-backend-prefill=disabled`;
    // before 0.5.10 the graphs are opt-in (`--enable-piecewise-cuda-graph`), so no flag.
    if has(args, "--disable-piecewise-cuda-graph") && !flags.contains_key("--disable-piecewise-cuda-graph") {
        if usable("--cuda-graph-backend-prefill") {
            remove_flag(args, "--disable-piecewise-cuda-graph", false);
            args.extend(["--cuda-graph-backend-prefill", "disabled"].map(String::from));
            notes.push(format!(
                "SGLang {} has no --disable-piecewise-cuda-graph: prefill graphs off is --cuda-graph-backend-prefill disabled",
                list.version
            ));
        } else if usable("--enable-piecewise-cuda-graph") {
            remove_flag(args, "--disable-piecewise-cuda-graph", false);
            notes.push(format!(
                "engine.enable_piecewise_cuda_graph = false: SGLang {} captures prefill graphs only with \
                 --enable-piecewise-cuda-graph, so its default needs no flag",
                list.version
            ));
        }
    }
    // flags55: no piecewise graphs at all before 0.5.3.post3, so `false` is the engine's only mode.
    if has(args, "--disable-piecewise-cuda-graph")
        && !flags.contains_key("--disable-piecewise-cuda-graph")
        && !flags.contains_key("--enable-piecewise-cuda-graph")
        && !flags.contains_key("--cuda-graph-backend-prefill")
    {
        remove_flag(args, "--disable-piecewise-cuda-graph", false);
        notes.push(format!(
            "engine.enable_piecewise_cuda_graph = false: SGLang {} has no piecewise CUDA graphs, so no flag",
            list.version
        ));
    }
    // flags55: SGLang 0.4.0.post1 - 0.4.10, EP MoE only under `--enable-ep-moe` (module doc).
    if usable("--enable-ep-moe")
        && release(list.version).is_some_and(|r| r < vec![0, 5, 0])
        && let Some(i) = args.iter().position(|a| a == "--ep-size")
    {
        let ep = args.get(i + 1).cloned().unwrap_or_default();
        let tp = args
            .iter()
            .position(|a| a == "--tp-size")
            .and_then(|j| args.get(j + 1))
            .cloned();
        if list.version == "0.4.10" {
            // flags56: 0.4.10's `__post_init__` has no `ep_size = tp_size` ([`enable_ep_moe`]): EPMoE
            // with the expert-parallel size wanted needs both flags there.
            args.push("--enable-ep-moe".into());
            notes.push(format!(
                "SGLang 0.4.10 runs expert-parallel MoE under --enable-ep-moe with the --ep-size given (its \
                 server_args.py does not set ep_size = tp_size): --ep-size {ep} --enable-ep-moe"
            ));
        } else if tp.as_deref() == Some(ep.as_str()) {
            args.drain(i..(i + 2).min(args.len()));
            args.push("--enable-ep-moe".into());
            notes.push(format!(
                "SGLang {} runs expert-parallel MoE only under --enable-ep-moe, which sets ep_size = tp_size: \
                 --ep-size {ep} printed as --enable-ep-moe",
                list.version
            ));
        } else {
            notes.push(format!(
                "SGLang {} builds its MoE layer from --enable-ep-moe (ep = tp) only: --ep-size {ep} alone leaves \
                 the MoE tensor-parallel",
                list.version
            ));
        }
    }
    // Issue #17 (graphs): SGLang 0.5.23 `arg_groups/fields/exec_.py` names the decode graphs'
    // settings per phase, `--cuda-graph-max-bs-decode` (int) and `--cuda-graph-bs-decode`
    // (`List[int]`: `nargs="+"`, `arg_utils.py`), folded into the decode phase's `max_bs` / `bs`
    // (`cuda_graph_hook.py`).
    // cmdsurvey63: 0.5.14 – 0.5.19 keep these two, and `--mamba-scheduler-strategy`, as deprecated
    // aliases (`DeprecatedAliasStoreAction`, 0.5.14 `server_args.py`: "Deprecated alias for
    // --cuda-graph-max-bs-decode.", "… for --mamba-radix-cache-strategy."): printed as the replacement.
    for (old, new, what) in [
        (
            "--cuda-graph-max-bs",
            "--cuda-graph-max-bs-decode",
            "the decode graphs' setting",
        ),
        (
            "--cuda-graph-bs",
            "--cuda-graph-bs-decode",
            "the decode graphs' setting",
        ),
        (
            "--mamba-scheduler-strategy",
            "--mamba-radix-cache-strategy",
            "the mamba radix cache's strategy",
        ),
    ] {
        if !usable(old)
            && usable(new)
            && let Some(i) = args.iter().position(|a| a == old)
        {
            args[i] = new.into();
            let had = if flags.contains_key(old) {
                "keeps only as a deprecated alias"
            } else {
                "has no"
            };
            notes.push(format!("SGLang {} {had} {old}: {what} is {new}", list.version));
        }
    }
    if has(args, "--enable-dp-attention") && !usable("--enable-dp-attention") && usable("--attn-dp-size") {
        remove_flag(args, "--enable-dp-attention", false);
        if let Some(i) = args.iter().position(|a| a == "--dp-size") {
            args[i] = "--attn-dp-size".into();
        }
        notes.push(format!(
            "--enable-dp-attention is deprecated in SGLang {}: printed as --attn-dp-size <dp-size>",
            list.version
        ));
    }
}

/// SGLang's `--enable-ep-moe` DeprecatedAction text, 0.5.3 – 0.5.4 `server_args.py` (`help=`, which
/// `DeprecatedAction.__call__` raises as `ValueError(self.help)`), the same words 0.4.10.post2 – 0.5.2
/// log through `print_deprecated_warning`.
const EP_MOE_DEPRECATED: &str =
    "NOTE: --enable-ep-moe is deprecated. Please set `--ep-size` to the same value as `--tp-size` instead.";

/// flags56 (issue #17): what SGLang at `version` makes of `--enable-ep-moe` with `--tp-size tp`
/// (`ep_given`: the command's `--ep-size`): the expert-parallel size it runs and the line it logs.
/// `Err`: the release refuses the flag at parse time (its text). Read in each release's
/// `sglang/srt/server_args.py` (`ServerArgs.__post_init__` and the parser):
/// - 0.4.0.post1 – 0.4.5 (wheels 0.4.0.post1, 0.4.1, 0.4.3, 0.4.4.post4, 0.4.5): `if self.enable_ep_moe:
///   self.ep_size = self.tp_size`, with `logger.info("EP MoE is enabled. The expert parallel size is
///   adjusted to be the same as the tensor parallel size[{tp}].")`; 0.4.6 – 0.4.9.post6 the same with
///   `logger.warning`.
/// - 0.4.10: no such assignment (the wheel's `__post_init__` only asserts `enable_ep_moe` for the
///   FlashInfer TRT-LLM MoE): `ep_size` keeps `--ep-size` (default 1), and `EPMoE` is built with that
///   expert-parallel size (`layers/moe/ep_moe/layer.py` `get_moe_impl_class`); no line logged.
/// - 0.4.10.post2 – 0.5.2: `ep_size = tp_size` again, logged as `EP_MOE_DEPRECATED`.
/// - 0.5.3 – 0.5.4: `action=DeprecatedAction`, which raises `ValueError(help)`: the server does not start.
/// - 0.5.5 on: no such flag (argparse refuses it before this is asked).
///
/// 0.4.10.post1 was not read (no wheel in the shared cache): taken as 0.4.10.post2.
pub fn enable_ep_moe(version: &str, tp: i64, ep_given: Option<i64>) -> Result<(i64, String), String> {
    let Some((r, post)) = super::list_key(version) else {
        return Err(format!("--enable-ep-moe: unreadable SGLang version {version:?}"));
    };
    let adjusted = |level: &str| {
        format!(
            "SGLang {version} sets ep_size = tp_size and logs ({level}): \"EP MoE is enabled. The expert parallel size \
             is adjusted to be the same as the tensor parallel size[{tp}].\""
        )
    };
    let r = r.as_slice();
    if r >= [0, 5, 3].as_slice() {
        return Err(format!(
            "SGLang {version} refuses it: \"ValueError: {EP_MOE_DEPRECATED}\""
        ));
    }
    let line = if r < [0, 4, 6].as_slice() {
        adjusted("info")
    } else if r < [0, 4, 10].as_slice() {
        adjusted("warning")
    } else if r == [0, 4, 10].as_slice() && post == 0 {
        let ep = ep_given.unwrap_or(1);
        return Ok((
            ep,
            format!(
                "SGLang 0.4.10's --enable-ep-moe builds EPMoE but leaves ep_size = {ep} (--ep-size{}; its \
                 server_args.py has no ep_size = tp_size, restored in 0.4.10.post2)",
                if ep_given.is_some() {
                    ""
                } else {
                    " not given: default 1"
                }
            ),
        ));
    } else {
        format!("SGLang {version} sets ep_size = tp_size and warns: \"{EP_MOE_DEPRECATED}\"")
    };
    let line = match ep_given.filter(|&e| e != tp) {
        Some(e) => format!("{line} (the command's --ep-size {e} is overridden)"),
        None => line,
    };
    Ok((tp, line))
}

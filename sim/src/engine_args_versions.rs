//! Issue #17 (engine-flag lists by version): which of the engines' argument lists a launch command
//! targets, the flags renamed between versions, and the check that every flag `tpsim engine-args`
//! prints is one that version defines.
//!
//! The lists are `tests/data/engine-args/<engine>-<version>.txt`, written by
//! `tests/data/engine-args/extract.py` from each release's source on PyPI (SGLang
//! `sglang/srt/server_args.py`, with its `ServerArgs` `A[T, Arg(...)]` fields from 0.5.14 and
//! `sglang/srt/arg_groups/fields/*.py` from 0.5.20; every release 0.5.8, 0.5.9, 0.5.10 – 0.5.23; vLLM
//! `vllm/engine/arg_utils.py` and the server's `cli_args.py`). flags55 added SGLang 0.4.0,
//! 0.4.0.post1, 0.4.3, 0.4.6, 0.4.10, 0.5.0rc0 – 0.5.7 (with 0.5.3.post3 and 0.5.6.post1) and vLLM 0.2.6, 0.5.3.post1, 0.5.4,
//! 0.8.5, 0.9.1, 0.10.1.1, 0.10.2, 0.13.0, 0.14.1, 0.15.1, 0.16.0, 0.17.0 and 0.25.1: every release a
//! bundled scenario names. A command for version V is checked against the list of the newest release
//! at or below V; a post-release with a list of its own gets it (SGLang 0.4.0.post1 adds `--ep-size`
//! to 0.4.0's arguments), one without gets its release's.
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
//!   `--enable-ep-moe` there.
//! - SGLang 0.4.3 – 0.4.5 force an MLA model onto the triton backend unless `--enable-flashinfer-mla`
//!   (`model_executor/model_runner.py` `__init__`: "MLA optimization is turned on. Use triton backend."):
//!   `engine.attention_backend = "flashinfer"` on an MLA model is printed so there (`engine_args.rs`).
//! - SGLang before 0.5.3.post3 has no piecewise CUDA graphs (neither `--enable-` nor
//!   `--disable-piecewise-cuda-graph`): `engine.enable_piecewise_cuda_graph = false` prints no flag.
//! - vLLM before 0.8.5 registers booleans with `store_true` (0.5.x `--enable-chunked-prefill`: the
//!   `StoreBoolean` action, `nargs="?"`, taking `true`/`false`), not `BooleanOptionalAction`, so there
//!   is no `--no-x`: `--no-enable-prefix-caching` is the default of 0.5.x (`enable_prefix_caching: bool
//!   = False`) and prints nothing; `--no-enable-chunked-prefill` is `--enable-chunked-prefill=false`.
//!   vLLM 0.2.6 has neither setting (no prefix caching, no chunked prefill: both print nothing, with a
//!   note) and no custom allreduce (`--disable-custom-all-reduce` first in 0.3.0's `arg_utils.py`).
//!
//! Any other flag the version lacks is refused with a message naming the flag, the version and the list.

use crate::scenario::EngineKind;
use std::collections::BTreeMap;

/// One release's argument list.
#[derive(Debug, Clone, Copy)]
pub struct FlagList {
    pub engine: EngineKind,
    /// The release, `major.minor.patch`.
    pub version: &'static str,
    text: &'static str,
}

/// `list!(Sglang, "0.5.8")`: the bundled list `tests/data/engine-args/sglang-0.5.8.txt`.
macro_rules! list {
    (Sglang, $v:literal) => {
        FlagList {
            engine: EngineKind::Sglang,
            version: $v,
            text: include_str!(concat!("../../tests/data/engine-args/sglang-", $v, ".txt")),
        }
    };
    (Vllm, $v:literal) => {
        FlagList {
            engine: EngineKind::Vllm,
            version: $v,
            text: include_str!(concat!("../../tests/data/engine-args/vllm-", $v, ".txt")),
        }
    };
}

/// Every bundled list, oldest first per engine.
pub const LISTS: &[FlagList] = &[
    // flags55: the releases the validation rows name before 0.5.8 (DataCrunch's 0.4.0.post1, 0.5.3 –
    // 0.5.7 and the post-releases whose argument set differs from their release's), plus 0.4.3 (CUDA-graph
    // batch sizes, FlashInfer MLA), 0.4.6, 0.4.10 and 0.5.0rc0 – 0.5.2 (each adds or drops flags), from the
    // sglang-<version> wheels on PyPI.
    list!(Sglang, "0.4.0"),
    list!(Sglang, "0.4.0.post1"),
    list!(Sglang, "0.4.3"),
    list!(Sglang, "0.4.6"),
    list!(Sglang, "0.4.10"),
    list!(Sglang, "0.5.0rc0"),
    list!(Sglang, "0.5.1"),
    list!(Sglang, "0.5.2"),
    list!(Sglang, "0.5.3"),
    list!(Sglang, "0.5.3.post3"),
    list!(Sglang, "0.5.4"),
    list!(Sglang, "0.5.5"),
    list!(Sglang, "0.5.6"),
    list!(Sglang, "0.5.6.post1"),
    list!(Sglang, "0.5.7"),
    list!(Sglang, "0.5.8"),
    list!(Sglang, "0.5.9"),
    // flags53: every release 0.5.10 - 0.5.22 (each removes flags the one before had), extracted from
    // the sglang-0.5.N wheels on PyPI.
    list!(Sglang, "0.5.10"),
    list!(Sglang, "0.5.11"),
    list!(Sglang, "0.5.12"),
    list!(Sglang, "0.5.13"),
    list!(Sglang, "0.5.14"),
    list!(Sglang, "0.5.15"),
    list!(Sglang, "0.5.16"),
    list!(Sglang, "0.5.17"),
    list!(Sglang, "0.5.18"),
    list!(Sglang, "0.5.19"),
    list!(Sglang, "0.5.20"),
    list!(Sglang, "0.5.21"),
    list!(Sglang, "0.5.22"),
    list!(Sglang, "0.5.23"),
    // flags55: the releases the validation rows name before 0.11.0, from the vllm-<version> wheels on
    // PyPI (0.2.6: `python -m vllm.entrypoints.openai.api_server`, see `legacy_server`).
    list!(Vllm, "0.2.6"),
    list!(Vllm, "0.5.3.post1"),
    list!(Vllm, "0.5.4"),
    list!(Vllm, "0.8.5"),
    list!(Vllm, "0.9.1"),
    list!(Vllm, "0.10.1.1"),
    list!(Vllm, "0.10.2"),
    list!(Vllm, "0.11.0"),
    list!(Vllm, "0.12.0"),
    // flags55: 0.13.0 - 0.17.0 as the rows name them (each adds or drops flags), from the wheels.
    list!(Vllm, "0.13.0"),
    list!(Vllm, "0.14.1"),
    list!(Vllm, "0.15.1"),
    list!(Vllm, "0.16.0"),
    list!(Vllm, "0.17.0"),
    // Issue #17 (consistency): the release a scenario without `engine.version` means
    // (`crate::engine_release::CURRENT_VLLM`); extracted from the vllm-0.19.0 wheel on PyPI.
    list!(Vllm, "0.19.0"),
    // flags55: the RTX 3090 rows' 0.25.1, from its wheel.
    list!(Vllm, "0.25.1"),
    list!(Vllm, "0.33.0"),
];

/// One accepted flag: its value kind (`flag`, `int`, `float`, `str`, `json`, `deprecated`) and, when
/// the engine restricts them, the allowed values.
#[derive(Debug, Clone, PartialEq)]
pub struct FlagSpec {
    pub kind: String,
    pub choices: Option<Vec<String>>,
}

impl FlagList {
    /// The list's file under `tests/data/engine-args/`.
    pub fn file(&self) -> String {
        let e = match self.engine {
            EngineKind::Sglang => "sglang",
            EngineKind::Vllm => "vllm",
        };
        format!("{e}-{}.txt", self.version)
    }

    /// Issue #17 (cmdparse): every name of the row that defines `flag` (its aliases), or `[flag]`.
    pub fn row(&self, flag: &str) -> Vec<String> {
        self.text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split('\t').next())
            .map(|names| names.split('|').map(String::from).collect::<Vec<_>>())
            .find(|names| names.iter().any(|n| n == flag))
            .unwrap_or_else(|| vec![flag.to_string()])
    }

    /// flags55: whether the release's server is started as `python -m vllm.entrypoints.openai.api_server
    /// --model MODEL` rather than `vllm serve MODEL`: the vllm-0.2.6 wheel has no console script (no
    /// `entry_points.txt`; 0.5.3.post1's names `vllm = vllm.scripts:main`) and no `cli_args.py`, which
    /// extract.py records in the list's header.
    pub fn vllm_module_server(&self) -> bool {
        self.engine == EngineKind::Vllm
            && self.text.starts_with(&format!(
                "# vLLM {}: `python -m vllm.entrypoints.openai.api_server`",
                self.version
            ))
    }

    /// Whether a boolean flag `--x` of this list also takes `--no-x`: vLLM from 0.8.5, whose
    /// `engine/arg_utils.py` `get_kwargs` gives every bool field `argparse.BooleanOptionalAction`
    /// (flags55: the 0.5.4 and 0.2.6 `arg_utils.py` use no `BooleanOptionalAction`: `store_true` only).
    pub fn negatable(&self) -> bool {
        self.engine == EngineKind::Vllm && list_key(self.version) >= list_key("0.8.5")
    }

    /// Every flag name (each alias a key) with its spec.
    pub fn flags(&self) -> BTreeMap<String, FlagSpec> {
        let mut m = BTreeMap::new();
        for line in self
            .text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let cols: Vec<&str> = line.split('\t').collect();
            let spec = FlagSpec {
                kind: cols.get(1).copied().unwrap_or("str").to_string(),
                choices: cols.get(2).map(|c| c.split(',').map(String::from).collect()),
            };
            for name in cols[0].split('|') {
                m.insert(name.to_string(), spec.clone());
            }
        }
        m
    }
}

/// `0.5.8.post1` → `[0, 5, 8]`, `v0.12.0` → `[0, 12, 0]`: the leading numeric components (a
/// post-release counts as its release). `None` when the text starts with no number.
pub fn release(version: &str) -> Option<Vec<u64>> {
    let v = version.trim().trim_start_matches(['v', 'V']);
    let mut out = Vec::new();
    for part in v.split('.') {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        out.push(digits.parse().ok()?);
        if digits.len() != part.len() {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The list a command for `engine` at `version` is checked against: the newest release at or below
/// it. `None` when the version is older than every list (or unreadable).
pub fn list_for(engine: EngineKind, version: &str) -> Option<&'static FlagList> {
    let want = list_key(version)?;
    LISTS
        .iter()
        .filter(|l| l.engine == engine)
        .filter(|l| list_key(l.version).is_some_and(|r| r <= want))
        .max_by_key(|l| list_key(l.version))
}

/// flags55: the order of releases for picking a list: [`release`] plus the post-release number
/// (`0.4.0.post1` → `[0, 4, 0]` then `[1]`), so a post-release whose argument set differs from its
/// release's (SGLang 0.4.0.post1 adds `--ep-size`, 0.5.3.post3 `--enable-piecewise-cuda-graph`)
/// gets its own list, and one with no list of its own gets its release's. A pre-release
/// (`0.5.0rc0`) counts as its release.
fn list_key(version: &str) -> Option<(Vec<u64>, u64)> {
    let r = release(version)?;
    let post = version
        .rsplit_once(".post")
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(0);
    Some((r, post))
}

/// Rewrites `args` (after the program; vLLM's first is the positional model) into `list`'s spelling
/// (the renames above), then checks every flag and value against it. Returns the first flag the
/// version cannot take, as a message for the user.
pub fn adapt(list: &FlagList, args: &mut Vec<String>, notes: &mut Vec<String>) -> Result<(), String> {
    let flags = list.flags();
    let usable = |f: &str| flags.get(f).is_some_and(|s| s.kind != "deprecated");
    let engine = match list.engine {
        EngineKind::Sglang => "SGLang",
        EngineKind::Vllm => "vLLM",
    };
    let positional = usize::from(list.engine == EngineKind::Vllm);
    if list.engine == EngineKind::Sglang {
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
        if has(args, "--disable-piecewise-cuda-graph")
            && !flags.contains_key("--disable-piecewise-cuda-graph")
        {
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
            if tp.as_deref() == Some(ep.as_str()) {
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
        for (old, new) in [
            ("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode"),
            ("--cuda-graph-bs", "--cuda-graph-bs-decode"),
        ] {
            if !usable(old)
                && usable(new)
                && let Some(i) = args.iter().position(|a| a == old)
            {
                args[i] = new.into();
                notes.push(format!(
                    "SGLang {} has no {old}: the decode graphs' setting is {new}",
                    list.version
                ));
            }
        }
        if has(args, "--enable-dp-attention") && !usable("--enable-dp-attention") && usable("--attn-dp-size")
        {
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
    let mut i = positional;
    while i < args.len() {
        // flags55: `--flag=value` (vLLM 0.5.x `--enable-chunked-prefill=false`): a boolean flag with an
        // inline value; other kinds are printed as two words.
        if let Some((flag, value)) = args[i].split_once('=')
            && flags.get(flag).is_some_and(|s| s.kind == "flag")
            && ["true", "false"].contains(&value)
        {
            i += 1;
            continue;
        }
        let name = &args[i];
        // Issue #18 point 1 (schedkeys): vLLM gives every bool field both `--x` and `--no-x`
        // (`argparse.BooleanOptionalAction`, vLLM 0.11.0 engine/arg_utils.py `get_kwargs`); the lists hold
        // the positive name only.
        let negated = || {
            let base = format!("--{}", name.strip_prefix("--no-")?);
            flags.get(&base).filter(|f| list.negatable() && f.kind == "flag")
        };
        let Some(spec) = flags.get(name).or_else(negated) else {
            return Err(format!(
                "{engine} {} has no flag {name} (tests/data/engine-args/{}, from the engine's argument definitions); \
                 tpsim has no equivalent to print at this version",
                list.version,
                list.file()
            ));
        };
        if spec.kind == "deprecated" {
            notes.push(format!(
                "{name} is deprecated in {engine} {} (it still starts, with a warning)",
                list.version
            ));
        }
        if matches!(spec.kind.as_str(), "flag" | "deprecated") {
            i += 1;
            continue;
        }
        let Some(v) = args.get(i + 1) else {
            return Err(format!("{name}: {engine} {} expects a value", list.version));
        };
        let ok = match spec.kind.as_str() {
            // Issue #17 (flags): vLLM 0.14.0 on parses --max-model-len with
            // `human_readable_int_or_auto` (`scenario::max_model_len`, which refuses `auto` before).
            "int" if name == "--max-model-len" && v == "auto" => true,
            "int" => v.parse::<i64>().is_ok(),
            "float" => v.parse::<f64>().is_ok_and(f64::is_finite),
            "json" => serde_json::from_str::<serde_json::Value>(v).is_ok(),
            _ => !v.starts_with("--"),
        };
        if !ok {
            return Err(format!(
                "{name}: {engine} {} takes {} values, not '{v}'",
                list.version, spec.kind
            ));
        }
        // A list flag takes every following value up to the next flag, each of its kind.
        if LIST_FLAGS.contains(&name.as_str()) {
            let mut j = i + 1;
            while let Some(v) = args.get(j).filter(|v| !v.starts_with("--")) {
                if spec.kind == "int" && v.parse::<i64>().is_err() {
                    return Err(format!(
                        "{name}: {engine} {} takes int values, not '{v}'",
                        list.version
                    ));
                }
                j += 1;
            }
            i = j;
            continue;
        }
        if let Some(c) = spec.choices.as_ref().filter(|c| !c.contains(v)) {
            return Err(format!(
                "{name} {v}: {engine} {} accepts only {} (tests/data/engine-args/{})",
                list.version,
                c.join(", "),
                list.file()
            ));
        }
        i += 2;
    }
    Ok(())
}

/// Flags that take one or more values (`nargs="+"`; the lists do not record it): SGLang 0.5.9
/// `server_args.py` `--cuda-graph-bs`, 0.5.23 `--cuda-graph-bs-decode`; vLLM's `list[int]` fields (`arg_utils.py` `get_kwargs`:
/// `nargs="+"`), `--cuda-graph-sizes` (0.11, 0.12) and `--cudagraph-capture-sizes` (0.12+).
pub(crate) const LIST_FLAGS: [&str; 4] = [
    "--cuda-graph-bs",
    "--cuda-graph-bs-decode",
    "--cuda-graph-sizes",
    "--cudagraph-capture-sizes",
];

/// Removes `flag` (and its value when `with_value`) from `args`.
fn remove_flag(args: &mut Vec<String>, flag: &str, with_value: bool) {
    if let Some(i) = args.iter().position(|a| a == flag) {
        args.remove(i);
        if with_value && i < args.len() {
            args.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_the_newest_list_at_or_below() {
        let v = |e, s| list_for(e, s).map(|l| l.version);
        assert_eq!(v(EngineKind::Sglang, "0.5.8.post1"), Some("0.5.8"));
        assert_eq!(v(EngineKind::Sglang, "v0.5.9"), Some("0.5.9"));
        assert_eq!(v(EngineKind::Sglang, "0.5.12"), Some("0.5.12"));
        assert_eq!(v(EngineKind::Sglang, "0.5.13.post1"), Some("0.5.13"));
        assert_eq!(v(EngineKind::Sglang, "0.5.23"), Some("0.5.23"));
        assert_eq!(v(EngineKind::Sglang, "0.6.0"), Some("0.5.23"));
        // flags55: 0.4.6.post5 has no list of its own: 0.4.6's; before 0.4.0 none.
        assert_eq!(v(EngineKind::Sglang, "0.4.6.post5"), Some("0.4.6"));
        assert_eq!(v(EngineKind::Sglang, "0.3.6"), None);
        assert_eq!(v(EngineKind::Vllm, "0.11.2"), Some("0.11.0"));
        assert_eq!(v(EngineKind::Vllm, "0.12.0"), Some("0.12.0"));
        assert_eq!(v(EngineKind::Vllm, "0.18.1"), Some("0.17.0"));
        assert_eq!(v(EngineKind::Vllm, "0.20.1"), Some("0.19.0"));
        assert_eq!(v(EngineKind::Vllm, "0.33.0"), Some("0.33.0"));
        assert_eq!(v(EngineKind::Vllm, "0.10.2"), Some("0.10.2"));
        assert_eq!(v(EngineKind::Vllm, "0.2.5"), None);
        assert_eq!(v(EngineKind::Vllm, "main"), None);
    }
}

//! Collective options as users set them (issue #17, 3): `[engine.env]` NCCL variables, the NCCL
//! release (`engine.nccl_version`), a tuner plugin's table (`[engine.nccl_tuner]`) and the custom
//! allreduce's size cutoff (`engine.custom_allreduce_max_size`).

use super::{EngineKind, Resolver, ScenarioError};
use crate::comm::CustomLimits;
use std::collections::BTreeMap;
use tpsim_model::hw::PathClass;
use tpsim_model::nccl::{
    self, Algo, NcclEnv, NcclVersion, PROTO_NAMES, Proto, TunerPlugin, algo_names, allreduce_row,
};

/// `[engine.nccl_tuner]`: NCCL's example tuner plugin's CSV config (`ext-tuner/example`), as lines
/// inline or a file relative to the scenario (`NCCL_TUNER_CONFIG_FILE`).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NcclTunerSection {
    pub rows: Option<Vec<String>>,
    pub file: Option<String>,
}

/// The variables `[engine.env]` accepts.
pub(crate) const KNOWN: &str = "NCCL_P2P_LEVEL, NCCL_P2P_DISABLE, NCCL_PROTO, NCCL_ALGO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, NCCL_NTHREADS, NCCL_LL128_NTHREADS, NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE, NCCL_GRAPH_FILE";

impl Resolver<'_> {
    /// The NCCL release: `engine.nccl_version`, else the one the release's torch pins
    /// (`tpsim_model::nccl::engine_pinned_nccl`; the release is `engine.version` or tpsim's current
    /// one, `crate::engine_release`), else the model's own (2.30.7). Returns it with where it came
    /// from.
    pub(super) fn nccl_version(
        &self,
        given: Option<&str>,
        engine: &str,
        release: &crate::engine_release::Release,
    ) -> Result<(NcclVersion, String), ScenarioError> {
        if let Some(v) = given {
            let v = NcclVersion::parse(v).map_err(|e| self.invalid("engine.nccl_version", e.to_string()))?;
            return Ok((v, "engine.nccl_version".into()));
        }
        let ev = &release.version;
        if let Some(v) = nccl::engine_pinned_nccl(engine, ev) {
            let assumed = if release.assumed {
                " (assumed: engine.version not set)"
            } else {
                ""
            };
            return Ok((v, format!("{engine} {ev}'s torch pin{assumed}")));
        }
        Ok((NcclVersion::LATEST, "tpsim's NCCL model".into()))
    }

    /// `[engine.env]` read for NCCL release `version` (its list syntax), with the tuner table.
    pub(super) fn nccl_env_for(
        &self,
        env: BTreeMap<String, String>,
        version: NcclVersion,
        tuner: Option<NcclTunerSection>,
        cuda_graph: bool,
        warnings: &mut Vec<String>,
    ) -> Result<NcclEnv, ScenarioError> {
        let mut out = NcclEnv {
            version,
            ..NcclEnv::default()
        };
        for (k, v) in env {
            let key = format!("engine.env.{k}");
            match k.as_str() {
                "NCCL_P2P_LEVEL" => {
                    out.p2p_level = Some(PathClass::parse_level(&v).ok_or_else(|| {
                        self.invalid(
                            &key,
                            format!(
                                "`{v}`: expected LOC, NVL, PIX, PXB, PHB (NODE), SYS or a legacy level 0-5"
                            ),
                        )
                    })?)
                }
                "NCCL_P2P_DISABLE" => {
                    out.p2p_disable = match v.as_str() {
                        "1" => true,
                        "0" => false,
                        _ => return Err(self.invalid(&key, format!("`{v}`: expected \"0\" or \"1\""))),
                    }
                }
                "NCCL_PROTO" => {
                    let row = allreduce_row(&v, &PROTO_NAMES, version)
                        .map_err(|e| self.invalid(&key, format!("NCCL {version}: {e}")))?;
                    out.proto_enable = row.map(|r| [r[0], r[1], r[2]]);
                }
                "NCCL_ALGO" => {
                    let names = algo_names(version);
                    let row = allreduce_row(&v, names, version)
                        .map_err(|e| self.invalid(&key, format!("NCCL {version}: {e}")))?;
                    if let Some(r) = &row
                        && !r[Algo::Tree as usize]
                        && !r[Algo::Ring as usize]
                        && r.iter().any(|&x| x)
                    {
                        return Err(self.invalid(
                            &key,
                            format!("`{v}` leaves allreduce only NVLS/CollNet/PAT, which tpsim does not model (Ring and Tree only)"),
                        ));
                    }
                    out.algo_enable = row.map(|r| [r[Algo::Tree as usize], r[Algo::Ring as usize]]);
                }
                "NCCL_MIN_NCHANNELS" | "NCCL_MAX_NCHANNELS" => {
                    let n: i64 = v.trim().parse().map_err(|_| {
                        self.invalid(
                            &key,
                            format!("`{v}`: expected an integer (NCCL keeps it within 1 to 64)"),
                        )
                    })?;
                    // `connect.cc` `ncclMinNchannels` / `ncclMaxNchannels` (v2.30.7): above
                    // MAXCHANNELS (64) is limited to it; a minimum below 0 is 0 (none), a maximum below
                    // 1 is 1, each with NCCL's INFO line.
                    let max = i64::from(nccl::MAXCHANNELS);
                    if k == "NCCL_MIN_NCHANNELS" {
                        if n > max {
                            warnings.push(format!(
                                "NCCL: User asked for a minimum of {n} channels, limiting to {max}"
                            ));
                        }
                        let n = n.clamp(0, max) as u32;
                        out.min_nchannels = (n > 0).then_some(n);
                    } else {
                        if n < 1 {
                            warnings.push(format!(
                                "NCCL: User asked for a maximum of {n} channels, setting it to 1"
                            ));
                        }
                        out.max_nchannels = Some(n.clamp(1, max) as u32);
                    }
                }
                "NCCL_NTHREADS" | "NCCL_LL128_NTHREADS" => {
                    let n: i64 = v.parse().map_err(|_| {
                        self.invalid(
                            &key,
                            format!("`{v}`: expected an integer (threads per block, a multiple of 32)"),
                        )
                    })?;
                    if k == "NCCL_NTHREADS" {
                        out.nthreads = Some(n);
                    } else {
                        out.ll128_nthreads = Some(n);
                    }
                }
                "NCCL_BUFFSIZE" | "NCCL_LL_BUFFSIZE" | "NCCL_LL128_BUFFSIZE" => {
                    // Bytes per connection buffer; NCCL_STEPS (8) slots must each hold something.
                    let n: u64 = v
                        .parse()
                        .ok()
                        .filter(|&n| n >= u64::from(nccl::NCCL_STEPS))
                        .ok_or_else(|| {
                            self.invalid(&key, format!("`{v}`: expected a byte count ≥ 8 (e.g. 4194304)"))
                        })?;
                    let p = match k.as_str() {
                        "NCCL_LL_BUFFSIZE" => Proto::Ll,
                        "NCCL_LL128_BUFFSIZE" => Proto::Ll128,
                        _ => Proto::Simple,
                    };
                    out.buffsize[p as usize] = Some(n);
                }
                "NCCL_GRAPH_FILE" => {
                    let (_, text) = self.read_relative(&key, &v)?;
                    let g = nccl::parse_graph_file(&text)
                        .map_err(|e| self.invalid(&key, format!("`{v}`: {e}")))?;
                    out.graph = Some(g);
                }
                _ => return Err(self.invalid(&key, format!("unknown variable: expected one of {KNOWN}"))),
            }
        }
        if let Some(t) = tuner {
            let lines = match (t.rows, t.file) {
                (Some(r), None) => r,
                (None, Some(f)) => {
                    let (_, text) = self.read_relative("engine.nccl_tuner.file", &f)?;
                    text.lines().map(str::to_string).collect()
                }
                _ => {
                    return Err(self.invalid(
                        "engine.nccl_tuner",
                        "expected exactly one of `rows` (the config's CSV lines) and `file`",
                    ));
                }
            };
            let rows = nccl::parse_tuner_rows(&lines)
                .map_err(|(i, m)| self.invalid("engine.nccl_tuner.rows", format!("row {}: {m}", i + 1)))?;
            out.tuner = Some(TunerPlugin {
                rows,
                reg_buff: cuda_graph,
            });
        }
        Ok(out)
    }

    /// The custom allreduce's cutoff: `engine.custom_allreduce_max_size` or the engine's default —
    /// vLLM 0.11.0 `CustomAllreduce(max_size=8192 * 1024)`, lowered to
    /// `CUSTOM_ALL_REDUCE_MAX_SIZES[cc][world_size]` on compute capability 9.0 / 10.0 when torch
    /// symmetric memory is on (`VLLM_ALLREDUCE_USE_SYMM_MEM`, default 1; all_reduce_utils.py), and
    /// `should_custom_ar` takes sizes strictly below it; SGLang 0.5.9 `_MAX_CAR_SIZE = 8192 * 1024`
    /// and `should_custom_ar` takes sizes up to it inclusive.
    ///
    /// vllmfloor: the table applies from vLLM 0.11.0 only. vLLM 0.8.5 has no symmetric-memory
    /// allreduce (no `VLLM_ALLREDUCE_USE_SYMM_MEM` in its `envs.py`; `custom_all_reduce.py`: the
    /// plain 8 MiB `max_size`); vLLM 0.10.2 has the table but `VLLM_ALLREDUCE_USE_SYMM_MEM`
    /// defaults to "0" there (`envs.py`; `custom_all_reduce.py` lowers `max_size` only when
    /// `symm_mem_enabled`), both read from the releases' wheels; the default became on with vllm
    /// PR #24111. A release tpsim cannot read is taken as current (the table applies).
    pub(super) fn custom_limits(
        &self,
        given: Option<u64>,
        kind: EngineKind,
        compute_capability: &str,
        tp: u32,
        release_version: &str,
        warnings: &mut Vec<String>,
    ) -> Result<CustomLimits, ScenarioError> {
        const MIB: u64 = 1 << 20;
        let inclusive = kind == EngineKind::Sglang;
        if let Some(b) = given {
            if b == 0 || !b.is_multiple_of(16) {
                return Err(self.invalid(
                    "engine.custom_allreduce_max_size",
                    format!("{b} bytes: expected a positive multiple of 16 (the kernel's buffer unit)"),
                ));
            }
            return Ok(CustomLimits {
                pcie_ipc_max_bytes: None,
                max_size: b,
                inclusive,
                quick_reduce: None,
            });
        }
        let mut max_size = 8 * MIB;
        let symm_mem_default_on =
            crate::engine_args_versions::release(release_version).is_none_or(|r| r >= vec![0, 11, 0]);
        if kind == EngineKind::Vllm && symm_mem_default_on {
            let table = match (compute_capability.trim(), tp) {
                ("9.0", 2) => Some(64 * MIB),
                ("9.0", 4) => Some(32 * MIB),
                ("9.0", 6) => Some(MIB / 2),
                ("9.0", 8) => Some(MIB / 4),
                ("10.0", 2 | 4) => Some(2 * MIB),
                ("10.0", 6 | 8) => Some(MIB),
                _ => None,
            };
            if let Some(t) = table {
                max_size = max_size.min(t);
                warnings.push(format!(
                    "vLLM: custom allreduce max_size {} KiB on compute capability {compute_capability} with {tp} ranks (torch symmetric memory on); larger messages go to symmetric-memory allreduce, which tpsim costs as NCCL",
                    max_size >> 10
                ));
            }
        }
        Ok(CustomLimits {
            max_size,
            inclusive,
            pcie_ipc_max_bytes: None,
            quick_reduce: None,
        })
    }
}

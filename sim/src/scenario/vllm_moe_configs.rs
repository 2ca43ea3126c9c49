//! h200_63: whether vLLM's triton fused MoE finds a tuned kernel config for a deployment, from the
//! list of config files each tabled release ships (`scenarios/engines/moe-configs/vllm.toml`,
//! moetable's listing of the PyPI wheels' `vllm/model_executor/layers/fused_moe/configs/`).
//!
//! vLLM names the file as SGLang does less the space in the block shape (`fused_moe.py`
//! `get_config_file_name`: `E=<E>,N=<N>,device_name=<get_device_name(), spaces → _>[,dtype=<d>]
//! [,block_shape=[<bn>,<bk>]].json`; 0.19.0 names every device with an `H200` word `NVIDIA_H200`),
//! with (E, _, N) = the rank's w2 (`try_get_optimal_moe_config`), and without the file logs "Using
//! default MoE config. Performance might be sub-optimal! Config file not found at …" and runs
//! `get_default_config`. For bf16 / fp16 experts at M ≤ E (M: the call's tokens) that is, in
//! 0.8.5 (`fused_moe.py` line 779) and 0.11.0 (line 905), the tile SGLang 0.5.2's default runs:
//! 16 × 32 × 64, GROUP_SIZE_M 1, no `num_warps` / `num_stages`, in the same triton
//! `fused_moe_kernel`. sglang PR 10404 measured that tile against a tuned file on H200
//! (`decode::passes::moe_call::UNTUNED_BF16_CALL_US`), so the charge applies to these two
//! releases; 0.19.0's default scales its tile with M (16 × 64 × 128, 4 stages at M ≤ 32; line
//! 1273 on), which no measurement times: no answer there, and the key keeps `true`. At M > E the
//! 0.8.5 / 0.11.0 default is 64 × 64 × 32, GROUP_SIZE_M 8, also unmeasured (`passes::moe_call`
//! charges the untuned call under vLLM only at M ≤ E).

use super::moe_configs::{Deployment, Lookup};
use serde::Deserialize;

/// The bundled list (its header names its sources).
const TABLE: &str = include_str!("../../../scenarios/engines/moe-configs/vllm.toml");

/// The tabled releases whose `get_default_config` was read to run the measured 16 × 32 × 64 tile
/// for bf16 / fp16 experts at M ≤ E (module doc).
pub const MEASURED_TILE_RELEASES: [&str; 2] = ["0.8.5", "0.11.0"];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    release: Vec<Release>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Release {
    version: String,
    #[allow(dead_code)]
    wheel: String,
    #[allow(dead_code)]
    sha256: String,
    #[allow(dead_code)]
    name_code: String,
    files: Vec<String>,
}

/// The file name vLLM `release` looks up for `E` experts, shard `n`, torch device name `device`,
/// config dtype `dtype` (`None`: bf16 / fp16) and fp8 block `block` (module doc).
pub fn file_name(
    release: &str,
    e: u64,
    n: u64,
    device: &str,
    dtype: Option<&str>,
    block: Option<[u32; 2]>,
) -> String {
    let mut device = device.replace(' ', "_");
    let minor = super::attention_backend::minor(release).unwrap_or(0);
    if minor >= 19 && device.split('_').any(|w| w == "H200") {
        device = "NVIDIA_H200".to_string();
    }
    let dtype = dtype.map(|d| format!(",dtype={d}")).unwrap_or_default();
    let block = block
        .filter(|b| b[0] > 0 && b[1] > 0)
        .map(|b| format!(",block_shape=[{},{}]", b[0], b[1]))
        .unwrap_or_default();
    format!("E={e},N={n},device_name={device}{dtype}{block}.json")
}

/// vLLM's lookup for deployment `d` (`d.triton_nvidia`: vLLM's triton fused MoE on an NVIDIA GPU),
/// or `None` where tpsim has no answer: a dense model, another MoE path, an expert format other
/// than bf16 / fp16 / fp8, no device name, or a release outside [`MEASURED_TILE_RELEASES`].
/// `first_folder` and `found_in` name vLLM's one folder, `configs`.
pub fn for_deployment(d: &Deployment) -> Option<Lookup> {
    use tpsim_model::llm::WeightDtype;
    let moe = d.moe?;
    if !d.triton_nvidia || d.tp == 0 || d.ep == 0 || !d.tp.is_multiple_of(d.ep) {
        return None;
    }
    if !MEASURED_TILE_RELEASES.contains(&d.release) {
        return None;
    }
    let dtype = match d.experts.dtype {
        WeightDtype::Bf16 | WeightDtype::Fp16 => None,
        WeightDtype::Fp8 => Some("fp8_w8a8"),
        _ => return None,
    };
    let block = d.experts.block_size.filter(|_| dtype.is_some());
    let e = moe.n_routed_experts / u64::from(d.ep);
    let n = moe.moe_intermediate / u64::from(d.tp / d.ep);
    let file = file_name(d.release, e, n, d.device?, dtype, block);
    let found = table()
        .release
        .iter()
        .find(|r| r.version == d.release)
        .is_some_and(|r| r.files.contains(&file));
    Some(Lookup {
        file,
        first_folder: "configs".to_string(),
        found_in: found.then(|| "configs".to_string()),
    })
}

/// The bundled list, parsed once a process (every vLLM MoE scenario load looks it up).
fn table() -> &'static Table {
    static PARSED: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    // The bundled file is checked by this module's tests; a parse failure is a build defect.
    PARSED.get_or_init(|| toml::from_str(TABLE).expect("scenarios/engines/moe-configs/vllm.toml parses"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names as the wheels' `get_config_file_name` builds them: the block shape without its space,
    /// 0.19.0's H200-family rule (an `NVIDIA H200 NVL` looks up `NVIDIA_H200`), 0.11.0 without it.
    #[test]
    fn names_follow_each_release() {
        assert_eq!(
            file_name(
                "0.11.0",
                256,
                256,
                "NVIDIA H200",
                Some("fp8_w8a8"),
                Some([128, 128])
            ),
            "E=256,N=256,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128,128].json"
        );
        assert_eq!(
            file_name("0.19.0", 160, 192, "NVIDIA H200 NVL", None, None),
            "E=160,N=192,device_name=NVIDIA_H200.json"
        );
        assert_eq!(
            file_name("0.11.0", 160, 192, "NVIDIA H200 NVL", None, None),
            "E=160,N=192,device_name=NVIDIA_H200_NVL.json"
        );
    }

    /// Every tabled release of the measured tile is in the bundled list.
    #[test]
    fn measured_tile_releases_are_tabled() {
        let t = table();
        for v in MEASURED_TILE_RELEASES {
            assert!(t.release.iter().any(|r| r.version == v), "{v}");
        }
    }
}

//! moetable: whether SGLang's triton fused MoE finds a tuned kernel config for a deployment, from
//! the list of config files each release ships (`scenarios/engines/moe-configs/sglang.toml`, read
//! from the PyPI wheels). The file name is built as the wheels' `get_config_file_name` builds it;
//! the folders are searched as their `get_moe_configs` searches them (the installed triton's folder,
//! then the `supported_triton_versions` fallbacks). The answer is the default of
//! `engine.moe_tuned_config` (`scenario::engine`); without a tabled release, a device name or a
//! triton-path MoE there is no answer and the key keeps its old default, `true`.

use serde::Deserialize;

/// The bundled table (the data file's header names its sources).
const TABLE: &str = include_str!("../../../scenarios/engines/moe-configs/sglang.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    release: Vec<Release>,
    folder: Vec<Folder>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Release {
    version: String,
    #[allow(dead_code)]
    sha256: String,
    #[allow(dead_code)]
    torch: String,
    triton: String,
    fallback: Vec<String>,
    /// Whether the release's `get_config_file_name` appends `,per_channel_quant=True` (absent: yes).
    #[serde(default = "yes")]
    per_channel_selector: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Folder {
    name: String,
    releases: Vec<String>,
    files: Vec<String>,
}

/// The fused-MoE call's shape as SGLang names its config: experts on the rank `e`, the rank's
/// shard `n` of `moe_intermediate_size`, the torch device name, the config dtype
/// (`get_config_dtype_str`: `None` for bf16 / fp16), the fp8 block `[n, k]`, per-channel scales.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoeCall<'a> {
    /// `E`: routed experts held by one rank (all of them, or ÷ `ep_size` under expert parallelism).
    pub e: u64,
    /// `N`: `moe_intermediate_size` ÷ the MoE TP size (the third dimension of w2 on the rank).
    pub n: u64,
    /// `torch.cuda.get_device_name()`, as the GPU template's `device_name` gives it.
    pub device: &'a str,
    /// `fp8_w8a8`, `int8_w8a8`, … or `None` for 16-bit experts.
    pub dtype: Option<&'a str>,
    /// fp8 block quantization `[block_n, block_k]`.
    pub block: Option<[u32; 2]>,
    /// One scale per output channel (`per_channel_quant`).
    pub per_channel: bool,
}

/// What SGLang's lookup finds for one call on one release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// The file name it looks for.
    pub file: String,
    /// The folder it reads from first (`triton_<installed triton>`).
    pub first_folder: String,
    /// The folder the file was found in (the first, or a fallback); `None`: the default tile.
    pub found_in: Option<String>,
}

/// The config file name for `c` under `release` (`get_config_file_name`), or `None` when the
/// release is not tabled.
pub fn file_name(release: &str, c: &MoeCall) -> Option<String> {
    let t = table();
    let r = t.release.iter().find(|r| r.version == release)?;
    Some(name(r, c))
}

fn name(r: &Release, c: &MoeCall) -> String {
    let dtype = c.dtype.map(|d| format!(",dtype={d}")).unwrap_or_default();
    let block = c
        .block
        .filter(|b| b[0] > 0 && b[1] > 0)
        .map(|b| format!(",block_shape=[{}, {}]", b[0], b[1]))
        .unwrap_or_default();
    let channel = if c.per_channel && r.per_channel_selector {
        ",per_channel_quant=True"
    } else {
        ""
    };
    let device = c.device.replace(' ', "_");
    format!(
        "E={},N={},device_name={device}{dtype}{block}{channel}.json",
        c.e, c.n
    )
}

/// SGLang `release`'s lookup for `c`: the installed triton's folder, then the fallbacks in order.
/// `None` when the release is not in the table.
pub fn lookup(release: &str, c: &MoeCall) -> Option<Lookup> {
    let t = table();
    let r = t.release.iter().find(|r| r.version == release)?;
    let file = name(r, c);
    let folder_of = |v: &str| format!("triton_{}", v.replace('.', "_"));
    let first_folder = folder_of(&r.triton);
    let order = std::iter::once(r.triton.as_str())
        .chain(r.fallback.iter().map(String::as_str).filter(|v| *v != r.triton));
    let found_in = order.map(folder_of).find(|f| {
        t.folder
            .iter()
            .any(|d| d.name == *f && d.releases.iter().any(|v| v == release) && d.files.contains(&file))
    });
    Some(Lookup {
        file,
        first_folder,
        found_in,
    })
}

/// The deployment whose fused-MoE config SGLang looks up, as tpsim resolves it.
#[derive(Debug)]
pub struct Deployment<'a> {
    /// The SGLang release (`engine.version`, or tpsim's current one).
    pub release: &'a str,
    /// The GPU's torch device name (`hardware.gpu.device_name`), if the template gives one.
    pub device: Option<&'a str>,
    /// The model's MoE shape (`None`: a dense model).
    pub moe: Option<&'a tpsim_model::llm::MoeShape>,
    /// The routed experts' weight format.
    pub experts: tpsim_model::llm::WeightFormat,
    /// TP size and expert-parallel size (1 or `tp`).
    pub tp: u32,
    /// Expert-parallel size: 1, or `tp` (each rank holds E ÷ tp whole experts).
    pub ep: u32,
    /// Shared experts SGLang fuses into the routed `FusedMoE` (DeepSeek-V3/R1: 1, so E = 257;
    /// `decode::passes::sgl_fused_shared`), else 0.
    pub fused_shared: u64,
    /// Whether the MoE runs SGLang's triton `fused_moe` on an NVIDIA GPU (no other
    /// `engine.moe_backend`, no DeepEP all-to-all): the only path that reads these files.
    pub triton_nvidia: bool,
}

/// SGLang's lookup for deployment `d`, or `None` where tpsim has no answer: a dense model, another
/// MoE path, an expert format the triton fused MoE does not run with a config dtype tpsim can name
/// (bf16 / fp16: none; fp32: `float32`; fp8: `fp8_w8a8`; int8 / int4 / FP4 experts: not looked up),
/// no device name, or a release the table does not list.
pub fn for_deployment(d: &Deployment) -> Option<Lookup> {
    use tpsim_model::llm::WeightDtype;
    let moe = d.moe?;
    if !d.triton_nvidia || d.tp == 0 || d.ep == 0 || !d.tp.is_multiple_of(d.ep) {
        return None;
    }
    let dtype = match d.experts.dtype {
        WeightDtype::Bf16 | WeightDtype::Fp16 => None,
        WeightDtype::Fp32 => Some("float32"),
        WeightDtype::Fp8 => Some("fp8_w8a8"),
        _ => return None,
    };
    let fp8 = dtype == Some("fp8_w8a8");
    // `fused_moe.py`: (E, _, N) = the rank's w2, experts ÷ ep, intermediate ÷ (tp ÷ ep).
    let call = MoeCall {
        e: moe.n_routed_experts / u64::from(d.ep) + d.fused_shared,
        n: moe.moe_intermediate / u64::from(d.tp / d.ep),
        device: d.device?,
        dtype,
        block: d.experts.block_size.filter(|_| fp8),
        per_channel: fp8 && d.experts.per_channel,
    };
    lookup(d.release, &call)
}

/// The releases the table lists, oldest first.
pub fn releases() -> Vec<String> {
    table().release.iter().map(|r| r.version.clone()).collect()
}

/// The bundled table, parsed once a process (every scenario load looks it up).
fn table() -> &'static Table {
    static PARSED: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    // The bundled file is checked by this module's tests; a parse failure is a build defect.
    PARSED.get_or_init(|| toml::from_str(TABLE).expect("scenarios/engines/moe-configs/sglang.toml parses"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bf16<'a>(e: u64, n: u64, device: &'a str) -> MoeCall<'a> {
        MoeCall {
            e,
            n,
            device,
            dtype: None,
            block: None,
            per_channel: false,
        }
    }

    /// Every release and folder of the file parses, each folder names tabled releases only.
    #[test]
    fn the_table_parses_and_names_its_releases() {
        let t = table();
        assert_eq!(
            releases(),
            [
                "0.5.2",
                "0.5.3.post3",
                "0.5.6",
                "0.5.6.post1",
                "0.5.7",
                "0.5.8",
                "0.5.8.post1",
                "0.5.9"
            ]
        );
        for f in &t.folder {
            assert!(f.releases.iter().all(|v| releases().contains(v)), "{}", f.name);
            assert!(!f.files.is_empty(), "{}", f.name);
        }
    }

    /// Names read by hand from `unzip -l sglang-0.5.8.post1-py3-none-any.whl` (PyPI):
    /// `configs/triton_3_5_1/E=512,N=128,…` does not exist; `configs/triton_3_4_0/` holds
    /// `E=512,N=128,device_name=NVIDIA_H200.json` and `…NVIDIA_H20-3e.json` but no
    /// `…NVIDIA_H20.json`; `configs/triton_3_1_0/` holds
    /// `E=256,N=256,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json` (reached by
    /// the last fallback).
    #[test]
    fn lookups_match_the_hand_read_wheel_listing() {
        let h20 = lookup("0.5.8.post1", &bf16(512, 128, "NVIDIA H20")).unwrap();
        assert_eq!(h20.file, "E=512,N=128,device_name=NVIDIA_H20.json");
        assert_eq!((h20.first_folder.as_str(), h20.found_in), ("triton_3_5_1", None));
        let h200 = lookup("0.5.8.post1", &bf16(512, 128, "NVIDIA H200")).unwrap();
        assert_eq!(h200.found_in.as_deref(), Some("triton_3_4_0"));
        let h20_3e = lookup("0.5.8", &bf16(512, 128, "NVIDIA H20-3e")).unwrap();
        assert_eq!(h20_3e.found_in.as_deref(), Some("triton_3_4_0"));
        let ds = MoeCall {
            dtype: Some("fp8_w8a8"),
            block: Some([128, 128]),
            ..bf16(256, 256, "NVIDIA H200")
        };
        let l = lookup("0.5.8", &ds).unwrap();
        assert_eq!(
            l.file,
            "E=256,N=256,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json"
        );
        assert_eq!(l.found_in.as_deref(), Some("triton_3_1_0"));
        // RTX PRO 6000 Server: no file of any shape in any release (only the Max-Q part's).
        let pro = "NVIDIA RTX PRO 6000 Blackwell Server Edition";
        for v in releases() {
            assert_eq!(lookup(&v, &bf16(128, 384, pro)).unwrap().found_in, None, "{v}");
        }
        assert_eq!(lookup("0.4.9", &bf16(512, 128, "NVIDIA H200")), None);
    }

    /// b200moe49: the releases the B200 cookbook rows name (0.5.6, 0.5.6.post1; 0.5.7 for GLM-4.7-Flash's
    /// page), read from `python3 /work/tools/wheel_ls.py sglang V sglang/srt/layers/moe/fused_moe_triton/configs/`
    /// (the wheels' listings): no `device_name=NVIDIA_B200` bf16 file for GLM-4.6 at TP 8 (E=161 with
    /// the fused shared expert, N=192), Qwen3-235B at TP 8 (E=128, N=192) or Qwen3-Next at TP 8
    /// (E=512, N=64) in any folder, so those rows ran `get_default_config`'s tile. The H200 has
    /// Qwen3-235B's file from `triton_3_2_0` (every release) and GLM-4.6's from the `triton_3_5_1`
    /// folder that 0.5.6.post1 adds (kept in 0.5.7; absent from 0.5.6).
    #[test]
    fn the_b200_cookbook_releases_ship_no_b200_file_for_their_shapes() {
        for v in ["0.5.6", "0.5.6.post1", "0.5.7"] {
            for (e, n) in [(161, 192), (128, 192), (512, 64)] {
                let l = lookup(v, &bf16(e, n, "NVIDIA B200")).unwrap();
                assert_eq!(l.found_in, None, "{v} E={e} N={n}");
                assert_eq!(l.first_folder, "triton_3_5_1", "{v}");
            }
            let q = lookup(v, &bf16(128, 192, "NVIDIA H200")).unwrap();
            assert_eq!(q.found_in.as_deref(), Some("triton_3_2_0"), "{v}");
        }
        let glm = |v: &str| lookup(v, &bf16(161, 192, "NVIDIA H200")).unwrap().found_in;
        assert_eq!(glm("0.5.6"), None);
        assert_eq!(glm("0.5.6.post1").as_deref(), Some("triton_3_5_1"));
        assert_eq!(glm("0.5.7").as_deref(), Some("triton_3_5_1"));
    }

    /// The H200 E=512,N=128 bf16 file first ships in 0.5.3.post3: `unzip -l
    /// sglang-0.5.2-py3-none-any.whl` lists `triton_3_4_0/E=512,N=128,device_name=NVIDIA_H20-3e.json`
    /// and `…NVIDIA_H100_80GB_HBM3.json` but no `…NVIDIA_H200.json`, the 0.5.3.post3 wheel adds it.
    /// Per-channel names carry no selector in 0.5.2 (its `get_config_file_name`, line 26).
    #[test]
    fn releases_differ_where_the_wheels_do() {
        let h200 = bf16(512, 128, "NVIDIA H200");
        assert_eq!(lookup("0.5.2", &h200).unwrap().found_in, None);
        assert_eq!(
            lookup("0.5.3.post3", &h200).unwrap().found_in.as_deref(),
            Some("triton_3_4_0")
        );
        let pc = MoeCall {
            dtype: Some("fp8_w8a8"),
            per_channel: true,
            ..bf16(161, 192, "NVIDIA H200")
        };
        assert_eq!(
            file_name("0.5.2", &pc).unwrap(),
            "E=161,N=192,device_name=NVIDIA_H200,dtype=fp8_w8a8.json"
        );
        assert_eq!(
            file_name("0.5.8", &pc).unwrap(),
            "E=161,N=192,device_name=NVIDIA_H200,dtype=fp8_w8a8,per_channel_quant=True.json"
        );
    }
}

//! moetable: the default of `engine.moe_tuned_config` follows the table of fused-MoE configs each
//! SGLang release ships (`scenarios/engines/moe-configs/sglang.toml`, read from the PyPI wheels;
//! `tpsim::scenario::moe_configs`). Checked: file names read by hand from the wheels, the engine's
//! warning text in `tpsim run`, the explicit key overriding the table, vLLM untouched, and the
//! memory plan unchanged.

use crate::common::{f, run_json, scenario, scratch, tpsim};

/// The table's text.
fn table() -> String {
    std::fs::read_to_string(scenario("engines/moe-configs/sglang.toml")).unwrap()
}

/// The files one `[[folder]]` of the table lists for `release`.
fn folder(name: &str, release: &str) -> Vec<String> {
    let t: toml::Value = toml::from_str(&table()).unwrap();
    let folders = t["folder"].as_array().unwrap();
    let d = folders
        .iter()
        .find(|d| {
            d["name"].as_str() == Some(name)
                && d["releases"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|r| r.as_str() == Some(release))
        })
        .unwrap_or_else(|| panic!("{name} {release}"));
    d["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// A Qwen3-Next-80B-A3B (bf16, 512 experts, moe_intermediate 512) scenario on `hw` at TP `tp`
/// under SGLang, with `extra` engine lines; returns its path.
fn qwen3_next(dir: &str, hw: &str, tp: u32, extra: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"qwen3-next-80b-a3b\"\n[engine]\n\
         name = \"sglang\"\ntp = {tp}\ntrust_remote_code = true\n{extra}[workload]\nconcurrency = 8\n\
         prompt_len = 1000\noutput_len = 200\n"
    );
    let p = scratch(dir).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn moe_warnings(j: &serde_json::Value) -> Vec<String> {
    j["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .filter(|w| w.contains("fused-MoE"))
        .map(String::from)
        .collect()
}

/// Names read by hand from the wheels' file lists (`unzip -l`, PyPI `sglang-<v>-py3-none-any.whl`,
/// under `sglang/srt/layers/moe/fused_moe_triton/configs/`):
/// - 0.5.8.post1 `triton_3_4_0/`: `E=512,N=128,device_name=NVIDIA_H20-3e.json` and
///   `E=512,N=128,device_name=NVIDIA_H200.json`, no `E=512,N=128,device_name=NVIDIA_H20.json`;
/// - 0.5.8 `triton_3_5_1/`: `E=257,N=256,device_name=NVIDIA_H20,dtype=fp8_w8a8,block_shape=[128, 128].json`
///   (and its `_down` twin), the DeepSeek-V3 layer with the shared expert fused in;
/// - 0.5.2 `triton_3_4_0/`: 13 files, E=512 only for H100 and H20-3e;
/// - no release ships a file for `NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition` (only the Max-Q part's,
///   e.g. 0.5.8 `triton_3_5_1/E=161,N=192,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Max-Q_Workstation_Edition.json`).
#[test]
fn the_table_holds_the_hand_read_wheel_names() {
    let f340 = folder("triton_3_4_0", "0.5.8.post1");
    assert!(f340.contains(&"E=512,N=128,device_name=NVIDIA_H20-3e.json".to_string()));
    assert!(f340.contains(&"E=512,N=128,device_name=NVIDIA_H200.json".to_string()));
    assert!(!f340.contains(&"E=512,N=128,device_name=NVIDIA_H20.json".to_string()));
    let f351 = folder("triton_3_5_1", "0.5.8");
    for name in [
        "E=257,N=256,device_name=NVIDIA_H20,dtype=fp8_w8a8,block_shape=[128, 128].json",
        "E=257,N=256,device_name=NVIDIA_H20,dtype=fp8_w8a8,block_shape=[128, 128]_down.json",
        "E=161,N=192,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Max-Q_Workstation_Edition.json",
    ] {
        assert!(f351.contains(&name.to_string()), "{name}");
    }
    let f052 = folder("triton_3_4_0", "0.5.2");
    assert_eq!(f052.len(), 13);
    let e512: Vec<_> = f052.iter().filter(|n| n.starts_with("E=512,")).collect();
    assert_eq!(e512.len(), 4, "{e512:?}");
    assert!(
        e512.iter()
            .all(|n| n.contains("H100_80GB_HBM3") || n.contains("H20-3e"))
    );
    assert!(!table().contains("Blackwell_Server_Edition"));
}

/// Qwen3-Next on 8× H20 at TP 4 without the key: SGLang 0.5.9 (tpsim's current release since release52;
/// torch 2.9.1 as 0.5.8, wheel METADATA; the H20 file is in no folder either way) reads
/// `configs/triton_3_5_1/E=512,N=128,device_name=NVIDIA_H20.json` (torch 2.9.1 → triton 3.5.1), finds
/// it in no folder, and logs its default-config line; tpsim prints that line and charges the
/// untuned tile. The same model on H200 finds `triton_3_4_0/E=512,N=128,device_name=NVIDIA_H200.json`
/// by fallback: no warning.
#[test]
fn h20_without_a_shipped_file_warns_with_the_engines_line() {
    let j = run_json(&qwen3_next("h20", "h20-8x-nvlink", 4, ""));
    let w = moe_warnings(&j);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(
            "SGLang 0.5.9 ships no fused-MoE config `E=512,N=128,device_name=NVIDIA_H20.json`"
        ) && w[0].contains(
            "\"Using default MoE kernel config. Performance might be sub-optimal! Config file not found at \
             …/configs/triton_3_5_1/E=512,N=128,device_name=NVIDIA_H20.json\""
        ) && w[0].contains("charged"),
        "{w:?}"
    );
    let h200 = run_json(&qwen3_next("h200", "h200-8x-nvlink", 4, ""));
    assert!(moe_warnings(&h200).is_empty(), "{:?}", moe_warnings(&h200));
}

/// The explicit key overrides the table both ways. H20, `moe_tuned_config = true`: no warning and
/// each decode step 48 MoE layers × 15.69 µs (`UNTUNED_BF16_CALL_US`) = 0.753 ms shorter than the
/// table's default (ITL p50, ± 0.01 ms: integer-ns steps). H200, `false`: the old hand-set warning
/// (no table text) and the same 0.753 ms longer.
#[test]
fn the_explicit_key_overrides_the_table() {
    let charged = 48.0 * 15.69 / 1000.0;
    let itl = |j: &serde_json::Value| f(&j["serving"]["itl_ms"]["p50"]);
    let default = run_json(&qwen3_next("h20d", "h20-8x-nvlink", 4, ""));
    let tuned = run_json(&qwen3_next(
        "h20t",
        "h20-8x-nvlink",
        4,
        "moe_tuned_config = true\n",
    ));
    assert!(moe_warnings(&tuned).is_empty(), "{:?}", moe_warnings(&tuned));
    assert!((itl(&default) - itl(&tuned) - charged).abs() < 0.01);
    let h200 = run_json(&qwen3_next("h200d", "h200-8x-nvlink", 4, ""));
    let off = run_json(&qwen3_next(
        "h200f",
        "h200-8x-nvlink",
        4,
        "moe_tuned_config = false\n",
    ));
    let w = moe_warnings(&off);
    assert!(
        w.len() == 1 && w[0].starts_with("engine.moe_tuned_config = false:"),
        "{w:?}"
    );
    assert!((itl(&off) - itl(&h200) - charged).abs() < 0.01);
}

/// The release decides: SGLang 0.5.2 (torch 2.8.0 → triton 3.4.0) ships no H200 file for
/// E=512,N=128 (the 0.5.2 listing above), so an H200 Qwen3-Next at 0.5.2 runs the default tile —
/// the "before" state of sglang PR 10404, whose untuned 0.5.2 runs on H200 are the source of the
/// charge — while 0.5.8 finds the file.
#[test]
fn the_release_picks_the_file_list() {
    let j = run_json(&qwen3_next("v052", "h200-8x-nvlink", 4, "version = \"0.5.2\"\n"));
    let w = moe_warnings(&j);
    assert!(
        w.len() == 1
            && w[0].contains(
                "SGLang 0.5.2 ships no fused-MoE config `E=512,N=128,device_name=NVIDIA_H200.json`"
            )
            && w[0].contains("…/configs/triton_3_4_0/"),
        "{w:?}"
    );
}

/// vLLM: the table is SGLang's; no warning, no refusal without the key.
#[test]
fn vllm_is_untouched() {
    let p = scratch("vllm").join("s.toml");
    let text = std::fs::read_to_string(qwen3_next("vllm-src", "h20-8x-nvlink", 4, ""))
        .unwrap()
        .replace("name = \"sglang\"", "name = \"vllm\"");
    std::fs::write(&p, text).unwrap();
    let j = run_json(&p.display().to_string());
    assert!(moe_warnings(&j).is_empty(), "{:?}", moe_warnings(&j));
}

/// The memory plan does not read the key: `tpsim memory --json` on H20 is the same object with the
/// table's default (false) and with the key set true, warnings aside.
#[test]
fn memory_is_unaffected() {
    let strip = |o: String| {
        let mut j: serde_json::Value = serde_json::from_str(&o).unwrap();
        j.as_object_mut().unwrap().remove("warnings");
        j
    };
    let a = tpsim(&["memory", &qwen3_next("m1", "h20-8x-nvlink", 4, ""), "--json"]);
    let b = tpsim(&[
        "memory",
        &qwen3_next("m2", "h20-8x-nvlink", 4, "moe_tuned_config = true\n"),
        "--json",
    ]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    let (mut ja, mut jb) = (strip(a.stdout), strip(b.stdout));
    // The scenario path differs between the two files.
    for j in [&mut ja, &mut jb] {
        j.as_object_mut().unwrap().remove("scenario");
    }
    assert_eq!(ja, jb);
}

/// vLLM's list (`scenarios/engines/moe-configs/vllm.toml`; h200_63 uses its 0.8.5 and 0.11.0 lists): 154, 230 and 310
/// files in the 0.8.5, 0.11.0 and 0.19.0 wheels (`vllm/model_executor/layers/fused_moe/configs/`),
/// block shapes written without the space, and 0.19.0's one RTX PRO 6000 Server file
/// `E=20,N=1536,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition,dtype=fp8_w8a8.json`.
#[test]
fn vllm_list_holds_the_hand_read_wheel_names() {
    let text = std::fs::read_to_string(scenario("engines/moe-configs/vllm.toml")).unwrap();
    let t: toml::Value = toml::from_str(&text).unwrap();
    let rel = t["release"].as_array().unwrap();
    let files = |v: &str| -> Vec<String> {
        let r = rel.iter().find(|r| r["version"].as_str() == Some(v)).unwrap();
        r["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        [files("0.8.5").len(), files("0.11.0").len(), files("0.19.0").len()],
        [154, 230, 310]
    );
    let v19 = files("0.19.0");
    assert!(
        v19.contains(
            &"E=20,N=1536,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition,dtype=fp8_w8a8.json"
                .to_string()
        )
    );
    assert_eq!(
        v19.iter()
            .filter(|n| n.contains("Blackwell_Server_Edition"))
            .count(),
        1
    );
    assert!(v19.iter().any(|n| n.contains("block_shape=[128,128]")));
    assert!(!text.contains("block_shape=[128, 128]"));
}

/// A template that names another GPU without its own `device_name` does not inherit the base's:
/// the 48 GB RTX 4090 (`templates/rtx-4090-48gb.toml`, over `rtx-4090`) has none, so tpsim makes
/// no lookup there (no warning, key true), while the stock RTX 4090 box warns: SGLang 0.5.8 ships
/// no `E=64,N=384,device_name=NVIDIA_GeForce_RTX_4090.json` (ERNIE-4.5-21B-A3B at TP 4).
#[test]
fn a_renamed_gpu_without_a_device_name_is_not_looked_up() {
    let run = |hw: &str| {
        let p = scratch(hw).join("s.toml");
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"ernie-4.5-21b-a3b\"\n[engine]\n\
             name = \"sglang\"\ntp = 4\ntrust_remote_code = true\n[workload]\nconcurrency = 4\n\
             prompt_len = 512\noutput_len = 32\n"
        );
        std::fs::write(&p, text).unwrap();
        moe_warnings(&run_json(&p.display().to_string()))
    };
    let stock = run("rtx-4090-4x-no-p2p");
    assert!(
        stock.len() == 1 && stock[0].contains("`E=64,N=384,device_name=NVIDIA_GeForce_RTX_4090.json`"),
        "{stock:?}"
    );
    assert!(run("rtx-4090-48gb-4x-no-p2p").is_empty());
}

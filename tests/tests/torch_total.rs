//! Issue #17 point 5: vLLM sizes its budget from torch's device total (`torch.cuda.mem_get_info()`),
//! which is below nvidia-smi's. The GPU templates that carry it, from PyTorch's out-of-memory text
//! "GPU 0 has a total capacity of … GiB" on the named card (sources in each template): RTX 4090 23.64 GiB
//! (nvidia-smi 24,564 MiB), RTX PRO 6000 Blackwell 94.97 GiB (nvidia-smi 97,887 MiB), H200 139.80 GiB,
//! B200 178.36 GiB, A100 80 GB 79.15 GiB, RTX 5090 31.36 GiB. A preset that
//! gives another `memory_total_mib` without its own torch total (the 48 GB RTX 4090) does not inherit it.

use crate::common::*;

fn vllm_memory(name: &str, hardware: &str) -> (serde_json::Value, String) {
    let text = format!(
        "[hardware]\npreset = \"{hardware}\"\n[model]\npreset = \"mistral-7b-v0.3\"\n[engine]\nname = \"vllm\"\n\
         tp = 1\ngpu_memory_utilization = 0.9\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).expect("write");
    let file = p.display().to_string();
    let o = tpsim(&["memory", &file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let text = tpsim(&["run", &file]);
    (serde_json::from_str(&o.stdout).expect("JSON"), text.stdout)
}

#[test]
fn vllm_uses_torchs_total_where_the_gpu_has_one() {
    // RTX 4090: 23.64 GiB (the template's figure, to 1e-9: JSON float), no warning.
    let (j, text) = vllm_memory("torch-4090", "rtx-4090-1x");
    assert!((f(&j["total_gib"]) - 23.64).abs() < 1e-9, "{j}");
    assert!(!text.contains("no torch_total_gib"), "{text}");
    // RTX PRO 6000 Server, and Max-Q (luke's box; its template extends the Server one): 94.97 GiB.
    for (name, hw) in [
        ("torch-6000", "rtx-pro-6000-2x-turin-same-numa"),
        ("torch-maxq", "rtx-pro-6000-8x-3switch-luke"),
    ] {
        let (j, _) = vllm_memory(name, hw);
        assert!((f(&j["total_gib"]) - 94.97).abs() < 1e-9, "{hw}");
    }
    // H200 139.80 and B200 178.36 GiB (one public report's 8-GPU boxes of each), A100 80 GB 79.15, RTX 5090 31.36.
    for (name, hw, total) in [
        ("torch-h200", "h200-8x-nvlink", 139.80),
        ("torch-b200", "b200-8x-nvlink", 178.36),
        ("torch-a100", "a100-sxm4-80gb-1x", 79.15),
        ("torch-5090", "rtx-5090-2x-no-p2p", 31.36),
    ] {
        let (j, _) = vllm_memory(name, hw);
        assert!((f(&j["total_gib"]) - total).abs() < 1e-9, "{hw}");
    }
}

#[test]
fn a_gpu_with_other_memory_does_not_inherit_torchs_total() {
    // The 48 GB RTX 4090 (49,140 MiB, templates/rtx-4090-48gb.toml) extends the 24 GB template: its
    // total is nvidia-smi's 49,140 / 1024 = 47.988 GiB with the warning, not the 24 GB card's 23.64.
    let (j, text) = vllm_memory("torch-4090-48", "rtx-4090-48gb-4x-no-p2p");
    let total = f(&j["total_gib"]);
    assert!((total - 49_140.0 / 1024.0).abs() < 1e-9, "{total}");
    assert!(text.contains("no torch_total_gib"), "{text}");
}

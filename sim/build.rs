//! Bundles the preset data files under `scenarios/` into the binary, so `tpsim` finds them wherever
//! it is run from. Presets stay data: this script only lists files, it does not interpret them.
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

fn main() {
    // Read at run time of the script (not `env!`, fixed when the script was compiled): a moved checkout
    // must not reuse a stale path and bundle nothing.
    let manifest =
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for build scripts");
    let root = Path::new(&manifest).join("../scenarios");
    let mut out = String::new();
    for (kind, sub) in [
        ("HARDWARE", "hardware"),
        // Not presets themselves: the shared parts that presets name with `extends`.
        ("HARDWARE_TEMPLATES", "hardware/templates"),
        ("ENGINES", "engines"),
        ("ACCEPTANCE", "acceptance"),
        // Issue #17 point 4: NIC presets a `[hardware.cluster]` names with `nic = "<name>"`.
        ("NICS", "nics"),
    ] {
        let dir = root.join(sub);
        println!("cargo::rerun-if-changed={}", dir.display());
        writeln!(out, "/// Bundled `{sub}` presets: (name, file text).").unwrap();
        writeln!(out, "pub static {kind}: &[(&str, &str)] = &[").unwrap();
        for f in files(&dir, "toml") {
            println!("cargo::rerun-if-changed={}", f.display());
            let name = f.file_stem().unwrap().to_string_lossy();
            writeln!(
                out,
                "    ({name:?}, include_str!({:?})),",
                f.canonicalize().unwrap()
            )
            .unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dir = root.join("models");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut models: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    models.sort();
    writeln!(
        out,
        "/// Bundled model presets: (name, config.json text, quant.toml text)."
    )
    .unwrap();
    writeln!(out, "pub static MODELS: &[(&str, &str, &str)] = &[").unwrap();
    for m in &models {
        let (cfg, quant) = (m.join("config.json"), m.join("quant.toml"));
        if !cfg.exists() || !quant.exists() {
            continue;
        }
        println!("cargo::rerun-if-changed={}", cfg.display());
        println!("cargo::rerun-if-changed={}", quant.display());
        let name = m.file_name().unwrap().to_string_lossy();
        writeln!(
            out,
            "    ({name:?}, include_str!({:?}), include_str!({:?})),",
            cfg.canonicalize().unwrap(),
            quant.canonicalize().unwrap()
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    // Issue #16: a model preset may carry the checkpoint's ModelOpt `hf_quant_config.json`, read when
    // its quant.toml says `from = "config"`.
    writeln!(
        out,
        "/// Bundled model presets' `hf_quant_config.json`: (name, text)."
    )
    .unwrap();
    writeln!(out, "pub static MODEL_HF_QUANT: &[(&str, &str)] = &[").unwrap();
    for m in &models {
        let hf = m.join("hf_quant_config.json");
        if !hf.exists() || !m.join("quant.toml").exists() {
            continue;
        }
        println!("cargo::rerun-if-changed={}", hf.display());
        let name = m.file_name().unwrap().to_string_lossy();
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            hf.canonicalize().unwrap()
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    // Written beside and renamed over, never rewritten in place: a target directory copied with
    // hard links (one per git worktree) must not see another copy's presets.
    let dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let tmp = dir.join("presets.rs.tmp");
    std::fs::write(&tmp, out).unwrap();
    std::fs::rename(tmp, dir.join("presets.rs")).unwrap();
}

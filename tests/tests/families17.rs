//! families17 (issue #17): dense ERNIE-4.5 (`Ernie4_5ForCausalLM` / `Ernie4_5_ForCausalLM`) and dense
//! Hunyuan (`HunYuanDenseV1ForCausalLM`) end to end. The weights are pinned by hand in
//! `model/src/llm/tests_families17.rs` (360,748,032 and 7,504,568,320 parameters); here the examples
//! run, and the engine releases that do not register the config's name are refused.

use crate::common::*;

const ERNIE_VLLM: &str = "examples/ernie-4.5-0.3b-vllm-rtx4090.toml";
const HUNYUAN_SGLANG: &str = "examples/hy-mt2-7b-sglang-rtx4090x2.toml";

/// `example` with its text rewritten by `edit`, in a scratch file.
#[track_caller]
fn variant(example: &str, name: &str, edit: impl Fn(String) -> String) -> String {
    let text = edit(std::fs::read_to_string(scenario(example)).unwrap());
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The ERNIE preset renamed to the remote-code `Ernie4_5_ForCausalLM`, as a preset directory.
#[track_caller]
fn legacy_ernie_preset(name: &str) -> String {
    let dir = scratch(name).join("ernie-legacy");
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = std::fs::read_to_string(scenario("models/ernie-4.5-0.3b-pt/config.json")).unwrap();
    std::fs::write(
        dir.join("config.json"),
        cfg.replace("\"Ernie4_5ForCausalLM\"", "\"Ernie4_5_ForCausalLM\""),
    )
    .unwrap();
    std::fs::copy(
        scenario("models/ernie-4.5-0.3b-pt/quant.toml"),
        dir.join("quant.toml"),
    )
    .unwrap();
    dir.display().to_string()
}

/// ERNIE-4.5-0.3B at tp 1 under vLLM (0.19.0 by default): 360,748,032 bf16 parameters × 2 B =
/// 721,496,064 B is a floor of vLLM's weights line (which adds its RoPE cache, under 64 MiB here);
/// the cell 18 layers × 2 KV heads × 2 × 128 × 2 B = 18,432; no all-reduce at tp 1.
#[test]
fn ernie45_example_runs_under_vllm() {
    let vl = run_json(&scenario(ERNIE_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 721_496_064, "{w}");
    assert!(w < 721_496_064 + (64 << 20), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 18_432);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 0);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);
}

/// SGLang registers dense ERNIE-4.5 only as `Ernie4_5_ForCausalLM`: the preset (transformers' name)
/// is refused on `engine.name`; the remote-code name runs under SGLang, and under vLLM 0.19.0 (which
/// registers only the new name) it is refused on `engine.version`, accepted under 0.10.0.
#[test]
fn ernie45_names_by_engine() {
    let to_sglang = |t: String| {
        t.replace("name = \"vllm\"", "name = \"sglang\"")
            .replace("max_model_len = 32768", "context_length = 32768")
    };
    let out = tpsim(&["run", &variant(ERNIE_VLLM, "ernie-sglang", to_sglang)]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.name"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("Ernie4_5ForCausalLM has no SGLang implementation"),
        "{}",
        out.stderr
    );
    let legacy = legacy_ernie_preset("ernie-legacy");
    let with_legacy = |t: String| {
        t.replace(
            "preset = \"ernie-4.5-0.3b-pt\"",
            &format!("preset = \"{legacy}\""),
        )
    };
    let sg = run_json(&variant(ERNIE_VLLM, "ernie-legacy-sglang", |t| {
        to_sglang(with_legacy(t))
    }));
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 18_432);
    // SGLang's weights are the hand count exactly: 2 × 360,748,032.
    assert_eq!(entry_bytes(&sg, "target weights"), 721_496_064);
    let out = tpsim(&["run", &variant(ERNIE_VLLM, "ernie-legacy-vllm", with_legacy)]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("renamed from Ernie4_5_ForCausalLM in 0.10.1"),
        "{}",
        out.stderr
    );
    let ok = tpsim(&[
        "run",
        &variant(ERNIE_VLLM, "ernie-legacy-vllm-0.10.0", |t| {
            with_legacy(t).replace("[engine]\n", "[engine]\nversion = \"0.10.0\"\n")
        }),
    ]);
    assert!(!ok.stderr.contains("Ernie4_5"), "{}", ok.stderr);
    assert!(
        ok.stdout.contains("vLLM 0.10.0 (engine.version)"),
        "{}",
        ok.stdout
    );
}

/// Hy-MT2-7B at tp 2 under SGLang: 3,752,472,576 bf16 parameters a rank (vocabulary padded to
/// 128,192, 64,096 rows a rank) × 2 B = 7,504,945,152 B; the cell 32 layers × 4 KV heads a rank × 2 ×
/// 128 × 2 B = 65,536; two all-reduces a layer × 32 + the embedding's = 65.
#[test]
fn hunyuan_dense_example_runs_under_sglang() {
    let sg = run_json(&scenario(HUNYUAN_SGLANG));
    assert_eq!(entry_bytes(&sg, "target weights"), 7_504_945_152);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    assert_eq!(sg["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 65);
    assert!(f(&sg["throughput"]["tpot_ms"]) > 0.0);
}

/// vLLM registers `HunYuanDenseV1ForCausalLM` from 0.10.0 and SGLang from 0.4.9.post3: 0.9.2 and
/// 0.4.9.post2 are refused on `engine.version`.
#[test]
fn hunyuan_dense_before_its_first_releases_is_refused() {
    let vllm = |v: &'static str| {
        move |t: String| {
            t.replace(
                "name = \"sglang\"",
                &format!("name = \"vllm\"\nversion = \"{v}\""),
            )
            .replace("context_length = 32768", "max_model_len = 32768")
        }
    };
    let out = tpsim(&["run", &variant(HUNYUAN_SGLANG, "hy-vllm-0.9.2", vllm("0.9.2"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.version"), "{}", out.stderr);
    assert!(
        out.stderr.contains("vLLM registers it from 0.10.0"),
        "{}",
        out.stderr
    );
    let vl = run_json(&variant(HUNYUAN_SGLANG, "hy-vllm", vllm("0.19.0")));
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    let out = tpsim(&[
        "run",
        &variant(HUNYUAN_SGLANG, "hy-sglang-0.4.9.post2", |t| {
            t.replace(
                "name = \"sglang\"",
                "name = \"sglang\"\nversion = \"0.4.9.post2\"",
            )
        }),
    ]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("SGLang registers it from 0.4.9.post3"),
        "{}",
        out.stderr
    );
}

//! sglmem54 (issue #17): SGLang 0.5.20's larger 20 – 35 GiB bucket and 0.5.22's decode max_bs capped
//! at `--max-running-requests` (`tpsim_model::sglang_buckets`, read in the PyPI wheels'
//! `sglang/srt/arg_groups/memory_hook.py` `handle_gpu_memory_settings`), and the post-capture KV
//! sizing variable reported as not modelled (`scenario::post_capture`).
//!
//! The box: the bundled 4× RTX 5090 preset of `scenarios/examples/gemma-4-26b-a4b-sglang-rtx5090x4.toml`
//! (`rtx-5090-4x-syncopate-epyc-9b14`, 32,607 MiB a GPU), at tp 4, with a text-only dense model
//! (Qwen3-32B) so that no multimodal factor enters. Reserve (MiB) = 512 + 1.5 × max(chunk, 2048) +
//! 2 × max_bs + tp / 8 × 1024 (= 512) + 8 × the prefill-graph sizes up to the chunk (breakable graphs,
//! on by default from 0.5.15: 42 sizes to 2048, 50 to 4096, `tpsim_model::sglang_piecewise`); no
//! 10 GiB floor under 60 GiB; fraction = round((32,607 − reserve) / 32,607, 3), compared within 5e-7
//! (SGLang and tpsim both round to three decimals).

use std::path::Path;

const HW: &str = "rtx-5090-4x-syncopate-epyc-9b14";

fn load(version: &str, keys: &str) -> tpsim::scenario::Scenario {
    let text = format!(
        "[hardware]\npreset = \"{HW}\"\n[model]\npreset = \"qwen3-32b\"\n[engine]\nname = \"sglang\"\n\
         version = \"{version}\"\ntp = 4\n{keys}"
    );
    tpsim::scenario::load_str(&text, Path::new("sglmem54.toml")).unwrap()
}

fn eq3(ours: f64, expected: f64, what: &str) {
    assert!((ours - expected).abs() < 5e-7, "{what}: {ours} vs {expected}");
}

/// 0.5.19: chunk 2048, max_bs 80 → 512 + 3,072 + 160 + 512 + 336 = 4,592 → round(28,015 / 32,607)
/// = round(0.859171) = 0.859. 0.5.20 – 0.5.23: chunk 4096, max_bs 160 → 512 + 6,144 + 320 + 512 +
/// 400 = 7,888 → round(24,719 / 32,607) = round(0.758089) = 0.758: 3,296 MiB more reserve, about
/// 3.2 GiB less KV a GPU. The decode graphs' max_bs follows (80 → 160).
#[test]
fn larger_consumer_bucket_from_0_5_20() {
    let s = load("0.5.19", "");
    eq3(s.engine.mem_fraction_static, 0.859, "0.5.19");
    assert_eq!(tpsim::serve::graphs::sglang_max_bs(&s.engine, 32_607), 80);
    for v in ["0.5.20", "0.5.21", "0.5.22", "0.5.23"] {
        let s = load(v, "");
        eq3(s.engine.mem_fraction_static, 0.758, v);
        assert_eq!(tpsim::serve::graphs::sglang_max_bs(&s.engine, 32_607), 160, "{v}");
    }
    // A user's chunk of 2048 under 0.5.20: 512 + 3,072 + 320 + 512 + 336 = 4,752 →
    // round(27,855 / 32,607) = round(0.854265) = 0.854 (the max_bs stays the new bucket's 160).
    eq3(
        load("0.5.20", "chunked_prefill_size = 2048\n")
            .engine
            .mem_fraction_static,
        0.854,
        "0.5.20 chunk 2048",
    );
    // Cards outside 20 – 35 GiB keep their buckets: one H100 (81,559 MiB) gives sglres53's 0.830 with
    // Llama-3.1-8B under 0.5.19 and 0.5.20 alike.
    for v in ["0.5.19", "0.5.20"] {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\n\
             name = \"sglang\"\nversion = \"{v}\"\ntp = 1\n"
        );
        let s = tpsim::scenario::load_str(&text, Path::new("sglmem54.toml")).unwrap();
        eq3(s.engine.mem_fraction_static, 0.830, v);
    }
}

/// `--max-running-requests 64`: 0.5.21 reserves for max_bs 160 (0.758); 0.5.22 caps the default at 64
/// → 512 + 6,144 + 128 + 512 + 400 = 7,696 → round(24,911 / 32,607) = round(0.763977) = 0.764, and
/// captures decode graphs to 64. An explicit `cuda_graph_max_bs = 160` is not capped (0.758), nor is a
/// limit above the default (200 > 160: 0.758).
#[test]
fn decode_max_bs_capped_at_running_requests_from_0_5_22() {
    let mrr = "max_running_requests = 64\n";
    let s21 = load("0.5.21", mrr);
    eq3(s21.engine.mem_fraction_static, 0.758, "0.5.21");
    assert_eq!(tpsim::serve::graphs::sglang_max_bs(&s21.engine, 32_607), 160);
    for v in ["0.5.22", "0.5.23"] {
        let s = load(v, mrr);
        eq3(s.engine.mem_fraction_static, 0.764, v);
        assert_eq!(tpsim::serve::graphs::sglang_max_bs(&s.engine, 32_607), 64, "{v}");
        let sizes = tpsim::serve::graphs::capture_sizes(&s, false, 64, 4096);
        assert_eq!(sizes.last(), Some(&64), "{v}: {sizes:?}");
    }
    let explicit = load("0.5.22", "max_running_requests = 64\ncuda_graph_max_bs = 160\n");
    eq3(explicit.engine.mem_fraction_static, 0.758, "explicit max_bs");
    eq3(
        load("0.5.22", "max_running_requests = 200\n")
            .engine
            .mem_fraction_static,
        0.758,
        "limit above the default",
    );
}

/// `SGLANG_ENABLE_POST_CAPTURE_KV_SIZING` under SGLang: reported, never silently ignored, and the
/// fraction stays the heuristic one (0.758 as above); 0.5.15 has no such variable. Before sglmem54
/// the variable was refused as an unknown NCCL variable.
#[test]
fn post_capture_sizing_is_reported_as_not_modelled() {
    let env = "[engine.env]\nSGLANG_ENABLE_POST_CAPTURE_KV_SIZING = \"1\"\n";
    let s = load("0.5.22", env);
    eq3(s.engine.mem_fraction_static, 0.758, "0.5.22 with the variable");
    // tp 4, pp 1: 4 / 8 × 1024 = 512 MiB beside 0.5.18's 1,536.
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("reserves only 1536 + 512 MiB; NOT MODELLED")),
        "{:?}",
        s.warnings
    );
    let s15 = load("0.5.15", env);
    assert!(
        s15.warnings.iter().any(|w| w.contains("does not read it")),
        "{:?}",
        s15.warnings
    );
    let off = load(
        "0.5.22",
        "[engine.env]\nSGLANG_ENABLE_POST_CAPTURE_KV_SIZING = \"false\"\n",
    );
    assert!(!off.warnings.iter().any(|w| w.contains("POST_CAPTURE")));
}

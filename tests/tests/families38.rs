//! families38 (issue #17): MiniMax-M3's text model lowered (`Architecture::MiniMaxM3`,
//! `tpsim_model::llm::minimax_m3`) under SGLang 0.5.16 – 0.5.23: its weights a rank, the
//! `MiniMaxSparseKVPool` cell and the pool by hand, the model override's page 128 and log line, a
//! finite `run` with its extrapolation warning, and refusals for what is not modelled (vLLM, the
//! vision-language wrapper, quantized weights, an fp8 KV cache, drafts, EP, PP, 0.5.15).
//!
//! The config is `tests/data/models/minimax-m3-text` (the published wrapper's `text_config` under
//! the text model's name; see its README).

use crate::common::*;
use tpsim_model::llm::{ModelSpec, Quantization};

const GIB: f64 = (1u64 << 30) as f64;

fn text_config() -> String {
    std::fs::read_to_string(data_path("models/minimax-m3-text/config.json")).expect("read")
}

/// The text model on `preset` under SGLang `version` (or `engine`), tp 8, with `extra` engine keys
/// and `model_extra` model keys.
fn m3(name: &str, preset: &str, engine: &str, version: &str, extra: &str, model_extra: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{preset}\"\n[model]\nconfig = \"{}\"\n{model_extra}[engine]\nname = \
         \"{engine}\"\nversion = \"{version}\"\ntp = 8\n{extra}[workload]\nconcurrency = 8\nprompt_len = 1024\n\
         output_len = 64\n",
        data_path("models/minimax-m3-text/config.json").display()
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// A memory entry's bytes, from its MiB (exact for these integer byte counts).
fn entry_mib_bytes(j: &serde_json::Value, name: &str) -> u64 {
    let e = j["entries"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["name"] == name))
        .unwrap_or_else(|| panic!("{name} in {j}"));
    (f(&e["mib"]) * (1u64 << 20) as f64).round() as u64
}

/// Weights a rank at tp 8, bf16, by hand from SGLang 0.5.23 `models/minimax_m3.py` (exact; tolerance
/// none). h = 6,144; 64 query heads / 8 = 8 a rank; 4 KV heads < 8 so one replicated a rank.
/// - embedding and LM head (vocab-parallel, 200,064 already a multiple of 64): 2 × 25,008 × 6,144 × 2
///   = 614,596,608; final norm 12,288;
/// - every layer (60): norms 2 × 6,144 × 2 = 24,576; qkv_proj (8 + 2) × 128 = 1,280 rows × 6,144 × 2 =
///   15,728,640; o_proj 6,144 × 1,024 × 2 = 12,582,912; per-head q/k norms 256 × 2 = 512 → 28,336,640;
/// - MSA (57 sparse layers, no index value): `index_qkv_proj` over min(8, 4) = 4 ranks, 4 / 4 = 1
///   index query head + the index key head, (128 + 128) × 6,144 × 2 = 3,145,728; index q/k norms 512 →
///   3,146,240;
/// - dense MLP (layers 0 – 2): 3 × 6,144 × 12,288 / 8 × 2 = 56,623,104;
/// - MoE (57): router bf16 (`SGLANG_OPT_USE_BF16_ROUTER_GEMM` default True) 128 × 6,144 × 2 =
///   1,572,864; fp32 bias 512; experts 128 × 3 × 6,144 × 384 × 2 = 1,811,939,328; shared MLP 3 × 6,144
///   × 384 × 2 = 14,155,776 → 1,827,668,480.
///
/// 614,608,896 + 60 × 28,336,640 + 57 × 3,146,240 + 3 × 56,623,104 + 57 × 1,827,668,480 =
/// 106,841,115,648.
const WEIGHTS_TP8: u64 = 106_841_115_648;

#[test]
fn minimax_m3_weights_and_cell_by_hand() {
    let m = ModelSpec::from_config_json(&text_config(), Quantization::bf16()).expect("lowers");
    assert_eq!(m.arch, tpsim_model::llm::Architecture::MiniMaxM3);
    assert_eq!(
        614_608_896u64 + 60 * 28_336_640 + 57 * 3_146_240 + 3 * 56_623_104 + 57 * 1_827_668_480,
        WEIGHTS_TP8
    );
    let b = m.weight_breakdown(8);
    assert_eq!(b.total(), WEIGHTS_TP8, "{b:?}");
    assert_eq!(b.routed_experts, 57 * 1_811_939_328);
    assert_eq!(b.shared_experts, 57 * 14_155_776);
    // The cell (families37's figures): tp 1 137,472 B, tp 8 45,312 B.
    assert_eq!((m.kv_cell_bytes(1), m.kv_cell_bytes(8)), (137_472, 45_312));
    // Decode reads a step at 32,768 tokens, tp 8: 3 dense-attention layers × 512 × 32,768 +
    // 57 × (512 × 2,048 chosen + 256 × 32,768 index keys) = 50,331,648 + 537,919,488.
    let g = m.minimax_m3.as_ref().expect("geometry");
    assert_eq!(g.step_kv_read_bytes(8, 32_768), 588_251_136);
    // Below 2,048 tokens every token is read: 45,312 × 1,024.
    assert_eq!(g.step_kv_read_bytes(8, 1_024), 45_312 * 1_024);
}

/// SGLang 0.5.23 (and 0.5.16) on 8× H200 (SM 9.0), tp 8, `mem_fraction_static` 0.85. The override picks `fa3` and
/// page 128 and logs it. `available = total − (weights + RoPE + load segments) / 2^30`: RoPE one
/// fp32 cache of 1,048,576 positions × `rotary_dim` 64 × 4 = 268,435,456 B (one `get_rope` shared
/// by every layer and the indexer); the load segments (101,053,440 B) are tpsim's allocator model, not
/// this suite's subject, read from the report. total 138.81230468768626 GiB → available
/// 38.964648437686265, rest = available − total × 0.15 = 18.142802734533323 GiB → int(rest × 2^30) =
/// 19,480,686,100 B; ÷ 45,312 = 429,923.33 → 3,358 pages of 128 = 429,824 tokens; the pool (tokens +
/// one page) × 45,312 = 19,481,985,024 B. Integers exact; GiB to 1e-9.
#[test]
fn minimax_m3_sglang_h200_memory_by_hand() {
    // 0.5.16 (the first release) builds the same tensors (`index_qkv_proj` split by `tp_size =
    // idx_head_tp_size` where 0.5.22 names a `ReplicatedParallelGroup`), cell and override.
    for version in ["0.5.16", "0.5.23"] {
        memory_by_hand(version);
    }
}

fn memory_by_hand(version: &str) {
    let file = m3(
        &format!("m3-h200-{version}"),
        "h200-8x-nvlink",
        "sglang",
        version,
        "mem_fraction_static = 0.85\n",
        "",
    );
    let o = tpsim(&["memory", &file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(j["verdict"], "ok", "{j}");
    assert_eq!(entry_mib_bytes(&j, "target weights"), WEIGHTS_TP8);
    assert_eq!(entry_mib_bytes(&j, "RoPE cos/sin caches"), 1_048_576 * 64 * 4);
    let segments = entry_mib_bytes(&j, "weight-load allocator segments");
    let total = f(&j["total_gib"]);
    assert!((total - 138.812_304_687_686_26).abs() < 1e-9, "{j}");
    let available = total - (WEIGHTS_TP8 + 268_435_456 + segments) as f64 / GIB;
    assert!((f(&j["available_gib"]) - available).abs() < 1e-9, "{j}");
    let rest = available - total * 0.15;
    assert!((f(&j["rest_gib"]) - rest).abs() < 1e-9, "{j}");
    let rest_bytes = (rest * GIB) as u64;
    assert_eq!(rest_bytes, 19_480_686_100);
    assert_eq!(rest_bytes / 45_312 / 128 * 128, 429_824);
    assert_eq!(j["cell_size_bytes"], 45_312);
    assert_eq!(j["kv_tokens"], 429_824);
    assert_eq!(j["kv_cache"]["bytes"], 19_481_985_024u64);
    assert!(
        o.stderr.contains(
            "MiniMax-M3 on Hopper: attention_backend=fa3, page_size=128 (MSA is SM100-only; sparse attention runs \
             on the Triton path)."
        ),
        "{}",
        o.stderr
    );
}

/// The override by GPU and settings (0.5.16 `arg_groups/overrides.py`, 0.5.19 – 0.5.23
/// `model_overrides/minimax_m3.py`): on B200 (SM 10.0) `fa4` and page 128 ("MiniMax-M3 on SM100: …,
/// moe_runner_backend=auto."); a page given stands (64: 19,480,686,100 ÷ 45,312 → 6,717 pages of 64
/// = 429,888 tokens); another backend gets no page (`triton`: page 1, 429,923 tokens) and the line
/// says `page_size=None`.
#[test]
fn minimax_m3_override_page_by_backend() {
    let b200 = m3("m3-b200", "b200-8x-nvlink", "sglang", "0.5.23", "", "");
    let o = tpsim(&["memory", &b200]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("MiniMax-M3 on SM100: attention_backend=fa4, page_size=128, moe_runner_backend=auto."),
        "{}",
        o.stderr
    );
    for (name, extra, tokens, line) in [
        (
            "m3-page64",
            "mem_fraction_static = 0.85\npage_size = 64\n",
            429_888u64,
            "attention_backend=fa3, page_size=64 (",
        ),
        (
            "m3-triton",
            "mem_fraction_static = 0.85\nattention_backend = \"triton\"\n",
            429_923,
            "attention_backend=triton, page_size=None (",
        ),
    ] {
        let file = m3(name, "h200-8x-nvlink", "sglang", "0.5.23", extra, "");
        let o = tpsim(&["memory", &file, "--json"]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
        assert_eq!(j["kv_tokens"], tokens, "{name}: {j}");
        assert!(o.stderr.contains(line), "{name}: {}", o.stderr);
    }
    assert_eq!(19_480_686_100u64 / 45_312 / 64 * 64, 429_888);
}

/// `run` gives a finite throughput under SGLang 0.5.16 and 0.5.23 and says on every run that the
/// decode step is an extrapolation.
#[test]
fn minimax_m3_run_is_finite_and_flagged() {
    for version in ["0.5.16", "0.5.23"] {
        let file = m3(
            &format!("m3-run-{version}"),
            "h200-8x-nvlink",
            "sglang",
            version,
            "",
            "",
        );
        let o = tpsim(&["run", &file]);
        assert_eq!(o.code, 0, "{version}: {}", o.stderr);
        assert!(o.stdout.contains("tok/s"), "{}", o.stdout);
        assert!(
            o.stderr.contains("MiniMax-M3's decode step is an extrapolation"),
            "{}",
            o.stderr
        );
        let j = run_json(&file);
        let tpot = f(&j["throughput"]["tpot_ms"]);
        assert!(tpot.is_finite() && tpot > 0.0, "{version}: {j}");
    }
}

/// What is not modelled is refused with exit 2, naming its key: vLLM (from 0.24.0), SGLang 0.5.15
/// (no `models/minimax_m3.py`), fp8 weights, an fp8 KV cache, an MTP draft, EP, DP attention and PP.
#[test]
fn minimax_m3_refusals_name_their_key() {
    let spec = "[speculative]\nalgorithm = \"nextn\"\nnum_steps = 2\ntopk = 1\nnum_draft_tokens = 3\n";
    let cases: [(&str, &str, &str, &str, &str, &str); 8] = [
        ("vllm", "0.34.0", "", "", "engine.name", "MiniMax-M3 under vLLM"),
        (
            "sglang",
            "0.5.15",
            "",
            "",
            "engine.version",
            "SGLang 0.5.15 has no models/minimax_m3.py",
        ),
        (
            "sglang",
            "0.5.23",
            "",
            "quantization = { dtype = \"fp8\", block_size = [128, 128], scale_dtype = \"fp32\" }\n",
            "model.quantization",
            "a quantized MiniMax-M3",
        ),
        (
            "sglang",
            "0.5.23",
            "",
            "quantization = { dtype = \"bf16\", kv_cache_dtype = \"fp8_e4m3\" }\n",
            "model.quantization.kv_cache_dtype",
            "MiniMax-M3 with an fp8 KV cache",
        ),
        (
            "sglang",
            "0.5.23",
            "ep_size = 8\n",
            "",
            "engine.ep_size",
            "with expert parallelism",
        ),
        (
            "sglang",
            "0.5.23",
            "enable_dp_attention = true\ndp_size = 8\n",
            "",
            "engine.enable_dp_attention",
            "MiniMax-M3 with DP attention is not modelled",
        ),
        (
            "sglang",
            "0.5.23",
            "pp_size = 2\n",
            "",
            "engine.pp_size",
            "with pipeline stages",
        ),
        (
            "sglang",
            "0.5.23",
            "",
            "",
            "speculative",
            "MTP / DSpark / DFlash drafts",
        ),
    ];
    for (i, (engine, version, extra, model_extra, key, what)) in cases.into_iter().enumerate() {
        let file = m3(
            &format!("m3-refuse-{i}"),
            "h200-8x-nvlink",
            engine,
            version,
            extra,
            model_extra,
        );
        let text = std::fs::read_to_string(&file).expect("read");
        let text = match key {
            "speculative" => text + spec,
            // tp 4 × pp 2 on the 8 GPUs.
            "engine.pp_size" => text.replace("tp = 8", "tp = 4"),
            _ => text,
        };
        std::fs::write(&file, text).expect("write");
        let o = tpsim(&["run", &file]);
        assert_eq!(o.code, 2, "{key}: {} {}", o.stdout, o.stderr);
        assert!(!o.stdout.contains("tok/s"), "{}", o.stdout);
        assert!(o.stderr.contains(&format!("key `{key}`")), "{key}: {}", o.stderr);
        assert!(o.stderr.contains(what), "{key}: {what} not in {}", o.stderr);
    }
}

/// The report's floor reads MiniMax-M3's sparse KV, not the cell over the context: at 32,768 tokens of
/// prompt and concurrency 8, tp 8, 8 × 588,251,136 B (`minimax_m3_weights_and_cell_by_hand`) =
/// 4,706,009,088 B = 4.38 GiB a step (the whole cell would be 8 × 45,312 × 32,768 B = 11.06 GiB).
#[test]
fn minimax_m3_floor_reads_the_sparse_kv() {
    let file = m3("m3-floor", "h200-8x-nvlink", "sglang", "0.5.23", "", "");
    let text = std::fs::read_to_string(&file)
        .expect("read")
        .replace("prompt_len = 1024", "prompt_len = 32768");
    std::fs::write(&file, text).expect("write");
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(format!("{:.2}", 8.0 * 588_251_136.0 / GIB), "4.38");
    assert!(
        o.stdout.contains("+ 4.38 GiB KV per rank per step"),
        "{}",
        o.stdout
    );
}

//! ttft54 (issue #18): the out-of-sample light-load TTFT picture. Every row of
//! `tests/data/throughput.tsv` whose notes state a measured TTFT at concurrency 1 is run through its
//! scenario under `scenarios/validation/` (the scenario the row's own suite checks its decode figure
//! with) and tpsim's TTFT percentile is set against the measured one, grouped by engine, GPU vendor and
//! prompt length. `cargo test -p tpsim-tests --test integration ttft54:: -- --nocapture` prints the
//! table of book/src/validation.md ("The light-load TTFT picture (ttft54)").
//!
//! The measured value is read from the row's notes (the words in [`ROWS`] and the number after them),
//! never copied here. Nothing was fitted to any of these TTFTs. The prefill.tsv rows that are TTFTs
//! (lines 7–11, one Qwen2.5-7B request on an idle A100) are the A100 curve's fit rows, in-sample, and
//! stay in `prefill_rows`.

use crate::common::*;

/// Where a row falls: engine, GPU vendor, prompt class (≈ 1k tokens, or long: ≥ 8k).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Group {
    /// SGLang on NVIDIA GPUs, prompts of about 1,000 tokens (random 1000, ShareGPT).
    SglNvidia,
    /// SGLang on MI300X, prompts of about 1,000 tokens.
    SglRocm,
    /// vLLM on NVIDIA GPUs, prompts of 128 – 1,004 tokens.
    VllmNvidia,
    /// vLLM on MI300X.
    VllmRocm,
    /// One request at a time with a prompt of 8,000 tokens or more (either engine): prefill-bound.
    Long,
}

impl Group {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Group::SglNvidia => "SGLang, NVIDIA, ~1k prompt",
            Group::SglRocm => "SGLang, MI300X, ~1k prompt",
            Group::VllmNvidia => "vLLM, NVIDIA, 128-1k prompt",
            Group::VllmRocm => "vLLM, MI300X, ~1k prompt",
            Group::Long => "either engine, >= 8k prompt",
        }
    }
}

/// How the source states its TTFT: tpsim's `serving.ttft_ms` key compared with it.
const MEDIAN: &str = "p50";
/// A mean, or a "TTFT" whose statistic the source does not name (compared with tpsim's mean: at
/// concurrency 1 with equal prompts the two differ by the few requests' spread).
const MEAN: &str = "mean";

/// (throughput.tsv line, scenario under `scenarios/validation/`, group, the words before the measured
/// TTFT in the notes, tpsim's statistic).
pub(crate) const ROWS: &[(usize, &str, Group, &str, &str)] = &[
    (
        213,
        "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        216,
        "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        219,
        "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        222,
        "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        225,
        "qwen3-next-80b-a3b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        226,
        "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        229,
        "gpt-oss-120b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        230,
        "kimi-k2.5-h200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        233,
        "glm-4.7-flash-b200x1-sglang-0.5.7-tp1-1k1k-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        236,
        "deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
        Group::SglNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        253,
        "kimi-linear-48b-a3b-mi300x4-sglang-0.5.7-tp4-1k1k-c1.toml",
        Group::SglRocm,
        "median TTFT ",
        MEDIAN,
    ),
    (
        256,
        "ernie-4.5-21b-a3b-mi300x1-sglang-0.5.7-tp1-1k1k-c1.toml",
        Group::SglRocm,
        "median TTFT ",
        MEDIAN,
    ),
    (
        296,
        "minimax-m2.7-mi300x2-sglang-0.5.13-tp2-ep2-1k1k-c1.toml",
        Group::SglRocm,
        "'Low-latency | 2x2 | 1': TTFT ",
        MEAN,
    ),
    (
        300,
        "glm-5.1-fp8-mi300x8-sglang-0.5.13-tp8-1k1k-c1.toml",
        Group::SglRocm,
        "'1 | 64': TTFT ",
        MEAN,
    ),
    (
        304,
        "gemma-4-31b-mi300x1-sglang-0.5.13-tp1-1k1k-c1.toml",
        Group::SglRocm,
        "TTFT ",
        MEAN,
    ),
    (
        73,
        "qwen2.5-72b-h100-vllm-tp2-c1.toml",
        Group::VllmNvidia,
        "TTFT ",
        MEAN,
    ),
    (
        147,
        "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-tp8-c1.toml",
        Group::VllmNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        151,
        "glm-4.6-h200x8-vllm-0.11-tp8-c1.toml",
        Group::VllmNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        247,
        "gpt-oss-20b-pro6000x1-vllm-0.14-tp1-c1.toml",
        Group::VllmNvidia,
        "TTFT single request ",
        MEAN,
    ),
    (
        250,
        "qwen3-coder-next-fp8-h200x1-vllm-0.15-tp1-c1.toml",
        Group::VllmNvidia,
        "TTFT single request ",
        MEAN,
    ),
    (
        266,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-tp4-ep-replica-of-2-c1.toml",
        Group::VllmNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        269,
        "qwen3-coder-480b-awq-h200x8-vllm-0.11-tp4-ep-replica-of-2-c1.toml",
        Group::VllmNvidia,
        "median TTFT ",
        MEDIAN,
    ),
    (
        99,
        "gpt-oss-120b-mi300x-vllm-0.17-tp8-c1.toml",
        Group::VllmRocm,
        "TTFT ",
        MEAN,
    ),
    (
        64,
        "qwen3-14b-awq-a100-vllm-eager-c1.toml",
        Group::Long,
        "with TTFT ",
        MEAN,
    ),
    (
        249,
        "gpt-oss-20b-pro6000x1-vllm-0.14-tp1-c1-ctx128k.toml",
        Group::Long,
        "TTFT single request ",
        MEAN,
    ),
    (
        252,
        "qwen3-coder-next-fp8-h200x1-vllm-0.15-tp1-c1-ctx256k.toml",
        Group::Long,
        "TTFT single request ",
        MEAN,
    ),
    (
        291,
        "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c1.toml",
        Group::Long,
        "median TTFT ",
        MEDIAN,
    ),
    (
        292,
        "kimi-k2.5-nvfp4-b200x8-sglang-0.5.9-tp8-8k8k-c1.toml",
        Group::Long,
        "median TTFT ",
        MEDIAN,
    ),
];

/// The measured TTFT in ms of throughput.tsv line `line`: the number after `key` in its notes, with
/// its unit (`ms` or `s`). Panics when the row is not at concurrency 1 or the words are not there.
pub(crate) fn measured_ttft_ms(line: usize, key: &str) -> f64 {
    let (concurrency, notes) = throughput_notes(line);
    assert_eq!(concurrency, "1", "line {line} is not a concurrency-1 row");
    ttft_after(line, &notes, key).unwrap_or_else(|| panic!("line {line}: no '{key}' in the notes"))
}

/// (batch_or_concurrency, notes) of throughput.tsv line `line`.
pub(crate) fn throughput_notes(line: usize) -> (String, String) {
    let t = read_tsv(&data_path("throughput.tsv"));
    let (n, b) = (t.col("notes"), t.col("batch_or_concurrency"));
    let row = t
        .rows
        .iter()
        .find(|r| r.line == line)
        .unwrap_or_else(|| panic!("throughput.tsv has no line {line}"));
    (row.get(b).to_string(), row.get(n).to_string())
}

/// The TTFT in ms stated right after the first `key` in `notes` that a number follows (`ms` or `s`
/// after it), None when no occurrence of `key` is followed by a number. Panics on a number without
/// a unit (line `line` named).
pub(crate) fn ttft_after(line: usize, notes: &str, key: &str) -> Option<f64> {
    for (at, _) in notes.match_indices(key) {
        let rest = &notes[at + key.len()..];
        let num: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
            .collect();
        let Ok(v) = num.replace(',', "").parse::<f64>() else {
            continue;
        };
        let unit = rest[num.len()..].trim_start();
        return Some(if unit.starts_with("ms") {
            v
        } else if unit.starts_with('s') {
            v * 1000.0
        } else {
            panic!("line {line}: no unit after '{key}{num}'")
        });
    }
    None
}

/// One compared row: (line, group, measured ms, tpsim ms).
pub(crate) fn compare(row: &(usize, &str, Group, &str, &str)) -> (usize, Group, f64, f64) {
    let (line, file, group, key, stat) = *row;
    let m = measured_ttft_ms(line, key);
    let v = run_json(&scenario(&format!("validation/{file}")));
    let p = f(&v["serving"]["ttft_ms"][stat]);
    (line, group, m, p)
}

#[test]
fn light_load_ttft_table() {
    let rows: Vec<_> = ROWS.iter().map(compare).collect();
    println!("| throughput.tsv line | group | measured TTFT ms | tpsim ms | tpsim / measured |");
    println!("|---|---|---|---|---|");
    for (line, g, m, p) in &rows {
        println!("| {line} | {} | {m:.2} | {p:.2} | {:.3} |", g.label(), p / m);
    }
    println!("\n| group | rows | median tpsim / measured | range | within ±20 % |");
    println!("|---|---|---|---|---|");
    for g in [
        Group::SglNvidia,
        Group::SglRocm,
        Group::VllmNvidia,
        Group::VllmRocm,
        Group::Long,
    ] {
        let r: Vec<f64> = rows.iter().filter(|x| x.1 == g).map(|x| x.3 / x.2).collect();
        let (lo, hi) = r
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(*x), b.max(*x)));
        let within = r.iter().filter(|x| (*x - 1.0).abs() <= 0.20).count();
        println!(
            "| {} | {} | {:.3} | {lo:.3}-{hi:.3} | {within} |",
            g.label(),
            r.len(),
            median(&r)
        );
    }
    // The finding the book states: at about 1,000 prompt tokens every SGLang row (NVIDIA and
    // MI300X) is predicted at under 0.8 of its measured TTFT. A row that comes within the 20 %
    // target fails this test: the book's picture is then out of date.
    for (line, g, m, p) in &rows {
        if matches!(g, Group::SglNvidia | Group::SglRocm) {
            assert!(p / m < 0.8, "line {line}: tpsim {p:.2} ms against {m:.2} ms");
        }
    }
}

#[test]
fn measured_ttfts_are_read_with_their_units() {
    // Line 64 states "TTFT 3.45 s per request": 3.45 × 1000 = 3,450 ms (exact in binary to 1e-9).
    assert!((measured_ttft_ms(64, "with TTFT ") - 3450.0).abs() < 1e-9);
    // Line 249 states "TTFT single request 21.4 s": 21,400 ms.
    assert!((measured_ttft_ms(249, "TTFT single request ") - 21_400.0).abs() < 1e-9);
    // Line 213 states "median TTFT 80.38 ms".
    assert!((measured_ttft_ms(213, "median TTFT ") - 80.38).abs() < 1e-9);
}

/// TTFT (mean, ms) of row 247's gpt-oss-20b scenario (vLLM 0.14.1, one RTX PRO 6000, c 1) with a
/// prompt of `prompt` tokens, 2 requests of 4 output tokens, at `launch_us` µs a host launch.
fn gpt_oss_ttft(prompt: u32, launch_us: u32) -> f64 {
    gpt_oss_ttft_at(prompt, launch_us, "0.14.1", "")
}

/// The same at vLLM `version` with `extra` lines added to `[engine]` (ttft55 reuses it).
pub(crate) fn gpt_oss_ttft_at(prompt: u32, launch_us: u32, version: &str, extra: &str) -> f64 {
    let file = "validation/gpt-oss-20b-pro6000x1-vllm-0.14-tp1-c1.toml";
    let tag: String = extra.chars().filter(char::is_ascii_alphanumeric).collect();
    let name = format!("graphlimit-{prompt}-{launch_us}-{version}-{tag}");
    let p = edited_variant(file, &name, |t| {
        assert!(t.contains("\nprompt_len = 1000\n") && t.contains("\nnum_requests = 8\n"));
        assert!(t.contains("\nversion = \"0.14.1\""));
        t.replace("\nprompt_len = 1000\n", &format!("\nprompt_len = {prompt}\n"))
            .replace("\nnum_requests = 8\n", "\nnum_requests = 2\n")
            .replace("\noutput_len = 1024\n", "\noutput_len = 4\n")
            .replace(
                "\nversion = \"0.14.1\"",
                &format!("\n{extra}version = \"{version}\""),
            )
            .replace(
                "\n[workload]\n",
                &format!("\n[engine.costs]\nlaunch_overhead = \"{launch_us}us\"\n\n[workload]\n"),
            )
    });
    f(&run_json(&p)["serving"]["ttft_ms"]["mean"])
}

#[test]
fn vllm_prefill_above_the_largest_graph_runs_without_graphs() {
    // vLLM 0.14.1 captures up to min(2 × max_num_seqs, 512) = 512 tokens for any max_num_seqs
    // ≥ 256 (its defaults are 256 or 1,024), and for gpt-oss raises the largest size to 1,024
    // (ttft55, `scenario::gpt_oss_graphs`). The slope of the TTFT in the host launch cost counts the
    // launches of one prefill when the host is the bottleneck (3–4 ms a launch: it is, where at
    // 1–2 ms the GPU work of 1,000 tokens still hides part of the host's).
    // 1,000 tokens (≤ 1,024): PIECEWISE, one eager attention call a layer, 24 layers:
    // 24 × (4,000 − 3,000) µs = 24.0 ms, within 2 %.
    let graphed = gpt_oss_ttft(1000, 4000) - gpt_oss_ttft(1000, 3000);
    assert!(
        (graphed / 24.0 - 1.0).abs() < 0.02,
        "graphed slope {graphed:.2} ms"
    );
    // 1,100 tokens (> 1,024): CUDAGraphMode.NONE, every kernel launched: at least 8 a layer
    // (norm, qkv, rope, attention, o_proj, norm, router, experts) over 24 layers = 192 ms.
    // Before ttft54 it was the graphed 24 ms.
    let ungraphed = gpt_oss_ttft(1100, 4000) - gpt_oss_ttft(1100, 3000);
    assert!(ungraphed > 192.0, "ungraphed slope {ungraphed:.2} ms");
    println!("launch slope: 1,000 tokens {graphed:.2} ms, 1,100 tokens {ungraphed:.2} ms");
}

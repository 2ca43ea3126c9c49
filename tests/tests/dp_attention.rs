//! Issue #17: SGLang's DP attention (`--enable-dp-attention --dp-size`) through `tpsim memory` and
//! `tpsim run`. Expected figures are SGLang's own arithmetic, computed by hand in the comments.

use crate::common::*;

fn memory_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["memory", file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("JSON")
}

fn example_with(name: &str, from: &str, to: &str) -> String {
    let text =
        std::fs::read_to_string(scenario("examples/deepseek-v3-dp-attention-h200x8.toml")).expect("example");
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    p.display().to_string()
}

/// SGLang 0.5.8/0.5.9 `server_args.py` `_handle_gpu_memory_settings` on an H200 (143,771 MiB, tp 8:
/// chunked_prefill_size 8192, cuda_graph_max_bs 512): reserved = 512 + 1.5 × 8192 + 2 × 512 + 8/8 ×
/// 1024 = 14,848 MiB; DP attention at dp 8 adds 512 × 8 × 3 = 12,288 and (512 > 300) 512 × 8 × 1.5 =
/// 6,144 → 33,280 MiB (above the 10 GiB floor); f = round((143,771 − 33,280) / 143,771, 3) =
/// round(0.76852, 3) = 0.769. Without DP attention: round(128,923 / 143,771, 3) = 0.897.
#[test]
fn default_fraction_carries_sglangs_dp_attention_reserve() {
    let f = scenario("examples/deepseek-v3-dp-attention-h200x8.toml");
    let j = memory_json(&f);
    assert_eq!(j["mem_fraction_static"], 0.769);
    let plain = example_with("dp-off", "enable_dp_attention = true\ndp_size = 8\n", "");
    assert_eq!(memory_json(&plain)["mem_fraction_static"], 0.897);
    // dp_size 1 turns DP attention off (SGLang `_handle_data_parallelism`): plain TP's fraction.
    let one = example_with("dp-one", "dp_size = 8", "dp_size = 1");
    assert_eq!(memory_json(&one)["mem_fraction_static"], 0.897);
}

/// Each attention group has its own pool: DeepSeek-V3's MLA cell stays 576 × 61 × 2 = 70,272 B, and
/// the box holds dp = 8 groups' requests: largest concurrency at 1024 + 256 = 1,280 tokens = 8 ×
/// ⌊tokens / 1,280⌋. The rank's weights grow by the embedding and attention now sharded over one
/// rank instead of eight: the embedding alone by 129,280 × 7,168 × 2 × 7/8 = 1,621,688,320 B.
#[test]
fn pools_and_weights_per_attention_group() {
    let j = memory_json(&scenario("examples/deepseek-v3-dp-attention-h200x8.toml"));
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 70_272);
    let tokens = j["kv_tokens"].as_u64().expect("tokens");
    assert_eq!(
        j["max_concurrency_at_context"].as_u64(),
        Some(8 * (tokens / 1_280))
    );
    let weights = |j: &serde_json::Value| {
        j["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .find(|e| e["name"] == "target weights")
            .map(|e| f(&e["mib"]))
            .expect("weights entry")
    };
    let plain = memory_json(&example_with(
        "dp-off-w",
        "enable_dp_attention = true\ndp_size = 8\n",
        "",
    ));
    let grew = (weights(&j) - weights(&plain)) * 1_048_576.0;
    assert!(grew > 1_621_688_320.0, "{grew}");
}

/// A GQA model: Qwen3-235B-A22B's 4 KV heads at tp 8 give each rank one replicated head (1 × 2 ×
/// 128 × 94 × 2 = 48,128 B per token); with dp 8 each rank holds all 4 of its group: 4 × 2 × 128 × 94
/// × 2 = 192,512 B (SGLang `get_num_kv_heads(get_attention_tp_size())`).
#[test]
fn gqa_kv_heads_follow_the_attention_tp() {
    let f = example_with(
        "qwen3",
        "preset = \"deepseek-v3\"",
        "preset = \"qwen3-235b-a22b\"",
    );
    assert_eq!(memory_json(&f)["kv_cache"]["cell_size_bytes"], 192_512);
    let f = example_with(
        "qwen3-plain",
        "[model]\npreset = \"deepseek-v3\"\n\n[engine]\nname = \"sglang\"\nversion = \"0.5.8\"\ntp = 8\nenable_dp_attention = true\ndp_size = 8\n",
        "[model]\npreset = \"qwen3-235b-a22b\"\n\n[engine]\nname = \"sglang\"\nversion = \"0.5.8\"\ntp = 8\n",
    );
    assert_eq!(memory_json(&f)["kv_cache"]["cell_size_bytes"], 48_128);
}

/// `tpsim run` names the gathers and scatters in its breakdown; the header states the layout and the
/// engine's chunked-prefill warning (8192 / 8 = 1024) is printed. The decodes (MAX_LEN) have no
/// per-layer allreduce (`passes::dp_attention` tests); the prefills do (issue #18 leftover dpsched2):
/// with an extend in the batch SGLang gathers in SUM_LEN mode and the MoE all-reduces its own
/// output (`communicator.py` `should_use_reduce_scatter` false, `deepseek_v2.py`).
#[test]
fn run_reports_the_dp_collectives() {
    let file = scenario("examples/deepseek-v3-dp-attention-h200x8.toml");
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("dp-attn   dp 8 × attention tp 1"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("dp_gather") && o.stdout.contains("dp_scatter"),
        "{}",
        o.stdout
    );
    assert!(
        o.stderr.contains("The chunked prefill size is adjusted to 1024"),
        "{}",
        o.stderr
    );
    let j = run_json(&file);
    let by_op = &j["breakdown_by_op"];
    assert!(f(&by_op["allreduce"]) > 0.0, "{by_op}");
    assert!(
        f(&by_op["dp_gather"]) > 0.0 && f(&by_op["dp_scatter"]) > 0.0,
        "{by_op}"
    );
}

/// The KV warning of `tpsim run` is per attention group (each group its own pool, its share of the
/// requests): the example's pool is 234,843 tokens per group (rope51: 236,634 before SGLang 0.5.8's
/// DeepSeek RoPE caches, 3 × 163,840 × 64 × 4 B = 125,829,120 B a rank, took 125,829,120 / 70,272 B =
/// 1,790.6 → 1,791 tokens); at 1,024 + 8 = 1,032 tokens per request a group holds ⌊234,843 / 1,032⌋ =
/// 227 requests, so 8 × 227 = 1,816 concurrent requests draw no warning and 1,824 (228 per group:
/// 235,296 tokens) do. Before, the box's whole concurrency was compared with one group's pool (a
/// warning from 186 requests on).
#[test]
fn kv_warning_counts_one_groups_share() {
    let text =
        std::fs::read_to_string(scenario("examples/deepseek-v3-dp-attention-h200x8.toml")).expect("example");
    let run = |c: u32| {
        let t = text
            .replace("concurrency = 64", &format!("concurrency = {c}"))
            .replace("num_requests = 128", &format!("num_requests = {c}"))
            .replace("output_len = 256", "output_len = 8");
        let p = scratch(&format!("dp-kv-warning-{c}")).join("scenario.toml");
        std::fs::write(&p, t).expect("write");
        let o = tpsim(&["run", &p.display().to_string()]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        o.stdout
    };
    let fits = run(1816);
    // No KV warning at all (the old text said "exceed the KV cache", the new "exceed one KV pool").
    assert!(!fits.contains(" exceed "), "{fits}");
    let over = run(1824);
    assert!(
        over.contains(
            "228 requests × 1032 tokens (1824 requests over 8 pools) exceed one KV pool (234843 tokens)"
        ),
        "{over}"
    );
}

/// rope17 (issue #17): the report's floor reads the weights a rank reads under DP attention — the
/// attention at the attention TP (SGLang 0.5.9 `qwen3_moe.py` shards heads by
/// `get_attention_tp_size()`), the MoE and LM head at tp — not the full-tp pass. Qwen3-30B-A3B (hidden
/// 2,048; 48 layers; 32 query / 4 KV heads of 128) at tp 4 with dp 4 (attention TP 1) against plain
/// tp 4, 16 requests: q 2,048 × 4,096 + k, v 2 × 2,048 × 512 + o 4,096 × 2,048 = 18,874,368
/// parameters a layer, × 2 B = 37,748,736 B at attention TP 1 against 9,437,184 B at tp 4 (its 4 KV
/// heads split one a rank, so exactly a quarter): 28,311,552 B more a layer, × 48 = 1,358,954,496 B
/// = 1.265625 GiB. The q/k norms are replicated in both; the embedding rows read are the same (4
/// requests × 2,048 × 2 B whole against 16 × 2,048 × 2 B / 4); the experts and LM head run at tp 4
/// over the same 16 tokens.
#[test]
fn floor_reads_the_attention_at_the_attention_tp() {
    let text = |engine: &str| {
        format!(
            "seed = 1\n[hardware]\npreset = \"rtx-pro-6000-8x-1switch\"\n[model]\npreset = \"qwen3-30b-a3b\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.8\"\ntp = 4\n{engine}\n\
             [workload]\nconcurrency = 16\nprompt_len = 1024\noutput_len = 256\n"
        )
    };
    let read = |name: &str, engine: &str| {
        let p = scratch(name).join("scenario.toml");
        std::fs::write(&p, text(engine)).expect("write");
        let j = run_json(&p.display().to_string());
        f(&j["floor"]["weights_read_gib_per_step"])
    };
    let dp = read("floor-dp", "enable_dp_attention = true\ndp_size = 4");
    let plain = read("floor-tp", "");
    assert!(
        (dp - plain - 1.265625).abs() < 1e-9,
        "{dp} - {plain} = {}",
        dp - plain
    );
}

//! Issue #17 (dp): data-parallel replicas — SGLang `--dp-size` without DP attention and vLLM
//! `--data-parallel-size` on a dense model (`scenario::replicas`, `serve::replicas`). Expected figures
//! are a logged vLLM figure, SGLang's own reserve arithmetic, or the round-robin split computed by hand.

use crate::common::*;

fn write(name: &str, text: &str) -> String {
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

fn memory_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["memory", file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("JSON")
}

/// tests/data/engine-memory.tsv line 22 (vLLM 0.19.0, Llama-3.1-8B-Instruct, one H100 80 GB, tp 1,
/// gpu_memory_utilization 0.95, "Model loading took 8.49 GiB", logged "GPU KV cache size: 529,248
/// tokens"; the arithmetic is in engine_memory.rs `vllm_kv_tokens_from_a_log_it_was_not_fitted_to`).
/// Under `--data-parallel-size 8` each DP engine's worker profiles its own GPU (vLLM
/// `v1/worker/gpu_worker.py` `determine_available_memory`, one per rank) with a tp-1 world, so each logs
/// the same 529,248 tokens; the eight hold 8 × 529,248 = 4,233,984. Exact (the plan is the tp-1 one).
#[test]
fn vllm_dp8_each_engine_sizes_its_own_kv_as_the_logged_tp1_engine() {
    let text = "[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\n\
                name = \"vllm\"\nversion = \"0.19.0\"\ntp = 1\ndp_size = 8\ngpu_memory_utilization = 0.95\n\
                [engine.observed]\nfree_at_start_gib = 78.68\nweights_gib = 8.49\n";
    let j = memory_json(&write("dp8-vllm-mem", text));
    assert_eq!(j["kv_tokens"], 529_248);
    assert_eq!(j["replicas"], 8);
    assert_eq!(j["kv_tokens_all_replicas"], 4_233_984);
    // Nine engines of one GPU do not fit eight GPUs.
    let o = tpsim(&[
        "memory",
        &write("dp9-vllm", &text.replace("dp_size = 8", "dp_size = 9")),
    ]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("engine.dp_size") && o.stderr.contains("= 9 GPUs, but the hardware has 8"),
        "{}",
        o.stderr
    );
}

/// SGLang 0.5.9 `_handle_gpu_memory_settings` on an H100 (81,559 MiB), tp 2 (chunked_prefill_size 8192,
/// cuda_graph_max_bs 256): reserved = 512 + 1.5 × 8192 + 2 × 256 + 2 × 1 / 8 × 1024 = 13,568 MiB (above
/// the 10 GiB floor); f = round((81,559 − 13,568) / 81,559, 3) = round(0.83364, 3) = 0.834. The DP
/// reserve (+ cuda_graph_max_bs × dp × 3) applies only with DP attention, so four replicas keep 0.834,
/// and their pools add up: 4 × the replica's tokens.
#[test]
fn sglang_replicas_keep_the_plain_tp_fraction_and_multiply_the_pool() {
    let j = memory_json(&scenario("examples/llama-3.1-8b-sglang-h100x8-dp4-tp2.toml"));
    assert_eq!(j["mem_fraction_static"], 0.834);
    assert_eq!(j["replicas"], 4);
    let tokens = j["kv_tokens"].as_u64().expect("tokens");
    assert_eq!(j["kv_tokens_all_replicas"].as_u64(), Some(4 * tokens));
    // Closed loop of 128 over 4 replicas: 32 requests of 1024 + 512 tokens each per pool.
    assert_eq!(j["max_context_at_concurrency"].as_u64(), Some(tokens / 32));
    let o = tpsim(&[
        "memory",
        &scenario("examples/llama-3.1-8b-sglang-h100x8-dp4-tp2.toml"),
    ]);
    assert!(
        o.stdout
            .contains("data-parallel replicas: 4 engines of tp 2 × pp 1 GPUs (8 GPUs)"),
        "{}",
        o.stdout
    );
}

fn dense(dp: u32, concurrency: u32, requests: u32) -> serde_json::Value {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\n\
         name = \"vllm\"\nversion = \"0.19.0\"\ntp = 1\ndp_size = {dp}\n[workload]\nconcurrency = {concurrency}\n\
         num_requests = {requests}\nprompt_len = 256\noutput_len = 64\n"
    );
    run_json(&write(&format!("dense-dp{dp}-c{concurrency}"), &text))
}

/// Round robin over alike replicas with fixed lengths: with dp 4, 16 clients and 32 requests, each
/// replica gets requests i ≡ r (mod 4) — 8 of them — and 16 / 4 = 4 clients, i.e. exactly the run of one
/// engine with 4 clients and 8 requests. So the deployment's throughputs are 4 × that engine's, its
/// finished count 4 × 8 = 32, and its latencies the same. Tolerance: 1e-9 relative (float sums).
#[test]
fn replicas_split_a_closed_loop_round_robin() {
    let one = dense(1, 4, 8);
    let four = dense(4, 16, 32);
    let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1e-300);
    for k in ["output_tok_s", "e2e_output_tok_s"] {
        let (a, b) = (f(&four["throughput"][k]), f(&one["throughput"][k]));
        assert!(rel(a, 4.0 * b) < 1e-9, "{k}: {a} vs 4 × {b}");
    }
    let (a, b) = (
        f(&four["throughput"]["per_request_tok_s"]),
        f(&one["throughput"]["per_request_tok_s"]),
    );
    assert!(rel(a, b) < 1e-9, "per request {a} vs {b}");
    assert_eq!(four["serving"]["finished"], 32);
    let (a, b) = (
        f(&four["serving"]["request_throughput"]),
        f(&one["serving"]["request_throughput"]),
    );
    assert!(rel(a, 4.0 * b) < 1e-9, "{a} vs 4 × {b}");
    assert!(
        rel(
            f(&four["serving"]["ttft_ms"]["mean"]),
            f(&one["serving"]["ttft_ms"]["mean"])
        ) < 1e-9
    );
    // Two clients keep at most two of eight replicas busy: the run of two engines with one client
    // each (4 requests each): 2 × the one-engine figure.
    let two = dense(8, 2, 8);
    let single = dense(1, 1, 4);
    let (a, b) = (
        f(&two["throughput"]["output_tok_s"]),
        f(&single["throughput"]["output_tok_s"]),
    );
    assert!(rel(a, 2.0 * b) < 1e-9, "{a} vs 2 × {b}");
    assert!(two["warnings"].as_array().expect("warnings").iter().any(|w| {
        w.as_str()
            .is_some_and(|w| w.contains("vLLM runs 8 data-parallel engines"))
    }));
}

/// vLLM 0.11.0 runs a dense model's DP ranks in lock-step (`DPEngineCoreProc`); 0.19.0 does not
/// (`core.py` "Non-MoE DP ranks are completely independent"): only the older version is warned.
#[test]
fn vllm_lock_step_is_warned_before_0_19() {
    let base = "[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\n\
                name = \"vllm\"\nversion = \"0.19.0\"\ntp = 2\ndp_size = 4\n";
    let warned = |text: &str, name: &str| {
        let o = tpsim(&["validate", &write(name, text)]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        o.stderr
            .contains("steps the data-parallel ranks of a dense model together")
    };
    assert!(!warned(base, "lock-0.19"));
    assert!(warned(&base.replace("0.19.0", "0.11.0"), "lock-0.11"));
}

/// `tpsim engine-args`: vLLM 0.11.0 `arg_utils.py` `--data-parallel-size`; SGLang 0.5.9 `--dp-size`
/// (without `--enable-dp-attention`).
#[test]
fn engine_args_print_each_engines_dp_flag() {
    let o = tpsim(&[
        "engine-args",
        &scenario("examples/llama-3.1-8b-vllm-h100x8-dp8.toml"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("--data-parallel-size 8"), "{}", o.stdout);
    let o = tpsim(&[
        "engine-args",
        &scenario("examples/llama-3.1-8b-sglang-h100x8-dp4-tp2.toml"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("--dp-size 4") && !o.stdout.contains("--enable-dp-attention"),
        "{}",
        o.stdout
    );
}

/// The NCCL an engine version runs (model/src/nccl/versions.rs, from the torch wheels' METADATA):
/// vLLM 0.19.0 `requirements/cuda.txt` torch==2.10.0 → nvidia-nccl-cu12==2.27.5; SGLang 0.5.23
/// torch==2.14.1 → nvidia-nccl-cu13==2.30.7.
#[test]
fn nccl_pins_of_newer_engines() {
    let j = run_json(&scenario("examples/llama-3.1-8b-vllm-h100x8-dp8.toml"));
    assert_eq!(j["scenario"]["nccl_version"], "2.27.5");
    assert_eq!(j["scenario"]["nccl_version_source"], "vllm 0.19.0's torch pin");
    let text = std::fs::read_to_string(scenario("examples/llama-3.1-8b-sglang-h100x8-dp4-tp2.toml"))
        .expect("example")
        .replacen(
            "version = \"0.5.8\"",
            "version = \"0.5.23\"\ncosts = { era = \"spring-2026\" }",
            1,
        );
    let j = run_json(&write("pin-0.5.23", &text));
    assert_eq!(j["scenario"]["nccl_version"], "2.30.7");
    assert_eq!(j["scenario"]["nccl_version_source"], "sglang 0.5.23's torch pin");
}

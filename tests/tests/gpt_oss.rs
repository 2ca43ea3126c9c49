//! gpt-oss end to end (issue #4 item 1): the presets' weights and KV cell through a scenario, vLLM's
//! hybrid KV groups in the memory plan, the engine-memory.tsv gpt-oss-20b row replayed through a
//! scenario, sliding-window layers capping their KV reads in decode, and bad configs.
//!
//! Hand arithmetic of the weights: `model/src/llm/gpt_oss.rs` unit tests (gpt-oss-120b at tp 2:
//! 36 × 991,467,712 + 1,158,272,640 = 36,851,110,272 B = 34.32 GiB).

use crate::common::*;

const QUANT: &str = "[model.quantization]\ndtype = \"bf16\"\n\
                     experts = { dtype = \"mxfp4\", pad_hidden = 256, pad_intermediate = 128 }\n";

/// The example, run with --json.
fn example() -> serde_json::Value {
    run_json(&scenario("examples/gpt-oss-120b-rtx6000x2.toml"))
}

#[test]
fn example_weights_kv_cell_and_vllm_groups() {
    let j = example();
    let m = &j["memory"];
    let weights = m["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "target weights")
        .unwrap();
    // The checkpoint's 36,851,110,272 B + vLLM's RoPE cos/sin cache (issue #17; vgptoss56: float32, as
    // `models/gpt_oss.py` passes `dtype=torch.float32` to `get_rope`: 131,072 positions × 64 × 4 B =
    // 33,554,432 B), which "Model loading took" includes, + the caching allocator's blocks (vrows4,
    // `tpsim_model::torch_alloc`; the mxfp4 experts are not replayed): o_proj's 2880 × 2048 × 2 B =
    // 11.25 MiB shard takes a whole 12 MiB segment (+786,432 B) in 31 of 36 layers (tpsim's replay:
    // the others are carved from the RoPE build's freed float32 blocks; 34 with the bf16 cache
    // before), and 181 small tensors round up to 512 B (36 × 448 + 36 × 256 + 109 × 384 = 67,200 B):
    // 31 × 786,432 + 67,200 = 24,446,592 B.
    assert_eq!(31 * 786_432 + 67_200, 24_446_592);
    assert_eq!(
        weights["bytes"].as_u64().unwrap(),
        36_851_110_272 + 33_554_432 + 24_446_592
    );
    // 4 KV heads per rank × 2 × 64 × 36 layers × 2 B.
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 36_864);
    // vLLM: 18 sliding + 18 full layers → 2 groups of 18; a block holds 16 tokens of 18 layers' pages
    // (16 × 18 × 1,024 B). requested = 94.97 GiB (torch's total on this GPU, templates/rtx-pro-6000-server.toml)
    // × 0.9 = 85.473 GiB; issue #17's modelled parts: weights 34.37429 GiB (the sum above: with the
    // caching allocator's blocks, vrows4, and the float32 RoPE cache, vgptoss56; 34.36086 before), peak activation (vrows2: vLLM 0.19's sampler; mxfp4 experts keep no fused-MoE
    // workspace) (8,192 + 2 × 1,024) × 2,880 × 2 B + 1,024 × 201,088 × 14 B + min(1,024, 188 SMs) ×
    // 201,088 × 4 B + 32 MiB cuBLAS workspace (compute capability 12.0) = 3,126,552,576 B = 2.91183 GiB,
    // non-torch 0.25 + 0.32 + 0.02 = 0.59 GiB (vmemtp57: this PCIe box builds no FlashInfer
    // allreduce-fusion workspace, SM 12.0 and no NVSwitch; 2.09 with it before); KV = 85.47300 −
    // 34.37429 − 2.91183 − 0.59 = 47.59688 GiB → ⌊47.59688 × 2^30 / 294,912⌋ = 173,294 blocks →
    // 173,294 // 2 × 16 = 1,386,352 tokens ("GPU KV cache size"; 1,342,656 before vmemtp57, 1,343,056
    // with the bf16 RoPE cache before vgptoss56).
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), 1_386_352);
    assert_eq!(m["verdict"], "ok");
    // A second concurrency: the same memory plan, more tokens per second in total, a slower step
    // (8 sequences read 8× the KV and touch E·(1 − (1 − 4/128)^8) = 28.6 experts per layer, not 4).
    let text = std::fs::read_to_string(scenario("examples/gpt-oss-120b-rtx6000x2.toml")).unwrap();
    let p = scratch("gpt-oss-bs8").join("s.toml");
    std::fs::write(&p, text.replace("concurrency = 1", "concurrency = 8")).unwrap();
    let j8 = run_json(&p.display().to_string());
    assert_eq!(j8["memory"]["kv_tokens"], j["memory"]["kv_tokens"]);
    let (t1, t8) = (&j["throughput"], &j8["throughput"]);
    assert!(f(&t8["output_tok_s"]) > 2.0 * f(&t1["output_tok_s"]), "{t1} {t8}");
    assert!(f(&t8["tpot_ms"]) > f(&t1["tpot_ms"]), "{t1} {t8}");
}

#[test]
fn vllm_h100_row_30_through_a_scenario() {
    // engine-memory.tsv row 30: vLLM 0.19.0, openai/gpt-oss-20b, H100, tp 1, gpu_memory_utilization 0.95,
    // avail before load 78.68, weights 13.64, activation 2.87, non_torch_fwd 0.25; logged "GPU KV cache
    // size: 1,277,184 tokens". Issue #17: the H100 preset carries torch's total, 79.19 GiB, as the log's
    // card reports it: requested 0.95 × 79.19 = 75.2305, KV = 75.2305 − 13.64 − 2.87 − 0.25 = 58.4705 GiB
    // → ⌊58.4705 × 2^30 / (16 × 12 × 2,048)⌋ = 159,663 blocks → 159,663 // 2 × 16 = 1,277,296 tokens,
    // +0.009 % of the log (before, nvidia-smi's 79.65 GiB gave +0.75 %).
    let base = "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"gpt-oss-20b\"\n[engine]\nname = \"vllm\"\n\
                tp = 1\ngpu_memory_utilization = 0.95\npage_size = 16\n[engine.observed]\nfree_at_start_gib = 78.68\n\
                peak_activation_gib = 2.87\nnon_torch_gib = 0.25\n";
    let p = scratch("gpt-oss-row30").join("s.toml");
    std::fs::write(&p, format!("{base}weights_gib = 13.64\n")).unwrap();
    let j = run_json(&p.display().to_string());
    let tokens = j["memory"]["kv_tokens"].as_u64().unwrap();
    assert_eq!(tokens, 1_277_296);
    assert!((tokens as f64 / 1_277_184.0 - 1.0).abs() < 0.003);
    // With tpsim's own weights (vgptoss56: 13.671 GiB + the 0.03125 GiB float32 RoPE cache + the
    // allocator's blocks = 13.7024 GiB, +0.46 %; 13.687 and 1,276,272 tokens with the bf16 cache
    // before): KV = 58.409 GiB → 159,492 blocks → 1,275,936 tokens (−0.10 % of the log). The preset's
    // Marlin layout is assumed for 0.19 (`moe_backend::engine_default` has not read 0.19's oracle).
    std::fs::write(&p, base).unwrap();
    let j = run_json(&p.display().to_string());
    assert_eq!(j["memory"]["kv_tokens"].as_u64().unwrap(), 1_275_936);
}

#[test]
fn sglang_splits_the_swa_pool_except_with_trtllm_mha() {
    // SGLang 0.5.8/0.5.9 size gpt-oss as a hybrid SWA pool (`is_hybrid_swa_model`); on RTX PRO 6000
    // (compute capability 12.0) the default backend is triton, so the pool is split.
    let text = std::fs::read_to_string(scenario("examples/gpt-oss-120b-rtx6000x2.toml")).unwrap();
    let text = text
        .replace("name = \"vllm\"", "name = \"sglang\"\nversion = \"0.5.8\"")
        .replace(
            "gpu_memory_utilization = 0.9      # vLLM's default",
            "mem_fraction_static = 0.85",
        )
        .replace(
            "page_size = 16                    # vLLM's default block size",
            "",
        );
    let p = scratch("gpt-oss-sglang").join("s.toml");
    std::fs::write(&p, &text).unwrap();
    let j = run_json(&p.display().to_string());
    let names = j["memory"]["entries"].to_string();
    assert!(names.contains("target KV pool, SWA layers (18 ×"), "{names}");
    // On SM100 the default backend is trtllm_mha: SGLang turns the SWA pool off, with its warning.
    let p = scratch("gpt-oss-sglang-sm100").join("s.toml");
    std::fs::write(
        &p,
        text.replace(
            "[model]",
            "[hardware.gpu]\ncompute_capability = \"10.0\"\n\n[model]",
        ),
    )
    .unwrap();
    let j = run_json(&p.display().to_string());
    let w = j["memory"]["warnings"].to_string();
    assert!(
        w.contains("Disable hybrid SWA memory for GPT-OSS model with trtllm_mha attention backend."),
        "{w}"
    );
    assert!(j["memory"]["entries"].to_string().contains("\"target KV pool\""));
}

/// TPOT (ms) of gpt-oss-120b at tp 2 on the 2-GPU `hardware` preset with its `layer_types` replaced
/// by `types(i)`, at `prompt` tokens of context (64 output tokens, batch `batch`).
fn tpot(hardware: &str, name: &str, types: impl Fn(usize) -> &'static str, prompt: u32, batch: u32) -> f64 {
    let cfg = std::fs::read_to_string(scenario("models/gpt-oss-120b/config.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&cfg).unwrap();
    v["layer_types"] = (0..36).map(|i| serde_json::json!(types(i))).collect();
    let d = scratch(&format!("gpt-oss-{hardware}-{name}-{prompt}-{batch}"));
    // Issue #18: vLLM's token budget fits every prompt in the first step, so no prefill chunk shares
    // a later step with the decodes and TPOT is the decode steps' alone.
    let budget = prompt * batch;
    std::fs::write(d.join("config.json"), v.to_string()).unwrap();
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{hardware}\"\n[model]\nconfig = \"config.json\"\n{QUANT}\
         [engine]\nname = \"vllm\"\ntp = 2\nmax_num_batched_tokens = {budget}\n[engine.costs]\nactivation_memory = \"2.87GiB\"\nnon_torch_memory = \"2.07GiB\"\n\
         [workload]\nconcurrency = {batch}\nprompt_len = {prompt}\noutput_len = 64\n"
    );
    std::fs::write(d.join("s.toml"), text).unwrap();
    f(&run_json(&d.join("s.toml").display().to_string())["throughput"]["tpot_ms"])
}

#[test]
fn decode_time_grows_with_context_only_through_full_layers() {
    // The bandwidth side, on 2× H100 PCIe (no `dram_latency_ns`, so no per-tile latency floor): the
    // step grows with the bytes the attention reads.
    let hw = "h100-pcie-2x-nvlink-bridge";
    let mixed = |i: usize| {
        if i.is_multiple_of(2) {
            "sliding_attention"
        } else {
            "full_attention"
        }
    };
    for batch in [1, 8] {
        // All sliding: every layer reads min(ctx, 128) tokens → the step time does not move.
        let s1 = tpot(hw, "sliding", |_| "sliding_attention", 1024, batch);
        let s2 = tpot(hw, "sliding", |_| "sliding_attention", 16_384, batch);
        // Exactly equal: the same shapes are simulated (bit-for-bit comparison of the f64s).
        assert_eq!(s1.to_bits(), s2.to_bits(), "batch {batch}: {s1} vs {s2}");
        // The real alternation grows half as fast as all-full (18 of 36 layers read the context); the
        // attention kernels are memory-bound at decode, so the growth is linear in bytes read.
        let m = tpot(hw, "mixed", mixed, 16_384, batch) - tpot(hw, "mixed", mixed, 1024, batch);
        let full = tpot(hw, "full", |_| "full_attention", 16_384, batch)
            - tpot(hw, "full", |_| "full_attention", 1024, batch);
        assert!(full > 0.0 && m > 0.0, "batch {batch}: {m} {full}");
        let ratio = m / full;
        println!("batch {batch}: mixed +{m:.4} ms, full +{full:.4} ms, ratio {ratio:.4}");
        // The sliding layers still read their 128-token window, the same at both contexts: the ratio
        // is 0.5 (measured 0.5000 at batch 1 and 8); 0.2 % allows the time quantum's rounding.
        assert!((ratio - 0.5).abs() < 0.001, "batch {batch}: ratio {ratio}");
    }
}

/// longctx18: on the RTX PRO 6000 (`dram_latency_ns` 332.3) vLLM 0.19's split-KV Triton kernel walks a
/// sliding layer's 8 window tiles (128 tokens ÷ 16) inside one segment's program at 16K context, but
/// spread over two or three programs at 1K, so even an all-sliding model's step grows with context
/// through the per-tile latency floor (`sim/src/decode/passes/triton_split.rs`). By hand, over the 64
/// decode steps: at ~1K context a segment is ⌈seq_len ÷ 256⌉ = 5 tiles and the busiest program walks 5
/// of the window's tiles; at ~16K a segment is 65 tiles and one program walks all 8. 36 layers × 3
/// tiles × 332.3 ns = 35.89 µs a step; 1 % allows the time quantum's rounding.
#[test]
fn sliding_layers_grow_through_the_triton_tile_floor() {
    let hw = "rtx-pro-6000-2x-turin-same-numa";
    let s1 = tpot(hw, "sliding", |_| "sliding_attention", 1024, 1);
    let s2 = tpot(hw, "sliding", |_| "sliding_attention", 16_384, 1);
    let grow_us = (s2 - s1) * 1000.0;
    let expected = 36.0 * 3.0 * 0.3323;
    assert!(
        (grow_us - expected).abs() < 0.01 * expected,
        "{grow_us} µs vs {expected}"
    );
}

#[test]
fn bad_configs_exit_2_naming_the_key() {
    let cfg = std::fs::read_to_string(scenario("models/gpt-oss-20b/config.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&cfg).unwrap();
    v.as_object_mut().unwrap().remove("sliding_window");
    let d = scratch("gpt-oss-bad");
    std::fs::write(d.join("config.json"), v.to_string()).unwrap();
    let text = format!(
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\nconfig = \"config.json\"\n{QUANT}[engine]\nname = \"vllm\"\ntp = 1\n"
    );
    std::fs::write(d.join("s.toml"), &text).unwrap();
    let o = tpsim(&["run", &d.join("s.toml").display().to_string()]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("sliding_window") && o.stderr.contains("GptOssForCausalLM"),
        "{}",
        o.stderr
    );
    // mxfp4 with a group size other than 32.
    std::fs::write(d.join("config.json"), &cfg).unwrap();
    std::fs::write(
        d.join("s.toml"),
        text.replace("dtype = \"mxfp4\",", "dtype = \"mxfp4\", group_size = 16,"),
    )
    .unwrap();
    let o = tpsim(&["run", &d.join("s.toml").display().to_string()]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("mxfp4"), "{}", o.stderr);
}

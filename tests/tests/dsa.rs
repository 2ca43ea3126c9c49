//! DeepSeek sparse attention (DSA: DeepSeek-V3.2, GLM-5) end to end (h2, issue #16): the engines'
//! forced settings, SGLang's budget vs NSATokenToKVPool allocation and the verdict it leads to, vLLM's
//! cell, and the sparse decode reads.
//!
//! Hand figures for 8× RTX PRO 6000 (97,887 MiB; the preset's 1,587.2 MiB context): total = 96,299.8 MiB
//! = 94.0428 GiB; DeepSeek-V3.2 FP8 weights 86,275,740,032 B per rank at tp 8 (model unit test
//! `v32_lowers_with_its_indexer`) = 80.3505 GiB, and (mem50) the weight-load allocator segments
//! SGLang keeps after `empty_cache`, 37,448,704 B = 0.034877 GiB (the memory entry of that name), and
//! (rope51) SGLang 0.5.8's RoPE caches (`tpsim_model::rope_cache`, tests/tests/rope51.rs): the
//! attention's `DeepseekScalingRotaryEmbedding` of 4,096 × 40 = 163,840 rows × 64 × 4 B = 40 MiB with
//! its float32 cos/sin totals (2 × 40 MiB), and the indexer's own instance of the same (0.5.6 – 0.5.8:
//! `is_neox_style=True`), 6 × 40 MiB = 251,658,240 B = 0.234375 GiB → available 13.6922 − 0.0349 −
//! 0.2344 = 13.42298 GiB (13.65735 before rope51).

use crate::common::*;

fn memory_json(path: &str) -> serde_json::Value {
    let o = tpsim(&["memory", path, "--json"]);
    serde_json::from_str(&o.stdout).unwrap_or_else(|_| panic!("{}", o.stderr))
}

/// The fp8 example with `from` replaced by `to`, written to a scratch file.
#[track_caller]
fn variant(name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scenario("examples/deepseek-v3.2-rtx6000x8.toml")).unwrap();
    assert!(text.contains(from), "{from}");
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text.replace(from, to)).unwrap();
    p.display().to_string()
}

#[test]
fn v32_fp8_sglang_budget_vs_pool() {
    // SGLang 0.5.8 (assumed) rules (late-2025): f = 0.94 → rest = 13.42298 − 94.0428 × 0.06 =
    // 7.78041 GiB; budget 708 × 61 = 43,188 B → 7.78041 × 2^30 // 43,188 = 193,436 → 193,408 (page
    // 64); the NSATokenToKVPool holds 788 × 61 = 48,068 B per token: (193,408 + 64) × 48,068 =
    // 9,299,812,096 B = 8.66 GiB, 0.88 GiB more than rest. (Before mem50's kept segments: rest
    // 8.04966, 200,128; before rope51's RoPE caches: rest 8.01479, 199,232.)
    let j = memory_json(&scenario("examples/deepseek-v3.2-rtx6000x8.toml"));
    let kv = &j["kv_cache"];
    assert_eq!(kv["cell_size_bytes"], 43_188);
    assert_eq!(kv["pool_cell_size_bytes"], 48_068);
    assert_eq!(kv["max_total_num_tokens"], 193_408);
    assert_eq!(kv["bytes"], 9_299_812_096u64);
    assert!((f(&j["rest_gib"]) - 7.78041).abs() < 1e-4);
    let segments = j["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "weight-load allocator segments")
        .map(|e| f(&e["mib"]) * 1_048_576.0);
    assert!(
        segments.is_some_and(|b| (b - 37_448_704.0).abs() < 0.5),
        "{segments:?}"
    );
    assert_eq!(j["verdict"], "ok");
    let o = tpsim(&[
        "run",
        &scenario("examples/deepseek-v3.2-rtx6000x8.toml"),
        "--json",
    ]);
    assert!(
        o.stderr.contains("Setting page size to 64 for DeepSeek DSA."),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("Setting KV cache dtype to fp8_e4m3 for DeepSeek DSA on SM12 device."),
        "{}",
        o.stderr
    );
}

#[test]
fn v32_over_allocation_prints_the_kv_line_then_ooms() {
    // f = 0.97: rest = 13.42298 − 94.0428 × 0.03 = 10.60169 GiB → 10.60169 × 2^30 // 43,188 = 263,579
    // → 263,552 tokens of the 43,188-B budget, pool (263,552 + 64) × 48,068 B = 11.8012 GiB → 1.6217
    // GiB left for the CUDA graphs (1.5 GiB) and
    // activations (1 GiB, engines/sglang.toml): the engine logs the pool, then dies allocating the
    // activations.
    let p = variant("oom", "mem_fraction_static = 0.94", "mem_fraction_static = 0.97");
    let j = memory_json(&p);
    assert_eq!(j["kv_tokens"], 263_552);
    assert_eq!(j["verdict"], "oom");
    assert!(j["failing_step"].as_str().unwrap().contains("activations"), "{j}");
    let log = tpsim(&["memory", &p, "--log"]).stdout;
    let kv_line = log
        .find("KV Cache is allocated. #tokens: 263552, KV size: 11.80 GB")
        .expect(&log);
    let oom = log.find("torch.OutOfMemoryError").expect(&log);
    assert!(kv_line < oom, "{log}");
    // SGLang ≥ 0.5.17 (`engine.version`; a 0.5.x version needs the era named too) budgets what it
    // allocates (48,068 B): 10.60169 × 2^30 // 48,068 = 236,820 → 236,800 tokens, pool 10.6036 GiB,
    // 2.8193 GiB left → starts. (0.5.17 builds the same 240 MiB of RoPE caches: the totals from 0.5.7,
    // and in 0.5.9 on the indexer's own instance, V3.2 naming no `rope_interleave` key.)
    let fixed = variant(
        "fixed",
        "mem_fraction_static = 0.94",
        "mem_fraction_static = 0.97\nversion = \"0.5.17\"",
    );
    let j = memory_json(&fixed);
    assert_eq!(j["kv_tokens"], 236_800);
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 48_068);
    assert_eq!(j["kv_cache"]["pool_cell_size_bytes"], serde_json::Value::Null);
    assert_eq!(j["verdict"], "ok", "{j}");
}

#[test]
fn v32_bf16_kv_budget_equals_pool() {
    // bf16: 1,284 × 61 = 78,324 B budgeted and allocated: 7.78041 × 2^30 // 78,324 = 106,661 → 106,624.
    let j = memory_json(&scenario("examples/deepseek-v3.2-bf16kv-rtx6000x8.toml"));
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 78_324);
    assert_eq!(j["kv_cache"]["pool_cell_size_bytes"], serde_json::Value::Null);
    assert_eq!(j["kv_tokens"], 106_624);
    assert_eq!(j["kv_cache"]["bytes"], (106_624u64 + 64) * 78_324);
}

#[test]
fn v32_vllm_fp8_ds_mla_cell_and_block_64() {
    // vLLM 0.11: fp8_ds_mla 656 + indexer 132 per layer → 48,068 B per token, block 64, no mismatch.
    let p = variant(
        "vllm",
        "name = \"sglang\"\ntp = 8\nmem_fraction_static = 0.94",
        "name = \"vllm\"\ntp = 8",
    );
    let p = {
        let t = std::fs::read_to_string(&p)
            .unwrap()
            .replace("[engine.costs]\nera = \"late-2025\"\n", "");
        std::fs::write(&p, t).unwrap();
        p
    };
    let o = tpsim(&["memory", &p, "--json"]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_else(|_| panic!("{}", o.stderr));
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 48_068);
    assert_eq!(j["kv_tokens"].as_u64().unwrap() % 64, 0);
    assert!(o.stderr.contains("fp8_ds_mla"), "{}", o.stderr);
}

#[test]
fn bad_kv_dtype_is_refused_with_the_engine_text() {
    let p = variant(
        "fp16",
        "preset = \"deepseek-v3.2\"",
        "preset = \"deepseek-v3.2\"\nquantization = { dtype = \"fp8\", block_size = [128, 128], scale_dtype = \"fp32\", kv_cache_dtype = \"fp16\" }",
    );
    let o = tpsim(&["memory", &p]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype"),
        "{}",
        o.stderr
    );
}

#[test]
fn sparse_decode_reads_the_indexer_over_the_whole_context() {
    // Mean context 4,352 vs 65,792 (prompt + half the 512 outputs): the latent reads are capped at the
    // 2,048 selected tokens in both; the indexer reads 132 B × 61,440 more tokens × 61 layers = 494.7 MB
    // more per step → ≥ 0.276 ms at 1.79 TB/s. A dense MLA read of the same tokens' 656-B latents would
    // add 2.459 GB → 1.374 ms: the difference must lie between the two.
    let attn = |prompt: &str| {
        let p = variant(
            &format!("p{prompt}"),
            "prompt_len = 1024",
            &format!("prompt_len = {prompt}"),
        );
        let j = run_json(&p);
        f(&j["breakdown_by_op"]["attention"])
    };
    let d = attn("65536") - attn("4096");
    assert!(d > 0.276 && d < 1.374, "attention grew by {d} ms");
}

#[test]
fn glm5_breakdown_follows_its_layer_types() {
    // GLM-5: 3 dense layers (MLP) and 75 MoE layers, all with MLA + indexer attention.
    let j = run_json(&scenario("examples/glm-5-fp8-rtx6000x8.toml"));
    let ops = &j["breakdown_by_op"];
    for op in ["attention", "mlp", "moe"] {
        assert!(f(&ops[op]) > 0.0, "{op}: {ops}");
    }
    // Expert layers outnumber dense ones 25 to 1 and read top-8 experts of 2048 + a shared expert of
    // 2048 (vs one 12,288-wide MLP): the MoE time dominates the MLP time.
    assert!(f(&ops["moe"]) > 10.0 * f(&ops["mlp"]), "{ops}");
    assert_eq!(j["verdict"], "ok");
}

#[test]
fn v32_pool_larger_than_the_free_memory_fails_before_the_kv_line() {
    // f = 1.0 leaves no reserve: rest = available = 13.42298 GiB → 333,696 tokens of the 43,188-B
    // budget (13.42298 × 2^30 // 43,188 = 333,722, floored to 64), but the pool needs (333,696 + 64) ×
    // 48,068 B = 14.94 GiB: PyTorch fails allocating it, before SGLang prints its KV line.
    let p = variant("full", "mem_fraction_static = 0.94", "mem_fraction_static = 1.0");
    let j = memory_json(&p);
    assert_eq!(j["verdict"], "oom");
    assert!(
        j["failing_step"]
            .as_str()
            .unwrap()
            .contains("allocating the target KV pool"),
        "{j}"
    );
    assert_eq!(j["error"], "torch.OutOfMemoryError: CUDA out of memory.");
    let log = tpsim(&["memory", &p, "--log"]).stdout;
    assert!(!log.contains("KV Cache is allocated"), "{log}");
    assert!(log.contains("torch.OutOfMemoryError"), "{log}");
}

#[test]
fn v32_vllm_0_13_charges_the_lightning_indexer_kernels() {
    // vllmdsv3 (sim/src/decode/passes/dsa_indexer.rs): vLLM 0.13.0's Indexer.forward and
    // sparse_attn_indexer launch 13 kernels a DSA layer, 2 of them the activation quantizations tpsim
    // counted already: 11 more beside the layer's 15 (MLA's 11 + 4 quantizations after 0.13's
    // norm-quant fusion). Each kernel pays `kernel_overhead` once a forward, so raising it by 1 µs
    // adds 61 layers × 26 kernels = 1.586 ms of attention to every step (0.915 ms without the
    // indexer's kernels), whatever the step's shape — for a forward under a CUDA graph: since ttft54
    // vLLM V1 runs a forward above its largest capture size (512 tokens here) without graphs, so the
    // burst's 1,000-token prompts are cut to 4 tokens and every forward stays graphed.
    let attention = |overhead: &str| {
        let text = std::fs::read_to_string(scenario(
            "validation/deepseek-v3.2-h200x8-vllm-0.13-tp8-burst-1k2k.toml",
        ))
        .unwrap();
        let from = "preset = \"h200-8x-nvlink\"\n";
        assert!(text.contains(from));
        let to = format!("{from}[hardware.params]\nkernel_overhead = \"{overhead}\"\n");
        let short = "prompt_len = 4\n";
        let text = text.replace(from, &to);
        let cut = text
            .lines()
            .map(|l| {
                if l.starts_with("prompt_len = ") {
                    short.trim_end()
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert!(cut.contains(short) && cut != text);
        let p = scratch(&format!("v32-ko-{overhead}")).join("s.toml");
        std::fs::write(&p, cut).unwrap();
        f(&run_json(&p.display().to_string())["breakdown_by_op"]["attention"])
    };
    let d = attention("4us") - attention("3us");
    assert!(
        (d - 1.586).abs() < 1e-6,
        "attention per µs of kernel overhead: {d} ms"
    );
}

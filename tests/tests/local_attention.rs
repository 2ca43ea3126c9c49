//! Local/global attention end to end (issue #16): Gemma-3 and Llama-4 through a scenario — SGLang's
//! hybrid SWA pool (on for Llama-4, refused for Gemma-3 with the engine's warning), vLLM's hybrid
//! KV-cache groups (Gemma-3) and its refusal for chunked attention (Llama-4), the `--log` lines, and
//! decode attention costs that follow the layer types.
//!
//! Weights and KV cells: `model/src/llm/tests_local.rs` (hand arithmetic there).

use crate::common::*;

/// A scenario on the RTX PRO 6000 presets with the SGLang start-up figures given (`[engine.observed]`,
/// so the arithmetic below starts from round numbers), `extra` appended to `[engine]`.
fn sglang(model: &str, hw: &str, tp: u32, version: &str, extra: &str) -> String {
    format!(
        "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"sglang\"\n\
         version = \"{version}\"\ntp = {tp}\nmem_fraction_static = 0.85\n{extra}\n[engine.observed]\n\
         free_after_init_gib = 94.0\nfree_after_weights_gib = 43.0\n[workload]\nconcurrency = 1\n\
         prompt_len = 1024\noutput_len = 16\n"
    )
}

fn write(name: &str, text: &str) -> String {
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn entry_bytes(m: &serde_json::Value, prefix: &str) -> u64 {
    m["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no entry {prefix}: {m}"))["bytes"]
        .as_u64()
        .unwrap()
}

#[test]
fn llama4_sglang_swa_pool() {
    // rest = 43.0 − 94.0 × 0.15 = 28.9 GiB; T = ⌊28.9 × 2^30 / 49,152⌋ = 631,330 (cell: 2 KV heads ×
    // 256 × 48 layers × 2 B at tp 4). Split (0.5.8): full = int(631,330 × 48 / (0.8 × 36 + 12)) =
    // int(30,303,840 / 40.8) = 742,741; swa = int(742,741 × 0.8) = 594,192. Pools, 1024 B per layer per
    // token: (742,741 + 1) × 1024 × 12 = 9,126,813,696 and (594,192 + 1) × 1024 × 36 = 21,904,330,752
    // (together 28.900005 GiB: the split stays within the profiled 28.9 GiB plus the padding pages).
    // Late-2025 rules (0.5.8) and spring-2026 rules (the 0.5.9 bytes form, same quotient here).
    for (era, extra) in [("late", ""), ("spring", "[engine.costs]\nera = \"spring-2026\"")] {
        let f = write(
            &format!("l4-{era}"),
            &sglang(
                "llama-4-scout",
                "rtx-pro-6000-4x-turin-same-numa",
                4,
                "0.5.8",
                extra,
            ),
        );
        let j = run_json(&f);
        let m = &j["memory"];
        assert_eq!(m["kv_tokens"].as_u64().unwrap(), 742_741, "{era}");
        assert_eq!(entry_bytes(m, "target KV pool, full layers"), 9_126_813_696);
        assert_eq!(entry_bytes(m, "target KV pool, SWA layers"), 21_904_330_752);
        // The log prints the split and both sub-pools (SWA first).
        let o = tpsim(&["memory", &f, "--log"]);
        assert!(
            o.stdout.contains(
                "Use sliding window memory pool. full_layer_tokens=742741, swa_layer_tokens=594192"
            ),
            "{}",
            o.stdout
        );
        let swa = o.stdout.find("#tokens: 594192").unwrap();
        let full = o.stdout.find("#tokens: 742741").unwrap();
        assert!(
            swa < full
                && o.stdout
                    .contains("SWAKVPool mem usage: 28.90 GB, swa size: 594192, full size: 742741")
        );
    }
    // SGLang 0.5.6 needs --hybrid-kvcache-ratio for Llama-4's split: the plain pool of 631,330 tokens.
    let f = write(
        "l4-056",
        &sglang("llama-4-scout", "rtx-pro-6000-4x-turin-same-numa", 4, "0.5.6", ""),
    );
    let j = run_json(&f);
    assert_eq!(j["memory"]["kv_tokens"].as_u64().unwrap(), 631_330);
    assert!(
        j["memory"]["warnings"]
            .to_string()
            .contains("--hybrid-kvcache-ratio")
    );
    // swa_full_tokens_ratio 1: the uniform pool (every layer 631,330 tokens).
    let f = write(
        "l4-ratio1",
        &sglang(
            "llama-4-scout",
            "rtx-pro-6000-4x-turin-same-numa",
            4,
            "0.5.8",
            "swa_full_tokens_ratio = 1.0",
        ),
    );
    assert_eq!(run_json(&f)["memory"]["kv_tokens"].as_u64().unwrap(), 631_330);
    // --disable-hybrid-swa-memory: the plain pool of 631,330 tokens.
    let f = write(
        "l4-off",
        &sglang(
            "llama-4-scout",
            "rtx-pro-6000-4x-turin-same-numa",
            4,
            "0.5.8",
            "disable_hybrid_swa_memory = true",
        ),
    );
    let j = run_json(&f);
    assert_eq!(j["memory"]["kv_tokens"].as_u64().unwrap(), 631_330);
    // A ratio outside (0, 1] is refused, naming the key.
    let f = write(
        "l4-bad",
        &sglang(
            "llama-4-scout",
            "rtx-pro-6000-4x-turin-same-numa",
            4,
            "0.5.8",
            "swa_full_tokens_ratio = 1.5",
        ),
    );
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("swa_full_tokens_ratio"), "{}", o.stderr);
}

#[test]
fn gemma3_sglang_refuses_the_swa_pool() {
    // Gemma-3 at tp 2: plain pool over all 62 layers, cell 253,952 B. rest = 28.9 GiB →
    // ⌊28.9 × 2^30 / 253,952⌋ = ⌊122,192.93⌋ = 122,192 tokens, with the engine's warning.
    let f = write(
        "g3",
        &sglang(
            "gemma-3-27b-it",
            "rtx-pro-6000-2x-turin-same-numa",
            2,
            "0.5.8",
            "",
        ),
    );
    let j = run_json(&f);
    assert_eq!(j["memory"]["kv_tokens"].as_u64().unwrap(), 122_192);
    let w = j["memory"]["warnings"].to_string();
    assert!(
        w.contains(
            "Disable hybrid SWA memory for Gemma3ForConditionalGeneration as it is not yet supported."
        ),
        "{w}"
    );
    let o = tpsim(&["memory", &f, "--log"]);
    assert!(
        o.stdout
            .contains("WARNING Disable hybrid SWA memory for Gemma3ForConditionalGeneration")
    );
    assert!(!o.stdout.contains("SWAKVPool"));
}

/// vLLM on 2 or 4 RTX PRO 6000 with its start-up figures given.
fn vllm(model: &str, hw: &str, tp: u32) -> String {
    format!(
        "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"vllm\"\n\
         tp = {tp}\ngpu_memory_utilization = 0.9\n[engine.observed]\nfree_at_start_gib = 94.0\n\
         peak_activation_gib = 2.0\nnon_torch_gib = 1.0\n[workload]\nconcurrency = 1\nprompt_len = 1024\n\
         output_len = 16\n"
    )
}

#[test]
fn gemma3_vllm_groups_and_llama4_unified() {
    // Gemma-3 at tp 2: total = 94.97 GiB (torch's total on this GPU, templates/rtx-pro-6000-server.toml);
    // requested 0.9 × = 85.473 GiB; weights 27,440,822,896 B + vLLM's RoPE caches
    // (issue #17: 131,072 × 128 × 2 B plain + 8× that for the linear-scaled global layers = 301,989,888 B)
    // + the caching allocator's blocks (vrows4, `tpsim_model::torch_alloc`): o_proj's 5376 × 2048 × 2 B
    // = 21 MiB shard takes a whole 22 MiB segment in 57 of 62 layers (5 are carved from the RoPE
    // build's freed float32 blocks), 57 × 1,048,576 = 59,768,832 B; SigLIP tensors of 4.73, 1.27 and
    // 11.81 MiB that take a cached remainder with ≤ 1 MiB to spare, 13 × 788,480 + 7 × 438,272 +
    // 196,608 = 13,514,752 B; 234 small tensors rounded to 512 B, 57,744 B: 73,341,328 B in all
    // = 27,816,154,112 B = 25.9058 GiB; KV = 85.4730 − 25.9058 − 2 − 1 = 56.5672 GiB. 52 sliding + 10
    // full layers → groups of 10, 6 + 1 = 7 groups; a block is 16 tokens × 10 layers × 4096 B = 655,360 B
    // → ⌊56.5672 × 2^30 / 655,360⌋ = 92,679 blocks → 92,679 // 7 × 16 = 211,824 tokens. Padding: 6 × 10
    // − 52 = 8 layers, 8 / 52 = 15.38 %.
    let f = write(
        "g3-vllm",
        &vllm("gemma-3-27b-it", "rtx-pro-6000-2x-turin-same-numa", 2),
    );
    let j = run_json(&f);
    let m = &j["memory"];
    let total = 94.97 * 0.9;
    let kv = total - (27_440_822_896.0 + 301_989_888.0 + 73_341_328.0) / (1u64 << 30) as f64 - 3.0;
    let blocks = (kv * (1u64 << 30) as f64 / 655_360.0).floor() as u64;
    assert_eq!(blocks / 7 * 16, m["kv_tokens"].as_u64().unwrap());
    let o = tpsim(&["memory", &f, "--log"]);
    assert!(
        o.stdout
            .contains("Add 8 padding layers, may waste at most 15.38% KV cache memory"),
        "{}",
        o.stdout
    );
    // Llama-4 Scout at tp 4: the hybrid manager is off for chunked attention (vLLM's warning), every
    // layer full: one group, cell 49,152 B; weights 54,360,657,280 B = 50.6273 GiB + the RoPE cache of
    // its 10,485,760 positions × 128 × 2 B = 2.5 GiB (issue #17's rule; no Scout log checks it) + the
    // caching allocator's blocks (vrows4): qkv_proj's 1792 × 5120 × 2 B = 17.5 MiB shard in an 18 MiB
    // segment in 38 of 48 layers (the others are carved from the 10 GiB the RoPE build frees),
    // 19,922,944 B; the embedding and LM head, 493.28 MiB each in 494 MiB (+753,664 B each); an 11 MiB
    // tensor in a 12 MiB block and nine 1.5-2.9 MiB vision tensors in cached remainders with ≤ 1 MiB
    // to spare, 2,807,040 B; small tensors' 512 B rounding, 41,856 B: 24,279,168 B → KV = 86.0335 − 53.1499 − 3 = 29.8836 GiB → ⌊· × 2^30 / (16 × 49,152)⌋ blocks × 16
    // tokens.
    let f = write(
        "l4-vllm",
        &vllm("llama-4-scout", "rtx-pro-6000-4x-turin-same-numa", 4),
    );
    let j = run_json(&f);
    let kv = total - (54_360_657_280.0 + 2_684_354_560.0 + 24_279_168.0) / (1u64 << 30) as f64 - 3.0;
    let blocks = (kv * (1u64 << 30) as f64 / (16.0 * 49_152.0)).floor() as u64;
    assert_eq!(j["memory"]["kv_tokens"].as_u64().unwrap(), blocks * 16);
    let w = j["memory"]["warnings"].to_string();
    assert!(
        w.contains("latency regression when using chunked local attention"),
        "{w}"
    );
    assert!(
        w.contains("Hybrid KV cache manager is disabled for this hybrid model"),
        "{w}"
    );
}

/// TPOT attention milliseconds of a scenario with the model's config replaced by `edit(config)`.
fn attention_ms(example: &str, model: &str, name: &str, edit: impl Fn(&mut serde_json::Value)) -> f64 {
    let d = scratch(name);
    let cfg = std::fs::read_to_string(scenario(&format!("models/{model}/config.json"))).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&cfg).unwrap();
    edit(&mut v);
    std::fs::create_dir_all(d.join("m")).unwrap();
    std::fs::write(d.join("m/config.json"), v.to_string()).unwrap();
    std::fs::copy(
        scenario(&format!("models/{model}/quant.toml")),
        d.join("m/quant.toml"),
    )
    .unwrap();
    let text = std::fs::read_to_string(scenario(example)).unwrap().replace(
        &format!("preset = \"{model}\""),
        &format!("preset = \"{}\"", d.join("m").display()),
    );
    let p = d.join("s.toml");
    std::fs::write(&p, text).unwrap();
    run_json(&p.display().to_string())["breakdown_by_op"]["attention"]
        .as_f64()
        .unwrap()
}

#[test]
fn attention_costs_follow_layer_types() {
    // Gemma-3 example (8 sequences at ≈ 8.4 k context, tp 2): the 52 sliding layers read 1024 tokens
    // each instead of the whole context. Making every layer global must cost more attention time, and
    // the KV the step reads is ≈ (52 × 1024 + 10 × 8448) / (62 × 8448) = 26 % of the all-global one.
    let ex = "examples/gemma-3-27b-rtx6000x2.toml";
    let local = attention_ms(ex, "gemma-3-27b-it", "g3-local", |_| {});
    let global = attention_ms(ex, "gemma-3-27b-it", "g3-global", |v| {
        v["text_config"]["layer_types"] = serde_json::json!(vec!["full_attention"; 62]);
    });
    assert!(global > 2.0 * local, "global {global} ms vs local {local} ms");
    // Llama-4 example (8 sequences at ≈ 33 k, tp 4): 36 chunked layers read the current chunk only.
    let ex = "examples/llama-4-scout-rtx6000x4.toml";
    let local = attention_ms(ex, "llama-4-scout", "l4-local", |_| {});
    let global = attention_ms(ex, "llama-4-scout", "l4-global", |v| {
        v["text_config"]["layer_types"] = serde_json::json!(vec!["full_attention"; 48]);
    });
    assert!(global > 2.0 * local, "global {global} ms vs local {local} ms");
}

#[test]
fn a_float32_checkpoint_is_served_in_16_bits() {
    // gemma-2-2b-it's config.json says torch_dtype float32. Neither engine keeps it: vLLM 0.11
    // `_resolve_auto_dtype` takes the platform's preferred dtype (bfloat16 on SM ≥ 8.0), SGLang 0.5.9
    // `_get_and_verify_dtype` bfloat16 for Gemma (float16 for others). The KV cell at tp 1 is then
    // 26 layers × 4 KV heads × 256 × 2 (K, V) × 2 B = 106,496 B, not float32's 212,992.
    for (engine, warning) in [
        ("vllm", "vLLM: Downcasting torch.float32 to torch.bfloat16."),
        (
            "sglang",
            "SGLang: For Gemma 2, we downcast float32 to bfloat16 instead of float16 by default.",
        ),
    ] {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"gemma-2-2b-it\"\n[engine]\n\
             name = \"{engine}\"\ntp = 1\n"
        );
        let file = write(&format!("fp32-{engine}"), &text);
        let o = tpsim(&["memory", &file, "--json"]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(o.stderr.contains(warning), "{engine}: {}", o.stderr);
        let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(j["cell_size_bytes"], 106_496, "{engine}");
    }
}

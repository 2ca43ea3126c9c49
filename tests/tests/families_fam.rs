//! fam (issue #16): GraniteMoE, Phi-3.5-MoE and LLaVA-NeXT end to end — the presets load through a
//! scenario with the weights and cells pinned by hand in `model/src/llm/tests_fam.rs`, SGLang is
//! refused for LLaVA-NeXT with the reason, and an architecture still unsupported is refused with
//! exit 2 listing the (grown) supported list.

use crate::common::*;

fn scenario_for(name: &str, preset: &str, engine: &str, tp: u32) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"{preset}\"\n\
         [engine]\nname = \"{engine}\"\ntp = {tp}\n[workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn weights(j: &serde_json::Value) -> u64 {
    j["memory"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "target weights")
        .unwrap()["bytes"]
        .as_u64()
        .unwrap()
}

/// The bytes of the memory entry named `name`, if the plan has one.
fn entry(j: &serde_json::Value, name: &str) -> Option<u64> {
    j["memory"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .map(|e| e["bytes"].as_u64().unwrap())
}

#[test]
fn llava_next_runs_under_vllm_with_its_clip_tower() {
    let j = run_json(&scenario_for("llava-vllm", "llava-v1.6-mistral-7b", "vllm", 1));
    // 7,554,149,376 parameters × 2 B (Mistral-7B text tower + 23 CLIP blocks + projector), plus vLLM's
    // RoPE cos/sin cache (vllm_parts): 32,768 positions × head_dim 128 × 2 B = 8,388,608 B.
    assert_eq!(weights(&j), 15_108_298_752 + 8_388_608);
    // 8 KV heads × 256 × 32 layers × 2 B; one page group: tokens = ⌊KV bytes / (16 × cell)⌋ × 16.
    let m = &j["memory"];
    let cell = m["cell_size_bytes"].as_u64().unwrap();
    assert_eq!(cell, 131_072);
    let rest = (f(&m["rest_gib"]) * (1u64 << 30) as f64) as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), rest / (16 * cell) * 16);
}

#[test]
fn llava_next_is_refused_under_sglang() {
    let o = tpsim(&[
        "run",
        &scenario_for("llava-sglang", "llava-v1.6-mistral-7b", "sglang", 1),
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(o.stderr.contains("engine.name"), "{}", o.stderr);
    assert!(
        o.stderr
            .contains("has no SGLang implementation, falling back to Transformers implementation"),
        "{}",
        o.stderr
    );
}

#[test]
fn granite_moe_and_phi_moe_run_under_both_engines() {
    for engine in ["sglang", "vllm"] {
        // Granite-3.1-1B-A400M: 1,334,690,816 parameters (padded vocabulary) × 2 B; 49,152 B/token.
        let j = run_json(&scenario_for(
            &format!("granite-{engine}"),
            "granite-3.1-1b-a400m",
            engine,
            1,
        ));
        // Under vLLM the RoPE cos/sin cache is loaded with the weights (vllm_parts): 131,072
        // positions × head_dim 64 × 2 B = 16,777,216 B. The caching allocator's blocks add nothing
        // (vrows4: qkv 4 MiB and o_proj 2 MiB share 20 MiB segments, the experts are 64 and 32 MiB).
        // mem49/mem50: SGLang (0.5.8, CUDA) keeps the same cache in float32 (`tpsim_model::rope_cache`):
        // 131,072 × 64 × 4 B = 33,554,432 B, and the segments torch keeps after `empty_cache`
        // (`ModelSpec::sglang_load_segment_overhead`): 19,167,232 B, mostly the unfilled tail of the
        // last shared 20 MiB segment of the 4 + 2 MiB attention shards (24 layers × 6 MiB = 144 MiB
        // in 8 segments) and the embedding's split tail (49,216 × 1024 × 2 B = 96.125 MiB in 98 MiB:
        // 1.875 MiB). Both sit in "Load weight end … mem usage" as entries of their own beside the
        // weights, which stay the parameters' bytes.
        let rope = if engine == "vllm" { 16_777_216 } else { 0 };
        assert_eq!(weights(&j), 2_669_381_632 + rope, "{engine}");
        if engine == "sglang" {
            assert_eq!(entry(&j, "RoPE cos/sin caches"), Some(33_554_432));
            assert_eq!(entry(&j, "weight-load allocator segments"), Some(19_167_232));
        } else {
            assert_eq!(entry(&j, "RoPE cos/sin caches"), None);
        }
        assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 49_152);
        assert_eq!(j["memory"]["verdict"], "ok", "{engine}");
        // Phi-3.5-MoE at tp 1 on one H100: 77.99 GiB of weights do not leave room for a KV cache
        // (the engine would not start; tpsim gives its verdict and no throughput).
        let j = run_json(&scenario_for(&format!("phi-{engine}"), "phi-3.5-moe", engine, 1));
        // mend52: the preset's `rope_scaling` is LongRoPE (`original_max_position_embeddings`
        // 4,096; `models/phimoe.py` in both engines passes it to `get_rope`), so the caches are
        // `Phi3LongRoPEScaledRotaryEmbedding`'s in the model dtype (`tpsim_model::rope_cache`):
        // short 4,096 × 128 × 2 B = 1,048,576 B, long 131,072 × 128 × 2 B = 33,554,432 B, their
        // concatenation 135,168 × 128 × 2 B = 34,603,008 B.
        // vLLM (≥ 0.7 keeps the concatenation only): 34,603,008 B, and the caching allocator's blocks
        // (vrows4, `tpsim_model::torch_alloc`): the concatenation is 16.5 × 2 MiB, so its 17 × 2 MiB
        // segment would leave 1 MiB (≤ 1 MiB) and is counted whole (+1,048,576); every other tensor
        // is a multiple of 512 B and of 2 MiB when large, except the LM-head bias, 32,064 × 2 B =
        // 64,128 B, which takes 64,512 B (+384). Before mend52 (a plain cache): 33,554,432 + 384.
        // SGLang keeps all three buffers: 1,048,576 + 33,554,432 + 34,603,008 = 69,206,016 B (the
        // plain float32 cache before mend52: 131,072 × 128 × 4 B = 67,108,864 B); the kept segments
        // (mem50, the allocator replay): 5,555,584 B, 2 MiB more than the plain cache's 3,458,432 B —
        // the concatenation's half-filled last 2 MiB segment and the 1 MiB short cache's 2 MiB
        // small-pool segment. Each its own entry. Exact.
        let rope = if engine == "vllm" {
            34_603_008 + 1_048_576 + 384
        } else {
            0
        };
        assert_eq!(weights(&j), 83_746_306_688 + rope, "{engine}");
        if engine == "sglang" {
            assert_eq!(entry(&j, "RoPE cos/sin caches"), Some(69_206_016));
            assert_eq!(entry(&j, "weight-load allocator segments"), Some(5_555_584));
        }
        assert_ne!(j["memory"]["verdict"], "ok", "{engine}");
    }
}

#[test]
fn unsupported_granite_variants_still_list_what_is_supported() {
    let dir = scratch("granite-shared");
    let cfg = dir.join("config.json");
    std::fs::write(
        &cfg,
        r#"{"architectures":["GraniteMoeSharedForCausalLM"],"hidden_size":1024,"num_hidden_layers":24,
            "num_attention_heads":16,"vocab_size":49155,"intermediate_size":512,"num_local_experts":32,
            "num_experts_per_tok":8,"shared_intermediate_size":1024}"#,
    )
    .unwrap();
    std::fs::write(dir.join("quant.toml"), "dtype = \"bf16\"\n").unwrap();
    let s = dir.join("s.toml");
    std::fs::write(
        &s,
        format!(
            "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"{}\"\n[engine]\nname = \"vllm\"\ntp = 1\n\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n",
            dir.display()
        ),
    )
    .unwrap();
    let o = tpsim(&["run", &s.display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    for needle in [
        "GraniteMoeSharedForCausalLM",
        "GraniteMoeForCausalLM",
        "PhiMoEForCausalLM",
        "LlavaNextForConditionalGeneration",
    ] {
        assert!(o.stderr.contains(needle), "{needle}: {}", o.stderr);
    }
}

//! families27 (issue #17): MiniMax-M1 / MiniMax-Text-01 (`MiniMaxM1ForCausalLM`,
//! `MiniMaxText01ForCausalLM`) end to end. The weights and parameter counts are pinned by hand in
//! `model/src/llm/tests_families27.rs` (456,089,655,296 parameters, 45,944,920,064 active without
//! embedding and head: the cards' "456 billion" / "45.9 billion"; 114,390,425,600 B a rank at tp 8);
//! here the example runs under vLLM 0.11.0 on 8× H200, vLLM's hybrid page and block rules are checked
//! by hand (`linear_attention_state_shape` / `_dtype`), the 8× RTX PRO 6000 verdicts, and the releases
//! and settings the engines refuse.

use crate::common::*;

const M1_VLLM: &str = "examples/minimax-m1-80k-vllm-h200x8.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(M1_VLLM, name, edit)
}

/// The example at vLLM `version` with `extra` engine keys.
fn at(name: &str, version: &str, extra: &str) -> String {
    variant(name, |t| {
        t.replace(
            "version = \"0.11.0\"",
            &format!("version = \"{version}\"\n{extra}"),
        )
    })
}

/// Tolerance: none (integers), except the weights line, which adds the allocator's block rounding
/// (under 64 MiB) to the hand count: 114,390,425,600 B of weights + the float32 RoPE cache of
/// min(max_position_embeddings, max_model_len) = 4,096 rows × 64 × 4 B = 1,048,576 (vLLM 0.11.0
/// `minimax_text_01.py`: `get_rope(..., dtype=torch.float32)` after copying max_model_len into the
/// config). The softmax cell: 10 layers × 1 KV head × 128 × 2 × 2 B = 5,120 B a token. Allreduces a
/// pass: 2 × 80 + 1 (embedding) + 70 lightning-norm variances = 231.
///
/// The hybrid pool (vLLM 0.11.0 `HybridAttentionMambaModelConfig`): the lightning page is 8 × 128 ×
/// 128 × 2 = 262,144 B; one token of one softmax layer is 512 B, so the attention block is raised to
/// 262,144 / 512 = 512 tokens (a multiple of 16) and the pages are equal (no padding). 10 softmax and
/// 70 lightning layers make 8 groups of 10 layers; the KV tensors are 10 of num_blocks pages, so
/// num_blocks = KV bytes / (10 × 262,144) and vLLM reports num_blocks / 8 groups × 512 tokens.
#[test]
fn minimax_m1_example_under_vllm() {
    let vl = run_json(&scenario(M1_VLLM));
    let w = entry_bytes(&vl, "target weights");
    let hand = 114_390_425_600 + 1_048_576;
    assert!(w >= hand, "{w}");
    assert!(w < hand + (64 << 20), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 5_120);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 231);
    let kv = entry_bytes(&vl, "KV cache");
    assert_eq!(kv % (10 * 262_144), 0, "{kv}");
    let blocks = kv / (10 * 262_144);
    assert_eq!(
        vl["memory"]["kv_tokens"].as_u64().unwrap(),
        blocks / 8 * 512,
        "{blocks} blocks"
    );
    let w = memory_warnings(&vl);
    assert!(
        w.iter()
            .any(|l| l.contains("Setting attention block size to 512 tokens")),
        "{w:?}"
    );
    assert!(!w.iter().any(|l| l.contains("Padding mamba page size")), "{w:?}");
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);
}

/// The state page follows `--mamba-cache-dtype` (vLLM `linear_attention_state_dtype`): float32 is
/// refused by 0.19.0 ("fp32 state for minimax is not yet supported") and accepted by 0.22.0, whose
/// page of 8 × 128 × 128 × 4 = 524,288 B raises the block to 524,288 / 512 = 1,024 tokens.
/// `--mamba-ssm-cache-dtype` (0.11.0: auto or float32) is not read for lightning layers: a note, the
/// page unchanged (512 tokens).
#[test]
fn minimax_m1_vllm_state_page_and_blocks() {
    let o = tpsim(&[
        "run",
        &at("m1-fp32-0.19", "0.19.0", "mamba_cache_dtype = \"float32\""),
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(o.stderr.contains("engine.mamba_cache_dtype"), "{}", o.stderr);
    assert!(
        o.stderr.contains("fp32 state for minimax is not yet supported"),
        "{}",
        o.stderr
    );
    let ok = run_json(&at("m1-fp32-0.22", "0.22.0", "mamba_cache_dtype = \"float32\""));
    let w = memory_warnings(&ok);
    assert!(
        w.iter()
            .any(|l| l.contains("Setting attention block size to 1024 tokens")),
        "{w:?}"
    );
    // The decode reads and writes the state at that width: 70 × 524,288 B a request a step instead
    // of 70 × 262,144, so the step is longer than with the default (bf16) state at the same release.
    let bf16 = run_json(&at("m1-bf16-0.22", "0.22.0", ""));
    assert!(
        f(&ok["throughput"]["tpot_ms"]) > f(&bf16["throughput"]["tpot_ms"]),
        "{} vs {}",
        ok["throughput"]["tpot_ms"],
        bf16["throughput"]["tpot_ms"]
    );
    let ssm = tpsim(&[
        "run",
        &at("m1-ssm32", "0.11.0", "mamba_ssm_cache_dtype = \"float32\""),
    ]);
    assert_eq!(ssm.code, 0, "{}", ssm.stderr);
    assert!(
        ssm.stderr
            .contains("does not apply to MiniMax's lightning layers"),
        "{}",
        ssm.stderr
    );
    assert!(
        ssm.stdout.contains("Setting attention block size to 512 tokens"),
        "{}",
        ssm.stdout
    );
}

/// 8× RTX PRO 6000 (96 GB): the bf16 checkpoint's 106.53 GiB a rank does not load; online fp8 does
/// not either under vLLM 0.11.0, which loads every weight in bf16 before quantizing; from 0.14
/// (layer-wise quantization while loading) it starts and decodes. MiniMaxAI publishes no FP8
/// checkpoint (scenarios/models/minimax-m1-80k/quant.toml).
#[test]
fn minimax_m1_rtx_pro_6000_verdicts() {
    let box8 = |name: &str, version: &str, extra: &str| {
        variant(name, |t| {
            t.replace("h200-8x-nvlink", "rtx-pro-6000-8x-1switch").replace(
                "version = \"0.11.0\"",
                &format!("version = \"{version}\"\n{extra}"),
            )
        })
    };
    let bf16 = run_json(&box8("m1-pro-bf16", "0.11.0", ""));
    assert_eq!(bf16["verdict"], "oom");
    let step = bf16["memory"]["oom"]["step"].as_str().unwrap().to_string();
    assert!(step.contains("weight loading"), "{step}");
    // Missing at least the weights beyond the card's 94.97 GiB: 106.53 − 94.97 = 11.56 GiB.
    assert!(f(&bf16["memory"]["oom"]["missing_mib"]) > 11.56 * 1024.0);
    assert!(bf16["throughput"].is_null());
    let fp8_old = run_json(&box8("m1-pro-fp8-0.11", "0.11.0", "quantization = \"fp8\""));
    assert_eq!(fp8_old["verdict"], "oom");
    let fp8 = run_json(&box8("m1-pro-fp8-0.19", "0.19.0", "quantization = \"fp8\""));
    assert_eq!(fp8["verdict"], "ok");
    assert!(f(&fp8["throughput"]["tpot_ms"]) > 0.0);
}

/// SGLang registers no MiniMax-Text-01 / M1 class (every wheel read, 0.4.9 … 0.5.23): refused on
/// `engine.name` with the Transformers-fallback line. vLLM: V1 from 0.10.2 (0.10.1 refused on
/// `engine.version`); "supported in vLLM until v0.23.0" (the 0.26.0 registry): 0.23.0 runs, 0.24.0 is
/// refused with vLLM's text; V0 (`VLLM_USE_V1=0`) is refused as not modelled.
#[test]
fn minimax_m1_releases_and_engines() {
    let sg = tpsim(&["run", &vllm_file_under_sglang(M1_VLLM, "m1-sglang", 4096, "")]);
    assert!(refused_for_vllm(&sg), "{}", sg.stderr);
    assert!(sg.stderr.contains("engine.name"), "{}", sg.stderr);
    assert!(
        sg.stderr
            .contains("MiniMaxM1ForCausalLM has no SGLang implementation, falling back to Transformers"),
        "{}",
        sg.stderr
    );
    let old = tpsim(&["run", &at("m1-0.10.1", "0.10.1", "")]);
    assert_eq!(old.code, 2, "{}", old.stdout);
    assert!(
        old.stderr
            .contains("vLLM 0.10.1 has no layers/mamba/linear_attn.py"),
        "{}",
        old.stderr
    );
    let first = tpsim(&["run", &at("m1-0.10.2", "0.10.2", "")]);
    assert!(!first.stderr.contains("linear_attn.py"), "{}", first.stderr);
    let last = tpsim(&["run", &at("m1-0.23.0", "0.23.0", "")]);
    assert!(
        !last.stderr.contains("was supported in vLLM until"),
        "{}",
        last.stderr
    );
    let gone = tpsim(&["run", &at("m1-0.24.0", "0.24.0", "")]);
    assert_eq!(gone.code, 2, "{}", gone.stdout);
    assert!(
        gone.stderr
            .contains("Model architecture MiniMaxM1ForCausalLM was supported in vLLM until v0.23.0"),
        "{}",
        gone.stderr
    );
    let v0 = tpsim(&[
        "run",
        &variant("m1-v0", |t| {
            format!(
                "{}\n[engine.env]\nVLLM_USE_V1 = \"0\"\n",
                t.replace("\"0.11.0\"", "\"0.10.2\"")
            )
        }),
    ]);
    assert_eq!(v0.code, 2, "{}", v0.stdout);
    assert!(v0.stderr.contains("MinimaxCacheManager"), "{}", v0.stderr);
}

/// vLLM's lightning builder (`LinearAttentionMetadataBuilder`) declares no CUDA-graph support in the
/// 0.11.0 wheel (the base class's NEVER): the 0.11.0 default FULL_AND_PIECEWISE is settled to
/// PIECEWISE with vLLM's warning. From 0.13.0 it declares UNIFORM_SINGLE_TOKEN_DECODE: no warning.
#[test]
fn minimax_m1_cudagraph_mode_by_release() {
    let o = tpsim(&["run", &scenario(M1_VLLM)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with LinearAttentionMetadataBuilder backend \
             (support: AttentionCGSupport.NEVER)"
        ),
        "{}",
        o.stderr
    );
    let new = tpsim(&["run", &at("m1-0.19-graphs", "0.19.0", "")]);
    assert_eq!(new.code, 0, "{}", new.stderr);
    assert!(
        !new.stderr.contains("LinearAttentionMetadataBuilder"),
        "{}",
        new.stderr
    );
}

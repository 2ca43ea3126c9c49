//! vllmhybrid (issue #17, engine-exact memory): vLLM's KV-cache pages for hybrid Mamba-2 / Gated
//! DeltaNet models through the scenario path (`tpsim::plan_memory`): the state pages in the blocks,
//! the attention block size vLLM sets, "GPU KV cache size" and "Maximum concurrency" by release
//! (`tpsim_model::vllm_hybrid`, whose unit tests work the same logs at the function level).

use std::path::Path;

/// The memory plan of `model` under vLLM `version` with the extra `[engine]` lines.
fn plan(model: &str, version: &str, engine: &str) -> (tpsim::decode::MemoryPlan, Vec<String>) {
    plan_on(
        "rtx-4090-1x",
        &format!("preset = \"{model}\"\n"),
        version,
        &format!("tp = 1\n{engine}"),
    )
}

/// The memory plan on a hardware preset with the given `[model]` and `[engine]` lines.
fn plan_on(hw: &str, model: &str, version: &str, engine: &str) -> (tpsim::decode::MemoryPlan, Vec<String>) {
    let text = format!(
        "[hardware]\npreset = \"{hw}\"\n[model]\n{model}[engine]\nname = \"vllm\"\nversion = \"{version}\"\n{engine}"
    );
    let s = tpsim::scenario::load_str(&text, Path::new("vllm_hybrid.rs")).expect("scenario resolves");
    let w = s.warnings.clone();
    (tpsim::plan_memory(&s), w)
}

/// The public vLLM 0.28.0 note on Qwen3.5-9B (find_string id 59375171630; prefix caching off,
/// `kv_cache_memory_bytes`): 640 MiB at max_model_len 16,384 → "17788 tokens", "1.09x"; 1 GiB →
/// 29,023 ("1.77x"); 512 MiB at 12,288 → 14,108 ("1.15x"); 640 MiB at 17,728 → 18,207. By hand:
/// block 528 tokens, 8 layers × 528 × 4,096 B = 17,301,504 B per block (38, 62, 31, 38 blocks), a
/// request ⌈len / 528⌉ + 3 blocks; tokens = int(blocks / per request × len). Exact (integers).
#[test]
fn qwen35_9b_vllm_0_28_reproduces_the_note() {
    for (bytes, len, tokens, conc) in [
        (671_088_640u64, 16_384u64, 17_788u64, "1.09"),
        (1_073_741_824, 16_384, 29_023, "1.77"),
        (536_870_912, 12_288, 14_108, "1.15"),
        (671_088_640, 17_728, 18_207, "1.03"),
    ] {
        let (p, _) = plan(
            "qwen3.5-9b",
            "0.28.0",
            &format!(
                "max_model_len = {len}\nkv_cache_memory_bytes = {bytes}\nenable_prefix_caching = false\n"
            ),
        );
        assert_eq!(p.kv_tokens, tokens, "{bytes} {len}");
        let (l, c) = p.vllm_concurrency.expect("vLLM's concurrency");
        assert_eq!((l, format!("{c:.2}")), (len, conc.to_string()));
        assert!(
            p.notes
                .iter()
                .any(|n| n.contains("Setting attention block size to 528 tokens")),
            "{:?}",
            p.notes
        );
        assert!(
            !p.notes.iter().any(|n| n.contains("approximate")),
            "{:?}",
            p.notes
        );
    }
}

/// The same pool under vLLM's defaults by release: 0.28 turns prefix caching on for hybrids ("align"
/// mode: two state blocks per group) → 38 / (32 + 6) = 1.00x, 16,384 tokens; 0.19 leaves it off and
/// reports 38 // 4 groups × 528 = 4,752 tokens (1.09x), warning that it is off. 0.11 (tpsim's pin)
/// cannot serve Qwen3.5 (vLLM registers it from 0.17.0; release52), so its case is Qwen3-Next
/// (`Qwen3NextForCausalLM` in 0.11.0's `registry.py`; preset qwen3-next-80b-a3b-fp8 on one H200 of
/// h200-8x-nvlink at tp 1, the fp8 weights fitting 141 GB; the KV and state stay bf16). 0.11 turns
/// prefix caching off with its own line, and without `mamba_ssm_dtype` (read from 0.17) the state is
/// bf16. By hand from the preset's config (48 layers, `full_attention_interval` 4 → 12 attention + 36
/// Gated DeltaNet layers; 2 KV heads × 256; 16 key heads × 128, 32 value heads × 128, conv kernel 4):
/// state page = (conv 3 × (2 × 16 × 128 + 32 × 128) = 24,576 + SSM 32 × 128 × 128 = 524,288) × 2 B =
/// 1,097,728 B (Qwen3.5-9B's: the same linear-attention shape); attention 2 × 2 × 256 × 2 B = 2,048 B
/// per token → block ⌈1,097,728 / 2,048 = 536⌉ to a multiple of 16 = 544 tokens, page 544 × 2,048 =
/// 1,114,112 B; groups of 12 layers: 1 attention + 3 state = 4; 640 MiB → 671,088,640 // 1,114,112 =
/// 602 // 12 = 50 blocks → 50 // 4 × 544 = 6,528 tokens, 50 / (⌈16,384 / 544⌉ = 31 + 3) = 1.47x.
/// Exact (integers).
#[test]
fn defaults_by_release() {
    let e = "max_model_len = 16384\nkv_cache_memory_bytes = 671088640\n";
    let (p, w) = plan("qwen3.5-9b", "0.28.0", e);
    assert_eq!(
        (p.kv_tokens, format!("{:.2}", p.vllm_concurrency.unwrap().1)),
        (16_384, "1.00".into())
    );
    assert!(!w.iter().any(|w| w.contains("prefix caching")), "{w:?}");
    let (p, w) = plan("qwen3.5-9b", "0.19.0", e);
    assert_eq!(
        (p.kv_tokens, format!("{:.2}", p.vllm_concurrency.unwrap().1)),
        (4_752, "1.09".into())
    );
    assert!(
        w.iter()
            .any(|w| w.contains("off by default for hybrid models before 0.26")),
        "{w:?}"
    );
    let (p, w) = plan_on(
        "h200-8x-nvlink",
        "preset = \"qwen3-next-80b-a3b-fp8\"\n",
        "0.11.0",
        &format!("tp = 1\n{e}"),
    );
    assert_eq!(
        (p.kv_tokens, format!("{:.2}", p.vllm_concurrency.unwrap().1)),
        (6_528, "1.47".into())
    );
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("Setting attention block size to 544 tokens")),
        "{:?}",
        p.notes
    );
    assert!(
        w.iter()
            .any(|w| w.contains("disabling prefix caching since it is not yet supported")),
        "{w:?}"
    );
}

/// tests/data/engine-memory.tsv line 49 (vLLM 0.11.0, Nemotron-Nano-9B-v2, "num_gpu_blocks is: 286"):
/// with the budget of 286 blocks (286 × 4 × 2,752,512 B) the plan reports 286 // 8 × 672 = 23,520
/// tokens and 286 / (⌈131,072 / 672⌉ + 7) = 1.41x, vLLM's padding warning for the 27 Mamba layers
/// (1 layer, 1 / 27 = 3.70 %) and its block-size line. 0.28 makes the SSM state float32 (page
/// 73,728 + 5,242,880 B → block 16 × 82 = 1,312).
#[test]
fn nemotron_nano_9b_v2_pages() {
    let budget = 286 * 4 * 2_752_512u64;
    let e = format!("kv_cache_memory_bytes = {budget}\n");
    let (p, _) = plan("nemotron-nano-9b-v2", "0.11.0", &e);
    assert_eq!(p.kv_tokens, 23_520);
    let (l, c) = p.vllm_concurrency.unwrap();
    assert_eq!((l, format!("{c:.2}")), (131_072, "1.41".into()));
    let notes = p.notes.join("\n");
    assert!(
        notes.contains("Add 1 padding layers, may waste at most 3.70% KV cache memory"),
        "{notes}"
    );
    assert!(
        notes.contains("Setting attention block size to 672 tokens"),
        "{notes}"
    );
    assert_eq!(p.kv_groups.map(|g| (g.group_size, g.num_groups)), Some((4, 8)));
    let (p, _) = plan("nemotron-nano-9b-v2", "0.28.0", &e);
    let notes = p.notes.join("\n");
    assert!(
        notes.contains("Updating mamba_ssm_cache_dtype to 'float32'"),
        "{notes}"
    );
    assert!(
        notes.contains("Setting attention block size to 1312 tokens"),
        "{notes}"
    );
}

/// hybrid50: Granite-4.0-H-Tiny (`GraniteMoeHybridForCausalLM`) has no per-model SSM rule in vLLM
/// (`MODELS_CONFIG_MAP`, 0.11.0 – 0.28.0: Nemotron-H's only), so `auto` keeps the SSM state at the
/// conv state's dtype, bf16. At tp 1: conv (3,072 + 2 · 1 · 128) × (4 − 1) = 9,984 values × 2 =
/// 19,968 B, SSM 48 × 64 × 128 = 393,216 values × 2 = 786,432 B, page 806,400 B; the attention token
/// of a layer is 4 × 128 × 2 × 2 = 2,048 B, so the block is 16 × ⌈806,400 / 32,768⌉ = 16 × 25 = 400
/// tokens and the padding 400 × 2,048 − 806,400 = 12,800 B (1.59 %), the same at 0.19.0 and 0.28.0
/// and with no "Updating mamba_ssm_cache_dtype" line (Nemotron-H's float32 default of 0.20+ would
/// give 19,968 + 1,572,864 = 1,592,832 B → 16 × ⌈48.6⌉ = 784 tokens). With
/// `--mamba-ssm-cache-dtype float32` it is 784 tokens (padding 12,800 / 1,592,832 = 0.80 %). Exact.
#[test]
fn granite_4_0_h_ssm_state_follows_the_flags_not_nemotrons_rule() {
    for v in ["0.19.0", "0.28.0"] {
        let (p, _) = plan("granite-4.0-h-tiny", v, "");
        let notes = p.notes.join("\n");
        assert!(
            notes.contains("Setting attention block size to 400 tokens"),
            "{v}: {notes}"
        );
        assert!(notes.contains("Padding mamba page size by 1.59%"), "{v}: {notes}");
        assert!(!notes.contains("Updating mamba_ssm_cache_dtype"), "{v}: {notes}");
    }
    let (p, _) = plan(
        "granite-4.0-h-tiny",
        "0.28.0",
        "mamba_ssm_cache_dtype = \"float32\"\n",
    );
    let notes = p.notes.join("\n");
    assert!(
        notes.contains("Setting attention block size to 784 tokens"),
        "{notes}"
    );
    assert!(notes.contains("Padding mamba page size by 0.80%"), "{notes}");
}

/// vLLM refuses when one request of max_model_len does not fit, counting the state pages: 0.11,
/// Nemotron-Nano at 131,072 tokens needs (4 × 196 + 27) pages × 2,752,512 B = 2.08 GiB; a 2 GiB
/// budget is refused with the longest length that fits: 4 × ⌈L / 672⌉ + 27 ≤ 780 pages → ⌈L / 672⌉ ≤
/// 188 → 126,336.
#[test]
fn too_small_for_one_request_is_refused_with_vllms_estimate() {
    let (p, _) = plan(
        "nemotron-nano-9b-v2",
        "0.11.0",
        "kv_cache_memory_bytes = 2147483648\n",
    );
    let tpsim::decode::Verdict::Oom { message, .. } = &p.verdict else {
        panic!("expected a refusal, got {:?}", p.verdict)
    };
    assert!(
        message.contains("max seq len (131072), (2.08 GiB KV cache is needed"),
        "{message}"
    );
    assert!(
        message.contains("the estimated maximum model length is 126336."),
        "{message}"
    );
}

/// Qwen3.x-27B FP8 at tp 2, fp8 KV, prefix caching on (mitchross/talos-argocd-proxmox PR #1995 quotes
/// its boot log: "GPU KV cache size: 302,921 tokens", "Maximum concurrency for 131,072 tokens per
/// request: 2.31x", 4.99 GiB per rank; vLLM release not given — ≥ 0.21 by the token form, 0.28.0
/// [assumed]). Qwen3.5-27B's preset (the same shape, 16 + 48 layers): attention 2 × 2 × 256 × 1 =
/// 1,024 B per token per layer at tp 2; state page 3 × 5,120 × 2 + 24 × 128 × 128 × 4 = 1,603,584 B →
/// block 1,568 (the PR's figure); groups of 16: 1 + 3; 4.99 GiB → 208 blocks of 25,690,112 B; a
/// request ⌈131,072 / 1,568⌉ = 84 + 3 × 2 ("align") = 90 blocks → 208 / 90 = 2.31x, int(2.311… ×
/// 131,072) = 302,921. Exact.
#[test]
fn qwen35_27b_tp2_fp8_kv_prefix_caching() {
    let budget = (4.99 * (1u64 << 30) as f64) as u64;
    let (p, _) = plan_on(
        "rtx-4090-2x-no-p2p",
        "preset = \"qwen3.5-27b\"\nquantization = { dtype = \"bf16\", kv_cache_dtype = \"fp8_e4m3\" }\n",
        "0.28.0",
        &format!("tp = 2\nmax_model_len = 131072\nkv_cache_memory_bytes = {budget}\n"),
    );
    assert_eq!(p.kv_tokens, 302_921);
    assert_eq!(format!("{:.2}", p.vllm_concurrency.unwrap().1), "2.31");
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("Setting attention block size to 1568 tokens")),
        "{:?}",
        p.notes
    );
}

/// vLLM 0.24.0, Qwen3.6-35B-A3B nvfp4 on an RTX 5090 (noonghunna/club-3090 issue #612: fp8 KV, prefix
/// caching on, max_model_len 131,072): "Available KV cache memory: 5.98 GiB", "GPU KV cache size:
/// 567,978 tokens", "Maximum concurrency … 4.33x". No preset: the shape is [assumed] Qwen3.5-35B-A3B's
/// (10 attention + 30 Gated DeltaNet layers, 2 KV heads × 256, 16 / 32 heads × 128, fp32 SSM), whose
/// Gated DeltaNet layers are those of the bundled Qwen3.5-9B (scenarios/models/qwen3.5-9b/config.json:
/// 16 key / 32 value heads × 128, conv kernel 4, `mamba_ssm_dtype` float32), read from that preset.
/// State page 49,152 + 2,097,152 = 2,146,304 B = 131 × 16,384 → block 2,096 unpadded; groups of 10:
/// 1 + 3; 299 blocks (5.9767 – 5.9967 GiB); a request 63 + 3 × 2 = 69 → 4.33x, 567,978 tokens.
/// Exact.
#[test]
fn qwen36_35b_a3b_vllm_0_24_log() {
    use tpsim_model::vllm_hybrid::{VllmHybridRules, gdn_state_page, vllm_hybrid_layout};
    let rules = VllmHybridRules::for_release(Some(&[0, 24, 0]));
    let text = "[hardware]\npreset = \"rtx-4090-1x\"\n[model]\npreset = \"qwen3.5-9b\"\n[engine]\nname = \"vllm\"\ntp = 1\n";
    let s = tpsim::scenario::load_str(text, Path::new("vllm_hybrid.rs")).expect("scenario resolves");
    let g = s.model.linear_attention.expect("Gated DeltaNet layers");
    assert_eq!(
        (
            g.num_k_heads,
            g.num_v_heads,
            g.head_k_dim,
            g.head_v_dim,
            g.conv_kernel,
            g.declared_ssm_state_bytes
        ),
        (16, 32, 128, 128, 4, Some(4))
    );
    let page = gdn_state_page(&g, 1, 0, 2, 4);
    let l = vllm_hybrid_layout(&rules, 10, 2 * 2 * 256, 30, page, 16);
    assert_eq!((page, l.block_size, l.padding_pct()), (2_146_304, 2_096, None));
    let blocks = l.num_blocks((5.98 * (1u64 << 30) as f64) as u64);
    let pages = rules.state_pages(true, 0);
    assert_eq!(blocks, 299);
    assert_eq!(l.reported_tokens(&rules, blocks, 131_072, pages), 567_978);
    assert_eq!(
        format!("{:.2}", l.max_concurrency(blocks, 131_072, pages)),
        "4.33"
    );
}

/// Issue #17 (mambadtype): `--mamba-ssm-cache-dtype` / `--mamba-cache-dtype` on Qwen3.5-9B under
/// vLLM 0.19.0 (tp 1, max_model_len 16,384, 640 MiB = 671,088,640 B, prefix caching off by 0.19's
/// default; 8 attention layers of 4,096 B per token, 24 Gated DeltaNet layers, groups of 8: 1 + 3).
/// By hand (`MambaStateDtypeCalculator._mamba_state_dtype`, 0.19.0 `Qwen3_5ForConditionalGenerationConfig`):
/// - `auto` and `float32`: the config's `mamba_ssm_dtype` float32 → page 3 × 8,192 × 2 + 32 × 128 ×
///   128 × 4 = 2,146,304 B → block 16 × ⌈2,146,304 / 65,536⌉ = 528, 671,088,640 // (528 × 4,096) // 8
///   = 38 blocks → 38 // 4 × 528 = 4,752 tokens, 38 / (⌈16,384 / 528⌉ = 32 + 3) = 1.09x.
/// - SSM `float16`: 49,152 + 1,048,576 = 1,097,728 B → block 16 × 17 = 272; 671,088,640 //
///   1,114,112 = 602, // 8 = 75 blocks → 75 // 4 × 272 = 4,896 tokens; 75 / (⌈16,384 / 272⌉ = 61 + 3)
///   = 1.17x; vLLM's warning that the config says float32.
/// - `--mamba-cache-dtype float32` (conv fp32, SSM float32 from the config): 98,304 + 2,097,152 =
///   2,195,456 B → block 16 × ⌈33.5⌉ = 544; 671,088,640 // 2,228,224 = 301, // 8 = 37 blocks → 37 // 4
///   × 544 = 4,896 tokens; 37 / (⌈16,384 / 544⌉ = 31 + 3) = 1.09x.
///
/// Exact (integer arithmetic; the concurrency to vLLM's two decimals).
#[test]
fn qwen35_9b_mamba_dtype_flags_at_0_19() {
    let base = "max_model_len = 16384\nkv_cache_memory_bytes = 671088640\n";
    for (extra, block, tokens, conc, warned) in [
        ("", 528u64, 4_752u64, "1.09", false),
        ("mamba_ssm_cache_dtype = \"auto\"\n", 528, 4_752, "1.09", false),
        ("mamba_ssm_cache_dtype = \"float32\"\n", 528, 4_752, "1.09", false),
        ("mamba_ssm_cache_dtype = \"float16\"\n", 272, 4_896, "1.17", true),
        ("mamba_cache_dtype = \"float32\"\n", 544, 4_896, "1.09", false),
    ] {
        let (p, _) = plan("qwen3.5-9b", "0.19.0", &format!("{base}{extra}"));
        assert_eq!(
            (p.kv_tokens, format!("{:.2}", p.vllm_concurrency.unwrap().1)),
            (tokens, conc.to_string()),
            "{extra}"
        );
        let line = format!("Setting attention block size to {block} tokens");
        assert!(
            p.notes.iter().any(|n| n.contains(&line)),
            "{extra}: {:?}",
            p.notes
        );
        let warn = "specifies mamba_ssm_dtype='float32' in its config, but --mamba-ssm-cache-dtype='float16'";
        assert_eq!(
            p.notes.iter().any(|n| n.contains(warn)),
            warned,
            "{extra}: {:?}",
            p.notes
        );
    }
}

/// Values outside the release's `MambaDType` (0.11.0: auto, float32; 0.19.0 adds float16), vLLM's
/// `--mamba-cache-dtype` under SGLang and values outside SGLang 0.5.8's `--mamba-ssm-dtype` choices
/// (float32, bfloat16: tests/data/engine-args/sglang-0.5.8.txt line 194) are refused naming the key.
/// release52: on Qwen3-Next, which every release here serves (vLLM 0.11.0 and SGLang 0.5.8 have no
/// Qwen3.5).
#[test]
fn mamba_dtype_choices_are_checked() {
    for (engine, version, line, needle) in [
        (
            "vllm",
            "0.19.0",
            "mamba_ssm_cache_dtype = \"bfloat16\"",
            "expected one of auto, float32, float16",
        ),
        (
            "vllm",
            "0.11.0",
            "mamba_cache_dtype = \"float16\"",
            "expected one of auto, float32",
        ),
        (
            "sglang",
            "0.5.8",
            "mamba_cache_dtype = \"float32\"",
            "SGLang has no such flag",
        ),
        (
            "sglang",
            "0.5.8",
            "mamba_ssm_cache_dtype = \"float16\"",
            "expected one of float32, bfloat16",
        ),
    ] {
        let text = format!(
            "[hardware]\npreset = \"rtx-4090-1x\"\n[model]\npreset = \"qwen3-next-80b-a3b\"\n[engine]\nname = \"{engine}\"\n\
             version = \"{version}\"\ntp = 1\n{line}\n"
        );
        let e = tpsim::scenario::load_str(&text, Path::new("vllm_hybrid.rs"))
            .expect_err(line)
            .to_string();
        assert!(
            e.contains(line.split(' ').next().unwrap()) && e.contains(needle),
            "{e}"
        );
    }
}

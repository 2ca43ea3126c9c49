//! sglanglogs (issue #17, engine-exact memory checked against real start-up logs): public start-up
//! logs of architectures the coverage table listed as unverified under SGLang, replayed from the
//! rows of `tests/data/engine-memory.tsv` they were copied to (lines 57–60; each row's `source`
//! column names where it comes from, tests/data/README.md describes them).
//!
//! Tolerances: figures the engine prints to two decimals are matched within ± 0.005 GiB per printed
//! input (the rounding band, converted to tokens where it matters); integers the engine prints
//! (token counts, allocation sizes in MiB) are matched exactly; weights per rank within 0.3 %
//! (issue #5). Where tpsim misses, the miss is asserted with its size so that it cannot drift unseen,
//! and named in book/src/coverage.md.

use crate::common::preset_spec;
use crate::engine_memory_rows::{
    GIB, check_sglang, check_weights, note, num, plan_for_line as plan, preset_weights_gib, relative, row,
    target_weights_gib,
};
use tpsim::decode::{MemoryPlan, Verdict};
use tpsim_model::memory::{SglangEra, SglangKvInput, sglang_kv_plan};

/// Line 57: SGLang main (a source build of 2026-08-27), Qwen3-30B-A3B-FP8 on one H100 80GB.
const FP8_LINE: usize = 57;
const FP8_MODEL: &str = "Qwen/Qwen3-30B-A3B-FP8";
/// Line 58: SGLang 0.5.13, Qwen3-30B-A3B (bf16) on one RTX PRO 6000 Blackwell Workstation.
const BF16_LINE: usize = 58;
const BF16_MODEL: &str = "Qwen/Qwen3-30B-A3B";
/// Line 59: vLLM 0.28.0, DeepSeek-R1-0528 (FP8) on 8× H100 at TP 8, out of memory while loading.
const R1_LINE: usize = 59;
const R1_MODEL: &str = "deepseek-ai/DeepSeek-R1-0528";
/// Line 60: SGLang main 2026-08 with kt-kernel, DeepSeek-R1-0528 at TP 8 on 8× H100, experts on the CPU.
const R1_KT_LINE: usize = 60;

/// Line 57's scenario: the log's GPU, fraction and release rules (an unreleased 2026-08 build: the
/// spring-2026 era, named explicitly as tpsim asks for a 0.5.9+ version), with the logged free
/// memory after torch distributed init and after the weights as `[engine.observed]` when `observed`.
fn fp8_scenario(observed: bool) -> MemoryPlan {
    let obs = if observed {
        "[engine.observed]\nfree_after_init_gib = 78.48\nfree_after_weights_gib = 49.33\n"
    } else {
        ""
    };
    plan(
        &format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"qwen3-30b-a3b-fp8\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.13\"\ntp = 1\nmem_fraction_static = 0.83\n\
             [engine.costs]\nera = \"spring-2026\"\n{obs}"
        ),
        FP8_LINE,
    )
}

/// Line 57, the pool. Cell: preset `qwen3-30b-a3b-fp8` (the checkpoint's config), 48 layers × 4 KV
/// heads × 128 × 2 (K, V) × 2 B = 98,304 B per token; the logged "K size: 17.99 GB" is (392,920 + 1)
/// × 49,152 B = 17.986 GiB and pins it (46 layers would print 17.24).
///
/// SGLang's profile (`_profile_available_bytes`, `pre_model_load_memory` measured after torch
/// distributed init = the "Load weight begin" 78.48): rest = 49.33 − 78.48 × (1 − 0.83) = 35.9884 GiB
/// → int(rest × 2^30) // 98,304 = 393,089 tokens. Logged 392,920: +169 tokens (+0.043 %), inside the
/// issue's 0.3 % but outside the printed figures' band (± 0.005 × (2 − 0.83) GiB = ± 63 tokens). The
/// engine's free memory at the profile was 169 × 98,304 B = 15.8 MiB below the "Load weight end"
/// figure (not located in the source; line 45's 2026-04 build shows the same kind of gap, 0.038 GiB).
/// Both gaps are what the free memory *before* torch distributed init would give (here 78.48 + the
/// logged 0.09 = 78.57 → 392,922 tokens, +2), but SGLang's `init_torch_distributed` returns the free
/// memory after init as `pre_model_load_memory`, so tpsim keeps the source's formula. A named known
/// miss (book/src/coverage.md), asserted to the token.
#[test]
fn sglang_2026_08_qwen3_30b_a3b_fp8_h100_tp1() {
    let r = row(FP8_LINE, FP8_MODEL);
    let cell = preset_spec("qwen3-30b-a3b-fp8").kv_cell_bytes(1);
    assert_eq!(cell, 48 * 4 * 128 * 2 * 2);
    let logged = num(&r, "kv_tokens") as u64;
    let k = |c: u64| ((logged + 1) * c / 2) as f64 / GIB;
    assert!((k(cell) - num(&r, "k_size_gb")).abs() < 0.005, "{}", k(cell));
    assert!((k(cell / 48 * 46) - num(&r, "k_size_gb")).abs() > 0.5);
    let p = sglang_kv_plan(&SglangKvInput {
        total_gib: num(&r, "avail_before_load_gb"),
        available_gib: num(&r, "avail_after_load_gb"),
        mem_fraction_static: num(&r, "mem_frac"),
        cell_size: cell,
        page_size: 1,
        max_total_tokens: None,
        era: SglangEra::Spring2026,
        context_len: 40_960,
        max_running_requests: None,
        spec: None,
    });
    println!("qwen3-30b-a3b-fp8 h100: predicted {} logged {logged}", p.tokens);
    assert_eq!(p.tokens, 393_089);
    assert_eq!(p.tokens - logged, 169);
    assert!(relative(p.tokens as f64, logged as f64) <= 0.003);
    let band = 0.005 * (2.0 - num(&r, "mem_frac")) * GIB / cell as f64;
    assert!((p.tokens - logged) as f64 > band, "{band}");
    // The gap in memory: 169 tokens × 98,304 B = 15.8 MiB.
    let gap_mib = ((p.tokens - logged) * cell) as f64 / (1u64 << 20) as f64;
    assert!((gap_mib - 15.84).abs() < 0.01, "{gap_mib}");
    // Through the scenario path with the logged free memory: the same profile.
    let s = fp8_scenario(true);
    assert_eq!((s.kv_tokens, s.cell_size), (393_089, cell));
    // The coincidence: total = the free memory before init (78.48 + 0.09).
    let before_init = sglang_kv_plan(&SglangKvInput {
        total_gib: num(&r, "avail_before_load_gb") + 0.09,
        available_gib: num(&r, "avail_after_load_gb"),
        mem_fraction_static: num(&r, "mem_frac"),
        cell_size: cell,
        page_size: 1,
        max_total_tokens: None,
        era: SglangEra::Spring2026,
        context_len: 40_960,
        max_running_requests: None,
        spec: None,
    });
    assert_eq!(before_init.tokens, 392_922);
}

/// Line 57, predicted from the scenario alone (the H100 preset's free memory and tpsim's weights, no
/// observed figure): 390,652 tokens, 0.58 % below the logged 392,920 (out of sample: no constant was
/// fitted to this row). mem49: 390,893 (−0.52 %) before SGLang's float32 RoPE cache (20 MiB, next
/// test) and the kept segments (2.6 MiB) were counted with the weights: 214 + 27 tokens fewer —
/// the right parts, the wrong way for this row, whose miss is elsewhere — the
/// preset's free memory after init differs from this box's 78.48, and the weights are still 0.096 GiB
/// below SGLang's "mem usage"; asserted to the token.
#[test]
fn sglang_2026_08_qwen3_30b_a3b_fp8_predicted_h100_tp1() {
    let r = row(FP8_LINE, FP8_MODEL);
    let p = fp8_scenario(false);
    let logged = num(&r, "kv_tokens");
    println!(
        "qwen3-30b-a3b-fp8 h100 predicted from the scenario: {} vs {logged}",
        p.kv_tokens
    );
    assert_eq!(p.kv_tokens, 390_652);
    let miss = (p.kv_tokens as f64 - logged) / logged;
    assert!((miss + 0.0058).abs() < 0.0001, "{miss}");
}

/// Line 57, weights: tpsim's Qwen3-30B-A3B-FP8 at tp 1 (128 experts of 768 and the attention in
/// e4m3 with fp32 128 × 128 block scales, the untied 151,936 vocabulary and the routers in bf16) is
/// 29.034 GiB of parameters (the "target weights" entry). mem49/mem50: SGLang's "Load weight end …
/// mem usage" also holds the RoPE cache, float32 on CUDA (`tpsim_model::rope_cache`: 40,960
/// positions × 128 × 4 B = 20 MiB = 0.0195 GiB, entry "RoPE cos/sin caches") and the segments torch
/// keeps (0.0025 GiB, the plain tensors only: the block-fp8 pieces are not in the replay; entry
/// "weight-load allocator segments"): 29.034 + 0.0195 + 0.0025 = 29.056 GiB, which the scenario's
/// log line prints, against SGLang's "mem usage=29.15 GB": 0.094 GiB (0.32 %) below (0.116 with the
/// parameters alone), outside the 0.3 % of issue #5. SGLang's figure is the drop of free memory
/// across loading, so it also holds what the loader leaves allocated; the bf16 checkpoint (line 58,
/// next test) is within the log's two decimals, so the excess comes with the fp8 path (not located
/// in the source). A named known miss, asserted to ± 0.01 GiB.
#[test]
fn sglang_2026_08_qwen3_30b_a3b_fp8_weights_h100_tp1() {
    use tpsim::decode::MemKind;
    let r = row(FP8_LINE, FP8_MODEL);
    let p = fp8_scenario(false);
    let ours = target_weights_gib(&p);
    let part = |k: MemKind| {
        p.entries
            .iter()
            .filter(|e| e.kind == k)
            .map(|e| e.bytes as f64 / GIB)
            .sum::<f64>()
    };
    let (rope, segments) = (part(MemKind::RopeCaches), part(MemKind::LoadSegments));
    let loaded = ours + rope + segments;
    let logged = num(&r, "weight_mem_gb");
    println!(
        "qwen3-30b-a3b-fp8 tp1: tpsim {ours:.4} + RoPE {rope:.4} + segments {segments:.4} = {loaded:.4} GiB \
         vs SGLang mem usage {logged} GB"
    );
    assert!((ours - 29.034).abs() < 0.001, "{ours}");
    assert!((rope * GIB - 20_971_520.0).abs() < 0.5, "{rope}");
    assert!((loaded - 29.0556).abs() < 0.001, "{loaded}");
    assert!(((logged - loaded) - 0.094).abs() < 0.01, "{}", logged - loaded);
}

/// Line 58, weights: tpsim's Qwen3-30B-A3B in bf16 at tp 1 (the FP8 preset's config lowered at
/// bf16: the two checkpoints share every shape) is 56.871 GiB against SGLang 0.5.13's "mem
/// usage=56.89 GB", −0.03 %; mem49: with SGLang's float32 RoPE cache (40,960 × 128 × 4 B = 20 MiB =
/// 0.0195 GiB, `tpsim_model::rope_cache`) 56.890 GiB, +0.000 % (± 0.01 %).
#[test]
fn sglang_0_5_13_qwen3_30b_a3b_weights_rtx_pro_6000_tp1() {
    let ours = preset_weights_gib("qwen3-30b-a3b-fp8", 1, None);
    assert!((ours - 56.8705).abs() < 0.001, "{ours}");
    let rope = (40_960 * 128 * 4) as f64 / GIB;
    let err = check_weights(BF16_LINE, BF16_MODEL, ours, rope);
    assert!(err.abs() < 0.0001, "{err}");
}

/// Line 58, the pool: `--max-total-tokens 4096` caps a profile of rest = 37.35 − 94.24 × 0.10 =
/// 27.926 GiB (305,026 tokens of 98,304 B) at 4,096; the logged "K size: 0.19 GB" is 4,097 × 49,152
/// B = 0.1875 GiB (the cell of line 57: same attention, bf16 KV). Through the scenario path on the
/// RTX PRO 6000 preset with the logged free memory: 4,096 tokens.
#[test]
fn sglang_0_5_13_qwen3_30b_a3b_capped_pool_rtx_pro_6000_tp1() {
    let r = row(BF16_LINE, BF16_MODEL);
    let cell = preset_spec("qwen3-30b-a3b-fp8").kv_cell_bytes(1);
    let total = num(&r, "avail_before_load_gb");
    assert!((total - (num(&r, "avail_after_load_gb") + num(&r, "weight_mem_gb"))).abs() < 1e-9);
    let p = sglang_kv_plan(&SglangKvInput {
        total_gib: total,
        available_gib: num(&r, "avail_after_load_gb"),
        mem_fraction_static: num(&r, "mem_frac"),
        cell_size: cell,
        page_size: 1,
        max_total_tokens: Some(4_096),
        era: SglangEra::Spring2026,
        context_len: 40_960,
        max_running_requests: None,
        spec: None,
    });
    assert_eq!(p.profiled_tokens, 305_026);
    assert_eq!(p.tokens, num(&r, "kv_tokens") as u64);
    let k = ((p.tokens + 1) * cell / 2) as f64 / GIB;
    assert!((k - num(&r, "k_size_gb")).abs() < 0.005, "{k}");
    let s = plan(
        "[hardware]\npreset = \"rtx-pro-6000-2x-turin-same-numa\"\n[model]\npreset = \"qwen3-30b-a3b-fp8\"\n\
         [engine]\nname = \"sglang\"\nversion = \"0.5.13\"\ntp = 1\nmem_fraction_static = 0.90\n\
         max_total_tokens = 4096\n[engine.costs]\nera = \"spring-2026\"\n\
         [engine.observed]\nfree_after_init_gib = 94.24\nfree_after_weights_gib = 37.35\n",
        BF16_LINE,
    );
    assert_eq!(s.kv_tokens, 4_096);
    assert!(matches!(s.verdict, Verdict::Ok), "{:?}", s.verdict);
}

/// Line 59: vLLM 0.28.0, DeepSeek-R1-0528 (FP8, the `deepseek-v3` preset's shapes) at TP 8 on 8×
/// H100, `gpu_memory_utilization` 0.95, max_model_len 8,192: the workers die while creating the
/// weights, with torch's "Tried to allocate 896.00 MiB" in `Fp8MoEMethod.create_weights`.
///
/// By hand: one MoE layer's w13 at TP 8 is 256 experts × 2 × (2,048 / 8) × 7,168 × 1 B =
/// 939,524,096 B = 896.00 MiB, the logged allocation (the experts are split by TP, not EP). At that
/// moment torch held 76.62 GiB and the card had 348 MiB free, so the whole model needs more than
/// 76.62 GiB + 896 MiB = 77.495 GiB per rank; tpsim's 79.56 GiB per rank is above it. Before this
/// test tpsim let the load pass and refused at the KV profile ("No available memory for the cache
/// blocks"), a step the engine never reaches; the plan now fails at weight loading.
#[test]
fn vllm_0_28_deepseek_r1_0528_fp8_load_oom_h100_tp8() {
    let r = row(R1_LINE, R1_MODEL);
    let m = preset_spec("deepseek-v3");
    let moe = m.moe.as_ref().expect("an MoE model");
    let (experts, inter, hidden) = (moe.n_routed_experts, moe.moe_intermediate, m.hidden);
    assert_eq!((experts, inter, hidden), (256, 2_048, 7_168));
    let w13 = experts * 2 * (inter / 8) * hidden;
    assert_eq!(w13, 939_524_096);
    assert_eq!(w13 >> 20, note(&r, "alloc_mib").unwrap() as u64);
    let p = plan(
        "[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"deepseek-v3\"\n\
         [engine]\nname = \"vllm\"\nversion = \"0.28.0\"\ntp = 8\nmax_model_len = 8192\n\
         gpu_memory_utilization = 0.95\n",
        R1_LINE,
    );
    let ours = target_weights_gib(&p);
    let lower = note(&r, "allocated_gib").unwrap() + note(&r, "alloc_mib").unwrap() / 1024.0;
    println!("deepseek-r1 fp8 tp8: tpsim {ours:.4} GiB per rank; the log needs more than {lower:.3}");
    // grok52: + vLLM's deepseek_yarn RoPE cache, 163,840 × 64 × 2 B = 20 MiB = 0.0195 GiB (79.542 before).
    assert!((ours - 79.561).abs() < 0.001, "{ours}");
    assert!(ours > lower);
    assert!(ours > note(&r, "capacity_gib").unwrap());
    match &p.verdict {
        Verdict::Oom { step, message, .. } => {
            assert!(step.starts_with("weight loading"), "{step}");
            assert!(
                message.starts_with("torch.OutOfMemoryError: CUDA out of memory"),
                "{message}"
            );
        }
        v => panic!("{v:?}"),
    }
}

/// Line 60: SGLang main (lmsysorg/sglang:latest of 2026-08 with kt-kernel), DeepSeek-R1-0528 (FP8,
/// `DeepseekV3ForCausalLM`, MLA) at TP 8 on 8× H100, the routed experts on the CPU (kt-kernel
/// AMXINT4, `kt_num_gpu_experts=0`): the GPU holds attention, the shared experts, the dense layers and
/// the embeddings ("mem usage=3.23 GB"), which tpsim does not model, but the KV pool is SGLang's own
/// arithmetic on the logged free memory.
///
/// Cell: preset `deepseek-v3`, MLA replicated on every rank: 61 layers × (kv_lora_rank 512 +
/// qk_rope_head_dim 64) × 2 B = 70,272 B per token; "KV size: 61.03 GB" is (932,468 + 1) × 70,272 B =
/// 61.026 GiB. The profile takes the minimum over ranks of both free-memory readings
/// (`get_available_gpu_memory(distributed=True)`): 77.33 before loading (TP1–TP6; TP0 77.38, TP7
/// 77.57) and 74.10 after (TP1–TP6; TP0 74.15, TP7 74.34). rest = 74.10 − 77.33 × (1 − 0.831) =
/// 61.0312 GiB → 932,544 tokens; logged 932,468: +76 (+0.008 %), inside the printed figures' band
/// (± 0.005 × (2 − 0.831) GiB = ± 89 tokens). Here the free memory *after* torch distributed init
/// (the source's `pre_model_load_memory`) is the right total: before init (+1.29 GB) would give
/// 929,213.
#[test]
fn sglang_2026_08_deepseek_r1_0528_mla_pool_h100_tp8() {
    let r = row(R1_KT_LINE, R1_MODEL);
    let cell = preset_spec("deepseek-v3").kv_cell_bytes(8);
    assert_eq!(cell, 61 * (512 + 64) * 2);
    let p = sglang_kv_plan(&SglangKvInput {
        total_gib: num(&r, "avail_before_load_gb"),
        available_gib: num(&r, "avail_after_load_gb"),
        mem_fraction_static: num(&r, "mem_frac"),
        cell_size: cell,
        page_size: 1,
        max_total_tokens: None,
        era: SglangEra::Spring2026,
        context_len: 163_840,
        max_running_requests: None,
        spec: None,
    });
    let band = 0.005 * (2.0 - num(&r, "mem_frac")) * GIB / cell as f64;
    // check_sglang: within 0.3 %, within the band, and the "KV size" line (MLA: one total).
    let (predicted, logged) = check_sglang("deepseek-r1-0528 8x h100", &p, &r, band);
    assert_eq!((predicted, logged), (932_544, 932_468));
    // The total before init would not do: 3,255 tokens short.
    let before_init = sglang_kv_plan(&SglangKvInput {
        total_gib: num(&r, "avail_before_load_gb") + note(&r, "init_mem_usage_gb").unwrap(),
        available_gib: num(&r, "avail_after_load_gb"),
        mem_fraction_static: num(&r, "mem_frac"),
        cell_size: cell,
        page_size: 1,
        max_total_tokens: None,
        era: SglangEra::Spring2026,
        context_len: 163_840,
        max_running_requests: None,
        spec: None,
    });
    assert_eq!(before_init.tokens, 929_213);
    // Through the scenario path, the logged free memory as `[engine.observed]`: the same pool.
    let s = plan(
        "[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"deepseek-v3\"\n\
         [engine]\nname = \"sglang\"\nversion = \"0.5.13\"\ntp = 8\nmem_fraction_static = 0.831\n\
         cuda_graph = false\n[engine.costs]\nera = \"spring-2026\"\n\
         [engine.observed]\nfree_after_init_gib = 77.33\nfree_after_weights_gib = 74.10\n",
        R1_KT_LINE,
    );
    assert_eq!((s.kv_tokens, s.cell_size), (932_544, cell));
}

/// Lines 57 and 60, the fraction: neither launch line is quoted, but both server_args carry values
/// no user types (0.83 at TP 1 with CUDA graphs, 0.831 at TP 8 with `--disable-cuda-graph`; the same
/// box's Qwen3 run with graphs off logged 0.841), so they are read as SGLang's default. Its rule
/// (`server_args.py` `_handle_gpu_memory_settings`, early-2026 source): reserved = 512 + 1.5 ×
/// max(chunked_prefill_size, 2048) + 2 × cuda_graph_max_bs + tp × pp / 8 × 1024, + 8 per piecewise
/// (prefill) graph size, floored at 10,240 MiB above 60 GiB; fraction = round((81,559 − reserved) /
/// 81,559, 3) on an H100.
/// - Line 57 (TP 1, decode graphs to 256 and the 58 "breakable" prefill graph sizes to 8,192 the log
///   lists): 512 + 12,288 + 512 + 128 + 464 = 13,904 MiB → 0.830, tpsim's figure when the scenario
///   says the prefill graphs are on (`enable_piecewise_cuda_graph`; this build captures them by
///   default).
/// - Line 60 (TP 8, graphs off): the logged 0.831 is 512 + 12,288 + 1,024 = 13,824 MiB, without the
///   2 × 512 of decode graphs. The spring-2026 era's rule (named here without a release) keeps that
///   term when the graphs are off (the early-2026 source adds it unconditionally) and gives 0.818:
///   asserted. sglres53: SGLang 0.5.15 drops it; with `engine.version` ≥ 0.5.15 tpsim gives 0.831
///   (`sglres53::mla_deepep_and_graphs_off_tp8`).
#[test]
fn sglang_2026_08_default_fraction_h100() {
    let r57 = row(FP8_LINE, FP8_MODEL);
    let r60 = row(R1_KT_LINE, R1_MODEL);
    let fraction = |model: &str, tp: u32, extra: &str| {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"{model}\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.13\"\ntp = {tp}\n{extra}\
             [engine.costs]\nera = \"spring-2026\"\n"
        );
        let s = tpsim::scenario::load_str(&text, std::path::Path::new("engine-memory.tsv")).unwrap();
        assert!(s.engine.fraction_is_default);
        s.engine.mem_fraction_static
    };
    let f57 = fraction("qwen3-30b-a3b-fp8", 1, "enable_piecewise_cuda_graph = true\n");
    assert_eq!(format!("{f57:.3}"), format!("{:.3}", num(&r57, "mem_frac")));
    let f60 = fraction("deepseek-v3", 8, "cuda_graph = false\n");
    assert_eq!(format!("{f60:.3}"), "0.818");
    assert_eq!(format!("{:.3}", num(&r60, "mem_frac")), "0.831");
    // The logged 0.831 is the rule without the decode-graph term.
    let reserved = 512.0 + 1.5 * 8192.0 + 8.0 / 8.0 * 1024.0;
    assert_eq!(format!("{:.3}", (81_559.0 - reserved) / 81_559.0), "0.831");
}

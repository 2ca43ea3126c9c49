//! vllmnew53 (issue #17): Step-3.5-Flash under vLLM (from 0.15.1, `models/step3p5.py`) and
//! MiMo-V2-Flash under vLLM from 0.20 (`sim::scenario::vllm_diffkv`: V at its own width on the DiffKV
//! backends; 0.20 – 0.24 cannot start on GPUs without FA3 / FA4). Every figure below is worked out
//! by hand from the wheels' code; no public vLLM start-up log of either model was found.

use crate::common::*;

const STEP_VLLM: &str = "examples/step-3.5-flash-vllm-rtxpro6000x8.toml";
const STEP_SGLANG: &str = "examples/step-3.5-flash-sglang-rtxpro6000x8.toml";
const MIMO: &str = "examples/mimo-v2-flash-sglang-rtxpro6000x4.toml";

/// The MiMo-V2-Flash example under vLLM `version` (tp 4 on four RTX PRO 6000, SM 12.0), `extra`
/// appended to `[engine]`; `box8` moves it to the eight-GPU preset named (H200, SM 9.0; MI300X) at tp 8.
fn mimo_vllm(name: &str, version: &str, extra: &str, box8: Option<&str>) -> String {
    edited_variant(MIMO, name, |t| {
        let t = t
            .replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("version = \"0.5.8\"", &format!("version = \"{version}\"{extra}"))
            .replace("context_length", "max_model_len");
        if let Some(b) = box8 {
            t.replace("rtx-pro-6000-4x-turin-same-numa", b)
                .replace("tp = 4", "tp = 8")
                .replace("[engine.env]", "")
                .replace("NCCL_P2P_LEVEL = \"SYS\"", "")
        } else {
            t
        }
    })
}

/// The "KV cache" entry is whole blocks of `block` bytes; returns the blocks.
fn whole_blocks(run: &serde_json::Value, block: u64) -> u64 {
    let kv = entry_bytes(run, "KV cache");
    assert_eq!(kv % block, 0, "KV cache {kv} B is not whole {block} B blocks");
    kv / block
}

/// The bundled Step-3.5-Flash example under vLLM 0.19.0 (bf16, tp 8, RTX PRO 6000). Tolerance: none
/// (integers).
/// - Sharding (`models/step3p5.py` 0.19.0, `Step3p5Attention`): `QKVParallelLinear` of 64 (full) or
///   96 (sliding, `attention_other_setting.num_attention_heads`) query heads → 8 / 12 a rank, 8 KV
///   heads → 1 a rank; `g_proj` a `ColumnParallelLinear(hidden, heads)`; `GemmaRMSNorm(head_dim)`
///   q/k norms; fp32 `gate` and `router_bias` replicated; `SharedFusedMoE` with the one shared expert
///   — SGLang's pieces, so the checkpoint a rank is families28's 49,425,544,960 B (the SGLang
///   example's "target weights"). vLLM's "Model loading" adds the bf16 RoPE caches built while the
///   model is constructed: the sliding layers' 262,144 rows × 128 × 2 B = 67,108,864 B and
///   (sglmem54) the full layers' second cache — base 5e6, rotary factor 0.5 — 262,144 × 64 × 2 =
///   33,554,432 B, and the caching allocator's block rounding of the load, 29,137,152 B (vrows4's
///   replay of the tensor list, `ModelSpec::vllm_load_block_overhead`: not by hand; 31,234,304 with
///   one cache). Together 129,800,448 B over SGLang's checkpoint figure.
/// - KV: each layer's `Attention(num_kv_heads = 1, head_size = 128)`, `per_layer_sliding_window`
///   = 512 on the 33 sliding layers: `SlidingWindowSpec` / `FullAttentionSpec` of 1 × (128 + 128)
///   × 2 = 512 B a token, the same page, so no unification; cell 45 × 512 = 23,040 B.
/// - Groups (0.19.0 `v1/core/kv_cache_utils.py` `_get_kv_cache_groups_uniform_page_size`): counts 12
///   and 33; 33 ≥ 1.5 × 12, so group_size = 12: one full group, ⌈33 / 12⌉ = 3 sliding groups, 3
///   padding layers ("Add 3 padding layers, may waste at most 9.09% KV cache memory": 3 / 33); a
///   block is 12 × 512 × 16 = 98,304 B and the reported tokens are blocks // 4 × 16.
/// - All-reduces a pass: `o_proj` (`RowParallelLinear`, reduce_results) and the MLP or MoE
///   (`maybe_all_reduce_tensor_model_parallel` of routed + shared) in each of 45 layers, plus the
///   vocab-parallel embedding: 45 × 2 + 1 = 91.
#[test]
fn step3p5_vllm_rtxpro6000_by_hand() {
    let run = run_json(&scenario(STEP_VLLM));
    assert_eq!(run["verdict"], "ok", "{run}");
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 23_040);
    let blocks = whole_blocks(&run, 98_304);
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), blocks / 4 * 16);
    assert!(
        memory_warnings(&run)
            .iter()
            .any(|w| w.contains("Add 3 padding layers, may waste at most 9.09% KV cache memory")),
        "{}",
        m["warnings"]
    );
    let sglang = run_json(&scenario(STEP_SGLANG));
    let checkpoint = entry_bytes(&sglang, "target weights");
    assert_eq!(checkpoint, 49_425_544_960);
    assert_eq!(
        entry_bytes(&run, "target weights"),
        checkpoint + 67_108_864 + 33_554_432 + 29_137_152
    );
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 91);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// vLLM's first release with `models/step3p5.py` is 0.15.1 (the 0.15.0 wheel has neither it nor
/// `transformers_utils/configs/step3p5.py`): 0.15.1 starts the example, 0.15.0 is refused with exit
/// 2. At tp 4 each rank holds 2 of the 8 KV heads in both kinds: 2 × 256 × 2 = 1,024 B a layer, cell
/// 45 × 1,024 = 46,080 B; the bf16 weights, about twice the tp-8 figure (≈ 92 GiB a rank), leave no
/// room on a 96 GB card: an out-of-memory verdict, not a throughput. Tolerance: none.
#[test]
fn step3p5_vllm_first_release_and_tp4_cell() {
    let first = edited_variant(STEP_VLLM, "vllmnew53-step-0.15.1", |t| {
        t.replace("\"0.19.0\"", "\"0.15.1\"")
    });
    assert_eq!(run_json(&first)["verdict"], "ok");
    let tp4 = edited_variant(STEP_VLLM, "vllmnew53-step-tp4", |t| t.replace("tp = 8", "tp = 4"));
    let o = tpsim(&["memory", "--json", &tp4]);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_default();
    assert_eq!(
        v["cell_size_bytes"].as_u64(),
        Some(46_080),
        "{}{}",
        o.stdout,
        o.stderr
    );
    assert_eq!(v["verdict"], "oom", "{}", o.stdout);
    let old = edited_variant(STEP_VLLM, "vllmnew53-step-0.15.0", |t| {
        t.replace("\"0.19.0\"", "\"0.15.0\"")
    });
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("vLLM 0.15.0 has no models/step3p5.py (vLLM adds it in 0.15.1)"),
        "{}",
        o.stderr
    );
}

/// MiMo-V2-Flash (9 global layers of 4 KV heads, 39 sliding of 8; q/k 192, v 128; sinks on the
/// sliding layers) under vLLM by release. Tolerance: none (integers).
/// - 0.25.1 and 0.34.0 at tp 4 on RTX PRO 6000 (SM 12.0): `models/mimo_v2.py` passes `head_size_v =
///   128`; FA-DiffKV is not supported on the device, so `TRITON_ATTN_DIFFKV`, whose page is
///   head_size + head_size_v wide. Per token and layer: global max(1, 4 / 4) × (192 + 128) × 2 =
///   640 B, sliding 2 × 320 × 2 = 1,280 B; `unify_kv_cache_spec_page_size` gives every layer the
///   1,280 B page: cell 48 × 1,280 = 61,440 B (0.19.0's padded V: 73,728). Groups of 9 (39 ≥ 1.5 ×
///   9): 1 + 5 = 6; a block is 9 × 1,280 × 16 = 184,320 B, tokens blocks // 6 × 16. Without the
///   hybrid manager each layer keeps its page: 9 × 640 + 39 × 1,280 = 55,680 B.
/// - 0.20.0 and 0.22.0 on the same box: `FlashAttentionDiffKVBackend` always, FA2 on SM 12.0, and
///   `FlashAttentionImpl` asserts "Sinks are only supported in FlashAttention 3": refused, exit 2.
/// - 0.22.0 at tp 8 on H200 (SM 9.0, FA3 → FA4 for sinks with hdim ≠ hdim_v): both kinds hold 1 KV
///   head a rank, 320 × 2 = 640 B, the same page: cell 48 × 640 = 30,720 B; block 9 × 640 × 16 =
///   92,160 B, tokens blocks // 6 × 16. 0.19.0 there: 48 × 2 × 192 × 2 = 36,864 B.
/// - 0.22.0 on MI300X (ROCm, "9.4"): no FlashAttention version on ROCm (`fa_utils.py`), refused.
#[test]
fn mimo_v2_flash_vllm_by_release() {
    for v in ["0.25.1", "0.34.0"] {
        let run = run_json(&mimo_vllm(&format!("vllmnew53-mimo-{v}"), v, "", None));
        assert_eq!(run["verdict"], "ok", "{v}");
        let m = &run["memory"];
        assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 61_440, "{v}");
        let blocks = whole_blocks(&run, 184_320);
        assert_eq!(m["kv_tokens"].as_u64().unwrap(), blocks / 6 * 16, "{v}");
    }
    let plain = run_json(&mimo_vllm(
        "vllmnew53-mimo-0.25.1-nohybrid",
        "0.25.1",
        "\ndisable_hybrid_kv_cache_manager = true",
        None,
    ));
    assert_eq!(plain["memory"]["cell_size_bytes"].as_u64().unwrap(), 55_680);
    for v in ["0.20.0", "0.22.0"] {
        let o = tpsim(&["run", &mimo_vllm(&format!("vllmnew53-mimo-{v}"), v, "", None)]);
        assert_eq!(o.code, 2, "{v}: {}", o.stderr);
        assert!(
            o.stderr.contains(&format!("vLLM {v} cannot start MiMo-V2-Flash"))
                && o.stderr
                    .contains("\"Sinks are only supported in FlashAttention 3\""),
            "{}",
            o.stderr
        );
    }
    let h200 = run_json(&mimo_vllm(
        "vllmnew53-mimo-h200-0.22.0",
        "0.22.0",
        "",
        Some("h200-8x-nvlink"),
    ));
    assert_eq!(h200["verdict"], "ok");
    assert_eq!(h200["memory"]["cell_size_bytes"].as_u64().unwrap(), 30_720);
    let blocks = whole_blocks(&h200, 92_160);
    assert_eq!(h200["memory"]["kv_tokens"].as_u64().unwrap(), blocks / 6 * 16);
    let h200_old = run_json(&mimo_vllm(
        "vllmnew53-mimo-h200-0.19.0",
        "0.19.0",
        "",
        Some("h200-8x-nvlink"),
    ));
    assert_eq!(h200_old["memory"]["cell_size_bytes"].as_u64().unwrap(), 36_864);
    // ROCm: `get_flash_attn_version` returns None, so no sinks on FlashAttention-DiffKV in 0.22.0.
    let mi300x = mimo_vllm(
        "vllmnew53-mimo-mi300x-0.22.0",
        "0.22.0",
        "",
        Some("mi300x-8x-xgmi"),
    );
    let o = tpsim(&["run", &mi300x]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("(compute capability 9.4, ROCm)"),
        "{}",
        o.stderr
    );
}

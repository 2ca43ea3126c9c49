//! families39 (issue #17): Google Gemma 4 under vLLM (`models/gemma4.py` / `gemma4_mm.py` from 0.19.0),
//! lowered on the two-kind attention of `tpsim_model::llm::mimo_v2` like MiMo-V2-Flash under vLLM:
//! its weights a rank with the vision tower whole (transformers' `AutoModel`), its KV pages of two
//! sizes unified (`unify_kv_cache_spec_page_size`), vLLM's groups and "GPU KV cache size" line, the
//! start-up check of one `--max-model-len` request with the full layers' doubled block, Gemma4Config's
//! attention-backend rule by release, and what vLLM refuses. Bytes, blocks and tokens are integers
//! (no tolerance); the run is checked against its own floor. No public vLLM start-up log of Gemma 4
//! with its KV lines was found (the brief's issue search, 2026-12-06).

use crate::common::*;
use tpsim_model::llm::{ModelSpec, Quantization};

const G4V: &str = "examples/gemma-4-31b-vllm-rtxpro6000x2.toml";
const G4MOE_SGL: &str = "examples/gemma-4-26b-a4b-sglang-rtx5090x4.toml";

/// The vLLM example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(G4V, name, edit)
}

fn spec(name: &str) -> ModelSpec {
    let text = std::fs::read_to_string(scenario(&format!("models/{name}/config.json"))).unwrap();
    ModelSpec::from_config_json(&text, Quantization::bf16()).unwrap()
}

/// The warnings of a `tpsim run --json` result.
fn run_warnings(run: &serde_json::Value) -> Vec<String> {
    run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

/// The vision tower under vLLM 0.19.0 / 0.34.0 `gemma4_mm.py`: `AutoModel.from_config(vision_config)`
/// and a `ReplicatedLinear` `embed_vision`, whole on every rank: 575,743,536 parameters for the 31B
/// and 572,794,416 for the 26B-A4B at any tp (`vision54.rs` counts them by hand; SGLang's shards are
/// 303,272,496 at tp 2 and 164,087,856 at tp 4). The two kinds' pages (vLLM `FullAttentionSpec`:
/// 2 × block × KV heads × head size × 2 B): 31B full max(1, 4 / tp) × 512, sliding 16 / tp × 256 —
/// tp 1: 2,048 vs 4,096 × 4 B; tp 2, 4: the sliding page twice the full one, so the full layers'
/// block is doubled (mults (2, 1)); tp 8: 1 × 512 = 2 × 256, equal (1, 1).
#[test]
fn gemma4_vllm_tower_and_block_mults() {
    let mut g31 = spec("gemma-4-31b-it");
    assert_eq!(g31.weight_breakdown(2).vision, 2 * 303_272_496);
    g31.serve_gemma4_as_vllm();
    assert_eq!(g31.weight_breakdown(2).vision, 2 * 575_743_536);
    assert_eq!(g31.weight_breakdown(8).vision, 2 * 575_743_536);
    for (tp, mults) in [(1, (2, 1)), (2, (2, 1)), (4, (2, 1)), (8, (1, 1))] {
        assert_eq!(g31.mimo_v2_vllm_block_mults(tp, false), Some(mults), "tp {tp}");
    }
    let mut g26 = spec("gemma-4-26b-a4b-it");
    g26.serve_gemma4_as_vllm();
    assert_eq!(g26.weight_breakdown(4).vision, 2 * 572_794_416);
    // 26B-A4B at tp 4: full max(1, 2 / 4) = 1 × 512, sliding 8 / 4 = 2 × 256: equal pages.
    assert_eq!(g26.mimo_v2_vllm_block_mults(4, false), Some((1, 1)));
}

/// The two RoPE caches in bf16 at 262,144 positions (512 and 256 wide), bytes.
const ROPE: u64 = 402_653_184;

/// A by-hand vLLM Gemma 4 run: its weights a rank (bytes, before RoPE), the number of large weights
/// whose allocator rounding stays below 2 MiB each, and the KV cell size (bytes a token).
struct Hand {
    weights: u64,
    large_weights: u64,
    cell: u64,
}

impl Hand {
    /// Checks the run's weights (+ `ROPE`, + under 2 MiB of rounding a large weight), its cell, its
    /// pool of `page`-byte pages in groups of `group` layers (`num_blocks = available // page //
    /// group`; tokens = num_blocks // `groups` × 16), its all-reduces a pass, and a step no faster
    /// than its own memory floor and within 3× of it.
    fn check(&self, run: &serde_json::Value, (page, group, groups): (u64, u64, u64), allreduces: u64) {
        let overhead = entry_bytes(run, "target weights") - self.weights - ROPE;
        assert!(
            overhead < self.large_weights * (2 << 20),
            "allocator rounding {overhead} B"
        );
        let m = &run["memory"];
        assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), self.cell);
        let pages = f(&m["rest_gib"]) * (1u64 << 30) as f64 / page as f64;
        let blocks = (pages / group as f64).floor() as u64;
        assert_eq!(entry_bytes(run, "KV cache"), blocks * group * page);
        assert_eq!(m["kv_tokens"].as_u64().unwrap(), blocks / groups * 16);
        assert_eq!(
            run["collectives"]["allreduces_per_pass"].as_u64().unwrap(),
            allreduces
        );
        let tpot = f(&run["throughput"]["tpot_ms"]);
        let floor = f(&run["floor"]["tpot_ms"]);
        assert!(
            tpot.is_finite() && tpot >= floor && tpot <= 3.0 * floor,
            "tpot {tpot} floor {floor}"
        );
    }
}

/// The example (vLLM 0.19.1, tp 2, two RTX PRO 6000), by hand:
/// - weights a rank: the text decoder's 15,404,388,668 parameters at tp 2 (`families30.rs`, the
///   same `QKVParallelLinear` with the V slot filled from `k_proj` in vLLM 0.19.0 `gemma4.py`) and the
///   whole tower 575,743,536 → 2 × 15,980,132,204 = 31,960,264,408 B; plus the two RoPE caches in
///   bf16 (vLLM `get_rope` keys them apart by head size: `Gemma4RotaryEmbedding` 512 wide over the
///   whole head, the sliding 256) 262,144 × (512 + 256) × 2 B = 402,653,184 B; plus tpsim's model of
///   the caching allocator's rounding (`vllm_load_block_overhead`, not by hand: below 2 MiB, torch's
///   large-segment rounding, for each of the 4 GEMM weights of the 60 text and 27 tower layers and the
///   embedding, input projection, position table and `embed_vision`: 352 × 2 MiB);
/// - KV: pages of 131,072 B (sliding 16 tokens × 8,192 B; full 32 tokens × 4,096 B), groups of
///   min(10, 50) = 10 layers (50 ≥ 1.5 × 10): 1 full + 5 sliding = 6 groups; `num_blocks =
///   available // 131,072 // 10` (`get_num_blocks`); the pool 10 × 131,072 × num_blocks B; "GPU KV
///   cache size" = num_blocks // 6 × min block 16 (`_report_kv_cache_config`), vLLM 0.19.0
///   `v1/core/kv_cache_utils.py`;
/// - all-reduces a pass: attention and MLP of 60 layers + the embedding's = 121;
/// - the decode step no faster than its own memory floor, and within 3× of it.
#[test]
fn gemma4_31b_vllm_by_hand() {
    let run = run_json(&scenario(G4V));
    assert_eq!(run["verdict"], "ok");
    assert_eq!(run["scenario"]["attention_backend"], "TRITON_ATTN (vLLM default)");
    assert!(
        run_warnings(&run).iter().any(|w| w
            == "vLLM: Gemma4 model has heterogeneous head dimensions (head_dim=256, global_head_dim=512). \
                Forcing TRITON_ATTN backend to prevent mixed-backend numerical divergence."),
        "{:?}",
        run["warnings"]
    );
    let text = 15_404_388_668_u64;
    assert_eq!(2 * (text + 575_743_536), 31_960_264_408);
    assert_eq!(262_144 * (512 + 256) * 2, ROPE);
    let hand = Hand {
        weights: 31_960_264_408,
        large_weights: 4 * (60 + 27) + 4,
        cell: 60 * 8_192,
    };
    hand.check(&run, (131_072, 10, 6), 121);
}

/// vLLM's start-up check of one 262,144-token request at `gpu_memory_utilization` 0.42 (the KV
/// budget about 3.7 GiB): `_max_memory_usage_bytes_from_groups` (vLLM 0.19.0) sums per group the
/// pages of `max_memory_usage_bytes`: a full layer cdiv(262,144, 32) = 8,192 pages (its unified block
/// holds 32 tokens), a sliding layer cdiv(min(1,023 + 8,192, len), 16) + 1 = 577 pages (window 1,024,
/// `max_num_batched_tokens` 8,192), × 131,072 B: 10 × 8,192 × 131,072 + 50 × 577 × 131,072 =
/// 10,737,418,240 + 3,781,427,200 = 14,518,845,440 B = 13.52 GiB (20.5 GiB were the full layers
/// counted at 16 tokens a block). The estimate is the longest length whose pages fit the budget.
#[test]
fn gemma4_31b_vllm_max_len_check_by_hand() {
    let file = variant("g4v-len", |t| {
        t.replace(
            "max_model_len = 65536",
            "max_model_len = 262144\ngpu_memory_utilization = 0.42",
        )
    });
    let o = tpsim(&["memory", &file, "--json"]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_else(|_| panic!("{}", o.stderr));
    assert_eq!(j["verdict"], "oom", "{}", o.stdout);
    let err = j["error"].as_str().unwrap();
    assert_eq!(
        format!("{:.2}", 14_518_845_440_f64 / (1u64 << 30) as f64),
        "13.52"
    );
    assert!(
        err.contains("max seq len (262144), (13.52 GiB KV cache is needed"),
        "{err}"
    );
    let need =
        |len: u64| (10 * len.div_ceil(32) + 50 * ((1_023 + 8_192).min(len).div_ceil(16) + 1)) * 131_072;
    assert_eq!(need(262_144), 14_518_845_440);
    let avail = (f(&j["rest_gib"]) * (1u64 << 30) as f64) as u64;
    let needle = "estimated maximum model length is ";
    let at = err.find(needle).unwrap() + needle.len();
    let est: u64 = err[at..].trim_end_matches('.').parse().unwrap();
    assert!(need(est) <= avail && need(est + 1) > avail, "{est}: {avail}");
}

/// 26B-A4B under vLLM 0.19.1 at tp 4 (the SGLang example's box): the text decoder 6,327,734,302
/// parameters a rank (`families30.rs`; vLLM 0.19.0 `Gemma4MoE` shards the 128 experts of 704 by tp
/// in `FusedMoE`, the dense MLP and the replicated router as SGLang does) and the whole tower
/// 572,794,416 → 2 × 6,900,528,718 = 13,801,057,436 B (+ RoPE 402,653,184 B + tpsim's allocator
/// rounding, below 2 MiB for each of the 7 large weights of a text layer — qkv, o, the dense MLP's
/// two, the router, the experts' two — the tower layers' 4 and 4 more: (7 × 30 + 4 × 27 + 4) × 2
/// MiB). KV: equal pages (2,048 B a token a layer), groups of min(25, 5) = 5 layers, 5 + 1 = 6
/// groups, `num_blocks` = available // (16 × 2,048) // 5, tokens = num_blocks // 6 × 16.
#[test]
fn gemma4_26b_a4b_vllm_by_hand() {
    let file = edited_variant(G4MOE_SGL, "g4moe-vllm", |t| {
        t.replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("\"0.5.23\"", "\"0.19.1\"")
            .replace("context_length = ", "max_model_len = ")
    });
    let run = run_json(&file);
    assert_eq!(run["verdict"], "ok");
    assert_eq!(2 * (6_327_734_302_u64 + 572_794_416), 13_801_057_436);
    let hand = Hand {
        weights: 13_801_057_436,
        large_weights: 7 * 30 + 4 * 27 + 4,
        cell: 30 * 2_048,
    };
    hand.check(&run, (32_768, 5, 6), 91);
}

/// vLLM's `Gemma4Config.verify_and_update_config` by release (`scenario::gemma4::vllm_default`) and
/// what vLLM refuses: 0.18.1 has no `models/gemma4.py`; 0.24.0 on SM 12.0 "FA4 not available" →
/// TRITON_ATTN; 0.34.0 on an H100 PCIe (SM 9.0, `_is_fa4_supported`) FA4 for every layer, its line
/// with 0.28's dict of layer types; a named FLASH_ATTN on 0.19.1 refused for the 512-wide full layers
/// (`flash_attn.py`: head sizes up to 256).
#[test]
fn gemma4_vllm_backend_and_refusals() {
    let at = |v: &str, hw: &str| {
        variant(&format!("g4v-{v}-{hw}"), |t| {
            t.replace("\"0.19.1\"", &format!("\"{v}\""))
                .replace("rtx-pro-6000-2x-turin-same-numa", hw)
        })
    };
    let o = tpsim(&["run", &at("0.18.1", "rtx-pro-6000-2x-turin-same-numa")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("vLLM adds it in 0.19.0"), "{}", o.stderr);
    let run = run_json(&at("0.24.0", "rtx-pro-6000-2x-turin-same-numa"));
    assert_eq!(run["scenario"]["attention_backend"], "TRITON_ATTN (vLLM default)");
    assert!(run_warnings(&run).iter().any(|w| w
        == "vLLM: Gemma4 model has heterogeneous head dimensions (head_dim=256, global_head_dim=512). FA4 not \
            available, forcing TRITON_ATTN backend."));
    let run = run_json(&at("0.34.0", "h100-pcie-2x-nvlink-bridge"));
    assert_eq!(run["scenario"]["attention_backend"], "FLASH_ATTN (vLLM default)");
    assert!(run_warnings(&run).iter().any(|w| w
        == "vLLM: Gemma4 model has heterogeneous head dimensions {'sliding_attention': 256, 'full_attention': \
            512}. Using FA4 for all layers to avoid mixed FA3/FA4 penalty."));
    let named = variant("g4v-fa", |t| {
        t.replace("tp = 2\n", "tp = 2\nattention_backend = \"FLASH_ATTN\"\n")
    });
    let o = tpsim(&["run", &named]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "Selected backend AttentionBackendEnum.FLASH_ATTN is not valid for this configuration. Reason: \
             ['head_size not supported']"
        ),
        "{}",
        o.stderr
    );
}

/// "GPU KV cache size" by release (`decode::memory::vllm_sliding`; from 0.21.0 a memory note, tpsim's
/// pool staying the tokens every group holds at once): up to 0.20.0 `num_blocks // 6 ×
/// 16` (`_report_kv_cache_config`), from 0.21.0 `int(max_concurrency × max_model_len)` with
/// `max_concurrency = num_blocks / cdiv(Σ_groups max_memory_usage_bytes, page)` (0.21.0
/// `get_max_concurrency_for_kv_cache_config`): a request of 65,536 tokens holds cdiv(65,536, 32) =
/// 2,048 pages of the full group and cdiv(min(1,023 + 8,192, 65,536), 16) + 1 = 577 of each of the
/// 5 sliding groups: 4,933 pages. The switch is the one vLLM issue 43308 saw on Gemma 4 31B (one A100,
/// the same ~50 GB of KV): "~55k tokens" under 0.20.0, "~525k" under 0.21.0.
#[test]
fn gemma4_31b_vllm_reported_tokens_by_release() {
    let at = |v: &str| {
        run_json(&variant(&format!("g4v-tokens-{v}"), |t| {
            t.replace("\"0.19.1\"", &format!("\"{v}\""))
        }))
    };
    let blocks = |run: &serde_json::Value| entry_bytes(run, "KV cache") / (10 * 131_072);
    let old = at("0.20.0");
    assert_eq!(
        old["memory"]["kv_tokens"].as_u64().unwrap(),
        blocks(&old) / 6 * 16
    );
    let new = at("0.21.0");
    assert_eq!(2_048 + 5 * (9_215_u64.div_ceil(16) + 1), 4_933);
    let want = (blocks(&new) as f64 / 4_933.0 * 65_536.0) as u64;
    // tpsim's pool stays the tokens every group holds at once; the log's figure is a memory note.
    assert_eq!(
        new["memory"]["kv_tokens"].as_u64().unwrap(),
        blocks(&new) / 6 * 16
    );
    // Six digits (about 537 thousand): Python's `{:,}` puts one comma.
    assert!((100_000..1_000_000).contains(&want), "{want}");
    let line = format!(
        "\"GPU KV cache size: {},{:03} tokens\"",
        want / 1_000,
        want % 1_000
    );
    assert!(
        memory_warnings(&new).iter().any(|w| w.contains(&line)),
        "{line}: {:?}",
        memory_warnings(&new)
    );
}

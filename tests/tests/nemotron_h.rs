//! nemotronh (issue #17): Nemotron-H (`NemotronHForCausalLM`) through the scenario path — SGLang's
//! state pool sized from the Mamba-2 state per request, and a public vLLM start-up log
//! (tests/data/engine-memory.tsv, the line in [`NANO_VLLM_LINE`]).

use crate::common::preset_spec;
use crate::engine_memory_rows::{GIB, note, num, row};
use tpsim_model::memory::vllm_kv_groups;

/// The engine-memory.tsv line of the vLLM 0.11.0 Nemotron-Nano-9B-v2 log (one place, for renumbering).
const NANO_VLLM_LINE: usize = 49;

/// Line 49: vLLM 0.11.0, Nemotron-Nano-9B-v2 bf16, tp 1, `gpu_memory_utilization` 0.85, state
/// dtypes `auto`; the log keeps "num_gpu_blocks is: 286" (the weights and KV lines are snipped).
/// vLLM's hybrid layout, by hand: mamba page 73,728 + 2,621,440 = 2,695,168 B (bf16 conv and SSM
/// state); attention 4,096 B per token per layer → block 16 × ⌈2,695,168 / 65,536⌉ = 672 tokens,
/// page 672 × 4,096 = 2,752,512 B. Groups of [4 attention, 27 Mamba] layers: size 4, 1 + 7 = 8
/// groups (`_get_kv_cache_groups_uniform_page_size`); a block is one page of each of 4 layers, so 286
/// blocks hold 286 × 4 × 2,752,512 = 3,148,873,728 B = 2.9327 GiB (the engine's budget is below the
/// next block: < 2.9429 GiB) and "GPU KV cache size" would read 286 // 8 × 672 = 23,520 tokens.
/// With `--mamba-ssm-cache-dtype float32` the page would be 1,312 × 4,096 B and the same 286 blocks
/// 5.73 GiB: more than a 24 GB card has after 0.85 × 23.99 − 16.56 GiB of weights (3.83), so the
/// log's 286 blocks fix vLLM's `auto` (bf16) SSM state, unlike SGLang's float32 default.
#[test]
fn vllm_0_11_nemotron_nano_9b_v2_blocks_rtx4090() {
    let r = row(NANO_VLLM_LINE, "nvidia/NVIDIA-Nemotron-Nano-9B-v2");
    assert!((num(&r, "mem_frac") - 0.85).abs() < 1e-12);
    let blocks = note(&r, "blocks").expect("blocks=286 in the notes") as u64;
    assert_eq!(blocks, 286);
    let m = preset_spec("nemotron-nano-9b-v2");
    let mamba = m.mamba2.expect("Mamba-2 shape");
    let attn_1_token = m.kv_cell_bytes(1) / u64::from(m.kv_layers());
    let page_bf16 = mamba.vllm_page_bytes(1, 2, 2);
    let block = tpsim_model::llm::vllm_attention_block_size(page_bf16, attn_1_token, 16);
    assert_eq!((page_bf16, attn_1_token, block), (2_695_168, 4_096, 672));
    let g = vllm_kv_groups(&[u64::from(m.kv_layers()), u64::from(m.linear_layers())]);
    assert_eq!((g.group_size, g.num_groups), (4, 8));
    let per_block = g.group_size * block * attn_1_token;
    let kv = (blocks * per_block) as f64 / GIB;
    assert!((kv - 2.9327).abs() < 1e-4, "{kv}");
    assert!(((blocks + 1) * per_block) as f64 / GIB < 2.943);
    assert_eq!(g.reported_tokens(blocks, block), 23_520);
    // The float32 reading: 286 blocks would not fit beside the weights on a 24 GB card.
    let block_fp32 = tpsim_model::llm::vllm_attention_block_size(mamba.vllm_page_bytes(1, 2, 4), 4_096, 16);
    assert_eq!(block_fp32, 1_312);
    let kv_fp32 = (blocks * g.group_size * block_fp32 * 4_096) as f64 / GIB;
    let weights = m.weight_bytes_per_rank(1).0 as f64 / GIB;
    assert!((weights - 16.556).abs() < 0.001, "{weights}");
    assert!(0.85 * 23.99 - weights < kv_fp32, "{kv_fp32}");
    assert!(0.85 * 23.99 - weights > kv, "bf16 pages fit");
}

/// SGLang's state pool for Nemotron-Nano-9B-v2 at tp 2 through `tpsim::plan_memory`: per request
/// 27 Mamba blocks × ((12,288 / 2) × 3 × 2 B + 64 × 80 × 128 × 4 B) = 71,774,208 B
/// (`mamba_cache_per_req`, float32 SSM state); the pool takes rest × 0.9 / 1.9 in whole requests
/// (`state_pool::sglang_state_pool`) and caps running requests at a third of its slots.
#[test]
fn sglang_state_pool_of_nemotron_nano_9b_v2_tp2() {
    use tpsim::decode::MemKind;
    let text = "[hardware]\npreset = \"rtx-4090-2x-no-p2p\"\n[model]\npreset = \"nemotron-nano-9b-v2\"\n\
                [engine]\nname = \"sglang\"\ntp = 2\n";
    let s = tpsim::scenario::load_str(text, std::path::Path::new("nemotron_h.rs")).unwrap();
    assert_eq!(s.model.linear_state_bytes_per_req(2), 71_774_208);
    let p = tpsim::plan_memory(&s);
    let slots = p
        .entries
        .iter()
        .find_map(|e| match e.kind {
            MemKind::StatePool { slots } => Some(slots),
            _ => None,
        })
        .expect("a state pool");
    let budget = p.rest_gib * 0.9 / 1.9 * GIB;
    assert_eq!(slots, (budget / 71_774_208.0).floor() as u64);
    assert_eq!(p.max_running_requests, Some(slots / 3));
    // The KV cell counts only the 4 attention blocks: 4 × 4 KV heads × 2 × 128 × 2 B.
    assert_eq!(p.cell_size, 8_192);
}

/// nanoprofile (issue #17): the parts of tpsim's vLLM 0.11.0 budget for line 49's set-up
/// (Nemotron-Nano-9B-v2, 1× RTX 4090, `gpu_memory_utilization` 0.85, vLLM's defaults for a 24 GB GPU:
/// 2,048 batched tokens, 256 sequences — `engine/arg_utils.py` `_set_default_args`).
///
/// - Weights: vLLM issue #23230 logs "Model loading took 16.5557 GiB" for this checkpoint (vLLM
///   0.10.1, same loader): the checkpoint's 17,776,461,568 B (16.55564 GiB) and no RoPE cache —
///   `NemotronHAttention` has no rotary embedding. tpsim counted a 131,072 × 128 × 2 B = 32 MiB
///   cos/sin cache (16.615 GiB); now the checkpoint plus its allocator-rounding replay (vrows4),
///   +29.2 MiB that this log does not show (open). Tolerance 0.03 GiB: above that replay, below the
///   0.059 GiB the RoPE cache made.
/// - Install (vllmsampler): the log is a `docker compose` start-up ("(APIServer pid=1)"), and the
///   repository's docker-compose.yml runs `image: vllm/vllm-openai:latest` (evdcush/local-vllm,
///   commit 2390e3a; the log names v0.11.0): the image ships FlashInfer, so 0.11.0's dummy sampler
///   takes FlashInfer's top-k/top-p path (`engine.install = "docker"`), not the sort.
/// - Peak activation (by hand, FlashInfer's sampler, 14 B per logit with bf16 logits): hidden
///   states (2,048 + 2 × 256) × 4,480 × 2 B = 22,937,600 + 256 × 131,072 × 14 = 469,762,048 + the
///   cuBLAS workspace of an sm 8.9 GPU 8,519,680 = 501,219,328 B (478.0 MiB), exact. A pip install
///   (the sort, 38 B per logit) would peak at 22,937,600 + 1,275,068,416 + 8,519,680 =
///   1,306,525,696 B. The forward pass does not bind: its MLP point, even counted 3 × 15,680 wide as
///   tpsim sizes it (the squared ReLU's `relu` and `square` outputs beside `up_proj`'s), beside 4
///   residual rows, is 2,048 × 64,960 × 2 B = 0.25 GiB; the Mamba-2 blocks' profile pass (no
///   attention metadata) is narrower (`in_proj` 22,912 wide).
/// - The budget that leaves was 2.793 GiB (2.043 with the sort), 0.14–0.15 GiB below the
///   2.9327–2.9429 GiB the log's 286 blocks need (known miss, 0.89 GiB before the install was read:
///   see book/src/coverage.md, "vLLM budget, Nemotron-Nano-9B-v2"); vllmmem63's Ada base (0.02 GiB
///   of non-torch growth before vLLM 0.18) makes it 3.023 (2.273), 0.08 – 0.09 GiB above at 23.64
///   GiB, 0.003 below at 23.53 GiB.
#[test]
fn vllm_0_11_nemotron_nano_budget_parts() {
    use tpsim::decode::MemKind;
    let text = "[hardware]\npreset = \"rtx-4090-1x\"\n[model]\npreset = \"nemotron-nano-9b-v2\"\n\
                [engine]\nname = \"vllm\"\nversion = \"0.11.0\"\ntp = 1\ngpu_memory_utilization = 0.85\n\
                install = \"docker\"\n";
    let s = tpsim::scenario::load_str(text, std::path::Path::new("nemotron_h.rs")).unwrap();
    let p = tpsim::plan_memory(&s);
    let bytes = |k: MemKind| {
        p.entries
            .iter()
            .find(|e| e.kind == k)
            .map(|e| e.bytes)
            .expect("entry")
    };
    let checkpoint = 17_776_461_568u64;
    assert_eq!(s.model.weight_bytes_per_rank(1).0, checkpoint);
    // The log's 16.5557 is the checkpoint to 0.0002 GiB (its 4th decimal; small tensors' 512 B
    // rounding and fp32 Mamba parameters are below that).
    assert!((checkpoint as f64 / GIB - 16.5557).abs() < 2e-4);
    let weights = bytes(MemKind::TargetWeights);
    assert!(weights >= checkpoint, "{weights}");
    assert!((weights as f64 / GIB - 16.5557).abs() <= 0.03, "{weights}");
    let peak = (2_048 + 2 * 256) * 4_480 * 2 + 256 * 131_072 * 14 + (4_096 * 1_024 * 2 + 16 * 1_024 * 8);
    assert_eq!(peak, 501_219_328);
    assert_eq!(bytes(MemKind::PeakActivation), peak);
    assert!(2_048 * (3 * 15_680 + 4 * 4_480) * 2 < peak);
    // vllmmem63: vLLM before 0.18 grows 0.02 GiB outside torch on an Ada card, not the 0.25 of
    // 0.19.0 (`tpsim_model::vllm_nontorch::PRE_0_18_SM8_BASE_GIB`), so the budget is 0.23 GiB larger
    // than the 2.793 GiB it was: 3.023, now 0.08 – 0.09 GiB ABOVE what the log's blocks need at the
    // template's 23.64 GiB total. At the 23.53 GiB that engine-memory.tsv line 74's 24 GB card (an
    // RTX 4090 at a 2025 driver, by the total) reports, 0.85 × 0.11 = 0.0935 GiB less: 2.9295, 0.003
    // GiB below the 286 blocks' window (285 blocks). Which total the log's 4090 reports is not known.
    let budget = p.rest_gib;
    assert!((budget - 3.023).abs() < 0.001, "{budget}");
    assert!(budget > 2.9429 + 0.08, "{budget}");
    let at_2353 = tpsim::plan_memory(
        &tpsim::scenario::load_str(
            &text.replace("[model]", "[hardware.gpu]\ntorch_total_gib = 23.53\n[model]"),
            std::path::Path::new("n.rs"),
        )
        .unwrap(),
    )
    .rest_gib;
    assert!((at_2353 - 2.9295).abs() < 0.001, "{at_2353}");
    assert!(at_2353 < 2.9327 && at_2353 > 2.9327 - 0.005, "{at_2353}");
    // The pip reading (the sort): 1,306,525,696 B and 2.273 GiB (2.043 before vllmmem63).
    let pip =
        tpsim::scenario::load_str(&text.replace("docker", "pip"), std::path::Path::new("n.rs")).unwrap();
    let pp = tpsim::plan_memory(&pip);
    let sort = pp
        .entries
        .iter()
        .find(|e| e.kind == MemKind::PeakActivation)
        .unwrap()
        .bytes;
    assert_eq!(sort, 22_937_600 + 256 * 131_072 * 38 + 8_519_680);
    assert_eq!(sort, 1_306_525_696);
    assert!((pp.rest_gib - 2.273).abs() < 0.001, "{}", pp.rest_gib);
}

//! hybridserve (issue #18): the serving loop holds what vLLM's KV-cache manager holds for a hybrid
//! Mamba-2 / Gated DeltaNet model — per running request, its attention blocks of the hybrid block size
//! in each attention group and its state block(s) in each state group, from the `num_gpu_blocks` of
//! the memory plan (vLLM 0.19.0 `v1/core/single_type_kv_cache_manager.py` `MambaManager`,
//! `v1/core/kv_cache_coordinator.py` `HybridKVCacheCoordinator`; `tpsim::serve::core::StateRule`) —
//! and SGLang's loop caps a hybrid's running requests by its state slots.

use std::path::Path;

use tpsim::decode::VllmHybridPool;
use tpsim::serve;
use tpsim::workload::RequestSpec;

use super::common;
use common::fixed_serve::{run, vllm_plan};

/// The public vLLM 0.28.0 note on Qwen3.5-9B (tests/tests/vllm_hybrid.rs,
/// `qwen35_9b_vllm_0_28_reproduces_the_note`): 640 MiB, max_model_len 16,384, prefix caching off.
const QWEN35_9B_640MIB: &str = "[hardware]\npreset = \"rtx-4090-1x\"\n[model]\npreset = \"qwen3.5-9b\"\n\
    [engine]\nname = \"vllm\"\nversion = \"0.28.0\"\ntp = 1\nmax_model_len = 16384\n\
    kv_cache_memory_bytes = 671088640\nenable_prefix_caching = false\n";

fn load(text: &str) -> tpsim::scenario::Scenario {
    tpsim::scenario::load_str(text, Path::new("hybrid_serve.rs")).expect("scenario resolves")
}

fn req(prompt: u32, output: u32) -> RequestSpec {
    RequestSpec {
        arrival: None,
        prompt,
        output,
        prefix: None,
    }
}

/// The pool the loop allocates from is the memory report's: 671,088,640 B // (528 × 4,096 B) // 8
/// layers a group = 38 blocks of 528 tokens ("Setting attention block size to 528 tokens"), groups of
/// 8 over 8 attention + 24 Gated DeltaNet layers: 1 attention group, 3 state groups; prefix caching
/// off → `mamba_cache_mode = "none"`, one state block per state group and request. The loop gets
/// that pool (not the 17,788 reported tokens in 16-token pages).
#[test]
fn qwen35_9b_pool_in_blocks() {
    let s = load(QWEN35_9B_640MIB);
    let mem = tpsim::plan_memory(&s);
    assert_eq!(mem.kv_tokens, 17_788);
    assert_eq!(
        mem.vllm_hybrid_pool,
        Some(VllmHybridPool {
            num_blocks: 38,
            block_size: 528,
            attention_groups: 1,
            state_groups: 3,
            align: false,
            state_pages: 1,
        })
    );
    let p = serve::plan(&s, &mem, false);
    let h = p.hybrid.expect("a hybrid pool");
    assert_eq!((h.blocks, h.block_size, h.attention_groups), (38, 528, 1));
    assert_eq!(
        h.state,
        serve::core::StateRule {
            groups: 3,
            base: 1,
            align: false
        }
    );
    // A plain model keeps the token pool.
    let plain = load(&QWEN35_9B_640MIB.replace("qwen3.5-9b", "qwen3-8b"));
    let mem = tpsim::plan_memory(&plain);
    assert_eq!(mem.vllm_hybrid_pool, None);
    assert_eq!(serve::plan(&plain, &mem, false).hybrid, None);
}

/// The fixed-cost loop (tests/tests/common/fixed_serve.rs: budget 8,192 tokens, 256 sequences) over
/// the scenario's hybrid pool.
fn hybrid_plan() -> serve::Plan {
    let s = load(QWEN35_9B_640MIB);
    let mem = tpsim::plan_memory(&s);
    let mut p = vllm_plan(0);
    p.hybrid = serve::plan(&s, &mem, false).hybrid;
    p
}

/// Largest number running at once, by vLLM's rule: a request of P + O tokens holds at most ⌈(P + O −
/// 1) / 528⌉ attention blocks (the last sampled token is never written) + 3 state blocks, from 38:
/// - 400 + 100 (499 tokens): 1 + 3 = 4 blocks → ⌊38 / 4⌋ = 9 running, the 10th waits; nothing is
///   preempted; 16 requests in two waves (9, 7).
/// - 1,000 + 24 (1,023 tokens): 2 + 3 = 5 → ⌊38 / 5⌋ = 7.
/// - 100 + 4 (103 tokens): 1 + 3 = 4 blocks → 9; the loop before (the 17,788 reported tokens in
///   1,111 pages of 16 tokens, no state) ran all 16 at 7 pages each.
///
/// Exact (integer blocks).
#[test]
fn qwen35_9b_running_requests_are_capped_by_blocks() {
    let p = hybrid_plan();
    let m = run(&p, vec![req(400, 100); 16], 16);
    assert_eq!((m.peak_running, m.preemptions, m.finished), (9, 0, 16));
    let m = run(&p, vec![req(1000, 24); 16], 16);
    assert_eq!((m.peak_running, m.preemptions, m.finished), (7, 0, 16));
    let m = run(&p, vec![req(100, 4); 16], 16);
    assert_eq!((m.peak_running, m.preemptions), (9, 0));
    // The loop before (17,788 tokens in 16-token pages, no state blocks) ran all 16.
    let old = run(&vllm_plan(17_788), vec![req(100, 4); 16], 16);
    assert_eq!(old.peak_running, 16);
}

/// Long outputs preempt: 16 requests of 400 + 400 at concurrency 16. Admission needs
/// ⌈400 / 528⌉ + 3 = 4 blocks: 9 run (36 of 38 blocks). At 529 tokens each needs a second attention block:
/// r1 and r2 take the 2 free blocks, r3 fails → vLLM preempts the last running (r9, 4 blocks back),
/// r3–r6 take 4, r7 fails → r8 preempted, r7 takes one: 7 run (35 blocks), 2 preemptions. When r1–r7
/// finish (799 tokens, 2 + 3 blocks), r8 and r9 recompute 529 tokens (5 blocks each) beside r10–r16
/// (4 each): 10 + 28 = 38, all 9 admitted. r10–r16 cross 528 together: r10–r13 take 4 blocks after
/// r16 is preempted, r14 after r15: 2 more preemptions. r15 and r16 return when r8 and r9 finish
/// (5 + 5 of 13 free) and fit to the end (799 tokens = 2 attention blocks). 4 preemptions, peak 9.
/// The 16-token-page loop over 17,788 tokens ran all 16 without one (16 × 50 pages ≤ 1,111).
#[test]
fn qwen35_9b_long_outputs_preempt() {
    let m = run(&hybrid_plan(), vec![req(400, 400); 16], 16);
    assert_eq!((m.peak_running, m.preemptions, m.finished), (9, 4, 16));
    let old = run(&vllm_plan(17_788), vec![req(400, 400); 16], 16);
    assert_eq!((old.peak_running, old.preemptions), (16, 0));
}

/// The same through `tpsim run --json` (the scenario's own scheduler settings and costs): 32
/// requests of 400 + 100 at concurrency 16 never run more than 9 at once (the arithmetic above) and
/// are not preempted; with 400-token outputs the batch is still capped at 9 and vLLM preempts.
#[test]
fn qwen35_9b_closed_loop_run_is_capped() {
    for (output, preempts) in [(100, false), (400, true)] {
        let f = common::scratch(&format!("out{output}")).join("s.toml");
        std::fs::write(
            &f,
            format!(
                "{QWEN35_9B_640MIB}[workload]\nconcurrency = 16\nprompt_len = 400\noutput_len = {output}\n\
                 num_requests = 32\n"
            ),
        )
        .unwrap();
        let out = common::tpsim(&["run", f.to_str().unwrap(), "--json"]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let j: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
        assert_eq!(j["serving"]["peak_running"], 9, "output {output}");
        assert_eq!(
            j["serving"]["preemptions"].as_u64().unwrap() > 0,
            preempts,
            "output {output}"
        );
    }
}

/// Prefix caching on (vLLM 0.28's default for hybrids) runs the state groups in "align" mode:
/// `MambaManager.get_num_blocks_to_allocate` takes one more block per state group when a request's
/// tokens reach a new block, and `remove_skipped_blocks` frees the previous one at its next
/// allocation. Two requests of 400 + 200 (same 38-block pool): admitted with 1 + 3 blocks each (8);
/// at 529 tokens each takes 1 attention + 3 state blocks (16 in use, the peak: 16 / 38); the next
/// step frees the 3 old state blocks of each (10 in use: 2 + 3 each). Without prefix caching
/// ("none") the state blocks stay put: the peak is 2 × (2 + 3) = 10 / 38. Exact.
#[test]
fn align_mode_takes_a_state_block_per_group_at_each_block_boundary() {
    let s = load(&QWEN35_9B_640MIB.replace("enable_prefix_caching = false", "enable_prefix_caching = true"));
    let mem = tpsim::plan_memory(&s);
    let pool = mem.vllm_hybrid_pool.expect("a hybrid pool");
    assert_eq!((pool.num_blocks, pool.align), (38, true));
    let mut p = vllm_plan(0);
    p.hybrid = serve::plan(&s, &mem, false).hybrid;
    let m = run(&p, vec![req(400, 200); 2], 2);
    assert_eq!((m.peak_running, m.preemptions), (2, 0));
    // Blocks in use at the peak: the fraction × 38, to 1e-9 (a ratio of integers).
    assert!(
        (m.peak_kv_utilisation * 38.0 - 16.0).abs() < 1e-9,
        "{}",
        m.peak_kv_utilisation
    );
    let m = run(&hybrid_plan(), vec![req(400, 200); 2], 2);
    assert!(
        (m.peak_kv_utilisation * 38.0 - 10.0).abs() < 1e-9,
        "{}",
        m.peak_kv_utilisation
    );
}

/// tests/data/engine-memory.tsv line 45 (SGLang 2026-04, Qwen3.5-9B on 2× RTX 4090, tp 2, fraction
/// 0.8), as an SGLang 0.5.9 scenario with the spring-2026 memory rules (the row's build is a 2026-04
/// source build): `engine.mamba_ssm_cache_dtype` is `--mamba-ssm-dtype`.
const QWEN35_9B_SGLANG: &str = "[hardware]\npreset = \"rtx-4090-2x-no-p2p\"\n[model]\npreset = \"qwen3.5-9b\"\n\
    [engine]\nname = \"sglang\"\nversion = \"{version}\"\ntp = 2\nmem_fraction_static = 0.8\n\
    context_length = 262144\n{flag}[engine.costs]\nera = \"spring-2026\"\n";

fn sglang_qwen35_9b(ssm: Option<&str>) -> tpsim::scenario::Scenario {
    let flag = ssm.map_or(String::new(), |d| format!("mamba_ssm_cache_dtype = \"{d}\"\n"));
    load(
        &QWEN35_9B_SGLANG
            .replace("{flag}", &flag)
            .replace("{version}", "0.5.9"),
    )
}

/// SGLang's `--mamba-ssm-dtype` on line 45's configuration. Per request and rank, 24 Gated DeltaNet
/// layers each hold a conv state of (2 × 2,048 + 4,096) / 2 × 3 × 2 B = 24,576 B (bf16, not changed
/// by the flag) and an SSM state of 32 / 2 × 128 × 128 × b B: float32 (the config's
/// `mamba_ssm_dtype`, also the flag's `float32`) 24 × (24,576 + 1,048,576) = 25,755,648 B; bfloat16 24
/// × (24,576 + 524,288) = 13,172,736 B. From the log's free memory (rest = 14.08 − 22.93 × 0.2 =
/// 9.494 GiB; `engine_memory_logs`), the state pool's 9.494 × 0.9 / 1.9 GiB = 4,828,786,520 B holds
/// ⌊… / 25,755,648⌋ = 187 states (62 running requests, the log's 62) in float32 and ⌊… /
/// 13,172,736⌋ = 366 (122 running) in bfloat16. Exact.
#[test]
fn sglang_mamba_ssm_dtype_sizes_the_state_pool() {
    use tpsim_model::state_pool::sglang_state_pool;
    let rest = 14.08 - 22.93 * 0.2;
    for (ssm, per_req, slots, running) in [
        (None, 25_755_648u64, 187u64, 62u64),
        (Some("float32"), 25_755_648, 187, 62),
        (Some("bfloat16"), 13_172_736, 366, 122),
    ] {
        let s = sglang_qwen35_9b(ssm);
        assert_eq!(s.model.linear_state_bytes_per_req(2), per_req, "{ssm:?}");
        let pool = sglang_state_pool(rest, per_req, None, None);
        assert_eq!(
            (pool.slots, pool.max_running_requests),
            (slots, running),
            "{ssm:?}"
        );
    }
    // 0.5.8 sets SGLANG_MAMBA_SSM_DTYPE from the flag's default float32 and reads nothing else: a
    // config declaring bfloat16 still gets float32 states there, bfloat16 from 0.5.9.
    assert_eq!(
        tpsim::scenario::mamba_dtype::sglang_ssm_bytes("0.5.8", None, Some(2)),
        4
    );
    assert_eq!(
        tpsim::scenario::mamba_dtype::sglang_ssm_bytes("0.5.9", None, Some(2)),
        2
    );
}

/// SGLang's loop caps a hybrid's running requests by its state slots: `_resolve_max_num_reqs`
/// (0.5.9 `model_executor/model_runner_kv_cache_mixin.py`) sets max_num_reqs ≤ max_mamba_cache_size
/// // 3 with the radix cache on, which becomes the scheduler's `max_running_requests`; the memory
/// plan takes min(…, slots / 3) and the loop admits no more. 300 short requests (100 + 10 tokens) at
/// concurrency 300 peak at exactly the plan's slots / 3, float32 and bfloat16 alike.
#[test]
fn sglang_running_requests_are_capped_by_state_slots() {
    for ssm in [None, Some("bfloat16")] {
        let s = sglang_qwen35_9b(ssm);
        let mem = tpsim::plan_memory(&s);
        let slots = mem
            .entries
            .iter()
            .find_map(|e| match e.kind {
                tpsim::decode::MemKind::StatePool { slots } => Some(slots),
                _ => None,
            })
            .expect("a state pool");
        let cap = mem.max_running_requests.expect("a cap");
        assert_eq!(cap, slots / 3, "{ssm:?}");
        let p = serve::plan(&s, &mem, false);
        let m = run(&p, vec![req(100, 10); 300], 300);
        assert_eq!(u64::from(m.peak_running), cap, "{ssm:?}");
    }
}

/// `tpsim memory`'s thresholds count blocks for a vLLM hybrid too. The Nemotron-Nano-9B-v2 example
/// (vLLM 0.11.0, 286 blocks of 672 tokens, 1 attention + 7 state groups, prefix caching off; its
/// workload 1,024 + 512 tokens at concurrency 8): a request of 1,536 tokens holds
/// ⌈1,536 / 672⌉ = 3 + 7 = 10 blocks → 286 / 10 = 28 at once (vLLM's rule; the token figure 23,520 / 1,536 gave 15);
/// 8 requests get 286 / 8 = 35 blocks each, 35 − 7 = 28 attention blocks × 672 = 18,816 tokens (the
/// token figure: 2,940). Exact.
#[test]
fn memory_thresholds_count_blocks() {
    let f = common::scenario("examples/nemotron-nano-9b-v2-vllm-rtx4090.toml");
    let out = common::tpsim(&["memory", &f, "--json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let j: serde_json::Value = serde_json::from_str(&out.stdout).expect("JSON");
    assert_eq!(j["kv_tokens"], 23_520);
    assert_eq!(j["max_concurrency_at_context"], 28);
    assert_eq!(j["max_context_at_concurrency"], 18_816);
}

/// With `--disable-radix-cache` SGLang runs a request in every state slot (0.5.8 / 0.5.9
/// `model_runner_kv_cache_mixin.py`: `ratio = 1` when the radix cache is off) and sizes the slots from
/// `--max-running-requests` when given (0.5.8: else 512; 0.5.9: else the memory ratio). Line 45's
/// configuration under 0.5.9: the same ratio-sized slots as with the cache, all of them running (the
/// loop peaks at the slots, not slots / 3); with `max_running_requests = 48`, 48 slots and 48
/// running. Under 0.5.8 the slots are the 512 default (release52: on Qwen3-Next, the bundled
/// `qwen3-next-80b-a3b-fp8-rtx6000x2` example, since 0.5.8 has no Qwen3.5 — `models/qwen3_5.py` from
/// 0.5.9 — and refuses line 45's model).
#[test]
fn sglang_without_radix_cache_runs_a_request_per_state_slot() {
    let slots_of = |mem: &tpsim::decode::MemoryPlan| {
        mem.entries
            .iter()
            .find_map(|e| match e.kind {
                tpsim::decode::MemKind::StatePool { slots } => Some(slots),
                _ => None,
            })
            .expect("a state pool")
    };
    let with_cache = tpsim::plan_memory(&sglang_qwen35_9b(None));
    let s = load(
        &QWEN35_9B_SGLANG
            .replace("{flag}", "disable_radix_cache = true\n")
            .replace("{version}", "0.5.9"),
    );
    let mem = tpsim::plan_memory(&s);
    let slots = slots_of(&mem);
    assert_eq!(slots, slots_of(&with_cache));
    assert_eq!(mem.max_running_requests, Some(slots));
    let m = run(&serve::plan(&s, &mem, false), vec![req(100, 10); 300], 300);
    assert_eq!(u64::from(m.peak_running), slots);
    let s = load(
        &QWEN35_9B_SGLANG
            .replace(
                "{flag}",
                "disable_radix_cache = true\nmax_running_requests = 48\n",
            )
            .replace("{version}", "0.5.9"),
    );
    let mem = tpsim::plan_memory(&s);
    assert_eq!((slots_of(&mem), mem.max_running_requests), (48, Some(48)));
    let text = QWEN35_9B_SGLANG
        .replace("{flag}", "disable_radix_cache = true\n")
        .replace("{version}", "0.5.8");
    let e = tpsim::scenario::load_str(&text, Path::new("hybrid_serve.rs"))
        .expect_err("SGLang 0.5.8 has no Qwen3.5")
        .to_string();
    assert!(e.contains("has no models/qwen3_5.py"), "{e}");
    let next = std::fs::read_to_string(common::scenario("examples/qwen3-next-80b-a3b-fp8-rtx6000x2.toml"))
        .expect("example")
        .replacen(
            "[engine]\n",
            "[engine]\nversion = \"0.5.8\"\ndisable_radix_cache = true\n",
            1,
        );
    let mem = tpsim::plan_memory(&load(&next));
    assert_eq!(slots_of(&mem), 512);
}

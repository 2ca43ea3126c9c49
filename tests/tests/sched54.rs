//! sched54 (issue #18): SGLang's scheduler rules by release — `add_one_req_ignore_eos` (the admission of
//! bench_serving's `ignore_eos` requests without a prefix cache), how far `retract_decode` goes, and the
//! new-token ratio it leaves — each computed by hand from the wheels' source (rules and file names in
//! sim/src/serve/sglang_release.rs). The scheduler is driven directly (`tpsim::serve::core::Core`,
//! pages of 1 token, nothing but the rule under test in play); every expectation is exact (integer
//! batches, pages and counts; ratios to 1e-12).

use std::collections::VecDeque;

use tpsim::serve::core::{Core, Req, Scheduler};
use tpsim::serve::kv::KvPool;
use tpsim::serve::sglang::{MAX_PREFILL_TOKENS, Settings, Sglang};
use tpsim::serve::sglang_release::{EosAdmission, RetractStop, Rules};

/// SGLang at `version`, chunked prefill 8192, 64 running at most, the radix cache on or off.
fn sglang(version: &str, radix_cache: bool) -> Sglang {
    Sglang::new(Settings {
        chunked_prefill_size: Some(8192),
        max_prefill_tokens: MAX_PREFILL_TOKENS,
        max_running_requests: 64,
        conservativeness: 1.0,
        spec_reserve: None,
        mixed_chunk: false,
        policy: Default::default(),
        radix_cache,
        rules: Rules::for_version(version),
        spec_headroom: 0,
    })
}

/// A pool of `tokens` pages of 1 token with `waiting` (prompt, output, outputs already produced)
/// requests queued in that order, nothing running.
fn queued(tokens: u64, waiting: &[(u32, u32, u32)], radix: bool) -> Core {
    let kv = KvPool::new(tokens, 1);
    let mut c = Core::new(if radix { kv.radix() } else { kv });
    c.keep_retracted = radix;
    for (i, &(prompt, output, produced)) in waiting.iter().enumerate() {
        let mut r = Req::new(0, prompt, output, None);
        r.produced = produced;
        c.reqs.push(r);
        c.waiting.push_back(i as u32);
    }
    c
}

/// The (request, tokens) of the prefill batch `version` forms over `c`, none if none forms.
fn prefill(version: &str, radix: bool, mut c: Core) -> Vec<(u32, u64)> {
    let mut s = sglang(version, radix);
    if !s.schedule(&mut c) {
        return Vec::new();
    }
    assert!(
        c.batch.decode.is_empty(),
        "{version}: a decode with nothing running"
    );
    c.batch.extend
}

#[test]
fn rules_by_release() {
    // schedule_policy.py add_one_req_ignore_eos: `decode_steps * bs` up to 0.4.7.post1 (0.4.0 … 0.4.7.post1
    // read), IGNORE_EOS_RESERVE_TOKENS from 0.4.8; `len(req.origin_input_ids)` up to 0.4.10,
    // `ceil_paged_tokens(req.extend_input_len)` in 0.4.10.post2. schedule_batch.py retract_decode:
    // `get_required_tokens` from 0.4.4.post4 (absent from 0.4.3) to 0.5.1.post3, check_decode_mem from
    // 0.5.2; `total_max_new_tokens + 1` from 0.5.4 (absent from 0.5.3.post3).
    let steps = |spec_headroom| RetractStop::Steps { spec_headroom };
    let reserve = |paged_input| EosAdmission::Reserve { paged_input };
    let table = [
        ("0.4.0", EosAdmission::NextStep, steps(false), false),
        ("0.4.0.post1", EosAdmission::NextStep, steps(false), false),
        ("0.4.3", EosAdmission::NextStep, steps(false), false),
        ("0.4.4.post4", EosAdmission::NextStep, steps(true), false),
        ("0.4.6", EosAdmission::NextStep, steps(true), false),
        ("0.4.7.post1", EosAdmission::NextStep, steps(true), false),
        ("0.4.8", reserve(false), steps(true), false),
        ("0.4.10", reserve(false), steps(true), false),
        ("0.4.10.post2", reserve(true), steps(true), false),
        ("0.5.1.post3", reserve(true), steps(true), false),
        ("0.5.2", reserve(true), RetractStop::NextDecode, false),
        ("0.5.3.post3", reserve(true), RetractStop::NextDecode, false),
        ("0.5.4", reserve(true), RetractStop::NextDecode, true),
        ("0.5.9", reserve(true), RetractStop::NextDecode, true),
    ];
    for (v, admission, retract, ratio_plus_one) in table {
        assert_eq!(
            Rules::for_version(v),
            Rules {
                admission,
                retract,
                ratio_plus_one
            },
            "{v}"
        );
    }
}

#[test]
fn ignore_eos_admission_checks_the_next_state_before_0_4_8() {
    // Pool 700, no radix cache, queue B (prompt 100, 300 out) then A (100, 100 out), nothing running.
    // B: states [(300, 100)]; free after its input 700 − 100 = 600; 0.4.0: 600 − 300 × 1 = 300 > 0;
    //    0.5.8: 600 − 300 = 300 > 1 × 1: admitted (budgets: rem_total 700 − 400 = 300, cur_rem 600).
    // A: states [(100, 100), (300, 100)] (inserted before the first with ≥ 100 left); free after its
    //    input 600 − 100 = 500.
    //    0.4.0: i = 0, bs 2, the next state's 300 left: 500 − 300 × 2 = −100 ≤ 0 → NO_TOKEN.
    //    0.5.8: early exit 100 > min(600, 300)? no; i = 0: 500 − 100 × 2 = 300 > 2; i = 1 (A's 100
    //    returned): 500 + 100 − 300 × 1 = 300 > 1 → admitted.
    let waiting = [(100, 300, 0), (100, 100, 0)];
    assert_eq!(
        prefill("0.4.0.post1", false, queued(700, &waiting, false)),
        vec![(0, 100)]
    );
    assert_eq!(
        prefill("0.5.8", false, queued(700, &waiting, false)),
        vec![(0, 100), (1, 100)]
    );
    // With the radix cache on the ratio path admits both at either release: B 100 + 300 = 400 < 700,
    // then A 100 + 100 = 200 < 700 − 400 = 300.
    assert_eq!(
        prefill("0.4.0.post1", true, queued(700, &waiting, true)),
        vec![(0, 100), (1, 100)]
    );
}

#[test]
fn ignore_eos_admission_keeps_one_token_a_request_from_0_4_8() {
    // Pool 401, one request (prompt 100, 300 out): free after its input 301.
    // 0.4.0: 301 − 300 × 1 = 1 > 0 → admitted. 0.4.8 / 0.5.8: 1 ≤ IGNORE_EOS_RESERVE_TOKENS × 1 → NO_TOKEN.
    // Pool 402: 2 > 1 → admitted by 0.5.8 too.
    let one = [(100, 300, 0)];
    assert_eq!(prefill("0.4.0", false, queued(401, &one, false)), vec![(0, 100)]);
    assert_eq!(prefill("0.4.8", false, queued(401, &one, false)), vec![]);
    assert_eq!(prefill("0.5.8", false, queued(401, &one, false)), vec![]);
    assert_eq!(prefill("0.5.8", false, queued(402, &one, false)), vec![(0, 100)]);
}

#[test]
fn a_retracted_request_is_charged_its_prompt_until_0_4_10_post2() {
    // A retracted request (prompt 100, 50 of 300 out, nothing computed): it extends 150, has 250 left
    // and holds 150. Pool 380. 0.4.8 / 0.4.10 take the prompt: 380 − 100 − 250 × 1 = 30 > 1 → admitted,
    // extending 150. 0.4.10.post2 takes the extend length: 380 − 150 − 250 = −20 ≤ 1 → NO_TOKEN.
    let back = [(100, 300, 50)];
    assert_eq!(prefill("0.4.8", false, queued(380, &back, false)), vec![(0, 150)]);
    assert_eq!(
        prefill("0.4.10", false, queued(380, &back, false)),
        vec![(0, 150)]
    );
    assert_eq!(prefill("0.4.10.post2", false, queued(380, &back, false)), vec![]);
}

/// A request that has produced `produced` of `output` tokens and decodes (its KV: prompt + produced − 1).
fn decoding(prompt: u32, output: u32, produced: u32) -> Req {
    let mut r = Req::new(0, prompt, output, None);
    r.produced = produced;
    r.computed = u64::from(prompt + produced - 1);
    r.pages = r.computed;
    r.in_running = true;
    r
}

#[test]
fn retraction_goes_to_twenty_tokens_a_request_before_0_5_2() {
    // No radix cache, pages of 1. A (prompt 100, 50 of 200 out: 149 pages), B (100, 40 of 200: 139),
    // C (10, 5 of 100: 14) decode with 1 page free: the decode needs 3, so `retract_decode` sorts by
    // (outputs, −prompt) descending — A, B, C — and pops from the end.
    // 0.5.9: C goes (free 1 + 14 = 15); A and B need 2 ≤ 15: stop. Ratio (50 + 40 + 20 × 2) / (400 + 1).
    // 0.5.2: the same stop, ratio 130 / 400 (no + 1 before 0.5.4).
    // 0.4.0.post1: after C, 15 < 2 × 20 → B goes too (free 15 + 139 = 154 ≥ 1 × 20): stop.
    //    Ratio (50 + 20 × 1) / 200.
    for (version, retracted, ratio) in [
        ("0.5.9", vec![2u32], 130.0 / 401.0),
        ("0.5.2", vec![2], 130.0 / 400.0),
        ("0.4.0.post1", vec![2, 1], 70.0 / 200.0),
        ("0.4.6", vec![2, 1], 70.0 / 200.0),
    ] {
        let reqs = vec![
            decoding(100, 200, 50),
            decoding(100, 200, 40),
            decoding(10, 100, 5),
        ];
        let held: u64 = reqs.iter().map(|r| r.pages).sum();
        let mut c = Core::new(KvPool::new(held + 1, 1));
        c.reqs = reqs;
        c.running = vec![0, 1, 2];
        assert!(c.kv.alloc(held));
        let mut s = sglang(version, false);
        assert!(s.schedule(&mut c));
        let kept: Vec<u32> = (0..3).filter(|i| !retracted.contains(i)).collect();
        assert_eq!(c.batch.decode, kept, "{version}");
        assert_eq!(c.waiting, VecDeque::from(retracted.clone()), "{version}");
        assert_eq!(c.preemptions, retracted.len() as u64, "{version}");
        assert!((s.ratio - ratio).abs() < 1e-12, "{version}: {}", s.ratio);
    }
}

/// The serving plan of Llama-3.1-70B at tp 4 on `h200-8x-nvlink` (nvidia-smi 143,771 MiB a card, the
/// preset) under SGLang `version`, radix cache off as in DataCrunch's launch.
fn h200_plan(version: &str) -> tpsim::serve::Plan {
    use tpsim::decode::plan_memory;
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"llama-3.1-70b\"\n\
         [engine]\nname = \"sglang\"\ntp = 4\nversion = \"{version}\"\ndisable_radix_cache = true\n\
         [workload]\nconcurrency = 1\nprompt_len = 16\noutput_len = 4\n"
    );
    let s = tpsim::scenario::load_str(&text, std::path::Path::new("sched54.toml")).unwrap();
    tpsim::serve::plan(&s, &plan_memory(&s), false)
}

#[test]
fn sglang_0_4_0_captures_decode_graphs_up_to_160() {
    // SGLang 0.4.0.post1 cuda_graph_runner.py: [1, 2, 4] + [i * 8 for i in range(1, 21)] = 1, 2, 4, 8, 16,
    // …, 160 (23 sizes), none above cuda_graph_max_bs = 160 (server_args.py: gpu_mem 143,771 ≥ 25,000).
    // SGLang 0.5.9 on the same card: 1, 2, 4, 8, 12, 16..=256 step 8, 272..<512 step 16, 512 (tp 4 on a
    // card of 140 GiB: max 512) = 5 + 31 + 15 + 1 = 52 sizes.
    let old = h200_plan("0.4.0.post1").graphs;
    assert_eq!(old.len(), 23);
    assert_eq!((old[..5].to_vec(), old[22]), (vec![1, 2, 4, 8, 16], 160));
    let new = h200_plan("0.5.9").graphs;
    assert_eq!((new.len(), new.last().copied()), (52, Some(512)));
    // A decode of 161 runs eager under 0.4.0.post1, in the 168 graph under 0.5.9.
    assert_eq!(tpsim::serve::graphs::padded(&old, 161), (161, true));
    assert_eq!(tpsim::serve::graphs::padded(&new, 161), (168, false));
    // Below 25,000 MB: 0.4.0 caps at 8 whatever tp; 0.4.1 and 0.4.3 at 8 under tp 4, 80 from tp 4.
    use tpsim::serve::graphs::{sglang_0_4_0_to_0_4_3, sglang_0_4_list};
    assert_eq!(sglang_0_4_list("0.4.0", None, 24_000, 4), vec![1, 2, 4, 8]);
    assert_eq!(sglang_0_4_list("0.4.1", None, 24_000, 2), vec![1, 2, 4, 8]);
    assert_eq!(sglang_0_4_list("0.4.3", None, 24_000, 4).last(), Some(&80));
    // A given --cuda-graph-max-bs cuts the same list.
    assert_eq!(
        sglang_0_4_list("0.4.0", Some(20), 143_771, 4),
        vec![1, 2, 4, 8, 16]
    );
    assert!(sglang_0_4_0_to_0_4_3("0.4.3.post4") && !sglang_0_4_0_to_0_4_3("0.4.4.post4"));
    assert!(!sglang_0_4_0_to_0_4_3("0.3.6.post3"));
}

#[test]
fn the_plan_carries_the_release_rules() {
    // serve::plan reads engine.version: 0.4.0.post1's rules under the old server, 0.5.9's rules by default.
    let rules = |p: tpsim::serve::Plan| match p.engine {
        tpsim::serve::EnginePlan::Sglang(set) => (set.rules, set.radix_cache),
        tpsim::serve::EnginePlan::Vllm(_) => panic!("expected SGLang"),
    };
    assert_eq!(
        rules(h200_plan("0.4.0.post1")),
        (Rules::for_version("0.4.0.post1"), false)
    );
    assert_eq!(rules(h200_plan("0.5.9")), (Rules::for_version("0.5.9"), false));
    assert_ne!(Rules::for_version("0.4.0.post1"), Rules::for_version("0.5.9"));
}

#[test]
fn chunked_prefill_default_by_release() {
    use tpsim::serve::sglang_release::chunked_prefill_default as chunk;
    // nvidia-smi memory.total (MiB) of the templates: RTX 4090 24,564, L20 46,068, H200 143,771,
    // B200 183,359.
    // 0.4.0 – 0.4.6: 2048 under 25,000, else 8192. 0.4.7: 16384 above 180,000. 0.4.7.post1 – 0.5.2:
    // 2048 under 35 × 1024 = 35,840, 8192 under 160 × 1024 = 163,840, else 16384. 0.5.9 (late_2025_buckets):
    // L20 45.0 GiB < 60 → 4096; H200 140.4 GiB < 160 → 8192; B200 179.1 GiB → 16384; 4090 24.0 GiB → 2048.
    let table = [
        ("0.4.0", [2048, 8192, 8192, 8192]),
        ("0.4.6", [2048, 8192, 8192, 8192]),
        ("0.4.7", [2048, 8192, 8192, 16384]),
        ("0.4.7.post1", [2048, 8192, 8192, 16384]),
        ("0.5.2", [2048, 8192, 8192, 16384]),
        ("0.5.9", [2048, 4096, 8192, 16384]),
    ];
    for (v, want) in table {
        let got = [24_564, 46_068, 143_771, 183_359].map(|m| chunk(v, m, 2));
        assert_eq!(got, want, "{v}");
    }
    // The plan takes it: PR 5877's L20 row (tp 2) under 0.4.6 chunks 8192, under 0.5.9 4096.
    let l20 = |version: &str| {
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"l20-8x-pcie\"\n[model]\npreset = \"qwen3-30b-a3b\"\n\
             [engine]\nname = \"sglang\"\ntp = 2\nversion = \"{version}\"\nmem_fraction_static = 0.87\n\
             [workload]\nconcurrency = 1\nprompt_len = 16\noutput_len = 4\n"
        );
        let s = tpsim::scenario::load_str(&text, std::path::Path::new("sched54.toml")).unwrap();
        match tpsim::serve::plan(&s, &tpsim::decode::plan_memory(&s), false).engine {
            tpsim::serve::EnginePlan::Sglang(set) => set.chunked_prefill_size,
            tpsim::serve::EnginePlan::Vllm(_) => panic!("expected SGLang"),
        }
    };
    assert_eq!((l20("0.4.6"), l20("0.5.9")), (Some(8192), Some(4096)));
}

//! The serving loop driven with fixed iteration costs (issue #18): every admitted batch and every
//! time can then be computed by hand from the engines' rules. Shared by `serving` and `frontend`.

use tpsim::decode::DecodeError;
use tpsim::serve::{self, EnginePlan, GroupShape, IterationCosts, Plan, sglang, vllm};
use tpsim::workload::RequestSpec;
use tpsim_model::units::Duration;

/// Every decode 10 ms, every prefill 20 ms (or `prefill_per_token` for each prompt token when
/// set: the extend tokens only, so a prefix hit shortens a prefill by exactly its tokens), every
/// mixed iteration 25 ms; `overlap` reports SGLang's overlap scheduler on (no first-token delay).
/// The one cost double of the serving tests that only need fixed times.
#[derive(Default)]
pub struct Fixed {
    /// SGLang's overlap loop on (sglfront60: a request reaching the scheduler during a step waits
    /// one step).
    pub overlap: bool,
    /// Prefill time a prompt token, in place of the fixed 20 ms.
    pub prefill_per_token: Option<Duration>,
}

impl IterationCosts for Fixed {
    fn decode(&mut self, _: u32, _: u32, _: bool) -> Result<(usize, Duration), DecodeError> {
        Ok((0, Duration::from_ms(10)))
    }
    fn prefill(&mut self, _: u32, tokens: u32) -> Result<(usize, Duration), DecodeError> {
        let t = match self.prefill_per_token {
            Some(per) => Duration::from_ps(u64::from(tokens) * per.as_ps()),
            None => Duration::from_ms(20),
        };
        Ok((1, t))
    }
    fn mixed(
        &mut self,
        _: u32,
        _: u32,
        _: bool,
        _: (u32, u32, u32),
    ) -> Result<(usize, Duration), DecodeError> {
        Ok((2, Duration::from_ms(25)))
    }
    fn dp_sum_len(&mut self, _: &[GroupShape]) -> Result<(usize, Duration), DecodeError> {
        unreachable!("one scheduler: no DP-attention step")
    }
    fn sglang_overlap(&self) -> bool {
        self.overlap
    }
}

/// vLLM's scheduler with a token budget of 8,192 and 256 sequences over `kv_tokens` in 16-token
/// blocks, prefix caching on, no graphs, no front end, no output clipping.
pub fn vllm_plan(kv_tokens: u64) -> Plan {
    Plan {
        kv_tokens,
        groups: 1,
        page: 16,
        engine: EnginePlan::Vllm(vllm::Settings {
            max_num_batched_tokens: 8192,
            max_num_seqs: 256,
            spec_tokens: 0,
            long_prefill_token_threshold: 0,
            // Prefix caching on, vLLM V1's default (issue #18, preemptcache).
            keep_preempted: true,
        }),
        graphs: Vec::new(),
        frontend: None,
        detok: None,
        request_path: Duration::ZERO,
        request_path_per_prompt_token: Duration::ZERO,
        max_req_len: None,
        hybrid: None,
    }
}

/// sglttft59: SGLang 0.5.9's scheduler (its rules, `max_prefill_tokens` 16,384, the radix cache
/// on, mixed chunk off) with `chunk` as `chunked_prefill_size` and `max_running` requests over
/// `kv_tokens` in 1-token pages, no graphs, no front end, no output clipping.
pub fn sglang_plan(kv_tokens: u64, max_running: u32, chunk: u64) -> Plan {
    Plan {
        kv_tokens,
        groups: 1,
        page: 1,
        engine: EnginePlan::Sglang(sglang::Settings {
            chunked_prefill_size: Some(chunk),
            max_prefill_tokens: sglang::MAX_PREFILL_TOKENS,
            max_running_requests: max_running,
            conservativeness: 1.0,
            spec_reserve: None,
            mixed_chunk: false,
            policy: Default::default(),
            radix_cache: true,
            rules: serve::sglang_release::Rules::for_version("0.5.9"),
            spec_headroom: 0,
        }),
        graphs: Vec::new(),
        frontend: None,
        detok: None,
        request_path: Duration::ZERO,
        request_path_per_prompt_token: Duration::ZERO,
        max_req_len: None,
        hybrid: None,
    }
}

/// Runs `reqs` through plan `p` at `concurrency` (closed loop unless the requests carry arrivals),
/// costs from [`Fixed`], 64-token buckets, nothing refused.
pub fn run(p: &Plan, reqs: Vec<RequestSpec>, concurrency: u32) -> serve::Measured {
    run_with(p, reqs, concurrency, &mut Fixed::default(), 64)
}

/// [`run`] with the costs `costs` and CUDA-graph buckets of `bucket` tokens.
pub fn run_with(
    p: &Plan,
    reqs: Vec<RequestSpec>,
    concurrency: u32,
    costs: &mut dyn IterationCosts,
    bucket: u32,
) -> serve::Measured {
    let n = reqs.len() as u32;
    let never = |_: u32, _: u32| None;
    serve::run(
        p,
        reqs.into_iter(),
        n,
        concurrency,
        &never,
        None,
        costs,
        bucket,
        None,
    )
    .unwrap()
}

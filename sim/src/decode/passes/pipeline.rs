//! Issue #17: the send of the hidden states from one pipeline stage to the next.
//!
//! Both engines send the stage's output hidden states (and the residual) to the next stage with
//! point-to-point NCCL sends, each TP rank to the rank of the same TP index in the next stage (vLLM
//! 0.11 `v1/worker/gpu_worker.py` `execute_model`: `get_pp_group().send_tensor_dict(
//! intermediate_tensors.tensors, all_gather_group=get_tp_group())`, the `IntermediateTensors` of
//! `hidden_states` and `residual`; SGLang 0.5.9 `managers/scheduler_pp_mixin.py` sends the
//! `PPProxyTensors` the same way). tpsim sends tokens × hidden × 2 tensors × activation bytes from
//! every rank of stage k (GPUs k·tp … k·tp + tp − 1) to its peer in stage k + 1, all at once on the
//! box's network, plus one NCCL Simple step (`nccl_simple_step_latency`, the box's measured figure)
//! for the send's protocol.

use crate::comm::Comm;
use crate::net::{FlowKind, FlowSim};
use tpsim_model::units::Duration;

/// Bytes each rank sends at a stage boundary: hidden states and residual of `tokens` tokens.
pub fn send_bytes(tokens: u32, hidden: u64, act_bytes: u64) -> u64 {
    u64::from(tokens) * hidden * 2 * act_bytes
}

/// The time of the sends across boundary `k` (stage k → k + 1) with `tp` ranks per stage.
pub fn send_time(comm: &Comm, tp: usize, k: usize, bytes: u64) -> Duration {
    let fab = &comm.fabric;
    let gpus = fab.topology.gpu_count();
    let mut sim = FlowSim::new(&fab.net);
    let mut added = 0;
    for r in 0..tp {
        let (a, b) = (k * tp + r, (k + 1) * tp + r);
        if b >= gpus || bytes == 0 {
            continue;
        }
        let f = fab.flow(a, b, bytes, Duration::ZERO, FlowKind::Write, r as u64);
        if sim.add_flow(f).is_ok() {
            added += 1;
        }
    }
    let end = sim
        .run_to_end()
        .iter()
        .map(|c| c.time)
        .max()
        .unwrap_or(Duration::ZERO);
    if added == 0 {
        return Duration::ZERO;
    }
    end + fab.params.nccl_simple_step_latency
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Builder, collective_costs};
    use crate::scenario::load_str;
    use std::path::Path;

    /// The stage sends of a simulated iteration, in graph order: (task name, duration).
    pub(in crate::decode::passes) fn pp_sends(
        g: &crate::exec::TaskGraph,
    ) -> Vec<(String, tpsim_model::units::Duration)> {
        g.iter()
            .filter(|(_, t)| t.name.contains("pp send"))
            .map(|(_, t)| (t.name.clone(), t.duration))
            .collect()
    }

    fn scenario(engine: &str) -> crate::scenario::Scenario {
        let text = format!(
            "[hardware]\npreset = \"rtx-pro-6000-8x-1switch\"\n[model]\npreset = \"llama-3.1-70b\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.8\"\nmem_fraction_static = 0.8\n{engine}\n\
             [workload]\nconcurrency = 32\nprompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("pp-test.toml")).expect("scenario")
    }

    /// pp 2 × tp 4, 32 running requests: an iteration is one micro-batch of ⌈32 / 2⌉ = 16 requests
    /// through both stages, so each layer's attention costs what tp 4's costs at batch 16; one send
    /// after layer 39 (SGLang's split of 80 layers: 40 + 40) of 16 × 8,192 × 2 × 2 = 524,288 B per
    /// rank, GPU r → GPU 4 + r, at least that over the GPU's PCIe Gen5 x16 write bandwidth.
    #[test]
    fn pp2_runs_micro_batches_through_both_stages() {
        let s = scenario("tp = 4\npp_size = 2");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(32, 1024, false).expect("simulate");
        let sends = pp_sends(&shape.graph);
        assert_eq!(sends.len(), 1, "{sends:?}");
        assert_eq!(sends[0].0, "decode: pp send stage 0 → 1");
        assert_eq!(super::send_bytes(16, 8192, 2), 524_288);
        let t = super::send_time(&costs.comm, 4, 0, 524_288);
        assert_eq!(sends[0].1, t);
        assert!(t.as_us_f64() > 524_288.0 / 64e9 * 1e6, "{t:?}");
        // The send follows layer 39's MLP allreduce and precedes layer 40's attention.
        let names: Vec<&str> = shape.graph.iter().map(|(_, t)| t.name.as_str()).collect();
        let at = names.iter().position(|n| n.contains("pp send")).expect("send");
        assert!(names[..at].iter().any(|n| n.contains("L39 allreduce mlp")));
        assert!(names[at..].iter().any(|n| n.contains("L40 attention")));

        let plain = scenario("tp = 4");
        let c4 = collective_costs(&plain);
        let mut b4 = Builder::new(&plain, &c4);
        let p = b4.simulate(16, 1024, false).expect("simulate");
        let attn = |g: &crate::exec::TaskGraph| {
            g.iter()
                .find(|(_, t)| t.name == "decode: L5 attention")
                .map(|(_, t)| t.duration)
        };
        assert_eq!(attn(&shape.graph), attn(&p.graph));
    }

    /// vllmpp59: vLLM llama-3.1-70b tp 4 × pp 2, 32 running requests: the one send at the stage
    /// boundary carries the iteration's tokens, 8,192 × 2 × 2 B each per rank: ⌈32 / 2⌉ = 16 tokens
    /// (524,288 B) for micro-batches (0.15.1, whose async scheduling holds a request until its token
    /// is back; 0.34.0's staggered Model Runner V2), all 32 (1,048,576 B) for 0.16.0's V1 runner,
    /// which schedules every running request in every step (`scenario::vllm_pp_async`).
    #[test]
    fn vllmpp59_the_send_carries_the_schedules_batch() {
        for (version, tokens) in [("0.15.1", 16), ("0.16.0", 32), ("0.34.0", 16)] {
            let text = format!(
                "[hardware]\npreset = \"rtx-pro-6000-8x-1switch\"\n[model]\npreset = \"llama-3.1-70b\"\n\
                 [engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 4\npp_size = 2\n\
                 [workload]\nconcurrency = 32\nprompt_len = 1024\noutput_len = 16\n"
            );
            let s = load_str(&text, Path::new("pp-vllm.toml")).expect("scenario");
            let costs = collective_costs(&s);
            let mut b = Builder::new(&s, &costs);
            let shape = b.simulate(32, 1024, false).expect("simulate");
            let sends: Vec<_> = pp_sends(&shape.graph).into_iter().map(|(_, d)| d).collect();
            let bytes = super::send_bytes(tokens, 8192, 2);
            assert_eq!(bytes, u64::from(tokens) * 32_768, "{version}");
            assert_eq!(
                sends,
                vec![super::send_time(&costs.comm, 4, 0, bytes)],
                "{version}"
            );
        }
    }
}

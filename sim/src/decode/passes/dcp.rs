//! Issue #17: vLLM's decode context parallelism in a decode layer (vLLM 0.11
//! `v1/attention/backends/mla/common.py` `MLACommonImpl.forward`, decode part).
//!
//! The KV cache of each request is spread token by token over the dcp ranks of a DCP group
//! (`v1/worker/block_table.py`: "interleave" storage), so each rank attends over ⌈ctx / dcp⌉ of the
//! tokens — for the heads of the whole DCP group:
//! 1. the absorbed queries (`ql_nope ‖ q_pe`, kv_lora_rank + qk_rope_head_dim wide per head) are
//!    all-gathered over the DCP group along the head dimension (`get_dcp_group().all_gather(decode_q,
//!    dim=1)`);
//! 2. the decode kernel returns each head's partial output and its log-sum-exp;
//! 3. `attention/ops/common.py` `cp_lse_ag_out_rs`: an all-gather of the LSEs (fp32), the output
//!    corrected with them, then a reduce-scatter of the outputs (kv_lora_rank wide per head) back
//!    to each rank's own heads.
//!
//! The three collectives run on the DCP group (`Costs::dcp`; the first group's ranks, the groups'
//! concurrent traffic not modelled). The attention's KV read shrinks by dcp; its FLOPs stay (dcp
//! times the heads over 1/dcp of the tokens).

use super::{Builder, Collective, Costs, Pass};
use crate::comm::Comm;
use crate::decode::DecodeError;
use crate::exec::{TaskGraph, TaskId};
use crate::scenario::Scenario;
use tpsim_model::llm::Attention;
use tpsim_model::units::Duration;

/// The DCP group's communicator (dcp consecutive ranks) when dcp > 1.
pub(super) fn dcp_comm(s: &Scenario) -> Option<Comm> {
    (s.engine.dcp > 1).then(|| Comm::new(&s.hardware, s.engine.dcp as usize, &s.engine.env))
}

impl Costs {
    fn dcp_ring(&self, total: u64) -> Duration {
        self.dcp
            .as_ref()
            .map_or(Duration::ZERO, |c| c.allgather(total).time)
    }
}

/// The three collectives' bytes for `tokens` decode tokens: (q all-gather output, LSE all-gather
/// output, output reduce-scatter input), per rank.
pub fn dcp_bytes(s: &Scenario, tokens: u32) -> Option<(u64, u64, u64)> {
    let e = &s.engine;
    let m = &s.model;
    let Attention::Mla {
        kv_lora_rank,
        qk_rope_head_dim,
        ..
    } = m.attention
    else {
        return None;
    };
    if e.dcp <= 1 {
        return None;
    }
    let heads = m.heads / u64::from(e.tp) * u64::from(e.dcp);
    let t = u64::from(tokens);
    let act = m.activation_bytes();
    Some((
        t * heads * (kv_lora_rank + qk_rope_head_dim) * act,
        t * heads * 4,
        t * heads * kv_lora_rank * act,
    ))
}

impl Builder<'_> {
    /// The DCP collectives of layer `i` after its attention tasks `a` (the attention tasks themselves
    /// when DCP is off).
    pub(super) fn add_dcp(
        &self,
        g: &mut TaskGraph,
        pass: &Pass,
        i: usize,
        a: Vec<TaskId>,
    ) -> Result<Vec<TaskId>, DecodeError> {
        // Decode passes only (a prefill attends over its own prompt without the DCP exchange).
        let Some((q, lse, out)) = dcp_bytes(self.s, pass.shape.tokens).filter(|_| pass.shape.ctx > 0) else {
            return Ok(a);
        };
        let label = pass.label;
        let mut prev = a;
        for (name, coll, bytes) in [
            ("dcp all-gather q", Collective::Allgather(q), q),
            ("dcp all-gather lse", Collective::Allgather(lse), lse),
            ("dcp reduce-scatter out", Collective::ReduceScatter(out), out),
        ] {
            let t = self.costs.dcp_ring(bytes);
            prev = vec![self.gang(g, &format!("{label}: L{i} {name}"), coll, t, prev)?];
        }
        Ok(prev)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, collective_costs};
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario(engine: &str) -> crate::scenario::Scenario {
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"deepseek-v3\"\n\
             [engine]\nname = \"vllm\"\ntp = 8\n{engine}\n\
             [workload]\nconcurrency = 16\nprompt_len = 4096\noutput_len = 16\n"
        );
        load_str(&text, Path::new("dcp-test.toml")).expect("scenario")
    }

    /// DeepSeek-V3 (128 heads, kv_lora_rank 512, rope 64) at tp 8, dcp 8, 16 decode tokens: each
    /// rank's 16 heads become the group's 128. Per layer, on the 8-rank DCP group: q all-gather
    /// 16 × 128 × 576 × 2 = 2,359,296 B; LSE all-gather 16 × 128 × 4 = 8,192 B; output
    /// reduce-scatter 16 × 128 × 512 × 2 = 2,097,152 B (costed as the ring all-gather of that size).
    /// The KV read at context 4096 is 512 tokens per rank instead of 4096, so the attention is faster.
    #[test]
    fn dcp8_exchanges_and_reads_an_eighth() {
        let s = scenario("dcp_size = 8");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(16, 4096, false).expect("simulate");
        let d = |name: &str| {
            shape
                .graph
                .iter()
                .filter(|(_, t)| t.name == name)
                .map(|(_, t)| t.duration)
                .collect::<Vec<_>>()
        };
        let c = costs.dcp.as_ref().expect("DCP communicator");
        assert_eq!(c.ranks.len(), 8);
        assert_eq!(
            d("decode: L5 dcp all-gather q"),
            vec![c.allgather(2_359_296).time]
        );
        assert_eq!(d("decode: L5 dcp all-gather lse"), vec![c.allgather(8_192).time]);
        assert_eq!(
            d("decode: L5 dcp reduce-scatter out"),
            vec![c.allgather(2_097_152).time]
        );
        let plain = scenario("");
        let c0 = collective_costs(&plain);
        let mut b0 = Builder::new(&plain, &c0);
        let p = b0.simulate(16, 4096, false).expect("simulate");
        let attn = |g: &crate::exec::TaskGraph| {
            g.iter()
                .find(|(_, t)| t.name == "decode: L5 attention")
                .map(|(_, t)| t.duration)
                .expect("attention")
        };
        assert!(attn(&shape.graph) < attn(&p.graph));
        assert!(!p.graph.iter().any(|(_, t)| t.name.contains(" dcp ")));
    }
}

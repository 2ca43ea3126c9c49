//! Issue #17 point 4: a pipeline stage boundary that crosses from one box of a `[hardware.cluster]`
//! to the next. Stages are placed box by box (stage s on global GPUs [s·tp, (s+1)·tp), the order
//! both engines give ranks: vLLM 0.11 `distributed/parallel_state.py` `initialize_model_parallel`
//! lays the world out as (pp, tp) with tp fastest; SGLang 0.5.9 `model_runner.py` ranks
//! `pp_rank * tp_size + tp_rank` alike), so a boundary crosses boxes when stage k and stage k + 1 lie
//! in different boxes. Each TP rank sends to its peer over NCCL's net transport
//! ([`crate::internode::transfer`]: NIC with GPUDirect RDMA, or staged through host memory), all
//! ranks at once; ranks that share a NIC share its line rate.

use crate::internode;
use crate::scenario::Hardware;
use tpsim_model::units::Duration;

/// The time of the sends across boundary `k` (stage k → k + 1) of `tp` ranks per stage when the
/// boundary crosses boxes, `None` when both stages are in one box (the fabric carries it).
///
/// Per rank: the transfer's latency, plus `bytes` at the slower of the transfer's rate and the NIC's
/// line rate divided among the ranks on one NIC (NCCL gives each GPU its nearest NIC, so with
/// `nics_per_node` NICs for `gpus` GPUs, ⌈gpus / nics⌉ GPUs share one, at most `tp` of them), plus
/// one NCCL Simple step (`nccl_simple_step_latency`) for the send's protocol, as within a box.
pub fn send_time(hw: &Hardware, tp: usize, k: usize, bytes: u64) -> Option<Duration> {
    let c = hw.accel.cluster.as_ref()?;
    let cost = internode::transfer(hw, k * tp, (k + 1) * tp)?;
    if bytes == 0 || tp == 0 {
        return Some(Duration::ZERO);
    }
    let gpus = hw.topology.gpu_count().max(1);
    let nics = (c.nics_per_node as usize).max(1);
    let share = gpus.div_ceil(nics).min(tp).max(1) as f64;
    let rate = match cost.path {
        internode::NetPath::NetGdr | internode::NetPath::NetHostStaged => {
            cost.bytes_per_s.min(c.nic_bw.bytes_per_s() as f64 / share)
        }
        _ => cost.bytes_per_s,
    };
    Some(
        cost.latency
            + Duration::from_us_f64(bytes as f64 / rate.max(1.0) * 1e6)
            + hw.params.nccl_simple_step_latency,
    )
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, collective_costs};
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario(cluster: &str) -> crate::scenario::Scenario {
        let text = format!(
            "[hardware]\npreset = \"h200-16x-2node-ib\"\n{cluster}\n[model]\npreset = \"llama-3.1-70b\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.8\"\ntp = 8\npp_size = 2\n\
             [workload]\nconcurrency = 32\nprompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("pp-net-test.toml")).expect("scenario")
    }

    /// The iteration's one send and the makespan of an iteration of 32 running requests.
    fn send_and_makespan(s: &crate::scenario::Scenario) -> (String, f64, f64) {
        let costs = collective_costs(s);
        let mut b = Builder::new(s, &costs);
        let shape = b.simulate(32, 1024, false).expect("simulate");
        let sends = super::super::pipeline::tests::pp_sends(&shape.graph);
        assert_eq!(sends.len(), 1, "{sends:?}");
        let (name, t) = sends[0].clone();
        (name, t.as_us_f64(), shape.schedule.makespan.as_us_f64())
    }

    /// Llama-3.1-70B pp 2 × tp 8 on two HGX H200 boxes: stage 0 on box 0, stage 1 on box 1. One
    /// micro-batch of ⌈32 / 2⌉ = 16 requests sends 16 × 8,192 hidden × 2 tensors × 2 B = 524,288 B
    /// per rank, each rank over its own NIC (8 NICs for 8 GPUs). GDR: rate min(NDR 400 = 50 GB/s,
    /// Gen5 x16 53.6 GB/s) = 50 GB/s → 10.48576 µs, latency 2 µs NIC + 2 × 0.34 µs PCIe hops = 2.68 µs,
    /// plus the Simple step 2.83 µs: 15.99576 µs. Host-staged: latency 2 + 2 × (0.34 + 0.42 + 14) =
    /// 31.52 µs, rate still 50 GB/s (DRAM 215 / 2 = 107.5 GB/s): 44.83576 µs, 28.84 µs slower; the send
    /// is on the iteration's critical path, so the iteration is 28.84 µs longer. Tolerance 1 ns
    /// (integer picoseconds).
    #[test]
    fn send_between_boxes_with_and_without_gdr() {
        let (name, gdr, span_gdr) = send_and_makespan(&scenario(""));
        assert_eq!(name, "decode: pp send (net) stage 0 → 1");
        assert!((gdr - 15.99576).abs() < 1e-3, "{gdr}");
        let (_, staged, span_staged) =
            send_and_makespan(&scenario("[hardware.cluster]\ngpudirect_rdma = false"));
        assert!((staged - 44.83576).abs() < 1e-3, "{staged}");
        assert!(
            (span_staged - span_gdr - 28.84).abs() < 1e-3,
            "{span_gdr} → {span_staged}"
        );
        assert_eq!(super::super::op_class(&name), "pp_send_net");
    }

    /// NICs shared: 2 NICs for 8 GPUs → ⌈8 / 2⌉ = 4 ranks per NIC, each at 50 / 4 = 12.5 GB/s:
    /// 524,288 B → 41.94304 µs + 2.68 + 2.83 = 47.45304 µs.
    #[test]
    fn ranks_sharing_a_nic_share_its_rate() {
        let (_, t, _) = send_and_makespan(&scenario("[hardware.cluster]\nnics_per_node = 2"));
        assert!((t - 47.45304).abs() < 1e-3, "{t}");
    }

    /// pp 4 × tp 4 on two boxes of 8: boundaries 0 (GPUs 0-3 → 4-7) and 2 (8-11 → 12-15) inside a
    /// box, 1 (4-7 → 8-11) between boxes. The two inside sends cost the same (the boxes are alike)
    /// and are not zero; the one between is 2.68 + 2.83 µs + 8 × 8,192 × 2 × 2 B = 262,144 B at
    /// 50 GB/s (5.24288 µs) = 10.75288 µs (one micro-batch of ⌈32 / 4⌉ = 8 requests).
    #[test]
    fn only_the_boundary_between_boxes_goes_over_the_nics() {
        let text = "[hardware]\npreset = \"h200-16x-2node-ib\"\n[model]\npreset = \"llama-3.1-70b\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.8\"\ntp = 4\npp_size = 4\n\
             [workload]\nconcurrency = 32\nprompt_len = 1024\noutput_len = 16\n";
        let s = load_str(text, Path::new("pp4-net-test.toml")).expect("scenario");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(32, 1024, false).expect("simulate");
        let sends = super::super::pipeline::tests::pp_sends(&shape.graph);
        let names: Vec<&str> = sends.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "decode: pp send stage 0 → 1",
                "decode: pp send (net) stage 1 → 2",
                "decode: pp send stage 2 → 3"
            ]
        );
        assert_eq!(sends[0].1, sends[2].1);
        assert!(sends[0].1.as_us_f64() > 0.0);
        assert!(
            (sends[1].1.as_us_f64() - 10.75288).abs() < 1e-3,
            "{:?}",
            sends[1].1
        );
    }
}

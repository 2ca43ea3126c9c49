//! FlashInfer's PCIe-IPC allreduce as it runs (issue #19 point 3): the kernel its seed policy
//! launches for a world size and a message, lowered to posted writes and flag barriers.
//!
//! Sources (flashinfer-ai/flashinfer): `include/flashinfer/comm/pcie_ipc_all_reduce.cuh` at commit
//! 2aa8be70cdaa2cc0f52e2cf4cb90ac05538c131f (the kernels and `all_reduce`'s dispatch table) and
//! `flashinfer/comm/pcie_ipc_policy.py` at 1abbaaac0fd47b6e66dcfcb5262b8a6b761d2b12 (`_seed`, the
//! configuration every shape gets until `tune()` has measured the machine; SGLang 0.5.23
//! `pcie_ipc_ar.py` runs the seed when FlashInfer autotuning is off or has not run).
//!
//! Every data movement is a store into a peer's workspace (a posted write: it arrives one path
//! latency after it leaves, and the driver's staging of *loads* does not apply); every wait is a
//! poll of the rank's own memory. Two protocols:
//! - **sentinel** (no barrier): the receiver polls the data itself (+0.0 means "not written yet"),
//!   so a step starts when its inputs have arrived;
//! - **flag barriers** (`block_barrier`, `block_barrier_mask`, `owner_pair_barrier`): after its
//!   pass's stores, a rank stores a flag (`st.release.sys`) into each partner's signal slot and
//!   spins on its own slots. PCIe keeps posted writes in order, so a flag to the rank the data went
//!   to lands just after the data; a flag to another partner leaves at the same time.
//!
//! The seed's kernels (`_seed`, `_SEED_STAGE_BYTES` = 32 KiB):
//! - 2 ranks: `ipc_tp2_remote_push_kernel` — each rank stores its whole buffer into the peer's;
//! - 4 ranks below 32 KiB: `ipc_rsag_push_param_kernel<4>` (sentinel) — each rank stores each
//!   owner's quarter into that owner; the owner sums and stores the sum into the 3 others;
//! - 8 ranks below 32 KiB: `ipc_topo_rsag8_push_param_kernel` (sentinel, 4 + 4 islands of ranks
//!   0–3 and 4–7) — each rank stores chunk c (a quarter) into its island's owner of c; the owner
//!   sums, stores the island sum into its paired owner `rank ^ 4` in the other island, adds the
//!   pair's sum when it arrives, and stores the result into its 3 island peers;
//! - 4 or 8 ranks from 32 KiB: the staged ring kernels (`ipc_rsag_ring_push_param_kernel<4>`,
//!   `ipc_topo_rsag8_ring_push_param_kernel`) — one outbound and one inbound stream per rank at a
//!   time: in pass p rank r stores one quarter into `(local + 1 + p) mod 4` of its group (at 4
//!   ranks the group is everyone, at 8 its island), then a barrier among the group; at 8 ranks
//!   the island sums cross once between paired owners (`owner_pair_barrier`), then the all-gather
//!   passes repeat the schedule, and a last island barrier closes the call (phase 7). Volume per
//!   rank: 3/4 of the message out in the reduce-scatter, 1/4 across (8 ranks), 3/4 in the
//!   all-gather.

use crate::allreduce::{Deps, Outcome, Send, execute, outcome};
use crate::fabric::Fabric;
use crate::net::FlowKind;
use std::sync::Arc;
use tpsim_model::units::Duration;

/// `pcie_ipc_policy.py` `_SEED_STAGE_BYTES`: from this payload on, the staged ring kernel.
pub const SEED_STAGE_BYTES: u64 = 32 * 1024;

/// The kernel the seed policy launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `ipc_tp2_remote_push_kernel` (2 ranks).
    Tp2Push,
    /// `ipc_rsag_push_param_kernel<4>` (4 ranks, sentinel).
    AllToAll4,
    /// `ipc_topo_rsag8_push_param_kernel` (8 ranks, islands, sentinel).
    Islands8,
    /// `ipc_rsag_ring_push_param_kernel<4>` (4 ranks, staged passes, barriers).
    Ring4,
    /// `ipc_topo_rsag8_ring_push_param_kernel` (8 ranks, islands, staged passes, barriers).
    IslandRing8,
}

impl Kernel {
    /// The kernel's name in the FlashInfer source.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Tp2Push => "ipc_tp2_remote_push_kernel",
            Kernel::AllToAll4 => "ipc_rsag_push_param_kernel<4>",
            Kernel::Islands8 => "ipc_topo_rsag8_push_param_kernel",
            Kernel::Ring4 => "ipc_rsag_ring_push_param_kernel<4>",
            Kernel::IslandRing8 => "ipc_topo_rsag8_ring_push_param_kernel",
        }
    }
}

/// `_seed`: the kernel for `ranks` ranks and a message of `bytes`, or `None` for a world size
/// the kernels do not build (2, 4 and 8 only).
pub fn seed_kernel(ranks: usize, bytes: u64) -> Option<Kernel> {
    Some(match ranks {
        2 => Kernel::Tp2Push,
        4 if bytes >= SEED_STAGE_BYTES => Kernel::Ring4,
        4 => Kernel::AllToAll4,
        8 if bytes >= SEED_STAGE_BYTES => Kernel::IslandRing8,
        8 => Kernel::Islands8,
        _ => return None,
    })
}

/// Builds the DAG of one call.
struct Dag<'a> {
    fab: &'a Fabric,
    ranks: &'a [usize],
    sends: Vec<Send>,
}

impl Dag<'_> {
    /// Rank `a` stores `bytes` into rank `b` once `deps` are done (a posted write).
    fn store(&mut self, a: usize, b: usize, bytes: u64, deps: &[usize]) -> usize {
        let f = self.fab.flow(
            self.ranks[a],
            self.ranks[b],
            bytes,
            Duration::ZERO,
            FlowKind::Write,
            0,
        );
        self.push(f, deps)
    }

    /// Rank `a`'s flag into rank `q` after its pass's store `data` into rank `d` arrived: it left
    /// with the data, so it lands `lat(a, q) − lat(a, d)` after the data (never before it).
    fn flag(&mut self, a: usize, q: usize, data: usize, d: usize) -> usize {
        let (ga, gq, gd) = (self.ranks[a], self.ranks[q], self.ranks[d]);
        let mut f = self.fab.flow(ga, gq, 0, Duration::ZERO, FlowKind::Write, 0);
        f.latency = self
            .fab
            .path(ga, gq)
            .latency
            .saturating_sub(self.fab.path(ga, gd).latency);
        self.push(f, &[data])
    }

    fn push(&mut self, f: crate::net::FlowSpec, deps: &[usize]) -> usize {
        let idx = self.sends.len();
        self.sends.push(Send {
            spec: Arc::new(f),
            deps: Deps::many(deps),
            conn: usize::MAX,
            delay: Duration::ZERO,
        });
        idx
    }

    /// One staged pass: every rank `r` of `group` (rank indices) stores `bytes` into
    /// `target(r)` after `ready[r]`, then flags every other member of `partners(r)`. Returns, per
    /// rank, the flags addressed to it (its barrier).
    fn pass(
        &mut self,
        group: &[usize],
        bytes: u64,
        ready: &[Vec<usize>],
        target: impl Fn(usize) -> usize,
        partners: impl Fn(usize) -> Vec<usize>,
    ) -> Vec<Vec<usize>> {
        let mut into = vec![Vec::new(); self.ranks.len()];
        for &r in group {
            let d = target(r);
            let data = self.store(r, d, bytes, &ready[r]);
            for q in partners(r) {
                if q != r {
                    let fl = self.flag(r, q, data, d);
                    into[q].push(fl);
                }
            }
        }
        into
    }
}

/// Ranks of `r`'s island at 8 ranks (0–3 or 4–7).
fn island(r: usize) -> Vec<usize> {
    let base = r & !3;
    (base..base + 4).collect()
}

/// One FlashInfer PCIe-IPC allreduce of `bytes` over `ranks` (2, 4 or 8 GPU indices; any other
/// count runs nothing and takes no time, as the engine never selects it).
pub fn run(fab: &Fabric, ranks: &[usize], bytes: u64, launch: Duration) -> Outcome {
    let n = ranks.len();
    let name = "flashinfer pcie-ipc";
    let kernel = seed_kernel(n, bytes);
    let (Some(kernel), true) = (kernel, bytes > 0) else {
        return Outcome {
            time: Duration::ZERO,
            algorithm: name.into(),
            protocol: "-".into(),
            channels: 0,
            bottleneck: None,
            flows: 0,
            timeline: Arc::new([]),
        };
    };
    let mut g = Dag {
        fab,
        ranks,
        sends: Vec::new(),
    };
    let quarter = bytes.div_ceil(4);
    let none: Vec<usize> = Vec::new();
    match kernel {
        Kernel::Tp2Push => {
            g.store(0, 1, bytes, &none);
            g.store(1, 0, bytes, &none);
        }
        Kernel::AllToAll4 => {
            // into[o]: the quarters stored into owner o; then o stores its sum into the others.
            let mut into = vec![Vec::new(); 4];
            for r in 0..4 {
                for (o, slot) in into.iter_mut().enumerate() {
                    if o != r {
                        slot.push(g.store(r, o, quarter, &none));
                    }
                }
            }
            for (o, deps) in into.iter().enumerate() {
                for q in (0..4).filter(|&q| q != o) {
                    g.store(o, q, quarter, deps);
                }
            }
        }
        Kernel::Islands8 => {
            let mut into = vec![Vec::new(); 8];
            for r in 0..8 {
                for o in island(r).into_iter().filter(|&o| o != r) {
                    let s = g.store(r, o, quarter, &none);
                    into[o].push(s);
                }
            }
            let cross: Vec<usize> = (0..8).map(|o| g.store(o, o ^ 4, quarter, &into[o])).collect();
            for o in 0..8 {
                let mut deps = into[o].clone();
                deps.push(cross[o ^ 4]);
                for q in island(o).into_iter().filter(|&q| q != o) {
                    g.store(o, q, quarter, &deps);
                }
            }
        }
        Kernel::Ring4 | Kernel::IslandRing8 => {
            let all: Vec<usize> = (0..n).collect();
            let group = |r: usize| if n == 8 { island(r) } else { (0..4).collect() };
            let mut ready: Vec<Vec<usize>> = vec![Vec::new(); n];
            // Reduce-scatter passes, the pair exchange (8 ranks), all-gather passes.
            // Pass p sends to the member p + 1 places on in the rank's group of four.
            let ring = |p: usize| move |r: usize| group(r)[((r & 3) + 1 + p) & 3];
            for p in 0..3 {
                ready = g.pass(&all, quarter, &ready, ring(p), group);
            }
            if n == 8 {
                ready = g.pass(&all, quarter, &ready, |r| r ^ 4, |r| vec![r ^ 4]);
            }
            for p in 0..3 {
                ready = g.pass(&all, quarter, &ready, ring(p), group);
            }
            if n == 8 {
                // Phase 7: the island holds until every member has read (zero-byte stores).
                for r in 0..8 {
                    for q in island(r).into_iter().filter(|&q| q != r) {
                        let mut f = fab.flow(ranks[r], ranks[q], 0, Duration::ZERO, FlowKind::Write, 0);
                        f.latency = fab.path(ranks[r], ranks[q]).latency;
                        let deps = ready[r].clone();
                        g.push(f, &deps);
                    }
                }
            }
        }
    }
    let sends = g.sends;
    let (end, sim, timeline) = execute(fab, sends, usize::MAX, launch);
    outcome(
        fab,
        end,
        &sim,
        timeline,
        format!("{name} {}", kernel.name()),
        "-",
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_policy_follows_flashinfer() {
        // `_seed`: 2 ranks always the remote push; 4 and 8 switch to the staged ring at 32 KiB.
        assert_eq!(seed_kernel(2, 1 << 20), Some(Kernel::Tp2Push));
        assert_eq!(seed_kernel(4, 32 * 1024 - 16), Some(Kernel::AllToAll4));
        assert_eq!(seed_kernel(4, 32 * 1024), Some(Kernel::Ring4));
        assert_eq!(seed_kernel(8, 12 * 1024), Some(Kernel::Islands8));
        assert_eq!(seed_kernel(8, 96 * 1024), Some(Kernel::IslandRing8));
        assert_eq!(seed_kernel(6, 4096), None);
        assert_eq!(island(5), vec![4, 5, 6, 7]);
    }
}

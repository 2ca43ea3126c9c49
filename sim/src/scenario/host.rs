//! Issue #19 point 1: a hardware preset's `[host]` section (`[hardware.host]` in a scenario), checked,
//! and the SHM parameters it determines (`tpsim_model::shm`).
//!
//! With a `[host]`, these `[params]` stop being constants shared by every host and come from the host's
//! facts (unless the scenario sets them inline, or a profile does):
//! - `host_memory_bw` = channels × MT/s × 8 B × 0.7 ([`tpsim_model::shm::dram_bw`]);
//! - `inter_socket_bw` = socket links × per-link bandwidth (more than one socket);
//! - the SHM connection limit: instead of `shm_copy_bw` per GPU pair, each GPU parent port (switch
//!   uplink or root port) gets `shm_read_efficiency` × its link rate for the SHM loads of the GPUs
//!   behind it, shared by them (sim/src/fabric.rs); `shm_read_efficiency` is then required;
//! - `shm_cross_socket_step_cost` = `shm_step_cost` + `inter_socket_latency` (one flag write across
//!   the socket link per step: [`tpsim_model::shm::cross_socket_step_cost`]).
//! - shm49: with `numa_nodes_per_socket` > 1 (NPS / SNC) and `gpu_numa_nodes`, each node's DRAM
//!   (`memory_channels / numa_nodes_per_socket` channels, [`tpsim_model::shm::node_dram_bw`]) is a
//!   further limit on the SHM connections whose buffers it holds (sim/src/fabric.rs).
//!
//! A preset without `[host]` keeps its values bit for bit.

use super::{FittedConstant, HostSection, HwParams, ParamsSection, Resolver, ScenarioError};
use std::collections::BTreeMap;
use tpsim_model::shm::{self, HostFacts, ShmBuffer};
use tpsim_model::topo::Topology;

impl Resolver<'_> {
    /// Checks `[hardware.host]` against the topology: every key in range, socket links given when
    /// the host has more than one socket, and no GPU on a socket the host does not have.
    pub(super) fn host(&self, h: HostSection, topology: &Topology) -> Result<HostFacts, ScenarioError> {
        let k = |n: &str| format!("hardware.host.{n}");
        let cpu_model = self.need(h.cpu_model, &k("cpu_model"))?;
        let sockets = self.need(h.sockets, &k("sockets"))?;
        if !(1..=8).contains(&sockets) {
            return Err(self.invalid(&k("sockets"), format!("{sockets}: expected 1 to 8 sockets")));
        }
        let used = (0..topology.gpu_count())
            .map(|g| topology.socket_of(g))
            .collect::<std::collections::BTreeSet<_>>()
            .len() as u32;
        if used > sockets {
            return Err(self.invalid(
                &k("sockets"),
                format!("{sockets}, but the topology puts GPUs on {used} sockets: expected at least {used}"),
            ));
        }
        let memory_channels = self.need(h.memory_channels, &k("memory_channels"))?;
        if !(1..=24).contains(&memory_channels) {
            return Err(self.invalid(
                &k("memory_channels"),
                format!("{memory_channels}: expected 1 to 24 DRAM channels per socket"),
            ));
        }
        let dimm_mts = self.need(h.dimm_mts, &k("dimm_mts"))?;
        if !(800..=12800).contains(&dimm_mts) {
            return Err(self.invalid(
                &k("dimm_mts"),
                format!("{dimm_mts}: expected a DIMM rate of 800 to 12800 MT/s"),
            ));
        }
        let socket_links = h.socket_links.unwrap_or(0);
        if sockets > 1 && socket_links == 0 {
            return Err(self.invalid(
                &k("socket_links"),
                format!("{sockets} sockets: expected the number of socket links (UPI / xGMI), ≥ 1"),
            ));
        }
        let socket_link_bw = h.socket_link_bw;
        if socket_links > 0 {
            let bw = self.need(socket_link_bw, &k("socket_link_bw"))?;
            if bw.bytes_per_s() == 0 {
                return Err(self.invalid(&k("socket_link_bw"), "expected a bandwidth > 0"));
            }
        }
        let shm_buffer = match h.shm_buffer.as_deref().unwrap_or("receiver") {
            "receiver" => ShmBuffer::Receiver,
            "sender" => ShmBuffer::Sender,
            other => {
                return Err(self.invalid(
                    &k("shm_buffer"),
                    format!(
                        "`{other}`: expected \"receiver\" (NCCL_SHM_LOCALITY=2, the default) or \"sender\""
                    ),
                ));
            }
        };
        // shm49: NUMA nodes per socket (NPS / SNC) and the GPUs' nodes, where the buffer's node matters.
        let numa_nodes_per_socket = h.numa_nodes_per_socket.unwrap_or(1);
        if !(1..=8).contains(&numa_nodes_per_socket) || !memory_channels.is_multiple_of(numa_nodes_per_socket)
        {
            return Err(self.invalid(
                &k("numa_nodes_per_socket"),
                format!(
                    "{numa_nodes_per_socket}: expected 1 to 8 NUMA nodes per socket that split its {memory_channels} memory channels evenly (NPS1/2/4, SNC2/3/4)"
                ),
            ));
        }
        let gpu_numa_nodes = h.gpu_numa_nodes.unwrap_or_default();
        if numa_nodes_per_socket > 1 {
            let n = topology.gpu_count();
            if gpu_numa_nodes.len() != n {
                return Err(self.invalid(
                    &k("gpu_numa_nodes"),
                    format!(
                        "{} entries with numa_nodes_per_socket = {numa_nodes_per_socket}: expected one NUMA node per GPU ({n}), as nvidia-smi topo -m's NUMA Affinity column gives them",
                        gpu_numa_nodes.len()
                    ),
                ));
            }
            // Linux numbers an NPS / SNC host's nodes 0 … sockets × nps − 1; a node lies in one socket.
            let nodes = sockets * numa_nodes_per_socket;
            for (g, &node) in gpu_numa_nodes.iter().enumerate() {
                if node >= nodes {
                    return Err(self.invalid(
                        &k("gpu_numa_nodes"),
                        format!(
                            "GPU {g} on node {node}: expected a node below {nodes} ({sockets} socket(s) × {numa_nodes_per_socket} nodes)"
                        ),
                    ));
                }
                if let Some(o) = (0..g)
                    .find(|&o| gpu_numa_nodes[o] == node && topology.socket_of(o) != topology.socket_of(g))
                {
                    return Err(self.invalid(
                        &k("gpu_numa_nodes"),
                        format!(
                            "GPUs {o} and {g} on node {node} but on different sockets of the topology: expected one socket per NUMA node"
                        ),
                    ));
                }
            }
        } else if !gpu_numa_nodes.is_empty() {
            return Err(self.invalid(
                &k("gpu_numa_nodes"),
                "given with one NUMA node per socket: expected numa_nodes_per_socket > 1 beside it (or no gpu_numa_nodes)",
            ));
        }
        Ok(HostFacts {
            cpu_model,
            sockets,
            memory_channels,
            dimm_mts,
            socket_links,
            socket_link_bw,
            shm_buffer,
            numa_nodes_per_socket,
            gpu_numa_nodes,
        })
    }
}

/// Sets the derived parameters from the host facts, except those the scenario sets inline, and
/// replaces the fitted marks the template gave them (they were fitted on another host).
pub(super) fn apply(
    facts: &HostFacts,
    inline: &ParamsSection,
    params: &mut HwParams,
    fitted: &mut BTreeMap<String, FittedConstant>,
) {
    let set = |k: &str| !inline.is_set(k);
    if set("host_memory_bw")
        && let Some(bw) = facts.memory_bw()
    {
        params.host_memory_bw = bw;
    }
    if set("inter_socket_bw")
        && let Some(bw) = facts.socket_bw()
    {
        params.inter_socket_bw = bw;
    }
    // The per-pair SHM limit is not used with host facts (per-port reads instead): its mark goes.
    fitted.remove("shm_copy_bw");
    if set("shm_cross_socket_step_cost") {
        params.shm_cross_socket_step_cost =
            shm::cross_socket_step_cost(params.shm_step_cost, params.inter_socket_latency);
        fitted.remove("shm_cross_socket_step_cost");
    }
}

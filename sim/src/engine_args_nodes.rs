//! Issue #17 point 4: `tpsim engine-args` for a scenario whose ranks span the boxes of a
//! `[hardware.cluster]` (tp × pp larger than one box): one launch per node.
//!
//! - SGLang (0.5.8/0.5.9 `server_args.py`: `--nnodes`, `--node-rank`, `--dist-init-addr`): the same
//!   `launch_server` command on every node, each with its own `--node-rank`, all pointing at node 0's
//!   address for the torch.distributed rendezvous.
//! - vLLM 0.11.0 (docs/serving/parallelism_scaling.md, "Running vLLM on a Ray cluster"; its
//!   `arg_utils.py` has no node-rank flag): a Ray cluster — `ray start --head` on node 0, `ray start
//!   --address` on the others — then one `vllm serve` on the head node with
//!   `--distributed-executor-backend ray` (`config/parallel.py` `ParallelConfig.__post_init__` picks
//!   ray anyway when the world size exceeds the node's GPUs; stated to make the launch explicit).
//!
//! The head node's address is a placeholder the user fills in.

use crate::scenario::{EngineKind, Scenario};

/// Placeholder for node 0's address.
pub const HEAD_ADDR: &str = "HEAD_NODE_IP";
/// The rendezvous port given to SGLang's `--dist-init-addr` (any free port; 5000 as SGLang's docs use).
pub const SGLANG_DIST_PORT: u32 = 5000;
/// Ray's default GCS port (`ray start --head` without `--port`: 6379, Ray's documentation).
pub const RAY_PORT: u32 = 6379;

/// What one node runs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NodeCommand {
    /// The node's rank (0 = head, whose address the others use).
    pub node: u32,
    /// Shell commands to run on the node first (vLLM: its `ray start`), one per entry.
    pub setup: Vec<String>,
    /// The engine's arguments on this node (after the program); empty: no engine process here
    /// (a vLLM Ray worker node).
    pub args: Vec<String>,
}

/// The boxes the scenario's ranks occupy: ⌈tp × pp ÷ box GPUs⌉, when more than one.
pub fn nodes_used(s: &Scenario) -> Option<u32> {
    let gpus = s.hardware.topology.gpu_count().max(1) as u32;
    let world = s.engine.tp.saturating_mul(s.engine.pp.max(1));
    let n = world.div_ceil(gpus);
    (n > 1 && n <= s.hardware.accel.nodes()).then_some(n)
}

/// Adds the multi-node flags to the head's `args` and returns each node's launch, with a note;
/// nothing for a scenario that fits in one box.
pub fn per_node(s: &Scenario, args: &mut Vec<String>, notes: &mut Vec<String>) -> Vec<NodeCommand> {
    let Some(n) = nodes_used(s) else {
        return Vec::new();
    };
    match s.engine.kind {
        EngineKind::Sglang => {
            notes.push(format!(
                "multi-node: {n} nodes; run the command of each node on that node, with {HEAD_ADDR} replaced \
                 by node 0's address (SGLang --nnodes/--node-rank/--dist-init-addr)"
            ));
            same_command_per_node(n, args, |r| {
                vec![
                    "--nnodes".to_string(),
                    n.to_string(),
                    "--node-rank".to_string(),
                    r.to_string(),
                    "--dist-init-addr".to_string(),
                    format!("{HEAD_ADDR}:{SGLANG_DIST_PORT}"),
                ]
            })
        }
        // args58: vLLM ≥ 0.12.0's own multi-node launch (`engine.distributed_executor_backend = "mp"`,
        // `scenario/executor.rs`): the same `vllm serve` on every node with `--nnodes`, its
        // `--node-rank` and node 0's `--master-addr` (0.12.0 `config/parallel.py` fields), the others
        // `--headless` (0.12.0 `entrypoints/cli/serve.py` `run_headless`: no API server there).
        EngineKind::Vllm if s.engine.mp_nodes => {
            notes.push(format!(
                "multi-node: {n} nodes, vLLM's mp executor (--nnodes/--node-rank/--master-addr, vLLM >= 0.12); run \
                 the command of each node on that node, with {HEAD_ADDR} replaced by node 0's address"
            ));
            same_command_per_node(n, args, |r| {
                let mut a = vec![
                    "--nnodes".to_string(),
                    n.to_string(),
                    "--node-rank".to_string(),
                    r.to_string(),
                    "--master-addr".to_string(),
                    HEAD_ADDR.to_string(),
                ];
                if r > 0 {
                    a.push("--headless".to_string());
                }
                a
            })
        }
        EngineKind::Vllm => {
            args.extend(["--distributed-executor-backend".to_string(), "ray".to_string()]);
            notes.push(format!(
                "multi-node: {n} nodes in one Ray cluster (vLLM 0.11 multi-node serving); start Ray on every \
                 node, then run the command on node 0 only, with {HEAD_ADDR} replaced by node 0's address"
            ));
            (0..n)
                .map(|r| NodeCommand {
                    node: r,
                    setup: vec![if r == 0 {
                        format!("ray start --head --port={RAY_PORT}")
                    } else {
                        format!("ray start --address={HEAD_ADDR}:{RAY_PORT}")
                    }],
                    args: if r == 0 { args.clone() } else { Vec::new() },
                })
                .collect()
        }
    }
}

/// The engine's own multi-node launch (SGLang; vLLM's mp executor): every node runs the head's
/// arguments followed by its node's flags (`node_flags(rank)`); the head's `args` get rank 0's.
fn same_command_per_node(
    n: u32,
    args: &mut Vec<String>,
    node_flags: impl Fn(u32) -> Vec<String>,
) -> Vec<NodeCommand> {
    let base = args.clone();
    let with_rank = |r: u32| base.iter().cloned().chain(node_flags(r)).collect::<Vec<_>>();
    *args = with_rank(0);
    (0..n)
        .map(|r| NodeCommand {
            node: r,
            setup: Vec::new(),
            args: with_rank(r),
        })
        .collect()
}

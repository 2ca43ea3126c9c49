//! families11 (issue #17): vLLM's per-layer InternLM2 qkv all-gather reaches the decode task graph
//! (`model::llm::internlm2`); SGLang's InternLM2 has none.

use super::{Builder, collective_costs, durations};
use crate::scenario::load_str;
use std::path::Path;
use tpsim_model::units::Bytes;

fn scenario(engine: &str, ctx_key: &str) -> crate::scenario::Scenario {
    let text = format!(
        "[hardware]\npreset = \"rtx-4090-2x-no-p2p\"\n[model]\npreset = \"internlm2.5-7b-chat\"\n\
         [engine]\nname = \"{engine}\"\ntp = 2\n{ctx_key} = 8192\n\
         [workload]\nconcurrency = 16\nprompt_len = 1024\noutput_len = 16\n"
    );
    load_str(&text, Path::new("internlm2-test.toml")).expect("scenario")
}

/// 16 decode tokens at tp 2: each of the 32 layers all-gathers 16 × (32 + 2 × 8) × 128 × 2 B =
/// 196,608 B (12,288 B a token) under vLLM, timed as the TP group's all-gather of that size; SGLang
/// builds the same pass without it.
#[test]
fn vllm_gathers_qkv_in_every_layer_and_sglang_does_not() {
    let s = scenario("vllm", "max_model_len");
    let costs = collective_costs(&s);
    let mut b = Builder::new(&s, &costs);
    let shape = b.simulate(16, 1024, false).expect("simulate");
    let want = costs.allgather(Bytes(196_608)).time;
    for i in [0, 17, 31] {
        assert_eq!(
            durations(&shape.graph, &format!("decode: L{i} all-gather qkv")),
            vec![want]
        );
    }
    let n = shape
        .graph
        .iter()
        .filter(|(_, t)| t.name.ends_with("all-gather qkv"))
        .count();
    assert_eq!(n, 32);
    let sg = scenario("sglang", "context_length");
    let c2 = collective_costs(&sg);
    let mut b2 = Builder::new(&sg, &c2);
    let p = b2.simulate(16, 1024, false).expect("simulate");
    assert!(!p.graph.iter().any(|(_, t)| t.name.contains("all-gather qkv")));
}

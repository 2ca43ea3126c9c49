//! families36 (issue #17): Hunyuan V3 / Hy3 (`HYV3ForCausalLM`, tencent/Hy3) end to end, lowered as
//! `Architecture::Hy3`. The parameters are pinned by hand in `model/src/llm/tests_families34.rs`
//! (295,033,543,488; the card's 295B) and the bytes in `model/src/llm/tests_families36.rs`; here the
//! bundled bf16 example runs under SGLang 0.5.23 on 8× H200 with its weights a rank, cell and pool by
//! hand, the first releases read from the wheels hold under both engines, and drafts are refused. No
//! public start-up log of Hy3 with its memory lines was found.

use crate::common::*;

const HY3: &str = "examples/hy3-sglang-h200x8.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(HY3, name, edit)
}

/// The example under `engine` `version` (vLLM's `max_model_len` for SGLang's `context_length`).
fn under(name: &str, engine: &str, version: &str) -> String {
    variant(name, |t| {
        let t = t.replace("version = \"0.5.23\"", &format!("version = \"{version}\""));
        if engine == "vllm" {
            t.replace("name = \"sglang\"", "name = \"vllm\"")
                .replace("context_length = 65536", "max_model_len = 65536")
        } else {
            t
        }
    })
}

/// The checkpoint's bytes a rank at tp 8 (tolerance: none, integers; SGLang 0.5.23 `hunyuan_v3.py`
/// sharding, 64 / 8 = 8 query heads and 8 / 8 = 1 KV head a rank, bf16 but the fp32 router and expert
/// bias, replicated):
/// - attention a layer (qkv 4,096 × 80 × 128 / 8, o 8,192 × 4,096 / 8, q/k norms 2 × 128, layer norms
///   2 × 4,096) 9,445,632 × 2 B = 18,891,264, × 80 = 1,511,301,120;
/// - layer 0's MLP 3 × 4,096 × 13,312 / 8 × 2 B = 40,894,464;
/// - a MoE layer: 193 experts (192 routed + the shared one) of 3 × 4,096 × 1,536 / 8 × 2 B = 4,718,592
///   → 910,688,256, router 192 × 4,096 × 4 B = 3,145,728, bias 192 × 4 B = 768 → 913,834,752, × 79 =
///   72,192,945,408;
/// - embedding and head 2 × 120,832 / 8 × 4,096 × 2 B = 247,463,936; final norm 8,192
///
/// → 73,992,613,120 B. Cell: 80 × 2 × 1 × 128 × 2 B = 40,960 B a token.
const WEIGHTS: u64 = 73_992_613_120;

#[test]
fn hy3_bf16_sglang_h200_by_hand() {
    assert_eq!(
        1_511_301_120 + 40_894_464 + 79 * 913_834_752 + 247_463_936 + 8_192_u64,
        WEIGHTS
    );
    let run = run_json(&scenario(HY3));
    assert_eq!(run["verdict"], "ok");
    assert_eq!(entry_bytes(&run, "target weights"), WEIGHTS);
    // SGLang's RoPE cache: `get_rope(head_dim, rotary_dim=head_dim, max_position=262,144)`, fp32 cos
    // and sin, 262,144 × 128 × 4 B = 134,217,728.
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), 134_217_728);
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 80 * 2 * 128 * 2);
    // The pool: SGLang's rest (available − total × (1 − f)) in whole tokens of 40,960 B, page size 1
    // (tolerance: none, floor).
    let rest = f(&m["rest_gib"]) * (1u64 << 30) as f64;
    let tokens = m["kv_tokens"].as_u64().unwrap();
    assert_eq!(tokens, (rest / 40_960.0).floor() as u64);
    assert_eq!(tokens, 1_438_525);
    // One all-reduce after each attention and each feed-forward block, 80 × 2, and the embedding's.
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 161);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// vLLM 0.34.0 loads the same checkpoint bytes a rank (the same sharding in `hy_v3.py`: fp32
/// `GateLinear` router and, from 0.26.0, fp32 `expert_bias`) and the same 40,960 B cell. Its "Model
/// loading took" adds the RoPE cache at the model dtype (262,144 × 128 × 2 B = 67,108,864; 0.34.0 makes
/// it fp32 when its HPC fused RoPE + q/k-norm path is supported, `HpcRopeNorm.support`, which tpsim
/// does not model) and the caching allocator's block rounding, tpsim's replay of the load
/// (`ModelSpec::vllm_load_block_overhead`: 40,431,360 B — not derived by hand here).
#[test]
fn hy3_vllm_same_cell_and_checkpoint() {
    let run = run_json(&under("hy3-vllm-0.34", "vllm", "0.34.0"));
    assert_eq!(run["verdict"], "ok");
    assert_eq!(run["memory"]["cell_size_bytes"].as_u64().unwrap(), 40_960);
    assert_eq!(
        entry_bytes(&run, "target weights"),
        WEIGHTS + 67_108_864 + 40_431_360
    );
}

/// First releases read from the wheels: SGLang 0.5.10.post1 has no `sglang/srt/models/hunyuan_v3.py`
/// (0.5.11 has it); vLLM 0.19.1's `model_executor/models/registry.py` has no `HYV3ForCausalLM` (0.20.0
/// maps it to `("hy_v3", "HYV3ForCausalLM")`). The earlier releases exit 2 naming the first one; the
/// first ones start.
#[test]
fn hy3_first_releases() {
    for (engine, before, text) in [
        (
            "sglang",
            "0.5.10.post1",
            "SGLang 0.5.10.post1 has no models/hunyuan_v3.py (SGLang adds it in 0.5.11): it cannot serve Hunyuan V3 / Hy3 (HYV3ForCausalLM)",
        ),
        (
            "vllm",
            "0.19.1",
            "vLLM 0.19.1 has no registry entry for HYV3ForCausalLM (vLLM registers it from 0.20.0): it cannot serve Hunyuan V3 / Hy3 (HYV3ForCausalLM)",
        ),
    ] {
        let o = tpsim(&["run", &under(&format!("hy3-{engine}-{before}"), engine, before)]);
        assert_eq!(o.code, 2, "{engine} {before}: {}", o.stderr);
        assert!(o.stderr.contains(text), "{}", o.stderr);
    }
    for (engine, first) in [("sglang", "0.5.11"), ("vllm", "0.20.0")] {
        let run = run_json(&under(&format!("hy3-{engine}-{first}"), engine, first));
        assert_eq!(run["verdict"], "ok", "{engine} {first}");
    }
}

/// Hy3's drafts (SGLang `HYV3ForCausalLMNextN`, vLLM `HYV3MTPModel`) are not modelled: a
/// `[speculative]` section exits 2 saying so.
#[test]
fn hy3_drafts_refused() {
    let f = variant("hy3-nextn", |t| {
        t.replace(
            "[workload]",
            "[speculative]\nalgorithm = \"nextn\"\nnum_steps = 1\ntopk = 1\nnum_draft_tokens = 2\nacceptance = { per_position = [0.8] }\n\n[workload]",
        )
    });
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("Hy3's drafts (SGLang's HYV3ForCausalLMNextN, vLLM's HYV3MTPModel) are not modelled"),
        "{}",
        o.stderr
    );
}

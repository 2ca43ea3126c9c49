//! Issue #17: expert parallelism as the engines name it (`engine.enable_expert_parallel` for vLLM,
//! `engine.ep_size` / `engine.moe_a2a_backend` for SGLang).

use crate::common::*;

fn variant(name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scenario("validation/minimax-m2.5-fp8-ep-sglang-tp8.toml"))
        .expect("scenario");
    assert_eq!(text.matches(from).count(), 1, "`{from}`");
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    p.display().to_string()
}

/// vLLM 0.11 `FusedMoEParallelConfig.make`: with `--enable-expert-parallel` the EP size is tp × dp
/// = 8 and each rank owns whole experts, so MiniMax-M2.5 FP8 at tp 8 — whose 1536-wide experts split
/// 8 ways are 192 rows, not a whole number of 128-row scale blocks — is accepted exactly as SGLang's
/// ep_size = 8 is; without the flag the same vLLM scenario is refused on the block grid. At dp 1 vLLM
/// uses no all-to-all kernels (`use_all2all_kernels` needs dp_size > 1): the MoE output is
/// all-reduced, as on SGLang's `moe_a2a_backend = "none"` path, so the two engines' MoE and
/// allreduce times per iteration are the same.
#[test]
fn vllm_enable_expert_parallel_is_ep_equal_tp() {
    let vllm = "name = \"vllm\"\ntp = 8\nenable_expert_parallel = true\nallreduce";
    let f = variant(
        "vllm-ep",
        "name = \"sglang\"\ntp = 8\nep_size = 8\nallreduce",
        vllm,
    );
    let o = tpsim(&["validate", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let off = variant(
        "vllm-no-ep",
        "name = \"sglang\"\ntp = 8\nep_size = 8\nallreduce",
        "name = \"vllm\"\ntp = 8\nallreduce",
    );
    let o = tpsim(&["validate", &off]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("1536 / tp 8 = 192"), "{}", o.stderr);
    let v = run_json(&f);
    let s = run_json(&scenario("validation/minimax-m2.5-fp8-ep-sglang-tp8.toml"));
    assert_eq!(v["breakdown_by_op"]["moe"], s["breakdown_by_op"]["moe"]);
}

#[test]
fn engine_names_are_checked() {
    let bad = |name: &str, from: &str, to: &str| {
        let f = variant(name, from, to);
        let o = tpsim(&["run", &f]);
        assert_eq!(o.code, 2, "{}", o.stderr);
        assert!(o.stderr.contains(&f), "{}", o.stderr);
        o.stderr
    };
    // Issue #17 point 1 (ep): DeepEP needs NVLink; this box is PCIe-only (DeepEP's text quoted).
    let e = bad(
        "a2a-deepep",
        "ep_size = 8\n",
        "ep_size = 8\nmoe_a2a_backend = \"deepep\"\n",
    );
    assert!(
        e.contains("engine.moe_a2a_backend") && e.contains("NVLink for intranode communication"),
        "{e}"
    );
    let e = bad(
        "a2a-mooncake",
        "ep_size = 8\n",
        "ep_size = 8\nmoe_a2a_backend = \"mooncake\"\n",
    );
    assert!(
        e.contains("engine.moe_a2a_backend") && e.contains("not modelled"),
        "{e}"
    );
    let e = bad(
        "a2a-typo",
        "ep_size = 8\n",
        "ep_size = 8\nmoe_a2a_backend = \"deep-ep\"\n",
    );
    assert!(
        e.contains("engine.moe_a2a_backend") && e.contains("mooncake"),
        "{e}"
    );
    let e = bad(
        "ep-flag-sglang",
        "ep_size = 8\n",
        "enable_expert_parallel = true\n",
    );
    assert!(
        e.contains("engine.enable_expert_parallel") && e.contains("vLLM setting"),
        "{e}"
    );
    let e = bad("ep-size-vllm", "name = \"sglang\"", "name = \"vllm\"");
    assert!(
        e.contains("engine.ep_size") && e.contains("enable_expert_parallel"),
        "{e}"
    );
    // A `none` backend is SGLang's default: accepted.
    let f = variant(
        "a2a-none",
        "ep_size = 8\n",
        "ep_size = 8\nmoe_a2a_backend = \"none\"\n",
    );
    assert_eq!(tpsim(&["validate", &f]).code, 0);
}

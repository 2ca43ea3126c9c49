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

/// dpep17: under expert parallelism a rank holds whole experts (SGLang 0.5.9
/// `layers/moe/fused_moe_triton/layer.py` `num_local_experts = num_experts // ep_size`;
/// `ModelSpec::routed_experts_whole`), not 1/tp of each. Kimi-K2.5-NVFP4 (`kimi-k2.5-nvfp4`: 384
/// experts of intermediate 2,048 over hidden 7,168, 60 MoE layers; NVFP4 0.5 B a weight + one fp8
/// scale per 16 + 8 B of fp32 per-tensor scales a tensor) under SGLang `--tp 8 --ep-size 8`, by hand:
/// - a whole expert: gate_up [4,096, 7,168] 14,680,064 + 1,835,008 + 8 = 16,515,080; down [7,168,
///   2,048] 7,340,032 + 917,504 + 8 = 8,257,544 → 24,772,624; × 384 / 8 = 48 a rank × 60 =
///   71,345,157,120 (split TP-style, every rank holding a shard of all 384 with its per-tensor
///   scales: 71,345,479,680, `presets12::survey_command_2_kimi_k2_5_nvfp4_imports`: 322,560 B =
///   60 × (384 − 48) × 16 more);
/// - the rest as at tp 8 (75,987,407,724 − 71,345,479,680, the preset's tp-8 total since attnquant17
///   counts the dense layer 0 and the shared experts in NVFP4 as the checkpoint stores them, see
///   `presets12`): 75,987,085,164 B a rank.
///
/// With `--enable-dp-attention --dp-size 8` (attention TP 1) the attention and embedding are whole
/// on each rank: MLA a layer at tp 1 (64 heads), fused q_a + kv_a 2,112 × 7,168 × 2 = 30,277,632,
/// q_b 12,288 × 1,536 × 2 = 37,748,736, kv_b 16,384 × 512 × 2 = 16,777,216, w_kc + w_vc 2 × 8,192 ×
/// 512 × 2 = 16,777,216, o 7,168 × 8,192 × 2 = 117,440,512 → 219,021,312 × 61 = 13,360,300,032 (tp
/// 8: 3,286,106,112); embedding 163,840 × 7,168 × 2 = 2,348,810,240 (tp 8: 293,601,280) →
/// 75,987,085,164 + 10,074,193,920 + 2,055,208,960 = 88,116,488,044 B. KV per token: the MLA latent,
/// (512 + 64) × 61 × 1 B (fp8) = 35,136 on every rank either way. Exact (MiB × 2^20 is exact here).
#[test]
fn sglang_ep_holds_whole_experts_by_hand() {
    for (flags, weights) in [
        ("--tp 8 --ep-size 8", 75_987_085_164_u64),
        (
            "--tp 8 --ep-size 8 --enable-dp-attention --dp-size 8",
            88_116_488_044,
        ),
    ] {
        let cmd = format!("python -m sglang.launch_server --model-path nvidia/Kimi-K2.5-NVFP4 {flags}");
        let file = scratch("dpep-sgl-ep").join("scenario.toml").display().to_string();
        let o = tpsim(&[
            "import-command",
            "--hardware",
            "b200-8x-nvlink",
            "-o",
            &file,
            &cmd,
        ]);
        assert_eq!(o.code, 0, "{flags}: {}", o.stderr);
        let o = tpsim(&["memory", &file, "--json"]);
        assert_eq!(o.code, 0, "{flags}: {}", o.stderr);
        let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
        let mib = j["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .find(|e| e["name"] == "target weights")
            .and_then(|e| e["mib"].as_f64())
            .expect("target weights");
        assert_eq!((mib * 1_048_576.0) as u64, weights, "{flags}");
        assert_eq!(j["cell_size_bytes"], 35_136, "{flags}");
    }
}

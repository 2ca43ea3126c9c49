//! families32 (issue #17): Moonshot Kimi-K3 (`KimiK3ForConditionalGeneration`,
//! `tpsim_model::llm::kimi_k3`) end to end. The parameters are pinned by hand against the published
//! checkpoint's tensor list (a public model report: 1,503,647,073,024 stored elements, MXFP4 experts
//! packed two to a byte); the bundled example runs under SGLang 0.5.23 at tp 16 on two H200 boxes with
//! its weights a rank, KDA state per request and MLA cell by hand; and what tpsim does not serve is
//! refused. No public start-up log of Kimi-K3 with its memory lines was found.

use crate::common::*;
use tpsim_model::llm::{Mixer, ModelSpec, Quantization};

const K3: &str = "examples/kimi-k3-sglang-h200x16-2node.toml";

fn config() -> String {
    std::fs::read_to_string(scenario("models/kimi-k3/config.json")).unwrap()
}

/// The text model's parameters from the published shapes (tolerance: none, integers):
/// - embedding + untied head 2 × 163,840 × 7,168 = 2,348,810,240; final norm, `output_attn_res_norm`
///   and `output_attn_res_proj` 3 × 7,168;
/// - every layer: two norms, two attention-residual norms and two 1 × 7,168 projections = 6 × 7,168;
/// - KDA (69 layers; P = 96 × 128 = 12,288): q, k, v, g, o 5 × 12,288 × 7,168; f_a 128 × 7,168; f_b
///   12,288 × 128; b 96 × 7,168; q/k/v convs 3 × 12,288 × 4; dt_bias 12,288; A_log 96 (SGLang loads the
///   first `num_heads` of the checkpoint's 128); o_norm 128 = 443,740,384;
/// - MLA (24 layers): q_a 1,536 × 7,168; q_a_layernorm 1,536; q_b 18,432 × 1,536; kv_a 576 × 7,168;
///   kv_a_layernorm 512; kv_b 24,576 × 512; o 7,168 × 12,288; g 12,288 × 7,168 = 232,196,096;
/// - dense layer 0: 3 × 33,792 × 7,168 = 726,663,168;
/// - MoE (92 layers): router 896 × 7,168 + bias 896; latent down / up 2 × 3,584 × 7,168 and norm
///   3,584; experts 896 × 3 × 3,072 × 3,584 = 29,595,009,024; shared 3 × 6,144 × 7,168 =
///   29,784,936,832
///
/// → 2,779,484,476,000 (2.78 T; active: 16 of 896 experts, 105,364,017,760). Cross-check against the
/// tensor list: N − 92 × experts / 2 (packed), plus E8M0 scales 92 × 896 × (2 × 3,072 × 112 + 3,584 ×
/// 96), plus 69 × 32 (A_log's unloaded tail), plus the MoonViT3d tower and projector 447,358,976, is
/// 1,503,647,073,024, the report's count exactly.
///
/// Bytes at tp 1 in bf16: 2 × N, plus 2 B more for each fp32 element (per KDA layer 147,456 conv +
/// 12,288 dt_bias + 96 A_log; per MoE layer the 896 correction-bias entries), plus SGLang's absorbed
/// MLA copies w_kc and w_vc (24 × 2 × 96 × 128 × 512 × 2 B = 603,979,776).
#[test]
fn kimi_k3_parameters_by_hand() {
    let h: u64 = 7_168;
    let kda = 5 * 12_288 * h + 128 * h + 12_288 * 128 + 96 * h + 3 * 12_288 * 4 + 12_288 + 96 + 128;
    let mla = 1_536 * h + 1_536 + 18_432 * 1_536 + 576 * h + 512 + 24_576 * 512 + 2 * 12_288 * h;
    let experts = 896 * 3 * 3_072 * 3_584;
    let moe = 896 * h + 896 + 2 * 3_584 * h + 3_584 + experts + 3 * 6_144 * h;
    assert_eq!(
        (kda, mla, experts, moe),
        (443_740_384, 232_196_096, 29_595_009_024, 29_784_936_832)
    );
    let n = 2 * 163_840 * h + 3 * h + 93 * 6 * h + 69 * kda + 24 * mla + 3 * 33_792 * h + 92 * moe;
    assert_eq!(n, 2_779_484_476_000);
    assert_eq!(n - 92 * (896 - 16) * 3 * 3_072 * 3_584, 105_364_017_760);
    let vision = 27 * (2 * 4_096 * 1_024 + 2 * 1_024 + 1_024 * 1_536 + 4_608 * 1_024)
        + 1_024
        + 64 * 64 * 1_024
        + 1_024 * 3 * 14 * 14
        + 7_168
        + 4_096 * 4_096
        + 7_168 * 4_096;
    assert_eq!(vision, 447_358_976);
    let scales = 92 * 896 * (2 * 3_072 * 112 + 3_584 * 96);
    assert_eq!(
        n - 92 * experts / 2 + scales + 69 * 32 + vision,
        1_503_647_073_024
    );

    let s = ModelSpec::from_config_json(&config(), Quantization::bf16()).unwrap();
    assert_eq!(s.linear_layers(), 69);
    assert_eq!(s.kv_layers(), 24);
    assert_eq!(s.first_k_dense_replace, 1);
    let mla_layers: Vec<usize> = (0..93).filter(|&i| s.mixers[i] == Mixer::Attention).collect();
    assert_eq!(
        mla_layers,
        (1..=23).map(|k| 4 * k - 1).chain([92]).collect::<Vec<_>>()
    );
    assert_eq!(s.context_len, Some(1_048_576));
    let fp32 = 69 * (147_456 + 12_288 + 96) + 92 * 896;
    // vision54: plus the MoonViT3d tower and projector, bf16 (`llm::kimi_k3_vit`).
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * n + 2 * fp32 + 24 * 2 * 96 * 128 * 512 * 2 + 2 * vision
    );
}

/// The example (SGLang 0.5.23, tp 16, the published MXFP4 checkpoint), by hand (tolerance: none):
/// - weights a rank: embedding + head 2 × 10,240 × 7,168 × 2 = 293,601,280, final norm and output
///   attention-residual read 3 × 14,336;
/// - a KDA layer (768 of P, 6 heads a rank): norms 28,672, q/k/v 3 × 768 × 7,168 × 2, f_a 128 × 7,168
///   × 2, f_b 768 × 128 × 2, dt_bias 768 × 4, b 6 × 7,168 × 2, convs 3 × 768 × 4 × 4, A_log 6 × 4, g
///   768 × 7,168 × 2, o_norm 256, o 7,168 × 768 × 2, residual pieces 57,344: 57,294,104;
/// - an MLA layer: norms 28,672, fused q_a/kv_a 2,112 × 7,168 × 2, q_a_layernorm 3,072, q_b 6 × 192 ×
///   1,536 × 2, kv_a_layernorm 1,024, kv_b 6 × 256 × 512 × 2, w_kc and w_vc 2 × 6 × 128 × 512 × 2, o
///   and g 2 × 768 × 7,168 × 2, residual pieces 57,344: 59,072,512;
/// - the dense layer 3 × 2,112 × 7,168 × 2 = 90,832,896;
/// - a MoE layer: router 896 × 7,168 × 2 and bias 896 × 4; latent 2 × 3,584 × 7,168 × 2 and norm
///   7,168; 896 experts of gate_up 384 × 3,584 and down 3,584 × 192 at 0.5 B with one E8M0 byte per
///   32 (731,136 + 365,568 = 1,096,704 B each); shared 3 × 384 × 7,168 × 2: 1,114,778,112;
/// - in all 108,315,096,952 B, and with the replicated MoonViT3d tower (vision54) 109,209,814,904 B;
/// - KV cell: 24 MLA layers × (512 + 64) × 2 B = 27,648 B a token;
/// - KDA state a request (SGLang `KimiLinearStateShape` over attention-TP 16): convs 3 × 768 × 3 × 2 B
///   (bf16) and recurrent 6 × 128 × 128 × 4 B (float32) = 407,040 B a layer, × 69 = 28,085,760; the
///   pool holds ⌊rest × 0.9 / 1.9 GiB / 28,085,760⌋ requests (`mamba_full_memory_ratio` 0.9,
///   `tpsim_model::state_pool`);
/// - all-reduces a pass: 93 attention + 93 feed-forward + the embedding's = 187.
#[test]
fn kimi_k3_sglang_tp16_by_hand() {
    let run = run_json(&scenario(K3));
    assert_eq!(run["verdict"], "ok");
    let h: u64 = 7_168;
    let kda = 28_672
        + 3 * 768 * h * 2
        + 128 * h * 2
        + 768 * 128 * 2
        + 768 * 4
        + 6 * h * 2
        + 3 * 768 * 4 * 4
        + 6 * 4
        + 768 * h * 2
        + 256
        + h * 768 * 2
        + 57_344;
    let mla = 28_672
        + 2_112 * h * 2
        + 3_072
        + 6 * 192 * 1_536 * 2
        + 1_024
        + 6 * 256 * 512 * 2
        + 2 * 6 * 128 * 512 * 2
        + 2 * 768 * h * 2
        + 57_344;
    let expert = (384 * 3_584 / 2 + 384 * 3_584 / 32) + (3_584 * 192 / 2 + 3_584 * 192 / 32);
    let moe = 896 * h * 2 + 896 * 4 + 2 * 3_584 * h * 2 + 7_168 + 896 * expert + 3 * 384 * h * 2;
    assert_eq!(
        (kda, mla, expert, moe),
        (57_294_104, 59_072_512, 1_096_704, 1_114_778_112)
    );
    let weights = 2 * 10_240 * h * 2 + 3 * 14_336 + 69 * kda + 24 * mla + 3 * 2_112 * h * 2 + 92 * moe;
    assert_eq!(weights, 108_315_096_952);
    // vision54: the MoonViT3d tower and projector, whole on every rank (447,358,976 × 2 B).
    assert_eq!(entry_bytes(&run, "target weights"), weights + 894_717_952);
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 24 * 576 * 2);
    let per_req = 69 * (3 * 768 * 3 * 2 + 6 * 128 * 128 * 4);
    assert_eq!(per_req, 28_085_760);
    let (slots, bytes) = state_pool(&run);
    let budget = f(&m["rest_gib"]) * 0.9 / 1.9 * (1u64 << 30) as f64;
    assert_eq!(slots, (budget / per_req as f64).floor() as u64);
    assert_eq!(bytes, slots * per_req);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 187);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// What tpsim does not serve, each refused with exit 2 and its reason: SGLang before 0.5.17 (no
/// `models/kimi_k3.py`), vLLM (its `vllm/models/kimi_k3` package, 0.27.0 on, not modelled), a
/// speculative draft, and an activation SGLang's `KimiK3MLP` rejects.
#[test]
fn kimi_k3_refusals() {
    let old = edited_variant(K3, "k3-0.5.16", |t| t.replace("\"0.5.23\"", "\"0.5.16\""));
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("models/kimi_k3.py") && o.stderr.contains("SGLang adds it in 0.5.17"),
        "{}",
        o.stderr
    );
    let vllm = edited_variant(K3, "k3-vllm", |t| {
        t.replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("\"0.5.23\"", "\"0.19.0\"")
            .replace("context_length", "max_model_len")
    });
    let o = tpsim(&["run", &vllm]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("does not model Kimi-K3 (KimiK3ForConditionalGeneration) under vLLM"),
        "{}",
        o.stderr
    );
    let spec = edited_variant(K3, "k3-spec", |t| {
        format!(
            "{t}\n[speculative]\nalgorithm = \"nextn\"\nnum_steps = 1\ntopk = 1\nnum_draft_tokens = 2\nacceptance = {{ alpha = 0.8 }}\n"
        )
    });
    let o = tpsim(&["run", &spec]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("Kimi-K3's speculative drafts"), "{}", o.stderr);
    let gelu = config().replace("\"hidden_act\": \"situ\"", "\"hidden_act\": \"gelu\"");
    let e = ModelSpec::from_config_json(&gelu, Quantization::bf16()).unwrap_err();
    assert!(e.to_string().contains("Unsupported activation: gelu"), "{e}");
}

/// Kimi-K3's extra decode kernels a layer (tolerance: none, counts), from SGLang 0.5.23:
/// `layers/attn_residual.py` takes the fused TMA kernel (which also applies the layer's RMSNorm) on
/// SM 10.x with hidden 7,168 and otherwise the Triton `_score_kernel` + `_combine_kernel` before the
/// usual RMSNorm, 2 more a read; a read sits before every half except layer 0's attention
/// (`nvb == 0`). An MLA layer adds its output gate: the `g_proj` GEMM and one `mla_output_gate` kernel,
/// on any GPU. Served on SM 9.0 (and SM 12.0) a pass has 2 × 93 − 1 = 185 reads × 2 = 370 more kernels
/// than as lowered, on SM 10.0 none; the gates are 24 × 2 = 48 of the lowered count (against the same
/// config with neither gate nor residuals).
#[test]
fn kimi_k3_decode_kernels_by_gpu() {
    let lowered = ModelSpec::from_config_json(&config(), Quantization::bf16()).unwrap();
    let kernels = |m: &ModelSpec| -> u64 {
        m.forward_pass(16, 16)
            .layers
            .iter()
            .map(|l| u64::from(l.attn_kernels + l.ffn_kernels))
            .sum()
    };
    let served = |cc: &str| {
        let mut m = lowered.clone();
        m.kimi_k3.as_mut().unwrap().serve_on(cc, 7_168);
        kernels(&m)
    };
    let base = kernels(&lowered);
    assert_eq!(served("9.0") - base, 185 * 2);
    assert_eq!(served("10.0"), base);
    assert_eq!(served("12.0") - base, 370);
    // Without the gates and residuals (a Kimi-Linear-shaped K3) the extras vanish.
    let plain = config()
        .replace("\"mla_use_output_gate\": true", "\"mla_use_output_gate\": false")
        .replace("\"attn_res_block_size\": 12,", "");
    let mut m = ModelSpec::from_config_json(&plain, Quantization::bf16()).unwrap();
    let before = kernels(&m);
    m.kimi_k3.as_mut().unwrap().serve_on("9.0", 7_168);
    assert_eq!(kernels(&m), before);
    assert_eq!(base - before, 24 * 2);
}

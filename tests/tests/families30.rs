//! families30 (issue #17): Google Gemma 4 (`Gemma4ForConditionalGeneration`, `tpsim_model::llm::gemma4`)
//! end to end. The parameters are pinned by hand in `model/src/llm/tests_families30.rs`
//! (30,697,345,340; the card's 30.7B); here the bundled bf16 example runs under SGLang 0.5.23 on 2× RTX
//! PRO 6000 with its weights a rank, KV cell, hybrid SWA split and pools by hand, SGLang's attention
//! backend rule for Gemma 4 by release, and what tpsim does not serve is refused. No public start-up
//! log of Gemma 4 with its memory lines was found.

use crate::common::*;

const G4: &str = "examples/gemma-4-31b-sglang-rtxpro6000x2.toml";
const G4MOE: &str = "examples/gemma-4-26b-a4b-sglang-rtx5090x4.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(G4, name, edit)
}

/// bf16 weights a rank at tp 2 (tolerance: none, integers; SGLang 0.5.23 `gemma4_causal.py` sharding):
/// - tied embedding 262,144 / 2 × 5,376 = 704,643,072 parameters;
/// - a sliding layer: qkv (16 heads × 256 + 2 × 8 KV heads × 256) × 5,376 = 44,040,192; o 5,376 ×
///   4,096 = 22,020,096; gated MLP 3 × 5,376 × 10,752 = 173,408,256; four norms 4 × 5,376, q/k norms
///   2 × 256, `layer_scalar` 1 → 239,490,561;
/// - a full layer: qkv (16 × 512 + 2 × 2 KV heads × 512; the V slot filled from k_proj) × 5,376 =
///   55,050,240; o 5,376 × 8,192 = 44,040,192; MLP 173,408,256; norms 21,504 + 1,024 + 1 → 272,521,217;
/// - final norm 5,376
///
/// → 15,404,388,668 parameters, 30,808,777,336 B. Cell: full 2 KV heads a rank × (512 + 512) × 2 B =
/// 4,096 B a layer, sliding 8 × (256 + 256) × 2 = 8,192 B; 10 × 4,096 + 50 × 8,192 = 450,560 B.
/// SGLang 0.5.23 `model_executor/pool_configurator.py` `HybridSWAPoolConfigurator`: full tokens =
/// bytes / (40,960 + 0.8 × 409,600) (tpsim: T tokens of the cell, full = int(T × 450,560 / 368,640)),
/// swa = int(full × 0.8); pools (full + 1) × 4,096 × 10 and (swa + 1) × 8,192 × 50 (page 1). All-reduces
/// a pass: attention and MLP of 60 layers + the embedding's = 121.
#[test]
fn gemma4_31b_sglang_by_hand() {
    let run = run_json(&scenario(G4));
    assert_eq!(run["verdict"], "ok");
    let swa_layer = 44_040_192 + 22_020_096 + 173_408_256 + 21_504 + 512 + 1;
    let full_layer = 55_050_240 + 44_040_192 + 173_408_256 + 21_504 + 1_024 + 1;
    assert_eq!((swa_layer, full_layer), (239_490_561_u64, 272_521_217_u64));
    let params = 704_643_072 + 50 * swa_layer + 10 * full_layer + 5_376;
    assert_eq!(2 * params, 30_808_777_336);
    // vision54: plus the vision tower at tp 2 (303,272,496 parameters, `vision54.rs`).
    assert_eq!(entry_bytes(&run, "target weights"), 2 * (params + 303_272_496));
    // SGLang's two float32 cos/sin caches over max_position_embeddings = 262,144 rows: the full kind's
    // `Gemma4RotaryEmbedding` 512 wide (its unrotated angles included), the sliding kind's 256 wide:
    // 262,144 × (512 + 256) × 4 B = 805,306,368 B (768 MiB).
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), 805_306_368);
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 450_560);
    let t = (f(&m["rest_gib"]) * (1u64 << 30) as f64 / 450_560.0).floor() as u64;
    let full = (t as f64 * 450_560.0 / (40_960.0 + 0.8 * 409_600.0)).trunc() as u64;
    let swa = (full as f64 * 0.8).trunc() as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), full);
    let (name, bytes) = pool_entry(&run, "target KV pool, full layers");
    assert!(name.contains(&format!("10 × {full} tokens")), "{name}");
    assert_eq!(bytes, (full + 1) * 4_096 * 10);
    let (name, bytes) = pool_entry(&run, "target KV pool, SWA layers");
    assert!(name.contains(&format!("50 × {swa} tokens")), "{name}");
    assert_eq!(bytes, (swa + 1) * 8_192 * 50);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 121);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// Gemma 4 26B-A4B, bf16 weights a rank at tp 4 (tolerance: none, integers; SGLang 0.5.23
/// `gemma4_causal.py` sharding; the dense MLP of 2,112 lowered as 3 shared experts of 704):
/// - tied embedding 262,144 / 4 × 2,816 = 184,549,376 parameters;
/// - a sliding layer: qkv (4 heads × 256 + 2 × 2 KV heads × 256) × 2,816 = 5,767,168; o 2,816 × 1,024 =
///   2,883,584; dense MLP 3 × 2,816 × 528 = 4,460,544; experts 128 × 3 × 2,816 × 176 = 190,316,544;
///   replicated router 128 × 2,816 = 360,448; eight hidden vectors (seven norms and the router's
///   scale) 22,528, q/k norms 512, `layer_scalar` 1, `per_expert_scale` 128 → 203,811,457;
/// - a full layer: qkv (4 × 512 + 2 × 1 KV head × 512, the V slot filled from k_proj) × 2,816 =
///   8,650,752; o 2,816 × 2,048 = 5,767,168; the same feed-forward 195,137,536; vectors 22,528 + 1,024
///   + 1 + 128 → 209,579,137;
/// - final norm 2,816
///
/// → 6,327,734,302 parameters, 12,655,468,604 B. Cell: full max(1, 2 / 4) = 1 KV head × 1,024 × 2 B =
/// 2,048 B a layer, sliding 2 × 512 × 2 = 2,048 B; 30 × 2,048 = 61,440 B. Split as the 31B's: full =
/// int(T × 61,440 / (5 × 2,048 + 0.8 × 25 × 2,048)), swa = int(full × 0.8). All-reduces a pass:
/// attention, dense MLP and MoE apart in 30 layers + the embedding's = 91.
#[test]
fn gemma4_26b_a4b_sglang_by_hand() {
    let run = run_json(&scenario(G4MOE));
    assert_eq!(run["verdict"], "ok");
    let ffn = 4_460_544 + 190_316_544 + 360_448_u64;
    assert_eq!(ffn, 195_137_536);
    let swa_layer = 5_767_168 + 2_883_584 + ffn + 22_528 + 512 + 1 + 128;
    let full_layer = 8_650_752 + 5_767_168 + ffn + 22_528 + 1_024 + 1 + 128;
    assert_eq!((swa_layer, full_layer), (203_811_457_u64, 209_579_137_u64));
    let params = 184_549_376 + 25 * swa_layer + 5 * full_layer + 2_816;
    assert_eq!(2 * params, 12_655_468_604);
    // vision54: plus the vision tower at tp 4 (164,087,856 parameters, `vision54.rs`).
    assert_eq!(entry_bytes(&run, "target weights"), 2 * (params + 164_087_856));
    // The same two caches as the 31B's (the same head widths and positions): 805,306,368 B.
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), 805_306_368);
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 61_440);
    let t = (f(&m["rest_gib"]) * (1u64 << 30) as f64 / 61_440.0).floor() as u64;
    let full = (t as f64 * 61_440.0 / (10_240.0 + 0.8 * 51_200.0)).trunc() as u64;
    let swa = (full as f64 * 0.8).trunc() as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), full);
    let (name, bytes) = pool_entry(&run, "target KV pool, full layers");
    assert!(name.contains(&format!("5 × {full} tokens")), "{name}");
    assert_eq!(bytes, (full + 1) * 2_048 * 5);
    let (name, bytes) = pool_entry(&run, "target KV pool, SWA layers");
    assert!(name.contains(&format!("25 × {swa} tokens")), "{name}");
    assert_eq!(bytes, (swa + 1) * 2_048 * 25);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 91);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);
}

/// SGLang's attention backend for Gemma 4 (`scenario::gemma4`): `triton` by default off SM 10.x
/// (0.5.11 … 0.5.23 `server_args.py` / `arg_groups/model_overrides/gemma4.py`); a named backend
/// outside the release's list refused with its assert's text from 0.5.13 (0.5.23: "Gemma4 only
/// supports trtllm_mha, triton, fa4, ascend, intel_xpu, intel_amx, or aiter attention backend, got
/// prefill=…, decode=…"), accepted by 0.5.12, which has no check.
#[test]
fn gemma4_attention_backend_by_release() {
    let o = tpsim(&["engine-args", &scenario(G4)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("tpsim assumes triton"), "{}", o.stdout);
    let named = |v: &str, b: &str| {
        variant(&format!("g4-{v}-{b}"), |t| {
            t.replace("\"0.5.23\"", &format!("\"{v}\""))
                .replace("tp = 2\n", &format!("tp = 2\nattention_backend = \"{b}\"\n"))
        })
    };
    let o = tpsim(&["run", &named("0.5.23", "flashinfer")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "Gemma4 only supports trtllm_mha, triton, fa4, ascend, intel_xpu, intel_amx, or aiter attention \
             backend, got prefill=flashinfer, decode=flashinfer"
        ),
        "{}",
        o.stderr
    );
    let o = tpsim(&["run", &named("0.5.13", "fa4")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "Gemma4 only supports trtllm_mha, triton, or intel_xpu attention backend, got prefill=fa4"
        ),
        "{}",
        o.stderr
    );
    let o = tpsim(&["run", &named("0.5.12", "flashinfer")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
}

/// What tpsim does not serve: SGLang before 0.5.11 (no `models/gemma4_causal.py`), vLLM before 0.19.0
/// (no `models/gemma4.py`), Gemma 4's assistant drafts, and the E2B / E4B /
/// 26B-A4B features, each refused with exit 2 and its reason.
#[test]
fn gemma4_refusals() {
    let old = variant("g4-0.5.10", |t| t.replace("\"0.5.23\"", "\"0.5.10\""));
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("models/gemma4_causal.py") && o.stderr.contains("SGLang adds it in 0.5.11"),
        "{}",
        o.stderr
    );
    let vllm = |v: &str| {
        variant(&format!("g4-vllm-{v}"), |t| {
            t.replace("name = \"sglang\"", "name = \"vllm\"")
                .replace("\"0.5.23\"", &format!("\"{v}\""))
        })
    };
    let o = tpsim(&["run", &vllm("0.18.1")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("vLLM adds it in 0.19.0"), "{}", o.stderr);
    // families39: vLLM from 0.19.0 is modelled (`families39.rs`).
    let mtp = variant("g4-mtp", |t| {
        format!(
            "{t}\n[speculative]\nalgorithm = \"nextn\"\nnum_steps = 1\ntopk = 1\nnum_draft_tokens = 2\nacceptance = {{ alpha = 0.8 }}\n"
        )
    });
    let o = tpsim(&["run", &mtp]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("Gemma4AssistantForCausalLM"), "{}", o.stderr);
}

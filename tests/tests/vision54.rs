//! vision54 (issue #17): the vision towers of Gemma 4 (`tpsim_model::llm::gemma4_vit`) and Kimi-K3
//! (`llm::kimi_k3_vit`) counted as SGLang shards them, and SGLang's `adjust_mem_fraction_for_vlm`
//! (0.5.9 `server_args.py`, 0.5.19 – 0.5.23 `arg_groups/memory_hook.py`: the default fraction × 0.95 ×
//! clamp(1 − 0.1 × (layers × hidden² / (24 × 1,024²) − 1), 0.8, 1.05)) applied to them now that the
//! towers' `vision_config` is read. Parameters and bytes are integers (no tolerance); fractions are
//! compared within 1e-12 (floating-point products, the engine's own arithmetic in f64).

use crate::common::*;
use tpsim_model::llm::{ModelSpec, Quantization};
use tpsim_model::memory::sglang_vlm_fraction_factor;

const G4: &str = "examples/gemma-4-31b-sglang-rtxpro6000x2.toml";
const G4MOE: &str = "examples/gemma-4-26b-a4b-sglang-rtx5090x4.toml";
const K3: &str = "examples/kimi-k3-sglang-h200x16-2node.toml";

fn preset(name: &str) -> String {
    std::fs::read_to_string(scenario(&format!("models/{name}/config.json"))).unwrap()
}

/// The 31B `example` at SGLang `version`, its model the preset's config without `vision_config` (the
/// checkpoint served without a tower: SGLang returns the fraction unchanged), in a scratch file.
fn text_only(example: &str, version: &str) -> String {
    let dir = scratch(&format!("g4-text-{version}"));
    let mut v: serde_json::Value = serde_json::from_str(&preset("gemma-4-31b-it")).unwrap();
    v.as_object_mut().unwrap().remove("vision_config");
    std::fs::write(dir.join("config.json"), v.to_string()).unwrap();
    let text = std::fs::read_to_string(scenario(example))
        .unwrap()
        .replace("preset = \"gemma-4-31b-it\"", "config = \"config.json\"")
        .replace("\"0.5.23\"", &format!("\"{version}\""));
    std::fs::write(dir.join("s.toml"), text).unwrap();
    dir.join("s.toml").display().to_string()
}

fn spec(text: &str) -> Result<ModelSpec, String> {
    ModelSpec::from_config_json(text, Quantization::bf16()).map_err(|e| e.to_string())
}

/// The Gemma 4 tower (31B and 26B-A4B share it: 27 layers of 1,152, 16 heads and KV heads of 72, MLP
/// 4,304, patch 16, a 2 × 10,240 position table, `standardize`), SGLang 0.5.23 `gemma4_vision.py` /
/// `gemma4_mm.py` sharding (module table of `llm::gemma4_vit`):
/// - a layer: qkv 3 × 1,152 × 1,152 = 3,981,312; o 1,152² = 1,327,104; gate_up 2 × 4,304 × 1,152 =
///   9,916,416; down 4,304 × 1,152 = 4,958,208 (20,183,040 sharded); q/k norms 2 × 72 = 144; four
///   norms 4,608 (replicated) → 20,187,792 at tp 1, × 27 = 545,070,384;
/// - once, replicated: input_proj 768 × 1,152 = 884,736; position table 2 × 10,240 × 1,152 =
///   23,592,960; std_bias / std_scale 2,304; `embed_vision` 1,152 × text hidden (31B 5,376:
///   6,193,152; 26B-A4B 2,816: 3,244,032);
/// - 31B: tp 1 575,743,536; tp 2 27 × (20,183,040 / 2 + 4,752) + 30,673,152 = 303,272,496;
/// - 26B-A4B: tp 1 572,794,416; tp 4 27 × (20,183,040 / 4 + 4,752) + 27,724,032 = 164,087,856.
///
/// The tower alone is 569,550,384 parameters, the model card's "~550M" vision encoder within 3.6 %
/// (the card's totals, 30.7B and 25.2B, are the text decoders' counts: `tests_families30`).
#[test]
fn gemma4_vision_tower_by_hand() {
    let per_layer = 3 * 1_152 * 1_152 + 1_152 * 1_152 + 2 * 4_304 * 1_152 + 4_304 * 1_152;
    assert_eq!(per_layer, 20_183_040_u64);
    let once = 884_736 + 23_592_960 + 2_304_u64;
    assert_eq!(27 * (per_layer + 144 + 4_608) + once, 569_550_384);
    let tower = |t: u64, text: u64| 27 * (per_layer / t + 144 + 4_608) + once + 1_152 * text;
    assert_eq!(
        (tower(1, 5_376), tower(2, 5_376), tower(1, 2_816), tower(4, 2_816)),
        (575_743_536, 303_272_496, 572_794_416, 164_087_856)
    );
    let g31 = spec(&preset("gemma-4-31b-it")).unwrap();
    let g26 = spec(&preset("gemma-4-26b-a4b-it")).unwrap();
    for (s, t, text) in [
        (&g31, 1, 5_376),
        (&g31, 2, 5_376),
        (&g26, 1, 2_816),
        (&g26, 4, 2_816),
    ] {
        assert_eq!(s.weight_breakdown(t).vision, 2 * tower(t as u64, text), "tp {t}");
    }
    let v = g31.vision.expect("the tower");
    assert_eq!(
        (v.layers, v.hidden, v.heads, v.sglang_fraction_dims),
        (27, 1_152, 16, (27, 1_152))
    );
    // tp 8 divides the 16 heads and the 4,304-wide MLP (538 a rank): served.
    assert!(g31.weight_bytes_per_rank(8).0 > 0);
}

/// A `vision_config` that only names its type takes transformers 5.25.0 `Gemma4VisionConfig`'s
/// defaults (16 layers of 768, MLP 3,072, 12 heads and KV heads of 64, no `standardize`), as SGLang's
/// config object does; an activation other than `gelu_pytorch_tanh` is refused with SGLang's text.
#[test]
fn gemma4_vision_defaults_and_refusal() {
    let mut v: serde_json::Value = serde_json::from_str(&preset("gemma-4-31b-it")).unwrap();
    v["vision_config"] = serde_json::json!({"model_type": "gemma4_vision"});
    let s = spec(&v.to_string()).unwrap();
    // A layer 4 × 768² + 3 × 768 × 3,072 = 9,437,184, norms 2 × 64 + 4 × 768 = 3,200; input_proj
    // 768 × 768 = 589,824, table 2 × 10,240 × 768 = 15,728,640, `embed_vision` 768 × 5,376 = 4,128,768.
    let tower = 16 * (9_437_184 + 3_200) + 589_824 + 15_728_640 + 4_128_768_u64;
    assert_eq!(tower, 171_493_376);
    assert_eq!(s.weight_breakdown(1).vision, 2 * tower);
    assert_eq!(s.vision.unwrap().sglang_fraction_dims, (16, 768));
    v["vision_config"]["hidden_activation"] = serde_json::json!("gelu");
    let e = spec(&v.to_string()).unwrap_err();
    assert!(
        e.contains("vision_config.hidden_activation") && e.contains("Gemma4VisionMLP expects"),
        "{e}"
    );
}

/// Kimi-K3's MoonViT3d tower and projector (SGLang 0.5.17 / 0.5.23 `kimi_k3_vl.py`: plain
/// `nn.Linear` / `nn.RMSNorm` / `nn.Parameter`, whole on every rank): 27 × (norms 2 × 1,024, wqkv
/// 4,608 × 1,024, wo 1,024 × 1,536, fc0 / fc1 2 × 4,096 × 1,024) + final norm 1,024 + position grid
/// 64 × 64 × 1,024 + patch 1,024 × 3 × 14² + projector 4,096² + 7,168 × 4,096 + post-norm 7,168 =
/// 447,358,976 (the published tensor list's, `families32`), 894,717,952 B at any tp. Its 12 heads do
/// not divide tp 16 and need not: the tower is replicated.
#[test]
fn kimi_k3_vision_tower_by_hand() {
    let tower = 27 * (2 * 1_024 + 4_608 * 1_024 + 1_024 * 1_536 + 2 * 4_096 * 1_024)
        + 1_024
        + 64 * 64 * 1_024
        + 1_024 * 3 * 14 * 14
        + 4_096 * 4_096
        + 7_168 * 4_096
        + 7_168_u64;
    assert_eq!(tower, 447_358_976);
    let s = spec(&preset("kimi-k3")).unwrap();
    for t in [1, 8, 16] {
        assert_eq!(s.weight_breakdown(t).vision, 894_717_952, "tp {t}");
    }
    assert_eq!(s.vision.unwrap().sglang_fraction_dims, (27, 1_024));
    let mut v: serde_json::Value = serde_json::from_str(&preset("kimi-k3")).unwrap();
    v["vision_config"]["norm_type"] = serde_json::json!("layernorm");
    let e = spec(&v.to_string()).unwrap_err();
    assert!(
        e.contains("vision_config.norm_type") && e.contains("MoonViT3d"),
        "{e}"
    );
}

/// `adjust_mem_fraction_for_vlm`'s factor by hand: Gemma 4 27 × 1,152² / (24 × 1,024²) =
/// 35,831,808 / 25,165,824 = 1.423828125 → 0.95 × (1 − 0.0423828125) = 0.909736328125; Kimi-K3
/// (its config class aliases `num_hidden_layers` / `hidden_size` to the `vt_` keys) 27 / 24 = 1.125 →
/// 0.95 × 0.9875 = 0.938125; Gemma 4's class defaults 16 × 768² → 0.375 → 1.0625 clamped to 1.05 →
/// 0.9975.
#[test]
fn vlm_fraction_factors_by_hand() {
    assert!((sglang_vlm_fraction_factor(27, 1_152) - 0.909_736_328_125).abs() < 1e-12);
    assert!((sglang_vlm_fraction_factor(27, 1_024) - 0.938_125).abs() < 1e-12);
    assert!((sglang_vlm_fraction_factor(16, 768) - 0.9975).abs() < 1e-12);
}

/// The 31B example (0.5.23, 2× RTX PRO 6000, tp 2) before → after: SGLang's default 0.861 (the same
/// reserve as before: `memory_hook.py` computes it first) × 0.909736328125 ≈ 0.7832830; the
/// KV budget rest = available − total × (1 − f) (SGLang `profile_max_num_token`), and the hybrid SWA
/// split of `families30` over it. Against the same checkpoint without `vision_config` (SGLang then
/// returns the fraction unchanged and builds no tower, tpsim counts none): 0.861, and 149,399 full
/// tokens then (126,397 now, both from `tpsim memory`: −15.4 %), the weights 606,544,992 B apart.
#[test]
fn gemma4_31b_pool_before_after() {
    let run = run_json(&scenario(G4));
    let m = &run["memory"];
    let fr = f(&m["mem_fraction_static"]);
    assert!((fr - 0.861 * 0.909_736_328_125).abs() < 1e-12, "{fr}");
    assert!(m["mem_fraction_static_default"].as_bool().unwrap());
    assert!((f(&m["mem_fraction_vlm_factor"]) - 0.909_736_328_125).abs() < 1e-12);
    let rest = f(&m["available_gib"]) - f(&m["total_gib"]) * (1.0 - fr);
    assert!((rest - f(&m["rest_gib"])).abs() < 1e-9, "{rest}");
    let t = (rest * (1u64 << 30) as f64 / 450_560.0).floor() as u64;
    let full = (t as f64 * 450_560.0 / (40_960.0 + 0.8 * 409_600.0)).trunc() as u64;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), full);
    assert_eq!(full, 126_397);

    let before = run_json(&text_only(G4, "0.5.23"));
    let b = &before["memory"];
    assert!((f(&b["mem_fraction_static"]) - 0.861).abs() < 1e-12);
    assert!(b["mem_fraction_vlm_factor"].is_null());
    assert_eq!(b["kv_tokens"].as_u64().unwrap(), 149_399);
    assert_eq!(
        entry_bytes(&run, "target weights") - entry_bytes(&before, "target weights"),
        2 * 303_272_496
    );
}

/// The 26B-A4B example (4× RTX 5090, tp 4, SGLang 0.5.23): 0.770 (sglmem54: 0.5.20+'s 20 – 35 GiB bucket;
/// 0.869 before) × 0.909736328125 = 0.70049697265625 (KV tokens 173,778 full, from `tpsim memory`); the Kimi-K3
/// example (2 × 8 H200, tp 16): SGLang's 0.89 × 0.938125 = 0.83493125 (before: 0.89; KV tokens
/// 441,657 → 267,643, KDA state slots 391 → 236, from `tpsim memory`).
/// A fraction the user sets is left as given (the rule is inside SGLang's default block).
#[test]
fn vlm_fraction_on_the_other_examples() {
    let run = run_json(&scenario(G4MOE));
    let fr = f(&run["memory"]["mem_fraction_static"]);
    assert!((fr - 0.770 * 0.909_736_328_125).abs() < 1e-12, "{fr}");
    let run = run_json(&scenario(K3));
    let fr = f(&run["memory"]["mem_fraction_static"]);
    assert!((fr - 0.89 * 0.938_125).abs() < 1e-12, "{fr}");
    let given = edited_variant(G4, "g4-given", |t| {
        t.replace("tp = 2\n", "tp = 2\nmem_fraction_static = 0.8\n")
    });
    let run = run_json(&given);
    assert!((f(&run["memory"]["mem_fraction_static"]) - 0.8).abs() < 1e-12);
}

/// By release: Gemma 4's first SGLang release 0.5.11 (`server_args.py` `adjust_mem_fraction_for_vlm`)
/// and 0.5.17 (the same, with the PD-decode condition) lower their own default by the same
/// 0.909736328125 as 0.5.23's `memory_hook.py` does: the 31B example's fraction over the same
/// scenario's without `vision_config` (tolerance 1e-12).
#[test]
fn gemma4_fraction_factor_by_release() {
    for version in ["0.5.11", "0.5.17", "0.5.23"] {
        let with = edited_variant(G4, &format!("g4-{version}"), |t| {
            t.replace("\"0.5.23\"", &format!("\"{version}\""))
        });
        let fr = |file: &str| {
            let run = run_json(file);
            assert_eq!(run["verdict"], "ok", "{version}");
            f(&run["memory"]["mem_fraction_static"])
        };
        let ratio = fr(&with) / fr(&text_only(G4, version));
        assert!((ratio - 0.909_736_328_125).abs() < 1e-12, "{version}: {ratio}");
    }
}

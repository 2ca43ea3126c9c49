//! presets58 (issue #17): presets and aliases for models users launched (cmdsurvey57 rows 107, 108,
//! 117, 127) and the per-projection quantization override (quant.toml `[projections]`) that
//! nvidia/DeepSeek-V3.1-NVFP4's exclude list needs (q_a / q_b / kv_a / kv_b bf16, o_proj NVFP4).
//! Configs: byte copies named in each preset's README (ai-dynamo/aiconfigurator 095f58a5,
//! sagui-nlp/nanoGPT-moe 2675cf4c). Weights, parameters and FLOPs by hand: exact integers, no tolerance.

use crate::cmdsurvey55::{options, row};
use crate::common::*;
use std::path::Path;
use tpsim::import_command_build::{self as build, HardwareFrom, Options};
use tpsim::scenario::Scenario;
use tpsim_model::llm::quant_hf::from_checkpoint;
use tpsim_model::llm::{ModelSpec, Quantization, WeightDtype, WeightFormat};

/// `preset` under SGLang at `tp` on the hardware preset `hw`, loaded.
fn load(name: &str, preset: &str, tp: u32, hw: &str) -> Scenario {
    let p = scenario_for(name, preset, "sglang", tp, hw);
    tpsim::scenario::load(Path::new(&p)).unwrap_or_else(|e| panic!("{preset}: {e}"))
}

fn json(rel: &str) -> serde_json::Value {
    let p = scenario(rel);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{p}: {e}"))
}

const DSV31: &str = "models/deepseek-v3.1-nvfp4";

/// NVFP4 bytes of one rows × cols tensor: 0.5 B an element, one fp8 scale per 16 inputs, two fp32
/// per-tensor scales (model/src/llm/quant.rs `tensor_bytes`; ModelOpt's NVFP4 layout).
fn nv(rows: u64, cols: u64) -> u64 {
    rows * cols / 2 + rows * cols.div_ceil(16) + 8
}

/// nvidia/DeepSeek-V3.1-NVFP4 (`deepseek-v3.1-nvfp4`) at tp 8, one rank, by hand. DeepSeek-V3's shapes
/// (hidden 7,168; 128 heads → 16 a rank; q_lora 1,536, kv_lora 512, rope 64, nope 128, v 128; 3 dense
/// layers of 18,432 → 2,304 a rank; 58 MoE layers of 256 experts × 2,048 → 256 a rank plus one shared
/// expert; vocab 129,280 → 16,160 rows a rank). hf_quant_config.json keeps q_a / kv_a (fused, replicated),
/// q_b and kv_b bf16; o_proj, the MLPs and experts NVFP4; lm_head bf16.
/// - attention: fused q_a + kv_a 2,112 × 7,168 × 2 = 30,277,632; q_b 3,072 × 1,536 × 2 = 9,437,184;
///   kv_b 4,096 × 512 × 2 = 4,194,304; the absorbed w_kc and w_vc 2,048 × 512 × 2 = 2,097,152 each;
///   o_proj nv(7,168, 2,048) = 7,340,032 + 917,504 + 8 = 8,257,544 → 56,360,968; norms: q_a and kv_a
///   (1,536 + 512) × 2 = 4,096 and the layer's two 2 × 7,168 × 2 = 28,672;
/// - dense MLP: nv(4,608, 7,168) + nv(7,168, 2,304) = 18,579,464 + 9,289,736 = 27,869,200;
/// - MoE: 257 × (nv(512, 7,168) + nv(7,168, 256)) = 257 × 3,096,592 (shared + 256 routed), router
///   256 × 7,168 × 2 = 3,670,016, e_score_correction_bias 256 × 4 = 1,024;
/// - embedding and LM head 2 × 16,160 × 7,168 × 2 = 463,339,520; final norm 14,336.
///
/// Dense layer 56,360,968 + 32,768 + 27,869,200 = 84,262,936; MoE layer 56,360,968 + 32,768 +
/// 795,824,144 + 3,671,040 = 855,888,920. Total 3 × 84,262,936 + 58 × 855,888,920 + 463,339,520 +
/// 14,336 = **50,357,700,024 B** (46.90 GiB) a rank. Kept whole in bf16, the attention's o_proj would
/// weigh 7,168 × 2,048 × 2 = 29,360,128 (61 × 21,102,584 = 1,287,257,624 B more a rank); the old
/// ignore-list reader refused the checkpoint ("kept unquantized in part"). KV cell: fp8 e4m3
/// (`kv_cache_quant_algo` FP8), 61 × (512 + 64) × 1 B = 35,136.
#[test]
fn deepseek_v3_1_nvfp4_weights_tp8_by_hand() {
    let attn = 30_277_632u64 + 9_437_184 + 4_194_304 + 2 * 2_097_152 + nv(7_168, 2_048);
    assert_eq!(nv(7_168, 2_048), 8_257_544);
    assert_eq!(attn, 56_360_968);
    let norms = 4_096 + 28_672;
    let dense = nv(4_608, 7_168) + nv(7_168, 2_304);
    assert_eq!(dense, 27_869_200);
    let expert = nv(512, 7_168) + nv(7_168, 256);
    assert_eq!(expert, 3_096_592);
    let dense_layer = attn + norms + dense;
    let moe_layer = attn + norms + 257 * expert + 3_670_016 + 1_024;
    assert_eq!((dense_layer, moe_layer), (84_262_936, 855_888_920));
    let total = 3 * dense_layer + 58 * moe_layer + 463_339_520 + 14_336;
    assert_eq!(total, 50_357_700_024);
    let s = load(
        "p58-dsv31-tp8",
        "deepseek-v3.1-nvfp4",
        8,
        "rtx-pro-6000-8x-1switch",
    );
    assert_eq!(s.model.weight_bytes_per_rank(8).0, total);
    assert_eq!(s.model.kv_cell_bytes(8), 35_136);
}

/// The quantization read from the checkpoint's hf_quant_config.json is the split the README states:
/// NVFP4 by default (o_proj, MLPs, experts), q_a / kv_a (`mla_down`), q_b and kv_b bf16 (the
/// `[projections]` overrides), the MTP layer bf16 (`model.layers.61*`), KV fp8 e4m3; and the same
/// description written out in quant.toml syntax gives the same bytes.
#[test]
fn deepseek_v3_1_nvfp4_split_is_read_from_the_exclude_list() {
    let q = from_checkpoint(
        &json(&format!("{DSV31}/config.json")),
        Some(&json(&format!("{DSV31}/hf_quant_config.json"))),
    )
    .expect("reads");
    let bf16 = WeightFormat::plain(WeightDtype::Bf16);
    assert_eq!(q.weights, WeightFormat::plain(WeightDtype::Nvfp4));
    assert_eq!((q.experts, q.dense_mlp, q.shared_experts), (None, None, None));
    assert_eq!(q.mla_down, Some(bf16));
    assert_eq!(q.projections.q_b_proj, Some(bf16));
    assert_eq!(q.projections.kv_b_proj, Some(bf16));
    assert_eq!((q.projections.o_proj, q.projections.qkv_proj), (None, None));
    assert_eq!(q.mtp, Some(bf16));
    assert_eq!(q.kv_cache_dtype, tpsim_model::llm::KvCacheDtype::Fp8E4m3);
    let written: Quantization = toml::from_str(
        "dtype = \"nvfp4\"\nkv_cache_dtype = \"fp8_e4m3\"\nmla_down = { dtype = \"bf16\" }\nmtp = { dtype = \"bf16\" }\n\
         [projections]\nq_b_proj = { dtype = \"bf16\" }\nkv_b_proj = { dtype = \"bf16\" }\n",
    )
    .expect("quant.toml syntax");
    assert_eq!(written, q);
    let cfg = std::fs::read_to_string(scenario(&format!("{DSV31}/config.json"))).expect("config");
    let m = ModelSpec::from_config_json(&cfg, written).expect("lowers");
    assert_eq!(m.weight_bytes_per_rank(8).0, 50_357_700_024);
    // An unknown projection key is refused by name.
    let e = toml::from_str::<Quantization>(
        "dtype = \"nvfp4\"\n[projections]\nqkv_a_proj = { dtype = \"bf16\" }\n",
    )
    .expect_err("unknown key");
    assert!(e.to_string().contains("qkv_a_proj"), "{e}");
}

/// The GEMM cost reads the per-projection formats: at tp 8, of a layer's attention GEMMs read at
/// decode only o_proj is NVFP4, so over 4 tokens the fp4 FLOPs are 2 × 7,168 × 2,048 × 4 =
/// 117,440,512 (bf16 q_a / kv_a and q_b count none), and the layer's decode attention reads
/// 30,277,632 (q_a + kv_a) + 9,437,184 (q_b) + 2 × 2,097,152 (w_kc, w_vc) + 8,257,544 (o_proj) +
/// 4,096 + 28,672 (norms) = 52,199,432 B (kv_b is not read by absorbed MLA). With the attention all
/// NVFP4 (no overrides) fp4 FLOPs would also count q_a / kv_a (2,112 × 7,168) and q_b (3,072 × 1,536):
/// 2 × (15,138,816 + 4,718,592 + 14,680,064) × 4 = 276,299,776.
#[test]
// Exact equality is the point: the FLOP counts are integers well inside f64's exact range.
#[allow(clippy::float_cmp)]
fn decode_gemms_cost_each_projection_in_its_format() {
    let s = load(
        "p58-dsv31-gemm",
        "deepseek-v3.1-nvfp4",
        8,
        "rtx-pro-6000-8x-1switch",
    );
    let l = s.model.forward_pass(8, 4).layers[5];
    assert_eq!(l.attn_low_flops.fp4, 117_440_512.0);
    assert_eq!(l.attn_weight_bytes.0, 52_199_432);
    let mut all = s.model.quantization;
    all.mla_down = None;
    all.projections = tpsim_model::llm::ProjectionFormats::default();
    let cfg = std::fs::read_to_string(scenario(&format!("{DSV31}/config.json"))).expect("config");
    let m = ModelSpec::from_config_json(&cfg, all).expect("lowers");
    assert_eq!(m.forward_pass(8, 4).layers[5].attn_low_flops.fp4, 276_299_776.0);
}

/// An exclude list that keeps one shard of a fused GEMM (q_a_proj without kv_a_proj_with_mqa) is
/// refused with vLLM 0.11.0's text (`quant_utils.py` `is_layer_skipped`); one that keeps other
/// projections in different layers is refused (one format a projection).
#[test]
fn a_partly_kept_fused_projection_is_refused() {
    let cfg = json(&format!("{DSV31}/config.json"));
    let hf = |list: Vec<String>| serde_json::json!({"quantization": {"quant_algo": "NVFP4", "exclude_modules": list}});
    let layers = |m: &str| {
        (0..61)
            .map(|i| format!("model.layers.{i}.self_attn.{m}"))
            .collect::<Vec<_>>()
    };
    let e = from_checkpoint(&cfg, Some(&hf(layers("q_a_proj")))).expect_err("fused in part");
    assert!(
        e.to_string().contains(
            "Detected some but not all shards of model.layers.0.self_attn.fused_qkv_a_proj_with_mqa are quantized"
        ),
        "{e}"
    );
    let mut uneven = layers("o_proj");
    uneven.pop();
    let e = from_checkpoint(&cfg, Some(&hf(uneven))).expect_err("uneven");
    assert!(
        e.to_string()
            .contains("kept unquantized in part in 60 of 61 layers"),
        "{e}"
    );
    // o_proj alone kept in every layer: the attention NVFP4 but o_proj bf16.
    let q = from_checkpoint(&cfg, Some(&hf(layers("o_proj")))).expect("reads");
    assert_eq!(q.projections.o_proj, Some(WeightFormat::plain(WeightDtype::Bf16)));
    assert_eq!((q.mla_down, q.projections.q_b_proj), (None, None));
}

/// Qwen/Qwen3-Coder-30B-A3B-Instruct (`qwen3-coder-30b-a3b-instruct`), parameters by hand from its
/// config.json: a layer q 4,096 × 2,048 = 8,388,608, k and v 2 × 512 × 2,048 = 2,097,152, o 2,048 ×
/// 4,096 = 8,388,608, q/k norms 256, experts 128 × 3 × 768 × 2,048 = 603,979,776, router 128 × 2,048 =
/// 262,144, norms 4,096 → 623,120,640, × 48 = 29,909,790,720; embedding and head 2 × 151,936 × 2,048 =
/// 622,329,856; final norm 2,048 → **30,532,122,624** (the card's "30.5B"), × 2 B at tp 1. At tp 8: q
/// and o 1,048,576 each, one replicated KV head 2 × 128 × 2,048 = 524,288, norms 256 + 4,096, experts
/// 128 × 3 × 96 × 2,048 = 75,497,472, router 262,144 → 78,385,408 a layer, × 48 = 3,762,499,584;
/// embedding and head 2 × 18,992 × 2,048 = 77,791,232 (vocab padded to 64, / 8); final norm 2,048 →
/// 3,840,292,864 × 2 B = 7,680,585,728 — `qwen3-30b-a3b`'s bytes (the same shapes). KV cell at tp 8:
/// 48 × 2 × 128 × 2 B = 24,576.
#[test]
fn qwen3_coder_30b_a3b_instruct_parameters_by_hand() {
    let layer = 8_388_608u64 + 2_097_152 + 8_388_608 + 256 + 603_979_776 + 262_144 + 4_096;
    assert_eq!(layer, 623_120_640);
    let params = 48 * layer + 622_329_856 + 2_048;
    assert_eq!(params, 30_532_122_624);
    let s1 = load("p58-qc30-tp1", "qwen3-coder-30b-a3b-instruct", 1, "h100-sxm-1x");
    assert_eq!(s1.model.weight_bytes_per_rank(1).0, 2 * params);
    let per_rank = 48 * 78_385_408u64 + 77_791_232 + 2_048;
    assert_eq!(per_rank, 3_840_292_864);
    let s8 = load(
        "p58-qc30-tp8",
        "qwen3-coder-30b-a3b-instruct",
        8,
        "rtx-pro-6000-8x-1switch",
    );
    assert_eq!(s8.model.weight_bytes_per_rank(8).0, 2 * per_rank);
    assert_eq!(s8.model.kv_cell_bytes(8), 24_576);
    assert_eq!(
        preset_spec("qwen3-30b-a3b").weight_bytes_per_rank(8).0,
        2 * per_rank
    );
    assert_eq!(s8.model.context_len, Some(262_144));
}

/// The new ids and aliases resolve (hf-ids.toml `[ids]`, `[aliases]`).
#[test]
fn new_ids_and_aliases_resolve() {
    for (id, preset) in [
        ("nvidia/DeepSeek-V3.1-NVFP4", "deepseek-v3.1-nvfp4"),
        (
            "Qwen/Qwen3-Coder-30B-A3B-Instruct",
            "qwen3-coder-30b-a3b-instruct",
        ),
        ("MiniMaxAI/MiniMax-M2", "minimax-m2.5"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek-v3"),
    ] {
        assert_eq!(build::preset_of(id).as_deref(), Ok(preset), "{id}");
    }
}

/// Survey rows that now import and start: 107 (SGLang, MiniMaxAI/MiniMax-M2, tp 4) and 108 (vLLM, the
/// same, tp 4 with EP) on 4x RTX PRO 6000 as `minimax-m2.5`; 127 (SGLang 0.5.8,
/// `/deepseek/deepseek-ai/DeepSeek-V3.1/`, tp 8 on 8x H20) as `deepseek-v3`, each with the alias note.
/// Row 117 (`--model-path /data/DeepSeek-V3.1-NVFP4/main`: the path ends in `main`) stays refused,
/// and imports with `--model-preset deepseek-v3.1-nvfp4` (SGLang, `--quantization modelopt_fp4`).
#[test]
fn survey_rows_that_now_import_and_start() {
    for (n, preset, id) in [
        (107, "minimax-m2.5", "MiniMaxAI/MiniMax-M2"),
        (108, "minimax-m2.5", "MiniMaxAI/MiniMax-M2"),
        (127, "deepseek-v3", "deepseek-ai/DeepSeek-V3.1"),
    ] {
        let r = row(n);
        assert_eq!(r.class, "ok", "row {n}");
        let i = build::import(&r.command, &options(&r)).unwrap_or_else(|e| panic!("row {n}: {e}"));
        assert!(
            i.text.contains(&format!("preset = \"{preset}\"")),
            "row {n}: {}",
            i.text
        );
        assert!(
            i.notes
                .iter()
                .any(|x| x.contains(&format!("`{id}` has the same config.json"))),
            "{:?}",
            i.notes
        );
        let f = scratch(&format!("p58-row{n}")).join("s.toml");
        std::fs::write(&f, &i.text).expect("write");
        let o = tpsim(&["memory", f.to_str().expect("utf-8")]);
        assert!(
            o.stdout.contains("Verdict: starts"),
            "row {n}: {}{}",
            o.stdout,
            o.stderr
        );
    }
    let r = row(117);
    assert_eq!(r.class, "refused: user's path");
    assert!(build::import(&r.command, &options(&r)).is_err());
    let o = Options {
        hardware: HardwareFrom::Preset(r.hardware.clone()),
        engine_version: None,
        model_preset: Some("deepseek-v3.1-nvfp4".into()),
        model_config: None,
        acceptance: None,
        output: None,
    };
    let i = build::import(&r.command, &o).expect("imports with the preset");
    assert!(i.text.contains("quantization = \"modelopt_fp4\""), "{}", i.text);
    let f = scratch("p58-row117").join("s.toml");
    std::fs::write(&f, &i.text).expect("write");
    let out = tpsim(&["memory", f.to_str().expect("utf-8")]);
    assert!(
        out.stdout.contains("Verdict: starts"),
        "{}{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stdout.contains("tokens of 35136 B"), "{}", out.stdout);
}

/// A command that sets the KV dtype writes the preset's quantization out as `[model.quantization]`
/// (`import_command_build::preset_quant`): the `[projections]` split is written with it, so the
/// scenario weighs what the preset weighs (50,357,700,024 B a rank at tp 8, the test above).
#[test]
fn an_imported_kv_dtype_keeps_the_projection_split() {
    let c = "python -m sglang.launch_server --model-path nvidia/DeepSeek-V3.1-NVFP4 --tp 8 \
             --kv-cache-dtype fp8_e4m3 --quantization modelopt_fp4";
    let o = Options {
        hardware: HardwareFrom::Preset("rtx-pro-6000-8x-1switch".into()),
        engine_version: None,
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    };
    let i = build::import(c, &o).expect("imports");
    assert!(
        i.text.contains("[model.quantization.projections.q_b_proj]"),
        "{}",
        i.text
    );
    assert!(
        i.text.contains("[model.quantization.projections.kv_b_proj]"),
        "{}",
        i.text
    );
    assert!(i.text.contains("[model.quantization.mla_down]"), "{}", i.text);
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml")).expect("loads");
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 50_357_700_024);
}

/// A `[projections]` key the architecture's attention does not build is refused, naming the key,
/// not dropped: Qwen3-8B is GQA (`qkv_proj`, `o_proj`), so `q_b_proj` (MLA's query up-projection)
/// has nothing to apply to. `o_proj` and `qkv_proj` on the same model are taken: the weights a rank
/// fall by the projection's bytes at fp8 (by hand below).
#[test]
fn a_projection_the_attention_lacks_is_refused() {
    let with = |name: &str, key: &str| {
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"qwen3-8b\"\n\
             [model.quantization]\ndtype = \"bf16\"\n[model.quantization.projections]\n\
             {key}\n[engine]\nname = \"sglang\"\nversion = \"0.5.8\"\ntp = 1\n"
        );
        let p = scratch(name).join("s.toml");
        std::fs::write(&p, text).expect("write scenario");
        p.display().to_string()
    };
    let o = tpsim(&["memory", &with("p58-qb", "q_b_proj = { dtype = \"fp8\" }")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("key `model.quantization.projections.q_b_proj`")
            && o.stderr.contains("has no `q_b_proj` projection to store apart"),
        "{}",
        o.stderr
    );
    // `tpsim memory --json`'s "target weights" (MiB) with one override, or none.
    let weights = |name: &str, key: &str| {
        let o = tpsim(&["memory", &with(name, key), "--json"]);
        let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_else(|_| panic!("{}", o.stderr));
        let e = j["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "target weights");
        f(&e.unwrap()["mib"]) * (1u64 << 20) as f64
    };
    // bf16 everywhere: `qkv_proj = bf16` is the default restated.
    let bf16 = weights("p58-bf16", "qkv_proj = { dtype = \"bf16\" }");
    let by = |key: &str| bf16 - weights(&format!("p58-{key}"), &format!("{key} = {{ dtype = \"fp8\" }}"));
    // Qwen3-8B (config.json: hidden 4,096, 32 heads and 8 KV heads of 128, 36 layers): o_proj
    // 4,096 × 4,096 × 36 = 603,979,776 B saved at 1 B an element (less 36 per-tensor fp32 scales,
    // 144 B); qkv_proj 4,096 × (4,096 + 2 × 1,024) × 36 = 905,969,664 B (less 144 B). To 1 KiB.
    assert!(
        (by("o_proj") - (603_979_776.0 - 144.0)).abs() < 1024.0,
        "{}",
        by("o_proj")
    );
    assert!(
        (by("qkv_proj") - (905_969_664.0 - 144.0)).abs() < 1024.0,
        "{}",
        by("qkv_proj")
    );
}

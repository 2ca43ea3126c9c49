//! dsv4_64 (issue #17): DeepSeek-V4 under SGLang at a tp the fp8 block does not divide. SGLang
//! 0.5.12 – 0.5.23 refuse a checkpoint with `weight_block_size` whose expert width over tp is not a
//! multiple of its block (`check_quantized_moe_compatibility`) unless `SGLANG_SHARED_EXPERT_TP1` is
//! set; with it the shared expert is built at tp 1 (whole on every rank, its output added after the
//! routed experts' allreduce) and the routed experts' own MoE method decides by backend (Marlin
//! checks no width, the FlashInfer CUTLASS MXFP4 method and `Fp8MoEMethod` want 128). Survey row 186
//! (sglang PR 23933: DeepSeek-V4-Pro, tp 16, the variable, `--moe-runner-backend marlin`) is no
//! longer refused at tp 16.

use crate::cmdsurvey55::{options, row};
use crate::common::*;
use tpsim::import_command_build as build;
use tpsim_model::llm::deepseek_v4::Geometry;
use tpsim_model::llm::deepseek_v4_weights::{ExpertFormat, sglang_layer_bytes};
use tpsim_model::llm::{ModelConfig, WeightDtype, WeightFormat};

/// `deepseek-v4-pro` on two 8× H200 boxes (`h200-16x-2node-ib`, SM 9.0) under SGLang `version` at
/// tp 16, `extra` added to `[engine]` (an `[engine.env]` table may follow it).
fn pro_tp16(name: &str, version: &str, extra: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h200-16x-2node-ib\"\n[model]\npreset = \"deepseek-v4-pro\"\n\
         [engine]\nname = \"sglang\"\nversion = \"{version}\"\ntp = 16\n{extra}\n[workload]\n\
         concurrency = 8\nprompt_len = 1024\noutput_len = 64\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

const TP1: &str = "[engine.env]\nSGLANG_SHARED_EXPERT_TP1 = \"1\"";

fn pro() -> Geometry {
    let text = std::fs::read_to_string(scenario("models/deepseek-v4-pro/config.json")).expect("config");
    Geometry::read(&ModelConfig::from_json(&text).expect("parses")).expect("reads")
}

/// Without the variable SGLang 0.5.12's ModelRunner refuses Pro at tp 16 before building it:
/// moe_intermediate_size 3,072 / moe_tp_size 16 = 192, 192 % weight_block_size_n 128 = 64 ≠ 0
/// (`model_runner.py` `check_quantized_moe_compatibility`, its ValueError text). At tp 8: 384 % 128 =
/// 0, no refusal from it. Exit 2, the key named.
#[test]
fn without_the_variable_sglang_refuses_tp16_with_its_text() {
    let f = pro_tp16("dsv4_64-no-var", "0.5.12", "moe_backend = \"marlin\"");
    let o = tpsim(&["memory", &f]);
    assert_eq!(o.code, 2, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains(
            "For quantized MoE models, please make sure (moe_intermediate_size=3072 / moe_tp_size=16) % \
             weight_block_size_n=128 == 0 where moe_tp_size is equal to tp_size (16) divided by ep_size (1)."
        ),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("engine.tp"), "{}", o.stderr);
    // The same rule on the model alone, its weights as config.json's `quantization_config` states
    // them (fp8, `weight_block_size` [128, 128]).
    let mut spec = preset_spec("deepseek-v4-pro");
    spec.quantization.weights = WeightFormat {
        block_size: Some([128, 128]),
        ..WeightFormat::plain(WeightDtype::Fp8)
    };
    assert!(spec.validate_parallel(8, 1).is_ok());
    assert!(spec.validate_parallel(16, 1).is_err());
    spec.deepseek_v4.as_mut().expect("V4").shared_expert_tp1 = true;
    assert!(spec.validate_parallel(16, 1).is_ok());
}

/// With `SGLANG_SHARED_EXPERT_TP1=1` and `--moe-runner-backend marlin` (row 186's flags), SGLang builds
/// the fp4 routed experts with `Mxfp4MarlinMoEMethod`, which checks no width (192 a rank is 6 fp4
/// blocks of 32), and the shared expert whole: the scenario loads and `tpsim memory` gives a verdict.
#[test]
fn with_the_variable_and_marlin_pro_loads_at_tp16() {
    let f = pro_tp16(
        "dsv4_64-marlin",
        "0.5.12",
        &format!("moe_backend = \"marlin\"\n{TP1}"),
    );
    let o = tpsim(&["memory", &f]);
    assert!(o.code == 0 || o.code == 3, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("Verdict:"), "{}", o.stdout);
}

/// With the variable but the default runner, SGLang 0.5.12 on SM 9.0 (no model override before 0.5.15)
/// builds the fp4 experts with `Fp8MoEMethod`, whose block check refuses 192 a rank (192 % 128 = 64):
/// "The output_size of gate's and up's weight = 192 is not divisible by weight quantization block_n =
/// 128." From 0.5.19 the override picks `flashinfer_mxfp4` on SM 9.0, whose CUTLASS method wants 128
/// too: "(got hidden=7168, intermediate=192)".
#[test]
fn with_the_variable_the_other_runners_refuse_192_a_rank() {
    let f = pro_tp16("dsv4_64-auto", "0.5.12", TP1);
    let o = tpsim(&["memory", &f]);
    assert_eq!(o.code, 2, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains(
            "The output_size of gate's and up's weight = 192 is not divisible by weight quantization block_n = 128."
        ),
        "{}",
        o.stderr
    );
    let f = pro_tp16("dsv4_64-fi", "0.5.19", TP1);
    let o = tpsim(&["memory", &f]);
    assert_eq!(o.code, 2, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains(
            "Mxfp4FlashinferCutlassMoEMethod requires hidden_size and intermediate_size_per_partition to be \
             multiples of 128 (got hidden=7168, intermediate=192)."
        ),
        "{}",
        o.stderr
    );
}

/// Parameters a rank at tp 16 (presets63's layout, SGLang `sglang_rank_params`), Pro:
/// - split: wq_b, wo_a, wo_b 285,212,672 + 384 routed experts × 66,060,288 = 25,367,150,592 →
///   25,652,363,264 / 16 = 1,603,272,704; replicated: attention 14,682,240, norms / mHC / router
///   4,143,158, the shared expert whole 66,060,288 → a layer 1,688,158,390;
/// - without the variable the shared expert is split too: (285,212,672 + 385 × 66,060,288) / 16 =
///   1,607,401,472 → 1,626,226,870 a layer; the difference 66,060,288 × 15 / 16 = 61,931,520;
/// - top at tp 16: 2 × 129,280 / 16 × 7,168 + 7,168 + 114,693 = 115,956,741.
///
/// 61 × 1,688,158,390 + 58 × 384 + 30 × 31,397,504 + 31 × 7,406,080 + 115,956,741 = 104,265,154,403;
/// without: 61 × 61,931,520 = 3,777,822,720 fewer, 100,487,331,683. Exact integers.
#[test]
fn a_pro_rank_at_tp16_holds_the_whole_shared_expert() {
    let mut g = pro();
    let rest = 58 * 384 + 30 * 31_397_504u64 + 31 * 7_406_080 + 115_956_741;
    assert_eq!(
        g.sglang_rank_params(16).expect("tp 16"),
        61 * 1_626_226_870 + rest
    );
    assert_eq!(61 * 1_626_226_870 + rest, 100_487_331_683);
    g.shared_expert_tp1 = true;
    assert_eq!(
        g.sglang_rank_params(16).expect("tp 16"),
        61 * 1_688_158_390 + rest
    );
    assert_eq!(61 * 1_688_158_390 + rest, 104_265_154_403);
}

/// Bytes of the shared expert a layer (block fp8, 1 B an element and a float32 scale a 128 × 128
/// block, rounded up): whole, gate_up 6,144 × 7,168 = 44,040,192 + 48 × 56 × 4 = 10,752 and down
/// 7,168 × 3,072 = 22,020,096 + 56 × 24 × 4 = 5,376 → 66,076,416; split at tp 16, gate_up 384 × 7,168 =
/// 2,752,512 + 3 × 56 × 4 = 672 and down 7,168 × 192 = 1,376,256 + 56 × 2 × 4 = 448 → 4,129,888. The
/// decode step reads those bytes and 16× the shared expert's FLOPs (2 × 3 × 7,168 × 3,072 =
/// 132,120,576 a token whole). Exact integers.
#[test]
fn the_shared_expert_bytes_and_flops_a_rank() {
    let mut g = pro();
    let split = sglang_layer_bytes(&g, 16, 5, 4, ExpertFormat::sglang_cuda(&g));
    assert_eq!(split.shared, 4_129_888);
    g.shared_expert_tp1 = true;
    let whole = sglang_layer_bytes(&g, 16, 5, 4, ExpertFormat::sglang_cuda(&g));
    assert_eq!(whole.shared, 66_076_416);
    assert_eq!(whole.expert, split.expert);
    assert_eq!(whole.attention, split.attention);
    // The decode step at tp 16, 8 tokens: shared FLOPs 8 × 132,120,576 = 1,056,964,608 whole,
    // 8 × 132,120,576 / 16 = 66,060,288 split; the bytes it reads as above.
    let mut spec = preset_spec("deepseek-v4-pro");
    let before = spec.forward_pass(16, 8).layers[5];
    spec.deepseek_v4.as_mut().expect("V4").shared_expert_tp1 = true;
    let after = spec.forward_pass(16, 8).layers[5];
    // Whole numbers far below 2^53, exact in f64: tolerance 1e-6.
    assert!((before.shared_ffn_flops - 66_060_288.0).abs() < 1e-6);
    assert!((after.shared_ffn_flops - 1_056_964_608.0).abs() < 1e-6);
    assert_eq!(
        (before.shared_ffn_bytes.0, after.shared_ffn_bytes.0),
        (4_129_888, 66_076_416)
    );
    assert_eq!(before.expert_shard_bytes, after.expert_shard_bytes);
}

/// Survey row 186 (sglang PR 23933) imports past the tp rule and stops at what tpsim leaves out: the
/// command's `--enable-dp-attention` ("DeepSeek-V4 with DP attention is not modelled", no longer
/// `scenario::dp_attention`'s "SGLang 0.5.9's model … does not use LayerCommunicator", which is not
/// SGLang 0.5.12's DeepSeek-V4), not the fp8 block (`tests/data/launch-commands.tsv`, class "refused:
/// not modelled").
#[test]
fn survey_row_186_passes_the_tp_rule() {
    let r = row(186);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(!e.contains("quantization group/block"), "{e}");
    assert!(!e.contains("For quantized MoE models"), "{e}");
    assert!(e.contains("DeepSeek-V4 with DP attention is not modelled"), "{e}");
    assert!(!e.contains("LayerCommunicator"), "{e}");
}

/// End to end at tp 8 on 8× H200 (SGLang 0.5.12, both start-able): the variable makes each of the 61
/// layers hold the shared expert whole, 66,076,416 B, where tp 8 held a 384-wide shard: gate_up 768 ×
/// 7,168 = 5,505,024 + 6 × 56 × 4 = 1,344, down 7,168 × 384 = 2,752,512 + 56 × 3 × 4 = 672 → 8,259,552;
/// 61 × (66,076,416 − 8,259,552) = 61 × 57,816,864 = 3,526,828,704 B more weights a rank, so
/// `available_gib` (total less weights and RoPE tables) falls by 3,526,828,704 / 2^30 =
/// 3.284646749... GiB (to 1e-9). Unset, the scenario is as before (no note).
#[test]
fn the_variable_reaches_the_memory_plan() {
    let text = |env: &str| {
        format!(
            "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"deepseek-v4-pro\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.12\"\ntp = 8\nmem_fraction_static = 0.85\n{env}\n\
             [workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n"
        )
    };
    let mem = |name: &str, env: &str| {
        let p = scratch(name).join("s.toml");
        std::fs::write(&p, text(env)).expect("write");
        let o = tpsim(&["memory", p.to_str().expect("utf-8"), "--json"]);
        assert!(o.code == 0 || o.code == 3, "{}", o.stderr);
        serde_json::from_str::<serde_json::Value>(&o.stdout).expect("json")
    };
    let off = mem("dsv4_64-tp8-off", "");
    let on = mem("dsv4_64-tp8-on", TP1);
    let drop = f(&off["available_gib"]) - f(&on["available_gib"]);
    assert!(
        (drop - 3_526_828_704.0 / (1u64 << 30) as f64).abs() < 1e-9,
        "{drop}"
    );
}

/// A value SGLang's `EnvBool` cannot read ("maybe") warns and reads off, as `EnvField.get` does: Pro
/// at tp 8 plans the same weights as unset (`available_gib` equal, to 1e-12) and says why. For a
/// model other than DeepSeek-V4 (Qwen3-8B) the variable is noted as not read, and the scenario runs.
#[test]
fn an_unreadable_value_or_another_model_is_noted() {
    let write = |name: &str, preset: &str, tp: u32, env: &str| {
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"{preset}\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.12\"\ntp = {tp}\nmem_fraction_static = 0.85\n{env}\n\
             [workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n"
        );
        let p = scratch(name).join("s.toml");
        std::fs::write(&p, text).expect("write");
        p.display().to_string()
    };
    let bad = "[engine.env]\nSGLANG_SHARED_EXPERT_TP1 = \"maybe\"";
    let unset = tpsim(&[
        "memory",
        &write("dsv4_64-unset", "deepseek-v4-pro", 8, ""),
        "--json",
    ]);
    let maybe = tpsim(&[
        "memory",
        &write("dsv4_64-maybe", "deepseek-v4-pro", 8, bad),
        "--json",
    ]);
    let j = |o: &Out| serde_json::from_str::<serde_json::Value>(&o.stdout).expect("json");
    let (a, b) = (j(&unset), j(&maybe));
    assert!((f(&a["available_gib"]) - f(&b["available_gib"])).abs() < 1e-12);
    assert!(
        maybe.stderr.contains("\"maybe\" is not a valid boolean value"),
        "{}",
        maybe.stderr
    );
    let o = tpsim(&["run", &write("dsv4_64-qwen", "qwen3-8b", 1, TP1)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("SGLANG_SHARED_EXPERT_TP1: tpsim reads it for DeepSeek-V4 only"),
        "{}",
        o.stderr
    );
}

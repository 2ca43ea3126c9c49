//! families41 (issue #17): Qwen3-Omni MoE (`Qwen3OmniMoeForConditionalGeneration`, the thinker lowered
//! as Qwen3-VL-MoE with its audio encoder by `tpsim_model::llm::qwen3_omni`). The preset's config.json
//! is the config a public dump of `Qwen3-Omni-30B-A3B-Instruct` prints (find_string id 62494955826,
//! with the model's module tree and tensor list). The weights a rank and the cell are by hand below
//! from SGLang 0.5.9 `models/qwen3_omni_moe.py` (thinker only; talker and code2wav skipped by
//! `load_weights`), `models/qwen3_vl_moe.py` and `layers/attention/vision.py` (`VisionAttention`); the
//! releases (SGLang 0.5.4, vLLM 0.11.1) from the PyPI wheels.

use crate::common::*;

const OMNI: &str = "examples/qwen3-omni-30b-a3b-sglang-h100x4.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(OMNI, name, edit)
}

/// The thinker's parameters at tp 1 by hand (tolerance: none).
///
/// Text model: embedding and untied head 2 × 152,064 × 2,048; each of the 48 layers q 4,096 × 2,048, k
/// and v 512 × 2,048 each, o 2,048 × 4,096, q/k norms 2 × 128, two norms 2 × 2,048, 128 experts × 3 ×
/// 768 × 2,048 and the router 128 × 2,048; final norm 2,048: **30,532,646,912**, Qwen3-30B-A3B's
/// 30,532,122,624 plus 2 × 128 × 2,048 for the 128 more vocabulary rows (152,064 against 151,936).
/// Vision (Qwen3-VL tower, 27 blocks of 1,152, MLP 4,304, patch 2 × 16 × 16 × 3, 2,304 positions, a
/// merger and three DeepStack mergers of 4,608 → 2,048, the dump's module tree): 538,631,408. Audio (32
/// layers of 1,280, MLP 5,120, convolutions of 480 channels, conv_out 7,680 → 1,280, proj2 → 2,048):
/// 647,927,168 (the dump's tree:
/// q/k/v/out_proj 1,280 × 1,280 with bias, fc1/fc2 1,280 ↔ 5,120 with bias, two LayerNorms).
#[test]
fn qwen3_omni_thinker_parameters_by_hand() {
    let s = preset_spec("qwen3-omni-30b-a3b-instruct");
    assert_eq!(s.arch, tpsim_model::llm::Architecture::Qwen3VlMoe);
    let v = s.vision.expect("Qwen3-VL tower");
    let a = v.audio.expect("audio encoder");
    assert_eq!((a.layers, a.d_model, a.ffn, a.heads), (32, 1_280, 5_120, 20));
    assert_eq!((v.layers, v.hidden, v.deepstack_mergers), (27, 1_152, 3));
    let text: u64 = 2 * 152_064 * 2_048
        + 48 * (4_096 * 2_048
            + 2 * 512 * 2_048
            + 2_048 * 4_096
            + 256
            + 4_096
            + 128 * 3 * 768 * 2_048
            + 128 * 2_048)
        + 2_048;
    assert_eq!(text, 30_532_122_624 + 2 * 128 * 2_048);
    let (h, i, m) = (1_152u64, 4_304u64, 4_608u64);
    let merger = |ln: u64| ln + m * m + m + 2_048 * m + 2_048;
    let vision = 27 * (4 * h + 3 * h * h + 3 * h + h * h + h + i * h + i + h * i + h)
        + h * 2 * 16 * 16 * 3
        + h
        + 2_304 * h
        + merger(2 * h)
        + 3 * merger(2 * m);
    assert_eq!(vision, 538_631_408);
    let (d, f, c) = (1_280u64, 5_120u64, 480u64);
    let audio = 32 * (4 * d + 3 * d * d + 3 * d + d * d + d + 2 * f * d + f + d)
        + c * 9
        + c
        + 2 * (c * c * 9 + c)
        + d * c * 16
        + d * d
        + d
        + 2_048 * d
        + 2_048
        + 2 * d;
    assert_eq!(audio, 647_927_168);
    // bf16 at tp 1, plus the audio encoder's float32 sinusoid buffer (1,500 × 1,280 × 4 B).
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * (text + vision + audio) + 1_500 * 1_280 * 4
    );
}

/// The example: bf16 at tp 4 under SGLang 0.5.9 (tolerance: none, integers).
///
/// Text: embedding and head 2 × 38,016 × 2,048 = 155,713,536; a layer's attention (1,024 + 2 × 128) ×
/// 2,048 + 2,048 × 1,024 + 256 + 4,096 = 4,722,944 and MoE 128 × 3 × 192 × 2,048 + 128 × 2,048 =
/// 151,257,088; × 48 plus the final norm: 7,642,757,120. Vision: per block norms 4,608, qkv 864 ×
/// 1,152 + 864, proj 1,152 × 288 + 1,152, fc1 1,076 × 1,152 + 1,076, fc2 1,152 × 1,076 + 1,152 =
/// 3,815,060 (× 27); patch 1,152 × 1,536 + 1,152, positions 2,304 × 1,152; four mergers with fc1
/// 1,152 × 4,608 a rank: 138,145,052. Audio: per layer norms 5,120, qkv 960 × 1,280 + 960, proj 1,280
/// × 320 plus 1,280, fc1 / fc2 whole 2 × 6,553,600 + 5,120 + 1,280 = 14,759,360 (× 32); convolutions,
/// conv_out, proj1, proj2, ln_post whole: 490,548,608. Bytes: 2 × 8,271,450,780 plus 7,680,000 (the
/// float32 buffer) = **16,550,581,560 B** (15,783.86 MiB) a rank.
///
/// Cell: one KV head a rank (4 / 4) × (128 + 128) × 2 B × 48 layers = 24,576 B. All-reduces: one per
/// attention and per MoE × 48 + the embedding's = 97.
#[test]
fn qwen3_omni_sglang_h100_by_hand() {
    let run = run_json(&scenario(OMNI));
    assert_eq!(entry_bytes(&run, "target weights"), 16_550_581_560);
    assert_eq!(
        2 * (7_642_757_120u64 + 138_145_052 + 490_548_608) + 7_680_000,
        16_550_581_560
    );
    assert_eq!(run["memory"]["cell_size_bytes"].as_u64().unwrap(), 24_576);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 97);
    // SGLang 0.5.9's default fraction unreduced: `adjust_mem_fraction_for_vlm` reads
    // `hf_config.vision_config`, which Qwen3-Omni's top-level config lacks (its towers sit under
    // `thinker_config`); a Qwen3-VL tower at the top level would give × 0.9248.
    let f = run["memory"]["mem_fraction_static"].as_f64().unwrap();
    assert!((f - 0.824).abs() < 1e-9, "{f}"); // tolerance: float printing only
}

/// What tpsim refuses: SGLang before 0.5.4 (the 0.5.3.post3 wheel has no `models/qwen3_omni_moe.py`),
/// SGLang at a tp that does not divide the audio encoder's 20 heads (`VisionAttention`'s
/// `dist_utils.divide` assertion, its text), vLLM (not modelled: its thinker builds transformers' audio
/// encoder whole on every rank), and a config without `thinker_config`.
#[test]
fn qwen3_omni_refusals() {
    let old = variant("omni-0.5.3", |t| t.replace("\"0.5.9\"", "\"0.5.3.post3\""));
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "SGLang 0.5.3.post3 has no models/qwen3_omni_moe.py (SGLang adds it in 0.5.4): it cannot serve \
             Qwen3-Omni (Qwen3OmniMoeForConditionalGeneration)"
        ),
        "{}",
        o.stderr
    );
    let tp8 = variant("omni-tp8", |t| t.replace("tp = 4", "tp = 8"));
    let o = tpsim(&["run", &tp8]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("AssertionError: 20 is not divisible by 8"),
        "{}",
        o.stderr
    );
    let tp2 = variant("omni-tp2", |t| t.replace("tp = 4", "tp = 2"));
    assert_eq!(tpsim(&["validate", &tp2]).code, 0);
    let vllm = variant("omni-vllm", |t| {
        t.replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("\"0.5.9\"", "\"0.12.0\"")
            .replace("context_length", "max_model_len")
    });
    let o = tpsim(&["run", &vllm]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("under vLLM") && o.stderr.contains("from 0.11.1"),
        "{}",
        o.stderr
    );
    let text = std::fs::read_to_string(scenario("models/qwen3-omni-30b-a3b-instruct/config.json")).unwrap();
    let bare = text.replacen("\"thinker_config\"", "\"thinker_config_renamed\"", 1);
    let e = tpsim_model::llm::ModelSpec::from_config_json(&bare, tpsim_model::llm::Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(e.contains("thinker_config"), "{e}");
}

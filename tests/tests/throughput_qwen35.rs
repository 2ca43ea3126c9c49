//! Qwen3.5-397B-A17B on 4× RTX PRO 6000 Blackwell against `tests/data/throughput.tsv` (issue #4).
//!
//! Every prediction uses the default, uncalibrated hardware profile of
//! `rtx-pro-6000-4x-turin-same-numa` (memory efficiency 0.80, 2 µs per kernel: assumed template values)
//! and the `qwen3.5-397b-a17b-nvfp4` preset (routed experts NVFP4, everything else bf16), SGLang's
//! NCCL allreduce with `NCCL_P2P_LEVEL = SYS`, SGLang's spring-2026 memory rules (the first builds that
//! serve Qwen3.5), 1024-token prompts, 512 output tokens (the sources do
//! not state their lengths). Nothing is tuned per row. Ratios are measured / predicted.
//!
//! MoE backend (sm120decode): rows that ran FlashInfer's CUTLASS NVFP4 MoE — every vLLM row (vLLM's NVFP4
//! oracle on SM 12.0) and SGLang's "cutlass MoE" rows — set `engine.moe_backend = "flashinfer_cutlass"`
//! (63.66 µs per MoE layer, derived in `moe_backend_sm120` from the same source's SGLang cutlass and b12x
//! tables); the 2026-04-03 SGLang rows ran b12x (overhead 0); the results.md SGLang row (42-51) does not
//! say, and is predicted with its page's no-MTP SGLang launch, which names flashinfer_cutlass (sm120path).
//! The two SGLang cutlass rows of pcie-oneshot-allreduce.md are in-sample (they gave the derivation's
//! allreduce correction).
//!
//! VALIDATION, out-of-sample (nothing fitted to these rows), against the project's ±20 % target through
//! [`crate::throughput_rows::validate`]: a row outside it must be a listed known miss with its reason
//! (`KNOWN_MISSES` there, and book/src/validation.md); no band is chosen per row or per group.
//!
//! The vLLM MTP=2 rows (130 and the MTP-scaling series) are compared in `throughput_qwen35_mtp`, with
//! the acceptance measured on the same runs (`tests/data/spec-decode.tsv` line 497).
//! Rows NOT asserted: the SGLang rows with MTP (AWQ-INT4 MTP=5 152, NVFP4 MTP=5 132, the ASUS
//! ESC8000A-E13P MTP series 67.3 … 1376.9, the b12x MTP 165.9, the 8-GPU FP8 MTP 75-125 and NVFP4 EP=8
//! MTP 350): they draft 5 tokens or do not say how many, and the one sourced Qwen3.5 MTP acceptance
//! covers positions 1–2 under vLLM, so their predictions would measure an assumed acceptance, not the
//! model. The MTP draft itself is checked structurally below.

use crate::common::*;

use crate::throughput_rows::validate;

/// Writes a scenario for `engine` at `batch` concurrent requests and returns its path.
fn qwen35_scenario(name: &str, engine: &str, batch: u32, extra: &str) -> String {
    qwen35_scenario_moe(name, engine, batch, extra, None)
}

/// [`qwen35_scenario`] with `engine.moe_backend` set (sm120decode): the MoE kernels the row ran.
fn qwen35_scenario_moe(name: &str, engine: &str, batch: u32, extra: &str, moe: Option<&str>) -> String {
    // SGLang runs Qwen3.5 from February 2026 on: spring-2026 memory rules.
    let fraction = if engine == "sglang" {
        "mem_fraction_static = 0.85\n\n[engine.costs]\nera = \"spring-2026\"\n"
    } else {
        ""
    };
    let moe = moe.map_or(String::new(), |m| format!("moe_backend = \"{m}\"\n"));
    let text = format!(
        "seed = 1\n\n[hardware]\npreset = \"rtx-pro-6000-4x-turin-same-numa\"\n\n[model]\n\
         preset = \"qwen3.5-397b-a17b-nvfp4\"\n\n[engine]\nname = \"{engine}\"\ntp = 4\n{moe}{fraction}\n\
         [engine.env]\nNCCL_P2P_LEVEL = \"SYS\"\n\n{extra}[workload]\nconcurrency = {batch}\n\
         prompt_len = 1024\noutput_len = 512\n"
    );
    let p = scratch(&format!("qwen35-{name}-{engine}-{batch}-{}", moe.len())).join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    p.display().to_string()
}

fn predicted(engine: &str, batch: u32) -> f64 {
    let j = run_json(&qwen35_scenario("row", engine, batch, ""));
    f(&j["throughput"]["output_tok_s"])
}

/// FlashInfer's CUTLASS NVFP4 MoE (sm120decode): the backend of SGLang's `--moe-runner-backend
/// flashinfer_cutlass` rows and of vLLM's NVFP4 oracle on SM 12.0 (`moe_backend_sm120`).
const CUTLASS: Option<&str> = Some("flashinfer_cutlass");

/// [`predicted`] with the MoE backend the row ran.
fn predicted_moe(engine: &str, batch: u32, moe: Option<&str>) -> f64 {
    let j = run_json(&qwen35_scenario_moe("row", engine, batch, "", moe));
    f(&j["throughput"]["output_tok_s"])
}

/// A single measured value as the (low, high) pair `validate` takes.
fn one(v: f64) -> (f64, f64) {
    (v, v)
}

#[test]
pub(crate) fn validation_sglang_nvfp4_tp4_batch1_nccl() {
    // rtx6kpro benchmarks/results.md, SGLang, NVFP4, 4 GPUs, TP 4, batch 1, no spec: 42-51 (kcramp,
    // Ixtrix). sm120path: predicted with its page's no-MTP SGLang launch (inference-engines/sglang.md,
    // "Stable baseline without MTP (~42-85 tok/s)": triton attention, flashinfer_cutlass MoE,
    // NCCL_P2P_LEVEL=PHB), the committed scenario that names them.
    let pred = run_json(&scenario(
        "validation/qwen3.5-397b-nvfp4-sglang-tp4-bs1-triton.toml",
    ));
    let pred = f(&pred["throughput"]["output_tok_s"]);
    // tritonsplit54: 83.84 tok/s since SGLang's triton decode is costed by its splits
    // (`passes::sgl_triton_split`): in each of the 15 full-attention layers (8 query heads, one KV
    // head a rank: 8 splits) the stage-2 reduce kernel (2 µs) and the fp32 partials (8 × 8 × 257 × 4
    // = 65,792 B written, read with the 4,096 B output: 0.095 µs at 0.8 × 1.79 TB/s), and the busiest
    // program's tiles × 332.3 ns over the KV read (about 0.84 µs a layer as run): 44.07 µs a step,
    // 1000 / (1000 / 84.153 + 0.04407) = 83.84. Before it:
    // The launch's MoE kernels cost what the "cutlass MoE" rows' do (84.15 tok/s, tolerance 0.05; 86.3
    // before release52 moved the release of a scenario without engine.version to SGLang 0.5.9, whose
    // `no_buffer` mamba strategy with the radix cache on turns the overlap scheduler off (hybrids51):
    // + 0.300 ms of host work a step, 1000 / (1000 / 86.3 + 0.3) = 84.12 by hand, 84.153 run; 79.7
    // before sgldualstream ran SGLang 0.5.9's shared expert beside the routed ones on a second CUDA
    // stream, `passes::sgl_dual_stream`; 84.3 before vllmfusion charged SGLang's KV-cache store in the 15 full-attention layers, 84.1 before
    // sglgates charged SGLang's Qwen3.5 gate, top-k and Gated DeltaNet kernels, 330 a pass,
    // `passes::sgl_qwen3_next`): the attention backend is named but has no curve in the bundled
    // preset, and PHB allows P2P on these same-socket root ports as SYS does. server58: 83.73 since the
    // Server template streams at 0.893 × 1.597 = 1.426 TB/s (0.80 × 1.79 = 1.432 before, 83.84): the
    // bandwidth-bound part of the 11.93 ms step grows by 1.432 / 1.426 = 1.0041, 83.84 / 83.73 = 1.0013.
    assert!((pred - 83.73).abs() < 0.05, "{pred}");
    validate("Qwen3.5 NVFP4, SGLang results.md, bs 1", (42.0, 51.0), pred);
    // rtx6kpro optimization/pcie-oneshot-allreduce.md, SGLang, NVFP4, bs 1, none, cutlass MoE, NCCL
    // only: 70.6. IN-SAMPLE since sm120decode: this row and the one-shot one below give the allreduce
    // correction of the flashinfer_cutlass overhead's derivation (moe_backend_sm120).
    validate(
        "Qwen3.5 NVFP4, SGLang pcie-oneshot NCCL, bs 1",
        one(70.6),
        predicted_moe("sglang", 1, CUTLASS),
    );
}

/// sm120path: the results.md row's scenario is its page's no-MTP SGLang launch (rtx6kpro
/// inference-engines/sglang.md at 1306de8, "Stable baseline without MTP (~42-85 tok/s)"): the command
/// tpsim prints for it carries that launch's NCCL_P2P_LEVEL=PHB, --tp-size 4, --mem-fraction-static 0.85,
/// --attention-backend triton and --moe-runner-backend flashinfer_cutlass (each line as the launch
/// writes it; the launch's other flags are not tpsim inputs).
#[test]
fn sglang_results_row_scenario_is_its_pages_launch() {
    let o = tpsim(&[
        "engine-args",
        &scenario("validation/qwen3.5-397b-nvfp4-sglang-tp4-bs1-triton.toml"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().map(|l| l.trim_end_matches(" \\")).collect();
    for want in [
        "NCCL_P2P_LEVEL=PHB",
        "  --tp-size 4",
        "  --mem-fraction-static 0.85",
        "  --attention-backend triton",
        "  --moe-runner-backend flashinfer_cutlass",
    ] {
        assert!(lines.contains(&want), "{want:?} not in:\n{}", o.stdout);
    }
}

#[test]
pub(crate) fn validation_sglang_nvfp4_tp4_pcie_oneshot_allreduce() {
    // These rows ran luke's PCIe one-shot allreduce (`--enable-pcie-oneshot-allreduce`), which tpsim
    // does not model on this box (its custom allreduce here stages peer loads through system memory);
    // they are compared with the NCCL prediction.
    let b1 = predicted("sglang", 1);
    // pcie-oneshot-allreduce.md, bs 1, none, cutlass MoE, PCIe oneshot: 76.1 (in-sample, as the NCCL
    // row above).
    validate(
        "Qwen3.5 NVFP4, SGLang pcie-oneshot one-shot AR, bs 1",
        one(76.1),
        predicted_moe("sglang", 1, CUTLASS),
    );
    // daily-summaries/2026-04-03.md ran b12x MoE (models/qwen35-397b.md, same figures): the reference
    // backend, overhead 0, so the template's cost.
    // daily-summaries/2026-04-03.md, SGLang, NVFP4, TP 4, none, --enable-pcie-oneshot-allreduce:
    // bs 1 108, bs 8 554, bs 32 1174, bs 64 ~1550.
    validate("Qwen3.5 NVFP4, SGLang 2026-04-03, bs 1", one(108.0), b1);
    for (batch, measured) in [(8, 554.0), (32, 1174.0), (64, 1550.0)] {
        validate(
            &format!("Qwen3.5 NVFP4, SGLang 2026-04-03, bs {batch}"),
            one(measured),
            predicted("sglang", batch),
        );
    }
}

#[test]
pub(crate) fn validation_vllm_nvfp4_tp4_no_mtp() {
    // sm120decode: vLLM's NVFP4 MoE oracle reaches FlashInfer's CUTLASS kernels on SM 12.0 in these
    // builds (moe_backend_sm120); out-of-sample (its overhead comes from SGLang rows).
    let b1 = predicted_moe("vllm", 1, CUTLASS);
    // benchmarks/results.md, vLLM, NVFP4, bs 1, none: 70-86 (multiple users).
    validate("Qwen3.5 NVFP4, vLLM results.md, bs 1", (70.0, 86.0), b1);
    // benchmarks/results.md (MTP scaling), vLLM, NVFP4 (nvidia), none, aggregate tok/s.
    validate("Qwen3.5 NVFP4, vLLM MTP-scaling, bs 1", one(85.8), b1);
    for (batch, measured) in [(2, 137.1), (5, 234.2), (10, 334.3), (20, 491.5), (32, 605.9)] {
        validate(
            &format!("Qwen3.5 NVFP4, vLLM MTP-scaling, bs {batch}"),
            one(measured),
            predicted_moe("vllm", batch, CUTLASS),
        );
    }
}

#[test]
fn throughput_grows_sublinearly_with_batch_and_state_traffic_counts() {
    // Batch 64 costs more per step than batch 1 (more distinct experts, 64 recurrent states read and
    // written in each of the 45 linear layers: 64 × 2 × 1,067,008 B × 45 = 6.15 GB per rank per step).
    let j1 = run_json(&qwen35_scenario("scale", "sglang", 1, ""));
    let j64 = run_json(&qwen35_scenario("scale", "sglang", 64, ""));
    let (t1, t64) = (f(&j1["throughput"]["tpot_ms"]), f(&j64["throughput"]["tpot_ms"]));
    // At 1.79 TB/s × 0.80 the state traffic alone is 6.15e9 / 1.432e12 = 4.29 ms of the batch-64 step.
    assert!(t64 - t1 > 4.29, "tpot {t1} → {t64} ms");
}

#[test]
fn mtp_draft_is_the_bf16_mtp_layer() {
    // `[speculative] algorithm = "mtp"` drafts with the checkpoint's MTP layer (mtp_num_hidden_layers
    // = 1): one gated full-attention layer with the target's MoE, kept bf16 in lukealonso's NVFP4
    // checkpoint (quant.toml `mtp = { dtype = "bf16" }`). Acceptance is a placeholder (not sourced):
    // only the structure is asserted.
    let spec = "[speculative]\nalgorithm = \"mtp\"\nnum_steps = 2\ntopk = 1\nnum_draft_tokens = 3\n\
                acceptance = { per_position = [0.8] }\n\n";
    let j = run_json(&qwen35_scenario("mtp", "sglang", 1, spec));
    // Per rank at tp 4, bf16: attention (qkv 4608 × 4096 + o 4096 × 2048) × 2 = 54,525,952; norms
    // 2 × 4096 × 2 + q/k norms 2 × 256 × 2 = 17,408; 512 routed experts × (2·256·4096 + 4096·256) × 2
    // = 3,221,225,472; shared expert 6,291,456; router + shared gate 4,202,496; final norm 8192; fc
    // (eh_proj) 2 × 4096 × 4096 × 2 = 67,108,864; enorm/hnorm 16,384 → 3,353,396,224 B.
    let draft = entry_bytes(&j, "draft weights");
    assert_eq!(draft, 3_353_396_224);
    // The MTP layer's KV: one full-attention layer, 1 replicated KV head × 512 × 2 B.
    assert_eq!(j["memory"]["draft_cell_size_bytes"], 1024);
    // The target's cell holds only the 15 full-attention layers (15,360 B); the spring-2026 rule adds
    // the draft's share, int(15,360 × (1 + 1/15)) = 16,384, warned as approximate for hybrids.
    assert_eq!(j["memory"]["cell_size_bytes"], 16_384);
    assert!(
        j["memory"]["warnings"]
            .to_string()
            .contains("draft KV share approximate")
    );
    assert!(f(&j["spec"]["expected_accept_len"]) > 1.0);
}

#[test]
fn state_pool_is_reserved_before_the_kv_pool() {
    // SGLang (tpsim_model::state_pool): rest = 38.65 − 94.04 × 0.15 GiB is split 0.9 : 1 between the
    // state pool and the KV pool; each request holds 48,015,360 B of state per rank and the running
    // requests are capped at slots / 3.
    let j = run_json(&qwen35_scenario("pool", "sglang", 1, ""));
    let entries = j["memory"]["entries"].as_array().unwrap();
    let pool = entries
        .iter()
        .find(|e| e["name"].as_str().unwrap_or("").starts_with("state pool"))
        .expect("a state pool entry");
    let kv = entries
        .iter()
        .find(|e| e["name"] == "target KV pool")
        .expect("a KV pool entry");
    let (pool_b, kv_b) = (f(&pool["bytes"]), f(&kv["bytes"]));
    // 0.9 / 1.9 of rest to the states, the remainder (less the last partial slot) to KV.
    let share = pool_b / (pool_b + kv_b);
    assert!((share - 0.9 / 1.9).abs() < 0.01, "state share {share}");
    assert_eq!(pool_b as u64 % 48_015_360, 0);
    let slots = pool_b as u64 / 48_015_360;
    assert_eq!(j["memory"]["max_running_requests"], slots / 3);
}

#[test]
fn a_broken_qwen35_config_is_a_clear_error() {
    // A config.json whose layer_types does not cover the 60 layers: exit 2, naming the key.
    let text = std::fs::read_to_string(scenario("models/qwen3.5-397b-a17b/config.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["text_config"]["layer_types"] = serde_json::json!(["linear_attention", "full_attention"]);
    let dir = scratch("qwen35-bad-config");
    let cfg = dir.join("config.json");
    std::fs::write(&cfg, v.to_string()).unwrap();
    let p = dir.join("s.toml");
    std::fs::write(
        &p,
        format!(
            "[hardware]\npreset = \"rtx-pro-6000-4x-turin-same-numa\"\n\n[model]\nconfig = \"{}\"\n\n\
             [engine]\nname = \"sglang\"\ntp = 4\n",
            cfg.display()
        ),
    )
    .unwrap();
    let o = tpsim(&["run", &p.display().to_string()]);
    assert!(
        o.code == 2 && o.stderr.contains("layer_types") && o.stderr.contains("num_hidden_layers = 60"),
        "{} {}",
        o.code,
        o.stderr
    );
}

#[test]
fn approximate_state_sizing_is_said_not_hidden() {
    // SGLang without speculation: the state pool follows `_handle_max_mamba_cache` exactly → no warning.
    let j = run_json(&qwen35_scenario("warn", "sglang", 1, ""));
    assert_eq!(j["memory"]["warnings"], serde_json::json!([]));
    // vLLM (issue #17, vllmhybrid): its state pages are sized (0.19.0 rules without engine.version) →
    // no approximation, and vLLM's own lines: tp 4 keeps one KV head (1,024 B per token per layer);
    // the state page 3 × 3,072 × 2 + 16 × 128 × 128 × 4 (the config's mamba_ssm_dtype float32, which 0.17+ reads;
    // pro6k56 added it to the preset) = 1,067,008 B → block 16 × ⌈1,067,008 / 16,384⌉ = 1,056 tokens, page
    // 1,081,344 B (+1.34 %).
    let j = run_json(&qwen35_scenario("warn", "vllm", 1, ""));
    let w = j["memory"]["warnings"].to_string();
    assert!(!w.contains("approximate"), "{w}");
    assert!(w.contains("Setting attention block size to 1056 tokens"), "{w}");
    assert!(w.contains("Padding mamba page size by 1.34%"), "{w}");
    // SGLang with MTP: the intermediate-state reservation is approximate → warned.
    let spec = "[speculative]\nalgorithm = \"mtp\"\nnum_steps = 2\ntopk = 1\nnum_draft_tokens = 3\n\
                acceptance = { per_position = [0.8] }\n\n";
    let j = run_json(&qwen35_scenario("warn-mtp", "sglang", 1, spec));
    let w = j["memory"]["warnings"].to_string();
    assert!(w.contains("state pool sizing approximate"), "{w}");
}

/// batchgrow: why the vLLM MTP-scaling series' growth with the batch is not a per-request cost tpsim
/// leaves out.
///
/// - The Gated DeltaNet state is in tpsim's step: 48,015,360 B per request per rank (`llm::hybrid`,
///   45 layers at tp 4), read and written every decode step (`passes.rs` `state_passes` = 2).
/// - The expert union is the uniform-routing bound, E · (1 − (1 − k/E)^n) = 239.64 of 512 at 32 tokens
///   (top 10): correlated routing touches fewer experts, so it cannot make tpsim's step too short.
/// - Hand values from the rows: c 32 of the series is 605.9 tok/s (a 52.81 ms step); within +20 % means
///   predicting at most 727.08 tok/s, a step of at least 32,000 ÷ 727.08 = 44.01 ms. The same page's
///   vLLM run (voipmonitor, `tests/data/moe-backend-sm120.tsv`) did c 32 at 981.1 tok/s (32.62 ms a
///   step): at a 44.01 ms step it would be predicted 727.08 ÷ 981.1 − 1 = −25.9 %. tpsim's step lies
///   between the two runs' steps, so no per-request cost closes one without opening the other.
#[test]
fn mtp_scaling_growth_is_not_a_missing_per_request_cost() {
    let uniform = tpsim_model::llm::expected_distinct_experts(512, 10, 32);
    assert!((uniform - 239.64).abs() < 0.01, "{uniform}");
    let needed: f64 = 32_000.0 / (1.2 * 605.9);
    assert!((needed - 44.01).abs() < 0.01, "{needed}");
    let other = 32_000.0 / 981.1;
    let other_err: f64 = (1.2 * 605.9) / 981.1 - 1.0;
    assert!((other_err + 0.259).abs() < 1e-3, "{other_err}");
    let j = run_json(&qwen35_scenario_moe("grow", "vllm", 32, "", CUTLASS));
    let step = f(&j["throughput"]["mean_iteration_ms"]);
    println!(
        "Qwen3.5 NVFP4 vLLM c 32: tpsim step {step:.2} ms; voipmonitor run {other:.2} ms, MTP-scaling \
         52.81 ms, within +20 % of the latter needs {needed:.2} ms"
    );
    assert!(step > other && step < needed, "{step}");
}

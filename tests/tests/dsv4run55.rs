//! dsv4run55 (issue #17): DeepSeek-V4 lowered (`Architecture::DeepseekV4`) and its SGLang memory plan
//! (`sim::decode::memory::dsv4`): the weights a rank from `llm::deepseek_v4_weights`, the pools from
//! `llm::deepseek_v4_pools::plan` by the scenario's release, the engine's DSV4 lines and the start-up
//! verdict, all by hand; `tpsim run` refused (its decode step was not modelled) until dsv4dec55 lowered
//! it; it gives the verdict where the engine would not start; vLLM and releases without `models/deepseek_v4.py` are refused.

use crate::common::*;

const GIB: f64 = (1u64 << 30) as f64;

/// The published DeepSeek-V4-Flash config (tests/data/models/deepseek-v4-flash) on 8× H200 under SGLang
/// `version` at tp 8 and (SGLang) `mem_fraction_static` 0.85, stated so that the arithmetic is fixed.
fn flash(name: &str, engine: &str, version: &str, extra: &str) -> String {
    let config = data_path("models/deepseek-v4-flash/config.json");
    let fraction = if engine == "sglang" {
        "mem_fraction_static = 0.85\n"
    } else {
        ""
    };
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\nconfig = \"{}\"\n[engine]\nname = \
         \"{engine}\"\nversion = \"{version}\"\ntp = 8\n{fraction}{extra}[workload]\n\
         concurrency = 8\nprompt_len = 1024\noutput_len = 64\n",
        config.display()
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

fn memory_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["memory", file, "--json"]);
    assert!(o.code == 0 || o.code == 3, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("json")
}

/// Weights a rank at tp 8 with float32 fp4 scales (families35's hand sum): 23,882,237,020 B. The
/// routed experts hold 43 × 256 × 3 × 4,096 × 256 = 34,628,173,824 fp4 values a rank, one scale a 32:
/// 1,082,130,432 scales, so e8m0 scales (1 B, not 4) take 3 × 1,082,130,432 = 3,246,391,296 B less:
/// 20,635,845,724 B.
const FP32_SCALES: u64 = 23_882_237_020;
const E8M0_SCALES: u64 = 20_635_845_724;

/// The bytes `rest` leaves (SGLang's `available_bytes`, `int(rest × 2^30)`) from the report's
/// `total_gib` (the preset's: H200 memory less the CUDA context and the custom all-reduce buffers, not
/// this suite's subject): `available = total − (weights + RoPE tables) / 2^30`, `rest = available −
/// total × (1 − 0.85)`; the two `freqs_cis` tables: 2 × 1,048,576 × 32 × 8 = 536,870,912 B.
fn rest_bytes(j: &serde_json::Value, weights: u64) -> u64 {
    let total = f(&j["total_gib"]);
    let available = total - (weights + 536_870_912) as f64 / GIB;
    assert!((f(&j["available_gib"]) - available).abs() < 1e-9, "{j}");
    let rest = available - total * (1.0 - 0.85);
    assert!((f(&j["rest_gib"]) - rest).abs() < 1e-9, "{j}");
    (rest * GIB) as u64
}

/// SGLang 0.5.23 (paged prices, ratio mode: the model override declares 0.1) on H200 (SM 9.0): the
/// override picks `flashinfer_mxfp4`, whose CUTLASS method keeps e8m0 expert scales (20,635,845,724 B
/// a rank). Bytes a full token,
/// Flash (43 layers: 21 of ratio 4, 20 of ratio 128): SWA 0.1 × (585 × 43 + 8 / 256 × 10,240 × 21) =
/// 0.1 × 31,875 = 3,187.5; c4 (585 / 4 + 132 / 4) × 21 = 3,764.25; c128 864 / 128 × 20 = 135 →
/// 7,086.75. c128 state taken off first: rows (257 × 128 + 129 → 33,152) × 2 × 512 × 4 × 20 =
/// 2,715,811,840. With the preset's total 138.81230468768626 GiB: available 119.09367571864277 GiB, rest
/// 98.27183001548983 GiB = 105,518,574,008 B; (105,518,574,008 − 2,715,811,840) / 7,086.75 =
/// 14,506,333.96 → 56,665 pages of 256 = 14,506,240 full tokens; SWA int(1,450,624) → 1,450,496 (5,666
/// pages); c4 3,626,560; c128 113,330; c4 state 1,450,496 / 256 × 8 = 45,328; c128 state 257 × 128 =
/// 32,896. Pool bytes: int(14,506,240 × 7,086.75) + 2,715,811,840 = 102,802,096,320 + 2,715,811,840 =
/// 105,517,908,160. Exact integers (tolerance none); the GiB figures to 1e-9.
#[test]
fn flash_sglang_h200_memory_by_hand() {
    let f = flash("flash-0523", "sglang", "0.5.23", "");
    let j = memory_json(&f);
    assert_eq!(j["verdict"], "ok", "{j}");
    assert!((crate::common::f(&j["total_gib"]) - 138.812_304_687_686_26).abs() < 1e-9);
    let rest = rest_bytes(&j, E8M0_SCALES);
    assert_eq!(rest, 105_518_574_008);
    let full = ((rest - 2_715_811_840) as f64 / 7_086.75) as u64 / 256 * 256;
    assert_eq!(full, 14_506_240);
    assert_eq!(j["kv_tokens"], 14_506_240);
    assert_eq!(j["kv_cache"]["bytes"], 105_517_908_160u64);
    assert_eq!(j["kv_cache"]["max_running_requests"], 256);
    assert_eq!(entry_mib_bytes(&j, "target weights"), E8M0_SCALES);
    assert_eq!(entry_mib_bytes(&j, "RoPE cos/sin caches"), 536_870_912);
    let log = tpsim(&["memory", &f, "--log"]).stdout;
    for line in [
        "Setting max_running_requests to 256 for DeepseekV4ForCausalLM.",
        "DSV4 SWA sizing: mode=ratio (explicit), swa_tokens=1450496, swa_full_tokens_ratio=0.1",
        "bytes_per_full_token=7086.75, available_bytes=98.27 GB, c128_state_fixed=2.53 GB",
        "DSV4 pool sizes: full=14506240, swa=1450496, c4=3626560, c128=113330, c4_state=45328, c128_state=32896",
        "max_total_num_tokens=14506240, max_running_requests=256",
    ] {
        assert!(log.contains(line), "{line} not in {log}");
    }
}

/// A memory entry's bytes, from its MiB (exact for these integer byte counts: MiB × 2^20 rounds back).
fn entry_mib_bytes(j: &serde_json::Value, name: &str) -> u64 {
    let e = j["entries"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["name"] == name))
        .unwrap_or_else(|| panic!("{name} in {j}"));
    (crate::common::f(&e["mib"]) * (1u64 << 20) as f64).round() as u64
}

/// The same box under the earlier rules (families33's coefficients). Neither release picks
/// `flashinfer_mxfp4` on SM 9.0 (0.5.15 – 0.5.18 only on SM 12.0), so the experts keep float32 scales
/// (23,882,237,020 B a rank): available 116.07023821864277 GiB, rest 95.24839251548983 GiB =
/// 102,272,182,712 B.
/// - 0.5.14 (c128 state a SWA token, all 46 `compress_ratios` entries): 16,072.65 B a full token, no
///   fixed part: 102,272,182,712 / 16,072.65 = 6,363,118.88 → 24,855 pages → 6,362,880; SWA 636,288.0
///   → 636,160; c128 state 636,160 / 128 × 128 = 636,160;
/// - 0.5.17 (request-scoped c128 state, 43 layers): 7,705.45 B after 2,715,811,840 B:
///   99,556,370,872 / 7,705.45 = 12,920,253.96 → 50,469 pages of 256 = 12,920,064; c128 state 32,896.
#[test]
fn flash_pools_by_release() {
    for (version, full, c128_state, line) in [
        (
            "0.5.14",
            6_362_880u64,
            636_160u64,
            "DSV4 memory calculation: bytes_per_full_token=16072.65, available_bytes=95.25 GB, full_token=6362880",
        ),
        (
            "0.5.17",
            12_920_064,
            32_896,
            "DSV4 memory calculation: bytes_per_full_token=7705.45, available_bytes=95.25 GB, \
             c128_state_fixed=2.53 GB, full_token=12920064",
        ),
    ] {
        let f = flash(&format!("flash-{version}"), "sglang", version, "");
        let j = memory_json(&f);
        assert_eq!(j["verdict"], "ok", "{version}: {j}");
        assert_eq!(rest_bytes(&j, FP32_SCALES), 102_272_182_712, "{version}");
        assert_eq!(entry_mib_bytes(&j, "target weights"), FP32_SCALES, "{version}");
        assert_eq!(j["kv_tokens"], full, "{version}");
        let log = tpsim(&["memory", &f, "--log"]).stdout;
        assert!(log.contains(line), "{version}: {line} not in {log}");
        assert!(
            log.contains(&format!("c128_state={c128_state}\n")),
            "{version}: {log}"
        );
    }
    // The hand divisions above, in floating point as SGLang takes them.
    assert_eq!((102_272_182_712f64 / 16_072.65) as u64 / 256 * 256, 6_362_880);
    assert_eq!(
        ((102_272_182_712u64 - 2_715_811_840) as f64 / 7_705.45) as u64 / 256 * 256,
        12_920_064
    );
}

/// dsv4dec55 re-derived: `tpsim run` (and `sweep`, `diff`, `capacity`) now predicts a plan that
/// starts (DeepSeek-V4's decode layer is lowered, `llm::deepseek_v4_layer`; exit 0, a finite output
/// rate; dsv4dec55.rs checks its bytes), and `run` still gives the verdict of one that does not: at
/// f = 0.10, rest = available − total × 0.9 < 0 (119.09 − 124.93 GiB) → no full token → SGLang's
/// "no KV memory" error, exit 3, no throughput. `diff` against 0.5.17: on SM 9.0 0.5.17 keeps fp32
/// expert scales (`ExpertFormat::sglang_cuda_by_release`: 1,966,080 B a shard at tp 8, against 0.5.23's
/// e8m0 1,671,168 B), so its decode step reads more and its output rate is lower.
#[test]
fn run_serves_a_start_and_reports_a_failed_one() {
    let f = flash("flash-run", "sglang", "0.5.23", "");
    let j = run_json(&f);
    assert_eq!(j["verdict"], "ok", "{j}");
    let a = crate::common::f(&j["throughput"]["output_tok_s"]);
    assert!(a.is_finite() && a > 0.0, "{j}");
    let other = flash("flash-run-0517", "sglang", "0.5.17", "");
    let b = crate::common::f(&run_json(&other)["throughput"]["output_tok_s"]);
    assert!(b < a, "0.5.17 {b} vs 0.5.23 {a}");
    for args in [
        vec!["sweep", f.as_str(), "--set", "workload.concurrency=1,2"],
        vec!["diff", f.as_str(), other.as_str()],
        vec!["capacity", f.as_str(), "--slo", "tpot_p99=50"],
    ] {
        let o = tpsim(&args);
        assert_eq!(o.code, 0, "{}: {}", args[0], o.stderr);
        assert!(
            !o.stderr.contains("does not model DeepSeek-V4"),
            "{}: {}",
            args[0],
            o.stderr
        );
    }
    let low = edited_variant(&f, "flash-low", |t| t.replacen("0.85", "0.10", 1));
    let j = run_json(&low);
    assert_ne!(j["verdict"], "ok", "{j}");
    assert!(j["output_tok_s"].is_null(), "{j}");
}

/// Refused with the reason: SGLang 0.5.11 has no `models/deepseek_v4.py` (first release 0.5.12); vLLM
/// is not modelled; expert parallelism is not modelled (DP attention is refused by
/// `scenario::dp_attention`'s own list). Exit 2 each, naming the key.
#[test]
fn refusals_name_what_is_missing() {
    for (name, engine, version, extra, key, part) in [
        (
            "r-0511",
            "sglang",
            "0.5.11",
            "",
            "engine.version",
            "SGLang adds it in 0.5.12",
        ),
        (
            "r-vllm",
            "vllm",
            "0.34.0",
            "",
            "engine.name",
            "DeepSeek-V4 under vLLM (from 0.20.0) is not modelled",
        ),
        (
            "r-ep",
            "sglang",
            "0.5.23",
            "ep_size = 8\n",
            "engine.ep_size",
            "DeepSeek-V4 with expert parallelism is not modelled",
        ),
    ] {
        let f = flash(name, engine, version, extra);
        let o = tpsim(&["memory", &f]);
        assert_eq!(o.code, 2, "{name}: {} {}", o.stdout, o.stderr);
        assert!(o.stderr.contains(key), "{name}: {}", o.stderr);
        assert!(o.stderr.contains(part), "{name}: {}", o.stderr);
    }
}

/// The expert format SGLang holds fp4 experts in, by release and SM (read in the wheels: 0.5.12 –
/// 0.5.14 have no `flashinfer_mxfp4` override; 0.5.15 – 0.5.18 `overrides.py` `_deepseek_v4_sm120_moe`
/// on SM 12.0 only; 0.5.19 – 0.5.23 `model_overrides/deepseek_v4.py` on SM 9.0, 10.0 and 12.0), and the
/// bytes a rank at tp 8 either way (the hand sums above).
#[test]
fn expert_scales_by_release_and_sm() {
    use tpsim_model::llm::deepseek_v4::Geometry;
    use tpsim_model::llm::deepseek_v4_weights::{ExpertFormat, sglang_rank_weight_bytes};
    let text = std::fs::read_to_string(data_path("models/deepseek-v4-flash/config.json")).expect("config");
    let cfg = tpsim_model::llm::ModelConfig::from_json(&text).expect("parses");
    let g = Geometry::read(&cfg).expect("reads");
    let (fp32, e8m0) = (ExpertFormat::Fp4Fp32Scales, ExpertFormat::Fp4E8m0Scales);
    for (release, sm, want) in [
        ([0, 5, 14], 12, fp32),
        ([0, 5, 15], 12, e8m0),
        ([0, 5, 18], 9, fp32),
        ([0, 5, 18], 12, e8m0),
        ([0, 5, 19], 9, e8m0),
        ([0, 5, 23], 10, e8m0),
        ([0, 5, 23], 8, fp32),
    ] {
        assert_eq!(
            ExpertFormat::sglang_cuda_by_release(&g, &release, sm),
            want,
            "{release:?} SM {sm}"
        );
    }
    let bytes = |f| sglang_rank_weight_bytes(&g, 8, f).expect("tp 8").total();
    assert_eq!(bytes(fp32), FP32_SCALES);
    assert_eq!(bytes(e8m0), E8M0_SCALES);
    assert_eq!(FP32_SCALES - E8M0_SCALES, 3 * 1_082_130_432);
}

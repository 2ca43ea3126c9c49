//! server58 (issue #18): the RTX PRO 6000 Editions' memory, applied to the hardware templates.
//!
//! qnext57 sourced the Editions' GDDR7 clocks and left the templates at one 1.79 TB/s; server58 applies
//! them, and replaces pcie-nccl-host's assumed `mem_efficiency` 0.80 by a measured one:
//! - Server Edition (`templates/rtx-pro-6000-server.toml`): 12481 MHz → 1.597 TB/s; `mem_efficiency`
//!   0.893, NirakChoun/KernelForge's streaming vector_add on a Max-Q (1,528.5 GB/s) over the bandwidth of
//!   the memory clock it logged under load (13365 MHz, 1,710.7 GB/s), cross-checked by vllm PR 39183's
//!   fused-MoE increment on a Server Edition (1.448 TB/s = 0.906 of 1,597.6 GB/s);
//! - Workstation Edition (`templates/rtx-pro-6000-workstation.toml`): 14001 MHz → 1.792 TB/s, the
//!   Server's 0.893 [assumed to hold at 14001 MHz];
//! - Max-Q Workstation Edition (`templates/rtx-pro-6000-max-q.toml`): 14001 MHz maximum → 1.792 TB/s, and
//!   its own measured 1,528.5 / 1,792.1 = 0.853 (the 300 W cap lowers its memory clock under load).
//!
//! The Workstation rows whose files name their Edition (deplodock's 2026-02-25 Qwen3-Coder-Next sweep,
//! cloudrift's single-GPU AWQ runs) now run GPU 0 of the Workstation preset. Book: validation.md, "RTX
//! PRO 6000 Editions applied (server58)". Nothing here is fitted to a throughput row.

use crate::common::*;

/// The Server Edition's Qwen3-Coder-Next FP8 row at c 8 (deplodock 2026-03-04, newdeploys19).
const SERVER_C8: &str = "validation/qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c8.toml";
/// The Workstation Edition's row of the same recipe at c 8 (deplodock 2026-02-25, deploys30).
const WS_C8: &str = "validation/qwen3-coder-next-fp8-pro6000ws1-vllm-0.15-tp1-4k4k-c8-ctx8k.toml";

/// GDDR7 bandwidth of a 512-bit bus at memory clock `mhz` (nvidia-smi's clock, two transfers a
/// clock as the drivers report it), bytes/s.
fn gddr7_bytes_per_s(mhz: f64) -> f64 {
    mhz * 1e6 * 2.0 * 512.0 / 8.0
}

/// `tpsim validate --hardware PRESET --explain KEY`: (the value as written, the file that sets it).
fn explained(preset: &str, key: &str) -> (String, String) {
    let o = tpsim(&["validate", "--hardware", preset, "--explain", key]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut lines = o.stdout.lines();
    let first = lines.next().unwrap_or_default();
    let value = first
        .split(" = ")
        .nth(1)
        .unwrap_or_default()
        .trim_matches('"')
        .to_string();
    let set_in = lines.next().unwrap_or_default().to_string();
    (value, set_in)
}

/// "1.597TB/s" → 1.597e12.
fn tb_per_s(text: &str) -> f64 {
    text.trim_end_matches("TB/s").parse::<f64>().unwrap() * 1e12
}

/// Each Edition's `memory_bandwidth`, as a preset of that Edition resolves it, is its memory clock's
/// arithmetic: Server 12481 MHz → 1,597.57 GB/s (template 1.597, AWS's "1,597 GB/s"), Workstation and
/// Max-Q 14001 MHz → 1,792.13 GB/s (template 1.792, the datasheet's 1792). Tolerance 0.05 %: the
/// templates round to the published figures (1.597 / 1.59757 − 1 = −0.035 %).
#[test]
fn each_edition_has_its_memory_clocks_bandwidth() {
    for (preset, mhz, template) in [
        (
            "rtx-pro-6000-8x-dual-turin-direct",
            12481.0,
            "rtx-pro-6000-server",
        ),
        (
            "rtx-pro-6000-ws-8x-dual-genoa-direct",
            14001.0,
            "rtx-pro-6000-workstation",
        ),
        (
            "rtx-pro-6000-max-q-8x-kvm-xeon-8468v",
            14001.0,
            "rtx-pro-6000-max-q",
        ),
    ] {
        let (value, set_in) = explained(preset, "gpu.memory_bandwidth");
        let want = gddr7_bytes_per_s(mhz);
        let got = tb_per_s(&value);
        assert!((got / want - 1.0).abs() < 5e-4, "{preset}: {got} vs {want}");
        assert!(
            set_in.contains(&format!("templates/{template}.toml")),
            "{preset}: {set_in}"
        );
    }
}

/// `mem_efficiency` by Edition is the measured streaming fraction (KernelForge docs/stage0.md and
/// docs/roofline.md, Max-Q: vector_add 2 GiB, L2 flushed, 1,528.5 GB/s; memory clock 13365 MHz under
/// load): Server (and the Workstation, inheriting it) 1,528.5 / 1,710.72 = 0.8935 → 0.893; Max-Q
/// 1,528.5 / 1,792.13 = 0.8529 → 0.853 (tolerance 0.0005, the templates' rounding). Cross-check on the
/// Server Edition: PR 39183's fused-MoE call grows (550.28 − 242.00) µs over (243.85 − 101.96) touched
/// 3,145,728-B experts between batches 16 and 96 (tests/tests/pro6k56.rs): 2.173 µs an expert =
/// 1.448 TB/s = 0.906 of 1,597.57 GB/s, 1.5 % above 0.893 (asserted within 1.6 %).
#[test]
fn mem_efficiency_is_the_measured_streaming_fraction() {
    let streaming = 1528.5e9;
    let server_eff = streaming / gddr7_bytes_per_s(13365.0);
    let maxq_eff = streaming / gddr7_bytes_per_s(14001.0);
    assert!((server_eff - 0.8935).abs() < 1e-4, "{server_eff}");
    assert!((maxq_eff - 0.8529).abs() < 1e-4, "{maxq_eff}");
    for (preset, want, template) in [
        (
            "rtx-pro-6000-8x-dual-turin-direct",
            server_eff,
            "rtx-pro-6000-server",
        ),
        (
            "rtx-pro-6000-ws-8x-dual-genoa-direct",
            server_eff,
            "rtx-pro-6000-server",
        ),
        (
            "rtx-pro-6000-max-q-8x-kvm-xeon-8468v",
            maxq_eff,
            "rtx-pro-6000-max-q",
        ),
    ] {
        let (value, set_in) = explained(preset, "hardware.params.mem_efficiency");
        let got: f64 = value.parse().unwrap();
        assert!((got - want).abs() < 5e-4, "{preset}: {got} vs {want}");
        assert!(
            set_in.contains(&format!("templates/{template}.toml")),
            "{preset}: {set_in}"
        );
    }
    let expert_bytes = 3.0 * 2048.0 * 512.0;
    let distinct = |n: f64| 256.0 * (1.0 - (1.0 - 8.0 / 256.0_f64).powf(n));
    let per_expert_s = (550.28 - 242.00) * 1e-6 / (distinct(96.0) - distinct(16.0));
    let pr_eff = expert_bytes / per_expert_s / gddr7_bytes_per_s(12481.0);
    assert!((pr_eff - 0.906).abs() < 1e-3, "{pr_eff}");
    assert!((pr_eff / 0.893 - 1.0).abs() < 0.016, "{pr_eff}");
}

/// The Edition's bandwidth and efficiency reach a row's step exactly where they should.
/// - the memory floor (`floor.memory_floor_ms_per_step`) is the step's bytes over the datasheet rate:
///   bytes ÷ 1.597e12 on the Server row, ÷ 1.792e12 on the Workstation row (tolerance 1e-6 relative);
/// - the lm_head, one bf16 GEMV over Qwen3-Next's 151,936 × 2,048 vocabulary (622,329,856 B) plus one
///   kernel's 2 µs (pcie-nccl-host `kernel_overhead`): 622,329,856 ÷ (0.893 × 1.597e12) s + 0.002 ms =
///   0.43838 ms on the Server row, ÷ (0.893 × 1.792e12) + 0.002 = 0.39089 ms on the Workstation row
///   (tolerance 0.1 %);
/// - the row's median TPOT against the same scenario with the pre-server58 values inline (1.79 TB/s,
///   0.80): every bandwidth-bound part scales by 1.432 ÷ (0.893 × B) and the fixed part (launches,
///   sync) does not, so the ratio lies between 1 and 1.432 / 1.42612 = 1.00412 on the Server row and
///   between 1.432 / 1.60026 = 0.89486 and 1 on the Workstation row. Measured then: Server c 8 13.73 →
///   13.77 ms, Workstation c 8 13.73 → 12.58 ms (the row: 13.24 ms, −7.4 % → +5.3 %).
#[test]
fn server_and_workstation_rows_take_their_editions_bandwidth() {
    let lm_head_bytes = 151_936.0 * 2048.0 * 2.0;
    assert_eq!(lm_head_bytes as u64, 622_329_856);
    for (file, bw, lo, hi) in [
        (SERVER_C8, 1.597e12, 1.0, 1.432 / (0.893 * 1.597)),
        (WS_C8, 1.792e12, 1.432 / (0.893 * 1.792), 1.0),
    ] {
        let v = run_json(&scenario(file));
        let floor = &v["floor"];
        let bytes = (f(&floor["weights_read_gib_per_step"]) + f(&floor["kv_read_gib_per_step"]))
            * (1u64 << 30) as f64;
        let floor_ms = f(&floor["memory_floor_ms_per_step"]);
        assert!(
            (floor_ms / (bytes / bw * 1e3) - 1.0).abs() < 1e-6,
            "{file}: {floor_ms}"
        );
        let lm_head = f(&v["breakdown_by_op"]["lm_head"]);
        let want = lm_head_bytes / (0.893 * bw) * 1e3 + 0.002;
        assert!(
            (lm_head / want - 1.0).abs() < 1e-3,
            "{file}: lm_head {lm_head} vs {want}"
        );
        let old = edited_variant(file, &format!("server58-old-{}", bw as u64), |t| {
            t + "\n[hardware.params]\nmem_efficiency = 0.80\n\n[hardware.gpu]\nmemory_bandwidth = \"1.79TB/s\"\n"
        });
        let tpot = f(&v["serving"]["tpot_ms"]["p50"]);
        let tpot_old = f(&run_json(&old)["serving"]["tpot_ms"]["p50"]);
        let ratio = tpot / tpot_old;
        eprintln!("{file}: median TPOT {tpot_old:.3} -> {tpot:.3} ms ({ratio:.4})");
        assert!((lo..=hi).contains(&ratio), "{file}: {ratio} not in {lo}..{hi}");
    }
}

//! mi300x59 (issue #18): what SGLang runs on MI300X (gfx942, 304 compute units) for the block-FP8 linears
//! and fused MoE of the MiniMax-M2, Llama 4, Kimi-Linear, GLM-5.1 and DeepSeek-V3.1 validation rows, and
//! whether the AITER its ROCm image pins has a tuned gfx942 entry for each shape
//! (`tests/data/aiter-gfx942-shapes.tsv`; book: validation.md, "MI300X untuned shapes (mi300x59)").
//! Nothing is charged from that table. One engine fact read on the way is modelled: SGLang before 0.5.8
//! all-reduces MiniMax-M2's q and k norm statistics apart, two allreduces a layer
//! (`sim::decode::passes::sgl_minimax_qk_norm`). Nothing here is fitted to a throughput row.

use crate::common::{data_path, edited_variant, f, preset_spec, run_json, scenario};
use tpsim_model::llm::Attention;

/// The shapes table's rows as (line, cells), header skipped; panics naming the file when a row does
/// not have the header's 14 cells.
fn shape_rows() -> Vec<(usize, Vec<String>)> {
    let p = data_path("aiter-gfx942-shapes.tsv");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    text.lines()
        .enumerate()
        .skip(1)
        .map(|(i, l)| {
            let cells: Vec<String> = l.split('\t').map(str::to_owned).collect();
            assert_eq!(cells.len(), 14, "aiter-gfx942-shapes.tsv line {}: {l}", i + 1);
            (i + 1, cells)
        })
        .collect()
}

fn num(cell: &str, line: usize) -> u64 {
    cell.parse()
        .unwrap_or_else(|_| panic!("aiter-gfx942-shapes.tsv line {line}: {cell:?} is not a number"))
}

/// Every row's shape is its preset's at the row's TP, and its scenario (a file under
/// `scenarios/validation/` starting with the row's prefix) runs that release at that TP:
/// qkv_proj N = (heads + 2 × kv_heads) × head_dim ÷ TP, K = hidden (MiniMax-M2 at TP 4: 64 × 128 ÷ 4 =
/// 2,048 × 3,072); o_proj N = hidden, K = heads × head_dim ÷ TP (3,072 × 1,536); the MLA q_a / kv_a
/// projection N = q_lora + kv_lora + rope, K = hidden (DeepSeek-V3 2,112 × 7,168, GLM-5 2,624 × 6,144);
/// a fused MoE's model_dim = hidden, inter_dim = expert width ÷ TP, experts and top-k as configured.
#[test]
fn every_shape_follows_its_preset_and_scenario() {
    let rows = shape_rows();
    assert_eq!(rows.len(), 10);
    let validation = std::fs::read_dir(scenario("validation")).expect("scenarios/validation");
    let files: Vec<String> = validation
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    for (line, r) in &rows {
        let (preset, prefix, release, tp, op) = (&r[1], &r[2], &r[3], num(&r[4], *line), r[5].as_str());
        let (n, k) = (num(&r[7], *line), num(&r[8], *line));
        let m = preset_spec(preset);
        let (want_n, want_k) = match (op, m.attention) {
            ("qkv_proj", _) => ((m.heads + 2 * m.kv_heads) * m.head_dim / tp, m.hidden),
            ("o_proj", _) => (m.hidden, m.heads * m.head_dim / tp),
            (
                "qkv_a_proj",
                Attention::Mla {
                    q_lora_rank: Some(q),
                    kv_lora_rank,
                    qk_rope_head_dim,
                    ..
                },
            ) => (q + kv_lora_rank + qk_rope_head_dim, m.hidden),
            ("moe", _) => {
                let moe = m
                    .moe
                    .unwrap_or_else(|| panic!("line {line}: {preset} has no MoE"));
                assert_eq!(num(&r[9], *line), moe.n_routed_experts, "line {line} experts");
                assert_eq!(num(&r[10], *line), moe.num_experts_per_tok, "line {line} topk");
                (m.hidden, moe.moe_intermediate / tp)
            }
            _ => panic!("line {line}: op {op} of {preset}"),
        };
        assert_eq!((n, k), (want_n, want_k), "line {line}: {preset} {op} at TP {tp}");
        let matching: Vec<&String> = files.iter().filter(|f| f.starts_with(prefix.as_str())).collect();
        assert!(!matching.is_empty(), "line {line}: no scenario {prefix}*");
        for file in matching {
            let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).expect("scenario");
            assert!(
                text.contains(&format!("version = \"{release}\"")),
                "{file}: not {release}"
            );
            assert!(text.contains(&format!("tp = {tp}\n")), "{file}: not TP {tp}");
        }
    }
}

/// The MiniMax-M2 1k/1k c 1 row (deploys33: SGLang 0.5.7, 4× MI300X, median TPOT 22.24 ms) against the
/// same file under 0.5.8: the 0.5.7 step carries one more q/k-norm allreduce in each of the 62 layers
/// (`MiniMaxM2RMSNormTP.forward` for q, then for k; `forward_qk` from 0.5.8) and, since mmnorm61, two
/// more q/k-norm kernels (4 compiled launches against `forward_qk`'s 2, `passes::sgl_minimax_qk_norm`),
/// so its TPOT is 62 × (the reported 16 B allreduce, 6.70 µs, custom one-shot + 2 × the MI300X's
/// 4.3 µs a kernel) = 0.949 ms longer (± 0.01 ms: the median of integer-nanosecond steps). The row
/// reads 7.94 → 8.36 (mi300x59) → 9.15 ms (mmnorm61, ± 0.01) against the page's 22.24: +180.1 →
/// +166.1 → +143.0 %, still a known miss; what is left is (22.24 − 9.15) ÷ 62 = 211.1 µs a layer.
#[test]
fn minimax_m2_0_5_7_all_reduces_q_and_k_norms_apart() {
    let file = "validation/minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c1.toml";
    let early = run_json(&scenario(file));
    let late = run_json(&edited_variant(file, "mi300x59-minimax-058", |t| {
        t.replace("version = \"0.5.7\"", "version = \"0.5.8\"")
    }));
    let tpot = |r: &serde_json::Value| f(&r["serving"]["tpot_ms"]["p50"]);
    let qk_us = f(&early["collectives"]["qk_norm_allreduce_us"]);
    assert!((qk_us - 6.70).abs() < 0.01, "{qk_us}");
    let extra = tpot(&early) - tpot(&late);
    assert!(
        (extra - 62.0 * (qk_us + 2.0 * 4.3) / 1000.0).abs() < 0.01,
        "0.5.7 − 0.5.8: {extra} ms"
    );
    assert!((tpot(&late) - 8.21).abs() < 0.01, "0.5.8: {}", tpot(&late));
    assert!((tpot(&early) - 9.15).abs() < 0.01, "0.5.7: {}", tpot(&early));
    let err = 22.24 / tpot(&early) - 1.0;
    assert!((err - 1.430).abs() < 0.003, "{err}");
    let left_us = (22.24 - tpot(&early)) / 62.0 * 1000.0;
    assert!((left_us - 211.1).abs() < 0.3, "{left_us}");
}

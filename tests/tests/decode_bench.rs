//! Issue #18 (decodebench): rows measured with voipmonitor's `llm_decode_bench.py`
//! (github.com/voipmonitor/llm-inference-bench), compared as that bench measures them.
//!
//! What one cell (context `ctx`, concurrency `C`) measures, read in `llm_decode_bench.py` at 3173e65
//! (2026-03-14, the version of the context-depth tables below) and at 3f41e73 (2026-03-30, v0.3.0):
//! - every request of a cell carries the same messages (`run_one_cell` builds one `payload`): an
//!   optional reference document of `ctx` tokens, then the fixed `GENERATION_PROMPT`
//!   (`build_messages`);
//! - a "scout" request with `max_tokens = 1` is sent first when `ctx > 0` ("ensure prefix cache is
//!   warm before launching full concurrency"), then `C` streams start at once;
//! - the window opens only after ≥ 2 s, the server's queue at 0, every stream past its first token,
//!   stable for 1 s (`run_one_cell`, "Dynamic warmup"), and lasts `--duration` (30 s);
//! - the figure is the median of once-a-second rates of the server's generation-token counter
//!   (`vllm:generation_tokens_total`; SGLang's `gen_throughput` gauge) inside the window: decode
//!   tokens per second of a full batch, the prefill outside it;
//! - at 3173e65 each stream sends one request (the page: "Max tokens 512 per request"); from
//!   c547545 (2026-03-30) a finished request restarts at once (`stream_one_request` loops) and
//!   `--max-tokens` defaults to 2048.
//!
//! tpsim states it with existing keys (book/src/scenarios.md, "llm_decode_bench cells"): a closed
//! loop of `C` requests, `prompt_len` = document + prompt tokens, `output_len` = max tokens,
//! `cached_prompt_len` = `prompt_len` (the scout's cache), and reads `throughput.output_tok_s`
//! (decode tokens ÷ decode time, the prefill's first tokens and prefill-only steps excluded).
//! `same_prompt = true` makes the cached prompt one cache entry shared by the C requests, as the
//! bench's C identical payloads share one in the engine's prefix cache (without it tpsim gives each
//! request its own copy, and in 18 cells (ctx 32k C 128, 64k C ≥ 64, 128k C ≥ 32) the C copies did
//! not fit the pool: before the key, those rows ran 24–98 requests at once and missed by −49 to
//! −97 %).

use crate::common::*;

/// Tokens of `GENERATION_PROMPT` inside Qwen3.5's chat template. ASSUMED (no tokenizer file in the
/// repository): 62 pre-tokens (words, single digits — Qwen splits numbers digit by digit — and
/// punctuation, counted with the regex `[A-Za-z]+|\d|[^\sA-Za-z\d]` on the 384-character prompt of
/// 3f41e73 `llm_decode_bench.py` line 76), ≈ 3 more for words the BPE splits, ≈ 10 for
/// `<|im_start|>user\n … <|im_end|>\n<|im_start|>assistant\n<think>\n`.
pub(crate) const PROMPT_TOKENS: u32 = 75;
/// Tokens the document's wrapper adds when `ctx > 0` (`build_messages`: "Below is a large reference
/// document …", the BEGIN/END lines, the assistant turn "I have read the entire reference document.
/// Please ask your question."). ASSUMED as [`PROMPT_TOKENS`]: 36 + 13 pre-tokens, ≈ 10 template tokens.
const WRAPPER_TOKENS: u32 = 60;

/// Document tokens of a `ctx`-labelled cell at 3173e65: the padding text is cut to `ctx × 4`
/// characters (`CHARS_PER_TOKEN = 4`, no calibration before 5a76496 of 2026-03-21), and the padding
/// sentences average 2351 characters per 360 pre-tokens (same regex as [`PROMPT_TOKENS`], over the
/// 20 `PADDING_SENTENCES` joined by spaces): ctx × 4 × 360 / 2351 ≈ 0.61 ctx. ASSUMED (pre-tokens,
/// not the tokenizer).
fn document_tokens(ctx: u32) -> u32 {
    (u64::from(ctx) * 1440 / 2351) as u32
}

/// The prompt of a `ctx`-labelled cell at 3173e65.
fn prompt_tokens(ctx: u32) -> u32 {
    if ctx == 0 {
        PROMPT_TOKENS
    } else {
        document_tokens(ctx) + WRAPPER_TOKENS + PROMPT_TOKENS
    }
}

/// `[workload]` of one llm_decode_bench cell: `c` streams, `prompt` tokens cached by the scout,
/// `max_tokens` per request.
pub(crate) fn bench_workload(c: u32, prompt: u32, max_tokens: u32, cached: bool) -> String {
    let cache = if cached {
        format!("cached_prompt_len = {prompt}\nsame_prompt = true\n")
    } else {
        String::new()
    };
    format!("[workload]\nconcurrency = {c}\nprompt_len = {prompt}\noutput_len = {max_tokens}\n{cache}")
}

/// The page's vLLM launch (benchmarks/inference-throughput/README.md, "vLLM server config (common)")
/// for `checkpoint`, at `c` streams and context label `ctx`, max tokens 512.
fn scenario(checkpoint: &str, ctx: u32, c: u32, mtp: bool) -> String {
    let tag = if checkpoint.contains("AWQ") {
        "awq"
    } else {
        "nvfp4"
    };
    let p = scratch(&format!("decode-bench-{tag}-{ctx}-{c}-{mtp}")).join("s.toml");
    std::fs::write(&p, scenario_text(checkpoint, ctx, c, mtp)).expect("write scenario");
    p.display().to_string()
}

/// The text of [`scenario`]'s file.
fn scenario_text(checkpoint: &str, ctx: u32, c: u32, mtp: bool) -> String {
    let awq = checkpoint.contains("AWQ");
    let (preset, moe) = if awq {
        ("qwen3.5-397b-a17b-awq", "")
    } else {
        // vLLM's NVFP4 MoE oracle falls to FLASHINFER_CUTLASS on SM 12.0 (moe_backend_sm120.rs).
        (
            "qwen3.5-397b-a17b-nvfp4",
            "moe_backend = \"flashinfer_cutlass\"\n",
        )
    };
    format!(
        "seed = 1\n\n[hardware]\npreset = \"rtx-pro-6000-4x-turin-same-numa\"\n\n[model]\npreset = \"{preset}\"\n\n\
         [engine]\nname = \"vllm\"\nversion = \"0.17.0\"\ntp = 4\n{moe}gpu_memory_utilization = 0.9\n\
         max_num_batched_tokens = 8192\nmax_num_seqs = 128\nenable_prefix_caching = true\n\n\
         [engine.env]\nNCCL_P2P_LEVEL = \"SYS\"\n\n{}{}",
        if mtp { MTP2 } else { "" },
        bench_workload(c, prompt_tokens(ctx), 512, true)
    )
}

/// The page's MTP flag (`--speculative-config '{"method":"mtp","num_speculative_tokens":2}'`) with
/// the acceptance of the profile `qwen3.5-397b-mtp-vllm-rtx6kpro` (89.2 % of drafted tokens, the same
/// source's inference-engines/vllm.md: another page and run, not these tables).
const MTP2: &str = "[speculative]\nalgorithm = \"mtp\"\nnum_speculative_tokens = 2\n\
                    acceptance = { profile = \"qwen3.5-397b-mtp-vllm-rtx6kpro\" }\n\n";

/// The project's accuracy target (throughput_rows::TARGET).
const TARGET: f64 = 0.20;

/// Long context at large batch: every request runs (serving.peak_running = C), tpsim's step is slower.
const SHARED: &str = "all C requests run, tpsim's step is slower than measured at batch ≥ 16 and ctx ≥ 16k: \
                      its attention reads each request's KV of the shared document every step; the \
                      measured step cannot have (c 128, 128k: 128 × 80,282 tokens × 15,360 B per GPU = \
                      158 GB, ≥ 88 ms at 1.79 TB/s, ≥ 99 ms at 1.597 since server58, against 27.9 ms \
                      measured over ctx 0); not vLLM's \
                      cascade attention: its 0.17.0 heuristic keeps FlashDecoding for these steps \
                      (shared_rows_are_not_cascaded_by_vllm_017); the mechanism is not known";
/// AWQ at small batch.
const SMALL: &str = "AWQ INT4 at batch 1-4: tpsim's W4A16 MoE step is 19-36 % faster than measured at \
                     every context (the NVFP4 rows are within +17 %); the AWQ kernel's small-batch cost \
                     is not calibrated on SM 12.0 (sm120moe: 27 µs missing per MoE layer at c 1, no SM 12.0 \
                     timing of vLLM's W4A16 MoE kernel found)";

/// Rows outside ±20 % (MTP off), with the reason; the error of each row as this file first ran.
const KNOWN_MISSES: &[(&str, &str)] = &[
    ("AWQ, ctx 0, c 2", SMALL),                    // +36.4 %
    ("AWQ, ctx 0, c 4", SMALL),                    // +29.6 %
    ("AWQ, ctx 16k, c 2", SMALL),                  // +33.1 %
    ("AWQ, ctx 16k, c 4", SMALL),                  // +26.1 %
    ("AWQ, ctx 16k, c 32", SHARED),                // -20.2 % (server58; within before)
    ("AWQ, ctx 16k, c 64", SHARED),                // -28.1 %
    ("AWQ, ctx 16k, c 128", SHARED),               // -33.7 %
    ("AWQ, ctx 32k, c 2", SMALL),                  // +31.6 %
    ("AWQ, ctx 32k, c 4", SMALL),                  // +23.0 %
    ("AWQ, ctx 32k, c 64", SHARED),                // -28.5 %
    ("AWQ, ctx 32k, c 128", SHARED),               // -32.7 %
    ("AWQ, ctx 64k, c 2", SMALL),                  // +30.4 %
    ("AWQ, ctx 64k, c 32", SHARED),                // -27.8 %
    ("AWQ, ctx 64k, c 64", SHARED),                // -35.6 %
    ("AWQ, ctx 64k, c 128", SHARED),               // -39.3 %
    ("AWQ, ctx 128k, c 2", SMALL),                 // +26.1 %
    ("AWQ, ctx 128k, c 16", SHARED),               // -27.4 %
    ("AWQ, ctx 128k, c 32", SHARED),               // -38.2 %
    ("AWQ, ctx 128k, c 64", SHARED),               // -46.9 %
    ("AWQ, ctx 128k, c 128", SHARED),              // -52.2 %
    ("NVFP4 lukealonso, ctx 16k, c 64", SHARED),   // -21.8 %
    ("NVFP4 lukealonso, ctx 16k, c 128", SHARED),  // -28.3 %
    ("NVFP4 lukealonso, ctx 32k, c 64", SHARED),   // -27.1 %
    ("NVFP4 lukealonso, ctx 32k, c 128", SHARED),  // -29.9 %
    ("NVFP4 lukealonso, ctx 64k, c 32", SHARED),   // -24.9 %
    ("NVFP4 lukealonso, ctx 64k, c 64", SHARED),   // -35.2 %
    ("NVFP4 lukealonso, ctx 64k, c 128", SHARED),  // -42.6 %
    ("NVFP4 lukealonso, ctx 128k, c 16", SHARED),  // -28.1 %
    ("NVFP4 lukealonso, ctx 128k, c 32", SHARED),  // -39.2 %
    ("NVFP4 lukealonso, ctx 128k, c 64", SHARED),  // -49.9 %
    ("NVFP4 lukealonso, ctx 128k, c 128", SHARED), // -53.9 %
    ("NVFP4 nvidia, ctx 16k, c 64", SHARED),       // -21.8 %
    ("NVFP4 nvidia, ctx 16k, c 128", SHARED),      // -28.3 %
    ("NVFP4 nvidia, ctx 32k, c 64", SHARED),       // -27.1 %
    ("NVFP4 nvidia, ctx 32k, c 128", SHARED),      // -29.8 %
    ("NVFP4 nvidia, ctx 64k, c 32", SHARED),       // -22.3 %
    ("NVFP4 nvidia, ctx 64k, c 64", SHARED),       // -35.2 %
    ("NVFP4 nvidia, ctx 64k, c 128", SHARED),      // -38.6 %
    ("NVFP4 nvidia, ctx 128k, c 16", SHARED),      // -26.2 %
    ("NVFP4 nvidia, ctx 128k, c 32", SHARED),      // -39.2 %
    ("NVFP4 nvidia, ctx 128k, c 64", SHARED),      // -49.9 %
    ("NVFP4 nvidia, ctx 128k, c 128", SHARED),     // -53.9 %
];

/// MTP=2 at batch 1-4.
const MTP_STEP: &str = "MTP=2 at batch 1-4 (and AWQ at ctx 0): tpsim is 20-46 % fast, as for the same page family's \
                        vLLM 0.17 MTP=2 rows (validation.md, \"The vLLM 0.17 MTP step\": the measured MTP step \
                        costs 1.84x a plain step at batch 1, tpsim's 1.43x); the acceptance is another page's";
/// AWQ with MTP at long context.
const AWQ_MTP: &str = "AWQ + MTP slows with context in the source (C 1: 147 tok/s at ctx 0, 40 at 128k; the page: \
                       root cause not understood, the MTP-off AWQ rows keep 92 %); tpsim has no mechanism that \
                       makes AWQ's MTP step grow with context";

/// MTP-on rows outside ±20 %, with the reason; the error of each row as this file first ran.
const KNOWN_MISSES_MTP: &[(&str, &str)] = &[
    ("AWQ MTP, ctx 0, c 1", MTP_STEP),                 // +46.4 %
    ("AWQ MTP, ctx 0, c 2", MTP_STEP),                 // +35.9 %
    ("AWQ MTP, ctx 0, c 4", MTP_STEP),                 // +40.2 %
    ("AWQ MTP, ctx 16k, c 1", AWQ_MTP),                // +93.8 %
    ("AWQ MTP, ctx 16k, c 2", AWQ_MTP),                // +75.5 %
    ("AWQ MTP, ctx 16k, c 4", AWQ_MTP),                // +76.2 %
    ("AWQ MTP, ctx 16k, c 8", AWQ_MTP),                // +34.9 %
    ("AWQ MTP, ctx 16k, c 128", AWQ_MTP),              // +43.3 %
    ("AWQ MTP, ctx 32k, c 1", AWQ_MTP),                // +140.0 %
    ("AWQ MTP, ctx 32k, c 2", AWQ_MTP),                // +117.3 %
    ("AWQ MTP, ctx 32k, c 4", AWQ_MTP),                // +104.0 %
    ("AWQ MTP, ctx 32k, c 8", AWQ_MTP),                // +54.7 %
    ("AWQ MTP, ctx 32k, c 16", AWQ_MTP),               // +25.6 %
    ("AWQ MTP, ctx 32k, c 128", AWQ_MTP),              // +49.7 %
    ("AWQ MTP, ctx 64k, c 1", AWQ_MTP),                // +239.9 %
    ("AWQ MTP, ctx 64k, c 2", AWQ_MTP),                // +198.7 %
    ("AWQ MTP, ctx 64k, c 4", AWQ_MTP),                // +154.2 %
    ("AWQ MTP, ctx 64k, c 8", AWQ_MTP),                // +88.6 %
    ("AWQ MTP, ctx 64k, c 16", AWQ_MTP),               // +43.7 %
    ("AWQ MTP, ctx 64k, c 32", AWQ_MTP),               // +21.9 %
    ("AWQ MTP, ctx 128k, c 1", AWQ_MTP),               // +400.0 %
    ("AWQ MTP, ctx 128k, c 2", AWQ_MTP),               // +326.3 %
    ("AWQ MTP, ctx 128k, c 4", AWQ_MTP),               // +252.8 %
    ("AWQ MTP, ctx 128k, c 8", AWQ_MTP),               // +146.2 %
    ("AWQ MTP, ctx 128k, c 16", AWQ_MTP),              // +74.8 %
    ("AWQ MTP, ctx 128k, c 32", AWQ_MTP),              // +27.6 %
    ("AWQ MTP, ctx 128k, c 128", AWQ_MTP),             // +140.7 %
    ("NVFP4 lukealonso MTP, ctx 0, c 1", MTP_STEP),    // +28.3 %
    ("NVFP4 lukealonso MTP, ctx 0, c 2", MTP_STEP),    // +29.4 %
    ("NVFP4 lukealonso MTP, ctx 0, c 4", MTP_STEP),    // +31.4 %
    ("NVFP4 lukealonso MTP, ctx 16k, c 1", MTP_STEP),  // +27.4 %
    ("NVFP4 lukealonso MTP, ctx 16k, c 2", MTP_STEP),  // +27.2 %
    ("NVFP4 lukealonso MTP, ctx 16k, c 4", MTP_STEP),  // +27.3 %
    ("NVFP4 lukealonso MTP, ctx 32k, c 1", MTP_STEP),  // +26.5 %
    ("NVFP4 lukealonso MTP, ctx 32k, c 2", MTP_STEP),  // +29.2 %
    ("NVFP4 lukealonso MTP, ctx 32k, c 4", MTP_STEP),  // +28.1 %
    ("NVFP4 lukealonso MTP, ctx 64k, c 1", MTP_STEP),  // +23.8 %
    ("NVFP4 lukealonso MTP, ctx 64k, c 2", MTP_STEP),  // +25.5 %
    ("NVFP4 lukealonso MTP, ctx 64k, c 4", MTP_STEP),  // +23.7 %
    ("NVFP4 lukealonso MTP, ctx 128k, c 1", MTP_STEP), // +26.1 % (pro6k56; +26.3 before; server58: c 2 +19.9 %, within)
    ("NVFP4 lukealonso MTP, ctx 128k, c 64", SHARED),  // -21.9 % (pro6k56; -25.6 before)
    ("NVFP4 lukealonso MTP, ctx 128k, c 128", SHARED), // -26.7 % (pro6k56; -31.1 before; c 32 -20.6 -> -18.7 %, within)
    ("NVFP4 nvidia MTP, ctx 0, c 1", MTP_STEP),        // +34.7 %
    ("NVFP4 nvidia MTP, ctx 0, c 2", MTP_STEP),        // +33.6 %
    ("NVFP4 nvidia MTP, ctx 0, c 4", MTP_STEP),        // +35.3 %
    ("NVFP4 nvidia MTP, ctx 16k, c 1", MTP_STEP),      // +32.6 %
    ("NVFP4 nvidia MTP, ctx 16k, c 2", MTP_STEP),      // +35.2 %
    ("NVFP4 nvidia MTP, ctx 16k, c 4", MTP_STEP),      // +32.6 %
    ("NVFP4 nvidia MTP, ctx 32k, c 1", MTP_STEP),      // +33.9 %
    ("NVFP4 nvidia MTP, ctx 32k, c 2", MTP_STEP),      // +34.2 %
    ("NVFP4 nvidia MTP, ctx 32k, c 4", MTP_STEP),      // +30.0 %
    ("NVFP4 nvidia MTP, ctx 64k, c 1", MTP_STEP),      // +26.7 %
    ("NVFP4 nvidia MTP, ctx 64k, c 2", MTP_STEP),      // +29.1 %
    ("NVFP4 nvidia MTP, ctx 64k, c 4", MTP_STEP),      // +24.8 %
    ("NVFP4 nvidia MTP, ctx 128k, c 1", MTP_STEP),     // +25.3 %
    ("NVFP4 nvidia MTP, ctx 128k, c 2", MTP_STEP),     // +26.9 %
    ("NVFP4 nvidia MTP, ctx 128k, c 64", SHARED),      // -25.0 %
    ("NVFP4 nvidia MTP, ctx 128k, c 128", SHARED),     // -30.5 %
];

fn ctx_label(ctx: u32) -> String {
    if ctx == 0 {
        "0".into()
    } else {
        format!("{}k", ctx / 1024)
    }
}

#[test]
fn prompt_tokens_of_a_cell() {
    // By hand: 16384 × 1440 / 2351 = 10035.4 → 10035 document tokens, + 60 + 75 = 10170;
    // 131072 → 80282.3 → 80282, + 135 = 80417; ctx 0: the prompt alone, 75.
    assert_eq!(prompt_tokens(16384), 10170);
    assert_eq!(prompt_tokens(131072), 80417);
    assert_eq!(prompt_tokens(0), 75);
}

/// Runs every row of decode-bench-ctx.tsv with `mtp` = "on"/"off" against ±20 %, `misses` listing
/// the rows outside it; returns (checkpoint name, ctx, C, measured, predicted) per row.
fn compare(mtp_on: &str, misses: &[(&str, &str)]) -> Vec<(String, u32, u32, f64, f64)> {
    let t = read_tsv(&data_path("decode-bench-ctx.tsv"));
    let (ck, mtp, ctx, conc, tok) = (
        t.col("checkpoint"),
        t.col("mtp"),
        t.col("ctx"),
        t.col("concurrency"),
        t.col("output_tok_s"),
    );
    let mut got: Vec<(String, u32, u32, f64, f64)> = Vec::new();
    let mut unexpected = Vec::new();
    for r in &t.rows {
        if r.get(mtp) != mtp_on {
            continue;
        }
        let checkpoint = r.get(ck).to_string();
        let (x, c): (u32, u32) = (r.get(ctx).parse().unwrap(), r.get(conc).parse().unwrap());
        let measured: f64 = r.get(tok).parse().unwrap();
        let j = run_json(&scenario(&checkpoint, x, c, mtp_on == "on"));
        let predicted = f(&j["throughput"]["output_tok_s"]);
        let name = match (checkpoint.contains("AWQ"), checkpoint.starts_with("nvidia")) {
            (true, _) => "AWQ",
            (false, true) => "NVFP4 nvidia",
            (false, false) => "NVFP4 lukealonso",
        };
        let mtp_tag = if mtp_on == "on" { " MTP" } else { "" };
        let label = format!("{name}{mtp_tag}, ctx {}, c {c}", ctx_label(x));
        let err = predicted / measured - 1.0;
        let miss = misses.iter().find(|(l, _)| *l == label);
        let tag = match miss {
            None => "",
            Some((_, w)) if *w == SMALL => " (known miss: SMALL)",
            Some((_, w)) if *w == SHARED => " (known miss: SHARED)",
            Some((_, w)) if *w == MTP_STEP => " (known miss: MTP_STEP)",
            Some(_) => " (known miss: AWQ_MTP)",
        };
        println!(
            "{label}: measured {measured:.0} tok/s, tpsim {predicted:.1} tok/s, {:+.1} %{tag}",
            err * 100.0
        );
        match (err.abs() <= TARGET, miss) {
            (true, Some(_)) => unexpected.push(format!("{label}: now within ±20 % ({:+.1} %)", err * 100.0)),
            (false, None) => unexpected.push(format!("{label}: {:+.1} % outside ±20 %", err * 100.0)),
            _ => {}
        }
        // Every request runs at once, as in the bench's window (with same_prompt the C documents are
        // one cache entry).
        let peak = j["serving"]["peak_running"].as_u64().unwrap();
        assert_eq!(peak, u64::from(c), "{label}: peak_running {peak}");
        got.push((name.to_string(), x, c, measured, predicted));
    }
    assert_eq!(
        got.len(),
        120,
        "3 checkpoints × 5 contexts × 8 concurrencies, MTP {mtp_on}"
    );
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    got
}

/// Prints tok/s at ctx k ÷ at ctx 0 (same checkpoint and C), measured and tpsim; returns
/// (name, ctx, C, measured ratio, tpsim ratio).
fn ratios(got: &[(String, u32, u32, f64, f64)]) -> Vec<(String, u32, u32, f64, f64)> {
    let mut out = Vec::new();
    for (name, _, c, m0, p0) in got.iter().filter(|g| g.1 == 0) {
        for (n2, x, c2, mk, pk) in got.iter().filter(|g| g.1 > 0) {
            if n2 != name || c2 != c {
                continue;
            }
            let (rm, rp) = (mk / m0, pk / p0);
            println!(
                "{name}, c {c}: tok/s at ctx {} ÷ at ctx 0: measured {rm:.3}, tpsim {rp:.3} ({:+.1} %)",
                ctx_label(*x),
                (rp / rm - 1.0) * 100.0
            );
            out.push((name.clone(), *x, *c, rm, rp));
        }
    }
    out
}

#[test]
fn throughput_context_depth_tables() {
    // VALIDATION, out-of-sample (nothing in tpsim is fitted to these rows): the MTP-off tables of
    // tests/data/decode-bench-ctx.tsv (rtx6kpro benchmarks/inference-throughput/README.md at
    // e799ce2), ±20 % per row, misses listed in KNOWN_MISSES with their reason; then the
    // context-degradation ratio (tok/s at ctx k ÷ at ctx 0, same checkpoint and C) measured vs tpsim.
    let got = compare("off", KNOWN_MISSES);
    // Context degradation at C = 1 (no pool or batch effect): measured 96/104 = 0.923 (AWQ),
    // 77/81 = 0.951, 75/79 = 0.949 (NVFP4) at 128k; tpsim must get it within 5 % of the ratio.
    for (name, x, c, rm, rp) in ratios(&got) {
        if c == 1 {
            assert!(
                (rp / rm - 1.0).abs() < 0.05,
                "{name} ctx {x} c 1: ratio {rp:.3} vs {rm:.3}"
            );
        }
    }
}

#[test]
fn throughput_context_depth_tables_mtp() {
    // VALIDATION of the MTP-on tables (tok/s out-of-sample; the acceptance rate is the same source's
    // measurement on another page, MTP2), ±20 % per row, misses in KNOWN_MISSES_MTP.
    let got = compare("on", KNOWN_MISSES_MTP);
    // NVFP4 MTP at C = 1 keeps its speed with context (measured 122/127 = 0.961 and 123/121 = 1.017
    // at 128k); tpsim within 10 % of the ratio. AWQ MTP collapses in the source (0.272), not in tpsim.
    for (name, x, c, rm, rp) in ratios(&got) {
        if c == 1 && name.starts_with("NVFP4") {
            assert!(
                (rp / rm - 1.0).abs() < 0.10,
                "{name} ctx {x} c 1: ratio {rp:.3} vs {rm:.3}"
            );
        }
    }
}

#[test]
fn shared_rows_are_not_cascaded_by_vllm_017() {
    // Issue #18 (cascade): vLLM 0.17.0's cascade decision (`v1/attention/backends/flash_attn.py`
    // `use_cascade_attention`, `tpsim_model::vllm_cascade`) for the cells of the SHARED rows, with
    // the scenario's numbers: Qwen3.5-397B-A17B's 32 query and 2 KV heads at TP 4 → 8 and 1 per
    // rank (`get_num_kv_heads` = max(1, 2 / 4)); 188 SMs (RTX PRO 6000 preset); vLLM's hybrid
    // attention block of 544 tokens (`tpsim memory --log`); the common prefix the C requests share,
    // the prompt's cached blocks (vLLM recomputes the last prompt token: ⌊(P − 1) / 544⌋ blocks).
    use tpsim_model::vllm_cascade::{CascadeStep, prefix_len};
    let step = |ctx: u32, c: u32, query_len: u32| {
        let p = u64::from(prompt_tokens(ctx));
        CascadeStep {
            common_tokens: (p - 1) / 544 * 544,
            min_computed: p,
            block_size: 544,
            num_reqs: c,
            query_len,
            num_query_heads: 8,
            num_kv_heads: 1,
            windowed: false,
            num_sms: 188,
            dcp: 1,
        }
    };
    for ctx in [16_384, 32_768, 65_536, 131_072] {
        for c in [16, 32, 64, 128] {
            // MTP off: FlashDecoding's ⌈C × tiles / 188⌉ stays below cascade's tiles → no cascade;
            // the measured step's shortfall against C copies of the document is not cascade.
            assert_eq!(prefix_len(&step(ctx, c, 1)), 0, "ctx {ctx} c {c}");
            // MTP 2 (query length 3): not FlashDecoding → vLLM cascades over the cached blocks.
            assert_eq!(
                prefix_len(&step(ctx, c, 3)),
                step(ctx, c, 3).common_tokens,
                "ctx {ctx} c {c} MTP"
            );
        }
    }
    // By hand, ctx 16k (10,170-token prompt): ⌊10,169 / 544⌋ = 18 blocks = 9,792 tokens.
    assert_eq!(prefix_len(&step(16_384, 16, 3)), 9_792);
}

/// [`scenario`]'s file under the test's own scratch name: the scenario paths are shared by the
/// tests of this file, which run in parallel, so a test that edits its scenario edits its own file.
fn own_scenario(name: &str, checkpoint: &str, ctx: u32, c: u32) -> String {
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, scenario_text(checkpoint, ctx, c, false)).expect("write scenario");
    p.display().to_string()
}

#[test]
fn same_prompt_shares_one_cached_document() {
    // NVFP4, ctx 128k (80,417-token prompt), C 32: 32 copies (2.57M tokens) exceed the pool (474,912
    // tokens at 0.9, `tpsim memory`), one shared copy and 32 × (1 + 512) own tokens fit.
    let path = own_scenario(
        "same-prompt-shares",
        "nvidia/Qwen3.5-397B-A17B-NVFP4",
        131_072,
        32,
    );
    let shared = run_json(&path);
    assert_eq!(shared["serving"]["peak_running"].as_u64(), Some(32));
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("same_prompt = true\n", "");
    std::fs::write(&path, text).unwrap();
    let own = run_json(&path);
    let peak = own["serving"]["peak_running"].as_u64().unwrap();
    assert!(peak < 32, "{peak}");
}

#[test]
fn same_prompt_needs_cached_prompt_len() {
    let path = own_scenario("same-prompt-needs-cache", "nvidia/Qwen3.5-397B-A17B-NVFP4", 0, 1);
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("cached_prompt_len = 75\n", "");
    std::fs::write(&path, text).unwrap();
    let o = tpsim(&["run", &path]);
    assert!(
        o.code == 2 && o.stderr.contains("workload.same_prompt") && o.stderr.contains("cached_prompt_len"),
        "{} {}",
        o.code,
        o.stderr
    );
}

#[test]
fn same_prompt_needs_one_prompt_length() {
    // A drawn prompt length is not one prompt: exit 2 naming the key.
    let path = own_scenario("same-prompt-needs-fixed", "nvidia/Qwen3.5-397B-A17B-NVFP4", 0, 1);
    let text = std::fs::read_to_string(&path).unwrap().replacen(
        "\nprompt_len = 75\n",
        "\nprompt_len = { min = 70, max = 80 }\n",
        1,
    );
    std::fs::write(&path, text).unwrap();
    let o = tpsim(&["run", &path]);
    assert!(
        o.code == 2 && o.stderr.contains("workload.same_prompt") && o.stderr.contains("fixed prompt_len"),
        "{} {}",
        o.code,
        o.stderr
    );
}

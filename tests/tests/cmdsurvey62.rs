//! cmdsurvey62 (issue #17): 20 more real, public launch commands of 2026 (rows 213–232 of
//! `tests/data/launch-commands.tsv`: GitHub issues of vLLM, SGLang, vllm-ascend and users' projects,
//! the vLLM recipes' pull requests; vLLM 0.16 – 0.22, SGLang 0.5.11 – 0.5.13). Every row's outcome is
//! checked by cmdsurvey55's `every_surveyed_command_gives_its_recorded_outcome`; this suite counts the
//! new rows' classes (book/src/scenarios.md, "Launch commands surveyed (cmdsurvey62)") and pins each
//! fix of a flag tpsim refused or misread where the engine accepts it, on its row and on variants.

use crate::cmdsurvey55::{class_counts, has_line, on, options, row, survey_rows};
use std::path::Path;
use tpsim::import_command_build::{self as build, Options};

/// Rows 213–232, each naming its source and dated; the classes the book counts: 14 ok (215–219,
/// 221, 222, 223, 224 since vllmmtp64's `glm4_moe_lite_mtp`, 225, 226, 228 since presets64's
/// `qwen3-coder-next-fp8` (SGLang's verdict: OOM at `--mem-fraction-static 0.50` on one RTX 4090), 230,
/// 232), 2 no preset (227, 231), 0 refused by the release, 0 box, 2 not modelled (214: pipeline
/// parallelism on Qwen3.5's mixed layers; 229: DCP on a GQA model), 0 not a command, 0 the user's own
/// path, 2 doubtful (213, 220) (20 = 14 + 2 + 0 + 0 + 2 + 0 + 0 + 2). Before cmdsurvey62's fixes rows
/// 222, 223, 229, 231 and 232 were refused or misread (the book's table).
#[test]
fn the_62_survey_has_20_sourced_rows_in_the_books_classes() {
    let rows = survey_rows(213..=232, |_| false);
    assert_eq!(class_counts(&rows), [14, 2, 0, 0, 2, 0, 0, 2]);
}

/// The scenario a row imports to, loaded (its settled engine).
fn loaded(text: &str) -> tpsim::scenario::Scenario {
    tpsim::scenario::load_str(text, Path::new("imported.toml")).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `o` with the draft acceptance the survey rows give (`alpha = 0.7`).
fn accepting(mut o: Options) -> Options {
    o.acceptance = Some("alpha = 0.7".into());
    o
}

/// Rows 222 (sglang issue 28312, Qwen3.5-9B with NEXTN on a B300) and 223 (sglang issue 28431,
/// Qwen3.5-397B-A17B-FP8 with EAGLE on 8× H100), SGLang 0.5.13, both with `--mamba-scheduler-strategy
/// extra_buffer`. Before cmdsurvey62 tpsim assumed the default strategy and refused them with
/// SGLang's `no_buffer` error ("Speculative decoding for … is not compatible with radix cache when
/// using --mamba-scheduler-strategy no_buffer"), the error the flag avoids. Now the flag is
/// `engine.mamba_scheduler_strategy`: 0.5.13's `_handle_mamba_radix_cache` keeps the radix cache
/// and the overlap scheduler under `extra_buffer` (the wheels' `server_args.py`), and the launch
/// loads with both on. Without the flag the refusal stands.
#[test]
fn extra_buffer_keeps_the_radix_cache_with_speculative_decoding() {
    for n in [222, 223] {
        let r = row(n);
        let i = build::import(&r.command, &options(&r)).unwrap_or_else(|e| panic!("row {n}: {e}"));
        assert!(
            has_line(&i.text, "mamba_scheduler_strategy = \"extra_buffer\""),
            "{}",
            i.text
        );
        let s = loaded(&i.text);
        assert!(s.engine.scheduler.prefix_cache, "row {n}: radix cache");
        assert!(s.engine.overlap_schedule, "row {n}: overlap schedule");
        assert!(
            s.warnings.iter().any(|w| w.contains(
                "SGLang 0.5.13: --mamba-scheduler-strategy extra_buffer keeps the radix cache and the overlap schedule"
            )),
            "{:?}",
            s.warnings
        );
        let without = r
            .command
            .replace("--mamba-scheduler-strategy extra_buffer", "")
            .replace("--mamba-scheduler-strategy=extra_buffer", "");
        let e = build::import(&without, &options(&r)).expect_err("no_buffer");
        assert!(
            e.contains("is not compatible with radix cache when using --mamba-scheduler-strategy no_buffer"),
            "{e}"
        );
    }
}

/// SGLang's refusals of `extra_buffer`, as read in the 0.5.9 – 0.5.13 wheels' `server_args.py`
/// `_handle_mamba_radix_cache`, on variants of row 222's launch: with `--disable-radix-cache`
/// (0.5.10 on), on an AMD GPU (the CUDA assertion), for Granite-4.0-H at 0.5.11
/// (`support_mamba_cache_extra_buffer=False`), `extra_buffer_lazy` with a draft (0.5.13) and, at
/// 0.5.11, a choice the release lacks; vLLM has no such flag.
#[test]
fn extra_buffer_refusals_are_sglangs() {
    let base = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-9B --speculative-algorithm NEXTN \
                --speculative-num-steps 1 --speculative-eagle-topk 1 --speculative-num-draft-tokens 2 \
                --mamba-scheduler-strategy extra_buffer";
    let b200 = |v| accepting(on("b200-8x-nvlink", Some(v)));
    build::import(base, &b200("0.5.11")).expect("0.5.11 imports");
    let e = build::import(&format!("{base} --disable-radix-cache"), &b200("0.5.13")).expect_err("no radix");
    assert!(
        e.contains("\"mamba extra_buffer is not compatible with --disable-radix-cache."),
        "{e}"
    );
    let e = build::import(base, &accepting(on("mi355x-8x-xgmi", Some("0.5.11")))).expect_err("ROCm");
    assert!(
        e.contains("\"Mamba extra_buffer is only supported on CUDA and MUSA devices with FLA backend\""),
        "{e}"
    );
    let granite = "python -m sglang.launch_server --model-path ibm-granite/granite-4.0-h-small \
                   --mamba-scheduler-strategy extra_buffer";
    let e = build::import(granite, &on("h100-sxm-8x-nvlink", Some("0.5.11"))).expect_err("Granite");
    assert!(
        e.contains("\"mamba extra_buffer is not supported for GraniteMoeHybridForCausalLM model\""),
        "{e}"
    );
    let lazy = base.replace("extra_buffer", "extra_buffer_lazy");
    let e = build::import(&lazy, &b200("0.5.13")).expect_err("lazy with a draft");
    assert!(
        e.contains("\"extra_buffer_lazy is not yet supported with speculative decoding."),
        "{e}"
    );
    let e = build::import(&lazy, &b200("0.5.11")).expect_err("0.5.11 choices");
    assert!(e.contains("invalid choice: 'extra_buffer_lazy'"), "{e}");
    let e = build::import(
        "vllm serve Qwen/Qwen3.5-9B --mamba-scheduler-strategy extra_buffer",
        &on("b200-8x-nvlink", Some("0.17.0")),
    )
    .expect_err("vLLM");
    assert!(
        e.contains("unrecognized arguments: --mamba-scheduler-strategy"),
        "{e}"
    );
}

/// Row 231 (sglang issue 29562, `sglang serve --model /data/models/nvidia/GLM-5.2-NVFP4 …`):
/// SGLang 0.5.11's `cli/utils.py` `get_model_path` takes `--model` as well as `--model-path`
/// (0.5.8 – 0.5.10 the literal `--model-path` only). Before cmdsurvey62 tpsim refused `--model` at
/// every release; at 0.5.13 the row now reaches its model (no preset for GLM-5.2), and a bundled
/// model's `sglang serve --model=…` imports there, while 0.5.10 still stops with its text.
#[test]
fn sglang_serve_takes_model_from_0_5_11() {
    let r = row(231);
    let e = build::import(&r.command, &options(&r)).expect_err("no preset");
    assert!(e.contains("is no bundled model preset"), "{e}");
    assert!(!e.contains("--model-path is required"), "{e}");
    let c = "sglang serve --model=Qwen/Qwen3-8B --tp 2";
    let i = build::import(c, &on("rtx-4090-2x-no-p2p", Some("0.5.11"))).expect("0.5.11");
    assert!(has_line(&i.text, "preset = \"qwen3-8b\""), "{}", i.text);
    let e = build::import(c, &on("rtx-4090-2x-no-p2p", Some("0.5.10"))).expect_err("0.5.10");
    assert!(
        e.contains("sglang serve (SGLang 0.5.8 – 0.5.10 `sglang/cli/utils.py` get_model_path) stops with"),
        "{e}"
    );
}

/// Row 229 (vllm issue 40585, vLLM 0.18.0: `--max-num-batched-tokens=8K … -dcp 4` for
/// Qwen3.5-35B-A3B). vLLM parses `--max-num-batched-tokens` with `human_readable_int` (0.9.2 –
/// 0.19.0 `engine/arg_utils.py`: `8K` = 8,192, `8k` = 8,000); before cmdsurvey62 the import wrote
/// the text "8K" into an integer key and the scenario did not load. Now the count is written. The
/// row then meets DCP on a GQA model: vLLM runs it from 0.11.1 (FlashAttention's
/// `can_return_lse_for_decode`), which tpsim does not model, and says so instead of vLLM 0.11.0's
/// refusal, which stays at 0.11.0.
#[test]
fn human_readable_token_counts_and_gqa_dcp() {
    let r = row(229);
    let e = build::import(&r.command, &options(&r)).expect_err("GQA DCP");
    assert!(
        e.contains("DCP on a model without MLA is not modelled: vLLM 0.17.0 runs it"),
        "{e}"
    );
    assert!(has_line(&e, "max_num_batched_tokens = 8192"), "{e}");
    let o = on("h100-sxm-8x-nvlink", Some("0.17.0"));
    for (flag, line) in [
        ("--max-num-batched-tokens=8K", "max_num_batched_tokens = 8192"),
        ("--max-num-batched-tokens 8k", "max_num_batched_tokens = 8000"),
        ("--kv-cache-memory-bytes 2G", "kv_cache_memory_bytes = 2147483648"),
    ] {
        let c = format!("vllm serve Qwen/Qwen3-8B --max-model-len 8192 {flag}");
        let i = build::import(&c, &o).unwrap_or_else(|e| panic!("{flag}: {e}"));
        assert!(has_line(&i.text, line), "{flag}\n{}", i.text);
    }
    let e = build::import(
        "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --decode-context-parallel-size 2",
        &on("h100-sxm-8x-nvlink", Some("0.11.0")),
    )
    .expect_err("0.11.0");
    assert!(
        e.contains("FlashAttentionImpl does not return the softmax lse for decode."),
        "{e}"
    );
}

/// Row 232 (vllm-ascend issue 10313, a Qwen3.5-35B-A3B launch with `--compilation-config
/// '{"cudagraph_capture_sizes":[1,4,…], "cudagraph_mode":"FULL_DECODE_ONLY"}'`, a `qwen3_5_mtp`
/// draft and `--async-scheduling`, imported at vLLM 0.17.0). Before cmdsurvey62 the explicit flag
/// was refused as "async scheduling with speculative decoding is not modelled", while the same
/// launch without it — async by default from 0.14 — was taken with a warning; vLLM 0.17.0's
/// `config/vllm.py` runs both alike for EAGLE/MTP drafts. Now the explicit flag takes the default
/// path (the speculative step simulated synchronously, the warning given), an n-gram draft is
/// refused with vLLM's text, and the capture sizes go to `engine.cudagraph_capture_sizes`.
#[test]
fn explicit_async_with_an_mtp_draft_and_capture_sizes() {
    let r = row(232);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(has_line(&i.text, "async_scheduling = true"), "{}", i.text);
    assert!(
        i.text
            .lines()
            .any(|l| l.starts_with("cudagraph_capture_sizes = [1, 4, 8, 12, 16, 24,")),
        "{}",
        i.text
    );
    assert!(!i.text.contains("\"--compilation-config\""), "{}", i.text);
    assert!(
        i.warnings
            .iter()
            .any(|w| w
                .contains("vLLM >= 0.14 schedules asynchronously by default, with EAGLE/MTP drafting too")),
        "{:?}",
        i.warnings
    );
    let ngram = "vllm serve Qwen/Qwen3-8B --max-model-len 8192 --async-scheduling --speculative-config \
                 '{\"method\": \"ngram\", \"num_speculative_tokens\": 3, \"prompt_lookup_max\": 4}'";
    let e = build::import(ngram, &accepting(on("h100-sxm-8x-nvlink", Some("0.17.0")))).expect_err("ngram");
    assert!(
        e.contains("\"ValueError: Currently, async scheduling is only supported with EAGLE/MTP/Draft Model kind of speculative decoding.\""),
        "{e}"
    );
}

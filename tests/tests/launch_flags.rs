//! Issue #17 (flags): the rest of a real launch command in `engine.extra_args`, and vLLM's
//! `--max-model-len auto`. Each flag is checked against the release's argument list
//! (`tests/data/engine-args/`, extracted from the engines' sources) with argparse's refusal texts;
//! flags a key states are refused naming the key; the rest are accepted, with a warning where tpsim
//! does not model them. The auto-fit length is vLLM's binary search over its one-request check
//! (`v1/core/kv_cache_utils.py` `_auto_fit_max_model_len`, 0.14.0), which is also the estimate its
//! refusal prints (`_estimate_max_model_len_from_groups`).

use crate::common::{scratch, tpsim};
use std::path::Path;
use tpsim::decode::Verdict;
use tpsim::engine_args;
use tpsim::scenario::extra_args::{Effect, human_readable_int};

fn write(name: &str, text: &str) -> String {
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

fn load(text: &str) -> Result<tpsim::scenario::Scenario, tpsim::scenario::ScenarioError> {
    tpsim::scenario::load_str(text, Path::new("flags.toml"))
}

const SGLANG: &str =
    "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\ntp = 1\n";

fn vllm(version: &str, extra: &str) -> String {
    format!(
        "[hardware]\npreset = \"rtx-4090-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
         version = \"{version}\"\ntp = 1\n{extra}"
    )
}

/// The vLLM server flags of a surveyed command (rtx6kpro `inference-engines/vllm.md`, Qwen3.5-397B
/// FP8: `--port 9501 --reasoning-parser qwen3 --enable-auto-tool-choice --tool-call-parser
/// qwen3_coder --served-model-name llm_model`) are vLLM 0.19.0's FrontendArgs / ModelConfig fields
/// and change nothing tpsim predicts: accepted without a warning, printed back verbatim after the
/// keyed flags, and the prediction is the same as without them.
#[test]
fn vllm_server_flags_are_accepted_without_effect() {
    let extra = "extra_args = [\"--port\", \"9501\", \"--reasoning-parser\", \"qwen3\", \"--enable-auto-tool-choice\", \
                 \"--tool-call-parser\", \"qwen3_coder\", \"--served_model_name\", \"llm_model\"]\nmax_model_len = 8192\n";
    let s = load(&vllm("0.19.0", extra)).expect("accepted");
    assert!(
        !s.warnings.iter().any(|w| w.contains("extra_args")),
        "{:?}",
        s.warnings
    );
    let kinds: Vec<_> = s
        .engine
        .extra_args
        .iter()
        .map(|a| (a.flag.as_str(), &a.effect))
        .collect();
    assert_eq!(kinds.len(), 5, "{kinds:?}");
    // `--served_model_name`: vLLM's FlexibleArgumentParser reads `_` as `-`.
    assert_eq!(kinds[4].0, "--served-model-name");
    assert!(
        kinds.iter().all(|(_, e)| matches!(e, Effect::None(_))),
        "{kinds:?}"
    );
    let base = load(&vllm("0.19.0", "max_model_len = 8192\n")).expect("base");
    let (a, b) = (tpsim::plan_memory(&s), tpsim::plan_memory(&base));
    assert_eq!(a.kv_tokens, b.kv_tokens);
    let (pa, pb) = (
        tpsim::predict(&s).expect("run"),
        tpsim::predict(&base).expect("run"),
    );
    assert_eq!(pa.main.total_time, pb.main.total_time);
    assert_eq!(pa.main.iterations, pb.main.iterations);
    let f = write("flags-vllm", &vllm("0.19.0", extra));
    let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
    let tail: Vec<&str> = c.args[c.args.len() - 9..].iter().map(String::as_str).collect();
    assert_eq!(
        tail,
        [
            "--port",
            "9501",
            "--reasoning-parser",
            "qwen3",
            "--enable-auto-tool-choice",
            "--tool-call-parser",
            "qwen3_coder",
            "--served_model_name",
            "llm_model"
        ]
    );
    assert!(
        c.notes
            .iter()
            .any(|n| n.starts_with("engine.extra_args --port: no effect")),
        "{:?}",
        c.notes
    );
}

/// A flag the release does not define stops argparse: `--enable-pcie-oneshot-allreduce` (a fork's
/// flag, used in the rtx6kpro commands) is not in SGLang 0.5.8's `server_args.py`. Exit 2 with the
/// file, the key and argparse's text.
#[test]
fn an_unknown_flag_is_refused_with_argparse_text() {
    let f = write(
        "flags-unknown",
        &format!("{SGLANG}extra_args = [\"--host\", \"0.0.0.0\", \"--enable-pcie-oneshot-allreduce\"]\n"),
    );
    let o = tpsim(&["engine-args", &f]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("scenario.toml")
            && o.stderr.contains("engine.extra_args")
            && o.stderr
                .contains("launch_server.py: error: unrecognized arguments: --enable-pcie-oneshot-allreduce"),
        "{}",
        o.stderr
    );
}

/// Values as argparse checks them (SGLang 0.5.8 and vLLM 0.19.0 lists): `--port` is an int, a switch
/// takes no value (the word left over is an unrecognized argument), `--uvicorn-log-level` has
/// choices (vLLM FrontendArgs `Literal["critical", "error", "warning", "info", "debug", "trace"]`),
/// `--log-level` needs a value.
#[test]
fn bad_values_are_refused_with_argparse_text() {
    let cases = [
        (
            SGLANG.to_string(),
            "[\"--port\", \"abc\"]",
            "argument --port: invalid int value: 'abc'",
        ),
        (
            SGLANG.to_string(),
            "[\"--enable-metrics\", \"yes\"]",
            "unrecognized arguments: yes",
        ),
        (
            SGLANG.to_string(),
            "[\"--log-level\"]",
            "argument --log-level: expected one argument",
        ),
        (
            vllm("0.19.0", "max_model_len = 8192\n"),
            "[\"--uvicorn-log-level\", \"loud\"]",
            "argument --uvicorn-log-level: invalid choice: 'loud' (choose from 'critical', 'error', 'warning', \
             'info', 'debug', 'trace')",
        ),
    ];
    for (base, args, text) in cases {
        let e = load(&format!("{base}extra_args = {args}\n")).expect_err(args);
        let m = e.to_string();
        assert!(m.contains("engine.extra_args") && m.contains(text), "{args}: {m}");
    }
}

/// A flag a key states is refused naming the key (the prediction reads the key): SGLang's `--tp` (a
/// unique prefix of `--tp-size`: argparse's allow_abbrev) and vLLM's `-tp` (its alias of
/// `--tensor-parallel-size`, 0.19.0 `engine/arg_utils.py`) name `engine.tp`; vLLM's
/// `--no-enable-prefix-caching` (BooleanOptionalAction) names `engine.enable_prefix_caching`.
#[test]
fn keyed_flags_name_their_key() {
    let e = load(&format!("{SGLANG}extra_args = [\"--tp\", \"1\"]\n")).expect_err("keyed");
    assert!(
        e.to_string()
            .contains("`--tp` is stated by the scenario key engine.tp"),
        "{e}"
    );
    let v = vllm("0.19.0", "max_model_len = 8192\nextra_args = [\"-tp\", \"1\"]\n");
    let e = load(&v).expect_err("keyed");
    assert!(
        e.to_string()
            .contains("`-tp` is stated by the scenario key engine.tp"),
        "{e}"
    );
    let v = vllm(
        "0.19.0",
        "max_model_len = 8192\nextra_args = [\"--no-enable-prefix-caching\"]\n",
    );
    let e = load(&v).expect_err("keyed");
    assert!(e.to_string().contains("engine.enable_prefix_caching"), "{e}");
}

/// Flags the engine defines that tpsim does not model are accepted with a warning naming them;
/// SGLang's `--stream-interval` and `--sleep-on-idle` are of no effect (0.5.8
/// `scheduler_output_processor_mixin.py` sends streamed tokens to the detokenizer every N tokens;
/// `scheduler.py` `IdleSleeper` polls only when idle), while vLLM's `--stream-interval` batches the
/// API server's output handling, which tpsim's vLLM front end costs per token: not modelled.
#[test]
fn unmodelled_flags_warn_and_no_effect_flags_do_not() {
    let s = load(&format!(
        "{SGLANG}extra_args = [\"--enable-torch-compile\", \"--stream-interval\", \"8\", \"--sleep-on-idle\"]\n"
    ))
    .expect("accepted");
    let warned: Vec<&String> = s.warnings.iter().filter(|w| w.contains("extra_args")).collect();
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(warned[0].contains("`--enable-torch-compile` is accepted by the engine but not modelled"));
    let v = vllm(
        "0.19.0",
        "max_model_len = 8192\nextra_args = [\"--stream-interval\", \"4\"]\n",
    );
    let s = load(&v).expect("accepted");
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("`--stream-interval 4` is accepted by the engine but not modelled")),
        "{:?}",
        s.warnings
    );
}

/// vLLM's `human_readable_int` (0.11.0 `engine/arg_utils.py`): k, m, g, t are powers of 1000 (with
/// decimals), K, M, G, T powers of 1024; `--max-model-len 32k` is 32,000 tokens.
#[test]
fn human_readable_lengths() {
    assert_eq!(human_readable_int("25.6k"), Some(25_600));
    assert_eq!(human_readable_int("1K"), Some(1024));
    assert_eq!(human_readable_int("128k"), Some(128_000));
    assert_eq!(human_readable_int("2M"), Some(2 << 20));
    assert_eq!(human_readable_int("1.5K"), None);
    assert_eq!(human_readable_int("abc"), None);
    let s = load(&vllm("0.19.0", "max_model_len = \"32k\"\n")).expect("32k");
    assert_eq!(s.engine.max_model_len, Some(32_000));
    let e = load(&vllm("0.19.0", "max_model_len = \"lots\"\n")).expect_err("bad");
    assert!(
        e.to_string().contains("engine.max_model_len") && e.to_string().contains("\"auto\""),
        "{e}"
    );
    let e = load(&vllm("0.19.0", "max_model_len = 0\n")).expect_err("zero");
    assert!(e.to_string().contains("expected a positive token count"), "{e}");
}

/// A length past any memory (any positive i64, or a human-readable one saturating there), with
/// `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` set (without it vLLM refuses the length first: flags56), is vLLM's
/// one-request refusal with the right figure, not an overflow: Llama-3.1-8B's KV cell at TP 1 is
/// 32 layers × 2 × 8 KV heads × 128 × 2 B = 2^17 B, so (2^63 − 1) tokens need 2^63 × 2^17 / 2^30 =
/// 2^50 GiB (exact in f64).
#[test]
fn a_length_past_any_memory_is_refused_with_the_right_figure() {
    for spelling in ["9223372036854775807", "\"99999999999999999999k\""] {
        // flags56: past the model's 131,072 positions vLLM refuses unless the env var allows it;
        // with it set, the length reaches the memory check this test is about.
        let extra =
            format!("max_model_len = {spelling}\n[engine.env]\nVLLM_ALLOW_LONG_MAX_MODEL_LEN = \"1\"\n");
        let s = load(&vllm("0.19.0", &extra)).expect("huge");
        assert_eq!(s.engine.max_model_len, Some(i64::MAX as u64), "{spelling}");
        let Verdict::Oom { message, .. } = tpsim::plan_memory(&s).verdict else {
            panic!("{spelling}: expected vLLM's refusal")
        };
        assert!(
            message.contains("(1125899906842624.00 GiB KV cache is needed"),
            "{spelling}: {message}"
        );
    }
}

/// The estimate vLLM prints in its one-request refusal ("… the estimated maximum model length is N").
fn refusal_estimate(v: &Verdict) -> u64 {
    let Verdict::Oom { message, .. } = v else {
        panic!("expected vLLM's refusal, got {v:?}")
    };
    message
        .rsplit(' ')
        .next()
        .and_then(|t| t.trim_end_matches('.').parse().ok())
        .unwrap_or_else(|| panic!("{message}"))
}

/// Llama-3.1-8B on one 24 GB RTX 4090 (vllm_max_model_len.rs: the config's 131,072 tokens need 16 GiB
/// of KV and vLLM refuses). With `--max-model-len auto` (vLLM 0.19.0) the length is the largest that
/// fits: the same binary search over the same need as the refusal's estimate, so exactly that
/// estimate (whole 16-token blocks × 16); the start then succeeds and vLLM's log line is a warning.
/// `-1` and `AUTO` mean the same (`human_readable_int_or_auto`: `value.lower() == "auto"`).
#[test]
fn auto_fits_the_refusals_estimate() {
    let refused = load(&vllm("0.19.0", "")).expect("default length");
    let estimate = refusal_estimate(&tpsim::plan_memory(&refused).verdict);
    assert_eq!(estimate % 16, 0);
    for spelling in ["\"auto\"", "-1", "\"AUTO\""] {
        let s = load(&vllm("0.19.0", &format!("max_model_len = {spelling}\n"))).expect("auto");
        assert_eq!(s.engine.max_model_len, Some(estimate), "{spelling}");
        let p = tpsim::plan_memory(&s);
        assert!(matches!(p.verdict, Verdict::Ok), "{:?}", p.verdict);
        let line = format!(
            "vLLM: \"Auto-fit max_model_len: reduced from 131072 to {estimate} to fit in available GPU memory ("
        );
        assert!(
            s.warnings.iter().any(|w| w.starts_with(&line)),
            "{:?}",
            s.warnings
        );
    }
    // One token more than the fit is refused by the same check.
    let over = load(&vllm("0.19.0", &format!("max_model_len = {}\n", estimate + 1))).expect("over");
    assert!(matches!(tpsim::plan_memory(&over).verdict, Verdict::Oom { .. }));
}

/// On an 80 GB H100 the config's 131,072 tokens (16 GiB of KV) fit: auto keeps the full length and
/// logs vLLM's "full model context length … fits" line.
#[test]
fn auto_keeps_the_full_length_when_it_fits() {
    let text = vllm("0.19.0", "max_model_len = \"auto\"\n").replace("rtx-4090-1x", "h100-sxm-1x");
    let s = load(&text).expect("auto");
    assert_eq!(s.engine.max_model_len, Some(131_072));
    assert!(
        s.warnings.iter().any(|w| w
            == "vLLM: \"Auto-fit max_model_len: full model context length 131072 fits in available GPU memory\""),
        "{:?}",
        s.warnings
    );
}

/// Before vLLM 0.14.0 there is no auto-fit (0.13.0's `engine/arg_utils.py` parses the flag with
/// `human_readable_int`; `human_readable_int_or_auto` and `_auto_fit_max_model_len` first ship in
/// the 0.14.0 wheel): refused, exit 2, naming the key and the release.
#[test]
fn auto_before_0_14_is_refused() {
    let f = write("flags-auto-old", &vllm("0.13.0", "max_model_len = \"auto\"\n"));
    let o = tpsim(&["engine-args", &f]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("engine.max_model_len")
            && o.stderr.contains("vLLM 0.13.0 has no auto-fit")
            && o.stderr.contains("0.14.0"),
        "{}",
        o.stderr
    );
}

/// `tpsim engine-args` prints `--max-model-len auto` (not tpsim's fit), and the fit in a note.
#[test]
fn engine_args_prints_auto() {
    let f = write("flags-auto", &vllm("0.19.0", "max_model_len = \"auto\"\n"));
    let (s, c) = engine_args::for_file(Path::new(&f)).expect("command");
    assert_eq!(c.value_of("--max-model-len"), Some("auto"));
    let fit = s.engine.max_model_len.expect("fitted");
    assert!(
        c.notes
            .iter()
            .any(|n| n.ends_with(&format!("(tpsim's fit: {fit})"))),
        "{:?}",
        c.notes
    );
}

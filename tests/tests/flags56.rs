//! flags56 (issue #17): SGLang `--enable-ep-moe` imported by release, context lengths above the
//! model's with the engines' environment overrides (`scenario::long_context`), and the vLLM 0.33.0
//! (re-extracted) / 0.34.0 flag lists.

use crate::common::{scratch, tpsim};
use crate::engine_args::accepted;
use std::path::PathBuf;
use tpsim::engine_args_versions::list_for;
use tpsim::scenario::EngineKind;

fn write(name: &str, text: &str) -> String {
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// `tpsim import-command` of `cmd` onto `hw` at `version`: (exit code, scenario text, stderr).
fn import(name: &str, hw: &str, version: &str, cmd: &str) -> (i32, String, String, PathBuf) {
    let out = scratch(name).join("imported.toml");
    let _ = std::fs::remove_file(&out);
    let o = tpsim(&[
        "import-command",
        "--hardware",
        hw,
        "--engine-version",
        version,
        "-o",
        &out.display().to_string(),
        cmd,
    ]);
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    (o.code, text, o.stderr, out)
}

const EP_CMD: &str =
    "python -m sglang.launch_server --model-path mistralai/Mixtral-8x7B-v0.1 --tp 8 --enable-ep-moe";

/// SGLang `server_args.py` `__post_init__`: `if self.enable_ep_moe: self.ep_size = self.tp_size` in
/// 0.4.0.post1 – 0.4.9.post6 (`logger.info` to 0.4.5, `logger.warning` from 0.4.6) and 0.4.10.post2 –
/// 0.5.2 (`print_deprecated_warning("NOTE: --enable-ep-moe is deprecated. …")`); 0.4.10 has no such
/// line (ep_size stays 1); 0.5.3/0.5.4 register it with `DeprecatedAction` (`raise ValueError(self.help)`);
/// 0.5.5 on have no flag (argparse's refusal).
#[test]
fn enable_ep_moe_imports_as_the_release_runs_it() {
    for (v, ep, log) in [
        (
            "0.4.0.post1",
            8,
            "logs (info): \"EP MoE is enabled. The expert parallel size is adjusted to be the same as the tensor parallel size[8].\"",
        ),
        ("0.4.6", 8, "logs (warning): \"EP MoE is enabled."),
        ("0.4.10", 1, "leaves ep_size = 1"),
        (
            "0.4.10.post2",
            8,
            "warns: \"NOTE: --enable-ep-moe is deprecated. Please set `--ep-size` to the same value as `--tp-size` instead.\"",
        ),
        ("0.5.2", 8, "NOTE: --enable-ep-moe is deprecated."),
    ] {
        let (code, text, err, _) = import(&format!("ep-{v}"), "h200-8x-nvlink", v, EP_CMD);
        assert_eq!(code, 0, "{v}: {err}");
        assert!(text.contains(&format!("\nep_size = {ep}\n")), "{v}: {text}");
        assert!(text.contains(log), "{v}: {text}");
    }
    let (code, _, err, _) = import("ep-0.5.3", "h200-8x-nvlink", "0.5.3", EP_CMD);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "ValueError: NOTE: --enable-ep-moe is deprecated. Please set `--ep-size` to the same value as `--tp-size` instead."
        ),
        "{err}"
    );
    let (code, _, err, _) = import("ep-0.5.8", "h200-8x-nvlink", "0.5.8", EP_CMD);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--enable-ep-moe"), "{err}");
}

/// The imported 0.4.6 scenario runs as the EP layout: `memory` and `run` take it, its run report differs
/// from the same scenario without `ep_size` (tensor-parallel MoE; the reports compared below their first
/// line, which names the file), and `engine-args` prints `--enable-ep-moe` back (flags55).
#[test]
fn imported_ep_moe_runs_as_the_ep_layout() {
    let (code, text, err, path) = import("ep-run", "h200-8x-nvlink", "0.4.6", EP_CMD);
    assert_eq!(code, 0, "{err}");
    let p = path.display().to_string();
    let tp_only = write("ep-run-tp", &text.replace("\nep_size = 8\n", "\n"));
    assert_ne!(std::fs::read_to_string(&tp_only).expect("tp scenario"), text);
    let m = tpsim(&["memory", &p]);
    assert_eq!(m.code, 0, "{}", m.stderr);
    let body = |s: String| s.lines().skip(1).collect::<Vec<_>>().join("\n");
    let r_ep = tpsim(&["run", &p]);
    let r_tp = tpsim(&["run", &tp_only]);
    assert_eq!(r_ep.code, 0, "{}", r_ep.stderr);
    assert_eq!(r_tp.code, 0, "{}", r_tp.stderr);
    assert_ne!(
        body(r_ep.stdout),
        body(r_tp.stdout),
        "EP and TP MoE layouts report the same run"
    );
    let a = tpsim(&["engine-args", &p]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert!(a.stdout.contains("--enable-ep-moe"), "{}", a.stdout);
}

fn sglang_ctx(v: &str, env: &str) -> String {
    format!(
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
         version = \"{v}\"\ntp = 1\ncontext_length = 200000\n{env}[workload]\nconcurrency = 1\nprompt_len = 128\n\
         output_len = 8\n"
    )
}

/// SGLang `configs/model_config.py` `ModelConfig.__init__`: Llama-3.1-8B's derived length is its
/// max_position_embeddings, 131,072; 200,000 is refused unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN
/// is true (0.5.9: `envs.…get()`, `EnvBool(False)`), which turns it into `logger.warning(msg)`.
#[test]
fn sglang_context_length_override_by_env() {
    let refused = write("ctx-sgl-refused", &sglang_ctx("0.5.9", ""));
    for cmd in ["run", "memory", "engine-args"] {
        let o = tpsim(&[cmd, &refused]);
        assert_eq!(o.code, 2, "{cmd}: {}", o.stdout);
        assert!(
            o.stderr.contains(
                "\"ValueError: Warning: User-specified context_length (200000) is greater than the derived context_length \
                 (131072). This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length \
                 may differ from max_position_embeddings in the model's config. To allow overriding this maximum, set the \
                 env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1\""
            ),
            "{cmd}: {}",
            o.stderr
        );
    }
    let env = "[engine.env]\nSGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN = \"1\"\n";
    let allowed = write("ctx-sgl-allowed", &sglang_ctx("0.5.9", env));
    let warning = "SGLang 0.5.9 takes it and warns: \"Warning: User-specified context_length (200000) is greater than \
                   the derived context_length (131072). This may lead to incorrect model outputs or CUDA errors. Note \
                   that the derived context_length may differ from max_position_embeddings in the model's config.\"";
    let m = tpsim(&["memory", &allowed]);
    assert_eq!(m.code, 0, "{}", m.stderr);
    assert!(
        m.stdout.contains(warning) || m.stderr.contains(warning),
        "{}\n{}",
        m.stdout,
        m.stderr
    );
    let a = tpsim(&["engine-args", &allowed]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    assert!(
        a.stdout.contains("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"),
        "{}",
        a.stdout
    );
    assert!(a.stdout.contains("--context-length 200000"), "{}", a.stdout);
    // EnvBool refuses a value it cannot read (0.5.9 environ.py: '"maybe" is not a valid boolean value').
    let bad = write(
        "ctx-sgl-bad",
        &sglang_ctx("0.5.9", &env.replace("\"1\"", "\"maybe\"")),
    );
    let o = tpsim(&["memory", &bad]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("\"maybe\" is not a valid boolean value"),
        "{}",
        o.stderr
    );
}

/// SGLang 0.4.4.post4 – 0.5.0rc0 read the variable with `default="True"`: 0.4.6 takes the longer
/// length with its warning (no "Note that …" sentence before 0.5.1) unless the variable is "0"; then the
/// 0.4.x refusal, which has no "Warning: " prefix.
#[test]
fn sglang_0_4_6_takes_a_longer_context_by_default() {
    let f = write("ctx-sgl-046", &sglang_ctx("0.4.6", ""));
    let m = tpsim(&["memory", &f]);
    assert_eq!(m.code, 0, "{}", m.stderr);
    let warning = "SGLang 0.4.6 takes it and warns: \"Warning: User-specified context_length (200000) is greater than \
                   the derived context_length (131072). This may lead to incorrect model outputs or CUDA errors.\"";
    assert!(
        m.stdout.contains(warning) || m.stderr.contains(warning),
        "{}\n{}",
        m.stdout,
        m.stderr
    );
    let off = write(
        "ctx-sgl-046-off",
        &sglang_ctx(
            "0.4.6",
            "[engine.env]\nSGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN = \"0\"\n",
        ),
    );
    let o = tpsim(&["memory", &off]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("\"ValueError: User-specified context_length (200000) is greater than the derived"),
        "{}",
        o.stderr
    );
}

fn vllm_mml(v: &str, env: &str) -> String {
    format!(
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
         version = \"{v}\"\ntp = 1\nmax_model_len = 131073\n{env}[workload]\nconcurrency = 1\nprompt_len = 128\n\
         output_len = 8\n"
    )
}

/// vLLM `_get_and_verify_max_len` (0.11.0 `config/model.py`): 131,073 > 131,072 refused — by `run`
/// too now, not only `engine-args` — unless VLLM_ALLOW_LONG_MAX_MODEL_LEN is 1/true (`envs.py`), which
/// makes it `logger.warning_once("%s %s", msg, warning)`; 0.8.5's warning ends "Make sure the value is
/// correct and within the model context size.".
#[test]
fn vllm_max_model_len_override_by_env() {
    let refused = write("mml-refused", &vllm_mml("0.11.0", ""));
    for cmd in ["run", "engine-args"] {
        let o = tpsim(&[cmd, &refused]);
        assert_eq!(o.code, 2, "{cmd}: {}", o.stdout);
        assert!(
            o.stderr.contains(
                "\"ValueError: User-specified max_model_len (131073) is greater than the derived max_model_len \
                 (max_position_embeddings=131072 or model_max_length=None in model's config.json). To allow overriding \
                 this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. VLLM_ALLOW_LONG_MAX_MODEL_LEN must be \
                 used with extreme caution."
            ),
            "{cmd}: {}",
            o.stderr
        );
    }
    let env = "[engine.env]\nVLLM_ALLOW_LONG_MAX_MODEL_LEN = \"1\"\n";
    for (v, tail) in [
        (
            "0.11.0",
            "in model's config.json). VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution.",
        ),
        (
            "0.8.5",
            "This may lead to incorrect model outputs or CUDA errors. Make sure the value is correct and within the model \
             context size.\"",
        ),
    ] {
        let f = write(&format!("mml-allowed-{v}"), &vllm_mml(v, env));
        let m = tpsim(&["memory", &f]);
        assert_eq!(m.code, 0, "{v}: {}", m.stderr);
        let all = format!("{}\n{}", m.stdout, m.stderr);
        assert!(
            all.contains(&format!("vLLM {v} takes it and warns")) && all.contains(tail),
            "{v}: {all}"
        );
        let a = tpsim(&["engine-args", &f]);
        assert_eq!(a.code, 0, "{v}: {}", a.stderr);
        assert!(
            a.stdout.contains("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"),
            "{}",
            a.stdout
        );
        assert!(a.stdout.contains("--max-model-len 131073"), "{}", a.stdout);
    }
}

/// `import-command` keeps the variables from `VAR=1 cmd`, `env VAR=1 cmd` and `docker run -e VAR=1`
/// in `[engine.env]`, so the imported scenario runs with the warning instead of being refused.
#[test]
fn import_keeps_the_long_context_variables() {
    for (name, v, cmd, var) in [
        (
            "imp-vllm",
            "0.11.0",
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131073",
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN",
        ),
        (
            "imp-sgl-env",
            "0.5.9",
            "env SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 python -m sglang.launch_server --model-path \
             meta-llama/Llama-3.1-8B-Instruct --context-length 200000",
            "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
        ),
        (
            "imp-sgl-docker",
            "0.5.9",
            "docker run --gpus all -e SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 lmsysorg/sglang:v0.5.9 python -m \
             sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 200000",
            "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
        ),
    ] {
        let (code, text, err, path) = import(name, "h100-sxm-1x", v, cmd);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(
            text.contains(&format!("[engine.env]\n{var} = \"1\"")),
            "{name}: {text}"
        );
        let m = tpsim(&["memory", &path.display().to_string()]);
        assert_eq!(m.code, 0, "{name}: {}", m.stderr);
    }
}

/// vLLM 0.33.0's list re-extracted: `max_num_seqs` is `int | None` in its `EngineArgs` and `int` in
/// `config/scheduler.py`, `enable_prefix_caching` `bool` (`config/cache.py`); the list committed before
/// had `str` for both. 0.34.0's list: `--enable-extensible-kv-cache` is new there (0.33.0 has none).
#[test]
fn vllm_0_33_and_0_34_lists() {
    let l33 = accepted("vllm-0.33.0.txt");
    assert_eq!(l33.get("--max-num-seqs").map(|f| f.kind.as_str()), Some("int"));
    assert_eq!(
        l33.get("--enable-prefix-caching").map(|f| f.kind.as_str()),
        Some("flag")
    );
    assert_eq!(
        l33.get("--enable-chunked-prefill").map(|f| f.kind.as_str()),
        Some("flag")
    );
    assert!(!l33.contains_key("--enable-extensible-kv-cache"));
    let l34 = accepted("vllm-0.34.0.txt");
    assert!(l34.contains_key("--enable-extensible-kv-cache"));
    assert_eq!(
        list_for(EngineKind::Vllm, "0.34.0").map(|l| l.version),
        Some("0.34.0")
    );
    assert_eq!(
        list_for(EngineKind::Vllm, "0.33.1").map(|l| l.version),
        Some("0.33.0")
    );
    // A bare `--enable-prefix-caching` is a switch at 0.33.0: before, it took `--max-num-seqs` as its value.
    let (code, text, err, _) = import(
        "imp-033",
        "h100-sxm-1x",
        "0.33.0",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --enable-prefix-caching --max-num-seqs 8",
    );
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("enable_prefix_caching = true"), "{text}");
    assert!(text.contains("max_num_seqs = 8"), "{text}");
}

/// SGLang 0.4.10 `server_args.py` has no `ep_size = tp_size` under `--enable-ep-moe` (0.4.9.post6 and
/// 0.4.10.post2 have it): `engine-args` prints `--ep-size 8 --enable-ep-moe` there, and 0.4.10.post2 (its
/// own list now) `--enable-ep-moe` alone, as 0.4.0.post1 – 0.4.9 (flags55).
#[test]
fn ep_moe_at_0_4_10_needs_the_ep_size_too() {
    assert_eq!(
        list_for(EngineKind::Sglang, "0.4.10.post2").map(|l| l.version),
        Some("0.4.10.post2")
    );
    for (v, ep_size_printed) in [("0.4.10", true), ("0.4.10.post2", false)] {
        let (code, text, err, path) = import(
            &format!("ep410-{v}"),
            "h200-8x-nvlink",
            v,
            "python -m sglang.launch_server --model-path mistralai/Mixtral-8x7B-v0.1 --tp 8 --ep-size 8 --enable-ep-moe",
        );
        assert_eq!(code, 0, "{v}: {err}");
        assert!(text.contains("\nep_size = 8\n"), "{v}: {text}");
        let a = tpsim(&["engine-args", &path.display().to_string()]);
        assert_eq!(a.code, 0, "{v}: {}", a.stderr);
        assert!(a.stdout.contains("--enable-ep-moe"), "{v}: {}", a.stdout);
        assert_eq!(
            a.stdout.contains("\n  --ep-size 8"), // the argument line (the notes quote it too)
            ep_size_printed,
            "{v}: {}",
            a.stdout
        );
    }
}

//! cmdsurvey58 (issue #17): 47 more real, public launch commands (rows 150–196 of
//! `tests/data/launch-commands.tsv`: GitHub issues and pull requests of vLLM, SGLang, their forks and
//! projects using them, 2024–2026), chosen for shapes the first two surveys had little of: pipeline
//! parallelism, DP attention and EP, EAGLE / MTP drafts, LoRA, Kubernetes manifests, bash arrays and
//! `$(…)`, Hugging Face cache paths, other engines. Every row's outcome is checked by cmdsurvey55's
//! `every_surveyed_command_gives_its_recorded_outcome` (it reads the whole table); this suite counts
//! the new rows' classes (book/src/scenarios.md, "Launch commands surveyed (cmdsurvey58)") and pins
//! each importer fix on its row and on a variant with a bundled model.

use crate::cmdsurvey55::{class_counts, has_line, on, options, row, survey_rows};
use crate::common::{scratch, tpsim};
use tpsim::import_command_build::{self as build, hub_cache_repo};

/// Rows 150–196: each names its source (a repository thread) and a date unless "date not read"
/// stands for it; the classes the book counts: 10 ok (rows 153, 167 and 177 since presets59's
/// `llama-2-7b-chat`, `Qwen/Qwen3.6-35B-A3B` alias and `qwen3-vl-32b-instruct`), 19 no preset, 1 refused
/// by the release, 0 box, 6 not modelled (row 190's KTransformers flags since presets58's
/// Qwen3-Coder-30B-A3B preset; row 186 since dsv4_64: its `SGLANG_SHARED_EXPERT_TP1=1` and Marlin fp4
/// experts pass SGLang's tp-16 rule, and DeepSeek-V4 with DP attention is not modelled), 3 not a command,
/// 5 the user's own path, 3 doubtful (47 = 10 + 19 + 1 + 0 + 6 + 3 + 5 + 3). presets64's Qwen FP8
/// presets move rows 168 (`qwen3.6-35b-a3b-fp8`, imported with `--acceptance 'alpha = 0.7'`), 173
/// (`qwen3-8b-fp8`), 192 (`qwen3-vl-32b-instruct-fp8`) and 194 (`qwen3-4b-fp8`) from no preset to ok:
/// 14 ok, 15 no preset (47 = 14 + 15 + 1 + 0 + 6 + 3 + 5 + 3).
#[test]
fn the_58_survey_has_47_sourced_rows_in_the_books_classes() {
    let rows = survey_rows(150..=196, |r| r.source.contains("date not read"));
    assert_eq!(class_counts(&rows), [14, 15, 1, 0, 6, 3, 5, 3]);
}

/// Row 164 (baidu/vLLM-Kunlun issue 259): a script whose `export VLLM_HOST_IP=$(hostname -i)` and
/// `echo "VLLM_HOST_IP: $VLLM_HOST_IP"` come before `nohup python -m vllm.entrypoints.openai.api_server
/// … --model /data/Qwen3.5-35B-A3B --tensor-parallel-size 2 --dtype float16 --block-size 128 …`. Bash
/// keeps a command substitution in one word (Bash manual 3.5.4); before cmdsurvey58 shlex split it
/// into `$(hostname` and `-i)`, so the notes read `VLLM_HOST_IP=$(hostname`. Now the value is whole.
/// The command's keys: tp 2, `max_model_len` 32768, fp16, page 128; on 2× RTX PRO 6000 (the post's
/// Kunlun XPUs have no preset) `tpsim memory` says it starts. A variant whose `--host $(hostname -i)`
/// would otherwise leave `-i)` as an argument for argparse imports with `--host` left out.
#[test]
fn a_command_substitution_is_one_word() {
    let r = row(164);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    for line in [
        "preset = \"qwen3.5-35b-a3b\"",
        "tp = 2",
        "max_model_len = 32768",
        "dtype = \"float16\"",
        "page_size = 128",
    ] {
        assert!(has_line(&i.text, line), "{line}\n{}", i.text);
    }
    let notes = i.notes.join("\n");
    assert!(notes.contains("VLLM_HOST_IP=$(hostname -i) "), "{notes}");
    assert!(notes.contains("echo VLLM_HOST_IP: $(hostname -i)"), "{notes}");
    let d = scratch("cmdsurvey58-subst");
    let f = d.join("s.toml");
    std::fs::write(&f, &i.text).expect("write");
    let o = tpsim(&["memory", f.to_str().expect("utf-8")]);
    assert!(o.stdout.contains("Verdict: starts"), "{}{}", o.stdout, o.stderr);

    let c = "vllm serve Qwen/Qwen3-8B --host $(hostname -i) --port 8000 --max-model-len 8192";
    let i = build::import(c, &on("rtx-4090-1x", None)).expect("imports");
    assert!(has_line(&i.text, "max_model_len = 8192"), "{}", i.text);
    assert!(
        i.notes
            .iter()
            .any(|n| n.starts_with("--host $(hostname -i): the server's address")),
        "{:?}",
        i.notes
    );
}

/// Row 174 (sglang issue 19104, the diffusion docs' launch): `SERVER_ARGS=(` one flag a line `)` then
/// `sglang serve "${SERVER_ARGS[@]}"`. A bash array expands to its elements as separate words (Bash
/// manual 6.7); before cmdsurvey58 the array's lines were separate commands and `sglang serve` alone
/// met SGLang's "Error: --model-path is required". Now the flags reach SGLang 0.5.9's argparse, which
/// refuses `--text-encoder-cpu-offload`, and the refusal says why that need not be the engine's
/// verdict: `sglang serve` starts its diffusion server, with other arguments, when the model's
/// directory holds a diffusers `model_index.json` (0.5.9 `sglang/cli/serve.py`,
/// `cli/utils.py` `is_diffusers_model_path`). An array naming a bundled model imports; a bundled
/// (language) model's refusal carries no diffusion clause.
#[test]
fn a_bash_array_is_expanded() {
    let r = row(174);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(
        e.contains("unrecognized arguments: --text-encoder-cpu-offload"),
        "{e}"
    );
    assert!(
        e.contains("unless `black-forest-labs/FLUX.2-klein-4B` is a diffusion model"),
        "{e}"
    );
    assert!(!e.contains("--model-path is required"), "{e}");

    let c = "ARGS=(\n  --model-path Qwen/Qwen3-8B\n  --tp 2\n)\nsglang serve \"${ARGS[@]}\" --port 30000";
    let i = build::import(c, &on("rtx-4090-2x-no-p2p", Some("0.5.9"))).expect("imports");
    assert!(has_line(&i.text, "preset = \"qwen3-8b\""), "{}", i.text);
    assert!(has_line(&i.text, "tp = 2"), "{}", i.text);
    assert!(
        has_line(&i.text, "extra_args = [\"--port\", \"30000\"]"),
        "{}",
        i.text
    );
    let e = build::import(
        "sglang serve --model-path Qwen/Qwen3-8B --num-gpus 1",
        &on("h100-sxm-1x", Some("0.5.9")),
    )
    .expect_err("refused");
    assert!(e.contains("unrecognized arguments: --num-gpus"), "{e}");
    assert!(!e.contains("diffusion"), "{e}");
    // Row 186 (sglang PR 23933, DeepSeek-V4-Pro, `--moe-runner-backend marlin`): at 0.5.9 the value is
    // no choice (marlin is one from 0.5.12); a bad value of the language server's own flag says
    // nothing of the diffusion server.
    let r = row(186);
    let e = build::import(&r.command, &on("h200-16x-2node-ib", Some("0.5.9"))).expect_err("refused");
    assert!(
        e.contains("argument --moe-runner-backend: invalid choice: 'marlin'"),
        "{e}"
    );
    assert!(!e.contains("diffusion"), "{e}");
}

/// Row 156 (sglang-jax PR 378): `python3 -u -m sgl_jax.launch_server … --device=tpu --tp-size 4 …`.
/// SGLang's TPU support is SGLang-JAX, a separate engine in its own repository (SGLang docs
/// `docs/platforms/tpu.md`); before cmdsurvey58 tpsim said only "no engine launch found".
#[test]
fn sglang_jax_is_named() {
    let r = row(156);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(
        e.starts_with("python -m sgl_jax.launch_server is SGLang-JAX"),
        "{e}"
    );
    assert!(!e.contains("no engine launch found"), "{e}");
}

/// Row 182 (kubernetes-sigs/wg-serving PR 72): a Deployment's `command: [python3, -m,
/// vllm.entrypoints.openai.api_server]` and `args: [--model=$(MODEL_ID),
/// --tensor-parallel-size=$(TENSOR_PARALLEL_SIZE)]`, joined. In the manifest `$(NAME)` is the
/// container's `env` variable (Kubernetes docs, "Define Dependent Environment Variables"), which the
/// command does not hold: vLLM 0.8.5's argparse would see the literal text, and the refusal now says
/// what `$(…)` is (before: "a shell variable the text does not set").
#[test]
fn a_kubernetes_env_reference_is_named() {
    let r = row(182);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(e.contains("invalid int value: '$(TENSOR_PARALLEL_SIZE)'"), "{e}");
    assert!(
        e.contains("a command substitution in a shell, or in a Kubernetes manifest's `command`/`args`"),
        "{e}"
    );
}

/// Row 189 (zai-org/GLM-V issue 224, vLLM 0.12.0): `--mm-encoder-tp-mode data \ ` has a blank after the
/// backslash. Bash quotes the blank (Bash manual 3.1.2.1), so the command ends there with one more
/// argument, a single space, and the lines after it are other commands; vLLM's argparse stops with
/// "unrecognized arguments: " and a blank. Before cmdsurvey58 tpsim gave that text alone; now it
/// names the line. The same command without the blank gets past argparse to its model (no preset
/// for GLM-4.6V-FP8).
#[test]
fn a_blank_after_the_backslash_is_named() {
    let r = row(189);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(e.contains("error: unrecognized arguments: "), "{e}");
    assert!(
        e.contains("the line `--mm-encoder-tp-mode data \\` ends in `\\` followed by a blank"),
        "{e}"
    );
    let fixed = r.command.replace("data \\ \n", "data \\\n");
    assert_ne!(fixed, r.command);
    let e = build::import(&fixed, &options(&r)).expect_err("no preset");
    assert!(e.contains("GLM-4.6V-FP8` is no bundled model preset"), "{e}");
}

/// Row 195 (sglang issue 7883): `--model-path /home/zigzagcai/downloaded_huggingface/models--Qwen--Qwen3-8B/
/// snapshots/2069b3fa…`, a path into the Hugging Face hub cache. huggingface_hub names a model's cache
/// folder `models--ORG--NAME` (`file_download.py` `repo_folder_name`, separator `--`) and keeps each
/// revision under `snapshots/`, so the path is `Qwen/Qwen3-8B` (preset `qwen3-8b`); before cmdsurvey58
/// tpsim looked its last component, a commit hash, up as a repository name and found no preset. On one
/// H100 under SGLang 0.4.10 it starts.
#[test]
fn a_hugging_face_cache_path_names_its_repository() {
    assert_eq!(
        hub_cache_repo("/x/models--Qwen--Qwen3-8B/snapshots/2069b3fa").as_deref(),
        Some("Qwen/Qwen3-8B")
    );
    assert_eq!(
        hub_cache_repo("/x/hub/models--openai--gpt-oss-20b/").as_deref(),
        Some("openai/gpt-oss-20b")
    );
    assert_eq!(hub_cache_repo("/x/snapshots/abc"), None);
    assert_eq!(
        hub_cache_repo("/x/models--gpt2/snapshots/abc").as_deref(),
        Some("gpt2")
    );
    let r = row(195);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(has_line(&i.text, "preset = \"qwen3-8b\""), "{}", i.text);
    assert!(
        i.notes
            .iter()
            .any(|n| n.contains("a Hugging Face hub cache folder of `Qwen/Qwen3-8B`")),
        "{:?}",
        i.notes
    );
    let d = scratch("cmdsurvey58-hub");
    let f = d.join("s.toml");
    std::fs::write(&f, &i.text).expect("write");
    let o = tpsim(&["memory", f.to_str().expect("utf-8")]);
    assert!(o.stdout.contains("Verdict: starts"), "{}{}", o.stdout, o.stderr);
}

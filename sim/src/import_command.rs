//! Issue #17 (cmdparse): `tpsim import-command`, the reverse of `tpsim engine-args` — a user's launch
//! line (`vllm serve …`, `python -m sglang.launch_server …`, with environment assignments in front,
//! `export` lines, `\` continuations, or inside `docker run … IMAGE …`) read into a scenario.
//!
//! This file finds the command in the text: words split as a POSIX shell splits them (the `shlex`
//! crate: quotes, escapes, `\`-newline continuations, `#` comments), the environment (`K=V` words
//! before the program, `export K=V` lines, `docker run -e K=V`), the engine and, from a Docker image
//! tag, its release. `import_command_flags` reads the flags into keys and writes the TOML.
//!
//! Programs recognised, each as the engine documents its launch:
//! - vLLM: `vllm serve MODEL …` (`vllm/entrypoints/cli/serve.py`; any path ending in `vllm`) and
//!   `python -m vllm.entrypoints.openai.api_server --model MODEL …` (the older entry point, the same
//!   arguments: `vllm/entrypoints/openai/cli_args.py`);
//! - SGLang: `python -m sglang.launch_server …` (`sglang/launch_server.py`) and `sglang serve …` (the
//!   `sglang` console script of SGLang 0.5.8's wheel, `sglang/cli/main.py` → `cli/serve.py`, which
//!   hands the words after `serve` to the same `prepare_server_args` as `launch_server`);
//! - Docker: `docker run [options] IMAGE [command]` (`podman run` alike). An image whose name holds
//!   `vllm` without a command runs the image's entry point, vLLM's OpenAI server (the
//!   `vllm/vllm-openai` Dockerfile's `ENTRYPOINT`), so the words after the image are its arguments;
//!   a tag `vX.Y.Z…` (`vllm/vllm-openai:v0.11.0`, `lmsysorg/sglang:v0.5.8-cu129`) is the release.
//!   A shell as the command (`IMAGE bash -c "pip install … && python3 -m sglang.launch_server …"`, or
//!   `--entrypoint /bin/bash IMAGE -lc "…"`) runs its string, read for the engine; a model path
//!   under a bind mount (`-v HOST:CONTAINER`) is read as the host's path (cmdsurvey55).

use crate::import_command_shell as shell;
use crate::scenario::EngineKind;
use std::collections::BTreeMap;

/// A launch command found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub engine: EngineKind,
    /// The release a Docker image tag names (`None`: no tag, or one that names no release).
    pub image_version: Option<String>,
    /// The environment given to the server (assignments, `export`, `docker -e`), in order of appearance.
    pub env: BTreeMap<String, String>,
    /// The arguments after the program (vLLM: the positional model may come first).
    pub args: Vec<String>,
    /// What was read around the command, one line each (other commands skipped, Docker's image).
    pub notes: Vec<String>,
    /// Started as `sglang serve`: SGLang's argparse then names its program `sglang` (the console
    /// script's `sys.argv[0]`, argparse's default `prog`), not `launch_server.py`.
    pub sglang_serve: bool,
    /// cmdsurvey55: `docker run -v HOST:CONTAINER` bind mounts, (container path, host path): a model
    /// path inside the container is read by the host directory it mounts.
    pub mounts: Vec<(String, String)>,
}

/// Splits `text` into shell commands (a newline, `;`, `&&`, `||` or `|` ends one; `\`-newline
/// continues it) and returns each command's words. `Err`: a quote left open.
pub fn commands(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        // A trailing `\` continues the command on the next line: joined with a space here (shlex
        // would read `\`-newline after a blank as an empty word, where a shell reads nothing).
        if let Some(head) = line.strip_suffix('\\').filter(|h| !h.ends_with('\\')) {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        // cmdsurvey57: `$((85 * 1024))` is bash's arithmetic, done before the words are split.
        // cmdsurvey58: `$(hostname -i)` is one word (its blanks held while shlex splits).
        let shell_line = shell::hold_substitutions(&shell::arithmetic(&pending));
        // cmdsurvey60: an open backquote, like an open quote, runs on to the next line.
        let words = shlex::split(&shell_line).filter(|_| !shell::open_backquote(&shell_line));
        let Some(words) = words else {
            // An open quote: the value runs on to the next line, as in a shell.
            pending.push('\n');
            continue;
        };
        pending.clear();
        split_operators(&mut out, &words);
    }
    if !pending.trim().is_empty() {
        let shell_line = shell::hold_substitutions(&shell::arithmetic(&pending));
        if shell::open_backquote(&shell_line) {
            return Err(format!(
                "the command has an unmatched backquote (bash stops with \"unexpected EOF while looking for matching \
                 ``'\" and runs nothing; a `…` pair is a command substitution): {}",
                pending.trim()
            ));
        }
        // cmdsurvey60 (QwenLM/Qwen3-VL issue 1746): the text ends after a `\`-newline; the shell
        // removes the pair (Bash manual 3.1.2.1) and the end of the input ends the command.
        match shlex::split(&shell_line) {
            Some(words) => split_operators(&mut out, &words),
            None => {
                return Err(format!(
                    "the command has an unclosed quote (a POSIX shell would wait for more input): {}",
                    pending.trim()
                ));
            }
        }
    }
    out.retain(|c| !c.is_empty());
    Ok(out)
}

/// Appends the commands of one line's `words` to `out`: `;`, `&&`, `||`, `|` and `&` end one.
fn split_operators(out: &mut Vec<Vec<String>>, words: &[String]) {
    let mut cur = Vec::new();
    for w in words.iter().map(|w| shell::release(w)) {
        if matches!(w.as_str(), ";" | "&&" | "||" | "|" | "&") {
            out.push(std::mem::take(&mut cur));
        } else if let Some(w) = w.strip_suffix(';').filter(|w| !w.is_empty()) {
            cur.push(w.to_string());
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(w);
        }
    }
    out.push(cur);
}

/// The launch command in `text`: the first command that starts an engine; `export` lines before it
/// add to its environment.
pub fn find(text: &str) -> Result<Launch, String> {
    find_in(commands(text)?).map_err(|e| {
        // cmdsurvey57 (vllm issue 22793, a command pasted with an empty line after each `\`): in a
        // shell the continuation joins the empty line, which ends the command.
        let broken = text
            .lines()
            .zip(text.lines().skip(1))
            .any(|(a, b)| a.trim_end().ends_with('\\') && b.trim().is_empty());
        if broken {
            format!(
                "{e} (a line ending in `\\` followed by an empty line ends the command there, as in a shell: \
                 remove the empty lines)"
            )
        } else {
            e
        }
    })
}

/// [`find`] over commands already split into words (`tpsim import-command -- vllm serve …`).
pub fn find_in(cmds: Vec<Vec<String>>) -> Result<Launch, String> {
    let mut exported = BTreeMap::new();
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    let mut skipped = Vec::new();
    let mut args_only = false;
    // cmdsurvey58: bash arrays (`ARGS=(` … `)`, then `"${ARGS[@]}"`), and the one still open.
    let mut arrays: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut open: Option<(String, Vec<String>)> = None;
    let mut queue: std::collections::VecDeque<Vec<String>> = cmds.into();
    while let Some(words) = queue.pop_front() {
        // cmdsurvey60 (kserve issue 5773, `eval "exec vllm serve /mnt/models …"`): `eval` joins its
        // arguments with blanks and runs the result as the shell's input (Bash manual 4.1).
        if words.first().is_some_and(|w| w == "eval") {
            let inner = commands(&words[1..].join(" "))?;
            for c in inner.into_iter().rev() {
                queue.push_front(c);
            }
            continue;
        }
        if let Some((name, mut elems)) = open.take() {
            let words = words.iter().map(|w| expand(w, &vars));
            if shell::array_add(&mut elems, words) {
                arrays.insert(name, elems);
            } else {
                open = Some((name, elems));
            }
            continue;
        }
        if let Some((name, elems, closed)) = shell::array_start(&words) {
            let elems = elems.iter().map(|w| expand(w, &vars)).collect();
            if closed {
                arrays.insert(name, elems);
            } else {
                open = Some((name, elems));
            }
            continue;
        }
        let words: Vec<String> = words
            .iter()
            .flat_map(|w| match shell::array_ref(w).and_then(|n| arrays.get(n)) {
                Some(elems) => elems.clone(),
                None => vec![expand(w, &vars)],
            })
            .collect();
        // cmdsurvey57: `> 6000d.log 2>&1` (sglang issue 17880) is the shell's, not the engine's argv.
        let (words, redirected) = crate::import_command_shell::redirections(&words);
        if words.is_empty() {
            continue;
        }
        if words[0] == "export" {
            for w in &words[1..] {
                if let Some((k, v)) = assignment(w) {
                    vars.insert(k.clone(), v.clone());
                    exported.insert(k, v);
                }
            }
            continue;
        }
        // `NAME=value` alone: a shell variable for the lines after it (`${NAME}`), not exported.
        if words.iter().all(|w| assignment(w).is_some()) {
            vars.extend(words.iter().filter_map(|w| assignment(w)));
            continue;
        }
        if let Some(mut l) = launch(&words)? {
            if !redirected.is_empty() {
                l.notes.push(format!(
                    "the shell's redirections, not the engine's arguments, left out: {}",
                    redirected.join(" ")
                ));
            }
            for (k, v) in exported {
                l.env.entry(k).or_insert(v);
            }
            if !skipped.is_empty() {
                l.notes.push(format!(
                    "other commands before the engine's were left out: {}",
                    skipped.join("; ")
                ));
            }
            return Ok(l);
        }
        if words.iter().any(|w| w == "sglang_router.launch_server") {
            return Err(ROUTER.into());
        }
        if words.iter().any(|w| w == "sgl_jax.launch_server") {
            return Err(SGL_JAX.into());
        }
        // cmdsurvey55 (rtx6kpro issue 7): a compose file's `command:` for the vLLM image holds only
        // the entry point's arguments, `MODEL --flag …`, which no program starts.
        if !args_only && words.len() > 1 && !words[0].starts_with('-') && words[1].starts_with("--") {
            args_only = true;
        }
        skipped.push(words.join(" "));
    }
    let hint = if args_only {
        " (arguments alone, such as a compose `command:` for the vllm/vllm-openai image, whose entry point is \
         `vllm serve`, need that program in front: `vllm serve MODEL …`)"
    } else {
        ""
    };
    Err(format!(
        "no engine launch found: expected `vllm serve MODEL …`, `python -m vllm.entrypoints.openai.api_server …`, \
         `python -m sglang.launch_server …`, `sglang serve …` or `docker run … IMAGE …` running one of them{hint}"
    ))
}

/// cmdsurvey55: `python -m sglang_router.launch_server … --dp N` starts N SGLang servers behind the
/// router's load balancer (docs.sglang.ai `backend/server_arguments.html`, "Common launch commands":
/// "--dp 2 --tp 2 … uses 4 GPUs in total. We recommend SGLang Router for data parallelism").
const ROUTER: &str = "python -m sglang_router.launch_server starts `--dp` SGLang servers behind the router's load balancer \
     (docs.sglang.ai server_arguments, \"We recommend SGLang Router for data parallelism\"); tpsim simulates one server: \
     import one replica's command, `python -m sglang.launch_server` with the same flags but `--dp`, on a box of its GPUs";

/// cmdsurvey58 (sgl-project/sglang-jax PR 378, `python3 -u -m sgl_jax.launch_server … --device=tpu`):
/// SGLang's TPU support is SGLang-JAX, "a dedicated JAX-based inference engine maintained as a separate
/// repository" (SGLang docs `docs/platforms/tpu.md`; sgl-project/sglang-jax README: "optimized for Google
/// TPUs"), with its own argument list; tpsim models SGLang and vLLM on GPU boxes.
const SGL_JAX: &str = "python -m sgl_jax.launch_server is SGLang-JAX (sgl-project/sglang-jax), a separate engine for TPUs \
     with its own arguments: tpsim models SGLang (`python -m sglang.launch_server`) and vLLM on GPU boxes, not SGLang-JAX";

/// `$NAME` and `${NAME}` replaced by the shell variables set earlier in the text (others kept as
/// written: their value is not in the text). shlex keeps `$` as it is, quoted or not.
fn expand(w: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = w.to_string();
    for (k, v) in vars {
        out = out.replace(&format!("${{{k}}}"), v);
        // `$NAME` only where the name ends there.
        let bare = format!("${k}");
        let mut from = 0;
        while let Some(i) = out[from..].find(&bare).map(|i| i + from) {
            let end = i + bare.len();
            let next = out[end..].chars().next();
            if next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                from = end;
                continue;
            }
            out.replace_range(i..end, v);
            from = i + v.len();
        }
    }
    out
}

/// `NAME=value` with a shell variable name.
fn assignment(w: &str) -> Option<(String, String)> {
    let (k, v) = w.split_once('=')?;
    let ok = !k.is_empty()
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !k.starts_with(|c: char| c.is_ascii_digit());
    ok.then(|| (k.to_string(), v.to_string()))
}

/// cmdsurvey63 (vllm issue 41647, `stdbuf -oL -eL .venv/bin/vllm serve google/gemma-4-31B-it …`): the
/// index of the program after `stdbuf`'s options, from `from` (the word after `stdbuf`). GNU coreutils
/// `stdbuf OPTION… COMMAND` takes `-i`/`-o`/`-e MODE` (the mode attached, `-oL`, or the next word) and
/// `--input`/`--output`/`--error=MODE` (coreutils manual, "stdbuf invocation"), and runs COMMAND with
/// its standard streams' buffering changed: the server's log cadence, not its cost, so tpsim reads the
/// command and ignores the wrapper (as `nohup` and `exec`).
fn stdbuf_end(words: &[String], from: usize) -> usize {
    let mut i = from;
    while let Some(w) = words.get(i).filter(|w| w.starts_with('-')) {
        // `-o L`: the mode is the next word; `-oL`, `--output=L`: attached.
        i += if matches!(w.as_str(), "-i" | "-o" | "-e") {
            2
        } else {
            1
        };
    }
    i
}

/// cmdsurvey64 (sglang issue 23265, `~$ sglang serve --model-path "MiniMaxAI/MiniMax-M2.7" …`): a
/// terminal's prompt copied in front of the command. Bash's default prompt `\u@\h:\w\$` ends in `$`,
/// or `#` for root (Bash manual, "Controlling the Prompt": `\$` "If the effective uid is 0, #,
/// otherwise $"): a first word ending so (`$`, `~$`, `user@host:~/dir$`, `root@host:/#`), with no
/// `=` or quote in it, is that prompt, not a program.
fn is_prompt(w: &str) -> bool {
    let Some(head) = w.strip_suffix('$').or_else(|| w.strip_suffix('#')) else {
        return false;
    };
    !head.contains(['=', '\'', '"', '$']) && !head.starts_with('-')
}

/// The launch in one command's words, if it is one.
fn launch(words: &[String]) -> Result<Option<Launch>, String> {
    if let Some(p) = words.first().filter(|w| words.len() > 1 && is_prompt(w)) {
        let mut l = launch(&words[1..])?;
        if let Some(l) = l.as_mut() {
            l.notes.push(format!(
                "`{p}` in front of the program is a shell prompt copied with the command, left out"
            ));
        }
        return Ok(l);
    }
    let mut env = BTreeMap::new();
    let mut i = 0;
    // `env K=V …`, `sudo -E`, and assignments in front of the program.
    while i < words.len() {
        let w = &words[i];
        if let Some((k, v)) = assignment(w) {
            env.insert(k, v);
        } else if w == "stdbuf" {
            i = stdbuf_end(words, i + 1);
            continue;
        } else if w == "tini" && words.get(i + 1).is_some_and(|n| n == "--") {
            // cmdsurvey60 (gpustack issue 4280, a container's `Args`: `tini -- vllm serve …`): tini,
            // Docker's init (`docker run --init`), runs the program after its `--` as its child
            // (krallin/tini README, "tini -- your-program --and --its arguments").
            i += 1;
        } else if !matches!(w.as_str(), "env" | "sudo" | "-E" | "exec" | "nohup" | "tini") {
            break;
        }
        i += 1;
    }
    let rest = &words[i..];
    if let Some(after) = docker_run(rest) {
        return docker(&after, env).map(Some);
    }
    // `bash -c "…"` on its own: the engine in the string, with the assignments in front of the shell.
    if let Some(script) = shell_c(rest)
        && let Ok(l) = in_script(script, env.clone(), None, Vec::new(), Vec::new())
    {
        return Ok(Some(l));
    }
    sglang_serve_model_path(rest)?;
    Ok(program(rest).map(|(engine, args)| Launch {
        engine,
        image_version: None,
        env,
        args: args.to_vec(),
        notes: Vec::new(),
        sglang_serve: is_sglang_serve(rest),
        mounts: Vec::new(),
    }))
}

/// The engine and the words after its program, if `w` starts with one.
fn program(w: &[String]) -> Option<(EngineKind, &[String])> {
    let base = |s: &str| s.rsplit('/').next().unwrap_or(s).to_string();
    let first = base(w.first()?);
    if first == "vllm" && w.get(1).is_some_and(|s| s == "serve") {
        return Some((EngineKind::Vllm, &w[2..]));
    }
    if first == "sglang" && w.get(1).is_some_and(|s| s == "serve") {
        return Some((EngineKind::Sglang, &w[2..]));
    }
    // cmdsurvey57 (vllm issue 33155): `uv run vllm serve …` runs the program in uv's environment
    // (uv docs, `uv run [OPTIONS] [COMMAND]`); `uv run python -m …` is read below.
    if first == "uv"
        && w.get(1).is_some_and(|s| s == "run")
        && w.get(2).is_some_and(|s| !s.starts_with('-'))
        && let Some(p) = program(&w[2..])
    {
        return Some(p);
    }
    let python = first.starts_with("python");
    // `uv run python -m …`, `python3 -u -m …`: the module after `-m`.
    let m = w.iter().position(|s| s == "-m")?;
    let runner = python || (first == "uv" && w.get(1).is_some_and(|s| s == "run"));
    if !runner {
        return None;
    }
    match w.get(m + 1)?.as_str() {
        "sglang.launch_server" => Some((EngineKind::Sglang, &w[m + 2..])),
        "vllm.entrypoints.openai.api_server" => Some((EngineKind::Vllm, &w[m + 2..])),
        _ => None,
    }
}

/// `sglang serve` finds the model before argparse runs (`sglang/cli/utils.py` `get_model_path`) and
/// stops with its text when there is none. The release decides whether `--model` counts
/// ([`serve_model_path`]); here, before the release is known, either name does, and `keys` in
/// `import_command_build` checks the release's rule ([`sglang_serve_refusal`]).
fn sglang_serve_model_path(w: &[String]) -> Result<(), String> {
    if !is_sglang_serve(w) || serve_model_path(&w[2..], true).is_some() {
        return Ok(());
    }
    Err(sglang_serve_refusal(true))
}

/// SGLang's refusal when `sglang serve` finds no model: 0.5.8 – 0.5.10 read the literal
/// `--model-path` only (`model_too` false), 0.5.11 on `--model` too (cmdsurvey62, sglang issue
/// 29562: 0.5.11 `cli/utils.py` `get_model_path` tests `arg in ("--model-path", "--model")` and
/// `--model=`; 0.5.8, 0.5.9 and 0.5.10 test `--model-path` / `--model-path=` only).
pub fn sglang_serve_refusal(model_too: bool) -> String {
    let (which, reads) = if model_too {
        ("0.5.11 on", "`--model-path` or `--model`")
    } else {
        ("0.5.8 – 0.5.10", "the literal `--model-path` only, not `--model`")
    };
    format!(
        "sglang serve (SGLang {which} `sglang/cli/utils.py` get_model_path) stops with \"Error: --model-path is required. \
         Please provide the path to the model.\" (it reads {reads})"
    )
}

/// The model `sglang serve` reads from the words after `serve`, as `sglang/cli/utils.py`
/// `get_model_path` does: the value after the first `--model-path` (or of `--model-path=VALUE`);
/// with `model_too` (SGLang 0.5.11 on) `--model` / `--model=VALUE` as well, whichever comes first.
pub fn serve_model_path(args: &[String], model_too: bool) -> Option<&str> {
    args.iter().enumerate().find_map(|(i, a)| {
        if a == "--model-path" || (model_too && a == "--model") {
            args.get(i + 1).map(String::as_str)
        } else {
            a.strip_prefix("--model-path=")
                .or_else(|| a.strip_prefix("--model=").filter(|_| model_too))
        }
    })
}

/// `w` starts `sglang serve` (any path ending in `sglang`).
fn is_sglang_serve(w: &[String]) -> bool {
    let first = w.first().map(|s| s.rsplit('/').next().unwrap_or(s));
    first == Some("sglang") && w.get(1).is_some_and(|s| s == "serve")
}

/// The words after `docker run` / `docker container run` / `podman run`.
fn docker_run(w: &[String]) -> Option<Vec<String>> {
    let first = w.first()?.rsplit('/').next()?.to_string();
    if !matches!(first.as_str(), "docker" | "podman" | "nerdctl") {
        return None;
    }
    let skip = match (w.get(1).map(String::as_str), w.get(2).map(String::as_str)) {
        (Some("run"), _) => 2,
        (Some("container"), Some("run")) => 3,
        _ => return None,
    };
    Some(w[skip..].to_vec())
}

/// `docker run` options that take a value (Docker CLI reference, `docker container run`); the
/// others are switches. `-e`/`--env` are read, the rest skipped.
const DOCKER_VALUED: &[&str] = &[
    "-e",
    "--env",
    "--env-file",
    "-v",
    "--volume",
    "-p",
    "--publish",
    "--name",
    "--gpus",
    "--ipc",
    "--shm-size",
    "--network",
    "--net",
    "--runtime",
    "--entrypoint",
    "-w",
    "--workdir",
    "--ulimit",
    "--device",
    "--cap-add",
    "--cap-drop",
    "--security-opt",
    "--mount",
    "-u",
    "--user",
    "-h",
    "--hostname",
    "--restart",
    "-l",
    "--label",
    "-m",
    "--memory",
    "--cpus",
    "--cpuset-cpus",
    "--pid",
    "--uts",
    "--group-add",
    "--add-host",
    "--log-driver",
    "--log-opt",
    "--platform",
    "--pull",
    "--tmpfs",
    "--memory-swap",
    "--stop-signal",
    "--stop-timeout",
];

fn docker(w: &[String], mut env: BTreeMap<String, String>) -> Result<Launch, String> {
    let mut notes = Vec::new();
    let mut entrypoint: Option<String> = None;
    let mut mounts: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    while i < w.len() && w[i].starts_with('-') {
        let (name, inline) = match w[i].split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (w[i].as_str(), None),
        };
        let valued = DOCKER_VALUED.contains(&name);
        let value = match (valued, inline) {
            (_, Some(v)) => Some(v),
            (true, None) => {
                i += 1;
                Some(
                    w.get(i)
                        .cloned()
                        .ok_or_else(|| format!("docker run: {name} needs a value"))?,
                )
            }
            (false, None) => None,
        };
        if matches!(name, "-e" | "--env") {
            let v = value.clone().unwrap_or_default();
            match assignment(&v) {
                Some((k, val)) => {
                    env.insert(k, val);
                }
                None => notes.push(format!(
                    "docker run -e {v}: the host's value is passed through, unknown here (left out)"
                )),
            }
        }
        // `-v HOST:CONTAINER[:OPTIONS]` (Docker CLI reference, `docker container run --volume`): a bind
        // mount when HOST is a path (`/…`, `./…`, `~…`, `$…`); a named volume has no host path.
        if matches!(name, "-v" | "--volume")
            && let Some((host, rest)) = value.as_deref().and_then(|v| v.split_once(':'))
            && host.starts_with(['/', '.', '~', '$'])
        {
            let container = rest.split(':').next().unwrap_or(rest);
            mounts.push((container.trim_end_matches('/').to_string(), host.to_string()));
        }
        if name == "--entrypoint" {
            entrypoint = value;
        }
        i += 1;
    }
    if w.is_empty() {
        return Err("docker run: nothing follows `docker run` in this command".into());
    }
    sglang_serve_model_path(w.get(i + 1..).unwrap_or_default())?;
    let image = w.get(i).ok_or(
        "docker run: no image after the options (a valued option tpsim does not know may have taken it)",
    )?;
    let rest = &w[i + 1..];
    let (name, tag) = image.rsplit_once(':').unwrap_or((image.as_str(), ""));
    let version = crate::engine_args_versions::release(tag).map(|_| tag.trim_start_matches(['v', 'V']));
    let version = version.map(|v| {
        // `0.5.8-cu129` → `0.5.8`; `0.11.0` as is.
        v.split(['-', '+']).next().unwrap_or(v).to_string()
    });
    notes.push(format!(
        "docker image {image}{}",
        match &version {
            Some(v) => format!(": release {v} from its tag"),
            None => ": its tag names no release (set --engine-version to pin one)".into(),
        }
    ));
    // `--entrypoint /bin/bash IMAGE -lc "…"`: the shell runs the command in the string.
    if let Some(e) = &entrypoint {
        let shell = matches!(e.rsplit('/').next(), Some("bash" | "sh"));
        let Some(script) = dash_c(rest).filter(|_| shell) else {
            return Err(format!(
                "docker run --entrypoint {e}: the image's program is replaced; give the engine's command itself"
            ));
        };
        return in_script(script, env, version, notes, mounts);
    }
    // cmdsurvey55: `IMAGE bash -c "pip install … && python3 -m sglang.launch_server …"` (sglang issue
    // 5338): the image's command is a shell, which runs the string; the engine is found in it.
    if let Some(script) = shell_c(rest) {
        return in_script(script, env, version, notes, mounts);
    }
    let (engine, args) = match program(rest) {
        Some((e, a)) => (e, a.to_vec()),
        None if name.contains("vllm") => (EngineKind::Vllm, rest.to_vec()),
        None => {
            return Err(format!(
                "docker run {image}: no engine command after the image (expected `python3 -m sglang.launch_server …` \
                 or a vLLM image, whose entry point is vLLM's OpenAI server)"
            ));
        }
    };
    Ok(Launch {
        engine,
        image_version: version,
        env,
        args,
        notes,
        sglang_serve: is_sglang_serve(rest),
        mounts,
    })
}

/// The script of `bash -c "…"` / `sh -lc "…"` (any path ending in `bash` or `sh`), if `w` is one.
fn shell_c(w: &[String]) -> Option<&String> {
    let shell = w.first().map(|s| s.rsplit('/').next().unwrap_or(s));
    if !matches!(shell, Some("bash" | "sh")) {
        return None;
    }
    dash_c(&w[1..])
}

/// The word after the shell's `-c` option (`-c`, `-lc`, `-ec`: a single-dash cluster ending in `c`).
fn dash_c(w: &[String]) -> Option<&String> {
    w.iter()
        .position(|a| a.starts_with('-') && a.ends_with('c') && !a.starts_with("--"))
        .and_then(|c| w.get(c + 1))
}

/// The launch inside a shell script a Docker container runs: the image's release and the
/// container's environment added, the Docker notes first.
fn in_script(
    script: &str,
    env: BTreeMap<String, String>,
    version: Option<String>,
    mut notes: Vec<String>,
    mounts: Vec<(String, String)>,
) -> Result<Launch, String> {
    let mut l = find(script)?;
    l.image_version = l.image_version.or(version);
    l.mounts.extend(mounts);
    for (k, v) in env {
        l.env.entry(k).or_insert(v);
    }
    notes.append(&mut l.notes);
    l.notes = notes;
    Ok(l)
}

/// `path` as the host sees it: a path under a bind mount's container side is the mount's host
/// directory with the rest appended, with a note; any other path as written.
pub fn unmount(mounts: &[(String, String)], path: &str, notes: &mut Vec<String>) -> String {
    for (container, host) in mounts {
        let under = path
            .strip_prefix(container.as_str())
            .filter(|r| r.is_empty() || r.starts_with('/'));
        if let Some(r) = under.filter(|_| !container.is_empty()) {
            let h = format!("{}{}", host.trim_end_matches('/'), r.trim_end_matches('/'));
            notes.push(format!(
                "model path {path}: inside the container, the host's {h} (docker run -v {host}:{container})"
            ));
            return h;
        }
    }
    path.to_string()
}

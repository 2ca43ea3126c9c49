//! Issue #17 (cmdkey): `engine.command`, the user's launch command kept in the scenario as written
//! (`vllm serve …`, `python -m sglang.launch_server …`, with environment assignments, `export`
//! lines, `\` continuations, `docker run … IMAGE …`).
//!
//! The loader reads it exactly as `tpsim import-command` does, through the same code
//! (`crate::import_command::find`, `crate::import_command_build::keys`): keyed flags set their keys,
//! the other flags `engine.extra_args`, environment assignments `[engine.env]` (and vLLM's
//! `VLLM_ATTENTION_BACKEND` / `VLLM_ALL2ALL_BACKEND` their keys), a Docker image tag
//! `engine.version`, the model path `[model] preset` (or `config` for a directory holding a
//! config.json, relative to the scenario file). Those keys are merged into the file's table before it
//! is resolved; a key the file also sets must agree, else the file is refused naming the key and
//! both values. The box, workload, SLO and a draft's acceptance are in no launch flag: the file
//! gives them as usual. What the command leaves out becomes a warning `engine.command: …`.
//!
//! Where the file gives `engine.version`, the flags are checked against that release's list (and a
//! Docker tag naming another is a conflict); where it gives `[model] preset` or `config`, the
//! command's model path is not read into keys, but a path that names another bundled preset is a
//! conflict.

use super::ScenarioError;
use crate::import_command_build::{self as build, ModelFrom};
use std::path::Path;
use toml::{Table, Value};

/// Replaces `engine.command` in `t` (parsed from `text`, the file at `path`) by the keys the command
/// states; returns what it left out, one note each, or `None` when the file has no command.
pub fn expand(t: &mut Table, path: &Path, text: &str) -> Result<Option<Vec<String>>, ScenarioError> {
    let invalid = |key: &str, m: String| ScenarioError::invalid(path, text, key, m);
    let Some(engine) = t.get_mut("engine").and_then(Value::as_table_mut) else {
        return Ok(None);
    };
    let Some(command) = engine.remove("command") else {
        return Ok(None);
    };
    let Value::String(command) = command else {
        return Err(invalid(
            "engine.command",
            format!(
                "expected a string, the launch command as typed (a multi-line '''…''' string for several lines), not {command}"
            ),
        ));
    };
    let version = engine.get("version").and_then(Value::as_str).map(str::to_string);
    let model = t.get("model").and_then(Value::as_table);
    let preset = model
        .and_then(|m| m.get("preset"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let stated = model.is_some_and(|m| m.contains_key("preset") || m.contains_key("config"));
    let from = if stated {
        ModelFrom::Scenario(preset.as_deref())
    } else {
        ModelFrom::Command(path.parent().unwrap_or(Path::new("")))
    };
    let launch = crate::import_command::find(&command).map_err(|m| invalid("engine.command", m))?;
    let out = build::keys(launch, version.as_deref(), &from).map_err(|m| invalid("engine.command", m))?;
    let conflict = |key: &str, here: &Value, command: &Value, how: &str| {
        invalid(
            key,
            format!(
                "the file sets {here} and its engine.command {how} {command}: give the value once (drop the key, or \
                 change the command), or make the two agree"
            ),
        )
    };
    if let (Some(v), Some(tag)) = (&version, &out.image_version)
        && v != tag
    {
        let (v, tag) = (Value::String(v.clone()), Value::String(tag.clone()));
        return Err(conflict(
            "engine.version",
            &v,
            &tag,
            "runs the release of its Docker image tag,",
        ));
    }
    if let Some(p) = &preset
        && let Ok(q) = build::preset_of(&out.model_path)
        && &q != p
    {
        let how = format!("serves `{}`, the preset", out.model_path);
        return Err(conflict(
            "model.preset",
            &Value::String(p.clone()),
            &Value::String(q),
            &how,
        ));
    }
    let keys = out
        .table(preset.as_deref())
        .map_err(|m| invalid("engine.command", m))?;
    merge(t, keys, "", &|key, here, command| {
        let default = key
            .strip_prefix("engine.")
            .is_some_and(|k| out.defaulted.contains(&k));
        let how = if default {
            "gives no flag for it, so the engine's default,"
        } else {
            "sets"
        };
        conflict(key, here, command, how)
    })?;
    Ok(Some(out.notes))
}

/// Adds `from`'s keys to `into` (under the dotted `prefix`); a leaf both set to different values is
/// `conflict(key, file's value, command's value)`.
fn merge(
    into: &mut Table,
    from: Table,
    prefix: &str,
    conflict: &dyn Fn(&str, &Value, &Value) -> ScenarioError,
) -> Result<(), ScenarioError> {
    for (k, v) in from {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match (into.get_mut(&k), v) {
            (None, v) => {
                into.insert(k, v);
            }
            (Some(Value::Table(a)), Value::Table(b)) => merge(a, b, &key, conflict)?,
            (Some(a), v) if same(a, &v) => {}
            (Some(a), v) => return Err(conflict(&key, a, &v)),
        }
    }
    Ok(())
}

/// Equal values; an integer and a float of the same number too (`tp = 4` against `4.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Integer(i), Value::Float(f)) | (Value::Float(f), Value::Integer(i)) => {
            // Exactly the same number (bits: no margin, the file and the command agree or not).
            (*i as f64).to_bits() == f.to_bits()
        }
        _ => a == b,
    }
}

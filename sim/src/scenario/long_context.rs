//! flags56 (issue #17): a context length above the model's derived one, as each engine takes it —
//! refused, unless its environment variable allows it, which turns the refusal into a warning.
//!
//! SGLang (`engine.context_length`, `--context-length`), `sglang/srt/configs/model_config.py`
//! `ModelConfig.__init__` of each wheel on PyPI (every release 0.4.0 – 0.5.23 in the shared cache read):
//! - the variable is `SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN`, read by `get_bool_env_var` (`utils.py`:
//!   `os.getenv(name, default).lower()` in `("true", "1")`, anything else false) in 0.4.0 – 0.5.2, and from
//!   0.5.3 by `envs.…get()` (`environ.py` `EnvBool(False)`: true/1/yes/y, false/0/no/n, anything else a
//!   `ValueError`);
//! - its default is `"True"` in 0.4.4.post4 – 0.5.0rc0 (`get_bool_env_var(..., default="True")`: a longer
//!   length is taken with the warning unless the variable says false), false in the others (0.4.0 – 0.4.3,
//!   0.5.1 on). 0.4.4 – 0.4.4.post3 were not read: taken as 0.4.4.post4;
//! - the texts: 0.4.x – 0.5.0rc0 warn "Warning: User-specified context_length (N) is greater than the
//!   derived context_length (D). This may lead to incorrect model outputs or CUDA errors." and refuse with
//!   the same sentences without "Warning: " plus the note on `max_position_embeddings` and the variable;
//!   0.5.1 on build one `msg` (with "Warning: " and the note) that is the warning, and the refusal with
//!   "To allow overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1".
//!
//! vLLM (`engine.max_model_len`, `--max-model-len`), `_get_and_verify_max_len` (`vllm/config.py`; from
//! 0.10 `vllm/config/__init__.py`, from 0.11 `vllm/config/model.py`), `VLLM_ALLOW_LONG_MAX_MODEL_LEN` in
//! `envs.py` (`os.environ.get(..., "0").strip().lower() in ("1", "true")`), read 0.5.4, 0.8.5, 0.9.1,
//! 0.10.1.1, 0.10.2, 0.11.0, 0.19.0, 0.33.0:
//! - before 0.5.4 no such variable (0.5.3.post1's `config.py` reads none): always refused;
//! - 0.5.4 – 0.10.1.1: `msg` ends "This may lead to incorrect model outputs or CUDA errors."; with the
//!   variable the warning is "{msg} Make sure the value is correct and within the model context size.";
//! - 0.10.2 on: `msg` ends at "config.json)." and both the warning and the refusal append the
//!   "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. …" sentence.
//!
//! `model_max_length` (vLLM's second key) is not in tpsim's model presets: it is printed as `None`,
//! as for a config.json without it.

use crate::engine_args_versions::release;

/// SGLang's variable.
pub const SGLANG_VAR: &str = "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN";
/// vLLM's variable.
pub const VLLM_VAR: &str = "VLLM_ALLOW_LONG_MAX_MODEL_LEN";

/// The first sentence both SGLang texts share.
fn sglang_head(n: u64, d: u64) -> String {
    format!(
        "User-specified context_length ({n}) is greater than the derived context_length ({d}). This may lead to \
         incorrect model outputs or CUDA errors."
    )
}

const SGLANG_NOTE: &str =
    " Note that the derived context_length may differ from max_position_embeddings in the model's config.";

/// The release as numbers and post number (`0.4.4.post4` → `([0, 4, 4], 4)`); `[0]` when unreadable.
fn key(version: &str) -> (Vec<u64>, u64) {
    let post = version
        .rsplit_once(".post")
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(0);
    (release(version).unwrap_or_default(), post)
}

/// SGLang 0.4.4.post4 – 0.5.0rc0: the variable defaults to true.
fn sglang_default_allows(version: &str) -> bool {
    let (r, post) = key(version);
    let r = r.as_slice();
    (r > [0, 4, 4].as_slice() || (r == [0, 4, 4].as_slice() && post >= 1)) && r < [0, 5, 1].as_slice()
}

/// Whether SGLang `version` takes a context length above the model's, with the variable's raw value
/// (`None`: unset). `Err`: SGLang ≥ 0.5.3 refuses a value `EnvBool` cannot read (its text).
pub fn sglang_allows(version: &str, raw: Option<&str>) -> Result<bool, String> {
    let Some(v) = raw else {
        return Ok(sglang_default_allows(version));
    };
    let v = v.to_lowercase();
    if release(version).is_some_and(|r| r >= vec![0, 5, 3]) {
        return match v.as_str() {
            "true" | "1" | "yes" | "y" => Ok(true),
            "false" | "0" | "no" | "n" => Ok(false),
            _ => Err(format!(
                "\"{v}\" is not a valid boolean value (SGLang's EnvBool text)"
            )),
        };
    }
    Ok(matches!(v.as_str(), "true" | "1"))
}

/// SGLang's warning when it takes the longer length.
pub fn sglang_warning(version: &str, n: u64, d: u64) -> String {
    let note = if release(version).is_some_and(|r| r >= vec![0, 5, 1]) {
        SGLANG_NOTE
    } else {
        ""
    };
    format!(
        "SGLang {version} takes it and warns: \"Warning: {}{note}\"",
        sglang_head(n, d)
    )
}

/// SGLang's refusal of the longer length.
pub fn sglang_refusal(version: &str, n: u64, d: u64) -> String {
    let prefix = if release(version).is_some_and(|r| r >= vec![0, 5, 1]) {
        "Warning: "
    } else {
        ""
    };
    format!(
        "SGLang refuses it: \"ValueError: {prefix}{}{SGLANG_NOTE} To allow overriding this maximum, set the env var \
         {SGLANG_VAR}=1\"",
        sglang_head(n, d)
    )
}

/// Whether vLLM `version` takes a `--max-model-len` above the model's, with the variable's raw value.
pub fn vllm_allows(version: &str, raw: Option<&str>) -> bool {
    release(version).is_some_and(|r| r >= vec![0, 5, 4])
        && raw.is_some_and(|v| matches!(v.trim().to_lowercase().as_str(), "1" | "true"))
}

const VLLM_CAUTION: &str = "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses \
     relative position encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model uses \
     absolute position encoding, positions exceeding derived_max_model_len will cause a CUDA array out-of-bounds \
     error.";

/// vLLM's `msg` and whether the release has the "extreme caution" sentence (0.10.2 on).
fn vllm_msg(version: &str, n: u64, d: u64) -> (String, bool) {
    let head = format!(
        "User-specified max_model_len ({n}) is greater than the derived max_model_len (max_position_embeddings={d} \
         or model_max_length=None in model's config.json)."
    );
    if release(version).is_some_and(|r| r >= vec![0, 10, 2]) {
        (head, true)
    } else {
        (
            format!("{head} This may lead to incorrect model outputs or CUDA errors."),
            false,
        )
    }
}

/// vLLM's warning when it takes the longer length.
pub fn vllm_warning(version: &str, n: u64, d: u64) -> String {
    let (msg, caution) = vllm_msg(version, n, d);
    let tail = if caution {
        VLLM_CAUTION
    } else {
        "Make sure the value is correct and within the model context size."
    };
    format!("vLLM {version} takes it and warns: \"{msg} {tail}\"")
}

/// vLLM's refusal of the longer length (before 0.5.4 the variable does not exist, said so).
pub fn vllm_refusal(version: &str, n: u64, d: u64, raw: Option<&str>) -> String {
    let (msg, caution) = vllm_msg(version, n, d);
    let caution = if caution {
        format!(" {VLLM_CAUTION}")
    } else {
        String::new()
    };
    let before = if release(version).is_some_and(|r| r < vec![0, 5, 4]) {
        format!(
            " (vLLM {version} has no {VLLM_VAR}: it first appears in 0.5.4's envs.py{})",
            if raw.is_some() {
                ", so [engine.env] cannot lift it"
            } else {
                ""
            }
        )
    } else {
        String::new()
    };
    format!(
        "vLLM refuses it: \"ValueError: {msg} To allow overriding this maximum, set the env var {VLLM_VAR}=1.{caution}\"{before}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_by_release() {
        // model_config.py: get_bool_env_var(..., default="True") in 0.4.4.post4 – 0.5.0rc0 only.
        for (v, allowed) in [
            ("0.4.3", false),
            ("0.4.4.post4", true),
            ("0.4.10", true),
            ("0.5.0rc0", true),
            ("0.5.1", false),
            ("0.5.9", false),
        ] {
            assert_eq!(sglang_allows(v, None), Ok(allowed), "{v}");
        }
        assert_eq!(sglang_allows("0.5.9", Some("yes")), Ok(true));
        assert_eq!(sglang_allows("0.5.2", Some("yes")), Ok(false)); // get_bool_env_var: true/1 only
        assert!(sglang_allows("0.5.9", Some("maybe")).is_err());
        assert!(vllm_allows("0.11.0", Some(" TRUE ")));
        assert!(!vllm_allows("0.5.3.post1", Some("1")));
        assert!(!vllm_allows("0.19.0", Some("yes")));
    }
}

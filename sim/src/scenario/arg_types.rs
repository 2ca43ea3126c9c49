//! args58 (issue #17): the value parsers behind the kinds of `tests/data/engine-args/*.txt`
//! (`extract.py` `type_kind` / `vllm_field_types`), each with the text the engine's argparse stops with.
//!
//! - `json`: argparse's own `type=json.loads` (SGLang `server_args.py`, vLLM ≤ 0.9.1 `arg_utils.py`):
//!   argparse names the parser by its `__name__`, `invalid loads value: 'V'` (CPython `argparse.py`
//!   `_get_value`).
//! - `json-parse`: vLLM's `parse_type(json.loads)` / `optional_type(json.loads)` (0.8.5 – 0.34.0
//!   `engine/arg_utils.py`; `--speculative-config` from 0.10.1.1, `dict` fields such as
//!   `--limit-mm-per-prompt`): `Value V cannot be converted to <function loads at 0x…>.`, the
//!   function's address being the process's (written `0x…`); `optional_type` takes `""` and `None`.
//! - `json-list`: SGLang's `json_list_type` (0.5.3 – 0.5.23 `utils/common.py`): `Invalid JSON list: V.
//!   Please provide a valid JSON list.`
//! - `json-dataclass`: vLLM's `parse_dataclass` (0.9.1 – 0.34.0 `engine/arg_utils.py`: pydantic
//!   `TypeAdapter(cls).validate_json`), whose error is `repr` of pydantic's `ValidationError`; tpsim
//!   gives its first line and type (`json_invalid`), not pydantic's position text.
//! - `int-si`: SGLang's `human_readable_int` (0.5.10 – 0.5.23 `utils/common.py`): SI suffixes k, M, G,
//!   T (powers of 1000, decimals allowed) and IEC Ki, Mi, Gi, Ti (powers of 1024, whole numbers only).

/// Whether `kind` is one of the JSON parsers above (the value must be a JSON text).
pub fn is_json(kind: &str) -> bool {
    kind.starts_with("json")
}

/// The engine's error text (after `argument FLAG: `) for value `v` of a JSON `kind`, `None` when it
/// parses. Python's `json.loads` and serde_json agree on JSON texts except Python's `NaN` /
/// `Infinity`, which tpsim refuses (assumed rare in launch commands).
pub fn json_error(kind: &str, v: &str) -> Option<String> {
    if kind == "json-parse" && (v.is_empty() || v == "None") {
        return None;
    }
    if serde_json::from_str::<serde_json::Value>(v).is_ok() {
        return None;
    }
    Some(match kind {
        "json-parse" => format!("Value {v} cannot be converted to <function loads at 0x…>."),
        "json-list" => format!("Invalid JSON list: {v}. Please provide a valid JSON list."),
        "json-dataclass" => format!(
            "1 validation error for the config dataclass: Invalid JSON [type=json_invalid, input_value='{v}', \
             input_type=str] (pydantic's ValidationError; its position text is not reproduced)"
        ),
        _ => format!("invalid loads value: '{v}'"),
    })
}

/// SGLang's `human_readable_int` (0.5.10 `utils/common.py`): `25.6k` = 25,600, `1M` = 1,000,000,
/// `1Ki` = 1,024; `Err` with SGLang's text.
pub fn sglang_human_int(v: &str) -> Result<i64, String> {
    let v = v.trim();
    const IEC: [(&str, i64); 4] = [("Ki", 1 << 10), ("Mi", 1 << 20), ("Gi", 1 << 30), ("Ti", 1 << 40)];
    const SI: [(&str, i64); 4] = [
        ("k", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("T", 1_000_000_000_000),
    ];
    let number_ok = |n: &str| {
        !n.is_empty()
            && n.split_once('.')
                .map_or(n.chars().all(|c| c.is_ascii_digit()), |(a, b)| {
                    !a.is_empty() && !b.is_empty() && (a.to_string() + b).chars().all(|c| c.is_ascii_digit())
                })
    };
    for (suffix, mult) in IEC {
        if let Some(n) = v.strip_suffix(suffix).filter(|n| number_ok(n)) {
            if let Some((whole, _)) = n.split_once('.') {
                return Err(format!(
                    "Decimals are not allowed with IEC suffixes like '{suffix}'. Use an integer IEC value such as \
                     '{}{suffix}', or an SI value such as '{n}{}'.",
                    whole.parse::<i64>().unwrap_or(0),
                    &suffix[..1]
                ));
            }
            if let Some(x) = n.parse::<i64>().ok().and_then(|x| x.checked_mul(mult)) {
                return Ok(x);
            }
        }
    }
    for (suffix, mult) in SI {
        if let Some(n) = v.strip_suffix(suffix).filter(|n| number_ok(n)) {
            // Python's `int(Decimal(number) * multiplier)`: exact, truncated toward zero.
            let (whole, frac) = n.split_once('.').unwrap_or((n, ""));
            let scale = 10i64.checked_pow(frac.len() as u32);
            let digits = format!("{whole}{frac}").parse::<i64>().ok();
            if let (Some(d), Some(s)) = (digits, scale)
                && let Some(x) = d.checked_mul(mult)
            {
                return Ok(x / s);
            }
        }
    }
    v.parse::<i64>().map_err(|_| {
        format!(
            "Invalid integer value: '{v}'. Use a plain integer, SI suffixes (1k, 1M), or IEC suffixes (1Ki, 1Mi). \
             Suffixes are case-sensitive."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sglang_suffixes_as_its_docstring_gives_them() {
        // SGLang 0.5.10 utils/common.py human_readable_int docstring: '1k' -> 1000, '1M' -> 1000000,
        // '25.6k' -> 25600, '1Ki' -> 1024, '1Mi' -> 1048576.
        assert_eq!(sglang_human_int("1k"), Ok(1000));
        assert_eq!(sglang_human_int("1M"), Ok(1_000_000));
        assert_eq!(sglang_human_int("25.6k"), Ok(25_600));
        assert_eq!(sglang_human_int("1Ki"), Ok(1024));
        assert_eq!(sglang_human_int("1Mi"), Ok(1_048_576));
        assert_eq!(sglang_human_int("32768"), Ok(32_768));
        // Case-sensitive: 'K' is no suffix of SGLang's (vLLM's 1K = 1024 is not SGLang's). 1.5Ki:
        // Python's int(Decimal('1.5')) = 1 and 'Ki'[0] = 'K' in SGLang's hint.
        assert!(sglang_human_int("1K").is_err_and(|e| e.starts_with("Invalid integer value: '1K'.")));
        assert!(
            sglang_human_int("1.5Ki")
                .is_err_and(|e| e.contains("such as '1Ki', or an SI value such as '1.5K'"))
        );
    }

    #[test]
    fn json_kinds_word_their_errors() {
        assert_eq!(json_error("json-parse", "{\"a\": 1}"), None);
        assert_eq!(json_error("json-parse", "None"), None);
        assert_eq!(
            json_error("json-parse", "{method:").as_deref(),
            Some("Value {method: cannot be converted to <function loads at 0x…>.")
        );
        assert_eq!(
            json_error("json", "x").as_deref(),
            Some("invalid loads value: 'x'")
        );
        assert_eq!(
            json_error("json", "None").as_deref(),
            Some("invalid loads value: 'None'")
        );
    }
}

//! The swept keys: parsing `--set KEY=V1,V2,…` and `--set KEY=START:END:STEP`, and writing one value
//! into a scenario's TOML table by its dotted path (`engine.mem_fraction_static`).

use super::SweepError;

/// Most points one `--set` may expand to (a typo such as `0:1000000:1` should fail fast, not fill
/// memory); a resolution of the tool, not a physical constant.
pub const MAX_VALUES_PER_KEY: u64 = 100_000;

/// One value of a swept key: the text written in the CSV and the TOML value set in the scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// As the user wrote it (lists) or formatted to the step's decimals (ranges).
    pub text: String,
    pub toml: toml::Value,
}

/// One `--set`: a dotted key path and its values, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub key: String,
    pub values: Vec<Value>,
}

impl Axis {
    /// Parses `KEY=V1,V2,…` or `KEY=START:END:STEP`.
    pub fn parse(arg: &str) -> Result<Axis, SweepError> {
        let bad = |why: String| SweepError::Set {
            arg: arg.to_string(),
            message: why,
        };
        let (key, spec) = arg
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=V1,V2,… or KEY=START:END:STEP".into()))?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(|p| p.trim().is_empty()) {
            return Err(bad(format!(
                "`{key}` is not a dotted key path such as engine.mem_fraction_static"
            )));
        }
        let spec = spec.trim();
        let values = if !spec.contains(',') && spec.matches(':').count() == 2 {
            range(spec).map_err(bad)?
        } else {
            spec.split(',')
                .map(|t| scalar(t.trim()).map_err(&bad))
                .collect::<Result<Vec<_>, _>>()?
        };
        Ok(Axis {
            key: key.to_string(),
            values,
        })
    }
}

/// A list item as a TOML scalar: integer, float, boolean, else string (`"…"` quotes force a string).
fn scalar(t: &str) -> Result<Value, String> {
    if t.is_empty() {
        return Err("empty value in the list".into());
    }
    if let Some(inner) = t.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return Ok(Value {
            text: inner.to_string(),
            toml: toml::Value::String(inner.to_string()),
        });
    }
    let toml = if let Ok(i) = t.parse::<i64>() {
        toml::Value::Integer(i)
    } else if looks_numeric(t) {
        match t.parse::<f64>() {
            Ok(f) if f.is_finite() => toml::Value::Float(f),
            _ => return Err(format!("`{t}` is not a finite number")),
        }
    } else if t == "inf" {
        // Issue #18 (load): `workload.request_rate = inf` (every request at t = 0), TOML's own word.
        toml::Value::Float(f64::INFINITY)
    } else if t == "true" || t == "false" {
        toml::Value::Boolean(t == "true")
    } else {
        toml::Value::String(t.to_string())
    };
    Ok(Value {
        text: t.to_string(),
        toml,
    })
}

/// Whether `t` is written like a number (digits, sign, point, exponent), so that `inf`, `nan` or a
/// preset name is never read as a float.
fn looks_numeric(t: &str) -> bool {
    t.chars().any(|c| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
}

/// A decimal number as an integer count of 10^-decimals: ("0.85", 2) → 85.
fn fixed(t: &str) -> Option<(i64, u32)> {
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let n: i64 = format!("{int}{frac}").parse().ok()?;
    Some((if neg { -n } else { n }, frac.len() as u32))
}

/// `START:END:STEP`, END included when the steps land on it. Computed in integer units of the finest
/// decimal written, so 0.80:0.90:0.05 is exactly 0.80, 0.85, 0.90 (no float accumulation); all-integer
/// ranges give integers.
fn range(spec: &str) -> Result<Vec<Value>, String> {
    let parts: Vec<&str> = spec.split(':').map(str::trim).collect();
    let parsed: Vec<(i64, u32)> = parts
        .iter()
        .map(|p| fixed(p))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("`{spec}`: a range START:END:STEP needs decimal numbers"))?;
    let decimals = parsed.iter().map(|p| p.1).max().unwrap_or(0);
    if decimals > 9 {
        return Err(format!("`{spec}`: at most 9 decimals in a range"));
    }
    let scale = |(n, d): (i64, u32)| n.checked_mul(10i64.pow(decimals - d));
    let (Some(start), Some(end), Some(step)) = (scale(parsed[0]), scale(parsed[1]), scale(parsed[2])) else {
        return Err(format!("`{spec}`: numbers too large"));
    };
    if step == 0 {
        return Err(format!("`{spec}`: STEP must not be 0"));
    }
    // Checked: `-9e18:9e18:1` (or a span of i64::MIN over -1) overflows i64.
    let Some(span) = end.checked_sub(start) else {
        return Err(format!("`{spec}`: numbers too large"));
    };
    if span != 0 && (span < 0) != (step < 0) {
        return Err(format!(
            "`{spec}`: STEP {} goes away from END (START {} → END {})",
            parts[2], parts[0], parts[1]
        ));
    }
    let Some(count) = span.checked_div(step).map(|c| c as u64 + 1) else {
        return Err(format!("`{spec}`: numbers too large"));
    };
    if count > MAX_VALUES_PER_KEY {
        return Err(format!(
            "`{spec}` gives {count} values; at most {MAX_VALUES_PER_KEY} per key"
        ));
    }
    let unit = 10f64.powi(decimals as i32);
    Ok((0..count as i64)
        .map(|i| {
            let n = start + i * step;
            if decimals == 0 {
                Value {
                    text: n.to_string(),
                    toml: toml::Value::Integer(n),
                }
            } else {
                // n / 10^d with both exact in f64 is the double nearest the decimal n × 10^-d.
                let f = n as f64 / unit;
                Value {
                    text: format!("{f:.prec$}", prec = decimals as usize),
                    toml: toml::Value::Float(f),
                }
            }
        })
        .collect())
}

/// Sets `key` (dotted path) to `value` in `table`, creating missing tables on the way. A value whose
/// key already holds a string is set as that string (so `engine.version=0.5` stays a version), and an
/// integer where the file has a float becomes a float.
pub fn set(table: &mut toml::Table, key: &str, value: &Value) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').map(str::trim).collect();
    let (leaf, path) = parts.split_last().ok_or("empty key")?;
    let mut t = table;
    for (i, p) in path.iter().enumerate() {
        let entry = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = match entry {
            toml::Value::Table(inner) => inner,
            _ => {
                return Err(format!(
                    "`{}` is a value, not a table, so it has no key `{}`",
                    parts[..=i].join("."),
                    parts[i + 1]
                ));
            }
        };
    }
    let v = match (t.get(*leaf), &value.toml) {
        (Some(toml::Value::String(_)), v) if !v.is_str() => toml::Value::String(value.text.clone()),
        (Some(toml::Value::Float(_)), toml::Value::Integer(i)) => toml::Value::Float(*i as f64),
        (Some(toml::Value::Table(_)), _) => {
            return Err(format!("`{key}` is a table; set one of its keys (`{key}.…`)"));
        }
        (_, v) => v.clone(),
    };
    t.insert(leaf.to_string(), v);
    Ok(())
}

/// Removes `key` (dotted path) from `table`; an error when the scenario does not set it.
pub fn remove(table: &mut toml::Table, key: &str) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').map(str::trim).collect();
    let (leaf, path) = parts.split_last().ok_or("empty key")?;
    let mut t = table;
    for p in path {
        t = match t.get_mut(*p) {
            Some(toml::Value::Table(inner)) => inner,
            _ => return Err("the scenario does not set this key".into()),
        };
    }
    t.remove(*leaf)
        .map(|_| ())
        .ok_or_else(|| "the scenario does not set this key".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(a: &Axis) -> Vec<&str> {
        a.values.iter().map(|v| v.text.as_str()).collect()
    }

    #[test]
    fn float_range_is_exact() {
        let a = Axis::parse("engine.mem_fraction_static=0.80:0.90:0.05").unwrap();
        assert_eq!(texts(&a), ["0.80", "0.85", "0.90"]);
        // Exactly the doubles nearest 0.80, 0.85, 0.90 (what parsing the decimal text gives).
        let f: Vec<f64> = a.values.iter().map(|v| v.toml.as_float().unwrap()).collect();
        assert_eq!(f, ["0.80", "0.85", "0.90"].map(|t| t.parse::<f64>().unwrap()));
        // 0.1 × 3 accumulates to 0.30000000000000004; computed in hundredths it does not.
        let a = Axis::parse("k=0:0.3:0.1").unwrap();
        assert_eq!(texts(&a), ["0.0", "0.1", "0.2", "0.3"]);
        assert_eq!(a.values[3].toml.as_float(), Some(0.3));
    }

    #[test]
    fn integer_and_descending_ranges() {
        let a = Axis::parse("workload.concurrency=1:16:5").unwrap();
        assert_eq!(texts(&a), ["1", "6", "11", "16"]);
        assert_eq!(a.values[1].toml, toml::Value::Integer(6));
        let a = Axis::parse("k=8:2:-3").unwrap();
        assert_eq!(texts(&a), ["8", "5", "2"]);
        assert!(Axis::parse("k=1:8:-1").is_err());
        assert!(Axis::parse("k=1:8:0").is_err());
        assert!(Axis::parse("k=a:b:c").is_err());
    }

    #[test]
    fn list_scalars() {
        let a = Axis::parse("k=1, 2.5,true,nccl,\"8\",nan").unwrap();
        let v: Vec<&toml::Value> = a.values.iter().map(|v| &v.toml).collect();
        assert_eq!(v[0], &toml::Value::Integer(1));
        assert_eq!(v[1], &toml::Value::Float(2.5));
        assert_eq!(v[2], &toml::Value::Boolean(true));
        assert_eq!(v[3], &toml::Value::String("nccl".into()));
        assert_eq!(v[4], &toml::Value::String("8".into()));
        assert_eq!(v[5], &toml::Value::String("nan".into()));
        assert!(Axis::parse("k=1,,2").is_err());
        assert!(Axis::parse("noequals").is_err());
        assert!(Axis::parse("a..b=1").is_err());
    }

    #[test]
    fn set_creates_tables_and_keeps_types() {
        let mut t: toml::Table = "[engine]\nversion = \"0.5\"\nf = 0.5\n".parse().unwrap();
        let v = |s: &str| Axis::parse(&format!("k={s}")).unwrap().values[0].clone();
        set(&mut t, "hardware.params.collapse_factor", &v("0.3")).unwrap();
        assert_eq!(t["hardware"]["params"]["collapse_factor"].as_float(), Some(0.3));
        set(&mut t, "engine.version", &v("0.6")).unwrap();
        assert_eq!(t["engine"]["version"].as_str(), Some("0.6"));
        set(&mut t, "engine.f", &v("1")).unwrap();
        assert_eq!(t["engine"]["f"].as_float(), Some(1.0));
        assert!(set(&mut t, "engine.f.x", &v("1")).is_err());
        assert!(set(&mut t, "engine", &v("1")).is_err());
    }
}

//! Scenario errors: every one names the file, the TOML key path, the line when known, and what was
//! expected. The CLI maps all of them to exit code 2.

use serde::de::DeserializeOwned;
use std::path::Path;

/// An error in a scenario or preset file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    /// The file cannot be read.
    #[error("{file}: cannot read: {message}")]
    Io { file: String, message: String },
    /// The TOML does not parse or does not fit the schema (unknown key, wrong type, bad unit).
    #[error("{file}{}: {}{message}", line_col(*line, *col), key_part(key))]
    Parse {
        file: String,
        key: String,
        line: Option<usize>,
        col: Option<usize>,
        message: String,
    },
    /// The values parse but make no sense together (TP vs heads, GPU count vs topology, ranges).
    #[error("{file}{}: {}{message}", line_col(*line, None), key_part(key))]
    Invalid {
        file: String,
        key: String,
        line: Option<usize>,
        message: String,
    },
}

fn key_part(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!("key `{key}`: ")
    }
}

fn line_col(line: Option<usize>, col: Option<usize>) -> String {
    match (line, col) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    }
}

impl ScenarioError {
    /// A semantic error on `key`, located in `text` when the key is written there.
    pub fn invalid(file: &Path, text: &str, key: &str, message: String) -> ScenarioError {
        ScenarioError::Invalid {
            file: file.display().to_string(),
            key: key.to_string(),
            line: locate(text, key),
            message,
        }
    }

    /// The key path the error is about.
    pub fn key(&self) -> &str {
        match self {
            ScenarioError::Io { .. } => "",
            ScenarioError::Parse { key, .. } | ScenarioError::Invalid { key, .. } => key,
        }
    }

    /// Same error reported under another key name (when an internal path differs from the file's).
    pub fn rename_key(self, from: &str, to: &str) -> ScenarioError {
        match self {
            ScenarioError::Invalid {
                file,
                key,
                line,
                message,
            } if key == from => ScenarioError::Invalid {
                file,
                key: to.to_string(),
                line,
                message,
            },
            other => other,
        }
    }
}

/// Parses TOML text into `T`, reporting the key path (serde_path_to_error) and the line/column.
pub fn parse_toml<T: DeserializeOwned>(text: &str, file: &Path) -> Result<T, ScenarioError> {
    let file_s = file.display().to_string();
    let de = toml::Deserializer::parse(text).map_err(|e| from_toml(&file_s, text, "", &e))?;
    serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let key = if key == "." { String::new() } else { key };
        from_toml(&file_s, text, &key, e.inner())
    })
}

/// [`parse_toml`] over a table already read from `text` (`engine.command` merged into it): errors
/// name the key path, and the line where `text` writes that key.
pub fn parse_value<T: DeserializeOwned>(v: toml::Value, text: &str, file: &Path) -> Result<T, ScenarioError> {
    let file_s = file.display().to_string();
    serde_path_to_error::deserialize(v).map_err(|e| {
        let key = e.path().to_string();
        let key = if key == "." { String::new() } else { key };
        from_toml(&file_s, text, &key, e.inner())
    })
}

fn from_toml(file: &str, text: &str, key: &str, e: &toml::de::Error) -> ScenarioError {
    let (line, col) = match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            (Some(line), Some(col))
        }
        None => (locate(text, key), None),
    };
    ScenarioError::Parse {
        file: file.to_string(),
        key: key.to_string(),
        line,
        col,
        message: e.message().trim().to_string(),
    }
}

/// Line (1-based) where the dotted key path is written in `text`, if it is.
pub fn locate(text: &str, key: &str) -> Option<usize> {
    let root = toml::de::DeTable::parse(text).ok()?;
    let mut table = root.get_ref();
    let parts: Vec<&str> = key.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let (k, v) = table.get_key_value(*part)?;
        if i + 1 == parts.len() {
            let offset = k.span().start;
            return Some(text[..offset.min(text.len())].matches('\n').count() + 1);
        }
        match v.get_ref() {
            toml::de::DeValue::Table(t) => table = t,
            _ => return None,
        }
    }
    None
}

//! The `[model]` section: a bundled preset, a preset directory or a `config.json`, resolved into a
//! [`ModelSpec`].

use super::{ModelSection, Resolver, ScenarioError, error};
use crate::presets;
use std::path::Path;
use tpsim_model::llm::{ModelSpec, Quantization};

impl Resolver<'_> {
    pub(super) fn model(
        &self,
        key: &str,
        m: Option<ModelSection>,
    ) -> Result<(String, ModelSpec), ScenarioError> {
        let m = m.ok_or_else(|| {
            self.invalid(
                key,
                "missing section: expected a model preset, e.g. preset = \"kimi-k2.5\"",
            )
        })?;
        let pkey = format!("{key}.preset");
        let (name, config, quant_text) = match (&m.preset, &m.config) {
            (Some(r), None) if !presets::is_path(r) => {
                let (c, q) = presets::model(r).ok_or_else(|| {
                    self.invalid(
                        &pkey,
                        format!(
                            "unknown model preset `{r}`; expected one of: {}",
                            presets::names("model").join(", ")
                        ),
                    )
                })?;
                (r.clone(), c.to_string(), Some(q.to_string()))
            }
            (Some(r), None) => {
                let (_, c) = self.read_relative(&pkey, &format!("{r}/config.json"))?;
                let (_, q) = self.read_relative(&pkey, &format!("{r}/quant.toml"))?;
                (r.clone(), c, Some(q))
            }
            (None, Some(c)) => {
                let (_, text) = self.read_relative(&format!("{key}.config"), c)?;
                (c.clone(), text, None)
            }
            (Some(_), Some(_)) => return Err(self.invalid(key, "give either `preset` or `config`, not both")),
            (None, None) => {
                return Err(self.invalid(
                    key,
                    "expected `preset = \"<name or dir>\"` or `config = \"<config.json>\"`",
                ));
            }
        };
        let quant: Quantization = match (m.quantization, quant_text) {
            (Some(q), _) => q,
            (None, Some(t)) => error::parse_toml(&t, Path::new(&format!("<model {name}/quant.toml>")))?,
            (None, None) => Quantization::default(),
        };
        // Name the key the user wrote: a config error is about `model.config` when the file came
        // from there, else about the preset that supplied it.
        let ckey = if m.config.is_some() {
            format!("{key}.config")
        } else {
            pkey
        };
        let spec =
            ModelSpec::from_config_json(&config, quant).map_err(|e| self.invalid(&ckey, e.to_string()))?;
        Ok((name, spec))
    }
}

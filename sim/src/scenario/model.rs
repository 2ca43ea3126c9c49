//! The `[model]` section: a bundled preset, a preset directory or a `config.json`, resolved into a
//! [`ModelSpec`].

use super::{ModelSection, Resolver, ScenarioError, error};
use crate::presets;
use std::path::Path;
use tpsim_model::llm::{ModelSpec, Quantization};

impl Resolver<'_> {
    /// The model `key` names: its name, spec, the quantization method the checkpoint declares
    /// ([`checkpoint_method`]) and the one its config.json alone declares ([`config_method`]).
    pub(super) fn model(
        &self,
        key: &str,
        m: Option<ModelSection>,
    ) -> Result<(String, ModelSpec, Option<String>, Option<String>), ScenarioError> {
        let m = m.ok_or_else(|| {
            self.invalid(
                key,
                "missing section: expected a model preset, e.g. preset = \"kimi-k2.5\"",
            )
        })?;
        let pkey = format!("{key}.preset");
        let mut hf_quant: Option<String> = None;
        let (name, config, quant_text) = match (&m.preset, &m.config) {
            (Some(r), None) if !presets::is_path(r) => {
                hf_quant = presets::model_hf_quant(r).map(str::to_string);
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
                let hf = format!("{r}/hf_quant_config.json");
                let base = self.path.parent().unwrap_or(Path::new("."));
                if base.join(&hf).exists() {
                    hf_quant = Some(self.read_relative(&pkey, &hf)?.1);
                }
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
        let inline_quant = m.quantization.is_some();
        let quant: Quantization = match (m.quantization, quant_text) {
            (Some(q), _) => q,
            (None, Some(t)) => self.quant_file(&name, &t, &config, hf_quant.as_deref())?,
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
        // presets58: a `[projections]` override the architecture's attention cannot take is refused,
        // not silently dropped.
        if let Some(k) = spec.unmatched_projection_overrides().first() {
            let qkey = if inline_quant {
                format!("{key}.quantization.projections.{k}")
            } else {
                ckey.clone()
            };
            return Err(self.invalid(
                &qkey,
                format!(
                    "this model's attention ({:?}) has no `{k}` projection to store apart; expected one of \
                     the projections it builds (qkv_proj and o_proj; q_b_proj and kv_b_proj with MLA)",
                    spec.arch
                ),
            ));
        }
        Ok((
            name,
            spec,
            checkpoint_method(&config, hf_quant.is_some()),
            config_method(&config),
        ))
    }
}

/// b200sgl54: the `quantization_config.quant_method` of config.json alone, lower-cased — what
/// SGLang's `get_quantization_config(hf_config)` hands its SM 10.x MoE-runner rules (0.5.9
/// `utils/common.py`; `scenario::moe_backend::sglang_quantization`): a ModelOpt
/// `hf_quant_config.json` is not read there. `None` without one.
fn config_method(config: &str) -> Option<String> {
    let cfg: serde_json::Value = serde_json::from_str(&tpsim_model::llm::non_finite_to_null(config)).ok()?;
    cfg.get("quantization_config")
        .and_then(|q| q.get("quant_method"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_lowercase)
}

/// Issue #17 (onlinequant): the quantization method the checkpoint declares, as the engines read
/// it (vLLM 0.11.0 `config/model.py` `_verify_quantization`, SGLang 0.5.9 `configs/model_config.py`):
/// `quantization_config.quant_method` of config.json, lower-cased, else `modelopt` for a ModelOpt
/// `hf_quant_config.json`; `None` for an unquantized checkpoint.
fn checkpoint_method(config: &str, modelopt: bool) -> Option<String> {
    config_method(config).or_else(|| modelopt.then(|| "modelopt".to_string()))
}

/// Keys a `from = "config"` quant.toml may carry beside `from`.
const FROM_CONFIG_KEYS: [&str; 2] = ["from", "kv_cache_dtype"];

impl Resolver<'_> {
    /// A preset's quant.toml: the explicit description, or (issue #16) `from = "config"`: the
    /// quantization the checkpoint declares (`quantization_config` in config.json, or its ModelOpt
    /// `hf_quant_config.json`; `tpsim_model::llm::quant_hf`), with an optional `kv_cache_dtype`
    /// override.
    fn quant_file(
        &self,
        name: &str,
        text: &str,
        config: &str,
        hf_quant: Option<&str>,
    ) -> Result<Quantization, ScenarioError> {
        // A preset folder's quant.toml is a file the user can open: its path (cfgfuzz: it was
        // `<model DIR/quant.toml>` too); a bundled preset's has none.
        let file = if presets::is_path(name) {
            let base = self.path.parent().unwrap_or(Path::new("."));
            base.join(name).join("quant.toml").display().to_string()
        } else {
            format!("<model {name}/quant.toml>")
        };
        let table: toml::Table = error::parse_toml(text, Path::new(&file))?;
        let Some(from) = table.get("from") else {
            return error::parse_toml(text, Path::new(&file));
        };
        // Errors point at the scenario's model preset and name the quant.toml key.
        let bad = |k: &str, m: String| self.invalid("model.preset", format!("{file} `{k}`: {m}"));
        if from.as_str() != Some("config") {
            return Err(bad(
                "from",
                format!("{from}: expected \"config\" (read the checkpoint's own quantization)"),
            ));
        }
        if let Some(k) = table.keys().find(|k| !FROM_CONFIG_KEYS.contains(&k.as_str())) {
            return Err(bad(
                k,
                "with `from = \"config\"` only `kv_cache_dtype` may be given (the formats come from \
                 the checkpoint)"
                    .into(),
            ));
        }
        let bad_json = |what: &str, e: serde_json::Error| bad("from", format!("{what} is not JSON: {e}"));
        // As the model's own reading (`ModelConfig::from_json`): Python's `Infinity`/`NaN` read as null.
        let cfg: serde_json::Value = serde_json::from_str(&tpsim_model::llm::non_finite_to_null(config))
            .map_err(|e| bad_json("config.json", e))?;
        let hf: Option<serde_json::Value> = hf_quant
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| bad_json("hf_quant_config.json", e))?;
        let mut q = tpsim_model::llm::quant_hf::from_checkpoint(&cfg, hf.as_ref())
            .map_err(|e| bad("from", e.to_string()))?;
        if let Some(kv) = table.get("kv_cache_dtype") {
            q.kv_cache_dtype = kv
                .clone()
                .try_into()
                .map_err(|e: toml::de::Error| bad("kv_cache_dtype", e.to_string()))?;
        }
        Ok(q)
    }
}

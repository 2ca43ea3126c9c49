//! Preset data files bundled at build time from `scenarios/hardware/*.toml` (and the templates they
//! extend, `scenarios/hardware/templates/*.toml`),
//! `scenarios/engines/*.toml`, `scenarios/acceptance/*.toml` and `scenarios/models/<name>/{config.json,quant.toml}`.
//!
//! A scenario names a preset either by its bundled name (`preset = "kimi-k2.5"`) or by a path
//! relative to the scenario file (`preset = "./my-box.toml"`; anything containing `/` or ending in
//! `.toml`/`.json` is a path).

include!(concat!(env!("OUT_DIR"), "/presets.rs"));

/// Whether a preset reference is a path rather than a bundled name.
pub fn is_path(reference: &str) -> bool {
    reference.contains('/') || reference.ends_with(".toml") || reference.ends_with(".json")
}

/// The bundled hardware preset `name`.
pub fn hardware(name: &str) -> Option<&'static str> {
    HARDWARE.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The bundled hardware template `name` (`scenarios/hardware/templates/<name>.toml`): the part that
/// several presets share, named by their `extends = "<name>"`; not a preset itself.
pub fn hardware_template(name: &str) -> Option<&'static str> {
    HARDWARE_TEMPLATES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
}

/// The bundled engine preset `name`.
pub fn engine(name: &str) -> Option<&'static str> {
    ENGINES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The bundled acceptance profile `name` (`scenarios/acceptance/<name>.toml`).
pub fn acceptance(name: &str) -> Option<&'static str> {
    ACCEPTANCE.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The bundled NIC preset `name` (`scenarios/nics/<name>.toml`; issue #17 point 4).
pub fn nic(name: &str) -> Option<&'static str> {
    NICS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The bundled model preset `name`: (config.json, quant.toml).
pub fn model(name: &str) -> Option<(&'static str, &'static str)> {
    MODELS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|(_, c, q)| (*c, *q))
}

/// The bundled model preset `name`'s ModelOpt `hf_quant_config.json`, when it has one.
pub fn model_hf_quant(name: &str) -> Option<&'static str> {
    MODEL_HF_QUANT.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Names of bundled presets of one kind, for error messages and `--help`.
pub fn names(kind: &str) -> Vec<&'static str> {
    match kind {
        "hardware" => HARDWARE.iter().map(|(n, _)| *n).collect(),
        "hardware-template" => HARDWARE_TEMPLATES.iter().map(|(n, _)| *n).collect(),
        "engine" => ENGINES.iter().map(|(n, _)| *n).collect(),
        "acceptance" => ACCEPTANCE.iter().map(|(n, _)| *n).collect(),
        "nic" => NICS.iter().map(|(n, _)| *n).collect(),
        _ => MODELS.iter().map(|(n, _, _)| *n).collect(),
    }
}

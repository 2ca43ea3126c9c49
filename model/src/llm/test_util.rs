//! Scaffolding the per-family unit tests share (mend52: folded from `tests_families22`,
//! `tests_families23` and, for `spec`, six more family test modules).

use super::{Mixer, ModelError, ModelSpec, MoeShape, Quantization};

/// The spec of config text `text` in bf16, or the reader's refusal.
pub(super) fn spec(text: &str) -> Result<ModelSpec, ModelError> {
    ModelSpec::from_config_json(text, Quantization::bf16())
}

/// Config text `text` with its top-level keys edited by `f`.
pub(super) fn with(text: &str, f: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    f(v.as_object_mut().unwrap());
    v.to_string()
}

/// Asserts layer `i`'s mixer is `at` for every `i` in `layers` and `other` elsewhere.
pub(super) fn assert_mixers(s: &ModelSpec, layers: &[usize], at: Mixer, other: Mixer) {
    for (i, m) in s.mixers.iter().enumerate() {
        let want = if layers.contains(&i) { at } else { other };
        assert_eq!(*m, want, "layer {i}");
    }
}

/// The MoE shape of `moe` as the family tests state it: (routed experts, experts a token, expert
/// intermediate size, shared experts).
pub(super) fn moe_shape(moe: &MoeShape) -> (u64, u64, u64, u64) {
    (
        moe.n_routed_experts,
        moe.num_experts_per_tok,
        moe.moe_intermediate,
        moe.n_shared_experts,
    )
}

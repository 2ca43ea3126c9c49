//! The GEMM/GEMV shapes `bench` times: per-rank projections of a decode step at tensor
//! parallelism, computed from HuggingFace configs by `tpsim-model`'s own lowering (this module
//! re-derives no sharding rule). Pure; tested without a GPU.

use tpsim_model::llm::{ModelSpec, Quantization};

/// Token counts of the GEMM/GEMV sweep: decode batches (issue #7 point 1).
pub const GEMM_M: [u64; 5] = [1, 4, 8, 16, 32];

/// Tensor-parallel degree of the decode shapes (the seed box runs TP 8, `reference/seed-story.md`).
pub const GEMM_TP: u64 = 8;

/// One projection of a decoder: Y[m×n] = X[m×k] · Wᵀ, W being n×k on one rank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projection {
    /// `<model>/<projection>`, e.g. `llama-3.1-8b/qkv_proj`.
    pub name: String,
    /// Output features on this rank.
    pub n: u64,
    /// Input features on this rank.
    pub k: u64,
}

/// The per-rank projection shapes of one decode step of `spec` at tensor parallelism `tp`, as
/// `tpsim-model` lowers them ([`ModelSpec::decode_projections`], from the same per-rank inventory
/// as its weights and forward pass, so the sharding rules are written once: the table in
/// `model/src/llm/weights.rs`), each named `<label>/<projection>`. MLA's absorbed w_kc/w_vc are
/// batched per-head GEMMs over the KV cache, not projections: left out.
pub fn decode_projections(label: &str, spec: &ModelSpec, tp: u64) -> Vec<Projection> {
    let tp = u32::try_from(tp.max(1)).unwrap_or(u32::MAX);
    spec.decode_projections(tp)
        .into_iter()
        .map(|p| Projection {
            name: format!("{label}/{}", p.name),
            n: p.n,
            k: p.k,
        })
        .collect()
}

/// The models whose decode shapes `bench` times (configs from `scenarios/models/`, compiled in so
/// the benchmark binary needs no checkout): Llama-3.1-8B and Kimi-K2.5, the seed story's model.
const GEMM_MODELS: [(&str, &str); 2] = [
    (
        "llama-3.1-8b",
        include_str!("../../../scenarios/models/llama-3.1-8b/config.json"),
    ),
    (
        "kimi-k2.5",
        include_str!("../../../scenarios/models/kimi-k2.5/config.json"),
    ),
];

/// Projection shapes of the compiled-in models at [`GEMM_TP`], in model order; an error names the
/// config that failed to parse (a defect of the repository, not of the user's input).
pub fn gemm_projections() -> Result<Vec<Projection>, String> {
    let mut all = Vec::new();
    for (label, json) in GEMM_MODELS {
        let spec = ModelSpec::from_config_json(json, Quantization::bf16())
            .map_err(|e| format!("scenarios/models/{label}/config.json: {e}"))?;
        all.extend(decode_projections(label, &spec, GEMM_TP));
    }
    Ok(all)
}

/// The distinct (n, k) pairs of `projections`, in first-seen order, with the names sharing each.
pub fn distinct_shapes(projections: &[Projection]) -> Vec<(u64, u64, Vec<String>)> {
    let mut out: Vec<(u64, u64, Vec<String>)> = Vec::new();
    for p in projections {
        match out.iter_mut().find(|(n, k, _)| *n == p.n && *k == p.k) {
            Some((_, _, names)) => names.push(p.name.clone()),
            None => out.push((p.n, p.k, vec![p.name.clone()])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(ps: &[Projection], name: &str) -> (u64, u64) {
        let p = ps
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no {name} in {ps:?}"));
        (p.n, p.k)
    }

    /// Every shape `bench` times, in the order it times them, as `decode_projections` produced
    /// them when it re-derived the sharding rules itself (before it took them from
    /// `tpsim_model`'s lowering): the bench's output must not move.
    #[test]
    fn gemm_projections_are_the_pinned_shapes() {
        let pinned: [(&str, u64, u64); 16] = [
            ("llama-3.1-8b/qkv_proj", 768, 4096),
            ("llama-3.1-8b/o_proj", 4096, 512),
            ("llama-3.1-8b/mlp.gate_up_proj", 3584, 4096),
            ("llama-3.1-8b/mlp.down_proj", 4096, 1792),
            ("llama-3.1-8b/lm_head", 16032, 4096),
            ("kimi-k2.5/fused_qkv_a_proj", 2112, 7168),
            ("kimi-k2.5/q_b_proj", 1536, 1536),
            ("kimi-k2.5/o_proj", 7168, 1024),
            ("kimi-k2.5/mlp.gate_up_proj", 4608, 7168),
            ("kimi-k2.5/mlp.down_proj", 7168, 2304),
            ("kimi-k2.5/moe.router", 384, 7168),
            ("kimi-k2.5/moe.expert.gate_up_proj", 512, 7168),
            ("kimi-k2.5/moe.expert.down_proj", 7168, 256),
            ("kimi-k2.5/moe.shared.gate_up_proj", 512, 7168),
            ("kimi-k2.5/moe.shared.down_proj", 7168, 256),
            ("kimi-k2.5/lm_head", 20480, 7168),
        ];
        let got: Vec<(String, u64, u64)> = gemm_projections()
            .unwrap()
            .into_iter()
            .map(|p| (p.name, p.n, p.k))
            .collect();
        let want: Vec<(String, u64, u64)> = pinned.iter().map(|&(s, n, k)| (s.to_string(), n, k)).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn llama_8b_projections_at_tp8() {
        // config.json: hidden 4096, 32 heads, 8 KV heads, head_dim 128, intermediate 14336, vocab 128256.
        let ps = gemm_projections().unwrap();
        assert_eq!(shape(&ps, "llama-3.1-8b/qkv_proj"), ((4 + 2) * 128, 4096));
        assert_eq!(shape(&ps, "llama-3.1-8b/o_proj"), (4096, 512));
        assert_eq!(shape(&ps, "llama-3.1-8b/mlp.gate_up_proj"), (2 * 1792, 4096));
        assert_eq!(shape(&ps, "llama-3.1-8b/mlp.down_proj"), (4096, 1792));
        assert_eq!(shape(&ps, "llama-3.1-8b/lm_head"), (16032, 4096));
        assert_eq!(ps.iter().filter(|p| p.name.starts_with("llama")).count(), 5);
    }

    #[test]
    fn kimi_k25_projections_at_tp8() {
        // config.json: hidden 7168, 64 heads, q_lora 1536, kv_lora 512, qk_nope 128, qk_rope 64,
        // v_head 128, intermediate 18432, 384 experts of 2048, 1 shared, vocab 163840.
        let ps = gemm_projections().unwrap();
        assert_eq!(shape(&ps, "kimi-k2.5/fused_qkv_a_proj"), (1536 + 512 + 64, 7168));
        assert_eq!(shape(&ps, "kimi-k2.5/q_b_proj"), (8 * 192, 1536));
        assert_eq!(shape(&ps, "kimi-k2.5/o_proj"), (7168, 1024));
        assert_eq!(shape(&ps, "kimi-k2.5/mlp.gate_up_proj"), (4608, 7168));
        assert_eq!(shape(&ps, "kimi-k2.5/mlp.down_proj"), (7168, 2304));
        assert_eq!(shape(&ps, "kimi-k2.5/moe.router"), (384, 7168));
        assert_eq!(shape(&ps, "kimi-k2.5/moe.expert.gate_up_proj"), (512, 7168));
        assert_eq!(shape(&ps, "kimi-k2.5/moe.expert.down_proj"), (7168, 256));
        assert_eq!(shape(&ps, "kimi-k2.5/moe.shared.down_proj"), (7168, 256));
        assert_eq!(shape(&ps, "kimi-k2.5/lm_head"), (20480, 7168));
        // Expert and shared expert shards coincide: timed once.
        let d = distinct_shapes(&ps);
        let (_, _, names) = d.iter().find(|(n, k, _)| (*n, *k) == (7168, 256)).unwrap();
        assert_eq!(
            names,
            &["kimi-k2.5/moe.expert.down_proj", "kimi-k2.5/moe.shared.down_proj"]
        );
        assert_eq!(d.len(), ps.len() - 2);
    }
}

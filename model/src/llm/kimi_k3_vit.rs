//! vision54 (issue #17): Kimi-K3's MoonViT3d tower and `mm_projector` (`KimiK3ForConditionalGeneration`)
//! as SGLang builds them: 0.5.23 `models/kimi_k3_vl.py` (`MoonViT3dEncoder`, `MoonViTEncoderLayer`,
//! `MoonVision3dPatchEmbed`, `Learnable2DInterpPosEmbDividedFixed`, `KimiK3MultiModalProjector`;
//! the 0.5.17 wheel, the first with the file, builds the same modules). Every part is a plain
//! `nn.Linear` / `nn.RMSNorm` / `nn.Parameter`: replicated on every rank at the model dtype (the
//! checkpoint's quantization covers the routed experts only). Keys as SGLang 0.5.23
//! `configs/kimi_k3.py` `KimiK3VisionConfig` reads them, with its defaults where absent (27 blocks of
//! 1,024, MLP 4,096, 12 heads, `qkv_hidden_size` 1,536, patch 14, a 64 × 64 position grid, 2 × 2
//! merge, `mm_hidden_size` = the width).
//!
//! | part | shape |
//! |---|---|
//! | per block `norm0`, `norm1` | RMSNorm, 2 × hidden |
//! | per block `wqkv`, `wo` | 3 · qkv_hidden × hidden, hidden × qkv_hidden, no bias (`attn_bias` false) |
//! | per block `mlp.fc0`, `mlp.fc1` | intermediate × hidden, hidden × intermediate, no bias (`linear_bias` false) |
//! | `patch_embed.proj` | hidden × 3 · patch², no bias (`patch_embed_proj_bias` false) |
//! | `patch_embed.pos_emb.weight` | height × width × hidden (the time axis is a fixed sin-cos buffer) |
//! | `final_layernorm` | RMSNorm, hidden |
//! | `mm_projector.proj` | m × m and text hidden × m, no bias, m = mm_hidden × merge |
//! | `mm_projector.post_norm` | RMSNorm, text hidden |
//!
//! The published tower (`llm` families32 test: 447,358,976 parameters) reproduces the checkpoint's
//! tensor list. Refused (not modelled; the published config sets none): `norm_type` other than
//! `rmsnorm`, and `attn_bias`, `linear_bias` or `patch_embed_proj_bias` true.

use super::piece::{Fmt, Piece};
use super::vlm::{VisionFamily, get};
use super::{ModelError, VisionTower};

/// SGLang 0.5.23 `KimiK3VisionConfig` defaults: (layers, hidden, MLP, heads, qkv width, patch).
const DEFAULTS: (u64, u64, u64, u64, u64, u64) = (27, 1_024, 4_096, 12, 1_536, 14);

/// The MoonViT3d tower of Kimi-K3's `vision_config`, projecting to `text_hidden` (SGLang sets the
/// config's `text_hidden_size` to the text tower's width).
pub(crate) fn kimi_k3_vit(
    v: &serde_json::Value,
    text_hidden: u64,
    arch: &str,
) -> Result<VisionTower, ModelError> {
    let (d_layers, d_hidden, d_mlp, d_heads, d_qkv, d_patch) = DEFAULTS;
    if let Some(n) = v.get("norm_type").and_then(serde_json::Value::as_str)
        && n != "rmsnorm"
    {
        return Err(refused("norm_type", &format!("\"{n}\""), "\"rmsnorm\"", arch));
    }
    for key in ["attn_bias", "linear_bias", "patch_embed_proj_bias"] {
        if v.get(key).and_then(serde_json::Value::as_bool) == Some(true) {
            return Err(refused(key, "true", "false", arch));
        }
    }
    let layers = match get(v, "vt_num_hidden_layers")? {
        Some(l) if l > 10_000 => {
            return Err(refused(
                "vt_num_hidden_layers",
                &l.to_string(),
                "at most 10000",
                arch,
            ));
        }
        l => l.unwrap_or(d_layers),
    };
    let hidden = get(v, "vt_hidden_size")?.unwrap_or(d_hidden);
    let merge = v
        .get("merge_kernel_size")
        .and_then(serde_json::Value::as_array)
        .map(|a| a.iter().filter_map(serde_json::Value::as_u64).product::<u64>())
        .filter(|&m| m > 0 && m <= 64)
        .unwrap_or(4);
    let grid = get(v, "init_pos_emb_height")?.unwrap_or(64) * get(v, "init_pos_emb_width")?.unwrap_or(64);
    Ok(VisionTower {
        pos_emb_cells: grid,
        merge,
        // SGLang's fraction dims are the tower's own: `KimiK3VisionConfig` aliases `num_hidden_layers` /
        // `hidden_size` to the `vt_` keys, which `adjust_mem_fraction_for_vlm` reads.
        ..VisionTower::encoder(
            VisionFamily::MoonVit3d {
                qkv_hidden: get(v, "qkv_hidden_size")?.unwrap_or(d_qkv),
                mm_hidden: get(v, "mm_hidden_size")?.unwrap_or(hidden),
            },
            layers,
            hidden,
            get(v, "vt_intermediate_size")?.unwrap_or(d_mlp),
            get(v, "vt_num_attention_heads")?.unwrap_or(d_heads),
            get(v, "patch_size")?.unwrap_or(d_patch),
            text_hidden,
        )
    })
}

fn refused(key: &str, value: &str, expected: &str, arch: &str) -> ModelError {
    ModelError::InvalidField {
        field: format!("vision_config.{key}"),
        value: value.into(),
        expected: format!("{expected} (the MoonViT3d tower tpsim models for {arch})"),
    }
}

/// The MoonViT3d tower and projector, whole on every rank (module table).
pub(crate) fn kimi_k3_vit_pieces(v: &VisionTower) -> Vec<Piece> {
    let VisionFamily::MoonVit3d {
        qkv_hidden,
        mm_hidden,
    } = v.family
    else {
        return Vec::new();
    };
    let (h, i) = (v.hidden, v.intermediate);
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::vec(2 * h)); // norm0, norm1
        ps.push(Piece::new(3 * qkv_hidden, h, Fmt::Model)); // wqkv
        ps.push(Piece::new(h, qkv_hidden, Fmt::Model)); // wo
        ps.push(Piece::new(i, h, Fmt::Model)); // mlp.fc0
        ps.push(Piece::new(h, i, Fmt::Model)); // mlp.fc1
    }
    ps.push(Piece::new(h, 3 * v.patch * v.patch, Fmt::Model)); // patch_embed.proj
    ps.push(Piece::new(v.pos_emb_cells, h, Fmt::Model)); // pos_emb.weight
    ps.push(Piece::vec(h)); // final_layernorm
    let m = mm_hidden * v.merge;
    ps.push(Piece::new(m, m, Fmt::Model)); // mm_projector.proj[0]
    ps.push(Piece::new(v.text_hidden, m, Fmt::Model)); // mm_projector.proj[2]
    ps.push(Piece::vec(v.text_hidden)); // mm_projector.post_norm
    ps
}

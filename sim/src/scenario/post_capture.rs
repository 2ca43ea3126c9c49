//! sglmem54 (issue #17): SGLang's post-capture KV sizing, `SGLANG_ENABLE_POST_CAPTURE_KV_SIZING` in
//! `[engine.env]` (an `EnvBool`, default false, in `sglang/srt/environ.py` of 0.5.16 – 0.5.23; not in
//! 0.5.15's). When SGLang plans it (`server_args.py` `post_capture_kv_sizing_planned`, 0.5.16 – 0.5.18;
//! `arg_groups/overrides.py` from 0.5.19: CUDA, no MLA backend, `dcp_size` 1, decode and prefill CUDA
//! graphs on, the largest prefill captured, not DeepSeek-V4 / MiniMax sparse; 0.5.16 also no DP
//! attention), the default fraction keeps only 512 (0.5.16, 0.5.17) or 1,536 MiB (0.5.18 on) plus
//! tp × pp / 8 GiB of reserve, the pool is mapped as a virtual upper bound ("VA upper bound" in
//! `memory_pool.py`), and after capture `model_runner_components/kv_pool_runtime.py`
//! `compute_post_capture_kv_resize` backs it with the free memory it measures then, less
//! (1 − mem_fraction_static) × the memory before the weights (more when decode runs eager above the
//! captured max_bs or the model has a Mamba state). The pool then depends on what the graphs really
//! took, which tpsim only assumes (`engine.costs.target_cuda_graph_memory`): not predicted. tpsim
//! keeps the heuristic reserve's pool and says so, or says when SGLang keeps it too.

use tpsim_model::sglang_fraction_early::release_post;

/// The variable's name.
pub(super) const VAR: &str = "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING";

/// What the note reads from the deployment.
pub(super) struct PostCaptureInput<'a> {
    /// The SGLang release simulated.
    pub version: &'a str,
    /// The model runs an MLA backend.
    pub mla: bool,
    /// Decode CUDA graphs on.
    pub decode_graphs: bool,
    /// Decode context parallelism > 1.
    pub dcp: bool,
    /// tp × pp.
    pub tpp: u32,
}

/// SGLang's `EnvBool.parse` (0.5.16 – 0.5.23 `environ.py`): true / 1 / yes / y, false / 0 / no / n,
/// any case; anything else warns and reads the default (false), which `None` stands for here.
fn parse(raw: &str) -> Option<bool> {
    match raw.to_lowercase().as_str() {
        "true" | "1" | "yes" | "y" => Some(true),
        "false" | "0" | "no" | "n" => Some(false),
        _ => None,
    }
}

/// The warning for the variable's value `raw` (taken out of `[engine.env]`), `None` when it is off.
pub(super) fn note(raw: &str, i: &PostCaptureInput) -> Option<String> {
    let patch = match release_post(i.version) {
        Some((0, 5, p, _)) => p,
        _ => 0,
    };
    if patch < 16 {
        return Some(format!(
            "engine.env.{VAR}: SGLang {} does not read it (first in 0.5.16's environ.py); ignored",
            i.version
        ));
    }
    match parse(raw) {
        Some(false) => return None,
        None => {
            return Some(format!(
                "engine.env.{VAR}: \"{raw}\" is not a valid boolean value: SGLang warns and keeps the default (off)"
            ));
        }
        Some(true) => {}
    }
    let why_not = if i.mla {
        Some("an MLA backend")
    } else if !i.decode_graphs {
        Some("decode CUDA graphs off")
    } else if i.dcp {
        Some("decode context parallelism")
    } else {
        None
    };
    if let Some(why) = why_not {
        return Some(format!(
            "engine.env.{VAR}: SGLang {} does not plan post-capture KV sizing with {why} \
             (post_capture_kv_sizing_planned) and keeps the heuristic reserve, as modelled",
            i.version
        ));
    }
    // 0.5.16 / 0.5.17: `reserved_mem = 512`; 0.5.18 on: 1536 (`handle_gpu_memory_settings`).
    let floor = if patch >= 18 { 1536 } else { 512 };
    Some(format!(
        "engine.env.{VAR}: SGLang {} sizes the KV pool again after CUDA-graph capture from the free memory it \
         measures then (kv_pool_runtime.py compute_post_capture_kv_resize), and its default \
         mem_fraction_static reserves only {floor} + {} MiB; NOT MODELLED: the plan, the pool and the \
         throughput are those of the heuristic reserve (SGLang also falls back to it when prefill graphs are \
         off or miss the largest prefill, and under DP attention in 0.5.16, which tpsim does not check here)",
        i.version,
        i.tpp * 128
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(version: &str) -> PostCaptureInput<'_> {
        PostCaptureInput {
            version,
            mla: false,
            decode_graphs: true,
            dcp: false,
            tpp: 4,
        }
    }

    #[test]
    fn notes_by_release_and_value() {
        assert!(note("1", &input("0.5.15")).unwrap().contains("does not read it"));
        assert_eq!(note("0", &input("0.5.20")), None);
        assert_eq!(note("No", &input("0.5.20")), None);
        assert!(
            note("maybe", &input("0.5.20"))
                .unwrap()
                .contains("not a valid boolean")
        );
        // tp 4: 4 / 8 × 1024 = 512 MiB beside the floor, 512 in 0.5.17, 1536 from 0.5.18.
        assert!(
            note("true", &input("0.5.17"))
                .unwrap()
                .contains("only 512 + 512 MiB")
        );
        assert!(
            note("Y", &input("0.5.22"))
                .unwrap()
                .contains("only 1536 + 512 MiB; NOT MODELLED")
        );
        let mla = PostCaptureInput {
            mla: true,
            ..input("0.5.22")
        };
        assert!(note("1", &mla).unwrap().contains("with an MLA backend"));
    }
}

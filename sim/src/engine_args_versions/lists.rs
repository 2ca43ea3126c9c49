//! The bundled argument lists, one per release (see the parent module for how they are written and
//! picked).

use super::FlagList;
use crate::scenario::EngineKind;

/// `list!(Sglang, "0.5.8")`: the bundled list `tests/data/engine-args/sglang-0.5.8.txt`.
macro_rules! list {
    (Sglang, $v:literal) => {
        FlagList {
            engine: EngineKind::Sglang,
            version: $v,
            text: include_str!(concat!("../../../tests/data/engine-args/sglang-", $v, ".txt")),
        }
    };
    (Vllm, $v:literal) => {
        FlagList {
            engine: EngineKind::Vllm,
            version: $v,
            text: include_str!(concat!("../../../tests/data/engine-args/vllm-", $v, ".txt")),
        }
    };
}

/// Every bundled list, oldest first per engine.
pub const LISTS: &[FlagList] = &[
    // flags55: the releases the validation rows name before 0.5.8 (DataCrunch's 0.4.0.post1, 0.5.3 –
    // 0.5.7 and the post-releases whose argument set differs from their release's), plus 0.4.3 (CUDA-graph
    // batch sizes, FlashInfer MLA), 0.4.6, 0.4.10 and 0.5.0rc0 – 0.5.2 (each adds or drops flags), from the
    // sglang-<version> wheels on PyPI.
    list!(Sglang, "0.4.0"),
    list!(Sglang, "0.4.0.post1"),
    list!(Sglang, "0.4.3"),
    list!(Sglang, "0.4.6"),
    list!(Sglang, "0.4.10"),
    // flags56: 0.4.10.post2 (restores `ep_size = tp_size` under `--enable-ep-moe`, which 0.4.10 lacks;
    // adds `--moe-a2a-backend`), from its wheel.
    list!(Sglang, "0.4.10.post2"),
    list!(Sglang, "0.5.0rc0"),
    list!(Sglang, "0.5.1"),
    list!(Sglang, "0.5.2"),
    list!(Sglang, "0.5.3"),
    list!(Sglang, "0.5.3.post3"),
    list!(Sglang, "0.5.4"),
    list!(Sglang, "0.5.5"),
    list!(Sglang, "0.5.6"),
    list!(Sglang, "0.5.6.post1"),
    list!(Sglang, "0.5.7"),
    list!(Sglang, "0.5.8"),
    list!(Sglang, "0.5.9"),
    // flags53: every release 0.5.10 - 0.5.22 (each removes flags the one before had), extracted from
    // the sglang-0.5.N wheels on PyPI.
    list!(Sglang, "0.5.10"),
    list!(Sglang, "0.5.11"),
    list!(Sglang, "0.5.12"),
    list!(Sglang, "0.5.13"),
    list!(Sglang, "0.5.14"),
    list!(Sglang, "0.5.15"),
    list!(Sglang, "0.5.16"),
    list!(Sglang, "0.5.17"),
    list!(Sglang, "0.5.18"),
    list!(Sglang, "0.5.19"),
    list!(Sglang, "0.5.20"),
    list!(Sglang, "0.5.21"),
    list!(Sglang, "0.5.22"),
    list!(Sglang, "0.5.23"),
    // flags55: the releases the validation rows name before 0.11.0, from the vllm-<version> wheels on
    // PyPI (0.2.6: `python -m vllm.entrypoints.openai.api_server`, see `legacy_server`).
    list!(Vllm, "0.2.6"),
    list!(Vllm, "0.5.3.post1"),
    list!(Vllm, "0.5.4"),
    list!(Vllm, "0.8.5"),
    list!(Vllm, "0.9.1"),
    list!(Vllm, "0.10.1.1"),
    list!(Vllm, "0.10.2"),
    list!(Vllm, "0.11.0"),
    list!(Vllm, "0.12.0"),
    // flags55: 0.13.0 - 0.17.0 as the rows name them (each adds or drops flags), from the wheels.
    list!(Vllm, "0.13.0"),
    list!(Vllm, "0.14.1"),
    list!(Vllm, "0.15.1"),
    list!(Vllm, "0.16.0"),
    list!(Vllm, "0.17.0"),
    // Issue #17 (consistency): the release a scenario without `engine.version` means
    // (`crate::engine_release::CURRENT_VLLM`); extracted from the vllm-0.19.0 wheel on PyPI.
    list!(Vllm, "0.19.0"),
    // flags55: the RTX 3090 rows' 0.25.1, from its wheel.
    list!(Vllm, "0.25.1"),
    // flags56: 0.33.0 re-extracted (the list committed before gave `str` to eight flags whose type is a
    // field of config/cache.py, scheduler.py, parallel.py or multimodal.py — `--max-num-seqs`,
    // `--enable-prefix-caching`, … —, which extract.py, today's and the one that wrote the list alike, reads
    // as int / flag from the full wheel), and 0.34.0, from their wheels on PyPI.
    list!(Vllm, "0.33.0"),
    list!(Vllm, "0.34.0"),
];

//! Issue #17: the first engine release that serves each model class tpsim holds to one, as one table
//! ([`TABLE`]: model, engine, first release, the engine's file, where the bound comes from, and what
//! the release would do instead), checked by [`check`] on `engine.version`. A release without the
//! class is refused naming the file; where the engine would fall back to its Transformers backend
//! (which tpsim does not model) the refusal quotes the engine's log line. What stays per family —
//! SGLang's EXAONE 4 backends (`exaone4`), ERNIE-4.5's two names (`ernie45`), SGLang's InternVL
//! towers (`internvl`), StarCoder2's window (`starcoder2`) — is in the family's module, checked after
//! this table.
//!
//! The bounds, each read as the row's comment says:
//!
//! - **EXAONE 4** (`Exaone4ForCausalLM`, families5): SGLang from 0.5.9, vLLM from 0.10.0 (vllm PR
//!   21060), both read from the wheels as module `exaone4` says; an older release falls back to its
//!   Transformers backend.
//! - **GLM-4.5V / GLM-4.6V** (`Glm4vMoeForConditionalGeneration`, families7): SGLang adds
//!   `models/glm4v_moe.py` in 0.5.0 (the 0.5.0rc1 wheel has it, 0.5.0rc0's and 0.4.10.post2's have
//!   not); an older release finds no model class for the architecture. tpsim's sizes are read at 0.5.8
//!   and 0.5.9 (`tpsim_model::llm` module `glm4v`); 0.5.0rc1's tower was built on
//!   `Qwen2_5_VisionBlock` and is not checked. vLLM registers it from 0.10.1 (the 0.10.1 wheel's
//!   `model_executor/models/registry.py`: `"Glm4vMoeForConditionalGeneration": ("glm4_1v", ...)`;
//!   0.10.0's lists only `Glm4vForConditionalGeneration`). Sizes read at 0.11.0 (0.10.1's tower has
//!   the same head-sharded attention and `out_hidden_size`-wide block MLP).
//! - **GLM-4.7-Flash** (`Glm4MoeLiteForCausalLM`, families10), both bounds read from the PyPI wheels'
//!   file lists (2026-12-05), with the third-party reports that first suggested them. SGLang: on
//!   2026-01-20, the day after the model's release, THUDM/slime PR #1460 asked users to rename the
//!   architecture to `DeepseekV32ForCausalLM` "before the sglang in the slime image supports
//!   `Glm4MoeLiteForCausalLM`"; the 0.5.7 wheel has no `sglang/srt/models/glm4_moe_lite.py`, the 0.5.8
//!   wheel has it: first release 0.5.8. vLLM: a 0.14.0rc1 dev build fails on `zai-org/GLM-4.7-Flash`
//!   (kyuz0/amd-strix-halo-vllm-toolboxes issue #14), 0.14.1 reports `glm4_moe_lite` unknown
//!   (vllm-project/vllm-ascend issue #6541), and xorbitsai/inference PR #4835 registers the
//!   architecture "requires vLLM >= 0.15.0"; the 0.14.0 and 0.14.1 wheels have no
//!   `vllm/model_executor/models/glm4_moe_lite.py`, the 0.15.0 wheel has it (and
//!   `glm4_moe_lite_mtp.py`): first release 0.15.0.
//! - **Ministral 3** (`Mistral3ForConditionalGeneration` whose `text_config.model_type` is
//!   `ministral3`: Ministral 3 3B/8B/14B, Devstral Small 2; families12). SGLang: `models/ministral3.py`
//!   (`Ministral3ForCausalLM(LlamaForCausalLM)`, with the Llama-4 query scaling), added by
//!   sgl-project/sglang PR #14251 "ministral3" (2025-12-01); read from the PyPI wheels (2026-12-05, the
//!   central directory of each `sglang-…-py3-none-any.whl`): 0.5.6 has no
//!   `sglang/srt/models/ministral3.py`; 0.5.6.post1, 0.5.6.post2, 0.5.7 and 0.5.8 have it. An older
//!   release has no class for the text tower. First release: 0.5.6.post1. vLLM: Ministral 3 and
//!   Mistral Large 3 (`models/mistral_large_3.py`), added by vllm-project/vllm PR #29757 "Add Mistral
//!   Large 3 and Ministral 3" (opened 2025-11-30). Read from the wheels: 0.12.0 has
//!   `model_executor/models/mistral_large_3.py` and registers `MistralLarge3ForCausalLM`, 0.11.2
//!   neither; the Llama-4 query scaling in `models/llama.py` (`llama_4_scaling`) is already in 0.11.1
//!   (not in 0.11.0), so a Mistral-format checkpoint may load there. tpsim takes 0.12.0, the release
//!   with the PR (assumed for the Hugging Face-format checkpoint the presets describe, not read from a
//!   run).
//! - **StarCoder2** (`Starcoder2ForCausalLM`, families13): vLLM from 0.3.3 (vllm PR 3089), SGLang
//!   from 0.5.3 (read from the wheels), as module `starcoder2` says.
//! - **InternVL** (`InternVLChatModel`, families14; module `internvl`): vLLM registers it from 0.5.4
//!   (PR 6514; the 0.5.3.post1 wheel has no `models/internvl.py`), SGLang ships `models/internvl.py`
//!   from 0.4.6.post3 (read from the wheels' file lists).
//! - **dots.llm1** (`Dots1ForCausalLM`, families15; the weights are `model::llm::dots1`'s). vLLM
//!   registers `"Dots1ForCausalLM": ("dots1", "Dots1ForCausalLM")` from 0.9.2 (the 0.9.2 wheel's
//!   `model_executor/models/registry.py` and `models/dots1.py`; the 0.9.1 wheel has neither). An older
//!   release logs "Dots1ForCausalLM has no vLLM implementation, falling back to Transformers
//!   implementation" (0.9.1 `model_loader/utils.py`) and serves it through its Transformers backend.
//!   SGLang: no release tpsim models ships a `models/dots1.py` (the 0.4.9 and 0.5.2 to 0.5.9 wheels
//!   were listed; none registers the architecture). SGLang 0.5.9 `model_loader/utils.py` logs
//!   "Dots1ForCausalLM has no SGLang implementation, falling back to Transformers implementation": the
//!   scenario is refused on `engine.name`, as LLaVA-NeXT's is.
//! - **Qwen2-VL** (`Qwen2VLForConditionalGeneration`, `tpsim_model::llm` `Architecture::Qwen2Vl`: the
//!   Qwen2 text tower plus the Qwen2-VL ViT, module `vlm`; families16). Read from the PyPI wheels' file
//!   lists (2026-12-05): SGLang's 0.3.0, 0.3.2, 0.3.3 and 0.3.4 wheels have no
//!   `sglang/srt/models/qwen2_vl.py`, 0.3.4.post1 and 0.3.5 have it: first release 0.3.4.post1. vLLM's
//!   0.6.0 wheel has no `vllm/model_executor/models/qwen2_vl.py`, 0.6.1, 0.6.1.post1, 0.6.1.post2 and
//!   0.6.2 have it: first release 0.6.1. Both first files already shard the vision tower as the later
//!   ones do (SGLang 0.3.4.post1 and vLLM 0.6.1 `Qwen2VisionAttention` / `Qwen2VisionMLP` /
//!   `Qwen2VisionPatchMerger` on `ColumnParallelLinear` / `RowParallelLinear`), so the weights per rank
//!   do not change by release.
//! - **Dense ERNIE-4.5 and dense Hunyuan** (families17; module `ernie45`): SGLang `models/ernie4.py`
//!   from 0.5.0rc0 (0.4.10.post2 has none); vLLM `models/ernie45.py` from 0.9.2 (0.9.1 has none).
//!   Dense Hunyuan (`HunYuanDenseV1ForCausalLM`): SGLang `models/hunyuan.py` lists it in `EntryClass`
//!   from 0.4.9.post3 (0.4.9.post2's has only the MoE class); vLLM registers `("hunyuan_v1",
//!   "HunYuanDenseV1ForCausalLM")` from 0.10.0 (0.9.2's registry has only the MoE class, as
//!   `hunyuan_v1_moe`).
//! - **Kimi-Linear** (`KimiLinearForCausalLM`, families19; weights and state in
//!   `tpsim_model::llm::kimi_linear`): SGLang ships `srt/models/kimi_linear.py` and
//!   `srt/configs/kimi_linear.py` from 0.5.4.post2 (0.5.4 and 0.5.4.post1 have neither; 0.5.4.post3,
//!   0.5.5 … 0.5.9 have both); vLLM ships `model_executor/models/kimi_linear.py`, `layers/kda.py` and
//!   `transformers_utils/configs/kimi_linear.py` from 0.11.1 (0.11.0 has none; 0.11.2, 0.12.0 and
//!   0.19.0 have them). An older release would fall back to its Transformers backend, which tpsim does
//!   not model: refused on `engine.version`.
//! - **GLM-4.1V** (`Glm4vForConditionalGeneration`, families18): SGLang `models/glm4v.py` from 0.5.0
//!   (the 0.5.0rc1 wheel has it); vLLM registers it from 0.9.2.
//! - **Arcee AFM** (`ArceeForCausalLM`, families18): SGLang adds `models/arcee.py` in 0.4.10 (its
//!   wheel has it with `EntryClass = [ArceeForCausalLM]`; 0.4.9.post6's and earlier have not); vLLM
//!   registers it from 0.10.0 (the 0.10.0 wheel's `registry.py`: `"ArceeForCausalLM": ("arcee",
//!   "ArceeForCausalLM")`; 0.9.2's has no entry).
//! - **Falcon-H1** (`FalconH1ForCausalLM`, families20; weights and state in
//!   `tpsim_model::llm::falcon_h1`): SGLang ships `srt/models/falcon_h1.py` and
//!   `srt/configs/falcon_h1.py` from 0.5.3 (the 0.5.3rc2 wheel has both, counted as 0.5.3; 0.5.3rc0's
//!   and 0.5.2's have neither, 0.5.3rc0 counting as 0.5.3 all the same; 0.5.4, 0.5.5, 0.5.6 and 0.5.8 have both); vLLM ships
//!   `model_executor/models/falcon_h1.py` from 0.9.0 (0.8.4, 0.8.5 and 0.8.5.post1 have none; 0.9.0,
//!   0.9.0.1, 0.9.1, 0.9.2, 0.10.0 and 0.11.0 have it). Read from the PyPI wheels' file lists
//!   (2026-12-05). An older release would fall back to its Transformers backend, which tpsim does not
//!   model: refused on `engine.version`.
//! - **Apertus** (`ApertusForCausalLM`, families21; weights in `tpsim_model::llm::apertus`), read from
//!   the PyPI wheels' file lists (2026-12-05): SGLang's 0.5.2 wheel has no
//!   `sglang/srt/models/apertus.py`, 0.5.3rc0's has it (first release 0.5.3rc0, counted as 0.5.3);
//!   vLLM's 0.10.1.1 wheel has no `vllm/model_executor/models/apertus.py`, 0.10.2's has it.
//! - **MiniCPM and MiniCPM3** (`MiniCPMForCausalLM`, `MiniCPM3ForCausalLM`, families21;
//!   `tpsim_model::llm::minicpm`), read from the same file lists: SGLang ships
//!   `sglang/srt/models/minicpm.py` from 0.1.19 (0.1.14, 0.1.16, 0.1.17 and 0.1.18 have none; 0.1.20 …
//!   0.2.0, 0.3.0 have it) and `models/minicpm3.py` from 0.3.1 (0.3.0 has none; 0.3.1.post1 …
//!   0.3.1.post3 have it); vLLM ships `vllm/model_executor/models/minicpm.py` from 0.4.1 (0.3.0 …
//!   0.3.3, 0.4.0 and 0.4.0.post1 have none; 0.4.2 has it) and `models/minicpm3.py` from 0.6.2 (0.6.0,
//!   0.6.1, 0.6.1.post1 and 0.6.1.post2 have only `minicpm.py` / `minicpmv.py`). Whether a first
//!   release reads MiniCPM4's LongRoPE `rope_scaling` is not checked.
//! - **LFM2 and LFM2-MoE** (`Lfm2ForCausalLM`, `Lfm2MoeForCausalLM`, families22;
//!   `tpsim_model::llm::lfm2`), read from the PyPI wheels' file lists (2026-12-06): SGLang ships
//!   `sglang/srt/models/lfm2.py`, `models/lfm2_moe.py` and `configs/lfm2.py`, `configs/lfm2_moe.py`
//!   from 0.5.9 (0.5.4, 0.5.5, 0.5.6, 0.5.7, 0.5.8 and 0.5.8.post1 have none; no 0.5.9 release
//!   candidate is on PyPI); vLLM ships `vllm/model_executor/models/lfm2.py` from 0.10.2 (0.10.1.1's
//!   wheel has none) and `models/lfm2_moe.py` from 0.11.1 (0.11.0's has only `lfm2.py`).
//! - **MiMo-V2-Flash** (`MiMoV2FlashForCausalLM`, families23; `tpsim_model::llm::mimo_v2`), read from
//!   the PyPI wheels' file lists (2026-12-06): SGLang ships `sglang/srt/models/mimo_v2_flash.py` from
//!   0.5.7 (0.5.5, 0.5.6 and 0.5.6.post2 have none; 0.5.7, 0.5.8, 0.5.9 and 0.5.10 have it; 0.5.11 …
//!   0.5.23 ship `models/mimo_v2.py` instead: grok52 read 0.5.11's and 0.5.23's — the same attention,
//!   MoE and KV cells, the RoPE cache over the served `context_len`, `decode::memory`). vLLM
//!   registers `MiMoV2FlashForCausalLM` from 0.14.0 (grok52: 0.13.0's registry has no entry; 0.14.0 …
//!   0.19.0 map it to `models/mimo_v2_flash.py`, 0.22.0 … 0.34.0 to `models/mimo_v2.py`).
//! - **Step-3.5-Flash** (`Step3p5ForCausalLM`, families28; `tpsim_model::llm::step3p5`), read from
//!   the PyPI wheels' file lists (2026-12-06): SGLang ships `sglang/srt/models/step3p5.py` from 0.5.9
//!   (0.5.7, 0.5.8 and 0.5.8.post1 have none; 0.5.9 … 0.5.23 have it). vLLM ships
//!   `vllm/model_executor/models/step3p5.py` from 0.15.1 (0.14.0, 0.14.1 and 0.15.0 have none;
//!   vllmnew53 re-read 0.15.0's and 0.15.1's file lists and models it from 0.15.1).
//! - **Kimi-K3** (`KimiK3ForConditionalGeneration`, `KimiK3LinearForCausalLM`, families32;
//!   `tpsim_model::llm::kimi_k3`), read from the PyPI wheels' file lists (2026-12-06): SGLang ships
//!   `sglang/srt/models/kimi_k3.py` and `configs/kimi_k3.py` from 0.5.17 (0.5.10 … 0.5.16 have
//!   neither; 0.5.17 … 0.5.23 have both). vLLM registers `KimiK3ForConditionalGeneration` from
//!   0.27.0 (`vllm/models/kimi_k3/`; 0.26.0's registry has no entry) but is refused whatever the
//!   release (`scenario::engine`: not modelled).
//! - **LongCat-Flash** (`LongcatFlashForCausalLM`, families25; `tpsim_model::llm::longcat`), read
//!   from the PyPI wheels' file lists (2026-12-06): SGLang ships `sglang/srt/models/longcat_flash.py`
//!   and `models/longcat_flash_nextn.py` from 0.5.2 (0.4.10.post2, 0.5.0rc0, 0.5.1 and 0.5.1.post3
//!   have neither; 0.5.2 and 0.5.8 have both; sgl-project/sglang PR 9824, named by Meituan's
//!   deployment guide); vLLM ships `vllm/model_executor/models/longcat_flash.py` and registers
//!   `LongcatFlashForCausalLM` from 0.11.0 (0.10.2 has neither; vllm-project/vllm PR 23991). An
//!   older release is refused (whether its Transformers backend would run the remote code is not
//!   checked).
//! - **MiniMax-Text-01 / MiniMax-M1** (`MiniMaxText01ForCausalLM`, `MiniMaxM1ForCausalLM`, families27;
//!   `tpsim_model::llm` module `minimax01`). SGLang: no wheel read (0.4.9, 0.5.2, 0.5.8, 0.5.9, 0.5.10,
//!   0.5.12, 0.5.15, 0.5.18, 0.5.20, 0.5.23) has a model file or `EntryClass` naming either class (its
//!   `layers/attention/linear/lightning_attn.py`, from 0.5.9, serves Ling's linear layers): refused on
//!   `engine.name` with the fallback line. vLLM registers all three names to
//!   `minimax_text_01.MiniMaxText01ForCausalLM` in the 0.10.1.1 … 0.22.0 wheels read; the V1 layer
//!   `model_executor/layers/mamba/linear_attn.py` (with `v1/attention/backends/linear_attn.py`) is in
//!   the 0.10.2 wheel and not in 0.10.1.1's, which runs it through V0's `models/minimax_cache.py`: tpsim
//!   holds vLLM to 0.10.2. (The V0 model came with vllm-project/vllm PR 13454, "[Model][MiniMaxText01]
//!   Support MiniMaxText01 model inference", merged 2025-02; MiniMax's deployment guide asks for vLLM
//!   ≥ 0.8.3, ≥ 0.9.2 for the `MiniMaxM1ForCausalLM` name, on V0: `VLLM_USE_V1=0`.) The 0.26.0
//!   registry lists the three names in `_PREVIOUSLY_SUPPORTED_MODELS` ("supported in vLLM until
//!   v0.23.0"): `scenario::minimax01` refuses 0.24.0 and later with vLLM's text.
//! - **release51: the families that had no row**, read from the PyPI wheels (2026-12-06): SGLang from
//!   the `sglang/srt/models/` file list (`unzip -l`) or, where the class lives in another family's file,
//!   its `EntryClass`; vLLM from `vllm/model_executor/models/registry.py` (`unzip -p`). SGLang wheels
//!   read: 0.4.3, 0.4.4.post4, 0.4.5, 0.4.6, 0.4.9, 0.4.9.post1, .post3, .post4, .post5, .post6, 0.4.10,
//!   0.4.10.post2, 0.5.0rc0, 0.5.1, 0.5.1.post3, 0.5.2, 0.5.3, 0.5.3.post1, 0.5.3.post3, 0.5.4,
//!   0.5.4.post1, 0.5.4.post3, 0.5.5 … 0.5.9 (0.5.8.post1 included), 0.5.10 … 0.5.23. vLLM wheels read:
//!   0.10.2, 0.11.0, 0.11.1, 0.13.0, 0.14.0, 0.14.1, 0.15.0, 0.15.1, 0.16.0, 0.17.0, 0.17.1, 0.18.0,
//!   0.19.0. Each bound is "absent in A, present in B" with A and B adjacent releases on PyPI:
//!   Granite-4.0-H (`GraniteMoeHybrid`): SGLang `models/granitemoehybrid.py` from 0.5.9 (0.5.8,
//!   0.5.8.post1 none). Nemotron-H: SGLang `models/nemotron_h.py` from 0.5.3.post1 (0.5.3 none).
//!   Qwen3-Next: SGLang `models/qwen3_next.py` from 0.5.2 (0.5.1.post3 none). Qwen3.5 (`Qwen35`,
//!   `Qwen35Moe`): SGLang `models/qwen3_5.py` from 0.5.9 (0.5.8.post1 none); vLLM registers
//!   `Qwen3_5ForConditionalGeneration` / `Qwen3_5MoeForConditionalGeneration` from 0.17.0 (0.16.0 none).
//!   MiniMax-M2: SGLang `models/minimax_m2.py` from 0.5.4.post1 (0.5.4 none); vLLM from 0.11.1 (0.11.0
//!   none). Kimi-K2.5: SGLang `models/kimi_k25.py` from 0.5.9 (0.5.8.post1 none); vLLM from 0.15.0
//!   (0.14.1 none). Qwen3-VL / Qwen3-VL-MoE: SGLang `models/qwen3_vl.py`, `qwen3_vl_moe.py` from 0.5.3
//!   (0.5.2 none); vLLM from 0.11.0 (0.10.2 none). DeepSeek-V3.2: SGLang `DeepseekV32ForCausalLM` in
//!   `models/deepseek_v2.py`'s `EntryClass` from 0.5.3 (0.5.2 none); vLLM from 0.11.0 (0.10.2 none).
//!   GLM-5 (`GlmMoeDsa`): SGLang's class in `models/glm4_moe.py` from 0.5.9 (0.5.8.post1 none); vLLM
//!   from 0.16.0 (0.15.1 none). Ling 2.0 (`BailingMoeV2`): SGLang `EntryClass` of
//!   `models/bailing_moe.py` from 0.5.3 (0.5.2 none); vLLM from 0.11.0 (0.10.2 none). Llama 4: SGLang
//!   `models/llama4.py` from 0.4.5 (0.4.4.post4 none). gpt-oss: SGLang `models/gpt_oss.py` from
//!   0.5.0rc0, counted as 0.5.0 (0.4.10.post2 none; no 0.5.0 final on PyPI). GLM-4.5 / 4.6 (`Glm4Moe`): SGLang
//!   `models/glm4_moe.py` from 0.4.9.post5 (0.4.9.post4 none). release51 read but held out SGLang Qwen3.5,
//!   Kimi-K2.5 and GLM-5 from 0.5.9 and vLLM Qwen3.5 from 0.17.0; **release52 enforces them**: the
//!   release without `engine.version` is now SGLang 0.5.9 (`engine_release::CURRENT_SGLANG`), and the
//!   `vllm_hybrid` / `engine_args` suites work vLLM 0.11.0's hybrid rules on Qwen3-Next (registered in
//!   0.11.0's `registry.py`: `"Qwen3NextForCausalLM": ("qwen3_next", ...)`). What SGLang 0.5.8 does with
//!   them: Kimi-K2.5 (an `auto_map` checkpoint) reaches `resolve_transformers_arch`, whose ValueError
//!   the refusal quotes (assumed: the remote class is not backend-compatible); Qwen3.5 and GLM-5 have
//!   no `auto_map` and model types (`qwen3_5`, `qwen3_5_moe`, `glm_moe_dsa`) that neither SGLang
//!   0.5.8.post1's `srt/configs/` nor its pinned transformers 4.57.1 (`models/auto/configuration_auto.py`
//!   `CONFIG_MAPPING`) knows, so loading the config raises transformers' "does not recognize this
//!   architecture" ValueError (first sentence quoted). sgl-project/sgl-cookbook
//!   `docs/autoregressive/Moonshotai/Kimi-K2.5.md` reports Kimi-K2.5 measured on "SGLang 0.5.6.post2"
//!   (presumably a main-branch build that names the last tag; the 0.5.6.post2 wheel has no
//!   `models/kimi_k25.py` nor any `KimiK25` text).
//!   Seed-OSS: no SGLang wheel read (0.5.9,
//!   0.5.23 and those above) names `SeedOssForCausalLM` anywhere under `sglang/srt/`: refused on
//!   `engine.name` with the fallback line, as dots.llm1 is. No vLLM row (present in the oldest release
//!   read, 0.10.2): Granite-4.0-H, Nemotron-H, Qwen3-Next, Seed-OSS, gpt-oss, GLM-4.5, Llama 4, Cohere2.
//!   No SGLang row: Cohere2 (`Cohere2ForCausalLM` in `models/commandr.py` of the 0.4.3 wheel, the oldest
//!   read). OLMo-3 is
//!   lowered as OLMo-2 and SmolLM3 is refused by both engines elsewhere (`llm::config`), so neither
//!   has a row. Not bounded (no row): Llama, Qwen2/2.5/3, Mistral, Mixtral, Gemma 1-3, Phi, Granite,
//!   DeepSeek-V2/V3 and the other older families, all in the oldest wheels read.
//!   families29: GLM-5-Next (SGLang 0.5.20, vLLM 0.30.0) has no row: `llm::config` refuses it as not
//!   modelled before any engine is resolved, naming those releases (`llm::glm5_next`). dsv4run55:
//!   DeepSeek-V4 (SGLang 0.5.12, vLLM 0.20.0, read in families29) has its rows now that it is lowered.
//! - **Gemma 4** (`Gemma4ForCausalLM`, `Gemma4ForConditionalGeneration`, families30;
//!   `tpsim_model::llm::gemma4`), read from the PyPI wheels' file lists (2026-12-06): SGLang ships
//!   `sglang/srt/models/gemma4_causal.py` and `gemma4_mm.py` (`EntryClass =
//!   Gemma4ForConditionalGeneration`) from 0.5.11 (0.5.10 and 0.5.10.post1 have no `gemma4*` file;
//!   0.5.11 … 0.5.23 have them). vLLM ships `vllm/model_executor/models/gemma4.py` and `gemma4_mm.py`
//!   (registry: `Gemma4ForCausalLM`, `Gemma4ForConditionalGeneration`) from 0.19.0 (0.18.0 and 0.18.1
//!   have none); families39: modelled from 0.19.0 (`scenario::gemma4::vllm_default`, the KV pages of
//!   `decode::memory`).
//! - **Mistral Large 3** (`MistralLarge3ForCausalLM`, families31; lowered as DeepSeek-V3), read from the
//!   PyPI wheels (2026-12-06). SGLang: `sglang/srt/models/mistral_large_3.py` (and
//!   `mistral_large_3_eagle.py`) from 0.5.6.post1 — the 0.5.6 wheel has neither, 0.5.6.post1,
//!   0.5.6.post2, 0.5.7 … 0.5.23 have both. vLLM: `model_executor/models/registry.py` registers
//!   `"MistralLarge3ForCausalLM": ("mistral_large_3", …)` from 0.12.0 (the 0.11.2 wheel has neither the
//!   entry nor the file; 0.12.0, 0.13.0 … 0.34.0 have both). A release without the class finds none
//!   for the architecture.
//! - **MiMo-V2.5** (`MiMoV2ForCausalLM`, families40; lowered as MiMo-V2-Flash): SGLang's
//!   `models/mimo_v2.py` has the class from 0.5.11 (0.5.10.post1 has `mimo_v2_flash.py` only), vLLM's
//!   `registry.py` registers it from 0.21.0 (0.20.0 has no entry); the Flash rows hold the Flash name.
//! - **Ministral 3's text model** (`Ministral3ForCausalLM` at the top of `architectures`, families31;
//!   lowered as Mistral). SGLang: `models/ministral3.py`'s `EntryClass` is that class, the families12
//!   row (0.5.6.post1). vLLM: `registry.py` maps `"Ministral3ForCausalLM": ("mistral",
//!   "MistralForCausalLM")` from 0.20.0 (the 0.19.0 and 0.19.1 wheels have no entry; 0.20.0, 0.21.0,
//!   0.22.0 … 0.34.0 have it); an older release would fall back to its Transformers backend.
//! - **Qwen4-Exp** (`Qwen4ExpForConditionalGeneration`, `Qwen4ExpForCausalLM`, families34), read from
//!   the PyPI wheels (2026-12-06): SGLang ships `sglang/srt/models/qwen4_exp.py` (`EntryClass =
//!   [Qwen4ExpForConditionalGeneration]` only) from 0.5.20 (0.5.19 has none; 0.5.20 … 0.5.23 have it);
//!   vLLM registers both names (`vllm.models.qwen4_exp`) from 0.29.0 (0.28.0 has neither). No row:
//!   `llm::config` refuses the architecture as not modelled before any engine is resolved, naming
//!   those releases (`llm::qwen4_exp`), as for DeepSeek-V4. Likewise MiniMax-M3 (SGLang `models/minimax_m3.py` from 0.5.16, 0.5.15 none; vLLM
//!   `vllm.models.minimax_m3` from 0.24.0, 0.23.0 none; read and counted since families37, `llm::minimax_m3`; families38: its text model is lowered and has rows below, the wrapper still refused) and Hunyuan V4 (SGLang `models/hunyuan_v4.py`
//!   from 0.5.20, 0.5.19 none; vLLM `vllm.models.hy_v4` from 0.29.0, 0.28.0 none) and Mistral Large 4
//!   (vLLM `MistralLarge4ForCausalLM` from 0.34.0, 0.33.0 none; no SGLang release through 0.5.23;
//!   `llm::refused_2026`).
//! - **Hunyuan V3 / Hy3** (`HYV3ForCausalLM`, families36; read and counted in families34), read from
//!   the PyPI wheels (2026-12-06): SGLang `models/hunyuan_v3.py` from 0.5.11 (0.5.10.post1 has none;
//!   0.5.11 … 0.5.23 have it); vLLM's registry maps `"HYV3ForCausalLM": ("hy_v3", "HYV3ForCausalLM")`
//!   from 0.20.0 (0.19.1 has no entry; 0.20.0 … 0.34.0 have it).

use super::EngineKind;
use tpsim_model::llm::{Architecture, ModelSpec};

/// One row of [`TABLE`]: a model class one engine ships from a release on.
pub(super) struct Row {
    /// The models the row holds to its release.
    pub models: fn(&ModelSpec) -> bool,
    /// The engine whose release is checked.
    pub engine: EngineKind,
    /// The first release with the model class, in [`ordered`]'s terms (`[0, 5, 6, 1]` is
    /// 0.5.6.post1); `None` where no release tpsim models has it (refused on `engine.name`).
    pub first: Option<&'static [u64]>,
    /// The engine's file (or registry entry) that serves the model, as the message names it.
    pub file: &'static str,
    /// Where the bound comes from, one clause (e.g. "SGLang adds it in 0.5.0").
    pub since: &'static str,
    /// What the refusal says the release would do.
    pub then: Then,
}

/// The rest of a [`Row`]'s refusal, after "… has no FILE (SINCE): ".
pub(super) enum Then {
    /// "it cannot serve MODEL (set a later engine.version)".
    CannotServe(&'static str),
    /// The engine's Transformers fallback for the config's architecture name (the first string, see
    /// [`fallback`]), then the second string as written (the advice).
    Fallback(&'static str, &'static str),
    /// release52: the error the release stops with, quoted: "it would stop with \"TEXT\" (set a
    /// later engine.version)".
    Raises(&'static str),
}

use EngineKind::{Sglang, Vllm};
use Then::{CannotServe, Fallback, Raises};

/// The model classes and their first releases (module doc: where each was read).
pub(super) const TABLE: &[Row] = &[
    // families5: EXAONE 4.
    Row {
        models: |m| m.arch == Architecture::Exaone4,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "models/exaone4.py",
        since: "SGLang adds it in 0.5.9",
        then: Fallback(
            "Exaone4ForCausalLM",
            ": set engine.version = \"0.5.9\", or run it under vLLM (use vllm)",
        ),
    },
    Row {
        models: |m| m.arch == Architecture::Exaone4,
        engine: Vllm,
        first: Some(&[0, 10, 0]),
        file: "models/exaone4.py",
        since: "vLLM adds it in 0.10.0, PR 21060",
        then: Fallback("Exaone4ForCausalLM", " (use vLLM 0.10.0 or later)"),
    },
    // families7: GLM-4.5V / GLM-4.6V (0.5.0rc1 counts as 0.5.0).
    Row {
        models: |m| m.arch == Architecture::Glm4vMoe,
        engine: Sglang,
        first: Some(&[0, 5, 0]),
        file: "models/glm4v_moe.py",
        since: "SGLang adds it in 0.5.0",
        then: CannotServe("GLM-4.5V / GLM-4.6V"),
    },
    Row {
        models: |m| m.arch == Architecture::Glm4vMoe,
        engine: Vllm,
        first: Some(&[0, 10, 1]),
        file: "registry entry for Glm4vMoeForConditionalGeneration",
        since: "vLLM registers it from 0.10.1",
        then: CannotServe("GLM-4.5V / GLM-4.6V"),
    },
    // families10: GLM-4.7-Flash.
    Row {
        models: |m| m.arch == Architecture::Glm4MoeLite,
        engine: Sglang,
        first: Some(&[0, 5, 8]),
        file: "models/glm4_moe_lite.py",
        since: "SGLang ships it from 0.5.8",
        then: CannotServe("GLM-4.7-Flash"),
    },
    Row {
        models: |m| m.arch == Architecture::Glm4MoeLite,
        engine: Vllm,
        first: Some(&[0, 15, 0]),
        file: "registry entry for Glm4MoeLiteForCausalLM",
        since: "vLLM registers it from 0.15.0",
        then: CannotServe("GLM-4.7-Flash"),
    },
    // families12: Ministral 3 (vLLM's bound assumed).
    Row {
        models: |m| m.ministral3,
        engine: Sglang,
        first: Some(&[0, 5, 6, 1]),
        file: "models/ministral3.py",
        since: "SGLang ships it from 0.5.6.post1",
        then: CannotServe("Ministral 3 (text_config.model_type \"ministral3\")"),
    },
    Row {
        // families31: the vision-language class only; the text model's own class has its row below.
        models: |m| m.ministral3 && m.arch == Architecture::Mistral3,
        engine: Vllm,
        first: Some(&[0, 12, 0]),
        file: "support for the ministral3 text model",
        since: "tpsim takes 0.12.0, the first vLLM release after PR #29757, as the first with it",
        then: CannotServe("Ministral 3 (text_config.model_type \"ministral3\")"),
    },
    // families13: StarCoder2.
    Row {
        models: |m| m.arch == Architecture::Starcoder2,
        engine: Sglang,
        first: Some(&[0, 5, 3]),
        file: "models/starcoder2.py",
        since: "SGLang ships it from 0.5.3",
        then: CannotServe("StarCoder2"),
    },
    Row {
        models: |m| m.arch == Architecture::Starcoder2,
        engine: Vllm,
        first: Some(&[0, 3, 3]),
        file: "models/starcoder2.py",
        since: "vLLM registers it from 0.3.3",
        then: CannotServe("StarCoder2"),
    },
    // families14: InternVL (SGLang's towers by release: `internvl`).
    Row {
        models: super::internvl::is_internvl,
        engine: Sglang,
        first: Some(&[0, 4, 6, 3]),
        file: "models/internvl.py",
        since: "SGLang ships it from 0.4.6.post3",
        then: CannotServe("InternVL (InternVLChatModel)"),
    },
    Row {
        models: super::internvl::is_internvl,
        engine: Vllm,
        first: Some(&[0, 5, 4]),
        file: "registry entry for InternVLChatModel",
        since: "vLLM registers it from 0.5.4 (PR 6514)",
        then: CannotServe("InternVL (InternVLChatModel)"),
    },
    // families15: dots.llm1 (no SGLang release).
    Row {
        models: |m| m.arch == Architecture::Dots1,
        engine: Sglang,
        first: None,
        file: "models/dots1.py",
        since: "no SGLang release up to 0.5.9 ships one",
        then: Fallback("Dots1ForCausalLM", "; vLLM serves it from 0.9.2 (use vllm)"),
    },
    Row {
        models: |m| m.arch == Architecture::Dots1,
        engine: Vllm,
        first: Some(&[0, 9, 2]),
        file: "models/dots1.py",
        since: "vLLM registers it from 0.9.2",
        then: Fallback("Dots1ForCausalLM", " (set engine.version to 0.9.2 or later)"),
    },
    // families16: Qwen2-VL.
    Row {
        models: |m| m.arch == Architecture::Qwen2Vl,
        engine: Sglang,
        first: Some(&[0, 3, 4, 1]),
        file: "models/qwen2_vl.py",
        since: "SGLang ships it from 0.3.4.post1",
        then: CannotServe("Qwen2-VL (Qwen2VLForConditionalGeneration)"),
    },
    Row {
        models: |m| m.arch == Architecture::Qwen2Vl,
        engine: Vllm,
        first: Some(&[0, 6, 1]),
        file: "model_executor/models/qwen2_vl.py",
        since: "vLLM ships it from 0.6.1",
        then: CannotServe("Qwen2-VL (Qwen2VLForConditionalGeneration)"),
    },
    // families17: dense ERNIE-4.5 (SGLang serves only the remote-code name, `ernie45`; vLLM's file
    // under either name) and dense Hunyuan.
    Row {
        models: |m| m.arch == Architecture::Ernie45 && m.ernie45_legacy_name,
        engine: Sglang,
        first: Some(&[0, 5, 0]),
        file: "models/ernie4.py",
        since: "SGLang ships it from 0.5.0",
        then: CannotServe("dense ERNIE-4.5"),
    },
    Row {
        models: |m| m.arch == Architecture::Ernie45 && m.ernie45_legacy_name,
        engine: Vllm,
        first: Some(&[0, 9, 2]),
        file: "models/ernie45.py",
        since: "vLLM registers dense ERNIE-4.5 from 0.9.2",
        then: Fallback("Ernie4_5_ForCausalLM", " (set a later engine.version)"),
    },
    Row {
        models: |m| m.arch == Architecture::Ernie45 && !m.ernie45_legacy_name,
        engine: Vllm,
        first: Some(&[0, 9, 2]),
        file: "models/ernie45.py",
        since: "vLLM registers dense ERNIE-4.5 from 0.9.2",
        then: Fallback("Ernie4_5ForCausalLM", " (set a later engine.version)"),
    },
    Row {
        models: |m| m.arch == Architecture::HunYuanDenseV1,
        engine: Sglang,
        first: Some(&[0, 4, 9, 3]),
        file: "HunYuanDenseV1ForCausalLM in models/hunyuan.py",
        since: "SGLang registers it from 0.4.9.post3",
        then: CannotServe("dense Hunyuan (HunYuanDenseV1ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::HunYuanDenseV1,
        engine: Vllm,
        first: Some(&[0, 10, 0]),
        file: "registry entry for HunYuanDenseV1ForCausalLM",
        since: "vLLM registers it from 0.10.0",
        then: CannotServe("dense Hunyuan (HunYuanDenseV1ForCausalLM)"),
    },
    // families19: Kimi-Linear.
    Row {
        models: |m| m.arch == Architecture::KimiLinear,
        engine: Sglang,
        first: Some(&[0, 5, 4, 2]),
        file: "models/kimi_linear.py",
        since: "SGLang ships it from 0.5.4.post2",
        then: CannotServe("Kimi-Linear (KimiLinearForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::KimiLinear,
        engine: Vllm,
        first: Some(&[0, 11, 1]),
        file: "models/kimi_linear.py",
        since: "vLLM ships it from 0.11.1",
        then: CannotServe("Kimi-Linear (KimiLinearForCausalLM)"),
    },
    // families18: GLM-4.1V (0.5.0rc1 counts as 0.5.0).
    Row {
        models: |m| m.arch == Architecture::Glm4v,
        engine: Sglang,
        first: Some(&[0, 5, 0]),
        file: "models/glm4v.py",
        since: "SGLang adds it in 0.5.0",
        then: CannotServe("GLM-4.1V"),
    },
    Row {
        models: |m| m.arch == Architecture::Glm4v,
        engine: Vllm,
        first: Some(&[0, 9, 2]),
        file: "registry entry for Glm4vForConditionalGeneration",
        since: "vLLM registers it from 0.9.2",
        then: CannotServe("GLM-4.1V"),
    },
    // families18: Arcee AFM.
    Row {
        models: |m| m.arch == Architecture::Arcee,
        engine: Sglang,
        first: Some(&[0, 4, 10]),
        file: "models/arcee.py",
        since: "SGLang adds it in 0.4.10",
        then: CannotServe("Arcee AFM"),
    },
    Row {
        models: |m| m.arch == Architecture::Arcee,
        engine: Vllm,
        first: Some(&[0, 10, 0]),
        file: "registry entry for ArceeForCausalLM",
        since: "vLLM registers it from 0.10.0",
        then: CannotServe("Arcee AFM"),
    },
    // families20: Falcon-H1 (0.5.3rc2 counts as 0.5.3).
    Row {
        models: |m| m.arch == Architecture::FalconH1,
        engine: Sglang,
        first: Some(&[0, 5, 3]),
        file: "models/falcon_h1.py",
        since: "SGLang ships it from 0.5.3",
        then: CannotServe("Falcon-H1 (FalconH1ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::FalconH1,
        engine: Vllm,
        first: Some(&[0, 9, 0]),
        file: "models/falcon_h1.py",
        since: "vLLM ships it from 0.9.0",
        then: CannotServe("Falcon-H1 (FalconH1ForCausalLM)"),
    },
    // families21: Apertus (0.5.3rc0 counts as 0.5.3).
    Row {
        models: |m| m.arch == Architecture::Apertus,
        engine: Sglang,
        first: Some(&[0, 5, 3]),
        file: "models/apertus.py",
        since: "SGLang adds it in 0.5.3rc0",
        then: CannotServe("Apertus (ApertusForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::Apertus,
        engine: Vllm,
        first: Some(&[0, 10, 2]),
        file: "models/apertus.py",
        since: "vLLM adds it in 0.10.2",
        then: CannotServe("Apertus (ApertusForCausalLM)"),
    },
    // families21: MiniCPM and MiniCPM3.
    Row {
        models: |m| m.arch == Architecture::MiniCpm,
        engine: Sglang,
        first: Some(&[0, 1, 19]),
        file: "models/minicpm.py",
        since: "SGLang adds it in 0.1.19",
        then: CannotServe("MiniCPM (MiniCPMForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::MiniCpm,
        engine: Vllm,
        first: Some(&[0, 4, 1]),
        file: "models/minicpm.py",
        since: "vLLM adds it in 0.4.1",
        then: CannotServe("MiniCPM (MiniCPMForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::MiniCpm3,
        engine: Sglang,
        first: Some(&[0, 3, 1]),
        file: "models/minicpm3.py",
        since: "SGLang adds it in 0.3.1",
        then: CannotServe("MiniCPM3 (MiniCPM3ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::MiniCpm3,
        engine: Vllm,
        first: Some(&[0, 6, 2]),
        file: "models/minicpm3.py",
        since: "vLLM adds it in 0.6.2",
        then: CannotServe("MiniCPM3 (MiniCPM3ForCausalLM)"),
    },
    // families22: LFM2 and LFM2-MoE.
    Row {
        models: |m| m.arch == Architecture::Lfm2,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "models/lfm2.py",
        since: "SGLang adds it in 0.5.9",
        then: CannotServe("LFM2 (Lfm2ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::Lfm2,
        engine: Vllm,
        first: Some(&[0, 10, 2]),
        file: "models/lfm2.py",
        since: "vLLM adds it in 0.10.2",
        then: CannotServe("LFM2 (Lfm2ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::Lfm2Moe,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "models/lfm2_moe.py",
        since: "SGLang adds it in 0.5.9",
        then: CannotServe("LFM2-MoE (Lfm2MoeForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::Lfm2Moe,
        engine: Vllm,
        first: Some(&[0, 11, 1]),
        file: "models/lfm2_moe.py",
        since: "vLLM adds it in 0.11.1",
        then: CannotServe("LFM2-MoE (Lfm2MoeForCausalLM)"),
    },
    // families23: MiMo-V2-Flash (SGLang only; vLLM is refused as not modelled, `scenario::engine`).
    Row {
        models: |m| m.arch == Architecture::MiMoV2Flash && !m.mimo_v2.is_some_and(|a| a.v2_class),
        engine: Sglang,
        first: Some(&[0, 5, 7]),
        file: "models/mimo_v2_flash.py",
        since: "SGLang adds it in 0.5.7",
        then: CannotServe("MiMo-V2-Flash (MiMoV2FlashForCausalLM)"),
    },
    // families28: Step-3.5-Flash (vLLM's row: vllmnew53, at the end of the table).
    Row {
        models: |m| m.arch == Architecture::Step3p5,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "models/step3p5.py",
        since: "SGLang adds it in 0.5.9",
        then: CannotServe("Step-3.5-Flash (Step3p5ForCausalLM)"),
    },
    // families25: LongCat-Flash.
    Row {
        models: |m| m.arch == Architecture::LongcatFlash,
        engine: Sglang,
        first: Some(&[0, 5, 2]),
        file: "models/longcat_flash.py",
        since: "SGLang adds it in 0.5.2",
        then: CannotServe("LongCat-Flash (LongcatFlashForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::LongcatFlash,
        engine: Vllm,
        first: Some(&[0, 11, 0]),
        file: "models/longcat_flash.py",
        since: "vLLM adds it in 0.11.0",
        then: CannotServe("LongCat-Flash (LongcatFlashForCausalLM)"),
    },
    // grok52 (issue #17): vLLM registers `MiMoV2FlashForCausalLM` from 0.14.0 (the 0.13.0 wheel's
    // `model_executor/models/registry.py` has no entry, 0.14.0's maps it to `mimo_v2_flash`).
    Row {
        models: |m| m.arch == Architecture::MiMoV2Flash && !m.mimo_v2.is_some_and(|a| a.v2_class),
        engine: Vllm,
        first: Some(&[0, 14, 0]),
        file: "models/mimo_v2_flash.py",
        since: "vLLM adds it in 0.14.0",
        then: CannotServe("MiMo-V2-Flash (MiMoV2FlashForCausalLM)"),
    },
    // families24: Grok-2's residual MLP (`residual_moe`; a Grok-1 config without it is served by
    // every release tpsim knows: `models/grok.py` is in the 0.4.3 wheel). The 0.4.10.post2 wheel's
    // grok.py never reads `residual_moe`, the 0.5.1 wheel's builds `Grok1MLP` beside the experts.
    // vLLM is refused as not modelled (`scenario::engine`).
    Row {
        models: |m| m.arch == Architecture::Grok1 && m.moe.is_some_and(|s| s.n_shared_experts > 0),
        engine: Sglang,
        first: Some(&[0, 5, 1]),
        file: "residual_moe in models/grok.py",
        since: "SGLang reads Grok-2's residual_moe from 0.5.1",
        then: CannotServe("Grok-2 (Grok1ForCausalLM with residual_moe)"),
    },
    // release51 (issue #17): the families that had no row (module doc: where each was read).
    Row {
        models: |m| m.arch == Architecture::GraniteMoeHybrid,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "models/granitemoehybrid.py",
        since: "SGLang ships it from 0.5.9",
        then: CannotServe("Granite-4.0-H (GraniteMoeHybridForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::NemotronH,
        engine: Sglang,
        first: Some(&[0, 5, 3, 1]),
        file: "models/nemotron_h.py",
        since: "SGLang ships it from 0.5.3.post1",
        then: CannotServe("Nemotron-H (NemotronHForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::Qwen3Next,
        engine: Sglang,
        first: Some(&[0, 5, 2]),
        file: "models/qwen3_next.py",
        since: "SGLang ships it from 0.5.2",
        then: CannotServe("Qwen3-Next (Qwen3NextForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::MiniMaxM2,
        engine: Sglang,
        first: Some(&[0, 5, 4, 1]),
        file: "models/minimax_m2.py",
        since: "SGLang ships it from 0.5.4.post1",
        then: CannotServe("MiniMax-M2 (MiniMaxM2ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::MiniMaxM2,
        engine: Vllm,
        first: Some(&[0, 11, 1]),
        file: "registry entry for MiniMaxM2ForCausalLM",
        since: "vLLM registers it from 0.11.1",
        then: CannotServe("MiniMax-M2 (MiniMaxM2ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::KimiK25,
        engine: Vllm,
        first: Some(&[0, 15, 0]),
        file: "registry entry for KimiK25ForConditionalGeneration",
        since: "vLLM registers it from 0.15.0",
        then: CannotServe("Kimi-K2.5 (KimiK25ForConditionalGeneration)"),
    },
    Row {
        models: |m| matches!(m.arch, Architecture::Qwen3Vl | Architecture::Qwen3VlMoe) && !omni(m),
        engine: Sglang,
        first: Some(&[0, 5, 3]),
        file: "models/qwen3_vl.py / models/qwen3_vl_moe.py",
        since: "SGLang ships them from 0.5.3",
        then: CannotServe("Qwen3-VL (Qwen3VLForConditionalGeneration / Qwen3VLMoeForConditionalGeneration)"),
    },
    Row {
        models: |m| matches!(m.arch, Architecture::Qwen3Vl | Architecture::Qwen3VlMoe) && !omni(m),
        engine: Vllm,
        first: Some(&[0, 11, 0]),
        file: "registry entries for Qwen3VLForConditionalGeneration / Qwen3VLMoeForConditionalGeneration",
        since: "vLLM registers them from 0.11.0",
        then: CannotServe("Qwen3-VL (Qwen3VLForConditionalGeneration / Qwen3VLMoeForConditionalGeneration)"),
    },
    Row {
        models: |m| m.arch == Architecture::DeepseekV32,
        engine: Sglang,
        first: Some(&[0, 5, 3]),
        file: "DeepseekV32ForCausalLM in models/deepseek_v2.py",
        since: "SGLang registers it from 0.5.3",
        then: CannotServe("DeepSeek-V3.2 (DeepseekV32ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::DeepseekV32,
        engine: Vllm,
        first: Some(&[0, 11, 0]),
        file: "registry entry for DeepseekV32ForCausalLM",
        since: "vLLM registers it from 0.11.0",
        then: CannotServe("DeepSeek-V3.2 (DeepseekV32ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::GlmMoeDsa,
        engine: Vllm,
        first: Some(&[0, 16, 0]),
        file: "registry entry for GlmMoeDsaForCausalLM",
        since: "vLLM registers it from 0.16.0",
        then: CannotServe("GLM-5 (GlmMoeDsaForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::BailingMoeV2,
        engine: Sglang,
        first: Some(&[0, 5, 3]),
        file: "BailingMoeV2ForCausalLM in models/bailing_moe.py",
        since: "SGLang registers it from 0.5.3",
        then: CannotServe("Ling 2.0 (BailingMoeV2ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::BailingMoeV2,
        engine: Vllm,
        first: Some(&[0, 11, 0]),
        file: "registry entry for BailingMoeV2ForCausalLM",
        since: "vLLM registers it from 0.11.0",
        then: CannotServe("Ling 2.0 (BailingMoeV2ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::SeedOss,
        engine: Sglang,
        first: None,
        file: "model class for SeedOssForCausalLM",
        since: "no SGLang release up to 0.5.23 ships one",
        then: Fallback("SeedOssForCausalLM", "; vLLM serves it (use vllm)"),
    },
    Row {
        models: |m| m.arch == Architecture::Llama4,
        engine: Sglang,
        first: Some(&[0, 4, 5]),
        file: "models/llama4.py",
        since: "SGLang ships it from 0.4.5",
        then: CannotServe("Llama 4 (Llama4ForConditionalGeneration)"),
    },
    Row {
        models: |m| m.arch == Architecture::GptOss,
        engine: Sglang,
        first: Some(&[0, 5, 0]),
        file: "models/gpt_oss.py",
        since: "SGLang ships it from 0.5.0rc0, counted as 0.5.0",
        then: CannotServe("gpt-oss (GptOssForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::Glm4Moe,
        engine: Sglang,
        first: Some(&[0, 4, 9, 5]),
        file: "models/glm4_moe.py",
        since: "SGLang ships it from 0.4.9.post5",
        then: CannotServe("GLM-4.5 / GLM-4.6 (Glm4MoeForCausalLM)"),
    },
    // families27: MiniMax-Text-01 / MiniMax-M1 (module doc; the end of vLLM's support is
    // `scenario::minimax01`'s).
    Row {
        models: |m| m.arch == Architecture::MiniMaxText01,
        engine: Sglang,
        first: None,
        file: "model class for MiniMaxText01ForCausalLM / MiniMaxM1ForCausalLM",
        since: "no SGLang release up to 0.5.23 ships one",
        then: Fallback(
            "MiniMaxM1ForCausalLM",
            "; vLLM serves it from 0.10.2 on its V1 engine (use vllm)",
        ),
    },
    Row {
        models: |m| m.arch == Architecture::MiniMaxText01,
        engine: Vllm,
        first: Some(&[0, 10, 2]),
        file: "layers/mamba/linear_attn.py",
        since: "vLLM's V1 engine runs lightning attention from 0.10.2; older releases run MiniMax on V0's \
                models/minimax_cache.py, which tpsim does not model",
        then: CannotServe("MiniMax-Text-01 / MiniMax-M1 on V1"),
    },
    // release52 (issue #17): the rows release51 read but held out, enforced now that the release
    // without `engine.version` is SGLang 0.5.9 (`engine_release::CURRENT_SGLANG`; module doc).
    Row {
        models: |m| m.arch == Architecture::KimiK25,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "models/kimi_k25.py",
        since: "SGLang ships it from 0.5.9",
        then: Raises(SGLANG_KIMI_K25_BEFORE_0_5_9),
    },
    Row {
        models: |m| m.arch == Architecture::Qwen35,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "models/qwen3_5.py",
        since: "SGLang ships it from 0.5.9",
        then: Raises(
            "ValueError: The checkpoint you are trying to load has model type `qwen3_5` but Transformers does not recognize this architecture.",
        ),
    },
    Row {
        models: |m| m.arch == Architecture::Qwen35Moe,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "models/qwen3_5.py",
        since: "SGLang ships it from 0.5.9",
        then: Raises(
            "ValueError: The checkpoint you are trying to load has model type `qwen3_5_moe` but Transformers does not recognize this architecture.",
        ),
    },
    Row {
        models: |m| m.arch == Architecture::GlmMoeDsa,
        engine: Sglang,
        first: Some(&[0, 5, 9]),
        file: "GlmMoeDsaForCausalLM in models/glm4_moe.py",
        since: "SGLang registers it from 0.5.9",
        then: Raises(
            "ValueError: The checkpoint you are trying to load has model type `glm_moe_dsa` but Transformers does not recognize this architecture.",
        ),
    },
    Row {
        models: |m| matches!(m.arch, Architecture::Qwen35 | Architecture::Qwen35Moe),
        engine: Vllm,
        first: Some(&[0, 17, 0]),
        file: "registry entries for Qwen3_5ForConditionalGeneration / Qwen3_5MoeForConditionalGeneration",
        since: "vLLM registers them from 0.17.0",
        then: CannotServe("Qwen3.5 (Qwen3_5ForConditionalGeneration / Qwen3_5MoeForConditionalGeneration)"),
    },
    // families30: Gemma 4 (families39: vLLM modelled from its first release, 0.19.0).
    Row {
        models: |m| m.arch == Architecture::Gemma4,
        engine: Sglang,
        first: Some(&[0, 5, 11]),
        file: "models/gemma4_causal.py",
        since: "SGLang adds it in 0.5.11",
        then: CannotServe("Gemma 4 (Gemma4ForCausalLM / Gemma4ForConditionalGeneration)"),
    },
    Row {
        models: |m| m.arch == Architecture::Gemma4,
        engine: Vllm,
        first: Some(&[0, 19, 0]),
        file: "models/gemma4.py",
        since: "vLLM adds it in 0.19.0",
        then: CannotServe("Gemma 4 (Gemma4ForCausalLM / Gemma4ForConditionalGeneration)"),
    },
    // families32: Kimi-K3 (SGLang only; vLLM is refused as not modelled, `scenario::engine`).
    Row {
        models: |m| m.arch == Architecture::KimiK3,
        engine: Sglang,
        first: Some(&[0, 5, 17]),
        file: "models/kimi_k3.py",
        since: "SGLang adds it in 0.5.17",
        then: CannotServe("Kimi-K3 (KimiK3ForConditionalGeneration)"),
    },
    // families31: Mistral Large 3.
    Row {
        models: |m| m.arch == Architecture::MistralLarge3,
        engine: Sglang,
        first: Some(&[0, 5, 6, 1]),
        file: "models/mistral_large_3.py",
        since: "SGLang ships it from 0.5.6.post1",
        then: CannotServe("Mistral Large 3 (MistralLarge3ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::MistralLarge3,
        engine: Vllm,
        first: Some(&[0, 12, 0]),
        file: "registry entry for MistralLarge3ForCausalLM",
        since: "vLLM registers it from 0.12.0",
        then: CannotServe("Mistral Large 3 (MistralLarge3ForCausalLM)"),
    },
    // families31: Ministral 3's text model under its own class (SGLang: the families12 row above).
    Row {
        models: |m| m.ministral3 && m.arch == Architecture::Mistral,
        engine: Vllm,
        first: Some(&[0, 20, 0]),
        file: "registry entry for Ministral3ForCausalLM",
        since: "vLLM registers it from 0.20.0",
        then: CannotServe("Ministral 3's text model (Ministral3ForCausalLM)"),
    },
    // vllmnew53 (issue #17): vLLM ships `models/step3p5.py` (and `transformers_utils/configs/step3p5.py`)
    // from 0.15.1; the 0.15.0 wheel has neither (file lists read 2026-12-06).
    Row {
        models: |m| m.arch == Architecture::Step3p5,
        engine: Vllm,
        first: Some(&[0, 15, 1]),
        file: "models/step3p5.py",
        since: "vLLM adds it in 0.15.1",
        then: CannotServe("Step-3.5-Flash (Step3p5ForCausalLM)"),
    },
    // families36 (issue #17): Hunyuan V3 / Hy3, read from the PyPI wheels (2026-12-06): SGLang
    // `models/hunyuan_v3.py` from 0.5.11 (0.5.10.post1 has none); vLLM's registry maps
    // `"HYV3ForCausalLM": ("hy_v3", "HYV3ForCausalLM")` from 0.20.0 (0.19.1 has no entry).
    Row {
        models: |m| m.arch == Architecture::Hy3,
        engine: Sglang,
        first: Some(&[0, 5, 11]),
        file: "models/hunyuan_v3.py",
        since: "SGLang adds it in 0.5.11",
        then: CannotServe("Hunyuan V3 / Hy3 (HYV3ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::Hy3,
        engine: Vllm,
        first: Some(&[0, 20, 0]),
        file: "registry entry for HYV3ForCausalLM",
        since: "vLLM registers it from 0.20.0",
        then: CannotServe("Hunyuan V3 / Hy3 (HYV3ForCausalLM)"),
    },
    // dsv4run55 (issue #17): DeepSeek-V4, read in families29 from the PyPI wheels: SGLang
    // `models/deepseek_v4.py` from 0.5.12 (0.5.11 has none); vLLM's registry from 0.20.0 (0.19.1 has
    // no entry; `scenario::dsv4` refuses vLLM whatever the release).
    Row {
        models: |m| m.arch == Architecture::DeepseekV4,
        engine: Sglang,
        first: Some(&[0, 5, 12]),
        file: "models/deepseek_v4.py",
        since: "SGLang adds it in 0.5.12",
        then: CannotServe("DeepSeek-V4 (DeepseekV4ForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::DeepseekV4,
        engine: Vllm,
        first: Some(&[0, 20, 0]),
        file: "registry entry for DeepseekV4ForCausalLM",
        since: "vLLM registers it from 0.20.0",
        then: CannotServe("DeepSeek-V4 (DeepseekV4ForCausalLM)"),
    },
    // families38 (issue #17): MiniMax-M3's text model, read in families34 / families37 from the PyPI
    // wheels: SGLang `models/minimax_m3.py` from 0.5.16 (0.5.15 has none); vLLM `vllm.models.minimax_m3`
    // from 0.24.0 (0.23.0 registers no MiniMaxM3 name; `scenario::minimax_m3` refuses vLLM whatever
    // the release).
    Row {
        models: |m| m.arch == Architecture::MiniMaxM3,
        engine: Sglang,
        first: Some(&[0, 5, 16]),
        file: "models/minimax_m3.py",
        since: "SGLang adds it in 0.5.16",
        then: CannotServe("MiniMax-M3 (MiniMaxM3SparseForCausalLM)"),
    },
    Row {
        models: |m| m.arch == Architecture::MiniMaxM3,
        engine: Vllm,
        first: Some(&[0, 24, 0]),
        file: "vllm.models.minimax_m3",
        since: "vLLM adds it in 0.24.0",
        then: CannotServe("MiniMax-M3 (MiniMaxM3SparseForCausalLM)"),
    },
    // families40 (issue #17): `MiMoV2ForCausalLM` (MiMo-V2.5, V2.5-Pro, V2.6; lowered as MiMo-V2-Flash).
    // SGLang: the class is in `models/mimo_v2.py` from 0.5.11 (the 0.5.10.post1 wheel has
    // `mimo_v2_flash.py` only; 0.5.11 … 0.5.23 have `class MiMoV2ForCausalLM`). vLLM: `registry.py`
    // registers `"MiMoV2ForCausalLM": ("mimo_v2", …)` from 0.21.0 (0.20.0 has no entry; 0.21.0, 0.22.0,
    // 0.23.0 … 0.34.0 have it). Read from the PyPI wheels (2026-12-07).
    Row {
        models: |m| m.mimo_v2.is_some_and(|a| a.v2_class),
        engine: Sglang,
        first: Some(&[0, 5, 11]),
        file: "MiMoV2ForCausalLM in models/mimo_v2.py",
        since: "SGLang adds it in 0.5.11",
        then: CannotServe("MiMo-V2.5 (MiMoV2ForCausalLM)"),
    },
    Row {
        models: |m| m.mimo_v2.is_some_and(|a| a.v2_class),
        engine: Vllm,
        first: Some(&[0, 21, 0]),
        file: "MiMoV2ForCausalLM in models/mimo_v2.py",
        since: "vLLM adds it in 0.21.0",
        then: CannotServe("MiMo-V2.5 (MiMoV2ForCausalLM)"),
    },
    // families41 (issue #17): Qwen3-Omni MoE (`Qwen3OmniMoeForConditionalGeneration`, the thinker;
    // lowered as Qwen3-VL-MoE with an audio encoder). SGLang: `models/qwen3_omni_moe.py` is in the 0.5.4
    // wheel and not in 0.5.3.post3's (0.5.4 … 0.5.9 have it). vLLM (refused as not modelled,
    // `scenario::engine`): `models/qwen3_omni_moe_thinker.py` is in the 0.11.1 wheel and not in 0.11.0's.
    // Read from the PyPI wheels (2026-12-07).
    Row {
        models: omni,
        engine: Sglang,
        first: Some(&[0, 5, 4]),
        file: "models/qwen3_omni_moe.py",
        since: "SGLang adds it in 0.5.4",
        then: CannotServe("Qwen3-Omni (Qwen3OmniMoeForConditionalGeneration)"),
    },
];

/// families41: whether the model is Qwen3-Omni (a Qwen3-VL tower carrying an audio encoder).
fn omni(m: &ModelSpec) -> bool {
    m.vision.is_some_and(|v| v.audio.is_some())
}

/// release52: what SGLang before 0.5.9 raises for Kimi-K2.5. The registry has no
/// `KimiK25ForConditionalGeneration`, so `model_loader/utils.py` `resolve_transformers_arch` (0.5.8.post1)
/// takes the checkpoint's `auto_map["AutoModel"]` (remote code, `modeling_kimi_k25`) and, under the
/// default `--model-impl auto`, raises this when the class is not backend-compatible — transformers
/// 4.57.1 (SGLang 0.5.8's pin) `PreTrainedModel.is_backend_compatible` returns
/// `_supports_attention_backend`, `False` unless the class sets it; that the remote class leaves it
/// unset is assumed (its code not read).
const SGLANG_KIMI_K25_BEFORE_0_5_9: &str = "ValueError: KimiK25ForConditionalGeneration has no SGlang implementation and the Transformers implementation is not compatible with SGLang.";

/// The refusal of `model` under `kind` at `version` by the first [`TABLE`] row that holds it and
/// that the release predates: `Err((key, message))`, the key `engine.version` (`engine.name` where
/// no release has the class).
pub(super) fn check(
    kind: EngineKind,
    model: &ModelSpec,
    version: &str,
) -> Result<(), (&'static str, String)> {
    let v = ordered(version);
    for r in TABLE.iter().filter(|r| r.engine == kind && (r.models)(model)) {
        let key = match r.first {
            Some(first) if v.as_slice() >= first => continue,
            Some(_) => "engine.version",
            None => "engine.name",
        };
        let engine = match kind {
            Sglang => "SGLang",
            Vllm => "vLLM",
        };
        let rest = match r.then {
            CannotServe(what) => format!("it cannot serve {what} (set a later engine.version)"),
            Fallback(name, advice) => format!("{}{advice}", fallback(engine, name)),
            Raises(text) => format!("it would stop with \"{text}\" (set a later engine.version)"),
        };
        return Err((
            key,
            format!("{engine} {version} has no {} ({}): {rest}", r.file, r.since),
        ));
    }
    Ok(())
}

/// The Transformers-backend fallback a release without the class `name` would take (SGLang 0.5.9 and
/// vLLM 0.9.2 `model_loader/utils.py`), which tpsim does not model.
pub(super) fn fallback(engine: &str, name: &str) -> String {
    format!(
        "it would log \"{name} has no {engine} implementation, falling back to Transformers implementation\" \
         and serve it through the Transformers backend, which tpsim does not model"
    )
}

/// `version` as [`Row::first`] orders it: major, minor, patch (missing parts 0; an `rc` or `dev`
/// suffix is dropped, so 0.5.0rc1 counts as 0.5.0), then the `.postN` number (0 without one), so
/// that 0.5.6 < 0.5.6.post1 < 0.5.7.
pub(crate) fn ordered(version: &str) -> Vec<u64> {
    let mut v = crate::engine_args_versions::release(version).unwrap_or_default();
    v.resize(3, 0);
    let post = version
        .split('.')
        .find_map(|p| p.strip_prefix("post"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    v.push(post);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_releases_order_after_their_base() {
        assert_eq!(ordered("0.5.6"), [0, 5, 6, 0]);
        assert_eq!(ordered("0.5.6.post1"), [0, 5, 6, 1]);
        assert_eq!(ordered("0.5.0rc1"), [0, 5, 0, 0]);
        assert_eq!(ordered("0.12"), [0, 12, 0, 0]);
        assert!(ordered("0.5.6") < ordered("0.5.6.post1"));
        assert!(ordered("0.5.6.post2") < ordered("0.5.7"));
        assert!(ordered("0.5.3") >= [0, 5, 3][..].to_vec());
    }

    /// A two-part version counts as its .0 release in every row: vLLM "0.10" serves EXAONE 4 (first
    /// release 0.10.0), as "0.15" serves GLM-4.7-Flash (0.15.0); "0.9" is refused.
    #[test]
    fn two_part_versions_are_their_first_patch() {
        let exaone = preset(include_str!(
            "../../../scenarios/models/exaone-4.0-1.2b/config.json"
        ));
        assert!(check(Vllm, &exaone, "0.10").is_ok());
        assert_eq!(check(Vllm, &exaone, "0.9").unwrap_err().0, "engine.version");
        let flash = preset(include_str!(
            "../../../scenarios/models/glm-4.7-flash/config.json"
        ));
        assert!(check(Vllm, &flash, "0.15").is_ok());
    }

    fn preset(text: &str) -> ModelSpec {
        ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap()
    }

    /// Every refusal in full for one model of each class (the messages as each family module wrote
    /// them before the table; the vLLM EXAONE 4 and the ERNIE ones are asserted in the families5 and
    /// families17 integration suites too).
    #[test]
    fn messages_in_full() {
        let glm = preset(include_str!("../../../scenarios/models/glm-4.5v/config.json"));
        assert_eq!(
            check(Sglang, &glm, "0.4.10.post2").unwrap_err(),
            (
                "engine.version",
                "SGLang 0.4.10.post2 has no models/glm4v_moe.py (SGLang adds it in 0.5.0): it cannot serve \
                 GLM-4.5V / GLM-4.6V (set a later engine.version)"
                    .to_string()
            )
        );
        let dots = preset(include_str!(
            "../../../scenarios/models/dots.llm1.inst/config.json"
        ));
        assert_eq!(
            check(Vllm, &dots, "0.9.1").unwrap_err(),
            (
                "engine.version",
                "vLLM 0.9.1 has no models/dots1.py (vLLM registers it from 0.9.2): it would log \
                 \"Dots1ForCausalLM has no vLLM implementation, falling back to Transformers implementation\" \
                 and serve it through the Transformers backend, which tpsim does not model (set engine.version \
                 to 0.9.2 or later)"
                    .to_string()
            )
        );
        assert_eq!(
            check(Sglang, &dots, "0.5.9").unwrap_err(),
            (
                "engine.name",
                "SGLang 0.5.9 has no models/dots1.py (no SGLang release up to 0.5.9 ships one): it would log \
                 \"Dots1ForCausalLM has no SGLang implementation, falling back to Transformers implementation\" \
                 and serve it through the Transformers backend, which tpsim does not model; vLLM serves it from \
                 0.9.2 (use vllm)"
                    .to_string()
            )
        );
    }

    /// GLM-4.5V (families7): SGLang from 0.5.0 (0.5.0rc1 counts), vLLM from 0.10.1.
    #[test]
    fn glm4v_first_releases_as_read() {
        let m = preset(include_str!("../../../scenarios/models/glm-4.5v/config.json"));
        let e = check(Sglang, &m, "0.4.10.post2").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.4.10.post2 has no models/glm4v_moe.py"),
            "{}",
            e.1
        );
        assert!(check(Sglang, &m, "0.5.0rc1").is_ok());
        assert!(check(Sglang, &m, "0.5.9").is_ok());
        let e = check(Vllm, &m, "0.10.0").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.10.1"), "{}", e.1);
        assert!(check(Vllm, &m, "0.10.1").is_ok());
    }

    /// GLM-4.7-Flash (families10): SGLang from 0.5.8, vLLM from 0.15.0.
    #[test]
    fn glm4_moe_lite_first_releases_as_read() {
        let m = preset(include_str!(
            "../../../scenarios/models/glm-4.7-flash/config.json"
        ));
        let e = check(Sglang, &m, "0.5.7").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.5.7 has no models/glm4_moe_lite.py"),
            "{}",
            e.1
        );
        assert!(check(Sglang, &m, "0.5.8").is_ok());
        assert!(check(Sglang, &m, "0.5.9").is_ok());
        let e = check(Vllm, &m, "0.14.1").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.15.0"), "{}", e.1);
        assert!(check(Vllm, &m, "0.15.0").is_ok());
        assert!(check(Vllm, &m, "0.19.0").is_ok());
    }

    /// Ministral 3 (families12): SGLang from 0.5.6.post1, vLLM from 0.12.0; a "mistral" text tower
    /// (Mistral-Small-3.2) is not held to them.
    #[test]
    fn ministral3_first_releases_as_read() {
        let m = preset(include_str!(
            "../../../scenarios/models/ministral-3-8b-instruct-2512-bf16/config.json"
        ));
        let e = check(Sglang, &m, "0.5.5").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.5.5 has no models/ministral3.py"),
            "{}",
            e.1
        );
        assert!(e.1.contains("cannot serve Ministral 3"), "{}", e.1);
        let e = check(Sglang, &m, "0.5.6").unwrap_err();
        assert!(e.1.contains("SGLang ships it from 0.5.6.post1"), "{}", e.1);
        assert!(check(Sglang, &m, "0.5.6.post1").is_ok());
        assert!(check(Sglang, &m, "0.5.7").is_ok());
        assert!(check(Sglang, &m, "0.5.9").is_ok());
        let e = check(Vllm, &m, "0.11.0").unwrap_err();
        assert!(e.1.contains("first vLLM release after PR #29757"), "{}", e.1);
        assert!(check(Vllm, &m, "0.12.0").is_ok());
        assert!(check(Vllm, &m, "0.19.0").is_ok());
        let small = preset(include_str!(
            "../../../scenarios/models/mistral-small-3.2-24b/config.json"
        ));
        assert!(check(Sglang, &small, "0.4.9").is_ok());
        assert!(check(Vllm, &small, "0.9.0").is_ok());
    }

    /// StarCoder2 (families13): SGLang from 0.5.3, vLLM from 0.3.3.
    #[test]
    fn starcoder2_first_releases_as_read() {
        let m = preset(include_str!(
            "../../../scenarios/models/starcoder2-3b/config.json"
        ));
        let e = check(Sglang, &m, "0.5.2").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.5.2 has no models/starcoder2.py"),
            "{}",
            e.1
        );
        assert!(check(Sglang, &m, "0.5.3").is_ok());
        assert!(check(Sglang, &m, "0.5.8").is_ok());
        let e = check(Vllm, &m, "0.3.2").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.3.3"), "{}", e.1);
        assert!(check(Vllm, &m, "0.11.0").is_ok());
    }

    /// dots.llm1 (families15): no SGLang release (on `engine.name`), vLLM from 0.9.2.
    #[test]
    fn dots1_releases_as_read_from_the_wheels() {
        let m = preset(include_str!(
            "../../../scenarios/models/dots.llm1.inst/config.json"
        ));
        for v in ["0.4.9", "0.5.8", "0.5.9"] {
            let e = check(Sglang, &m, v).unwrap_err();
            assert_eq!(e.0, "engine.name");
            assert!(
                e.1.contains(&format!("SGLang {v} has no models/dots1.py")),
                "{}",
                e.1
            );
        }
        let e = check(Vllm, &m, "0.9.1").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(e.1.contains("vLLM registers it from 0.9.2"), "{}", e.1);
        assert!(check(Vllm, &m, "0.9.2").is_ok());
        assert!(check(Vllm, &m, "0.19.0").is_ok());
    }

    /// Qwen2-VL (families16): SGLang from 0.3.4.post1, vLLM from 0.6.1; Qwen2.5 is not held to them.
    #[test]
    fn qwen2_vl_first_releases_from_the_wheels() {
        let m = preset(include_str!("../../../scenarios/models/qwen2-vl-7b/config.json"));
        let e = check(Sglang, &m, "0.3.4").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(e.1.contains("SGLang 0.3.4 has no models/qwen2_vl.py"), "{}", e.1);
        assert!(e.1.contains("SGLang ships it from 0.3.4.post1"), "{}", e.1);
        assert!(e.1.contains("cannot serve Qwen2-VL"), "{}", e.1);
        assert!(check(Sglang, &m, "0.3.4.post1").is_ok());
        assert!(check(Sglang, &m, "0.5.9").is_ok());
        let e = check(Vllm, &m, "0.6.0").unwrap_err();
        assert!(
            e.1.contains("vLLM 0.6.0 has no model_executor/models/qwen2_vl.py"),
            "{}",
            e.1
        );
        assert!(check(Vllm, &m, "0.6.1").is_ok());
        assert!(check(Vllm, &m, "0.19.0").is_ok());
        let q = preset(include_str!("../../../scenarios/models/qwen2.5-7b/config.json"));
        assert!(check(Sglang, &q, "0.3.0").is_ok());
    }

    #[test]
    fn kimi_linear_first_releases() {
        let m = ModelSpec::from_config_json(
            include_str!("../../../scenarios/models/kimi-linear-48b-a3b-instruct/config.json"),
            tpsim_model::llm::Quantization::bf16(),
        )
        .unwrap();
        for v in ["0.5.4", "0.5.4.post1"] {
            let e = check(EngineKind::Sglang, &m, v).unwrap_err();
            assert_eq!(e.0, "engine.version");
            assert!(e.1.contains("SGLang ships it from 0.5.4.post2"), "{}", e.1);
        }
        for v in ["0.5.4.post2", "0.5.5", "0.5.8", "0.5.9"] {
            assert!(check(EngineKind::Sglang, &m, v).is_ok(), "{v}");
        }
        let e = check(EngineKind::Vllm, &m, "0.11.0").unwrap_err();
        assert!(
            e.1.contains("vLLM 0.11.0 has no models/kimi_linear.py"),
            "{}",
            e.1
        );
        for v in ["0.11.1", "0.12.0", "0.19.0"] {
            assert!(check(EngineKind::Vllm, &m, v).is_ok(), "{v}");
        }
    }

    /// families18: GLM-4.1V from SGLang 0.5.0 (0.5.0rc1's wheel) and vLLM 0.9.2.
    #[test]
    fn glm41v_first_releases_as_read() {
        let text = include_str!("../../../scenarios/models/glm-4.1v-9b-thinking/config.json");
        let m = ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap();
        let e = check(EngineKind::Sglang, &m, "0.4.10.post2").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.4.10.post2 has no models/glm4v.py"),
            "{}",
            e.1
        );
        assert!(check(EngineKind::Sglang, &m, "0.5.0rc1").is_ok());
        let e = check(EngineKind::Vllm, &m, "0.9.1").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.9.2"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &m, "0.9.2").is_ok());
    }

    /// families20: Falcon-H1 from SGLang 0.5.3 (0.5.3rc2's wheel) and vLLM 0.9.0.
    #[test]
    fn falcon_h1_first_releases_as_read() {
        let text = include_str!("../../../scenarios/models/falcon-h1-7b-instruct/config.json");
        let m = ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap();
        // (0.5.3rc0 lacks the file but counts as 0.5.3 in `ordered`, as every rc does.)
        for v in ["0.5.1", "0.5.2"] {
            let e = check(EngineKind::Sglang, &m, v).unwrap_err();
            assert_eq!(e.0, "engine.version");
            assert!(
                e.1.contains(&format!("SGLang {v} has no models/falcon_h1.py")),
                "{}",
                e.1
            );
        }
        for v in ["0.5.3rc2", "0.5.3", "0.5.8"] {
            assert!(check(EngineKind::Sglang, &m, v).is_ok(), "{v}");
        }
        let e = check(EngineKind::Vllm, &m, "0.8.5.post1").unwrap_err();
        assert!(e.1.contains("vLLM ships it from 0.9.0"), "{}", e.1);
        for v in ["0.9.0", "0.11.0", "0.19.0"] {
            assert!(check(EngineKind::Vllm, &m, v).is_ok(), "{v}");
        }
    }

    /// families18: Arcee AFM from SGLang 0.4.10 and vLLM 0.10.0.
    #[test]
    fn arcee_first_releases_as_read() {
        let text = include_str!("../../../scenarios/models/afm-4.5b/config.json");
        let m = ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap();
        let e = check(EngineKind::Sglang, &m, "0.4.9.post6").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(
            e.1.contains("SGLang 0.4.9.post6 has no models/arcee.py"),
            "{}",
            e.1
        );
        assert!(check(EngineKind::Sglang, &m, "0.4.10").is_ok());
        let e = check(EngineKind::Vllm, &m, "0.9.2").unwrap_err();
        assert!(e.1.contains("vLLM registers it from 0.10.0"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &m, "0.10.0").is_ok());
    }

    /// families21: Apertus from SGLang 0.5.3rc0 and vLLM 0.10.2; MiniCPM from SGLang 0.1.19 and vLLM
    /// 0.4.1; MiniCPM3 from SGLang 0.3.1 and vLLM 0.6.2.
    #[test]
    fn families21_first_releases_as_read() {
        let load =
            |text: &str| ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap();
        let apertus = load(include_str!(
            "../../../scenarios/models/apertus-8b-instruct-2509/config.json"
        ));
        let e = check(EngineKind::Sglang, &apertus, "0.5.2").unwrap_err();
        assert_eq!(e.0, "engine.version");
        assert!(e.1.contains("SGLang 0.5.2 has no models/apertus.py"), "{}", e.1);
        assert!(check(EngineKind::Sglang, &apertus, "0.5.3rc0").is_ok());
        let e = check(EngineKind::Vllm, &apertus, "0.10.1.1").unwrap_err();
        assert!(e.1.contains("vLLM adds it in 0.10.2"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &apertus, "0.10.2").is_ok());
        let minicpm = load(include_str!("../../../scenarios/models/minicpm4-8b/config.json"));
        let e = check(EngineKind::Sglang, &minicpm, "0.1.18").unwrap_err();
        assert!(e.1.contains("SGLang 0.1.18 has no models/minicpm.py"), "{}", e.1);
        assert!(check(EngineKind::Sglang, &minicpm, "0.1.19").is_ok());
        let e = check(EngineKind::Vllm, &minicpm, "0.4.0.post1").unwrap_err();
        assert!(e.1.contains("vLLM adds it in 0.4.1"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &minicpm, "0.4.1").is_ok());
        let minicpm3 = load(include_str!("../../../scenarios/models/minicpm3-4b/config.json"));
        let e = check(EngineKind::Sglang, &minicpm3, "0.3.0").unwrap_err();
        assert!(e.1.contains("SGLang 0.3.0 has no models/minicpm3.py"), "{}", e.1);
        assert!(check(EngineKind::Sglang, &minicpm3, "0.3.1").is_ok());
        let e = check(EngineKind::Vllm, &minicpm3, "0.6.1.post2").unwrap_err();
        assert!(e.1.contains("vLLM adds it in 0.6.2"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &minicpm3, "0.6.2").is_ok());
    }

    /// families22: LFM2 from SGLang 0.5.9 and vLLM 0.10.2, LFM2-MoE from SGLang 0.5.9 and vLLM 0.11.1.
    #[test]
    fn lfm2_first_releases_as_read() {
        let load =
            |text: &str| ModelSpec::from_config_json(text, tpsim_model::llm::Quantization::bf16()).unwrap();
        let dense = load(include_str!("../../../scenarios/models/lfm2-1.2b/config.json"));
        let moe = load(include_str!("../../../scenarios/models/lfm2-8b-a1b/config.json"));
        for (m, file) in [(&dense, "lfm2.py"), (&moe, "lfm2_moe.py")] {
            for v in ["0.5.7", "0.5.8", "0.5.8.post1"] {
                let e = check(EngineKind::Sglang, m, v).unwrap_err();
                assert_eq!(e.0, "engine.version");
                assert!(
                    e.1.contains(&format!("SGLang {v} has no models/{file}")),
                    "{}",
                    e.1
                );
            }
            assert!(check(EngineKind::Sglang, m, "0.5.9").is_ok());
        }
        let e = check(EngineKind::Vllm, &dense, "0.10.1.1").unwrap_err();
        assert!(e.1.contains("vLLM adds it in 0.10.2"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &dense, "0.10.2").is_ok());
        let e = check(EngineKind::Vllm, &moe, "0.11.0").unwrap_err();
        assert!(e.1.contains("vLLM 0.11.0 has no models/lfm2_moe.py"), "{}", e.1);
        assert!(check(EngineKind::Vllm, &moe, "0.11.1").is_ok());
        assert!(check(EngineKind::Vllm, &moe, "0.19.0").is_ok());
    }
}

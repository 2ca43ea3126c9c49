//! DeepSeek sparse attention (DSA: DeepSeek-V3.2, GLM-5; `tpsim_model::llm::dsa`): the settings the
//! engines force for these models at start-up, applied to the resolved scenario with the engines'
//! own warnings (h2, issue #16).
//!
//! - SGLang 0.5.9 `server_args.py` `_handle_model_specific_adjustments`: on CUDA the page size is set to
//!   64 ("Setting page size to 64 for DeepSeek DSA."); `_set_default_nsa_kv_cache_dtype`: KV dtype
//!   `auto` becomes `fp8_e4m3` on SM ≥ 10 and `bfloat16` below ("Setting KV cache dtype to … for
//!   DeepSeek DSA on SM… device."); any dtype other than bf16/fp8_e4m3 fails an assertion ("DeepSeek
//!   DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype").
//! - vLLM 0.11 `model_executor/models/config.py` `DeepseekV32ForCausalLM.verify_and_update_config`:
//!   `auto` or any fp8 KV dtype becomes `fp8_ds_mla` (656 B latents; represented here as fp8_e4m3,
//!   whose DSA layout is the same), `bfloat16` stays; `platforms/cuda.py` forces block size 64 for the
//!   FlashMLA sparse backend.

use super::{Engine, EngineKind, Hardware, Resolver, ScenarioError};
use tpsim_model::llm::{KvCacheDtype, ModelSpec, NSA_PAGE_SIZE};

impl Resolver<'_> {
    /// Applies the engine's DSA adjustments (no-op for models without an indexer).
    pub(super) fn dsa_adjust(
        &self,
        model: &mut ModelSpec,
        engine: &mut Engine,
        hw: &Hardware,
        warnings: &mut Vec<String>,
    ) -> Result<(), ScenarioError> {
        if model.indexer.is_none() {
            return Ok(());
        }
        let major = hw.gpu.sm_major();
        let kv = &mut model.quantization.kv_cache_dtype;
        match engine.kind {
            EngineKind::Sglang => {
                if engine.page_size != NSA_PAGE_SIZE {
                    engine.page_size = NSA_PAGE_SIZE;
                }
                warnings.push("SGLang: Setting page size to 64 for DeepSeek DSA.".into());
                match *kv {
                    KvCacheDtype::Auto => {
                        let (dt, name) = if major >= 10 {
                            (KvCacheDtype::Fp8E4m3, "fp8_e4m3")
                        } else {
                            (KvCacheDtype::Bf16, "bfloat16")
                        };
                        *kv = dt;
                        warnings.push(format!(
                            "SGLang: Setting KV cache dtype to {name} for DeepSeek DSA on SM{major} device."
                        ));
                    }
                    KvCacheDtype::Bf16 | KvCacheDtype::Fp8E4m3 => {}
                    _ => {
                        return Err(self.invalid(
                            "model.quantization.kv_cache_dtype",
                            "AssertionError: DeepSeek DSA only supports bf16/bfloat16 or fp8_e4m3 kv_cache_dtype \
                             (SGLang server_args.py _set_default_nsa_kv_cache_dtype): expected \"auto\", \"bf16\" or \"fp8_e4m3\"",
                        ));
                    }
                }
            }
            EngineKind::Vllm => {
                if engine.page_size != NSA_PAGE_SIZE {
                    engine.page_size = NSA_PAGE_SIZE;
                    warnings.push(
                        "vLLM: block size 64 forced for the FlashMLA sparse backend (DeepSeek DSA).".into(),
                    );
                }
                match *kv {
                    KvCacheDtype::Auto | KvCacheDtype::Fp8E4m3 | KvCacheDtype::Fp8E5m2 => {
                        *kv = KvCacheDtype::Fp8E4m3;
                        warnings.push("vLLM: KV cache dtype fp8_ds_mla for DeepSeek DSA (656 B latents + 132 B indexer keys per token per layer).".into());
                    }
                    KvCacheDtype::Bf16 => {}
                    _ => {
                        return Err(self.invalid(
                            "model.quantization.kv_cache_dtype",
                            "vLLM runs DeepSeek DSA with fp8_ds_mla (auto/fp8) or bfloat16 KV only: expected \"auto\", \"fp8_e4m3\" or \"bf16\"",
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

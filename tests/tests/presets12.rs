//! presets12 (issue #17): NVIDIA's ModelOpt NVFP4 checkpoints that launch commands name and no preset
//! described, now bundled (`kimi-k2.5-nvfp4`, `qwen3.5-397b-a17b-nvfp4-nvidia`), each resolved from its
//! HuggingFace id by `tpsim import-command` (scenarios/models/hf-ids.toml) and pinned by its weights per
//! rank and KV cell bytes, computed by hand from its config.json and quant.toml (exact integers, no
//! tolerance; the sharding rules of model/src/llm/weights.rs as the existing presets' unit tests in
//! model/src/llm/tests.rs spell them). NVFP4 bytes of an r × c tensor: r·c / 2 + r·c / 16 fp8 scales +
//! 8 B of per-tensor fp32 scales (model/src/llm/quant.rs).

use std::path::{Path, PathBuf};
use tpsim::import_command_build::{self as build, HardwareFrom, Options};
use tpsim::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{KvCacheDtype, WeightDtype, WeightFormat};

fn on(hardware: &str) -> Options {
    Options {
        hardware: HardwareFrom::Preset(hardware.into()),
        engine_version: None,
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    }
}

/// `command` imported with `o` and loaded; the imported TOML's text and the notes beside it.
fn import_with(command: &str, o: &Options) -> (Scenario, String, Vec<String>) {
    let i = build::import(command, o).unwrap_or_else(|e| panic!("{command}: {e}"));
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml"))
        .unwrap_or_else(|e| panic!("{command}: {e}"));
    (s, i.text, i.notes)
}

fn import(command: &str, hardware: &str) -> (Scenario, String, Vec<String>) {
    import_with(command, &on(hardware))
}

fn launch_command(n: u32) -> String {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/data/launch-commands/{n:02}.sh"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn has_lines(text: &str, lines: &[&str]) {
    for line in lines {
        assert!(text.lines().any(|l| l == *line), "no `{line}` in\n{text}");
    }
}

/// Survey command 2 (local-inference-lab/rtx6kpro `inference-engines/sglang.md` line 293: SGLang,
/// `--model-path nvidia/Kimi-K2.5-NVFP4 --tensor-parallel-size 8 --moe-runner-backend triton
/// --quantization modelopt_fp4 --mem-fraction-static 0.93 --cuda-graph-max-bs 8`, `NCCL_P2P_LEVEL=4`)
/// had no preset; it now imports with `kimi-k2.5-nvfp4` (`--quantization modelopt_fp4` is the preset's
/// own format: a note, no key). The network is `kimi-k2.5`'s (model tests.rs
/// `kimi_weights_per_rank_at_tp8`: 76,533,067,676 B at tp 8 with INT4 g32 bf16-scaled experts); only
/// the routed experts' format differs. An expert's shard at tp 8 (intermediate 2,048 / 8 = 256), NVFP4:
/// - gate_up [512, 7,168]: 1,835,008 + 229,376 scales + 8 = 2,064,392;
/// - down [7,168, 256]: 917,504 + 114,688 + 8 = 1,032,200 → 3,096,592 (INT4 g32: 3,096,576);
/// - × 384 experts × 60 MoE layers = 71,345,479,680 (INT4: 71,345,111,040, 368,640 less).
///
/// attnquant17 (issue #17): the preset reads the checkpoint's `ignore` list (`from = "config"`), which keeps
/// only the attention bf16, so the dense MLP of layer 0 and the shared experts are NVFP4 as stored:
/// - dense layer 0, intermediate 18,432 / 8 = 2,304 a rank: gate_up [4,608, 7,168] 16,515,072 +
///   2,064,384 + 8 = 18,579,464; down [7,168, 2,304] 8,257,536 + 1,032,192 + 8 = 9,289,736 → 27,869,200
///   (bf16, as counted before: 3 × 2,304 × 7,168 × 2 = 99,090,432);
/// - shared experts, one of 2,048 → 256 a rank, an expert shard's 3,096,592 × 60 = 185,795,520 (bf16
///   before: 660,602,880).
///
/// Total 76,533,067,676 + 368,640 − (99,090,432 − 27,869,200) − (660,602,880 − 185,795,520) =
/// 76,533,436,316 − 546,028,592 = 75,987,407,724 B (70.77 GiB, 0.51 GiB less than before). KV per token
/// (MLA latent on every rank), fp8 e4m3 from the config's `kv_cache_scheme` (8-bit float): (512 + 64) ×
/// 61 × 1 B = 35,136, half of `kimi-k2.5`'s 70,272.
#[test]
fn survey_command_2_kimi_k2_5_nvfp4_imports() {
    let (s, text, notes) = import(&launch_command(2), "rtx-pro-6000-8x-1switch");
    has_lines(
        &text,
        &[
            "preset = \"kimi-k2.5-nvfp4\"",
            "name = \"sglang\"",
            "tp = 8",
            "moe_backend = \"triton\"",
            "mem_fraction_static = 0.93",
            "cuda_graph_max_bs = 8",
            "NCCL_P2P_LEVEL = \"4\"",
            // b200sgl54: SGLang reads `modelopt_fp4` on this ModelOpt NVFP4 checkpoint (its SM 10.x
            // MoE-runner lists), so the import keeps it as a key; on SM 12.0 it selects nothing, and
            // the command names `--moe-runner-backend triton` anyway.
            "quantization = \"modelopt_fp4\"",
        ],
    );
    assert!(
        !notes.iter().any(|n| n.contains("--quantization modelopt_fp4")),
        "{notes:?}"
    );
    let b = s.model.weight_breakdown(8);
    assert_eq!(b.routed_experts, 71_345_479_680);
    assert_eq!((b.dense_mlp, b.shared_experts), (27_869_200, 185_795_520));
    assert_eq!(b.attention, 3_286_106_112);
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 75_987_407_724);
    assert_eq!(s.model.kv_cell_bytes(8), 35_136);
    assert_eq!(s.model.quantization.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
    assert_eq!(s.model.context_len, Some(262_144));
    assert_eq!(
        tpsim::engine_args::preset_trust_remote_code("kimi-k2.5-nvfp4"),
        Some(true)
    );
}

/// Launch command 57 (the SGLang cookbook's Kimi-K2.5.md, "Kimi-K2.5-NVFP4 … B200, all features
/// enabled"): `SGLANG_ENABLE_SPEC_V2=1 sglang serve --model-path nvidia/Kimi-K2.5-NVFP4 --tp 8
/// --kv-cache-dtype fp8_e4m3 --speculative-algorithm=EAGLE3 --speculative-num-steps 3
/// --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --speculative-draft-model-path
/// lightseekorg/kimi-k2.5-eagle3 …` imports as published on the 8× B200 box (with `--acceptance`: no
/// flag states it): the draft is the bundled `kimi-k2.5-eagle3`, the KV cache fp8 e4m3 as the
/// checkpoint's own `auto` would have it, so the target's cell is 35,136 B a token and its weights
/// 75,987,407,724 B a rank ([`survey_command_2_kimi_k2_5_nvfp4_imports`]).
#[test]
fn launch_command_57_kimi_k2_5_nvfp4_eagle3_imports_as_published() {
    let mut o = on("b200-8x-nvlink");
    o.acceptance = Some("alpha = 0.7".into());
    let (s, text, _) = import_with(&launch_command(57), &o);
    has_lines(
        &text,
        &[
            "preset = \"kimi-k2.5-nvfp4\"",
            "name = \"sglang\"",
            "tp = 8",
            "kv_cache_dtype = \"fp8_e4m3\"",
            "algorithm = \"eagle3\"",
            "draft = \"kimi-k2.5-eagle3\"",
            "num_steps = 3",
            "topk = 1",
            "num_draft_tokens = 4",
        ],
    );
    assert_eq!(s.engine.kind, EngineKind::Sglang);
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 75_987_407_724);
    assert_eq!(s.model.kv_cell_bytes(8), 35_136);
}

/// Launch command 58 (the vLLM recipe moonshotai/Kimi-K2.5.md, "NVIDIA NVFP4 … Blackwell"):
/// `export VLLM_USE_FLASHINFER_MOE_FP4=1` then `vllm serve nvidia/Kimi-K2.5-NVFP4 -tp 4
/// --mm-encoder-tp-mode data --compilation_config.pass_config.fuse_allreduce_rms true … --trust-remote-code`
/// imports as published on B200 at tp 4 (the flags tpsim has no key for in `extra_args`). The text
/// model's weights a rank holds at tp 4 (16 heads a rank):
/// - embedding and LM head: 163,840 / 4 = 40,960 rows × 7,168 × 2 B = 587,202,560 each → 1,174,405,120;
/// - attention × 61: fused q_a + kv_a 2,112 × 7,168 × 2 = 30,277,632 (replicated); q_b 3,072 × 1,536 × 2
///   = 9,437,184; kv_b 4,096 × 512 × 2 = 4,194,304; w_kc + w_vc 2 × 2,048 × 512 × 2 = 4,194,304; o 7,168 ×
///   2,048 × 2 = 29,360,128 → 77,463,552; × 61 = 4,725,276,672;
/// - dense layer 0, NVFP4 (attnquant17; bf16 before: 3 × 4,608 × 7,168 × 2 = 198,180,864): gate_up
///   [9,216, 7,168] 33,030,144 + 4,128,768 + 8 = 37,158,920; down [7,168, 4,608] 16,515,072 +
///   2,064,384 + 8 = 18,579,464 → 55,738,384;
/// - routed experts, NVFP4, intermediate 512 a rank: gate_up [1,024, 7,168] 3,670,016 + 458,752 + 8;
///   down [7,168, 512] 1,835,008 + 229,376 + 8 → 6,193,168; × 384 × 60 = 142,690,590,720;
/// - shared experts × 60, NVFP4 as a routed expert's shard: 6,193,168 → 371,590,080 (bf16 before: 3 ×
///   512 × 7,168 × 2 = 22,020,096 → 1,321,205,760);
/// - routers and norms replicated, as at tp 8: 330,393,600 and 2,013,184.
///
/// KV per token 35,136 (MLA: not divided by tp).
#[test]
fn launch_command_58_kimi_k2_5_nvfp4_vllm_tp4_imports_as_published() {
    let (s, text, _) = import(&launch_command(58), "b200-8x-nvlink");
    has_lines(
        &text,
        &["preset = \"kimi-k2.5-nvfp4\"", "name = \"vllm\"", "tp = 4"],
    );
    assert!(text.contains("\"--mm-encoder-tp-mode\", \"data\""), "{text}");
    let b = s.model.weight_breakdown(4);
    assert_eq!(b.embedding + b.lm_head, 1_174_405_120);
    assert_eq!(b.attention, 4_725_276_672);
    assert_eq!(b.dense_mlp, 55_738_384);
    assert_eq!(b.routed_experts, 142_690_590_720);
    assert_eq!(b.shared_experts, 371_590_080);
    assert_eq!((b.router, b.norms), (330_393_600, 2_013_184));
    // The text model's sum: 1,174,405,120 + 4,725,276,672 + 55,738,384 + 142,690,590,720 + 371,590,080
    // + 330,393,600 + 2,013,184 = 149,350,007,760 (1,092,058,160 less than with the bf16 dense MLP and
    // shared experts).
    assert_eq!(b.total() - b.vision, 149_350_007_760);
    assert_eq!(s.model.kv_cell_bytes(4), 35_136);
}

/// `python -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --tp 4` (the checkpoint
/// and tp of the SGLang cookbook's Qwen3.5 B200 row, `data/models/src/v0.5.8/qwen35.yaml`) resolves to
/// `qwen3.5-397b-a17b-nvfp4-nvidia`, not lukealonso's `qwen3.5-397b-a17b-nvfp4`: the same weights (only
/// the routed experts NVFP4, `exclude_modules` keeping attention, DeltaNet, shared experts and MTP bf16;
/// model tests.rs `qwen35_nvfp4_weights_per_rank_at_tp4`: experts 512 × 60 × 1,769,488 = 54,358,671,360,
/// shared 377,487,360, routers 252,149,760, attention 3,473,206,080, embedding and LM head 2 ×
/// 508,559,360, norms 1,019,552 → 59,479,652,832 B = 55.39 GiB; the vision tower is not counted) but an
/// fp8 e4m3 KV cache (`kv_cache_quant_algo` FP8 in its hf_quant_config.json): 1 KV head a rank × (256 +
/// 256) × 15 full-attention layers × 1 B = 7,680 B a token against 15,360. Its MTP layer stays bf16.
#[test]
fn qwen3_5_397b_nvfp4_nvidia_resolves_with_an_fp8_kv_cache() {
    let (s, text, _) = import(
        "python -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --tp 4",
        "b200-8x-nvlink",
    );
    has_lines(&text, &["preset = \"qwen3.5-397b-a17b-nvfp4-nvidia\"", "tp = 4"]);
    assert_eq!(s.model.weight_bytes_per_rank(4).0, 59_479_652_832);
    assert_eq!(s.model.weight_breakdown(4).routed_experts, 54_358_671_360);
    assert_eq!(s.model.kv_cell_bytes(4), 7_680);
    assert_eq!(
        s.model.quantization.mtp,
        Some(WeightFormat::plain(WeightDtype::Bf16))
    );
    assert_eq!(s.model.context_len, Some(262_144));
    // lukealonso's checkpoint keeps its own preset and the model-dtype KV cache.
    let (s, text, _) = import(
        "python -m sglang.launch_server --model-path lukealonso/Qwen3.5-397B-A17B-NVFP4 --tp 4",
        "b200-8x-nvlink",
    );
    has_lines(&text, &["preset = \"qwen3.5-397b-a17b-nvfp4\""]);
    assert_eq!(s.model.kv_cell_bytes(4), 15_360);
}

/// Launch command 59 (the vLLM recipe Qwen/Qwen3.5.md, "GB200 Deployment"): `vllm serve
/// nvidia/Qwen3.5-397B-A17B-NVFP4 -dp 4 --enable-expert-parallel --language-model-only --reasoning-parser
/// qwen3 --enable-prefix-caching` imports as published on the GB200 slice: the preset, four DP ranks of
/// tp 1 with expert parallelism, prefix caching, the flags tpsim has no key for in `extra_args`.
#[test]
fn launch_command_59_qwen3_5_nvfp4_dp4_ep_imports_as_published() {
    let (s, text, _) = import(&launch_command(59), "gb200-nvl72-8x-slice");
    has_lines(
        &text,
        &[
            "preset = \"qwen3.5-397b-a17b-nvfp4-nvidia\"",
            "name = \"vllm\"",
            "dp_size = 4",
            "enable_expert_parallel = true",
            "enable_prefix_caching = true",
            "tp = 1",
            "extra_args = [\"--language-model-only\", \"--reasoning-parser\", \"qwen3\"]",
        ],
    );
    assert_eq!(s.model.quantization.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
}

/// `python -m sglang.launch_server --model-path nvidia/Qwen3-235B-A22B-NVFP4 --tp 8` resolves to
/// `qwen3-235b-a22b-nvfp4`, whose format tpsim reads from its hf_quant_config.json (`from = "config"`):
/// every linear layer NVFP4 but lm_head and the routers, KV fp8 e4m3. The `qwen3-235b-a22b` network
/// (94 layers, hidden 4,096, 64 / 4 heads of 128, 128 experts of 1,536, vocab 151,936 untied) at tp 8:
/// - embedding and LM head (bf16): 151,936 / 8 = 18,992 rows × 4,096 × 2 B = 155,582,464 each →
///   311,164,928;
/// - per layer: qkv (8 × 128 + 2 × 1 × 128 = 1,280 rows; 4 KV heads on 8 ranks, one a rank) × 4,096,
///   NVFP4: 2,621,440 + 327,680 scales + 8 = 2,949,128; o [4,096, 1,024]: 2,097,152 + 262,144 + 8 =
///   2,359,304; q/k norms 2 × 128 × 2 = 512; norms 2 × 4,096 × 2 = 16,384; router (bf16) 128 × 4,096 × 2
///   = 1,048,576; experts (1,536 / 8 = 192 a rank): gate_up [384, 4,096] 786,432 + 98,304 + 8 = 884,744,
///   down [4,096, 192] 393,216 + 49,152 + 8 = 442,376 → 1,327,120 × 128 = 169,871,360 → 176,245,264;
///   × 94 = 16,567,054,816;
/// - final norm 8,192: 16,878,227,936 B (15.72 GiB; the bf16 preset holds 54.91 GiB at tp 8).
///
/// KV per token at tp 8: 1 KV head × (128 + 128) × 94 layers × 1 B = 24,064 (bf16: 48,128).
#[test]
fn qwen3_235b_a22b_nvfp4_reads_its_hf_quant_config() {
    let (s, text, _) = import(
        "python -m sglang.launch_server --model-path nvidia/Qwen3-235B-A22B-NVFP4 --tp 8",
        "b200-8x-nvlink",
    );
    has_lines(&text, &["preset = \"qwen3-235b-a22b-nvfp4\"", "tp = 8"]);
    let q = s.model.quantization;
    assert_eq!(q.weights.dtype, WeightDtype::Nvfp4);
    assert_eq!(q.expert_format().dtype, WeightDtype::Nvfp4);
    assert_eq!(q.kv_cache_dtype, KvCacheDtype::Fp8E4m3);
    assert_eq!(s.model.weight_bytes_per_rank(8).0, 16_878_227_936);
    assert_eq!(s.model.kv_cell_bytes(8), 24_064);
    assert_eq!(s.model.context_len, Some(40_960));
}

/// `vllm serve meta-llama/Llama-3.1-8B` (the base checkpoint; also by its former name
/// `meta-llama/Meta-Llama-3.1-8B`) resolves by its hf-ids alias to `llama-3.1-8b`, noted: the published
/// config.json is that preset's but the eos ids and `transformers_version`. At tp 1 a GPU holds the bf16
/// network: embedding and LM head 2 × 128,256 × 4,096 × 2 = 2,101,346,304; per layer qkv (4,096 + 2 ×
/// 1,024) × 4,096 × 2 = 50,331,648, o 33,554,432, gate/up/down 3 × 14,336 × 4,096 × 2 = 352,321,536,
/// norms 16,384 → 436,224,000 × 32 = 13,959,168,000; final norm 8,192: 16,060,522,496 B (14.96 GiB).
/// KV per token: 8 KV heads × 256 × 32 × 2 B = 131,072.
#[test]
fn llama_3_1_8b_base_resolves_by_its_alias() {
    for id in ["meta-llama/Llama-3.1-8B", "meta-llama/Meta-Llama-3.1-8B"] {
        let (s, text, notes) = import(&format!("vllm serve {id}"), "h100-sxm-1x");
        has_lines(&text, &["preset = \"llama-3.1-8b\""]);
        assert!(
            notes
                .iter()
                .any(|n| n.contains(&format!("`{id}` has the same config.json geometry"))),
            "{notes:?}"
        );
        assert_eq!(s.model.weight_bytes_per_rank(1).0, 16_060_522_496);
        assert_eq!(s.model.kv_cell_bytes(1), 131_072);
    }
}

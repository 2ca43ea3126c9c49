//! tpsim's end-to-end tests, in one test binary: each file of this folder is a module of it (issue #14: one
//! executable per crate instead of one per file, so a cold `cargo test --workspace` links far less).
//! `Cargo.toml` sets `autotests = false`, so a new test file must be declared below, which
//! [`every_test_file_is_declared`] checks. Run one module with
//! `cargo test -p tpsim-tests --test integration <module>::`, one test with `<module>::<test>`.

mod common;

// a100awq: what the eager A100 AWQ known misses are not (pie PR 348's 72B-AWQ step, below its floor).
mod a100_awq;
// Issue #17 point 4: accelerators (B200, GB200, H20, L40S, RTX 4090 48GB, MI300X/MI325X/MI355X) and multi-node.
mod accel;
// Issue #17 point 4: tensor parallelism across boxes.
mod allreduce_data;
// Issues #17 point 3, #19 point 3: the engine's default allreduce.
mod allreduce_default;
mod ampere_mem_efficiency;
mod architecture;
mod bad_input;
// bigbatch: what the vLLM high-concurrency known misses share (bursts are queue drains; no per-request gap).
mod bigbatch;
// fuzzin: a seeded mutation sweep of every bundled scenario's keys (bad input → exit 2, never a panic).
mod book;
mod decode_bench;
mod fp8_rate;
mod garbage_config;
mod garbage_in;
mod garbage_in_cli;
mod tp_nodes;
// Issue #18 (load): workloads, SLOs, capacity, the published serving curve.
mod capacity;
mod collective_cli;
mod serving_curve;
mod trace_from_bench;
mod workload_load;
// Issue #17 (3): collective options as users set them.
mod collective_options;
// Issue #17 point 4: RTX 5090 2×/4× and RTX 4090 24 GB 4×/8× presets.
mod consumer_presets;
mod coverage;
mod crossovers;
mod curves;
mod dcp;
// Issue #18 (deploys24): cloudrift's Qwen3-Coder-480B AWQ rows on 8× RTX PRO 6000 and 8× H200.
mod deploys24;
// Issue #18 (deploys25): dennislee22/vLLM-benchmarking's vLLM 0.10.1.1 rows on A100 80GB (TP 1 and 2).
mod deploys25;
// Issue #18 (deploys26): er0080/vllm-benchmarking's vLLM 0.25.1 Qwen3.5-9B sweep on 2× RTX 3090 (TP 1 and 2).
mod deploys26;
// Issue #18 (deploys27): SGLang rows from sglang pull requests 5877 (Qwen3-30B-A3B on L20) and 12343 (H200 EP).
mod deploys27;
mod diff_cli;
mod dp_attention;
// Issue #18 leftover (dpsched): one SGLang scheduler per DP-attention group.
mod dp_sched;
mod dsa;
// Issue #17 point 6: `tpsim engine-args`.
mod eager_host;
// graphmode: vLLM's cudagraph_mode and the host cost of PIECEWISE graphs.
mod engine_args;
mod graph_mode;
// issue #17 (flags): engine.extra_args, --max-model-len auto
mod launch_flags;
// Issue #17 (cmdparse): tpsim import-command, a launch command read into a scenario.
mod command_key;
mod import_command;
// Issue #19: a hardware preset from `nvidia-smi topo -m` (tpsim import-topo).
mod import_topo;
// recipes (issue #17 coverage): launch commands 17-59 from the vLLM recipes, the SGLang cookbook and users' threads.
mod import_recipes;
// presets11 (issue #17): presets and aliases for checkpoints launch commands and recipes name (Qwen3-30B-A3B(-Thinking-2507), Qwen3-Coder-480B, Kimi-K2, Llama-3.3-70B).
mod presets11;
// presets12 (issue #17): presets for nvidia/Kimi-K2.5-NVFP4 and nvidia/Qwen3.5-397B-A17B-NVFP4 (FP8 KV), and checkpoints recipes name.
mod presets12;
// Issue #17: engine-flag lists by version (SGLang 0.5.23, vLLM 0.12.0 / 0.33.0).
mod engine_args_versions;
// Issue #17 (consistency): one release per engine for a scenario without engine.version.
mod engine_like;
mod engine_memory;
mod engine_release;
// Issue #17/#5 coverage: start-up logs of architectures the coverage table listed as unverified.
mod engine_memory_logs;
mod engine_memory_rows;
mod gpt_oss_logs;
mod memlogs;
mod sglanglogs;
// fam (issue #16): GraniteMoE, Phi-3.5-MoE, LLaVA-NeXT.
mod expert_parallel;
mod families_fam;
// families2 (issue #17): Ling 2.0, Granite-4.0-H-Small and -Micro.
mod families2;
// families3 (issue #17): OLMo-2, OLMoE.
mod families3;
// families4 (issue #17): MiMo.
mod families4;
// families6 (issue #17): Llama-Nemotron NAS (DeciLM).
mod families6;
// families5 (issue #17): EXAONE 4.
mod families5;
// families7 (issue #17): GLM-4.5V.
mod families7;
// families8 (issue #17): Command R / R+.
mod families8;
// families9 (issue #17): OLMo-3.
mod families9;
// families10 (issue #17): GLM-4.7-Flash, InternLM3.
mod families10;
// families11 (issue #17): InternLM2 / 2.5.
mod families11;
// families12 (issue #17): Ministral 3.
mod families12;
// families13 (issue #17): StarCoder2.
mod families13;
// families15 (issue #17): dots.llm1.
mod families15;
// families17 (issue #17): dense ERNIE-4.5 and dense Hunyuan.
mod families17;
// families19 (issue #17): Kimi-Linear.
mod families19;
// families18 (issue #17): GLM-4.1V and Arcee AFM.
mod families18;
// families20 (issue #17): Falcon-H1.
mod families20;
// families21 (issue #17): Apertus, MiniCPM and MiniCPM3.
mod families21;
// families22 (issue #17): LFM2 and LFM2-MoE.
mod families22;
// families23 (issue #17): MiMo-V2-Flash.
mod families23;
// families24 (issue #17): Grok-2.
mod families24;
// families25 (issue #17): LongCat-Flash.
mod families25;
// families27 (issue #17): MiniMax-M1 / MiniMax-Text-01.
mod families27;
// families26 (issue #17): InternVL3-78B with InternViT-6B under both engines.
mod families26;
// families14 (issue #17): InternVL.
mod families14;
// families16 (issue #17): Qwen2-VL.
mod families16;
mod fitted;
// Issue #16 (h4): weight-format kernel efficiency.
mod format_efficiency;
// fp8decode: block-FP8 decode: the GEMM against DeepGEMM M 64 timings, the activation-quant kernel.
mod fp8_decode;
// Issue #18 (frontend): the API server in front of the scheduler.
mod frontend;
// Issue #18 (frontend2): published front-end costs against the queue and the rows.
mod frontend_sources;
mod gpt_oss;
mod input_files;
mod input_mutation;
mod intervals;
// Local/global attention families (issue #16).
mod local_attention;
mod memory_cli;
// nemotronh (issue #17): Nemotron-H.
mod memory_eras;
mod nemotron_h;
mod outputs;
mod pipeline;
// gemmrate: the H100 layer-shape bf16 rate at prefill sizes (templates/h100-sxm.toml).
mod gemm_rate;
mod gpu_efficiency;
// Issue #18 fidelity: prefill time against tests/data/prefill.tsv.
mod prefill_calibration;
mod prefill_curve;
mod prefill_rows;
// pcgttft: light-load SGLang TTFT, eager prefill against piecewise graphs (tests/data/ttft.tsv).
mod presets_extend;
mod profile;
mod ttft_rows;
// Issue #19 point 1: every preset value's provenance label.
mod provenance;
// Issue #17 point 4: vLLM QuickReduce on ROCm.
mod quick_reduce;
mod reference;
// Issue #17 (release51): first SGLang / vLLM release of the families that had no first_release row.
mod regress_cli;
mod release51;
// Issue #17: the run header's NCCL version and vLLM speculative terms.
mod run_header;
// Issue #17 point 4: SGLang on ROCm (aiter default, AITER fraction reserve).
mod rocm;
mod scheduler_keys;
mod seed;
// Issue #18: the serving loop (engine schedulers, KV budget, queueing, overload).
mod serving;
// Issue #19 point 1: SHM costs from the host's facts (the kalavai host's three layouts).
mod shm_host;
mod shm_host_5090;
mod shm_host_autodl;
mod shm_host_charlie;
mod shm_host_dgx;
mod shm_host_turin;
// Issue #19 point 1 (shmhost19): SHM costed without host facts is said; import-topo writes [host].
mod import_topo_host;
mod shm_no_host;
mod spec_acceptance;
mod spec_mtp;
mod spec_ratios;
// issue #17: speculative decoding under vLLM
// sweepfast: cached shapes report what built ones do.
mod shape_cache;
mod spec_vllm;
mod sweep_cli;
// sm120decode: engine.moe_backend and [compute.moe_backends] on RTX PRO 6000.
mod moe_backend_sm120;
// sm120moe: batch-1 triton FP8 fused-MoE timings on SM 12.0 against the rows' missing time.
mod moe_kernels_hopper;
mod moe_kernels_sm120;
// sm120tile: the default Triton tiles of the SM 12.0 FP8 rows (SGLang 0.5.8, vLLM 0.19) and their padded work.
mod moe_tiles_sm120;
// moedefault: the engine's own MoE backend when engine.moe_backend is not set.
mod moe_default;
// burstprefill: Marlin's MoE FLOP-efficiency ceiling on H100 (prefill chunks).
mod moe_marlin_prefill;
// Issue #19 (tputrows): decode throughput on A100 / H100 / RTX 4090 deployments.
// h200gl51 (issue #18): GLM-4.6 on H200: vLLM's fp32 router, Hopper prefill GEMM bounds, attention paths.
mod h200gl51;
mod throughput_breadth;
mod throughput_newdeploys;
mod throughput_newdeploys11;
mod throughput_newdeploys12;
mod throughput_newdeploys13;
mod throughput_newdeploys14;
mod throughput_newdeploys15;
mod throughput_newdeploys16;
mod throughput_newdeploys17;
mod throughput_newdeploys18;
mod throughput_newdeploys19;
mod throughput_newdeploys20;
mod throughput_newdeploys21;
mod throughput_newdeploys22;
mod throughput_newdeploys23;
mod throughput_newdeploys3;
mod throughput_newdeploys4;
mod throughput_newdeploys5;
mod throughput_newdeploys6;
mod throughput_newdeploys7;
mod throughput_newdeploys8;
mod throughput_newdeploys9;
mod throughput_qwen35;
mod throughput_qwen35_mtp;
mod throughput_rows;
// Decode totals and the book's rows table, from the comparisons themselves.
mod throughput_totals;
mod vlm_h3;
// vrows3 (issue #17 point 5): vLLM ≤ 0.12's sorting dummy sampler.
mod vllm_sort_sampler;
// Issue #17 point 5: vLLM start-up memory predicted from the scenario.
mod vllm_startup;
// vrows4 (issue #17): the caching allocator's blocks in vLLM's weights.
mod vllm_weight_blocks;
// Issue #19 point 3: custom allreduce kernels as they run.
mod custom_kernels;
// Issue #17 point 1 (ep): SGLang's DeepEP all-to-all path, vLLM's all2all_backend.
mod moe_a2a;
// Issue #17 (dp): data-parallel replicas (SGLang --dp-size, vLLM --data-parallel-size).
mod replicas;
// Issue #17 point 1 (vllmdp): vLLM DP + EP on MoE models.
mod torch_total;
mod vllm_dp;
// Issue #19 points 1-2 (launch): eager vs graph launch, NCCL 2.28.3 vs 2.30.7.
mod launch_nccl;
// Issue #19 done-when: a measured Gen3 x16 figure for the V100 PLX box (tests/data/pcie-p2p.tsv).
mod gen3_links;
// Issue #17 (qwenhyb): dense Qwen3.5 and Qwen3-Next as whole models.
mod qwen_hybrids;
// Issue #17 (engine-exact memory): vLLM's pages for Mamba-2 / Gated DeltaNet hybrids.
mod vllm_hybrid;
mod vllm_max_model_len;
// Issue #18 (hybridserve): the serving loop holds a hybrid's state and attention blocks
mod hybrid_serve;
// Issue #17 (graphs): CUDA-graph capture keys and vLLM async scheduling.
mod cuda_graphs;
// issue #17 (onlinequant): --quantization fp8 on a bf16 checkpoint
mod online_quant;
// vllmattn (issue #17): vLLM's own attention backend.
mod vllm_attention;
// vllmv0 (issue #17): vLLM's V0 engine by release.
mod vllm_v0;
// vllmv0mem (issue #17 point 5): vLLM V0's KV sizing against V0 start-up logs.
mod vllm_v0_blocks;
// installkind (issues #17 point 5, #18): engine.install, pip wheel or docker image.
mod vllm_install;
// vllmsampler (issue #17 point 5): VLLM_USE_FLASHINFER_SAMPLER by vLLM release.
mod vllm_flashinfer_sampler;
// gpus7 (issue #17 point 4): GPU templates and box presets for common PCIe GPUs.
mod gpus7;
// tpstep: NCCL's SHM latency on the no-P2P RTX 4090 presets against the measured hosts.
mod tpstep;
// moetable: the fused-MoE configs SGLang ships by release and GPU → engine.moe_tuned_config.
mod moe_config_table;
// sm100moe: SGLang's MoE runner on SM 10.x by release, architecture and quantization.
mod moe_runner_sm100;
// b200pg50: SGLang's page size under trtllm_mha and its MambaRadixCache overlap rule on the B200 rows.
mod sglang_b200_paths;
// vllmfloor: vLLM 0.8.5's NCCL pin and symm-mem cutoff by release; the light-load TP gap's figures.
mod vllmfloor;
// rope51: SGLang's RoPE caches of the MLA families, the observed load usage in the memory table,
// Llama-4's uncapped cache and the LongRoPE rotary's kernels.
mod rope51;
// hybrids51: SGLang's overlap / radix rules for the other hybrids, vLLM's LFM2 rules, MiniCPM's muP kernels.
mod hybrids51;

/// Every `*.rs` file beside this one is declared as a module above: with `autotests = false` an
/// undeclared file would silently never be built or run.
#[test]
fn every_test_file_is_declared() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let missing = common::undeclared_test_files(&dir, include_str!("main.rs"));
    assert!(
        missing.is_empty(),
        "declare these test files as modules in {}/main.rs: {missing:?}",
        dir.display()
    );
}
// shm51 (issue #19 point 1): box B's link rate from its own pinned copies; its fraction over that port.
mod shm51;
// vllmold52 (issue #17): vLLM 0.10.1.1 start-up memory from the dennislee22 A100 logs.
mod vllmold52;
// mend52 (issue #17): Phi-3.5-MoE's LongRoPE caches and SGLang kernels.
mod mend52;
// grok52 (issue #17): Grok-2's per-layer RoPE caches under SGLang against the H100 log.
mod grok52;
mod shm52;
// release52 (issue #17): the default SGLang release 0.5.9, memory eras of 0.5.9-0.5.23, first releases enforced.
mod release52;
// families28 (issue #17): StepFun Step-3.5-Flash.
mod families28;
// Issue #18 (deploys28): cloudrift's deplodock Kimi-K2.5-NVFP4 runs on B200 (vLLM 0.17.0 / 0.16.0, SGLang 0.5.9).
mod deploys28;
// hybpage53 (issue #18): the Qwen3-VL encoder's forward peak in vLLM's profile run (er0080 TP 1 rows).
mod hybpage53;
// shmsize53 (issue #19): the size dependence of SHM Ring/LL allreduce on two-rank hosts, the A100 cross-socket preset.
mod shmsize53;
// families29 (issue #17): DeepSeek-V4, read and refused as not modelled.
mod families29;
// families30 (issue #17): Google Gemma 4.
mod families30;
// sglres53 (issue #17): SGLang 0.5.9-0.5.23 default-fraction reserve terms by release.
mod flags53;
mod sglres53;
// families32 (issue #17): Moonshot Kimi-K3.
mod families32;
mod vgraph53;
// families31 (issue #17): Mistral Large 3.
mod families31;
// vllmnew53 (issue #17): Step-3.5-Flash and MiMo-V2-Flash >= 0.20 under vLLM.
mod vllmnew53;
// Issue #18 (deploys29): sglang pulls 30812 (GLM-5.1-FP8, 8x MI300X) and 31216 (Gemma 4 31B, 1x MI300X), SGLang 0.5.13.post1.
mod deploys29;
// rocm54 (issue #18): the MI300X template against AITER's gfx942 kernel timings.
mod rocm54;
// b200sgl54 (issue #18): SGLang 0.5.9 runs sgl-kernel's cutlass_moe_fp4 for ModelOpt NVFP4 on B200.
mod b200sgl54;
// sglmem54 (issue #17): SGLang 0.5.20 bucket, 0.5.22 max_bs cap, post-capture KV sizing note.
mod sglmem54;
// families33 (issue #17): SGLang's DeepSeek-V4 KV pools by release.
mod families33;
// families34 (issue #17): Qwen4-Exp refused as not modelled.
mod families34;
// sched54 (issue #18): SGLang's scheduler rules by release (ignore_eos admission, retraction).
mod sched54;
// vision54 (issue #17): the vision towers of Gemma 4 and Kimi-K3, SGLang's multimodal fraction.
mod vision54;
// families35 (issue #17): DeepSeek-V4 weight bytes a rank under SGLang.
mod families35;
// kimitok54 (issue #18): SGLang's detokenizer process on Kimi's tiktoken tokenizer (serve::detok).
mod kimitok54;
// ttft54 (issue #18): the light-load TTFT rows against tpsim, grouped.
mod ttft54;
// tritonsplit54 (issue #18): SGLang's Triton split-KV decode attention (splits, partials, stage 2).
mod tritonsplit54;
// families36 (issue #17): Hunyuan V3 / Hy3 lowered.
mod families36;
// mi300step55 (issue #18): the per-request part of the MI300X decode step (Gemma 4 31B, SGLang 0.5.13).
mod mi300step55;
// kimicook55 (issue #18): the cookbook's Kimi-K2.5 8× H200 step against the context (page's own runs).
mod kimicook55;
// shm55 (issue #19): the dennislee A100 box's wanted SHM rate against the measured hosts' read fractions.
mod shm55;
// ttft55 (issue #18): the benchmark client's lengths and the front end's time at light load.
mod ttft55;
// flags55 (issue #17): engine-args flag lists for every release the scenarios name, renames by release.
mod flags55;
// dsv4run55 (issue #17): DeepSeek-V4 lowered, its SGLang memory plan.
mod dsv4run55;
// cmdsurvey55 (issue #17): real public launch commands through import-command.
mod cmdsurvey55;
// mlactx55 (issue #18): SGLang's fa3 MLA decode splits the KV over the context (FA3 sources); tpsim's latent read at HBM rate.
mod mlactx55;
// families37 (issue #17): MiniMax-M3 read and counted (refused); Hy3's full quoted config.
mod families37;
// deploys30 (issue #18): deplodock's Qwen3-Coder-Next FP8 sweep on one RTX PRO 6000 (vLLM 0.16.0), the points newdeploys19 left.
mod deploys30;
// dsv4dec55 (issue #17): DeepSeek-V4's decode layer in the iteration graph.
mod dsv4dec55;
// b200moe55 (issue #18): the triton fused-MoE call's fixed cost on SM 10.0 from two B200 kernel series.
mod b200moe55;
mod b200moe62;
// presets55 (issue #17): model presets for PCIe boxes (Qwen3.5 MoE sizes, ...).
mod presets55;
// deploys31 (issue #18): new out-of-sample rows on PCIe cards (ld-singh's Qwen2.5-7B sweep on one RTX A6000, vLLM 0.23.0).
mod deploys31;
// vmem56 (issue #17): vLLM 0.19 float32 start-up (engine-memory.tsv line 23): the missing peak bytes narrowed to one logits-sized float32 tensor.
mod vmem56;
// families38 (issue #17): MiniMax-M3's text model lowered under SGLang (memory by hand, run, refusals).
mod families38;
// shm56 (issue #19): the tinygrad#17 Genoa 8x RTX 4090 host over SHM (preset, predicted run; table unread).
mod shm56;
// pro6k56 (issue #18): the RTX PRO 6000 per-request decode gap: vLLM's Gated DeltaNet state width, the MoE kernel's cost per expert on SM 12.0.
mod pro6k56;
// flags56 (issue #17): --enable-ep-moe import by release, long-context env overrides, vLLM 0.33.0/0.34.0 lists.
mod flags56;
// vgptoss56 (issue #17): vLLM's gpt-oss start-up weights by release (Hopper triton_kernels swizzle from torch 2.8.1, float32 RoPE), engine-memory.tsv lines 72–73.
mod vgptoss56;
// presets56 (issue #17): Devstral 2 / Devstral Small 2 and GLM-4.7 / GLM-4.7-FP8 presets.
mod presets56;
// curves56 (issue #18): measured bf16 GEMM efficiency curves for PCIe cards that borrowed the flat 0.50.
mod curves56;
// dsv4k56 (issue #17): DeepSeek-V4 decode kernels counted from SGLang 0.5.16; sglang pull 33109's 4x H200 row.
mod dsv4k56;
// curves57 (issue #18): measured GEMM curves for the RTX 3090 Ti and the A10.
mod curves57;
mod gemm59;
// deploys32 (issue #18): multi-GPU TP rows on PCIe from a second source (deplodock's Qwen3.5-122B-A10B FP8 on 8x RTX PRO 6000 Max-Q, vLLM 0.19.0).
mod deploys32;
// dsv4k57 (issue #17): sglang pull 33083's c 4096 DeepSeek-V4-Flash row on 4x H200; the pull-33109 gap probed.
mod dsv4k57;
// qnext57 (issue #18): the RTX PRO 6000 Server Edition's 12481 MHz GDDR7 (1,597 GB/s) against the Workstation's 1,792 GB/s.
mod qnext57;
// deploys33 (issue #18): SGLang cookbook rows of MoE models on MI300X (Llama 4, MiniMax-M2, DeepSeek-V3.1).
mod deploys33;
// cmdsurvey57 (issue #17): 45 more real launch commands (rows 105-149) and the importer's fixes.
mod cmdsurvey57;
// awq57 (issue #17/#18): cloudrift server-benchmark's GLM-4.5-Air AWQ rows (TP 4 EP and PP) under vLLM 0.11.
mod awq57;
// shm57 (issue #19): aikitoria 8x RTX 5090 on dual Turin, a new box out of sample (recorded miss).
mod presets57;
mod shm57;
mod vmemtp57;
// families39 (issue #17): Gemma 4 under vLLM (memory by hand, backend by release, run, refusals).
mod families39;
mod vmem58;
// presets58 (issue #17): DeepSeek-V3.1-NVFP4 (per-projection quant override), Qwen3-Coder-30B-A3B-Instruct, survey rows.
mod presets58;
// cmdsurvey58 (issue #17): rows 150-185 of the launch-command survey, and the importer's fixes.
mod cmdsurvey58;
// cmdsurvey60 (issue #17): rows 197-212 of the launch-command survey, and the importer's fixes.
mod cmdsurvey60;
// cmdsurvey62 (issue #17): 20 launch commands of 2026; SGLang --mamba-scheduler-strategy, sglang serve
// --model from 0.5.11, human-readable token counts, GQA DCP, explicit async with MTP, capture sizes.
mod cmdsurvey62;
// cmdsurvey63 (issue #17): 20 launch commands of April – September 2026; `stdbuf` in front of the
// engine, SGLang 0.5.14's `--mamba-radix-cache-strategy` and its deprecated alias, engine-args on each import.
mod cmdsurvey63;
// deploys34 (issue #18): the IOG Foundation's multi-GPU RTX 4090 TP files at 1, 4 and 32 req/s (vLLM 0.8.5), left by newdeploys14/15.
mod deploys34;
// args58 (issue #17): list kinds by the engines' parsers, their refusal texts, vLLM's mp executor across boxes.
mod args58;
// mi300x58 (issue #18): AITER's untuned Triton blockscale GEMM for DeepSeek-V3's q_a/kv_a on gfx942 under SGLang <= 0.5.9.
mod mi300x58;
// server58 (issue #18): the RTX PRO 6000 Editions' memory bandwidth and mem_efficiency, applied.
mod server58;
// ncclamd58 (issue #19): NCCL's inter-socket bandwidth by release and CPU generation; the dual-Turin boxes.
mod ncclamd58;
// ttftload58 (issue #18): every TTFT row of throughput.tsv, at any load, against tpsim.
mod ttftload58;
// vllmchunk59 (issue #18): vLLM V1's default token budget by release and GPU, mixed chunked-prefill steps.
mod vllmchunk59;
// vllmfront60 (issue #18): vLLM's closed-loop TTFT on the deplodock rows: bursts vs staggered arrivals (research).
mod vllmfront60;
// families40 (issue #17): MiMo-V2.5-Pro (MiMoV2ForCausalLM, lowered as MiMo-V2-Flash).
mod families40;
// pcielight59 (issue #18 / #19): the light-load TP gap of the IOG RTX 4090 files under vLLM 0.8.5, decomposed.
mod pcielight59;
// b200_59 (issue #18): the B200 per-step gap is SGLang's, not the template's (the Kimi-K2.5 engine pair).
mod b200_59;
// deploys35 (issue #18): the IOG Foundation's 2x H100 PCIe TP 2 files at 4 and 32 req/s (vLLM 0.8.5), left by newdeploys15.
mod deploys35;
// deploys36 (issues #17 / #18): club-3090's Qwen3.6-35B-A3B reports on 2x RTX 5090 TP 2 (vLLM 0.25.1, AutoRound INT4 and NVFP4).
mod deploys36;
// deploys37 (issues #17 / #18): club-3090's Qwen3.6-35B-A3B (2x RTX 3090, vLLM 0.22.0) and Agents-A1 (2x RTX 3090 / 5090, vLLM 0.24.0) single-stream rows.
mod deploys37;
// deploys38 (issues #17 / #18): Visual-Synthesizer's 2x RTX PRO 6000 behind one PCIe switch (MiniMax-M2.7 NVFP4 under SGLang b12x, MiniMax-M2.5 NVFP4 under a vLLM 0.19.1rc1 nightly).
mod deploys38;
// deploys39 (issues #17 / #18): the same box's vLLM 0.19.1rc1 nightly files of Gemma-4-31B, Qwen3.5-27B and Qwen3.5-122B-A10B NVFP4 (TP 2, c 1 / 8 / 32 / 128).
mod deploys39;
// vllmpp59 (issue #17): vLLM async scheduling with pipeline parallelism by release.
mod vllmpp59;
// presets59 (issue #17): presets and an alias for refused launch-command models.
mod presets59;
mod presets61;
mod presets62;
mod presets63;
// mi300x59 (issue #18): SGLang's MI300X kernel shapes and AITER's gfx942 tuned tables; MiniMax-M2's q/k-norm allreduces before 0.5.8.
mod mi300x59;
// ncclhost59 (issue #19): NCCL's CPU nodes are NUMA nodes (hardware.numa_nodes, NPS4 quadrants); Intel's P2P overhead on PHB hops only.
mod ncclhost59;
// sglttft59 (issue #18): SGLang's overlap scheduler streams a prefill's first token after the next launch.
mod sglttft59;
// families41 (issue #17): Qwen3-Omni MoE (the thinker, lowered as Qwen3-VL-MoE with an audio encoder).
mod families41;
// vllmmem60 (issue #17): vLLM 0.10 – 0.13 profile-run gates (MoE workspace, Qwen3-VL video profile, DeepStack buffers).
mod vllmmem60;
// missdig60 (issue #18): the largest one-signed cluster of decode misses (vLLM piecewise decode at TP > 1).
mod missdig60;
// pwdata61 (issue #18): the data hunt for vLLM's PIECEWISE decode at TP > 1 (tests/data/piecewise-pairs.tsv).
mod pwdata61;
mod rocm61;
// nccl60 (issue #19): `tpsim topo` labels pairs by their NUMA nodes (NPS4 quadrants SYS, NPS0 NODE).
mod nccl60;
// w4a16_60 (issue #17): vLLM's AWQ / GPTQ method, kernel, log lines and refusals by release; the int4 load by kernel.
mod w4a16_60;
// moew4a16_62 (issue #17): vLLM's fused Marlin MoE on W4A16 experts, from H20 timings (SM 9.0); the moe_wna16 fallback.
mod moew4a16_62;
// w4a16cost61 (issue #17): the W4A16 kernel's measured streaming factor in the decode step (Marlin on SM 9.0).
mod w4a16cost61;
// sglfront60 (issue #18): SGLang's request path outside the scheduler's steps, one latency a request.
mod sglfront60;
// sglprefill61 (issue #18): the largest one-signed group of SGLang TTFT misses (0.5.7, MI300X, under load): a time a prefill.
mod sglprefill61;
// nontorch61 (issue #17): vLLM non-torch growth by release window (snapshot before the distributed init until 0.10.2) and NCCL transport (SHM rings are host memory).
mod nontorch61;
// vllmttft61 (issue #18): vLLM's request path (microbatch wait, tokenization) and the closed loop's standing queue.
mod vllmttft61;
// mmnorm61 (issue #17): SGLang's MiniMax-M2 q/k-norm kernels by release.
mod ampere62;
mod mmnorm61;
// vllmmem62 (issue #17): what the logs of engine-memory.tsv lines 51, 54 and 23 bound part by part (non-torch growth in 51 and 54, activation in 23).
mod vllmmem62;
// vllmmem63 (issue #17): five more vLLM start-up logs (lines 74-78) and the pre-0.18 Ampere / Ada non-torch base.
mod vllmmem63;
// ttft62 (issue #18): SGLang 0.5.6 on 8× B200, the c 1 TTFT miss decomposed: it follows the prefill's launches, not its layers, and does not queue under load.
mod ttft62;
// ttft63 (issue #18): SGLang 0.5.6's MLA extend runs kv_b_proj twice; what the B200 c 1 prefill launches, read from the wheels.
mod ttft63;
// moeroute62 (issue #17 / #18): each engine's routing kernels for biased grouped top-k.
mod moeroute62;
// h200_63 (issue #18): vLLM 0.8.5 / 0.11.0 untuned fused-MoE tile (GLM-4.6 bf16 8× H200 rows).
mod h200_63;
// b200sg63 (issue #18): SGLang's flashinfer_trtllm MoE runner on B200, its fixed kernels from an nsys profile.
mod b200sg63;
// mi300x63 (issue #18): the DeepSeek-V3.1 8× MI300X SGLang 0.5.7 gap located: it follows the prompt tokens a decode step prefills, and at c 1 the decode context.
mod mi300x63;
// vllmmtp64: vLLM's MTP drafts by target and release (issue #17).
mod vllmmtp64;
// dsv4_64 (issue #17): DeepSeek-V4 under SGLang at a tp the fp8 block does not divide: SGLANG_SHARED_EXPERT_TP1 and the routed experts' MoE method by backend.
mod dsv4_64;
// enginemem64 (issue #17): NCCL 2.27.3's communicator-init device pages (cuMem 2 MiB granules) against lines 54, 76 and 51.
mod enginemem64;
// b200host64 (issue #18): SGLang's bf16 flashinfer_trtllm MoE call on B200, its fixed part from flashinfer pull 4985.
mod b200host64;
// sm120fp4_64 (issue #18): vLLM 0.16-0.19's NVFP4 dense MLP on SM 12.x: FlashInfer's CUTLASS FP4 GEMM walk (flashinfer PR 3026's RTX 5090 table) and scaled_fp4_quant.
mod sm120fp4_64;
// presets64 (issue #17): Qwen's FP8 releases of bundled models (Qwen3-8B/4B, Qwen3-VL-32B, Qwen3-Coder-Next, Qwen3.6-35B-A3B/27B), counts and KV by hand.
mod presets64;
// deploys40 (issue #18): rtx6kpro's Kimi-K2.6 INT4 decode matrix on 8× RTX PRO 6000 (patched vLLM of April 2026, TP 8, DCP 1, no MTP): eighteen out-of-sample rows.
mod deploys40;
// speed64 (issue #8 speed): the serving loop's hot paths (power-of-two page division, decode samples recorded in runs) give the figures the slower code gave.
mod speed64;
// cmdsurvey64 (issue #17): launch-command survey rows 253-272 (2026); a shell prompt, SGLang's --dcp-size.
mod cmdsurvey64;
// hwpresets64 (issue #17 point 4): presets for 8x A100 SXM4 NVSwitch (80/40 GB), 2x/4x H200 NVL bridged, 1x GH200 96 GB.
mod hwpresets64;

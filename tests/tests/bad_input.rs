//! Every class of bad input gives exit code 2 and a message naming the file, the key and what was
//! expected — never a panic (DESIGN.md §2.5). One test per class; each asserts the message.

use crate::common::*;

/// Runs `tpsim run` on a modified baseline and returns stderr after asserting exit code 2.
fn bad(name: &str, from: &str, to: &str) -> String {
    let file = baseline_with(name, from, to);
    let o = tpsim(&["run", &file]);
    assert_eq!(
        o.code, 2,
        "expected exit 2 for {name}; stdout: {}\nstderr: {}",
        o.stdout, o.stderr
    );
    assert!(o.stderr.starts_with("error: "), "{}", o.stderr);
    assert!(
        o.stderr.contains(&file),
        "message must name the file: {}",
        o.stderr
    );
    o.stderr
}

#[test]
fn unknown_top_level_key() {
    let e = bad("unknown-top", "seed = 1", "seed = 1\nsed = 2");
    assert!(e.contains("unknown field `sed`"), "{e}");
    assert!(e.contains(":5:1:"), "line and column of the typo: {e}");
}

#[test]
fn unknown_key_in_a_section() {
    let e = bad("unknown-engine", "tp = 8", "tp_size = 8");
    assert!(
        e.contains("key `engine.tp_size`") && e.contains("unknown field `tp_size`"),
        "{e}"
    );
    assert!(e.contains(":15:1:"), "{e}");
    assert!(e.contains("expected one of"), "{e}");
}

#[test]
fn wrong_type() {
    let e = bad("wrong-type", "tp = 8", "tp = \"eight\"");
    assert!(e.contains("key `engine.tp`") && e.contains("u32"), "{e}");
}

#[test]
fn bad_unit_string() {
    let e = bad(
        "bad-unit",
        "gpus = 8",
        "gpus = 8\n[hardware.params]\nkernel_overhead = \"2 parsecs\"",
    );
    assert!(
        e.contains("key `hardware.params.kernel_overhead`") && e.contains("unknown unit `parsecs`"),
        "{e}"
    );
}

#[test]
fn invalid_toml_syntax() {
    let e = bad("syntax", "tp = 8", "tp = = 8");
    assert!(
        e.contains(":15:6: extra `=`"),
        "line, column and what is wrong: {e}"
    );
}

#[test]
fn tp_must_divide_the_heads() {
    // Kimi-K2.5 has 64 attention heads: tp = 3 cannot shard them.
    let e = bad("tp3", "tp = 8", "tp = 3");
    assert!(e.contains("key `engine.tp`") && e.contains("64"), "{e}");
    assert!(e.contains(":15: key `engine.tp`"), "line of engine.tp: {e}");
}

#[test]
fn tp_larger_than_the_box() {
    let e = bad("tp16", "tp = 8", "tp = 16");
    assert!(e.contains("key `engine.tp`") && e.contains("8 GPUs"), "{e}");
}

#[test]
fn gpu_count_must_match_topology() {
    let e = bad("gpus", "gpus = 8", "gpus = 4");
    assert!(
        e.contains("key `hardware.gpus`") && e.contains("topology lists 8"),
        "{e}"
    );
}

#[test]
fn fraction_outside_0_1() {
    let e = bad("frac", "mem_fraction_static = 0.88", "mem_fraction_static = 1.5");
    assert!(
        e.contains("key `engine.mem_fraction_static`") && e.contains("outside (0, 1]"),
        "{e}"
    );
    let e = bad("frac0", "mem_fraction_static = 0.88", "mem_fraction_static = 0.0");
    assert!(e.contains("outside (0, 1]"), "{e}");
}

#[test]
fn efficiency_outside_0_1() {
    let e = bad(
        "eff",
        "gpus = 8",
        "gpus = 8\n[hardware.params]\nmem_efficiency = 1.3",
    );
    assert!(
        e.contains("key `hardware.params.mem_efficiency`") && e.contains("outside (0, 1]"),
        "{e}"
    );
}

#[test]
fn unknown_architecture_in_a_config_file_names_model_config_and_the_supported_ones() {
    // A config.json given by path (`[model] config = …`) with an architecture tpsim does not lower:
    // the error names that key (not `model.preset`) and lists every supported class.
    let file = baseline_with("arch", "preset = \"kimi-k2.5\"", "config = \"config.json\"");
    let dir = std::path::Path::new(&file).parent().unwrap().to_path_buf();
    std::fs::write(
        dir.join("config.json"),
        r#"{"architectures": ["FooForCausalLM"], "hidden_size": 1}"#,
    )
    .unwrap();
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    let e = o.stderr;
    assert!(e.contains("key `model.config`"), "{e}");
    assert!(e.contains("unsupported architecture `FooForCausalLM`"), "{e}");
    for arch in [
        "LlamaForCausalLM",
        "DeepseekV3ForCausalLM",
        "GptOssForCausalLM",
        "Qwen3_5MoeForCausalLM",
    ] {
        assert!(e.contains(arch), "{arch} missing: {e}");
    }
}

#[test]
fn unknown_preset_lists_the_known_ones() {
    let e = bad("preset", "preset = \"kimi-k2.5\"", "preset = \"kimi-k9\"");
    assert!(
        e.contains("key `model.preset`") && e.contains("kimi-k2.5-eagle3"),
        "{e}"
    );
    let e = bad(
        "hw-preset",
        "preset = \"rtx-pro-6000-8x-dual-turin-direct\"",
        "preset = \"dgx\"",
    );
    assert!(
        e.contains("key `hardware.preset`") && e.contains("rtx-pro-6000-8x-2switch-trpro"),
        "{e}"
    );
}

#[test]
fn bad_nccl_environment() {
    let e = bad(
        "env",
        "page_size = 1",
        "page_size = 1\n[engine.env]\nNCCL_P2P_LEVEL = \"FAST\"",
    );
    assert!(
        e.contains("key `engine.env.NCCL_P2P_LEVEL`") && e.contains("PXB"),
        "{e}"
    );
    let e = bad(
        "env2",
        "page_size = 1",
        "page_size = 1\n[engine.env]\nNCCL_BOGUS = \"1\"",
    );
    assert!(
        e.contains("key `engine.env.NCCL_BOGUS`") && e.contains("unknown variable"),
        "{e}"
    );
}

#[test]
fn acceptance_out_of_range() {
    let e = bad(
        "alpha",
        "acceptance = { alpha = 0.82 }",
        "acceptance = { alpha = 1.82 }",
    );
    assert!(
        e.contains("key `speculative.acceptance`") && e.contains("outside [0, 1]"),
        "{e}"
    );
}

#[test]
fn draft_tokens_without_num_steps_fail_as_sglangs_assertion() {
    // (A chain's num_draft_tokens ≠ num_steps + 1 is adjusted with SGLang's warning: engine_like.rs.)
    let e = bad("ndt", "num_steps = 3\n", "");
    assert!(
        e.contains("key `speculative.num_steps`") && e.contains("AssertionError"),
        "{e}"
    );
}

#[test]
fn observed_values_must_be_consistent() {
    let e = bad(
        "obs",
        "free_after_weights_gib = 21.71",
        "free_after_weights_gib = 99.0",
    );
    assert!(
        e.contains("key `engine.observed.free_after_weights_gib`") && e.contains("exceeds"),
        "{e}"
    );
}

#[test]
fn bad_topology_path() {
    let e = bad(
        "topo",
        "gpus = 8",
        "[hardware.topology]\ngpus = [\"socket0/root0\", \"rack1/root1\", \"socket0/root2\", \"socket0/root3\", \"socket1/root4\", \"socket1/root5\", \"socket1/root6\", \"socket1/root7\"]",
    );
    assert!(
        e.contains("key `hardware.topology.gpus`") && e.contains("rack1"),
        "{e}"
    );
}

#[test]
fn unsupported_architecture_in_a_config() {
    let dir = scratch("arch");
    std::fs::write(
        dir.join("config.json"),
        r#"{"architectures": ["FooForCausalLM"], "hidden_size": 8}"#,
    )
    .unwrap();
    let text = std::fs::read_to_string(scenario("seed/baseline.toml"))
        .unwrap()
        .replacen("preset = \"kimi-k2.5\"", "config = \"config.json\"", 1);
    let file = dir.join("s.toml");
    std::fs::write(&file, text).unwrap();
    let o = tpsim(&["run", &file.display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("FooForCausalLM") && o.stderr.contains("DeepseekV3ForCausalLM"),
        "{}",
        o.stderr
    );
}

#[test]
fn missing_file_and_bad_arguments() {
    let o = tpsim(&["run", "/nonexistent/scenario.toml"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("/nonexistent/scenario.toml") && o.stderr.contains("cannot read"),
        "{}",
        o.stderr
    );
    let o = tpsim(&["run"]);
    assert_eq!(o.code, 2, "missing argument is a usage error");
    assert!(o.stderr.contains("SCENARIO"), "{}", o.stderr);
    let o = tpsim(&["frobnicate"]);
    assert_eq!(o.code, 2);
    let o = tpsim(&["--help"]);
    assert_eq!(o.code, 0);
    assert!(
        o.stdout.contains("run") && o.stdout.contains("validate"),
        "{}",
        o.stdout
    );
}

#[test]
fn garbage_never_panics() {
    // A small deterministic fuzz of the scenario parser: truncations and byte flips of the baseline
    // must each give exit 0 or 2, never a panic.
    let text = std::fs::read_to_string(scenario("seed/baseline.toml")).unwrap();
    let dir = scratch("fuzz");
    let bytes = text.as_bytes();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in 0..60 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut b = bytes.to_vec();
        let pos = (state % b.len() as u64) as usize;
        if i % 2 == 0 {
            b.truncate(pos);
        } else {
            b[pos] = b"=[]\"0.-x#\n"[(state >> 32) as usize % 10];
        }
        let file = dir.join(format!("f{i}.toml"));
        std::fs::write(&file, &b).unwrap();
        let o = tpsim(&["validate", &file.display().to_string()]);
        assert!(
            o.code == 0 || o.code == 2,
            "case {i}: exit {} {}",
            o.code,
            o.stderr
        );
    }
}

#[test]
fn zero_token_cap_is_rejected() {
    let e = bad("cap0", "page_size = 1", "page_size = 1\nmax_total_tokens = 0");
    assert!(
        e.contains("key `engine.max_total_tokens`") && e.contains("at least 1 token"),
        "{e}"
    );
}

#[test]
fn memory_keys_of_this_issue() {
    // engine.context_length 0, a negative observed graph memory, an unknown era name, a version that
    // is not a version: each names its key.
    let e = bad("ctx0", "page_size = 1", "page_size = 1\ncontext_length = 0");
    assert!(e.contains("engine.context_length"), "{e}");
    let e = bad(
        "graph-neg",
        "free_after_weights_gib = 21.71",
        "free_after_weights_gib = 21.71\ncuda_graph_gib = -1.5",
    );
    assert!(e.contains("engine.observed.cuda_graph_gib"), "{e}");
    let e = bad(
        "era-typo",
        "page_size = 1",
        "page_size = 1\n[engine.costs]\nera = \"spring-2027\"",
    );
    assert!(e.contains("engine.costs.era") && e.contains("spring-2026"), "{e}");
    let e = bad(
        "version-junk",
        "name = \"sglang\"",
        "name = \"sglang\"\nversion = \"main\"",
    );
    assert!(e.contains("engine.version"), "{e}");
    let e = bad(
        "mrr-string",
        "page_size = 1",
        "page_size = 1\nmax_running_requests = \"many\"",
    );
    assert!(e.contains("max_running_requests"), "{e}");
}

#[test]
fn fp8_expert_shard_off_the_block_grid_needs_expert_parallelism() {
    // MiniMax-M2.5 FP8 at tp 8 without EP: 1536 / 8 = 192 rows per rank is not a whole number of
    // 128-row scale blocks (SGLang refuses it); with ep_size = 8 the same file is valid.
    let text = std::fs::read_to_string(scenario("validation/minimax-m2.5-fp8-ep-sglang-tp8.toml"))
        .expect("scenario");
    assert_eq!(text.matches("ep_size = 8\n").count(), 1);
    let p = scratch("fp8-tp8-no-ep").join("scenario.toml");
    std::fs::write(&p, text.replacen("ep_size = 8\n", "", 1)).expect("write");
    let file = p.display().to_string();
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    let e = o.stderr;
    assert!(e.contains(&file) && e.contains("engine.tp"), "{e}");
    assert!(e.contains("1536 / tp 8 = 192") && e.contains("128"), "{e}");
    assert!(
        e.contains("ep_size = tp"),
        "the message points at expert parallelism: {e}"
    );
}

#[test]
fn collapse_and_simple_step_keys_of_issue_3() {
    // `collapse_reads` is a switch: a string is refused, naming the key.
    let e = bad(
        "collapse-reads",
        "gpus = 8",
        "gpus = 8\n[hardware.params]\ncollapse_reads = \"yes\"",
    );
    assert!(
        e.contains("key `hardware.params.collapse_reads`") && e.contains("expected a boolean"),
        "{e}"
    );
    // `nccl_simple_step_latency` is a duration.
    let e = bad(
        "simple-step",
        "gpus = 8",
        "gpus = 8\n[hardware.params]\nnccl_simple_step_latency = \"fast\"",
    );
    assert!(
        e.contains("key `hardware.params.nccl_simple_step_latency`"),
        "{e}"
    );
    // A hardware file written before the key existed: missing, named, exit 2. The V100 preset on a
    // copy of its templates whose shared constants lack the key.
    let dir = scratch("old-hardware");
    let host = std::fs::read_to_string(scenario("hardware/templates/pcie-nccl-host.toml")).unwrap();
    // Such a file has no `[fitted]` tables either (they came later, issue #14).
    let host = host.split("\n# Constants of [params] fitted").next().unwrap();
    let old: String = host
        .lines()
        .filter(|l| !l.starts_with("nccl_simple_step_latency"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(dir.join("old-host.toml"), old).unwrap();
    let gpu = std::fs::read_to_string(scenario("hardware/templates/v100-sxm2.toml")).unwrap();
    let gpu = gpu.replacen("extends = \"pcie-nccl-host\"", "extends = \"old-host.toml\"", 1);
    std::fs::write(dir.join("gpu.toml"), gpu).unwrap();
    let text = std::fs::read_to_string(scenario("hardware/v100-4x-plx.toml")).unwrap();
    assert_eq!(text.matches("extends = \"v100-sxm2\"").count(), 1);
    let p = dir.join("v100.toml");
    std::fs::write(
        &p,
        text.replacen("extends = \"v100-sxm2\"", "extends = \"gpu.toml\"", 1),
    )
    .unwrap();
    let o = tpsim(&[
        "collective",
        "--hardware",
        &p.display().to_string(),
        "--sizes",
        "4K",
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr
            .contains("key `hardware.params.nccl_simple_step_latency`")
            && o.stderr.contains("missing"),
        "{}",
        o.stderr
    );
}

// vLLM speculative decoding (issue #17): its keys.
#[test]
fn num_speculative_tokens_is_a_vllm_key() {
    let e = bad("nst", "num_steps = 3\n", "num_speculative_tokens = 3\n");
    assert!(
        e.contains("key `speculative.num_speculative_tokens`") && e.contains("with SGLang use num_steps"),
        "{e}"
    );
}

#[test]
fn vllm_speculation_refuses_an_eagle3_draft_on_a_deepseek_target() {
    // The baseline's Kimi-K2.5 (a deepseek_v3 text model) under vLLM: 0.11.0's `_verify_args` text.
    let e = bad(
        "vllm-kimi",
        "name = \"sglang\"\ntp = 8\nmem_fraction_static = 0.88",
        "name = \"vllm\"\ntp = 8",
    );
    assert!(
        e.contains("key `speculative.algorithm`")
            && e.contains("Eagle3 is only supported for ['llama', 'qwen', 'minicpm', 'gpt_oss'] models")
            && e.contains("model_type='deepseek_v3'"),
        "{e}"
    );
}

#[test]
fn draft_step_overhead_must_be_a_duration() {
    let e = bad(
        "dso",
        "page_size = 1\n",
        "page_size = 1\n[engine.costs]\ndraft_step_overhead = \"fast\"\n",
    );
    assert!(e.contains("engine.costs.draft_step_overhead"), "{e}");
}

#[test]
fn draft_tensor_parallel_size_is_a_vllm_key() {
    let e = bad(
        "dtp",
        "num_steps = 3\n",
        "num_steps = 3\ndraft_tensor_parallel_size = 8\n",
    );
    assert!(
        e.contains("key `speculative.draft_tensor_parallel_size`") && e.contains("a vLLM setting"),
        "{e}"
    );
}

// Issue #17 point 5 (vLLM start-up memory): the new keys refuse bad values, naming the key.
#[test]
fn vllm_startup_keys() {
    // torch's total above nvidia-smi's (the seed's RTX PRO 6000: 97,887 MiB = 95.59 GiB), and NaN.
    let e = bad(
        "torch-total-big",
        "gpus = 8",
        "gpus = 8\n[hardware.gpu]\ntorch_total_gib = 96.5",
    );
    assert!(
        e.contains("hardware.gpu.torch_total_gib") && e.contains("95.59"),
        "{e}"
    );
    let e = bad(
        "torch-total-nan",
        "gpus = 8",
        "gpus = 8\n[hardware.gpu]\ntorch_total_gib = nan",
    );
    assert!(e.contains("hardware.gpu.torch_total_gib"), "{e}");
    // vLLM's batch-shape flags under SGLang are refused, and 0 under vLLM.
    let e = bad(
        "mnbt-sglang",
        "page_size = 1",
        "page_size = 1\nmax_num_seqs = 256",
    );
    assert!(
        e.contains("engine.max_num_seqs") && e.contains("a vLLM setting"),
        "{e}"
    );
    let vllm = "name = \"vllm\"\ngpu_memory_utilization = 0.9";
    let seed_vllm = |extra: &str| {
        // The seed without speculation (refused under vLLM) and with vLLM's knobs.
        let text = std::fs::read_to_string(scenario("seed/baseline.toml")).unwrap();
        let text = text
            .replace("name = \"sglang\"", vllm)
            .replace("mem_fraction_static = 0.88", "")
            .replace("page_size = 1", &format!("page_size = 16\n{extra}"));
        let cut = text.find("[speculative]").unwrap();
        let end = text[cut..].find("\n[").map_or(text.len(), |i| cut + i + 1);
        let text = format!("{}{}", &text[..cut], &text[end..]);
        let p = scratch("vllm-startup-bad").join(format!("{}.toml", extra.len()));
        std::fs::write(&p, text).unwrap();
        let o = tpsim(&["run", &p.display().to_string()]);
        assert_eq!(o.code, 2, "{extra}: {}", o.stderr);
        o.stderr
    };
    let e = seed_vllm("max_num_batched_tokens = 0");
    assert!(
        e.contains("engine.max_num_batched_tokens") && e.contains("≥ 1"),
        "{e}"
    );
    let e = seed_vllm("[engine.costs]\nvllm_sampler_bytes_per_logit = 1e9");
    assert!(e.contains("engine.costs.vllm_sampler_bytes_per_logit"), "{e}");
    let e = seed_vllm("[engine.costs]\nvllm_sampler_bytes_per_logit = nan");
    assert!(e.contains("engine.costs.vllm_sampler_bytes_per_logit"), "{e}");
}

// Issue #17 point 5: `enable_piecewise_cuda_graph` is an SGLang flag of the late-2025+ rules.
#[test]
fn piecewise_flag_refused_outside_its_rules() {
    let e = bad(
        "piecewise-string",
        "page_size = 1",
        "page_size = 1\nenable_piecewise_cuda_graph = \"yes\"",
    );
    assert!(e.contains("engine.enable_piecewise_cuda_graph"), "{e}");
    // The seed sets mem_fraction_static, so the flag's reserve is not computed; without it, under the
    // early-2025 rules, tpsim refuses the flag. (release52: named as the era, since the seed's Kimi-K2.5
    // cannot run under a 0.4 release, `scenario::first_release`.)
    let e = bad(
        "piecewise-early",
        "mem_fraction_static = 0.88",
        "enable_piecewise_cuda_graph = true\ncosts = { era = \"early-2025\" } #",
    );
    assert!(
        e.contains("engine.enable_piecewise_cuda_graph") && e.contains("0.5.9"),
        "{e}"
    );
}

// Issue #17 (3): collective options — each new key refused with the key and what was expected.
#[test]
fn collective_option_keys_of_issue_17() {
    let cases: [(&str, &str, &str); 11] = [
        (
            "tuner-file",
            "[engine.nccl_tuner]\nfile = \"missing-tuner.csv\"",
            "key `engine.nccl_tuner.file`: cannot read",
        ),
        (
            "pcie-ipc",
            "[engine.env]\nSGLANG_ENABLE_PCIE_IPC_ALLREDUCE = \"maybe\"",
            "not a valid boolean value",
        ),
        (
            "algo-list",
            "[engine.env]\nNCCL_ALGO = \"Ring,Bogus\"",
            "Unrecognized element token \"Bogus\"",
        ),
        (
            "algo-prefix",
            "[engine.env]\nNCCL_ALGO = \"alltoall:ring\"",
            "Unrecognized prefix token",
        ),
        (
            "proto-order",
            "[engine.env]\nNCCL_PROTO = \"allreduce:LL;Simple\"",
            "must have a prefix",
        ),
        (
            "nthreads",
            "[engine.env]\nNCCL_NTHREADS = \"many\"",
            "engine.env.NCCL_NTHREADS",
        ),
        (
            "buffsize",
            "[engine.env]\nNCCL_BUFFSIZE = \"4\"",
            "byte count ≥ 8",
        ),
        (
            "graph",
            "[engine.env]\nNCCL_GRAPH_FILE = \"missing-graph.xml\"",
            "engine.env.NCCL_GRAPH_FILE",
        ),
        ("version", "nccl_version = \"2.20.5\"", "2.27.5"),
        (
            "maxsize",
            "custom_allreduce_max_size = \"100B\"",
            "multiple of 16",
        ),
        (
            "tuner",
            "[engine.nccl_tuner]\nrows = [\"allreduce,0,10,ring,ll64,1,1,-1\"]",
            "row 1",
        ),
    ];
    for (name, add, want) in cases {
        let e = bad(name, "page_size = 1", &format!("page_size = 1\n{add}"));
        assert!(e.contains(want), "{name}: {e}");
    }
}

/// Issue #17: SGLang DP attention's keys (`engine.enable_dp_attention`, `engine.dp_size`).
#[test]
fn dp_attention_keys_of_issue_17() {
    let on = |dp: &str| format!("page_size = 1\nenable_dp_attention = true\ndp_size = {dp}");
    // SGLang's `assert self.tp_size % self.dp_size == 0`.
    let e = bad("dp3", "page_size = 1", &on("3"));
    assert!(
        e.contains("engine.dp_size") && e.contains("tp_size % dp_size == 0"),
        "{e}"
    );
    let e = bad("dp0", "page_size = 1", &on("0"));
    assert!(e.contains("engine.dp_size") && e.contains("≥ 1"), "{e}");
    // Issue #17 (dp): dp_size without DP attention is replicas; two tp-8 replicas need 16 GPUs.
    let e = bad("dp-replicas", "page_size = 1", "page_size = 1\ndp_size = 2");
    assert!(
        e.contains("engine.dp_size") && e.contains("dp × tp × pp = 16 GPUs, but the box has 8"),
        "{e}"
    );
    let e = bad(
        "dp-type",
        "page_size = 1",
        "page_size = 1\nenable_dp_attention = \"yes\"",
    );
    assert!(e.contains("enable_dp_attention"), "{e}");
    // A model whose SGLang layer has no LayerCommunicator (Llama): refused, naming the key.
    let text =
        std::fs::read_to_string(scenario("examples/deepseek-v3-dp-attention-h200x8.toml")).expect("example");
    let p = scratch("dp-llama-70b").join("scenario.toml");
    std::fs::write(&p, text.replacen("\"deepseek-v3\"", "\"llama-3.1-70b\"", 1)).expect("write");
    let o = tpsim(&["run", &p.display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("engine.enable_dp_attention") && o.stderr.contains("LayerCommunicator"),
        "{}",
        o.stderr
    );
    let text = std::fs::read_to_string(scenario("examples/llama-3.1-8b-h100.toml")).expect("example");
    let p = scratch("dp-llama-8b").join("scenario.toml");
    std::fs::write(
        &p,
        text.replacen("[engine]", "[engine]\nenable_dp_attention = true\ndp_size = 1", 1),
    )
    .expect("write");
    // dp_size 1: SGLang turns DP attention off, so even Llama starts.
    assert_eq!(tpsim(&["validate", &p.display().to_string()]).code, 0);
}

/// Issue #17: `engine.pp_size`.
#[test]
fn pp_size_key_of_issue_17() {
    let e = bad("pp0", "page_size = 1", "page_size = 1\npp_size = 0");
    assert!(e.contains("engine.pp_size") && e.contains("≥ 1"), "{e}");
    let e = bad("pp-gpus", "tp = 8", "tp = 4\npp_size = 4");
    assert!(e.contains("engine.pp_size") && e.contains("tp × pp ≤ 8"), "{e}");
    // The baseline speculates: EAGLE with pipeline stages is not modelled.
    let e = bad("pp-spec", "tp = 8", "tp = 4\npp_size = 2");
    assert!(e.contains("engine.pp_size") && e.contains("speculative"), "{e}");
}

/// Issue #17: `engine.dcp_size` (vLLM's `--decode-context-parallel-size`).
#[test]
fn dcp_size_key_of_issue_17() {
    let e = bad("dcp-sglang", "page_size = 1", "page_size = 1\ndcp_size = 2");
    assert!(e.contains("engine.dcp_size") && e.contains("vLLM setting"), "{e}");
    let text =
        std::fs::read_to_string(scenario("examples/deepseek-v3-dcp8-vllm-h200x8.toml")).expect("example");
    let run = |name: &str, t: String| {
        let p = scratch(name).join("scenario.toml");
        std::fs::write(&p, t).expect("write");
        let o = tpsim(&["run", &p.display().to_string()]);
        assert_eq!(o.code, 2, "{}", o.stderr);
        o.stderr
    };
    let e = run("dcp3", text.replacen("dcp_size = 8", "dcp_size = 3", 1));
    assert!(e.contains("tp_size=8 must be divisible bydcp_size=3."), "{e}");
    let e = run("dcp0", text.replacen("dcp_size = 8", "dcp_size = 0", 1));
    assert!(e.contains("engine.dcp_size") && e.contains("≥ 1"), "{e}");
    // cmdsurvey62: vLLM 0.11.0 refuses DCP on a GQA model; from 0.11.1 FlashAttention returns the
    // softmax lse for decode and vLLM runs it, which tpsim does not model (the example names no
    // release: vLLM 0.19.0).
    let gqa = text.replacen("\"deepseek-v3\"", "\"llama-3.1-70b\"", 1);
    let e = run(
        "dcp-gqa",
        gqa.replacen("name = \"vllm\"", "name = \"vllm\"\nversion = \"0.11.0\"", 1),
    );
    assert!(e.contains("does not return the softmax lse for decode"), "{e}");
    let e = run("dcp-gqa-0.19", gqa);
    assert!(
        e.contains("DCP on a model without MLA is not modelled: vLLM 0.19.0 runs it"),
        "{e}"
    );
}

// Issue #17 point 4: accelerators (gpu.vendor, [hardware.xgmi]) and multi-node ([hardware.cluster]).
#[test]
fn accelerator_and_cluster_keys() {
    let amd = "gpus = 8\n[hardware.gpu]\nvendor = \"amd\"\n";
    for (name, to, key, needle) in [
        (
            "vendor",
            "gpus = 8\n[hardware.gpu]\nvendor = \"intel\"".to_string(),
            "hardware.gpu.vendor",
            "`intel`: expected \"nvidia\" or \"amd\"",
        ),
        (
            "xgmi-on-nvidia",
            "gpus = 8\n[hardware.xgmi]\nlinks = 7\nlink_bw = \"48GB/s\"\nlatency = \"0.6us\"".into(),
            "hardware.xgmi",
            "xGMI is AMD's Infinity Fabric: expected gpu.vendor = \"amd\"",
        ),
        (
            "xgmi-links",
            format!("{amd}[hardware.xgmi]\nlinks = 3\nlink_bw = \"48GB/s\"\nlatency = \"0.6us\""),
            "hardware.xgmi.links",
            "3 links per GPU cannot join 8 GPUs fully: expected at least 7",
        ),
        (
            "xgmi-missing-bw",
            format!("{amd}[hardware.xgmi]\nlinks = 7\nlatency = \"0.6us\""),
            "hardware.xgmi.link_bw",
            "missing",
        ),
        (
            "nic",
            "gpus = 8\n[hardware.cluster]\nnodes = 2\nnic = \"token-ring\"".into(),
            "hardware.cluster.nic",
            "unknown NIC preset `token-ring`; expected one of: connectx-6-roce-200",
        ),
        (
            "nics-per-node",
            "gpus = 8\n[hardware.cluster]\nnodes = 2\nnic = \"connectx-7-ib-ndr400\"\nnics_per_node = 0".into(),
            "hardware.cluster.nics_per_node",
            "0: expected 1 to 8 (one per GPU at most)",
        ),
        (
            "nodes",
            "gpus = 8\n[hardware.cluster]\nnodes = 0\nnic = \"connectx-7-ib-ndr400\"".into(),
            "hardware.cluster.nodes",
            "0: expected 1 to 1024 boxes",
        ),
        (
            "domain",
            "gpus = 8\n[hardware.cluster]\nnodes = 2\nnic = \"connectx-7-ib-ndr400\"\nnvlink_domain_gpus = 72"
                .into(),
            "hardware.cluster.nvlink_domain_gpus",
            "an NVLink domain needs NVLink: expected gpu.nvlink = true",
        ),
        (
            "nic-bw",
            "gpus = 8\n[hardware.cluster]\nnodes = 2\nnic_latency = \"2us\"".into(),
            "hardware.cluster.nic_bw",
            "missing",
        ),
        (
            "cluster-typo",
            "gpus = 8\n[hardware.cluster]\nnode = 2".into(),
            "hardware.cluster.node",
            "unknown field `node`",
        ),
    ] {
        let e = bad(&format!("accel-{name}"), "gpus = 8", &to);
        assert!(e.contains(&format!("key `{key}`")), "{name}: {e}");
        assert!(e.contains(needle), "{name}: {e}");
    }
}

// Issue #17 (vrows): `engine.dtype` takes the engines' `--dtype` names only, and vLLM refuses bfloat16
// before compute capability 8.0 (vLLM 0.11.0 `platforms/cuda.py` `check_if_supports_dtype`).
#[test]
fn engine_dtype_refused_outside_the_engines_names() {
    let e = bad("dtype-fp8", "page_size = 1", "page_size = 1\ndtype = \"fp8\"");
    assert!(
        e.contains("engine.dtype") && e.contains("Unknown dtype") && e.contains("bfloat16"),
        "{e}"
    );
    let e = bad("dtype-number", "page_size = 1", "page_size = 1\ndtype = 16");
    assert!(e.contains("dtype"), "{e}");
}

/// Issue #17 point 4: pipeline stages across the boxes of a cluster must not straddle a box (tp 4 ×
/// pp 2 = 8 GPUs on boxes of 6: stage 1 would be GPUs 4-7, two on each box).
#[test]
fn pp_size_across_boxes_of_issue_17() {
    let p = scratch("pp-straddle").join("scenario.toml");
    std::fs::write(
        &p,
        "[hardware]\npreset = \"rtx-4090-6x-tinybox\"\n[hardware.cluster]\nnodes = 2\nnic = \"connectx-7-roce-400\"\n\
         [model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\ntp = 4\npp_size = 2\n\
         [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n",
    )
    .expect("write");
    let o = tpsim(&["validate", &p.display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("key `engine.pp_size`")
            && o.stderr.contains("spans 2 boxes of 6 GPUs")
            && o.stderr.contains("straddle"),
        "{}",
        o.stderr
    );
}

// Issue #18 (load): every new [workload] key and [slo].
#[test]
fn workload_load_keys_of_issue_18() {
    let w = "concurrency = 1\nprompt_len = 1024\noutput_len = 1024";
    for (name, to, key, what) in [
        (
            "rate-neg",
            "concurrency = 1\nrequest_rate = -1.0",
            "workload.request_rate",
            "expected requests per second > 0",
        ),
        (
            "rate-nan",
            "concurrency = 1\nrequest_rate = nan",
            "workload.request_rate",
            "expected requests per second > 0",
        ),
        (
            "rate-slow",
            "concurrency = 1\nrequest_rate = 0.0000001",
            "workload.request_rate",
            "would arrive over more than",
        ),
        (
            "burst-alone",
            "concurrency = 1\nburstiness = 2.0",
            "workload.burstiness",
            "set workload.request_rate too",
        ),
        (
            "burst-zero",
            "concurrency = 1\nrequest_rate = 1.0\nburstiness = 0.0",
            "workload.burstiness",
            "expected a gamma shape",
        ),
        (
            "random-ratio",
            "concurrency = 1\nprompt_len = { random = 100, range_ratio = 1.5 }\noutput_len = 8",
            "workload.prompt_len.range_ratio",
            "expected a range ratio from 0 to 1",
        ),
        (
            "random-zero",
            "concurrency = 1\nprompt_len = 8\noutput_len = { random = 0, range_ratio = 0.5 }",
            "workload.output_len",
            "random: expected at least 1 token",
        ),
        (
            "hist-missing",
            "concurrency = 1\nprompt_len = { histogram = \"no-such.tsv\" }\noutput_len = 8",
            "workload.prompt_len",
            "cannot read",
        ),
        (
            "trace-missing",
            "concurrency = 1\ntrace = \"no-such.jsonl\"",
            "workload.trace",
            "cannot read",
        ),
        (
            "gsp-zero",
            "[workload.shared_prefix]\nnum_groups = 0",
            "workload.shared_prefix.num_groups",
            "expected at least 1",
        ),
        (
            "gsp-ratio",
            "[workload.shared_prefix]\nrange_ratio = -0.5",
            "workload.shared_prefix.range_ratio",
            "expected a range ratio",
        ),
        (
            "gsp-and-len",
            "prompt_len = 64\n[workload.shared_prefix]\nnum_groups = 2",
            "workload.prompt_len",
            "shared_prefix sets the lengths",
        ),
        (
            "gsp-count",
            "num_requests = 5\n[workload.shared_prefix]\nnum_groups = 2\nprompts_per_group = 2",
            "workload.num_requests",
            "num_groups × prompts_per_group = 4",
        ),
        // Issue #18 (prefillmix): a warm prefix cache needs a token count and plain prompts.
        (
            "cached-zero",
            "concurrency = 1\ncached_prompt_len = 0",
            "workload.cached_prompt_len",
            "expected at least 1 token",
        ),
        (
            "cached-gsp",
            "cached_prompt_len = 64\n[workload.shared_prefix]\nnum_groups = 2",
            "workload.cached_prompt_len",
            "carry their own prefixes",
        ),
    ] {
        let e = bad(name, w, to);
        assert!(
            e.contains(&format!("key `{key}`")) && e.contains(what),
            "{name}: {e}"
        );
    }
    for (name, to, key, what) in [
        (
            "slo-neg",
            "[slo]\nttft_ms = -1.0",
            "slo.ttft_ms",
            "expected milliseconds > 0",
        ),
        (
            "slo-inf",
            "[slo]\ntpot_ms = inf",
            "slo.tpot_ms",
            "expected milliseconds > 0",
        ),
        (
            "slo-e2e",
            "[slo]\ne2e_ms = 0.0",
            "slo.e2e_ms",
            "expected milliseconds > 0",
        ),
        (
            "slo-pct",
            "[slo]\nttft_ms = 100.0\npercentile = 0.0",
            "slo.percentile",
            "expected a percentile in (0, 100]",
        ),
        (
            "slo-empty",
            "[slo]\npercentile = 90.0",
            "slo",
            "expected at least one of ttft_ms",
        ),
    ] {
        let e = bad(name, "output_len = 1024", &format!("output_len = 1024\n{to}"));
        assert!(
            e.contains(&format!("key `{key}`")) && e.contains(what),
            "{name}: {e}"
        );
    }
    // A histogram line that is not `min max weight`: the message names the file and line.
    let d = scratch("hist-bad");
    std::fs::write(
        d.join("h.tsv"),
        "min_tokens\tmax_tokens\tweight\n1\t10\t5\n20\tten\t1\n",
    )
    .unwrap();
    let base = std::fs::read_to_string(scenario("seed/baseline.toml")).unwrap();
    let p = d.join("s.toml");
    let text = base.replacen("prompt_len = 1024", "prompt_len = { histogram = \"h.tsv\" }", 1);
    std::fs::write(&p, text).unwrap();
    let o = tpsim(&["run", p.to_str().unwrap()]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("h.tsv:3: `20\tten\t1`: expected `min_tokens max_tokens weight`"),
        "{}",
        o.stderr
    );
}

/// Issue #19 point 6: a profile's intervals (both ends, finite, around the value, in the
/// parameter's range), `[correlation]` and `[provenance.range]`: exit 2 naming the profile's key.
#[test]
fn profile_interval_keys_of_issue_19() {
    let profile = "[provenance]\ntool = \"hand\"\n\n[params.kernel_overhead]\nvalue = 6.5556\nci_low = 3.71747\n\
                   ci_high = 11.5605\nunit = \"us\"\nsource = \"test\"\n";
    let check = |name: &str, text: String, key: &str, what: &str| {
        let file = baseline_with(name, "gpus = 8\n", "gpus = 8\nprofile = \"box.toml\"\n");
        std::fs::write(
            std::path::Path::new(&file).parent().unwrap().join("box.toml"),
            text,
        )
        .unwrap();
        let o = tpsim(&["run", &file]);
        assert_eq!(o.code, 2, "{name}: {}", o.stdout);
        assert!(
            o.stderr.contains("box.toml") && o.stderr.contains(key) && o.stderr.contains(what),
            "{name}: {}",
            o.stderr
        );
    };
    check(
        "ci-nan",
        profile.replace("ci_high = 11.5605", "ci_high = nan"),
        "params.kernel_overhead.ci_high",
        "must be finite and contain the value",
    );
    check(
        "ci-inverted",
        profile
            .replace("ci_low = 3.71747", "ci_low = 11.5605")
            .replace("ci_high = 11.5605\n", "ci_high = 3.71747\n"),
        "params.kernel_overhead.ci_low",
        "must be finite and contain the value 6.5556",
    );
    check(
        "ci-half",
        profile.replace("ci_high = 11.5605\n", ""),
        "params.kernel_overhead.ci_high",
        "both or neither",
    );
    check(
        "ci-negative",
        profile.replace("ci_low = 3.71747", "ci_low = -1.0"),
        "params.kernel_overhead.ci_low",
        "a duration ≥ 0 µs",
    );
    check(
        "corr-unknown",
        format!("{profile}\n[correlation]\nparams = [\"mem_efficiency\"]\nmatrix = [[1.0]]\n"),
        "correlation.params",
        "parameters of this profile that have an interval",
    );
    check(
        "corr-diagonal",
        format!("{profile}\n[correlation]\nparams = [\"kernel_overhead\"]\nmatrix = [[0.5]]\n"),
        "correlation.matrix",
        "expected 1",
    );
    check(
        "range-inverted",
        profile.replace(
            "[params.kernel_overhead]",
            "[provenance.range]\ntp = [8, 2]\n\n[params.kernel_overhead]",
        ),
        "provenance.range.tp",
        "low ≤ high",
    );
}

/// Issue #17 point 4: vLLM's QuickReduce variables — a level vLLM's `env_with_choices` rejects, and a
/// max size that is no integer (vLLM's `int()`).
#[test]
fn bad_quick_reduce_variables() {
    let e = bad(
        "qr-level",
        "page_size = 1",
        "page_size = 1\n[engine.env]\nVLLM_ROCM_QUICK_REDUCE_QUANTIZATION = \"Q4\"",
    );
    assert!(
        e.contains("key `engine.env.VLLM_ROCM_QUICK_REDUCE_QUANTIZATION`") && e.contains("Valid options"),
        "{e}"
    );
    let e = bad(
        "qr-max",
        "page_size = 1",
        "page_size = 1\n[engine.env]\nVLLM_ROCM_QUICK_REDUCE_MAX_SIZE_BYTES_MB = \"64MB\"",
    );
    assert!(
        e.contains("key `engine.env.VLLM_ROCM_QUICK_REDUCE_MAX_SIZE_BYTES_MB`")
            && e.contains("invalid literal for int()"),
        "{e}"
    );
}

/// Issue #17 point 1 (ep): `engine.deepep_mode` (SGLang's `--deepep-mode`) and
/// `engine.all2all_backend` (vLLM's `VLLM_ALL2ALL_BACKEND`): wrong type, wrong name, and each
/// refused under the other engine (the baseline is SGLang).
#[test]
fn a2a_keys_of_issue_17_point_1() {
    let e = bad(
        "deepep-mode-int",
        "page_size = 1",
        "page_size = 1\ndeepep_mode = 3",
    );
    assert!(e.contains("deepep_mode"), "{e}");
    let e = bad(
        "deepep-mode-name",
        "page_size = 1",
        "page_size = 1\ndeepep_mode = \"ll\"",
    );
    assert!(
        e.contains("engine.deepep_mode") && e.contains("low_latency"),
        "{e}"
    );
    let e = bad(
        "a2a-backend-sglang",
        "page_size = 1",
        "page_size = 1\nall2all_backend = \"naive\"",
    );
    assert!(
        e.contains("engine.all2all_backend") && e.contains("vLLM setting"),
        "{e}"
    );
    let e = bad(
        "deepep-bf16-env",
        "page_size = 1",
        "page_size = 1\n[engine.env]\nSGLANG_DEEPEP_BF16_DISPATCH = \"maybe\"",
    );
    assert!(
        e.contains("engine.env.SGLANG_DEEPEP_BF16_DISPATCH") && e.contains("not a valid boolean"),
        "{e}"
    );
}

// Issue #18 point 1 (schedkeys): the scheduler keys (scenario/scheduler.rs), each refused with the key.
#[test]
fn scheduler_keys_refused_as_the_engine_would() {
    let with = |name: &str, extra: &str| bad(name, "page_size = 1", &format!("page_size = 1\n{extra}"));
    let e = with("cps-zero", "chunked_prefill_size = 0");
    assert!(
        e.contains("engine.chunked_prefill_size") && e.contains("-1"),
        "{e}"
    );
    // SGLang 0.5.9 check_server_args: "chunked_prefill_size must be divisible by page_size".
    let e = bad(
        "cps-page",
        "page_size = 1",
        "page_size = 16\nchunked_prefill_size = 1000",
    );
    assert!(
        e.contains("engine.chunked_prefill_size") && e.contains("must be divisible by page_size"),
        "{e}"
    );
    let e = with("mpt-zero", "max_prefill_tokens = 0");
    assert!(e.contains("engine.max_prefill_tokens"), "{e}");
    let e = with("mpt-neg", "max_prefill_tokens = -5");
    assert!(e.contains("engine.max_prefill_tokens"), "{e}");
    let e = with("sc-neg", "schedule_conservativeness = -1.0");
    assert!(
        e.contains("engine.schedule_conservativeness") && e.contains("positive"),
        "{e}"
    );
    let e = with("sc-nan", "schedule_conservativeness = nan");
    assert!(e.contains("engine.schedule_conservativeness"), "{e}");
    let e = with("emc-string", "enable_mixed_chunk = 1");
    assert!(e.contains("enable_mixed_chunk"), "{e}");
    let e = with("drc-string", "disable_radix_cache = \"yes\"");
    assert!(e.contains("disable_radix_cache"), "{e}");
    // Not among SGLang 0.5.9's --schedule-policy choices: its list; a choice tpsim does not model.
    let e = with("sp-unknown", "schedule_policy = \"sjf\"");
    assert!(
        e.contains("engine.schedule_policy")
            && e.contains("'lpm', 'random', 'fcfs', 'dfs-weight', 'lof', 'priority', 'routing-key'"),
        "{e}"
    );
    let e = with("sp-random", "schedule_policy = \"random\"");
    assert!(
        e.contains("engine.schedule_policy") && e.contains("fcfs, lpm and lof"),
        "{e}"
    );
    let e = with("lptt-neg", "long_prefill_token_threshold = -1");
    assert!(e.contains("long_prefill_token_threshold"), "{e}");
    let e = with("ecp-sglang", "enable_chunked_prefill = false");
    assert!(
        e.contains("engine.enable_chunked_prefill") && e.contains("chunked_prefill_size"),
        "{e}"
    );
    // vLLM's flag under SGLang.
    let e = with("epc-sglang", "enable_prefix_caching = false");
    assert!(
        e.contains("engine.enable_prefix_caching") && e.contains("disable_radix_cache"),
        "{e}"
    );
}

/// Issue #17 (dp): `engine.dp_size` as data-parallel replicas (`scenario::replicas`).
#[test]
fn dp_replicas_of_issue_17() {
    let refused = |name: &str, example: &str, from: &str, to: &str| {
        let text = std::fs::read_to_string(scenario(example)).expect("example");
        assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
        let p = scratch(name).join("scenario.toml");
        std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
        let o = tpsim(&["run", &p.display().to_string()]);
        assert_eq!(o.code, 2, "{}", o.stderr);
        assert!(o.stderr.contains(&p.display().to_string()), "{}", o.stderr);
        o.stderr
    };
    // vLLM on a MoE model (DeepSeek-V3) is modelled since issue #17 point 1 (vllmdp,
    // tests/tests/vllm_dp.rs); more DP ranks than the box's GPUs are refused.
    let vllm = "examples/deepseek-v3-dcp8-vllm-h200x8.toml";
    let e = refused("dp-vllm-moe", vllm, "tp = 8\ndcp_size = 8", "tp = 4\ndp_size = 4");
    assert!(
        e.contains("engine.dp_size") && e.contains("= 16 GPUs, more than the box's 8"),
        "{e}"
    );
    // vLLM has no `--enable-dp-attention`.
    let e = refused(
        "dp-vllm-attn",
        vllm,
        "dcp_size = 8",
        "dcp_size = 8\nenable_dp_attention = true",
    );
    assert!(
        e.contains("engine.enable_dp_attention") && e.contains("--data-parallel-size"),
        "{e}"
    );
    // SGLang replicas across two boxes: SGLang's own refusal.
    let text = std::fs::read_to_string(scenario("examples/deepseek-v3-tp16-sglang-h200x16-2node.toml"))
        .expect("example");
    let p = scratch("dp-2node").join("scenario.toml");
    std::fs::write(
        &p,
        text.replacen("tp = 16", "tp = 8\ndp_size = 2", 1).replacen(
            "\"deepseek-v3\"",
            "\"llama-3.1-70b\"",
            1,
        ),
    )
    .expect("write");
    let o = tpsim(&["run", &p.display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("engine.dp_size")
            && o.stderr
                .contains("multi-node data parallel is not supported unless dp attention!"),
        "{}",
        o.stderr
    );
}

/// Issue #19 points 1-2 (launch): `hardware.params.nccl_eager_launch` is a duration.
#[test]
fn nccl_eager_launch_must_be_a_duration() {
    let e = bad(
        "eager-launch",
        "gpus = 8",
        "gpus = 8\n[hardware.params]\nnccl_eager_launch = \"fast\"",
    );
    assert!(e.contains("key `hardware.params.nccl_eager_launch`"), "{e}");
}

// Issue #19 point 4: `tpsim-calibrate identify`'s bad input (exit 2, the file and what was expected).
fn identify_bad(args: &[&str]) -> String {
    let mut argv: Vec<std::ffi::OsString> = vec!["tpsim-calibrate".into(), "identify".into()];
    argv.extend(args.iter().map(std::ffi::OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = tpsim_calibrate::cli::main_with_args(&argv, &mut out, &mut err);
    let err = String::from_utf8_lossy(&err).into_owned();
    assert_eq!(code, 2, "{args:?}: {err}");
    err
}

#[test]
fn identify_missing_observations_file() {
    let e = identify_bad(&["/nonexistent/observations.toml"]);
    assert!(e.contains("/nonexistent/observations.toml: cannot read"), "{e}");
}

#[test]
fn identify_unknown_hypothesis() {
    let obs = scenario("observations/seed.toml");
    let e = identify_bad(&[&obs, "--hypotheses", "rtx-pro-6000-9x-imaginary"]);
    assert!(
        e.contains(
            "--hypotheses `rtx-pro-6000-9x-imaginary`: not a directory, a file or a bundled hardware preset"
        ),
        "{e}"
    );
    let d = scratch("identify-unknown-preset");
    let f = d.join("obs.toml");
    std::fs::write(
        &f,
        "[hypotheses]\npresets = [\"no-such-box\"]\n[[allreduce]]\nlabel = \"a\"\ngpus = 8\nsizes = \"56K\"\ntime_us = 250\nuncertainty = 0.2\n",
    )
    .unwrap();
    let e = identify_bad(&[f.to_str().unwrap()]);
    assert!(
        e.contains("obs.toml: hypotheses.presets: `no-such-box`: not a bundled hardware preset"),
        "{e}"
    );
    std::fs::write(
        &f,
        "[hypotheses]\npresets = [\"rtx-pro-6000-8x-1switch\"]\np2p = [\"maybe\"]\n[[allreduce]]\nlabel = \"a\"\ngpus = 8\nsizes = \"56K\"\ntime_us = 250\nuncertainty = 0.2\n",
    )
    .unwrap();
    let e = identify_bad(&[f.to_str().unwrap()]);
    assert!(
        e.contains("hypotheses.p2p: `maybe`: expected some of as-run, sys, disabled"),
        "{e}"
    );
}

#[test]
fn identify_empty_or_bad_observations() {
    let d = scratch("identify-empty");
    let f = d.join("obs.toml");
    let s = f.to_str().unwrap();
    std::fs::write(&f, "[hypotheses]\npresets = [\"rtx-pro-6000-8x-1switch\"]\n").unwrap();
    let e = identify_bad(&[s]);
    assert!(
        e.contains("obs.toml: no observation: expected at least one [[nccl_tests]], [[allreduce]], [[throughput]] or [[memory]] entry"),
        "{e}"
    );
    let one = "[[allreduce]]\nlabel = \"a\"\ngpus = 8\nsizes = \"56K\"\n";
    std::fs::write(&f, format!("{one}time_us = 250\nuncertainty = 0\n")).unwrap();
    let e = identify_bad(&[s]);
    assert!(
        e.contains("allreduce[0] (a): uncertainty = 0: expected a relative uncertainty > 0"),
        "{e}"
    );
    std::fs::write(&f, format!("{one}time_us = -3\nuncertainty = 0.1\n")).unwrap();
    let e = identify_bad(&[s]);
    assert!(e.contains("time_us = -3: expected a value > 0"), "{e}");
    std::fs::write(&f, format!("{one}uncertainty = 0.1\n")).unwrap();
    let e = identify_bad(&[s]);
    assert!(
        e.contains("expected either `time_us` or `at_least_us`/`at_most_us`"),
        "{e}"
    );
    std::fs::write(&f, format!("{one}time_us = 250\nuncertainty = 0.1\nbogus = 1\n")).unwrap();
    let e = identify_bad(&[s]);
    assert!(e.contains("unknown field `bogus`"), "{e}");
    std::fs::write(
        &f,
        format!("[identify]\nholdout = [\"a\"]\n{one}time_us = 250\nuncertainty = 0.1\n"),
    )
    .unwrap();
    let e = identify_bad(&[s]);
    assert!(e.contains("every observation is held out"), "{e}");
    std::fs::write(
        &f,
        "[[memory]]\nlabel = \"m\"\nscenario = \"missing.toml\"\nquantity = \"kv_cache_gib\"\nvalue = 10\nuncertainty = 0.1\n",
    )
    .unwrap();
    let e = identify_bad(&[s]);
    assert!(
        e.contains("memory[0] (m): scenario `") && e.contains("missing.toml`: cannot read"),
        "{e}"
    );
}

// Issue #19 point 1 (host facts): every `[hardware.host]` key and `shm_read_efficiency` checked, named
// with what was expected.
#[test]
fn host_section_keys() {
    let ok = "gpus = 8\n[hardware.params]\nshm_read_efficiency = 0.5\n[hardware.host]\ncpu_model = \"EPYC 9575F\"\n\
              sockets = 2\nmemory_channels = 12\ndimm_mts = 6000\nsocket_links = 4\nsocket_link_bw = \"64GB/s\"";
    for (name, from, to, key, needle) in [
        (
            "efficiency",
            "shm_read_efficiency = 0.5\n",
            "",
            "hardware.params.shm_read_efficiency",
            "missing",
        ),
        (
            "efficiency-range",
            "shm_read_efficiency = 0.5",
            "shm_read_efficiency = 1.5",
            "hardware.params.shm_read_efficiency",
            "1.5 is outside (0, 1]",
        ),
        (
            "sockets",
            "sockets = 2",
            "sockets = 1",
            "hardware.host.sockets",
            "1, but the topology puts GPUs on 2 sockets: expected at least 2",
        ),
        (
            "links",
            "socket_links = 4",
            "socket_links = 0",
            "hardware.host.socket_links",
            "2 sockets: expected the number of socket links (UPI / xGMI), ≥ 1",
        ),
        (
            "link-bw",
            "\nsocket_link_bw = \"64GB/s\"",
            "",
            "hardware.host.socket_link_bw",
            "missing",
        ),
        (
            "channels",
            "memory_channels = 12",
            "memory_channels = 0",
            "hardware.host.memory_channels",
            "0: expected 1 to 24 DRAM channels per socket",
        ),
        (
            "mts",
            "dimm_mts = 6000",
            "dimm_mts = 60",
            "hardware.host.dimm_mts",
            "60: expected a DIMM rate of 800 to 12800 MT/s",
        ),
        (
            "buffer",
            "sockets = 2",
            "sockets = 2\nshm_buffer = \"both\"",
            "hardware.host.shm_buffer",
            "`both`: expected \"receiver\" (NCCL_SHM_LOCALITY=2, the default) or \"sender\"",
        ),
        (
            "cpu",
            "cpu_model = \"EPYC 9575F\"\n",
            "",
            "hardware.host.cpu_model",
            "missing",
        ),
        // shm49: NUMA nodes per socket must split the channels evenly; one node per GPU, each below
        // sockets × nodes (the base box has 8 GPUs on 2 sockets).
        (
            "nps",
            "sockets = 2",
            "sockets = 2\nnuma_nodes_per_socket = 5",
            "hardware.host.numa_nodes_per_socket",
            "5: expected 1 to 8 NUMA nodes per socket that split its 12 memory channels evenly",
        ),
        (
            "numa-count",
            "sockets = 2",
            "sockets = 2\nnuma_nodes_per_socket = 4\ngpu_numa_nodes = [0, 1]",
            "hardware.host.gpu_numa_nodes",
            "2 entries with numa_nodes_per_socket = 4: expected one NUMA node per GPU (8)",
        ),
        (
            "numa-range",
            "sockets = 2",
            "sockets = 2\nnuma_nodes_per_socket = 2\ngpu_numa_nodes = [0, 0, 0, 0, 1, 1, 1, 4]",
            "hardware.host.gpu_numa_nodes",
            "GPU 7 on node 4: expected a node below 4 (2 socket(s) × 2 nodes)",
        ),
        (
            "numa-alone",
            "sockets = 2",
            "sockets = 2\ngpu_numa_nodes = [0, 0, 0, 0, 1, 1, 1, 1]",
            "hardware.host.gpu_numa_nodes",
            "given with one NUMA node per socket: expected numa_nodes_per_socket > 1",
        ),
        (
            "typo",
            "sockets = 2",
            "sockets = 2\nchannels = 12",
            "hardware.host.channels",
            "unknown field `channels`",
        ),
    ] {
        assert_eq!(ok.matches(from).count(), 1, "{name}");
        let to = ok.replacen(from, to, 1);
        let e = bad(&format!("host-{name}"), "gpus = 8", &to);
        assert!(e.contains(&format!("key `{key}`")), "{name}: {e}");
        assert!(e.contains(needle), "{name}: {e}");
    }
}

/// Issue #19 point 3: `hardware.params.kernel_read_outstanding` is a size > 0 (a GPU with no read in
/// flight would never finish a pull kernel), and a size, not a word.
#[test]
fn kernel_read_outstanding_must_be_a_positive_size() {
    let e = bad(
        "kro-zero",
        "gpus = 8",
        "gpus = 8\n[hardware.params]\nkernel_read_outstanding = \"0\"",
    );
    assert!(
        e.contains("key `hardware.params.kernel_read_outstanding`") && e.contains("expected a size > 0"),
        "{e}"
    );
    let e = bad(
        "kro-word",
        "gpus = 8",
        "gpus = 8\n[hardware.params]\nkernel_read_outstanding = \"lots\"",
    );
    assert!(e.contains("key `hardware.params.kernel_read_outstanding`"), "{e}");
}

/// Issue #19 point 1: garbage in a hardware file's `[host]` facts (the kalavai preset on a copy of its
/// template with one value replaced) is exit 2 naming the key and what was expected.
#[test]
fn host_facts_out_of_range_or_of_the_wrong_type() {
    let template =
        std::fs::read_to_string(scenario("hardware/templates/rtx-4090-kalavai-xeon.toml")).unwrap();
    let preset = std::fs::read_to_string(scenario("hardware/rtx-4090-4x-kalavai-xeon.toml")).unwrap();
    assert_eq!(preset.matches("extends = \"rtx-4090-kalavai-xeon\"").count(), 1);
    let run = |name: &str, from: &str, to: &str| {
        assert_eq!(template.matches(from).count(), 1, "`{from}` must occur once");
        let dir = scratch(name);
        std::fs::write(dir.join("host.toml"), template.replacen(from, to, 1)).unwrap();
        let p = dir.join("box.toml");
        std::fs::write(
            &p,
            preset.replacen(
                "extends = \"rtx-4090-kalavai-xeon\"",
                "extends = \"host.toml\"",
                1,
            ),
        )
        .unwrap();
        let o = tpsim(&[
            "collective",
            "--hardware",
            &p.display().to_string(),
            "--sizes",
            "4K",
        ]);
        assert_eq!(o.code, 2, "{name}: {}", o.stdout);
        assert!(!o.stderr.contains("panicked"), "{}", o.stderr);
        o.stderr
    };
    let e = run("host-dimm", "dimm_mts = 2666", "dimm_mts = 99");
    assert!(
        e.contains("hardware.host.dimm_mts") && e.contains("800 to 12800 MT/s"),
        "{e}"
    );
    let e = run("host-dimm-type", "dimm_mts = 2666", "dimm_mts = \"fast\"");
    assert!(e.contains("dimm_mts"), "{e}");
    let e = run(
        "host-buffer",
        "shm_buffer = \"receiver\"",
        "shm_buffer = \"middle\"",
    );
    assert!(
        e.contains("hardware.host.shm_buffer") && e.contains("`middle`"),
        "{e}"
    );
}

/// The measured Gen3 link figure (`[hardware.params] pcie_gen3_x16_bw`, issue #19): zero, words, a bare
/// number and an overflowing value are refused with the key, exit 2.
#[test]
fn pcie_gen3_x16_bw_garbage() {
    for (name, value, want) in [
        ("g3-zero", "\"0GB/s\"", "a bandwidth > 0"),
        ("g3-word", "\"abc\"", "not a number followed by a unit"),
        ("g3-int", "-3", "invalid type"),
        ("g3-huge", "\"1e400GB/s\"", "too large"),
    ] {
        let e = bad(
            name,
            "[model]",
            &format!("[hardware.params]\npcie_gen3_x16_bw = {value}\n\n[model]"),
        );
        assert!(
            e.contains("key `hardware.params.pcie_gen3_x16_bw`") && e.contains(want),
            "{name}: {e}"
        );
    }
}

/// A context length above the model's is refused under SGLang as `ModelConfig.__init__` refuses it
/// (SGLang 0.5.9 `configs/model_config.py`), by `run` as by `engine-args`: before stop 53 `tpsim run`
/// took it and an i64-max length overflowed Grok-2's per-layer RoPE caches (a panic found by
/// `input_mutation`). Grok-2's derived length is its `max_position_embeddings`, 131,072.
#[test]
fn sglang_context_length_above_the_models_is_refused_not_a_panic() {
    for n in ["131073", "9223372036854775807"] {
        let f = edited_variant(
            "examples/grok-2-fp8-sglang-rtxpro6000x8.toml",
            &format!("ctx{n}"),
            |t| t.replace("context_length = 32768", &format!("context_length = {n}")),
        );
        for cmd in ["run", "memory", "engine-args"] {
            let o = tpsim(&[cmd, &f]);
            assert_eq!(o.code, 2, "{cmd} {n}: {}", o.stderr);
            assert!(
                o.stderr.contains(&format!(
                    "User-specified context_length ({n}) is greater than the derived context_length (131072)"
                )),
                "{cmd} {n}: {}",
                o.stderr
            );
        }
    }
    // The model's own length is taken.
    let f = edited_variant("examples/grok-2-fp8-sglang-rtxpro6000x8.toml", "ctx131072", |t| {
        t.replace("context_length = 32768", "context_length = 131072")
    });
    assert_eq!(tpsim(&["memory", &f]).code, 0);
}

//! The coverage table (issue #16, point 4): what tpsim reproduces of each architecture under each
//! engine, and which public start-up log or measurement checks it. The table lives in
//! `tpsim_model::llm::coverage`; these tests keep book/src/coverage.md equal to it, make sure every
//! check names a test that exists, and that a run report carries its model's row.

use crate::common::{run_json, scenario};
use std::path::PathBuf;
use tpsim_model::llm::coverage::{self, EngineCoverage};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn cell(e: &EngineCoverage) -> String {
    if e.checks.is_empty() {
        return "none: follows the engine's code, unverified".into();
    }
    e.checks
        .iter()
        .map(|c| format!("{} (`{}`)", c.source, c.test))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The markdown table book/src/coverage.md shows, rendered from the code's table.
fn table() -> String {
    let mut o = String::from(
        "| architecture | families | engine | weights | KV cell | pool | cost | checked by |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for c in coverage::all() {
        for (engine, e) in [("SGLang", &c.sglang), ("vLLM", &c.vllm)] {
            o.push_str(&format!(
                "| {:?} | {} | {engine} | {} | {} | {} | {} | {} |\n",
                c.arch,
                c.families,
                e.weights.as_str(),
                e.kv_cell.as_str(),
                e.pool.as_str(),
                e.cost.as_str(),
                cell(e)
            ));
        }
    }
    o
}

#[test]
fn the_book_shows_the_coverage_table_of_the_code() {
    let book = std::fs::read_to_string(root().join("book/src/coverage.md")).expect("book/src/coverage.md");
    let t = table();
    assert!(
        book.contains(&t),
        "book/src/coverage.md must contain the table rendered from tpsim_model::llm::coverage; paste:\n{t}"
    );
}

#[test]
fn every_check_names_a_test_that_exists() {
    for c in coverage::all() {
        for e in [&c.sglang, &c.vllm] {
            for ch in e.checks {
                // `module::function` of tests/tests/, or `llm::module::function` of model/src/llm/.
                let (dir, path) = match ch.test.strip_prefix("llm::") {
                    Some(rest) => ("model/src/llm", rest),
                    None => ("tests/tests", ch.test),
                };
                let (module, function) = path
                    .split_once("::")
                    .unwrap_or_else(|| panic!("{:?}: test `{}` is not module::function", c.arch, ch.test));
                let file = root().join(dir).join(format!("{module}.rs"));
                let text = std::fs::read_to_string(&file)
                    .unwrap_or_else(|_| panic!("{:?}: no test file {}", c.arch, file.display()));
                assert!(
                    text.contains(&format!("fn {function}()")),
                    "{:?}: {} has no test `{function}` (named by the check `{}`)",
                    c.arch,
                    file.display(),
                    ch.source
                );
                assert!(!ch.source.is_empty());
            }
        }
    }
}

#[test]
fn a_run_report_names_its_models_checks_or_says_there_are_none() {
    // The seed (Kimi-K2.5 under SGLang): checked by the MI355X start-up log.
    let j = run_json(&scenario("seed/baseline.toml"));
    let m = &j["model_checks"];
    assert_eq!(m["architecture"], "KimiK25");
    assert_eq!(m["weights"], "exact");
    assert_eq!(m["cost"], "approximate");
    assert_eq!(
        m["checks"][0]["test"],
        "engine_memory_rows::sglang_0_5_8_kimi_k2_5_mi355x_tp8"
    );
    // DeepSeek-V3 under SGLang: checked by engine-memory.tsv line 60 (sglanglogs, issue #17).
    let j = run_json(&scenario("examples/deepseek-v3-mtp-h200x8.toml"));
    assert_eq!(j["model_checks"]["architecture"], "DeepseekV3");
    assert_eq!(
        j["model_checks"]["checks"][0]["test"],
        "sglanglogs::sglang_2026_08_deepseek_r1_0528_mla_pool_h100_tp8"
    );
    // Llama-4 under SGLang: no public start-up log checks it, and the report says so (empty).
    let j = run_json(&scenario("examples/llama-4-scout-rtx6000x4.toml"));
    assert_eq!(j["model_checks"]["architecture"], "Llama4");
    assert_eq!(j["model_checks"]["checks"].as_array().map(Vec::len), Some(0));
}

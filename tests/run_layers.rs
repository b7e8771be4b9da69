//! The run service's one way down (`src/service/runs/mod.rs`), checked on the source: each file
//! of `service/runs/` has a layer, and names only files of the layers below its own, never one
//! above and never one beside it, through `super::file`, `super::super::runs::file` or
//! `crate::service::runs::file` (in a `use` or in a path in code, groups `{..}` included, as
//! `tests/architecture/names.rs` reads them). A file without a layer fails too.
//! `tests/architecture.rs` checks the modules around it.

// Shared with tests/architecture.rs, which uses the rest of it.
#[allow(dead_code)]
#[path = "architecture/names.rs"]
mod names;

use std::path::Path;

/// The files of `service/runs/` and their layers, bottom up, as `runs/mod.rs` draws them.
#[rustfmt::skip]
const RUN_LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("label", 1), ("case_rows", 1),
    ("stored", 2), ("new_run", 2),
    ("summaries", 3), ("plan", 3),
    ("worker", 4), ("recorded", 4), ("adk_history", 4),
    ("views", 4), ("progress", 4), ("export", 4), ("last_run", 4),
    ("lifecycle", 5),
    ("workers", 6),
];

fn layer_of(file: &str) -> Option<u8> {
    RUN_LAYERS
        .iter()
        .find(|(name, _)| *name == file)
        .map(|&(_, layer)| layer)
}

/// A rule broken at one line of one file.
#[derive(Debug)]
struct Violation {
    file: String,
    line: usize,
    message: String,
}

/// Each runs file (other than itself) the runs file `name`'s `code` names, with the line.
fn runs_files_named(name: &str, code: &str) -> Result<Vec<(usize, String)>, String> {
    let module = ["service", "runs", name].map(String::from);
    Ok(names::code_names(code, &module)?
        .into_iter()
        .filter(|named| named.in_crate)
        .filter_map(|named| match named.path.as_slice() {
            [service, runs, file, ..] if service == "service" && runs == "runs" && file != name => {
                Some((named.line, file.clone()))
            }
            _ => None,
        })
        .collect())
}

/// The rules one file of `service/runs/` (`name`, without `.rs`) breaks.
fn check_run_file(name: &str, code: &str) -> Vec<Violation> {
    let file = format!("src/service/runs/{name}.rs");
    let Some(layer) = layer_of(name) else {
        return vec![Violation {
            file,
            line: 0,
            message: format!("`{name}` has no layer: add it to RUN_LAYERS (and to runs/mod.rs)"),
        }];
    };
    let named = match runs_files_named(name, code) {
        Ok(named) => named,
        Err(problem) => {
            return vec![Violation {
                file,
                line: 0,
                message: format!("does not parse: {problem}"),
            }]
        }
    };
    let mut violations = Vec::new();
    for (line, used) in named {
        let message = match layer_of(&used) {
            None => format!("`{name}` names `{used}`, which is no file with a layer"),
            Some(below) if below < layer => continue,
            Some(other) => {
                format!("`{name}` (layer {layer}) must not use `{used}` (layer {other}): only lower layers")
            }
        };
        violations.push(Violation {
            file: file.clone(),
            line,
            message,
        });
    }
    violations
}

#[test]
fn every_file_of_runs_uses_only_the_layers_below_its_own() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join("src/service/runs");
    let mut names = Vec::new();
    let mut violations = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("src/service/runs is readable") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_stem().unwrap_or_default().to_string_lossy().to_string();
        let source = path.extension().is_some_and(|e| e == "rs");
        if name == "mod" || !(source || path.is_dir()) {
            continue;
        }
        let text = if path.is_dir() {
            String::new()
        } else {
            std::fs::read_to_string(&path).expect("a readable source file")
        };
        violations.extend(check_run_file(&name, &text));
        names.push(name);
    }
    for (name, _) in RUN_LAYERS {
        if !names.iter().any(|found| found == name) {
            violations.push(Violation {
                file: format!("src/service/runs/{name}.rs"),
                line: 0,
                message: format!("RUN_LAYERS names `{name}`, which is no file of runs/"),
            });
        }
    }
    let report: Vec<String> = violations
        .iter()
        .map(|v| format!("{}:{}: {}", v.file, v.line, v.message))
        .collect();
    assert!(
        report.is_empty(),
        "the run service's layers broken:\n{}",
        report.join("\n")
    );
}

#[test]
fn a_use_of_a_run_file_above_or_beside_is_caught() {
    // (runs file, its source, how many rules it breaks)
    let cases: &[(&str, &str, usize)] = &[
        ("plan", "use super::stored::{eval_run, stored_config};", 0),
        ("plan", "use super::recorded::RecordedRun;", 1),
        ("plan", "use super::summaries::backfill;", 1),
        ("stored", "use super::{error::EvalRunError, new_run::NewRun};", 1),
        ("worker", "use crate::service::runs::lifecycle::take_up;", 1),
        (
            "worker",
            "use crate::service::runs::{error::RunFailure, workers};",
            1,
        ),
        ("worker", "use super::super::runs::workers::work_queue;", 1),
        ("worker", "use super::super::running::Claim;", 0),
        ("worker", "use crate::service::{running::Claim, Services};", 0),
        ("error", "let label = super::label::clean_label(text)?;", 1),
        (
            "lifecycle",
            "use super::{\n    plan::plan_run,\n    workers::work_queue,\n};",
            1,
        ),
        ("plan", "use super::nowhere::Thing;", 1),
        ("plan", "// not super::workers::work_queue", 0),
        ("newfile", "", 1),
    ];
    for &(name, code, broken) in cases {
        let violations = check_run_file(name, code);
        assert_eq!(violations.len(), broken, "{name}: {code}: {violations:?}");
    }
    let multiline = check_run_file(
        "lifecycle",
        "use super::{\n    plan::plan_run,\n    workers::work_queue,\n};",
    );
    assert_eq!(
        multiline[0].line, 1,
        "a group is reported at the line its path starts"
    );
}

//! The run service's one way down (`src/service/runs/mod.rs`), checked on the source: each file
//! of `service/runs/` has a layer, and names only files of the layers below its own, never one
//! above and never one beside it, through `super::file`, `super::super::runs::file` or
//! `crate::service::runs::file` (in a `use` or in a path in code, groups `{..}` included). A
//! file without a layer fails too. `tests/architecture.rs` checks the modules around it.

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

/// The paths written at the start of `text`, as their segments: `a::b::c`, or each item of a
/// group, `a::{b::c, d}` being `a::b::c` and `a::d`.
fn expand(text: &str) -> Vec<Vec<String>> {
    let mut prefix: Vec<String> = Vec::new();
    let mut rest = text;
    loop {
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        prefix.push(rest[..end].to_string());
        match rest[end..].strip_prefix("::") {
            Some(after) => rest = after.trim_start(),
            None => return vec![prefix],
        }
        if let Some(group) = rest.strip_prefix('{') {
            return group_items(group)
                .into_iter()
                .flat_map(|item| expand(item.trim()))
                .map(|tail| [prefix.clone(), tail].concat())
                .collect();
        }
    }
}

/// The items of a group whose `{` has just been read, split at its own commas.
fn group_items(group: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0, 0, Vec::new());
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&group[start..at]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&group[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.retain(|item| !item.trim().is_empty());
    items
}

/// The runs file a path written in a file of `service/runs/` names, if it names one.
fn runs_file(path: &[String]) -> Option<&str> {
    let segments: Vec<&str> = path.iter().map(String::as_str).collect();
    match segments.as_slice() {
        ["super", "super", "runs", file, ..] | ["crate", "service", "runs", file, ..] => Some(file),
        ["super", "super", ..] => None,
        ["super", file, ..] => Some(file),
        _ => None,
    }
}

/// Each runs file `code` names, with the line it is named on (comments left out).
fn runs_files_named(code: &str) -> Vec<(usize, String)> {
    let code: String = code
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut named = Vec::new();
    for start in ["super::", "crate::service::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let line = code[..at].matches('\n').count() + 1;
            for path in expand(&code[at..]) {
                if let Some(file) = runs_file(&path) {
                    named.push((line, file.to_string()));
                }
            }
        }
    }
    named
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
    let mut violations = Vec::new();
    for (line, used) in runs_files_named(code) {
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

/// The part of a file before its `#[cfg(test)]` module, whose `super::` is the file itself.
fn without_test_module(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    }
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
        violations.extend(check_run_file(&name, without_test_module(&text)));
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

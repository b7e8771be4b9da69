//! The architecture invariants of ARCHITECTURE.md that the compiler cannot check, checked on the
//! source as syn parses it (names.rs): which top-level module may name which, and which modules
//! stay free of I/O and of the web framework. A `use` (or a path) that breaks a rule fails this
//! test with the file, the line and the rule. The pure crates under `crates/` are kept apart by
//! the compiler; here they are held to their short list of dependencies and to naming no I/O of
//! the standard library.

#[path = "architecture/names.rs"]
mod names;

use names::{code_names, names, Named};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A top-level module and the crate modules it may name (besides itself).
struct Layer {
    module: &'static str,
    may_use: &'static [&'static str],
    /// External paths it must not name (frameworks, I/O), as lists of them.
    never: Names,
}

/// What no layer below the adapters may name: the web framework's server types. A name of
/// several segments is matched at a path's start, a single one anywhere in it (`Named::names`).
const WEB: &[&str] = &["axum", "leptos_axum", "ServerFnError", "tower_http"];
/// The use cases answer in domain errors, never in HTTP statuses.
const STATUS: &[&str] = &["StatusCode"];
/// I/O a pure layer must not do. (`std::io`'s traits are not I/O: a pure reader or writer
/// takes the `Read` or `Write` its caller opened.)
const IO: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::thread",
    "std::env",
    "std::io::stdin",
    "std::io::stdout",
    "std::io::stderr",
    "tokio",
    "reqwest",
    "sqlx",
    "SystemTime",
];
/// Lists of names a layer must not use.
type Names = &'static [&'static [&'static str]];
/// Neither the web framework nor I/O.
const PURE: Names = &[WEB, STATUS, IO];

/// The layers from the bottom up: (module, crate modules it may name, what it must never name).
#[rustfmt::skip]
const LAYERS: &[(&str, &[&str], Names)] = &[
    // The ADK format (crates/evalset): pure, no I/O, no clock; compiled for the browser too.
    ("evalset",  &[], PURE),
    // The model-free metrics (crates/pure_metrics): pure like the format they score.
    ("pure_metrics", &[], PURE),
    ("clock",    &[], &[WEB]),
    // The case editor's draft (crates/draft): pure like the format it edits; browser too.
    ("draft",    &["evalset"], PURE),
    // The OpenAI-compatible HTTP transport knows nothing of agents, judges or evals.
    ("llm_http", &["outbound", "redact"], &[WEB]),
    // What every outgoing request obeys (redirects on its origin, a body cap): knows no caller.
    ("outbound", &[], &[WEB]),
    // Agents never reach eval, the store, the services or the faces.
    ("agent",    &["evalset", "llm_http", "outbound", "redact", "clock", "child"], &[WEB]),
    ("eval",     &["evalset", "agent", "llm_http", "outbound", "clock", "redact"], &[WEB]),
    // evalstudio.toml: builds the agent profiles and the judge; nothing below reads it.
    ("config",   &["evalset", "agent", "eval", "llm_http", "outbound"], &[WEB]),
    ("records",  &["evalset", "agent", "eval"], PURE),
    // What people are shown of a configured URL (no userinfo, query or fragment): pure, browser too.
    ("redact",   &[], PURE),
    // Roles and the signed-in user: plain data, browser too.
    ("access",   &[], PURE),
    ("store",    &["evalset", "records", "access", "agent", "eval", "clock"], &[WEB]),
    // OTLP read into spans, spans into sessions and cases to score: pure, no I/O.
    ("traces",   &["records", "agent", "evalset"], PURE),
    // Children that die with Evalstudio (an MCP server, ADK's api_server).
    ("child",    &[], &[WEB]),
    // The user's agents folder on disk (folder mode): knows nothing of the store.
    ("folder",   &["child", "outbound"], &[WEB]),
    // Use cases: everything below, nothing of HTTP or Leptos.
    ("service",  &["evalset", "records", "access", "agent", "eval", "store", "clock", "folder", "traces", "redact"], &[WEB, STATUS]),
    // The faces: adapters over the services. `api` never reaches the store, not even its error.
    ("api",      &["service", "records", "access", "evalset", "eval", "agent", "clock", "redact"], &[]),
    // `score` and `score-traces` score files with eval's and traces' pure code, no store.
    ("cli",      &["service", "server", "records", "access", "evalset", "eval", "agent", "config", "clock", "store", "folder", "traces", "outbound"], &[]),
    // The server opens the store and hands it to the services.
    ("server",   &["api", "app", "access", "service", "store::Store", "store::StoreError", "store::Location", "agent", "eval", "config", "folder", "outbound"], &[]),
    // Pages call server functions; they never reach the store or the services.
    ("ui",       &["api", "records", "access", "evalset", "draft", "eval", "agent", "app"], &[IO]),
    ("app",      &["ui", "api"], &[]),
    ("lib",      &["app"], &[]),
    // Test support (fake servers), compiled only into tests.
    ("testing",  &[], &[]),
];

fn layers() -> Vec<Layer> {
    LAYERS
        .iter()
        .map(|&(module, may_use, never)| Layer {
            module,
            may_use,
            never,
        })
        .collect()
}

/// A rule broken at one line of one file.
#[derive(Debug, PartialEq)]
struct Violation {
    file: String,
    line: usize,
    message: String,
}

/// The top-level module a file under `src/` belongs to (`lib` for lib.rs).
fn module_of(relative: &Path) -> String {
    let first = relative.components().next().expect("a path under src/");
    let name = first.as_os_str().to_string_lossy();
    name.strip_suffix(".rs").unwrap_or(&name).to_string()
}

/// Within `eval`, the only files that reach the outside world (server only: the runner, the
/// embedding model's files, the judge's and the evaluators' transports, the `cargo test`
/// harness); every other file of `eval` is pure.
const EVAL_IO_FILES: &[&str] = &[
    "eval/runner/",
    "eval/embedding/",
    "eval/judge/client.rs",
    "eval/evaluators/http.rs",
    "eval/evaluators/command.rs",
    "eval/harness.rs",
];

/// The one file of `ui` that names REST paths: downloads and the progress stream, which server
/// functions cannot serve. Everything else the pages read comes through server functions.
const UI_REST_LINKS: &str = "ui/rest_links.rs";

/// The one file of `ui` that reaches the browser's own APIs, each with a server stand-in.
const UI_BROWSER: &str = "ui/browser.rs";
/// What reaching the browser's APIs takes: these crates, or code only the browser compiles.
const BROWSER_APIS: &[&str] = &["web_sys", "wasm_bindgen"];
const BROWSER_ONLY: &str = "feature = \"hydrate\"";

/// What only reading `toml` does: nothing but `config` reads evalstudio.toml.
const TOML: &[&str] = &["toml"];

/// The rules inside a top-level module: which of `eval`'s files may do I/O, which of `ui`'s may
/// name REST paths, and who may parse evalstudio.toml. `text` is the file without its tests,
/// `named` what it names.
fn check_inside(module: &str, relative: &str, text: &str, named: &[Named]) -> Vec<Violation> {
    let file = format!("src/{relative}");
    let mut violations = Vec::new();
    if module == "eval" && !EVAL_IO_FILES.iter().any(|io| relative.starts_with(io)) {
        let pure = Layer {
            module: "eval (outside its I/O files)",
            may_use: &[],
            never: &[IO],
        };
        violations.extend(check_names(&pure, &file, named));
    }
    if module != "config" {
        let not_config = Layer {
            module: "only `config` reads evalstudio.toml, so ",
            may_use: &[],
            never: &[TOML],
        };
        violations.extend(
            check_names(&not_config, &file, named)
                .into_iter()
                .map(|v| Violation {
                    message: format!("`{module}` must not parse TOML: only `config` reads evalstudio.toml"),
                    ..v
                }),
        );
    }
    if (module == "ui" || module == "app") && relative != UI_BROWSER {
        let browser = Layer {
            module: "ui (outside ui/browser.rs)",
            may_use: &[],
            never: &[BROWSER_APIS],
        };
        violations.extend(check_names(&browser, &file, named));
        for (index, line) in text.lines().enumerate() {
            if line.split("//").next().unwrap_or("").contains(BROWSER_ONLY) {
                violations.push(Violation {
                    file: file.clone(),
                    line: index + 1,
                    message: format!(
                        "`{module}` must not compile code for the browser alone: only {UI_BROWSER} does"
                    ),
                });
            }
        }
    }
    if module == "ui" && relative != UI_REST_LINKS {
        for (index, line) in text.lines().enumerate() {
            if line.split("//").next().unwrap_or("").contains("\"/apps/") {
                violations.push(Violation {
                    file: file.clone(),
                    line: index + 1,
                    message: format!(
                        "`ui` names a REST path: build it in {UI_REST_LINKS}, or use a server function"
                    ),
                });
            }
        }
    }
    violations
}

/// The pure crates under `crates/` and the only dependencies each may have: none does I/O.
#[rustfmt::skip]
const PURE_CRATES: &[(&str, &[&str])] = &[
    ("evalset", &["serde", "serde_json", "serde_path_to_error", "thiserror"]),
    ("draft", &["evalset", "serde_json"]),
    ("pure_metrics", &["evalset", "serde", "serde_json", "unicode-normalization", "unicode-properties",
        "rustc-hash", "similar"]),
];

/// The one pure file that starts a thread: `score`'s reader of the expected set, which skims
/// batches on a second thread. It is behind evalset's `fast-read` feature, which only the
/// server turns on; the browser never compiles it.
const PURE_THREADS: (&str, &str) = ("crates/evalset/src/fast/parallel_read.rs", "`std::thread`");

/// The names of the `[dependencies]` of a Cargo.toml's text.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
        } else if in_dependencies && !line.is_empty() && !line.starts_with('#') {
            let end = line.find(['.', '=', ' ']).unwrap_or(line.len());
            names.push(line[..end].to_string());
        }
    }
    names
}

/// Checks what one file names against the rules of its module.
fn check_file(module: &str, file: &str, named: &[Named], layers: &[Layer]) -> Vec<Violation> {
    let Some(layer) = layers.iter().find(|l| l.module == module) else {
        return vec![Violation {
            file: file.into(),
            line: 0,
            message: format!(
                "module `{module}` has no rule in tests/architecture.rs: add one (and to ARCHITECTURE.md)"
            ),
        }];
    };
    let mut violations = check_names(layer, file, named);
    for name in named.iter().filter(|name| name.in_crate && !name.path.is_empty()) {
        let path = name.text();
        let target = name.path[0].as_str();
        let allowed = target == module
            || layer
                .may_use
                .iter()
                .any(|rule| path == *rule || path.starts_with(&format!("{rule}::")) || *rule == target);
        if !allowed {
            violations.push(Violation {
                file: file.into(),
                line: name.line,
                message: format!("`{module}` must not use `crate::{path}`"),
            });
        }
    }
    violations
}

/// The paths of a file (not its own modules') that name what its layer must never name.
fn check_names(layer: &Layer, file: &str, named: &[Named]) -> Vec<Violation> {
    let mut violations = Vec::new();
    for name in named.iter().filter(|name| !name.in_crate) {
        for never in layer.never.iter().copied().flatten() {
            if name.names(never) {
                violations.push(Violation {
                    file: file.into(),
                    line: name.line,
                    message: format!("`{}` must not name `{never}` (`{}`)", layer.module, name.text()),
                });
            }
        }
    }
    violations
}

/// What the file of `module_path` names, or a violation saying it does not parse.
fn read_names(file: &str, text: &str, module_path: &[String]) -> Result<Vec<Named>, Violation> {
    names(text, module_path).map_err(|problem| Violation {
        file: file.into(),
        line: 0,
        message: format!("does not parse: {problem}"),
    })
}

/// The module path of a file under `src/`: `["eval", "score"]` for eval/score.rs, `["eval"]`
/// for eval/mod.rs, none for lib.rs.
fn module_path(relative: &Path) -> Vec<String> {
    let mut path: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if path.last().is_some_and(|last| last == "mod" || last == "lib") {
        path.pop();
    }
    path
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Test modules and test-only files may reach across layers to set up what they test.
fn is_test_file(relative: &Path) -> bool {
    let name = relative.file_name().unwrap_or_default().to_string_lossy();
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || relative.components().any(|c| c.as_os_str() == "tests")
}

/// The part of a file before its `#[cfg(test)]` module, which may set up across layers.
fn without_test_module(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    }
}

#[test]
fn every_use_follows_the_layer_rules() {
    let src = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
        .join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|f| !f.ends_with("main.rs"));
    let layers = layers();
    let mut by_module: BTreeMap<String, usize> = BTreeMap::new();
    let mut violations = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&src).expect("under src/");
        if is_test_file(relative) {
            continue;
        }
        let module = module_of(relative);
        *by_module.entry(module.clone()).or_default() += 1;
        let text = std::fs::read_to_string(path).expect("a readable source file");
        let file = format!("src/{}", relative.display());
        let named = match read_names(&file, &text, &module_path(relative)) {
            Ok(named) => named,
            Err(unparsed) => {
                violations.push(unparsed);
                continue;
            }
        };
        violations.extend(check_file(&module, &file, &named, &layers));
        let relative = relative.to_string_lossy().replace('\\', "/");
        violations.extend(check_inside(
            &module,
            &relative,
            without_test_module(&text),
            &named,
        ));
    }
    assert!(by_module.len() > 5, "found too few modules: {by_module:?}");
    let report: Vec<String> = violations
        .iter()
        .map(|v| format!("{}:{}: {}", v.file, v.line, v.message))
        .collect();
    assert!(
        report.is_empty(),
        "architecture invariants broken:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_pure_crates_depend_on_nothing_that_does_io_and_name_no_std_io() {
    let root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"));
    let root = root.as_path();
    let layers = layers();
    let mut violations = Vec::new();
    for &(name, allowed) in PURE_CRATES {
        let dir = root.join("crates").join(name);
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("the crate's Cargo.toml");
        for dependency in dependencies(&manifest) {
            if !allowed.contains(&dependency.as_str()) {
                violations.push(format!(
                    "crates/{name}/Cargo.toml: `{dependency}` is not one of the pure crate's dependencies \
                     ({}); extend PURE_CRATES only with crates that do no I/O",
                    allowed.join(", ")
                ));
            }
        }
        let layer = layers
            .iter()
            .find(|l| l.module == name)
            .expect("a rule for the crate");
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        for path in files.iter().filter(|f| !is_test_file(f)) {
            let text = std::fs::read_to_string(path).expect("a readable source file");
            let file = path.strip_prefix(root).unwrap_or(path).display().to_string();
            let found = match read_names(&file, &text, &[]) {
                Ok(named) => check_names(layer, &file, &named),
                Err(unparsed) => vec![unparsed],
            };
            violations.extend(
                found
                    .into_iter()
                    .filter(|v| !(v.file == PURE_THREADS.0 && v.message.contains(PURE_THREADS.1)))
                    .map(|v| format!("{}:{}: {}", v.file, v.line, v.message)),
            );
        }
    }
    assert!(
        violations.is_empty(),
        "pure crates broken:\n{}",
        violations.join("\n")
    );
}

#[test]
fn a_dependency_list_is_read_from_a_manifest() {
    let manifest = "[package]\nname = \"x\"\n[dependencies]\n# why\nserde.workspace = true\n\
                    tokio = { version = \"1\" }\n\n[dev-dependencies]\ntempfile = \"3\"\n";
    assert_eq!(dependencies(manifest), ["serde", "tokio"]);
}

/// What a snippet names; nothing for what is no code (an attribute alone).
fn snippet_names(snippet: &str, module: &[String]) -> Vec<Named> {
    code_names(snippet, module).unwrap_or_default()
}

#[test]
fn a_rule_inside_a_module_is_caught() {
    // (module, file under src/, one line of it, how many rules that line breaks)
    let cases: &[(&str, &str, &str, usize)] = &[
        ("eval", "eval/score.rs", "let t = std::fs::read(p);", 1),
        ("eval", "eval/score.rs", "use std::{fs, io::Read};", 1),
        ("eval", "eval/score.rs", "let h = std::thread::spawn(f);", 1),
        (
            "eval",
            "eval/score.rs",
            "let t = format!(\"{:?}\", std::fs::read(p));",
            1,
        ),
        (
            "eval",
            "eval/score.rs",
            "#[cfg(test)] mod tests { use std::fs; }",
            0,
        ),
        ("eval", "eval/runner/mod.rs", "tokio::time::sleep(d).await;", 0),
        (
            "ui",
            "ui/runs/run_page.rs",
            "let u = format!(\"/apps/{app}/eval_results\");",
            1,
        ),
        (
            "ui",
            "ui/rest_links.rs",
            "format!(\"/apps/{app}/eval_results\")",
            0,
        ),
        ("agent", "agent/profiles.rs", "let c: C = toml::from_str(t)?;", 1),
        ("config", "config.rs", "let c: C = toml::from_str(t)?;", 0),
        ("ui", "ui/chat/page.rs", "let s = web_sys::window();", 1),
        ("ui", "ui/chat/page.rs", "#[cfg(feature = \"hydrate\")]", 1),
        ("ui", "ui/browser.rs", "let s = web_sys::window();", 0),
    ];
    for &(module, relative, line, broken) in cases {
        let named = snippet_names(line, &module_path(Path::new(relative)));
        let violations = check_inside(module, relative, &format!("{line}\n"), &named);
        assert_eq!(violations.len(), broken, "{relative}: {line}: {violations:?}");
    }
}

#[test]
fn a_forbidden_use_is_caught() {
    // (module, one line of its source, how many rules that line breaks)
    let cases: &[(&str, &str, usize)] = &[
        ("ui", "use crate::store::Store;", 1),
        ("ui", "use super::super::store::Store;", 1),
        ("ui", "use super::chat::Page;", 0),
        ("agent", "use crate::{evalset::EvalCase, eval::Judge};", 1),
        (
            "agent",
            "use crate::{\n    evalset::EvalCase,\n    eval::Judge,\n};",
            1,
        ),
        ("service", "use axum::http::StatusCode;", 2),
        ("service", "fn f() -> StatusCode { todo!() }", 1),
        ("evalset", "let t = std::fs::read(p);", 1),
        ("evalset", "use std::{fs, io};", 1),
        ("evalset", "use std::io::{self, Read};", 0),
        ("ui", "// reads crate::store::Store through a server fn", 0),
        ("ui", "#[cfg(test)]\nmod tests { use crate::store::Store; }", 0),
        ("api", "use crate::store::StoreError;", 1),
        ("api", "use crate::store::Store;", 1),
        ("newthing", "", 1),
        ("server", "use crate::store::Store;", 0),
        ("server", "use crate::store::EvalRunRecord;", 1),
    ];
    let layers = layers();
    for &(module, line, broken) in cases {
        let file = format!("src/{module}/x.rs");
        let named = snippet_names(line, &[module.to_string(), "x".to_string()]);
        let violations = check_file(module, &file, &named, &layers);
        assert_eq!(violations.len(), broken, "{module}: {line}: {violations:?}");
    }
}

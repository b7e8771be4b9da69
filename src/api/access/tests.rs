//! The second check, in the bodies of editors' and admins' server functions: every one makes it,
//! with the role its table entry names, and it refuses as the gate does.

use super::{require, server_fn_access, Caller, Refusal};
use crate::access::{Role, SignedIn};
use axum::http::{request::Parts, StatusCode};
use leptos::prelude::{provide_context, Owner, ServerFnError};
use leptos_axum::ResponseOptions;
use std::collections::BTreeMap;
use std::path::Path;

/// `(module, struct)` of each server function in `server_fns.rs`'s table, with the name of the
/// access it is given there (`public`, `viewer`, `editor`, `admin`).
fn table_entries(source: &str) -> BTreeMap<(String, String), String> {
    let mut entries = BTreeMap::new();
    for line in source.lines() {
        let Some((path, access)) = line
            .trim()
            .strip_prefix('(')
            .and_then(|l| l.split_once("::PATH,"))
        else {
            continue;
        };
        let Some((module, name)) = path.split_once("::") else {
            continue;
        };
        let access = access.trim().trim_end_matches(',').trim_end_matches(')');
        entries.insert((module.to_string(), name.to_string()), access.to_string());
    }
    entries
}

/// A server function as its source declares it.
#[derive(Debug)]
struct ServerFnSource {
    /// Its generated struct: the function's name in UpperCamelCase, unless `name = …` says.
    name: String,
    line: usize,
    /// Its body's first statement, without its `;`.
    first_statement: String,
}

fn upper_camel(snake: &str) -> String {
    snake
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// Every `#[server…]` function of a file.
fn server_fns(source: &str) -> Vec<ServerFnSource> {
    let mut found = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find("#[server") {
        let attribute_start = &rest[start..];
        let mut depth = 0;
        let attribute_end = attribute_start
            .char_indices()
            .skip(1)
            .find(|&(_, c)| {
                match c {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .map(|(at, _)| at + 1)
            .expect("a closed attribute");
        let attribute = &attribute_start[..attribute_end];
        let after = &attribute_start[attribute_end..];
        let signature = &after[after.find("fn ").expect("a server function") + 3..];
        let fn_name: String = signature
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let named = attribute.split_once("name = ").map(|(_, tail)| {
            tail.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        });
        let body = &signature[signature.find('{').expect("a body") + 1..];
        let code: String = body
            .lines()
            .map(str::trim)
            .filter(|line| !line.starts_with("//"))
            .collect::<Vec<_>>()
            .join(" ");
        let first_statement = code.split(';').next().unwrap_or_default().trim().to_string();
        let line = source.len() - rest.len() + start;
        found.push(ServerFnSource {
            name: named.unwrap_or_else(|| upper_camel(&fn_name)),
            line: source[..line].lines().count() + 1,
            first_statement,
        });
        rest = &attribute_start[attribute_end..];
    }
    found
}

/// Whether a body's first statement is `require(Role::<role>)?` (the helper by any path).
fn checks_first(first_statement: &str, role: &str) -> bool {
    let call = format!("require(Role::{role})?");
    first_statement
        .strip_suffix(&call)
        .is_some_and(|path| path.is_empty() || path.ends_with("::"))
}

/// What is wrong with the server functions of `module`'s `source` against the table.
fn violations(
    module: &str,
    source: &str,
    table: &BTreeMap<(String, String), String>,
    seen: &mut Vec<(String, String)>,
) -> Vec<String> {
    let mut wrong = Vec::new();
    for function in server_fns(source) {
        let key = (module.to_string(), function.name.clone());
        let Some(access) = table.get(&key) else {
            wrong.push(format!(
                "src/api/{module}.rs:{}: {} has no entry in server_fn_access()",
                function.line, function.name
            ));
            continue;
        };
        seen.push(key);
        let role = match access.as_str() {
            "editor" => "Editor",
            "admin" => "Admin",
            _ => continue,
        };
        if !checks_first(&function.first_statement, role) {
            let begins: String = function.first_statement.chars().take(80).collect();
            wrong.push(format!(
                "src/api/{module}.rs:{}: {} is declared {access}, so its body must begin with \
                 `require(Role::{role})?;`; it begins with `{begins}`",
                function.line, function.name
            ));
        }
    }
    wrong
}

#[test]
fn every_editor_and_admin_server_fn_checks_its_role_first_in_its_body() {
    let api = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/api");
    let table_source = std::fs::read_to_string(api.join("access/server_fns.rs")).unwrap();
    let table = table_entries(&table_source);
    assert_eq!(
        table.len(),
        server_fn_access().len(),
        "the table's source was not read whole: {table:?}"
    );
    assert!(table.values().any(|access| access == "editor"));
    assert!(table.values().any(|access| access == "admin"));

    let mut wrong = Vec::new();
    let mut seen = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&api)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .collect();
    files.sort();
    for file in files {
        let module = file.file_stem().unwrap().to_str().unwrap().to_string();
        let source = std::fs::read_to_string(&file).unwrap();
        wrong.extend(violations(&module, &source, &table, &mut seen));
    }
    for key in table.keys().filter(|key| !seen.contains(key)) {
        wrong.push(format!(
            "server_fn_access() names {}::{}, which no `#[server]` in src/api/{}.rs declares",
            key.0, key.1, key.0
        ));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_missing_or_wrong_check_is_caught() {
    let table = table_entries(
        "(demo::Edit::PATH, editor),\n(demo::Tokens::PATH, admin),\n(demo::Read::PATH, viewer),\n\
         (demo::Renamed::PATH, editor),",
    );
    let source = r#"
#[server(input = leptos::server_fn::codec::Json)]
pub async fn edit(a: String) -> Result<(), ServerFnError> {
    // A comment first is fine.
    crate::api::access::require(Role::Editor)?;
    Ok(())
}

#[server]
pub async fn tokens() -> Result<(), ServerFnError> {
    require(Role::Editor)?;
    Ok(())
}

#[server]
pub async fn read() -> Result<(), ServerFnError> {
    Ok(())
}

#[server(name = Renamed)]
pub async fn renamed_fn() -> Result<(), ServerFnError> {
    let x = 1;
    require(Role::Editor)?;
    Ok(())
}

#[server]
pub async fn not_in_table() -> Result<(), ServerFnError> {
    Ok(())
}
"#;
    let mut seen = Vec::new();
    let wrong = violations("demo", source, &table, &mut seen);
    assert_eq!(wrong.len(), 3, "{wrong:#?}");
    assert!(wrong[0].contains("Tokens is declared admin"), "{}", wrong[0]);
    assert!(wrong[1].contains("Renamed is declared editor"), "{}", wrong[1]);
    assert!(wrong[2].contains("NotInTable has no entry"), "{}", wrong[2]);
    assert_eq!(seen.len(), 4);
}

fn user(role: Role) -> Caller {
    Caller::User {
        user: SignedIn {
            name: format!("a-{role}"),
            role,
        },
        by_cookie: false,
    }
}

/// Runs `call` as a server function body runs: in an owner whose context holds the request's
/// parts (with `caller`, as the gate leaves it, when given) and the response's options.
/// No `AppState` is provided, so a body that reached its services before checking would panic.
fn as_caller<T>(
    caller: Option<Caller>,
    call: impl std::future::Future<Output = Result<T, ServerFnError>>,
) -> (Result<T, ServerFnError>, Option<StatusCode>) {
    let (mut parts, ()): (Parts, ()) = axum::http::Request::new(()).into_parts();
    if let Some(caller) = caller {
        parts.extensions.insert(caller);
    }
    let response = ResponseOptions::default();
    let owner = Owner::new();
    let answer = owner.with(|| {
        provide_context(parts);
        provide_context(response.clone());
        futures::executor::block_on(call)
    });
    let status = response.0.read().unwrap().status;
    (answer, status)
}

fn refused<T>(answer: Result<T, ServerFnError>) -> String {
    match answer {
        Ok(_) => panic!("let through"),
        Err(err) => err.to_string(),
    }
}

#[test]
fn a_viewer_is_refused_by_an_editors_server_fn_itself() {
    let (answer, status) = as_caller(
        Some(user(Role::Viewer)),
        crate::api::cases::delete_case("app".into(), "set".into(), "case".into()),
    );
    let message = refused(answer);
    let expected = Refusal::Forbidden {
        role: Role::Viewer,
        needed: Role::Editor,
    }
    .message();
    assert!(message.contains(&expected), "{message}");
    assert_eq!(status, Some(StatusCode::FORBIDDEN));
}

#[test]
fn an_editor_is_refused_by_an_admins_server_fn_itself() {
    let (answer, status) = as_caller(Some(user(Role::Editor)), crate::api::auth::list_tokens());
    let message = refused(answer);
    assert!(
        message.contains("your role, editor, may not do this: it needs admin"),
        "{message}"
    );
    assert_eq!(status, Some(StatusCode::FORBIDDEN));
}

#[test]
fn no_one_signed_in_is_asked_to_sign_in() {
    for caller in [Some(Caller::Anonymous), None] {
        let (answer, status) = as_caller(caller, async { require(Role::Editor) });
        assert!(refused(answer).contains(&Refusal::SignIn.message()));
        assert_eq!(status, Some(StatusCode::UNAUTHORIZED));
    }
    // No request at all (no parts in context): no one either.
    let owner = Owner::new();
    let message = refused(owner.with(|| require(Role::Viewer)));
    assert!(message.contains(&Refusal::SignIn.message()), "{message}");
}

#[test]
fn a_role_that_may_passes_and_auth_off_passes_everything() {
    for (caller, needed) in [
        (Caller::AuthOff, Role::Admin),
        (Caller::AuthOff, Role::Editor),
        (user(Role::Editor), Role::Editor),
        (user(Role::Admin), Role::Editor),
        (user(Role::Admin), Role::Admin),
        (user(Role::Viewer), Role::Viewer),
    ] {
        let (answer, status) = as_caller(Some(caller.clone()), async move { require(needed) });
        assert!(answer.is_ok(), "{caller:?} needing {needed}: {answer:?}");
        assert_eq!(status, None);
    }
    let (answer, _) = as_caller(Some(user(Role::Ingest)), async { require(Role::Editor) });
    refused(answer);
}

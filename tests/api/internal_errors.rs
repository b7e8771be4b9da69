//! A fault of the server's own (here, a damaged database) is a 500 whose body says only
//! "internal error" and an id: what went wrong, which may name tables, SQL or paths, stays in
//! the server's log under that id.

use crate::helpers::{assert_error, spawn_app};
use crate::ok_eval_set::ok_eval_set;
use reqwest::StatusCode;

#[tokio::test]
async fn a_database_fault_answers_internal_error_with_an_id_and_no_database_text() {
    let app = spawn_app().await;
    app.import("demo", ok_eval_set("three", 3).to_string()).await;
    // Behind the app's back, the cases' table goes.
    app.execute_sql("DROP TABLE eval_cases", "DROP TABLE eval_cases CASCADE")
        .await;

    let body = assert_error(
        app.get("/apps/demo/eval_sets/three/export").await,
        StatusCode::INTERNAL_SERVER_ERROR,
    )
    .await;
    assert_eq!(body["error"], "internal error", "{body}");
    let id = body["detail"]["id"].as_str().expect("an error id");
    assert!(
        id.len() == 12 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "{id}"
    );
    let text = body.to_string();
    assert!(
        !text.contains("eval_cases") && !text.contains("database"),
        "{text}"
    );
}

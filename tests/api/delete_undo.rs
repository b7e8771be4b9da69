//! Deleting cases, one or several at once, and bringing them back, history included.

use crate::helpers::{assert_error, spawn_app};
use crate::ok_eval_set::ok_eval_set;
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn deleted_cases_come_back_with_their_history() {
    let app = spawn_app().await;
    app.import("demo", ok_eval_set("three", 3).to_string()).await;
    let case0 = "/apps/demo/eval_sets/three/evals/case0";
    let mut edited = app.get_json(case0).await;
    edited["tags"] = json!(["edited"]);
    assert_eq!(app.put_json(case0, &edited).await.status(), StatusCode::OK);

    assert_eq!(app.delete(case0).await.status(), StatusCode::NO_CONTENT);
    let bulk = app
        .post_json(
            "/apps/demo/eval_sets/three/delete_evals",
            &json!({"evalIds": ["case1", "case2"]}),
        )
        .await;
    assert_eq!(bulk.status(), StatusCode::OK);
    assert_eq!(app.get_json("/apps/demo/eval_sets/three/evals").await, json!([]));
    let exported = app.get_json("/apps/demo/eval_sets/three/export").await;
    assert_eq!(exported["eval_cases"], json!([]));
    let deleted: Vec<String> = app
        .get_json("/apps/demo/eval_sets/three/deleted_evals")
        .await
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["eval_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(deleted, ["case2", "case1", "case0"]);

    let undo = app
        .post_json(
            "/apps/demo/eval_sets/three/undo_delete",
            &json!({"evalIds": ["case0", "case2"]}),
        )
        .await;
    assert_eq!(undo.status(), StatusCode::OK);
    assert_eq!(
        app.get_json("/apps/demo/eval_sets/three/evals").await,
        json!(["case0", "case2"])
    );
    // Back as it was: the edit, the version and the history.
    let back = app.get_json(case0).await;
    assert_eq!(
        (back["tags"].clone(), back["version"].as_i64()),
        (json!(["edited"]), Some(2))
    );
    let history = app.get_json(&format!("{case0}/versions")).await;
    assert_eq!(history.as_array().unwrap().len(), 2);
    // Export keeps the file order the cases had.
    let exported = app.get_json("/apps/demo/eval_sets/three/export").await;
    let ids: Vec<&str> = exported["eval_cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["eval_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["case0", "case2"]);
}

#[tokio::test]
async fn a_bulk_delete_or_undo_with_an_unknown_case_changes_nothing() {
    let app = spawn_app().await;
    app.import("demo", ok_eval_set("three", 3).to_string()).await;
    let delete = |ids: Value| {
        let app = &app;
        async move {
            app.post_json(
                "/apps/demo/eval_sets/three/delete_evals",
                &json!({"evalIds": ids}),
            )
            .await
        }
    };
    assert_error(delete(json!(["case0", "nope"])).await, StatusCode::NOT_FOUND).await;
    assert_error(delete(json!([])).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(
        app.get_json("/apps/demo/eval_sets/three/evals").await,
        json!(["case0", "case1", "case2"])
    );
    assert_eq!(delete(json!(["case0"])).await.status(), StatusCode::OK);
    // A new case0 takes the id: bringing the old one back would clash, so it is refused.
    let copy = app
        .post_json(
            "/apps/demo/eval_sets/three/evals/case1/duplicate",
            &json!({"newEvalId": "case0"}),
        )
        .await;
    assert_eq!(copy.status(), StatusCode::CREATED);
    assert_error(
        app.post_json(
            "/apps/demo/eval_sets/three/undo_delete",
            &json!({"evalIds": ["case0"]}),
        )
        .await,
        StatusCode::CONFLICT,
    )
    .await;
    assert_eq!(
        app.get_json("/apps/demo/eval_sets/three/deleted_evals").await[0]["eval_id"],
        "case0"
    );
}

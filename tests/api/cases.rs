//! Reading, editing (with optimistic versions) and deleting the cases of an eval set.

use crate::fixtures::read_fixture;
use crate::helpers::{assert_error, spawn_app};
use reqwest::StatusCode;
use serde_json::{json, Value};

#[tokio::test]
async fn cases_are_read_edited_with_versions_and_deleted() {
    let app = spawn_app().await;
    let id = app
        .import("demo", read_fixture("adk/trip_inquiry.test.json"))
        .await;
    let ids = app.get_json(&format!("/apps/demo/eval_sets/{id}/evals")).await;
    let eval_id = ids[0].as_str().unwrap().to_string();
    let path = format!("/apps/demo/eval_sets/{id}/evals/{}", eval_id.replace('/', "%2F"));
    let case = app.get_json(&path).await;
    assert_eq!(case["version"], 1);
    assert_eq!(case["eval_id"], eval_id.as_str());

    let mut edited = case.clone();
    edited["tags"] = json!(["edited"]);
    let response = app.put_json(&path, &edited).await;
    assert_eq!(response.status(), StatusCode::OK);
    let saved: Value = response.json().await.unwrap();
    assert_eq!(
        (saved["version"].as_i64(), &saved["tags"]),
        (Some(2), &json!(["edited"]))
    );

    // The same stale version again: refused, nothing changes.
    let mut stale = case.clone();
    stale["tags"] = json!(["lost update"]);
    let body = assert_error(app.put_json(&path, &stale).await, StatusCode::CONFLICT).await;
    assert_eq!(body["detail"]["currentVersion"], 2);
    assert_eq!(app.get_json(&path).await["tags"], json!(["edited"]));

    let mut unversioned = saved.clone();
    unversioned.as_object_mut().unwrap().remove("version");
    assert_error(app.put_json(&path, &unversioned).await, StatusCode::BAD_REQUEST).await;
    // A new eval_id renames the case, if it is a typed id's letters, digits and `_-.`.
    let mut other_id = saved.clone();
    other_id["eval_id"] = json!("not an id");
    let body = assert_error(app.put_json(&path, &other_id).await, StatusCode::BAD_REQUEST).await;
    assert!(body["error"].as_str().unwrap().contains("` `"), "{body}");
    let mut invalid = saved.clone();
    invalid["conversation"] = json!("not a list");
    let body = assert_error(app.put_json(&path, &invalid).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(body["detail"]["path"], "conversation");
    let bad_json = app
        .http
        .put(app.url(&path))
        .body("{\"eval_id\": ")
        .send()
        .await
        .unwrap();
    assert_error(bad_json, StatusCode::BAD_REQUEST).await;

    let mut renamed = saved.clone();
    renamed["eval_id"] = json!("renamed_by_put");
    let response = app.put_json(&path, &renamed).await;
    assert_eq!(response.status(), StatusCode::OK);
    let saved: Value = response.json().await.unwrap();
    assert_eq!(
        (saved["eval_id"].as_str(), saved["version"].as_i64()),
        (Some("renamed_by_put"), Some(3))
    );
    assert_error(app.get(&path).await, StatusCode::NOT_FOUND).await;
    let path = format!("/apps/demo/eval_sets/{id}/evals/renamed_by_put");
    assert_eq!(app.get_json(&path).await["tags"], json!(["edited"]));

    assert_eq!(app.delete(&path).await.status(), StatusCode::NO_CONTENT);
    assert_error(app.get(&path).await, StatusCode::NOT_FOUND).await;
    assert_error(app.delete(&path).await, StatusCode::NOT_FOUND).await;
    assert_eq!(
        app.get_json(&format!("/apps/demo/eval_sets/{id}/evals")).await,
        json!([])
    );
}

#[tokio::test]
async fn the_case_list_is_filtered_sorted_and_paged_by_the_server() {
    let app = spawn_app().await;
    app.import("demo", crate::ok_eval_set::ok_eval_set("many", 120).to_string())
        .await;
    let page = app.get_json("/apps/demo/eval_sets/many/cases?page=3").await;
    assert_eq!(
        (page["page"].as_i64(), page["total_cases"].as_i64()),
        (Some(3), Some(120))
    );
    assert_eq!(page["cases"].as_array().unwrap().len(), 20);
    let sorted = app
        .get_json("/apps/demo/eval_sets/many/cases?sort=eval_id&desc=1")
        .await;
    assert_eq!(sorted["cases"][0]["eval_id"], "case99");
    let filtered = app
        .get_json("/apps/demo/eval_sets/many/cases?q=QUESTION%2011")
        .await;
    let ids: Vec<&str> = filtered["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["eval_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "case11", "case110", "case111", "case112", "case113", "case114", "case115", "case116", "case117",
            "case118", "case119"
        ]
    );
    assert_error(
        app.get("/apps/demo/eval_sets/many/cases?sort=size").await,
        StatusCode::BAD_REQUEST,
    )
    .await;
}

//! Reading, editing (with optimistic versions) and deleting the cases of an eval set.

use crate::fixtures::read_fixture;
use crate::helpers::{assert_error, spawn_app, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};

/// An app with ADK's trip-inquiry fixture imported: the path of its one case, and the case.
async fn one_case() -> (TestApp, String, Value) {
    let app = spawn_app().await;
    let id = app
        .import("demo", read_fixture("adk/trip_inquiry.test.json"))
        .await;
    let ids = app.get_json(&format!("/apps/demo/eval_sets/{id}/evals")).await;
    let eval_id = ids[0].as_str().unwrap().to_string();
    let path = format!("/apps/demo/eval_sets/{id}/evals/{}", eval_id.replace('/', "%2F"));
    let case = app.get_json(&path).await;
    (app, path, case)
}

#[tokio::test]
async fn an_imported_case_reads_at_version_1_under_its_eval_id() {
    let (app, path, case) = one_case().await;
    assert_eq!(case["version"], 1);
    let list = app.get_json(path.rsplit_once('/').unwrap().0).await;
    assert_eq!(case["eval_id"], list[0]);
}

#[tokio::test]
async fn an_edit_at_the_current_version_is_saved_as_the_next() {
    let (app, path, case) = one_case().await;
    let mut edited = case.clone();
    edited["tags"] = json!(["edited"]);
    let response = app.put_json(&path, &edited).await;
    assert_eq!(response.status(), StatusCode::OK);
    let saved: Value = response.json().await.unwrap();
    assert_eq!(
        (saved["version"].as_i64(), &saved["tags"]),
        (Some(2), &json!(["edited"]))
    );
    assert_eq!(app.get_json(&path).await["tags"], json!(["edited"]));
}

#[tokio::test]
async fn an_edit_at_a_stale_version_is_a_409_naming_the_current_one_and_changes_nothing() {
    let (app, path, case) = one_case().await;
    let mut first = case.clone();
    first["tags"] = json!(["edited"]);
    app.put_json(&path, &first).await;
    let mut stale = case.clone();
    stale["tags"] = json!(["lost update"]);
    let body = assert_error(app.put_json(&path, &stale).await, StatusCode::CONFLICT).await;
    assert_eq!(body["detail"]["currentVersion"], 2);
    assert_eq!(app.get_json(&path).await["tags"], json!(["edited"]));
}

#[tokio::test]
async fn an_edit_that_cannot_be_a_case_is_a_400_with_a_sentence_and_changes_nothing() {
    let (app, path, case) = one_case().await;
    let edit = |change: &dyn Fn(&mut Value)| {
        let mut edited = case.clone();
        change(&mut edited);
        edited
    };
    let refused = [
        (
            edit(&|c| {
                c.as_object_mut().unwrap().remove("version");
            }),
            "no version",
        ),
        (edit(&|c| c["eval_id"] = json!("")), "an empty eval id"),
        (
            edit(&|c| c["eval_id"] = json!("not an id")),
            "a new eval id that is not a typed id",
        ),
        (
            edit(&|c| c["eval_id"] = json!(" padded ")),
            "an eval id with spaces around it",
        ),
        (
            edit(&|c| c["conversation"] = json!("not a list")),
            "a conversation that is not a list",
        ),
    ];
    for (body, why) in refused {
        let response = app.put_json(&path, &body).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{why}");
        assert_error(response, StatusCode::BAD_REQUEST).await;
    }
    assert_eq!(app.get_json(&path).await, case);
}

#[tokio::test]
async fn a_refused_edit_names_the_field_that_is_wrong() {
    let (app, path, case) = one_case().await;
    let mut invalid = case.clone();
    invalid["conversation"] = json!("not a list");
    let body = assert_error(app.put_json(&path, &invalid).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(body["detail"]["path"], "conversation");
}

#[tokio::test]
async fn a_new_eval_id_must_be_a_typed_ids_letters_and_the_refusal_names_the_one_that_is_not() {
    let (app, path, case) = one_case().await;
    let mut other_id = case.clone();
    other_id["eval_id"] = json!("not an id");
    let body = assert_error(app.put_json(&path, &other_id).await, StatusCode::BAD_REQUEST).await;
    assert!(body["error"].as_str().unwrap().contains("` `"), "{body}");
}

#[tokio::test]
async fn an_edit_that_is_not_json_is_a_400() {
    let (app, path, _) = one_case().await;
    let bad_json = app
        .http
        .put(app.url(&path))
        .body("{\"eval_id\": ")
        .send()
        .await
        .unwrap();
    assert_error(bad_json, StatusCode::BAD_REQUEST).await;
}

#[tokio::test]
async fn a_new_eval_id_renames_the_case() {
    let (app, path, case) = one_case().await;
    let mut renamed = case.clone();
    renamed["eval_id"] = json!("renamed_by_put");
    let response = app.put_json(&path, &renamed).await;
    assert_eq!(response.status(), StatusCode::OK);
    let saved: Value = response.json().await.unwrap();
    assert_eq!(
        (saved["eval_id"].as_str(), saved["version"].as_i64()),
        (Some("renamed_by_put"), Some(2))
    );
    assert_error(app.get(&path).await, StatusCode::NOT_FOUND).await;
    let renamed_path = format!("{}/renamed_by_put", path.rsplit_once('/').unwrap().0);
    assert_eq!(app.get_json(&renamed_path).await["version"], 2);
}

#[tokio::test]
async fn a_deleted_case_is_gone_and_a_second_delete_is_a_404() {
    let (app, path, _) = one_case().await;
    assert_eq!(app.delete(&path).await.status(), StatusCode::NO_CONTENT);
    assert_error(app.get(&path).await, StatusCode::NOT_FOUND).await;
    assert_error(app.delete(&path).await, StatusCode::NOT_FOUND).await;
    let list = path.rsplit_once('/').unwrap().0;
    assert_eq!(app.get_json(list).await, json!([]));
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

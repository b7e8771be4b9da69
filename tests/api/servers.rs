//! Several servers on one database, as a team runs them behind a load balancer: what one
//! writes the others read, and versioned edits stay safe across processes (on PostgreSQL in
//! `make test`'s second pass; on the first, two servers share a SQLite file).

use crate::fixtures::read_fixture;
use crate::helpers::spawn_app;
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn an_edit_saved_through_one_server_is_read_through_another() {
    let first = spawn_app().await;
    let second = first.another_server().await;
    let id = first
        .import("demo", read_fixture("adk/trip_inquiry.test.json"))
        .await;
    let ids = second.get_json(&format!("/apps/demo/eval_sets/{id}/evals")).await;
    let path = format!("/apps/demo/eval_sets/{id}/evals/{}", ids[0].as_str().unwrap());
    let mut case = second.get_json(&path).await;
    case["tags"] = json!(["from the second server"]);
    assert_eq!(second.put_json(&path, &case).await.status(), StatusCode::OK);

    let read = first.get_json(&path).await;
    assert_eq!(
        (read["version"].as_i64(), &read["tags"]),
        (Some(2), &json!(["from the second server"]))
    );
}

#[tokio::test]
async fn of_fifty_editors_across_two_servers_saving_the_same_version_exactly_one_wins() {
    let first = spawn_app().await;
    let second = first.another_server().await;
    let id = first
        .import("demo", read_fixture("adk/trip_inquiry.test.json"))
        .await;
    let ids = first.get_json(&format!("/apps/demo/eval_sets/{id}/evals")).await;
    let path = format!("/apps/demo/eval_sets/{id}/evals/{}", ids[0].as_str().unwrap());
    let opened = first.get_json(&path).await;

    let edits = (0..50).map(|editor| {
        let server = if editor % 2 == 0 { &first } else { &second };
        let mut case = opened.clone();
        case["tags"] = json!([format!("editor {editor}")]);
        let path = path.clone();
        async move { server.put_json(&path, &case).await.status() }
    });
    let statuses = join_all(edits).await;

    let saved = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    let refused = statuses.iter().filter(|s| **s == StatusCode::CONFLICT).count();
    assert_eq!((saved, refused), (1, 49), "{statuses:?}");
    let stored = second.get_json(&path).await;
    assert_eq!(stored["version"], 2, "one save, one new version");
}

//! The server-rendered pages: what they show of an eval set, and that imported text stays text.

use crate::fixtures::read_fixture;
use crate::helpers::spawn_app;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn pages_render_on_the_server() {
    let app = spawn_app().await;
    let id = app
        .import(
            "demo",
            read_fixture("adk/simple_multi_turn_conversation.test.json"),
        )
        .await;

    let home = app.get("/").await;
    assert_eq!(home.status(), StatusCode::OK);
    let html = home.text().await.unwrap();
    assert!(
        html.contains("Evalsets") && html.contains(&id),
        "home lists the evalset"
    );

    let set_page = app
        .get(&format!("/evalsets/demo/{id}"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        set_page.contains("Turn off device_2 in the Bedroom."),
        "case list shows the first message"
    );

    let eval_id =
        "tests/integration/fixture/home_automation_agent/test_files/simple_multi_turn_conversation.test.json";
    let case_page = app
        .get(&format!(
            "/evalsets/demo/{id}/case?eval_id={}",
            eval_id.replace('/', "%2F")
        ))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        case_page.contains("set_device_info"),
        "case page shows the tool call"
    );
    assert!(case_page.contains("I have set the device 2 status to off."));

    assert_eq!(app.get("/no/such/page").await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn imported_text_is_escaped_in_pages() {
    let app = spawn_app().await;
    let hostile = json!({"eval_set_id": "xss", "eval_cases": [{"eval_id": "<img src=x onerror=alert(1)>",
        "conversation": [{"user_content": {"parts": [{"text": "<script>alert('pwned')</script>"}]}}]}]});
    app.import("demo", hostile.to_string()).await;
    let html = app.get("/evalsets/demo/xss").await.text().await.unwrap();
    assert!(
        !html.contains("<script>alert('pwned')</script>"),
        "user text must not become markup"
    );
    assert!(
        !html.contains("<img src=x onerror"),
        "eval ids must not become markup"
    );
    assert!(
        html.contains("&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;")
            || html.contains("&lt;script&gt;")
    );
}

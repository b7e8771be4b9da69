//! `evalstudio push` and `pull` between a developer's Evalstudio and a team's server with
//! sign-in: an evalset travels whole (tool calls, tool responses, rubrics) in ADK's bytes, and a
//! push of a copy the server changed since it was pulled is refused unless forced.

use crate::helpers::{spawn_app, spawn_app_with_config, TestApp};
use evalstudio::access::Role;
use reqwest::StatusCode;
use serde_json::{json, Value};

const EVALSET: &str = r#"{"eval_set_id": "weather", "eval_cases": [{"eval_id": "paris",
  "rubrics": [{"rubric_id": "r1", "rubric_content": {"text_property": "Names the city."}, "type": "FINAL_RESPONSE_QUALITY"}],
  "conversation": [{
    "invocation_id": "i1",
    "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
    "final_response": {"role": "model", "parts": [{"text": "Sunny in Paris."}]},
    "intermediate_data": {
      "tool_uses": [{"id": "c1", "name": "get_weather", "args": {"city": "Paris"}}],
      "tool_responses": [{"id": "c1", "name": "get_weather", "response": {"sky": "sunny", "c": 21}}],
      "intermediate_responses": []
    },
    "rubrics": [{"rubric_id": "t1", "rubric_content": {"text_property": "Calls get_weather once."}}]
}]}]}"#;
const CASE: &str = "/apps/demo/eval_sets/weather/evals/paris";
const EXPORT: &str = "/apps/demo/eval_sets/weather/export";

/// The team's server (with sign-in) holding the weather evalset, and an editor's token there.
async fn team_server() -> (TestApp, String) {
    let team = spawn_app_with_config("[auth]\n").await;
    team.add_user("dev", Role::Editor, None).await;
    let token = team.new_token("dev", "laptop").await;
    let import = team.http.post(team.url("/apps/demo/import")).body(EVALSET);
    let imported = import.bearer_auth(&token).send().await.unwrap();
    assert_eq!(imported.status(), StatusCode::CREATED);
    (team, token)
}

async fn export(app: &TestApp, token: Option<&str>) -> String {
    let mut request = app.http.get(app.url(EXPORT));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.unwrap()
}

/// A developer's machine: a working folder, a database (`--db`), and their token on the team's
/// server in EVALSTUDIO_TOKEN.
struct Laptop {
    dir: tempfile::TempDir,
    db: String,
    token: String,
    server: String,
}

impl Laptop {
    /// On `db` (a new file in the folder when `None`), for `team`.
    fn new(team: &TestApp, db: Option<String>, token: &str) -> Laptop {
        let dir = tempfile::tempdir().unwrap();
        let db = db.unwrap_or_else(|| dir.path().join("mine.db").display().to_string());
        Laptop {
            dir,
            db,
            token: token.into(),
            server: team.address.clone(),
        }
    }

    /// `evalstudio ARGS --server TEAM` here; answers the exit code and stderr. Awaited, so the
    /// servers under test keep answering it.
    async fn run(&self, args: &[&str]) -> (i32, String) {
        let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_evalstudio"))
            .args(["--db", &self.db])
            .args(args)
            .args(["--server", &self.server])
            .current_dir(self.dir.path())
            .env("EVALSTUDIO_TOKEN", &self.token)
            .env_remove("DATABASE_URL")
            .output()
            .await
            .unwrap();
        (out.status.code().unwrap(), String::from_utf8(out.stderr).unwrap())
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }
}

/// Edits the case's final response on `app` (through `token` where given).
async fn edit(app: &TestApp, token: Option<&str>, text: &str) {
    let get = |request: reqwest::RequestBuilder| match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    };
    let mut case: Value = get(app.http.get(app.url(CASE)))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    case["conversation"][0]["final_response"]["parts"][0]["text"] = json!(text);
    let saved = get(app.http.put(app.url(CASE))).json(&case).send().await.unwrap();
    assert_eq!(saved.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_evalset_pulled_edited_and_pushed_arrives_whole() {
    let (team, token) = team_server().await;
    let mine = spawn_app().await;
    let laptop = Laptop::new(&team, Some(mine.db_arg()), &token);
    let (code, stderr) = laptop.run(&["pull", "weather"]).await;
    assert_eq!(code, 0, "{stderr}");
    let pulled = std::fs::read_to_string(laptop.path("weather.evalset.json")).unwrap();
    assert_eq!(
        pulled,
        export(&team, Some(&token)).await,
        "ADK's bytes, as the server exports them"
    );
    for kept in [
        "\"tool_responses\"",
        "\"sky\": \"sunny\"",
        "\"rubric_id\": \"r1\"",
        "\"rubric_id\": \"t1\"",
    ] {
        assert!(pulled.contains(kept), "{kept} in {pulled}");
    }

    // Worked on locally, then pushed from this database by id.
    mine.import("demo", pulled).await;
    edit(&mine, None, "Sunny and 21 degrees in Paris.").await;
    let (code, stderr) = laptop.run(&["push", "weather"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("pushed weather (1 cases)"), "{stderr}");
    let on_team = export(&team, Some(&token)).await;
    assert_eq!(
        on_team,
        export(&mine, None).await,
        "the team's copy is the developer's, byte for byte"
    );
    assert!(on_team.contains("Sunny and 21 degrees") && on_team.contains("\"rubric_id\": \"t1\""));

    // A second push of an unchanged server copy goes through: the push recorded its new tag.
    edit(&mine, None, "Sunny.").await;
    let (code, stderr) = laptop.run(&["push", "weather"]).await;
    assert_eq!(code, 0, "{stderr}");
}

#[tokio::test]
async fn a_push_of_a_copy_the_server_changed_since_is_refused_unless_forced() {
    let (team, token) = team_server().await;
    let mine = spawn_app().await;
    let laptop = Laptop::new(&team, Some(mine.db_arg()), &token);
    let (code, _) = laptop.run(&["pull", "weather", "-o", "w.json"]).await;
    assert_eq!(code, 0);
    edit(&team, Some(&token), "A teammate's answer.").await;
    let before = export(&team, Some(&token)).await;

    let mut mine_edited: Value =
        serde_json::from_str(&std::fs::read_to_string(laptop.path("w.json")).unwrap()).unwrap();
    mine_edited["eval_cases"][0]["conversation"][0]["final_response"]["parts"][0]["text"] = json!("Mine.");
    std::fs::write(laptop.path("w.json"), mine_edited.to_string()).unwrap();
    let (code, stderr) = laptop.run(&["push", "w.json"]).await;
    assert_eq!(code, 2);
    assert!(
        stderr.contains("412") && stderr.contains("changed since your copy was taken"),
        "{stderr}"
    );
    assert_eq!(
        export(&team, Some(&token)).await,
        before,
        "the teammate's change is kept"
    );

    let (code, stderr) = laptop.run(&["push", "w.json", "--force"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert!(export(&team, Some(&token)).await.contains("Mine."));
}

#[tokio::test]
async fn a_first_push_needs_no_pull_but_never_overwrites_an_unpulled_copy() {
    let (team, token) = team_server().await;
    let laptop = Laptop::new(&team, None, &token);
    std::fs::write(
        laptop.path("new.evalset.json"),
        EVALSET.replace("\"weather\"", "\"fresh\""),
    )
    .unwrap();
    let (code, stderr) = laptop.run(&["push", "new.evalset.json"]).await;
    assert_eq!(code, 0, "{stderr}");

    std::fs::write(laptop.path("w.evalset.json"), EVALSET).unwrap();
    let (code, stderr) = laptop.run(&["push", "w.evalset.json"]).await;
    assert_eq!(code, 2);
    assert!(
        stderr.contains("eval set `weather` already exists here (pull it first"),
        "{stderr}"
    );
}

#[tokio::test]
async fn push_and_pull_say_when_the_token_is_missing_or_not_enough() {
    let (team, _) = team_server().await;
    let (code, stderr) = Laptop::new(&team, None, "").run(&["pull", "weather"]).await;
    assert_eq!(code, 2);
    assert!(
        stderr.contains("401") && stderr.contains("set EVALSTUDIO_TOKEN"),
        "{stderr}"
    );
    team.add_user("ro", Role::Viewer, None).await;
    let viewer = Laptop::new(&team, None, &team.new_token("ro", "ro").await);
    std::fs::write(viewer.path("w.evalset.json"), EVALSET).unwrap();
    let (code, stderr) = viewer.run(&["push", "w.evalset.json", "--force"]).await;
    assert_eq!(code, 2);
    assert!(
        stderr.contains("403") && stderr.contains("may not do this"),
        "{stderr}"
    );
}

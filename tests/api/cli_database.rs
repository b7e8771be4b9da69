//! The command line on the server's database: `--db` takes the same location as `serve`
//! (a file, or a postgres:// URL on `make test`'s PostgreSQL pass), so what `import` writes
//! the running server shows at once, and `export` reads what the server wrote.

use crate::helpers::spawn_app;
use crate::ok_eval_set::ok_eval_set;
use evalstudio::store::Location;
use std::process::{Command, Output};

fn evalstudio(database: &Location, dir: &std::path::Path, args: &[&str]) -> Output {
    let db = match database {
        Location::Sqlite(path) => path.display().to_string(),
        Location::Postgres(url) => url.clone(),
    };
    Command::new(env!("CARGO_BIN_EXE_evalstudio"))
        .current_dir(dir)
        .args(args)
        .args(["--db", &db])
        .env_remove("DATABASE_URL")
        .output()
        .unwrap()
}

#[tokio::test]
async fn an_evalset_imported_by_the_cli_is_served_and_one_the_server_stored_is_exported() {
    let app = spawn_app().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("cli.evalset.json"),
        ok_eval_set("cli", 2).to_string(),
    )
    .unwrap();
    let imported = evalstudio(
        &app.database,
        dir.path(),
        &["import", "cli.evalset.json", "--app", "demo"],
    );
    assert!(imported.status.success(), "{imported:?}");
    assert_eq!(
        app.get_json("/apps/demo/eval_sets/cli/evals")
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );

    app.import("demo", ok_eval_set("served", 3).to_string()).await;
    let exported = evalstudio(
        &app.database,
        dir.path(),
        &["export", "served", "--app", "demo", "-o", "out.json"],
    );
    assert!(exported.status.success(), "{exported:?}");
    let text = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["eval_cases"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn an_unreachable_database_is_a_sentence_without_its_password() {
    let dir = tempfile::tempdir().unwrap();
    let unreachable = Location::Postgres("postgres://team:s3cret@127.0.0.1:1/evals".into());
    let output = evalstudio(&unreachable, dir.path(), &["export", "any", "--app", "demo"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("s3cret"), "{stderr}");
    assert!(stderr.contains("database"), "{stderr}");
}

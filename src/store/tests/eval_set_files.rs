use super::{eval_set as parse_whole, temp_store};
use crate::evalset::{to_adk_json, EvalSet};
use crate::store::{CaseRow, EvalSetFiles, StoreError, StoreResult};
use std::sync::{Arc, Mutex};

/// A file's header and its cases as the store keeps them.
fn file(text: &str) -> (EvalSet, Vec<CaseRow>) {
    let mut set = parse_whole(text);
    let rows = set.eval_cases.iter().map(CaseRow::new).collect();
    set.eval_cases.clear();
    (set, rows)
}

fn case(id: &str, text: &str) -> String {
    format!(
        r#"{{"eval_id": "{id}", "conversation": [{{"user_content": {{"parts": [{{"text": "{text}"}}]}}}}]}}"#
    )
}

fn set_of(cases: &[String]) -> String {
    format!(r#"{{"eval_set_id": "s", "eval_cases": [{}]}}"#, cases.join(","))
}

#[tokio::test]
async fn a_file_read_again_changes_only_what_changed() {
    let (_dir, store) = temp_store().await;
    let first = set_of(&[case("b", "one"), case("a", "two")]);
    let (header, rows) = file(&first);
    assert!(store
        .sync_eval_set_from_file("app", &header, &rows)
        .await
        .unwrap());
    assert_eq!(
        store.export_adk_json("app", "s").await.unwrap(),
        to_adk_json(&parse_whole(&first))
    );
    assert!(
        !store
            .sync_eval_set_from_file("app", &header, &rows)
            .await
            .unwrap(),
        "same file, no change"
    );

    // `b` edited and moved after `a`: a new version of `b`, its old one in its history.
    let second = set_of(&[case("a", "two"), case("b", "one, edited")]);
    let (header, rows) = file(&second);
    assert!(store
        .sync_eval_set_from_file("app", &header, &rows)
        .await
        .unwrap());
    assert_eq!(
        store.export_adk_json("app", "s").await.unwrap(),
        to_adk_json(&parse_whole(&second))
    );
    assert_eq!(store.get_case("app", "s", "b").await.unwrap().version, 2);
    assert_eq!(store.get_case("app", "s", "a").await.unwrap().version, 1);
    // The current version and the one it replaced.
    assert_eq!(store.case_versions("app", "s", "b").await.unwrap().len(), 2);

    // `a` gone from the file: in the trash, where undo finds it.
    let (header, rows) = file(&set_of(&[case("b", "one, edited")]));
    assert!(store
        .sync_eval_set_from_file("app", &header, &rows)
        .await
        .unwrap());
    let trash = store.deleted_cases("app", "s").await.unwrap();
    assert_eq!(
        trash.iter().map(|d| d.eval_id.as_str()).collect::<Vec<_>>(),
        ["a"]
    );
}

/// Records what it is handed; refuses everything when `refuse`.
#[derive(Default)]
struct Recorder {
    written: Mutex<Vec<(String, Option<String>)>>,
    refuse: bool,
}

impl EvalSetFiles for Recorder {
    fn write(&self, _app: &str, eval_set_id: &str, text: Option<&str>) -> StoreResult<()> {
        if self.refuse {
            return Err(StoreError::Conflict("the file does not parse".into()));
        }
        self.written
            .lock()
            .unwrap()
            .push((eval_set_id.to_string(), text.map(str::to_string)));
        Ok(())
    }
}

#[tokio::test]
async fn every_write_hands_over_the_evalsets_new_text_and_a_delete_none() {
    let (_dir, store) = temp_store().await;
    let files = Arc::new(Recorder::default());
    store.write_eval_sets_to(files.clone());
    store.create_eval_set("app", "s", 1.0).await.unwrap();
    store.delete_eval_set("app", "s").await.unwrap();
    let written = files.written.lock().unwrap().clone();
    assert_eq!(written.len(), 2);
    assert!(written[0]
        .1
        .as_deref()
        .unwrap()
        .contains("\"eval_set_id\": \"s\""));
    assert_eq!(written[1], ("s".to_string(), None));
}

#[tokio::test]
async fn a_refused_file_leaves_the_database_as_it_was() {
    let (_dir, store) = temp_store().await;
    let (header, rows) = file(&set_of(&[case("a", "one")]));
    store
        .sync_eval_set_from_file("app", &header, &rows)
        .await
        .unwrap();
    store.write_eval_sets_to(Arc::new(Recorder {
        refuse: true,
        ..Default::default()
    }));
    let err = store
        .delete_cases("app", "s", &["a".to_string()])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err}");
    assert_eq!(store.case_ids("app", "s").await.unwrap(), ["a"]);
}

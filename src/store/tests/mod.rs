use super::*;
use crate::eval::result::{CaseSummary, EvalStatus, MetricSummary};
use crate::evalset::{parse_evalset_file, to_adk_json, CompactEvalSet, EvalCase, EvalSet, LegacyDefaults};
use crate::records::cases::{CaseListQuery, CaseSort};
use crate::records::evalsets::ImportSummary;
use crate::records::runs::EvalRunCase;
use crate::testing::database::scratch_database;

mod eval_set_files;
mod finished_runs;
mod run_queue;
mod sessions;

async fn import(store: &Store, app: &str, set: &EvalSet, replace: bool) -> StoreResult<ImportSummary> {
    let rows: Vec<CaseRow> = set.eval_cases.iter().map(CaseRow::new).collect();
    store
        .import_eval_set(app, set, &rows, "ADK evalset", &ImportMode::replacing(replace))
        .await
}

pub(super) async fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    // Nested: opening a SQLite file makes its folder.
    let location = scratch_database(&dir.path().join("nested")).await;
    let store = Store::open(&location).await.unwrap();
    (dir, store)
}

pub(super) fn eval_set(text: &str) -> EvalSet {
    let mut next = || "inv".to_string();
    parse_evalset_file(
        text,
        LegacyDefaults {
            name: "x",
            file_name: "x.json",
            now: 1.0,
            new_invocation_id: &mut next,
        },
    )
    .unwrap()
    .0
}

const TWO_CASES: &str = r#"{"eval_set_id": "weather", "x_top": 1, "eval_cases": [
  {"eval_id": "b", "conversation": [{"user_content": {"parts": [{"text": "Weather in Paris?"}]},
    "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {"city": "Paris"}}]}}]},
  {"eval_id": "a", "conversation": []}]}"#;

#[tokio::test]
async fn import_then_export_is_unchanged_and_keeps_file_order() {
    let (_dir, store) = temp_store().await;
    let set = eval_set(TWO_CASES);
    let summary = import(&store, "demo", &set, false).await.unwrap();
    assert_eq!((summary.cases, summary.replaced), (2, false));
    assert_eq!(
        store.export_adk_json("demo", "weather").await.unwrap(),
        to_adk_json(&set)
    );
    assert_eq!(store.case_ids("demo", "weather").await.unwrap(), ["a", "b"]);
    let page = store
        .list_cases("demo", "weather", &CaseListQuery::default(), 1, 50)
        .await
        .unwrap();
    assert_eq!(page.cases[0].eval_id, "b", "listing follows file order");
    assert_eq!((page.cases[0].turn_count, page.cases[0].tool_call_count), (1, 1));
    assert_eq!(page.cases[0].first_user_message, "Weather in Paris?");
    assert_eq!(store.list_apps().await.unwrap(), ["demo"]);
}

#[tokio::test]
async fn importing_an_existing_id_conflicts_unless_replacing() {
    let (_dir, store) = temp_store().await;
    let set = eval_set(TWO_CASES);
    import(&store, "demo", &set, false).await.unwrap();
    let mut other = set.clone();
    other.eval_cases.truncate(1);
    assert!(matches!(
        import(&store, "demo", &other, false).await,
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(
        store
            .eval_set_summary("demo", "weather")
            .await
            .unwrap()
            .case_count,
        2,
        "unchanged"
    );
    assert!(import(&store, "demo", &other, true).await.unwrap().replaced);
    assert_eq!(
        store
            .eval_set_summary("demo", "weather")
            .await
            .unwrap()
            .case_count,
        1
    );
    // Another app has its own namespace.
    import(&store, "other", &set, false).await.unwrap();
}

#[tokio::test]
async fn a_failed_import_leaves_nothing_behind() {
    let (_dir, store) = temp_store().await;
    let mut set = eval_set(TWO_CASES);
    // Duplicate ids are rejected by the parser; force one past it to make the insert fail midway.
    set.eval_cases[1].eval_id = "b".into();
    assert!(import(&store, "demo", &set, false).await.is_err());
    assert!(store.list_eval_sets("demo").await.unwrap().is_empty());
}

#[tokio::test]
async fn updates_check_the_version() {
    let (_dir, store) = temp_store().await;
    import(&store, "demo", &eval_set(TWO_CASES), false).await.unwrap();
    let stored = store.get_case("demo", "weather", "b").await.unwrap();
    assert_eq!(stored.version, 1);
    let mut edited: EvalCase = stored.case.clone();
    edited.extra.insert("note".into(), "edited".into());
    let updated = store
        .update_case("demo", "weather", "b", &edited, 1, None)
        .await
        .unwrap();
    assert_eq!(updated.version, 2);
    assert_eq!(updated.case.extra["note"], "edited");
    let stale = store
        .update_case("demo", "weather", "b", &stored.case, 1, None)
        .await;
    assert!(matches!(stale, Err(StoreError::Stale { current: 2, .. })));
    assert_eq!(
        store.get_case("demo", "weather", "b").await.unwrap().case.extra["note"],
        "edited"
    );
    // Renaming onto an existing id conflicts and changes nothing.
    let mut renamed = edited.clone();
    renamed.eval_id = "a".into();
    assert!(matches!(
        store.update_case("demo", "weather", "b", &renamed, 2, None).await,
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        store
            .update_case("demo", "weather", "zz", &renamed, 1, None)
            .await,
        Err(StoreError::NotFound(_))
    ));
}

#[tokio::test]
async fn create_add_delete() {
    let (_dir, store) = temp_store().await;
    store.create_eval_set("demo", "empty", 5.0).await.unwrap();
    assert!(matches!(
        store.create_eval_set("demo", "empty", 5.0).await,
        Err(StoreError::Conflict(_))
    ));
    let exported = store.export_adk_json("demo", "empty").await.unwrap();
    assert_eq!(exported, "{\n  \"eval_set_id\": \"empty\",\n  \"name\": \"empty\",\n  \"eval_cases\": [],\n  \"creation_timestamp\": 5.0\n}");
    let case = eval_set(TWO_CASES).eval_cases[0].clone();
    store.add_case("demo", "empty", &case, None).await.unwrap();
    assert!(matches!(
        store.add_case("demo", "empty", &case, None).await,
        Err(StoreError::Conflict(_))
    ));
    store
        .delete_cases("demo", "empty", &["b".to_string()])
        .await
        .unwrap();
    assert!(matches!(
        store.delete_cases("demo", "empty", &["b".to_string()]).await,
        Err(StoreError::NotFound(_))
    ));
    store.delete_eval_set("demo", "empty").await.unwrap();
    assert!(matches!(
        store.export_adk_json("demo", "empty").await,
        Err(StoreError::NotFound(_))
    ));
}

#[tokio::test]
async fn the_stored_case_count_follows_every_write_of_cases() {
    let (_dir, store) = temp_store().await;
    let count = || async {
        store
            .eval_set_summary("demo", "weather")
            .await
            .unwrap()
            .case_count
    };
    import(&store, "demo", &eval_set(TWO_CASES), false).await.unwrap();
    assert_eq!(count().await, 2);
    let mut third = eval_set(TWO_CASES).eval_cases[0].clone();
    third.eval_id = "c".into();
    store.add_case("demo", "weather", &third, None).await.unwrap();
    assert_eq!(count().await, 3);
    let gone = ["a".to_string(), "c".to_string()];
    store.delete_cases("demo", "weather", &gone).await.unwrap();
    assert_eq!(count().await, 1);
    store.undo_delete("demo", "weather", &gone[..1]).await.unwrap();
    assert_eq!(count().await, 2);
    let page = store
        .list_cases("demo", "weather", &CaseListQuery::default(), 1, 50)
        .await
        .unwrap();
    assert_eq!((page.total_cases, page.cases.len()), (2, 2));
}

#[tokio::test]
async fn a_replace_of_a_tagged_copy_goes_through_only_while_the_tag_holds() {
    let (_dir, store) = temp_store().await;
    let set = eval_set(TWO_CASES);
    let first = import(&store, "demo", &set, false).await.unwrap().tag;
    let (_, exported) = store.export_tagged("demo", "weather").await.unwrap();
    assert_eq!(exported, first);
    let rows: Vec<CaseRow> = set.eval_cases.iter().map(CaseRow::new).collect();
    let replace = |tag: &str| ImportMode::ReplaceIfTag(tag.to_string());
    let second = store
        .import_eval_set("demo", &set, &rows, "ADK evalset", &replace(&first))
        .await
        .unwrap()
        .tag;
    assert_ne!(second, first);
    let stale = store
        .import_eval_set("demo", &set, &rows, "ADK evalset", &replace(&first))
        .await;
    assert!(matches!(stale, Err(StoreError::Stale { .. })), "{stale:?}");
    store
        .delete_cases("demo", "weather", &["a".to_string()])
        .await
        .unwrap();
    let (_, after_edit) = store.export_tagged("demo", "weather").await.unwrap();
    assert_ne!(after_edit, second, "every write of the evalset is a new tag");
    store.delete_eval_set("demo", "weather").await.unwrap();
    let gone = store
        .import_eval_set("demo", &set, &rows, "ADK evalset", &replace(&after_edit))
        .await;
    assert!(
        matches!(gone, Err(StoreError::Stale { .. })),
        "deleted since: {gone:?}"
    );
}

#[tokio::test]
async fn pages_are_clamped() {
    let (_dir, store) = temp_store().await;
    let cases: Vec<String> = (0..7)
        .map(|i| format!(r#"{{"eval_id": "c{i}", "conversation": []}}"#))
        .collect();
    let text = format!(r#"{{"eval_set_id": "p", "eval_cases": [{}]}}"#, cases.join(","));
    import(&store, "demo", &eval_set(&text), false).await.unwrap();
    let page = store
        .list_cases("demo", "p", &CaseListQuery::default(), 3, 3)
        .await
        .unwrap();
    assert_eq!((page.page, page.page_count(), page.cases.len()), (3, 3, 1));
    assert_eq!(
        store
            .list_cases("demo", "p", &CaseListQuery::default(), 99, 3)
            .await
            .unwrap()
            .page,
        3
    );
    assert_eq!(
        store
            .list_cases("demo", "p", &CaseListQuery::default(), 0, 3)
            .await
            .unwrap()
            .cases[0]
            .eval_id,
        "c0"
    );
}

pub(super) fn case_run(case_index: i64, status: i64) -> EvalRunCase {
    EvalRunCase {
        run_index: 0,
        case_index,
        eval_id: format!("case_{case_index}"),
        status: crate::eval::result::EvalStatus::from_number(status),
        error: None,
        metric_scores: vec![vec![Some(1.0), None]],
        result: serde_json::json!({"eval_id": format!("case_{case_index}")}),
    }
}

/// A new run of three cases of the demo app's `weather` evalset.
async fn weather_run(store: &Store) -> EvalRunRecord {
    new_run(store, "weather", 3).await
}

/// An eval set of `cases` cases with one turn each, `c0`, `c1`, ...
pub(super) fn run_set(eval_set_id: &str, cases: usize) -> CompactEvalSet {
    let cases: Vec<String> = (0..cases)
        .map(|n| format!(r#"{{"eval_id": "c{n}", "conversation": [{{"invocation_id": "i", "user_content": {{"parts": [{{"text": "hi"}}]}}}}]}}"#))
        .collect();
    let json = format!(
        r#"{{"eval_set_id": "{eval_set_id}", "eval_cases": [{}]}}"#,
        cases.join(",")
    );
    CompactEvalSet::from_adk_json(&json).unwrap()
}

/// A new run of the demo app's `eval_set_id` with `cases` one-repetition cases, queued for
/// workers.
pub(super) async fn new_run(store: &Store, eval_set_id: &str, cases: usize) -> EvalRunRecord {
    store
        .create_eval_run(&NewEvalRun {
            app_name: "demo",
            eval_set_id,
            agent: "demo",
            expected: &run_set(eval_set_id, cases),
            config_json: r#"{"criteria": {}}"#,
            num_runs: 1,
            total: cases,
            created_at: 1.0,
            label: None,
            whole_set: true,
            tools: Default::default(),
            commit: None,
            result_id: None,
            origin: Default::default(),
        })
        .await
        .unwrap()
}

#[tokio::test]
async fn finished_case_runs_are_stored_in_batches() {
    let (_dir, store) = temp_store().await;
    let run = weather_run(&store).await;
    store
        .save_eval_run_cases(
            run.row,
            &[case_run(0, 2), case_run(1, 1)],
            &[],
            &BatchWrite::default(),
        )
        .await
        .unwrap();
    // A retry of case 0 replaces its earlier row.
    store
        .save_eval_run_cases(
            run.row,
            &[case_run(2, 1), case_run(0, 1)],
            &[],
            &BatchWrite::default(),
        )
        .await
        .unwrap();
    let stored = store.eval_run_cases(run.row, true).await.unwrap();
    let rows: Vec<(i64, i64)> = stored.iter().map(|c| (c.case_index, c.status as i64)).collect();
    assert_eq!(rows, [(0, 1), (1, 1), (2, 1)]);
    assert_eq!(stored[1].metric_scores, [vec![Some(1.0), None]]);
    // The counts follow the replacement: case 0 failed, then passed.
    let summary = store
        .eval_run("demo", &run.summary.result_id)
        .await
        .unwrap()
        .summary;
    assert_eq!(
        (summary.done, summary.passed, summary.failed, summary.errors),
        (3, 3, 0, 0)
    );

    // A batch for a run that does not exist is an error, not a silent loss.
    assert!(store
        .save_eval_run_cases(run.row + 1, &[case_run(0, 1)], &[], &BatchWrite::default())
        .await
        .is_err());
    assert_eq!(store.eval_run_cases(run.row + 1, false).await.unwrap().len(), 0);
}

#[tokio::test]
async fn a_runs_results_read_a_page_at_a_time_in_run_and_case_order() {
    let (_dir, store) = temp_store().await;
    let run = weather_run(&store).await;
    let second_run = |case_index| EvalRunCase {
        run_index: 1,
        ..case_run(case_index, 1)
    };
    // Stored out of order, across two runs.
    let cases = [second_run(0), case_run(2, 1), case_run(0, 1), case_run(1, 2)];
    store
        .save_eval_run_cases(run.row, &cases, &[], &BatchWrite::default())
        .await
        .unwrap();
    let mut read = Vec::new();
    let mut after = None;
    loop {
        let page = store.eval_run_results_page(run.row, after, 2).await.unwrap();
        let Some(&(last, _)) = page.last() else { break };
        read.extend(
            page.into_iter()
                .map(|(at, result)| (at, result["eval_id"].clone())),
        );
        after = Some(last);
    }
    let order: Vec<(i64, i64)> = read.iter().map(|(at, _)| *at).collect();
    assert_eq!(order, [(0, 0), (0, 1), (0, 2), (1, 0)]);
    assert_eq!(read[3].1, "case_0");
}

#[tokio::test]
async fn deletes_older_than_the_undo_window_are_purged() {
    let (_dir, store) = temp_store().await;
    store.create_eval_set("demo", "set", 0.0).await.unwrap();
    for eval_id in ["old", "recent"] {
        let case: EvalCase =
            serde_json::from_value(serde_json::json!({"eval_id": eval_id, "conversation": []})).unwrap();
        store.add_case("demo", "set", &case, None).await.unwrap();
    }
    store
        .delete_cases("demo", "set", &["old".to_string(), "recent".to_string()])
        .await
        .unwrap();
    store.age_deleted_cases("old", 2).await.unwrap();
    assert_eq!(store.purge_deleted_cases(1).await.unwrap(), 1);
    let left: Vec<String> = store
        .deleted_cases("demo", "set")
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.eval_id)
        .collect();
    assert_eq!(left, ["recent"]);
}

#[tokio::test]
async fn the_case_list_filters_and_sorts_in_the_database() {
    let (_dir, store) = temp_store().await;
    store.create_eval_set("demo", "set", 0.0).await.unwrap();
    let cases = serde_json::json!([
        {"eval_id": "b_weather", "conversation": [{"user_content": {"parts": [{"text": "Rain in Paris?"}]},
            "intermediate_data": {"tool_uses": [{"name": "get_weather", "args": {}}]}}]},
        {"eval_id": "a_money", "conversation": [{"user_content": {"parts": [{"text": "20 EUR in USD, 50% off"}]},
            "intermediate_data": {"invocation_events": [{"author": "a", "content": {"parts": [
                {"function_call": {"name": "convert_currency", "args": {}}}]}}]}}]},
        {"eval_id": "c_two_turns", "conversation": [
            {"user_content": {"parts": [{"text": "hi"}]}}, {"user_content": {"parts": [{"text": "bye"}]}}]}
    ]);
    for case in cases.as_array().unwrap() {
        let case: EvalCase = serde_json::from_value(case.clone()).unwrap();
        store.add_case("demo", "set", &case, None).await.unwrap();
    }
    let ids = |page: crate::records::cases::CaseListPage| {
        page.cases.into_iter().map(|c| c.eval_id).collect::<Vec<_>>()
    };
    let list = |text: &str, sort: CaseSort, descending: bool| {
        let query = CaseListQuery {
            text: text.into(),
            sort,
            descending,
            failed_last_run: false,
        };
        let store = &store;
        async move { store.list_cases("demo", "set", &query, 1, 50).await.unwrap() }
    };
    assert_eq!(
        ids(list("", CaseSort::File, false).await),
        ["b_weather", "a_money", "c_two_turns"]
    );
    assert_eq!(
        ids(list("", CaseSort::EvalId, false).await),
        ["a_money", "b_weather", "c_two_turns"]
    );
    assert_eq!(ids(list("", CaseSort::Turns, true).await)[0], "c_two_turns");
    // By tool name (either intermediate_data form), by message, by id; case ignored; % is text.
    assert_eq!(ids(list("CURRENCY", CaseSort::File, false).await), ["a_money"]);
    assert_eq!(ids(list("weather", CaseSort::File, false).await), ["b_weather"]);
    assert_eq!(ids(list("paris", CaseSort::File, false).await), ["b_weather"]);
    assert_eq!(ids(list("50%", CaseSort::File, false).await), ["a_money"]);
    let none = list("nothing like it", CaseSort::File, false).await;
    assert_eq!((none.total_cases, none.cases.len(), none.page), (0, 0, 1));
    assert_eq!(list("two", CaseSort::File, false).await.total_cases, 1);
}

pub(super) fn summary_row(case_index: i64, score: f64) -> CaseSummaryRow {
    let status = EvalStatus::from_score(score, 0.5);
    CaseSummaryRow {
        case_index,
        summary: CaseSummary {
            eval_id: format!("case_{case_index}"),
            final_eval_status: status,
            num_runs: 1,
            metrics: vec![MetricSummary {
                metric_name: "m".into(),
                threshold: Some(0.5),
                score: Some(score),
                eval_status: status,
            }],
            passed_runs: usize::from(status == EvalStatus::Passed),
            errors: 0,
            pass_at_k: Vec::new(),
            pass_hat_k: Vec::new(),
        },
    }
}

#[tokio::test]
async fn case_summaries_are_written_with_their_case_runs_and_read_a_page_at_a_time() {
    let (_dir, store) = temp_store().await;
    let run = weather_run(&store).await;
    let cases = [case_run(2, 2), case_run(0, 1), case_run(1, 1)];
    let summaries = [summary_row(2, 0.0), summary_row(0, 1.0), summary_row(1, 0.75)];
    store
        .save_eval_run_cases(run.row, &cases, &summaries, &BatchWrite::default())
        .await
        .unwrap();
    assert_eq!(store.case_summary_count(run.row).await.unwrap(), 3);
    let page = store.case_summaries(run.row, 1, Some(1)).await.unwrap();
    assert_eq!(page, [summaries[2].summary.clone()]);
    let outcomes: Vec<(String, bool)> = store
        .case_outcomes(run.row)
        .await
        .unwrap()
        .into_iter()
        .map(|o| (o.eval_id, o.passed))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("case_0".to_string(), true),
            ("case_1".to_string(), true),
            ("case_2".to_string(), false)
        ]
    );
    let wanted = ["case_2".to_string(), "case_9".to_string()];
    assert_eq!(
        store.case_summaries_of(run.row, &wanted).await.unwrap(),
        [summaries[0].summary.clone()]
    );

    // Statistics cached at the current version are read back; a later write makes them stale,
    // and a cache computed before that write is refused.
    let head = store.eval_run_head("demo", &run.summary.result_id).await.unwrap();
    assert!(head.summarised);
    assert_eq!(head.stats_json, None);
    store
        .cache_run_stats(head.row, head.cases_version, "[1]")
        .await
        .unwrap();
    let cached = store.eval_run_head("demo", &run.summary.result_id).await.unwrap();
    assert_eq!(cached.stats_json.as_deref(), Some("[1]"));
    store
        .save_eval_run_cases(
            run.row,
            &[case_run(2, 1)],
            &[summary_row(2, 1.0)],
            &BatchWrite::default(),
        )
        .await
        .unwrap();
    store
        .cache_run_stats(head.row, head.cases_version, "[2]")
        .await
        .unwrap();
    let stale = store.eval_run_head("demo", &run.summary.result_id).await.unwrap();
    assert_eq!(stale.stats_json, None);
    assert_eq!(stale.cases_version, head.cases_version + 1);

    // Replacing every summary (a backfill) is refused once case runs were written since the
    // version it read.
    assert!(!store
        .replace_case_summaries(run.row, head.cases_version, &[summary_row(0, 0.0)])
        .await
        .unwrap());
    assert_eq!(store.case_summary_count(run.row).await.unwrap(), 3);
    store
        .cache_run_stats(stale.row, stale.cases_version, "[3]")
        .await
        .unwrap();
    assert!(store
        .replace_case_summaries(run.row, stale.cases_version, &[summary_row(0, 0.0)])
        .await
        .unwrap());
    assert_eq!(store.case_outcomes(run.row).await.unwrap().len(), 1);
    // Statistics cached from the replaced summaries are dropped with them.
    let replaced = store.eval_run_head("demo", &run.summary.result_id).await.unwrap();
    assert!(replaced.summarised);
    assert_eq!(replaced.stats_json, None);
}

#[tokio::test]
async fn a_runs_eval_set_is_stored_a_row_per_case_and_read_a_batch_at_a_time() {
    let (_dir, store) = temp_store().await;
    // More cases than one statement writes.
    let run = new_run(&store, "big", 600).await;
    let batch = store.eval_run_set_cases(run.row, 510..514).await.unwrap();
    assert_eq!(batch.len(), 4);
    assert!(batch[0].starts_with(r#"{"eval_id":"c510","#), "{}", batch[0]);
    assert!(batch[3].starts_with(r#"{"eval_id":"c513","#), "{}", batch[3]);
    let past_the_end = store.eval_run_set_cases(run.row, 598..602).await.unwrap_err();
    assert!(
        past_the_end
            .to_string()
            .contains("has not stored every case of 598..602"),
        "{past_the_end}"
    );
}

#[tokio::test]
async fn runs_stored_before_case_summaries_keep_their_eval_set_as_a_row_per_case_and_counts_after_migrating()
{
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    // The database as the build before case summaries left it: the earlier migrations only.
    let earlier = dir.path().join("migrations");
    std::fs::create_dir(&earlier).unwrap();
    for entry in std::fs::read_dir(crate::testing::repo::repo_path("migrations/sqlite")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name().to_string_lossy().as_ref() < "20261125000001" {
            std::fs::copy(entry.path(), earlier.join(entry.file_name())).unwrap();
        }
    }
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    sqlx::migrate::Migrator::new(earlier.as_path())
        .await
        .unwrap()
        .run(&pool)
        .await
        .unwrap();
    sqlx::raw_sql(
        r#"INSERT INTO eval_runs (id, result_id, app_name, eval_set_id, agent, status, expected_json,
               config_json, num_runs, total, pid, created_at, finished_at)
           VALUES (7, 'demo_weather_1.0', 'demo', 'weather', 'demo', 'finished',
               '{"eval_set_id": "weather", "eval_cases": [{"eval_id": "a", "conversation": []}, {"eval_id": "b", "conversation": []}, {"eval_id": "c", "conversation": []}]}',
               '{"criteria": {}}', 1, 3, 1, 1.0, 2.0);
           INSERT INTO eval_run_cases VALUES (7, 0, 0, 'a', 1, NULL, '[]', '{}'),
               (7, 0, 1, 'b', 2, NULL, '[]', '{}'), (7, 0, 2, 'c', 2, 'agent failed', '[]', '{}');"#,
    )
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;

    let store = Store::open(&Location::Sqlite(path)).await.unwrap();
    let run = store.eval_run("demo", "demo_weather_1.0").await.unwrap();
    // The set as a row per case (migration 20261204000001).
    assert_eq!(
        store.eval_run_set_cases(run.row, 1..3).await.unwrap(),
        [
            r#"{"eval_id":"b","conversation":[]}"#,
            r#"{"eval_id":"c","conversation":[]}"#
        ]
    );
    let summary = &run.summary;
    assert_eq!(
        (summary.done, summary.passed, summary.failed, summary.errors),
        (3, 1, 1, 1)
    );
    let head = store.eval_run_head("demo", "demo_weather_1.0").await.unwrap();
    assert!(!head.summarised, "its summaries are written on first read");
    assert_eq!(store.case_summary_count(7).await.unwrap(), 0);
}

#[tokio::test]
async fn the_latest_run_of_an_evalset_is_never_one_of_recorded_sessions() {
    let (_dir, store) = temp_store().await;
    let agent_run = new_run(&store, "set", 1).await;
    let recorded = NewEvalRun {
        app_name: "demo",
        eval_set_id: "set",
        agent: "demo",
        expected: &run_set("set", 1),
        config_json: r#"{"criteria": {}}"#,
        num_runs: 1,
        total: 1,
        created_at: 2.0,
        label: None,
        whole_set: false,
        tools: Default::default(),
        commit: None,
        result_id: Some("sessions_scored"),
        origin: crate::records::runs::RunOrigin::Recorded,
    };
    store
        .create_finished_eval_run(&recorded, &[], &[], 3.0)
        .await
        .unwrap();
    let latest = store.latest_eval_run("demo", "set").await.unwrap().unwrap();
    assert_eq!(latest.summary.result_id, agent_run.summary.result_id);
}

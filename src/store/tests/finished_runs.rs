//! A run already over (recorded sessions scored, a run `adk eval` wrote) stored whole: its row,
//! its case runs, their summaries and its counts in one write, finished, with nothing queued.

use super::{case_run, run_set, summary_row, temp_store};
use crate::records::runs::{RunOrigin, RunStatus};
use crate::store::{BatchClaim, NewEvalRun, StoreError};

#[tokio::test]
async fn a_run_already_over_is_stored_whole_and_finished_in_one_write() {
    let (_dir, store) = temp_store().await;
    let expected = run_set("set", 2);
    let run = NewEvalRun {
        app_name: "demo",
        eval_set_id: "set",
        agent: "demo",
        expected: &expected,
        config_json: r#"{"criteria": {}}"#,
        num_runs: 1,
        total: 2,
        created_at: 1.0,
        label: None,
        whole_set: true,
        tools: Default::default(),
        commit: None,
        result_id: Some("adk_run"),
        origin: RunOrigin::Adk,
    };
    let cases = [case_run(0, 1), case_run(1, 2)];
    let summaries = [summary_row(0, 1.0), summary_row(1, 0.0)];
    let record = store
        .create_finished_eval_run(&run, &cases, &summaries, 5.0)
        .await
        .unwrap();
    let summary = &record.summary;
    assert_eq!(
        (summary.status, summary.finished_at),
        (RunStatus::Finished, Some(5.0))
    );
    assert_eq!(
        (
            summary.total,
            summary.done,
            summary.passed,
            summary.failed,
            summary.errors
        ),
        (2, 2, 1, 1, 0)
    );
    assert_eq!(store.eval_run_cases(record.row, false).await.unwrap().len(), 2);
    assert_eq!(store.case_summary_count(record.row).await.unwrap(), 2);
    let head = store.eval_run_head("demo", "adk_run").await.unwrap();
    assert!(head.summarised);
    assert!(matches!(
        store.claim_run_batch(record.row).await.unwrap(),
        BatchClaim::Over(RunStatus::Finished)
    ));

    // ADK's id is taken once: the second is refused and stores nothing.
    let again = store
        .create_finished_eval_run(&run, &cases, &summaries, 6.0)
        .await
        .unwrap_err();
    assert!(matches!(again, StoreError::Conflict(_)), "{again}");
    assert_eq!(store.list_eval_runs("demo", None).await.unwrap().len(), 1);
}

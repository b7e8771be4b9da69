//! The services against a real SQLite file and the demo agent.

use super::eval_runs::{eval_run, resume_eval_run, start_eval_run, StartEvalRun};
use super::eval_sets::import_file;
use super::Services;
use crate::agent::AgentProfiles;
use crate::eval::{EvalConfig, Judge, JudgeRequest, ScoringServices};
use crate::records::RunStatus;
use crate::store::Store;
use futures::future::BoxFuture;
use futures::FutureExt;
use std::sync::Arc;

const EVALSET: &str =
    r#"[{"query": "What's the weather in Paris?", "expected_tool_use": [], "reference": "Sunny."}]"#;

/// A judge whose every call panics, as a bug in a metric or a client might.
struct PanickingJudge;

impl Judge for PanickingJudge {
    fn complete<'a>(&'a self, _request: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
        async { panic!("the judge fell over") }.boxed()
    }
}

/// A judge that always answers yes.
struct YesJudge;

impl Judge for YesJudge {
    fn complete<'a>(&'a self, _request: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
        async { Ok("YES".to_string()) }.boxed()
    }
}

async fn services(dir: &tempfile::TempDir, judge: Arc<dyn Judge>) -> Services {
    let store = Store::open(&dir.path().join("test.db")).await.unwrap();
    let scoring = ScoringServices {
        judge: Some(judge),
        embedder: None,
    };
    Services::new(store, AgentProfiles::default(), scoring)
}

#[tokio::test]
async fn a_panic_in_a_run_leaves_it_interrupted_and_resumable() {
    let dir = tempfile::tempdir().unwrap();
    let services = services(&dir, Arc::new(PanickingJudge)).await;
    import_file(&services.store, "demo", "weather.test.json", None, EVALSET, false)
        .await
        .unwrap();
    let config = EvalConfig::from_picked([("answer_correctness", 1.0, None)]).unwrap();
    let start = StartEvalRun {
        app_name: "demo",
        eval_set_id: "weather",
        eval_ids: &[],
        config,
        agent: None,
        num_runs: 1,
    };
    let (record, handle) = start_eval_run(&services, start).await.unwrap();
    let result_id = record.summary.result_id;
    handle.await.expect("the run's task catches the panic");

    assert!(
        !services.eval_runs.is_running(&result_id),
        "the run is still registered"
    );
    let stored = eval_run(&services.store, "demo", &result_id).await.unwrap();
    assert_eq!(stored.summary.status, RunStatus::Interrupted);

    // Fixed (here: another judge), the run resumes and finishes.
    let fixed = Services {
        scoring: ScoringServices {
            judge: Some(Arc::new(YesJudge)),
            embedder: None,
        },
        ..services.clone()
    };
    let (_, handle) = resume_eval_run(&fixed, "demo", &result_id).await.unwrap();
    handle.await.unwrap();
    let stored = eval_run(&services.store, "demo", &result_id).await.unwrap();
    assert_eq!(stored.summary.status, RunStatus::Finished);
    assert_eq!(stored.summary.done, 1);
}

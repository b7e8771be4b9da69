//! The services against a real SQLite file and the demo agent.

use super::case_results::case_across_runs;
use super::eval_sets::{import_file, ImportMode};
use super::runs::lifecycle::{resume_eval_run, start_eval_run};
use super::runs::plan::{RunEvalSet, RunMetrics, RunRequest};
use super::runs::stored::eval_run;
use super::runs::views::{compare, run_page};
use super::Services;
use crate::agent::AgentProfiles;
use crate::eval::config::EvalConfig;
use crate::eval::services::{Judge, JudgeRequest, ScoringServices};
use crate::records::runs::{RunScope, RunStatus};
use crate::store::{EvalRunRecord, Store};
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
    let location = crate::testing::database::scratch_database(dir.path()).await;
    let store = Store::open(&location).await.unwrap();
    let scoring = ScoringServices {
        judge: Some(judge),
        ..ScoringServices::default()
    };
    Services::new(store, AgentProfiles::default(), scoring)
}

/// Imports [`EVALSET`] as the `weather` evalset of the demo app; answers its id.
async fn import_weather(services: &Services) -> String {
    import_file(
        &services.store,
        "demo",
        "weather.test.json",
        None,
        EVALSET.into(),
        ImportMode::New,
    )
    .await
    .unwrap()
    .eval_set_id
}

/// Starts a run of every case of the imported weather evalset on the demo agent, `num_runs`
/// times.
async fn start_weather_run(
    services: &Services,
    config: EvalConfig,
    num_runs: usize,
) -> (EvalRunRecord, tokio::task::JoinHandle<()>) {
    let start = RunRequest {
        app_name: "demo".into(),
        eval_set: RunEvalSet::Stored("weather".into()),
        scope: RunScope::All,
        metrics: RunMetrics::Config(config),
        simulator: None,
        agent: None,
        num_runs,
        label: None,
        tools: Default::default(),
    };
    start_eval_run(services, start).await.unwrap()
}

#[tokio::test]
async fn a_panic_in_a_run_leaves_it_interrupted_and_resumable() {
    let dir = tempfile::tempdir().unwrap();
    let services = services(&dir, Arc::new(PanickingJudge)).await;
    import_weather(&services).await;
    let config = EvalConfig::from_picked([("answer_correctness", 1.0, None)]).unwrap();
    let (record, handle) = start_weather_run(&services, config, 1).await;
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
            ..ScoringServices::default()
        },
        ..services.clone()
    };
    let (_, handle) = resume_eval_run(&fixed, "demo", &result_id).await.unwrap();
    handle.await.unwrap();
    let stored = eval_run(&services.store, "demo", &result_id).await.unwrap();
    assert_eq!(stored.summary.status, RunStatus::Finished);
    assert_eq!(stored.summary.done, 1);
}

#[tokio::test]
async fn an_editor_save_renames_in_the_same_write_and_a_stale_one_changes_nothing() {
    use super::cases::{case_ids, get_case, save_case, tool_suggestions, CaseError};

    let dir = tempfile::tempdir().unwrap();
    let services = services(&dir, Arc::new(YesJudge)).await;
    let set = &import_weather(&services).await;
    let store = &services.store;
    let [old_id] = case_ids(store, "demo", set).await.unwrap().try_into().unwrap();
    let opened = get_case(store, "demo", set, &old_id).await.unwrap();

    let mut edited = opened.case.clone();
    edited.eval_id = "paris_weather".into();
    let saved = save_case(store, "demo", set, &old_id, &edited, opened.version)
        .await
        .unwrap();
    assert_eq!((saved.case.eval_id.as_str(), saved.version), ("paris_weather", 2));
    assert_eq!(case_ids(store, "demo", set).await.unwrap(), ["paris_weather"]);

    // Saved again from the version first opened: refused, and the stored case stays.
    let stale = save_case(store, "demo", set, "paris_weather", &edited, opened.version).await;
    assert!(matches!(stale, Err(CaseError::Stale { current: 2, .. })));
    // A typed id keeps to letters, digits and `_-.`; a case has turns or a scenario.
    edited.eval_id = "paris weather".into();
    let bad_id = save_case(store, "demo", set, "paris_weather", &edited, 2).await;
    assert!(matches!(bad_id, Err(CaseError::InvalidId(_))));
    edited.eval_id = "paris_weather".into();
    edited.conversation = None;
    let no_turns = save_case(store, "demo", set, "paris_weather", &edited, 2).await;
    assert!(matches!(no_turns, Err(CaseError::InvalidCase(_))));
    assert_eq!(
        get_case(store, "demo", set, "paris_weather")
            .await
            .unwrap()
            .version,
        2
    );

    // The demo agent's tools are suggested, with those the evalset calls.
    let names = tool_suggestions(store, &services.profiles, "demo", set)
        .await
        .unwrap();
    assert!(names.iter().any(|n| n == "get_weather"), "{names:?}");
}

#[tokio::test]
async fn a_runs_results_come_a_page_of_summaries_at_a_time() {
    use super::runs::views::{results_page, RUN_CASES_PER_PAGE};

    let dir = tempfile::tempdir().unwrap();
    let services = services(&dir, Arc::new(YesJudge)).await;
    let cases: Vec<serde_json::Value> = (0..60)
        .map(|i| {
            serde_json::json!({"eval_id": format!("case_{i:02}"), "conversation": [{
                "invocation_id": format!("i{i}"),
                "user_content": {"role": "user", "parts": [{"text": "What's the weather in Paris?"}]},
                "final_response": {"role": "model", "parts": [{"text": "Sunny."}]}
            }]})
        })
        .collect();
    let file = serde_json::json!({"eval_set_id": "weather", "eval_cases": cases}).to_string();
    import_file(
        &services.store,
        "demo",
        "weather.evalset.json",
        None,
        file,
        ImportMode::New,
    )
    .await
    .unwrap();
    let config = EvalConfig::from_picked([("response_match_score", 0.1, None)]).unwrap();
    let (record, handle) = start_weather_run(&services, config, 1).await;
    handle.await.unwrap();
    let id = &record.summary.result_id;
    let first = results_page(&services.store, "demo", id, 1).await.unwrap();
    assert_eq!(
        (first.case_summaries.len(), first.page_count),
        (RUN_CASES_PER_PAGE, 2)
    );
    let second = results_page(&services.store, "demo", id, 2).await.unwrap();
    assert_eq!(second.case_summaries.len(), 60 - RUN_CASES_PER_PAGE);
    // In the evalset's order: the second page starts where the first ended.
    assert_eq!(second.case_summaries[0].eval_id, "case_50");
    assert_eq!(
        results_page(&services.store, "demo", id, 99).await.unwrap().page,
        2
    );
}

#[tokio::test]
async fn a_new_scenario_case_is_checked_field_by_field_then_added() {
    use super::cases::{case_ids, new_scenario_case, CaseError, NewScenario};

    let dir = tempfile::tempdir().unwrap();
    let services = services(&dir, Arc::new(YesJudge)).await;
    let store = &services.store;
    let set = import_weather(&services).await;
    let new = NewScenario {
        eval_id: "book_flight",
        starting_prompt: "I need a flight.",
        conversation_plan: "SFO to LAX next Tuesday.",
        persona: Some("EXPERT"),
    };
    let refused = |result: Result<_, CaseError>| match result {
        Err(CaseError::InvalidCase(reason) | CaseError::InvalidId(reason)) => reason,
        Err(CaseError::Conflict(reason)) => reason,
        other => panic!("not refused: {other:?}"),
    };
    let empty_plan = NewScenario {
        conversation_plan: "  ",
        ..new.clone()
    };
    assert!(refused(new_scenario_case(store, "demo", &set, empty_plan).await)
        .starts_with("conversation_scenario.conversation_plan:"));
    let unknown_persona = NewScenario {
        persona: Some("GRUMPY"),
        ..new.clone()
    };
    assert!(refused(new_scenario_case(store, "demo", &set, unknown_persona).await).contains("`GRUMPY`"));

    let added = new_scenario_case(store, "demo", &set, new.clone()).await.unwrap();
    let scenario = added.case.conversation_scenario.unwrap();
    assert_eq!(scenario.user_persona, Some(serde_json::json!("EXPERT")));
    assert!(added.case.conversation.is_none());
    assert!(case_ids(store, "demo", &set)
        .await
        .unwrap()
        .iter()
        .any(|id| id == "book_flight"));
    assert!(refused(new_scenario_case(store, "demo", &set, new).await).contains("book_flight"));
}

#[test]
fn the_picker_marks_what_this_server_cannot_score_and_offers_the_declared_evaluators() {
    use super::metric_offer::offered_metrics;
    use crate::eval::evaluators::{Evaluator, EvaluatorReply, EvaluatorRequest};

    struct Fixed;
    impl Evaluator for Fixed {
        fn evaluate<'a>(&'a self, _: &'a EvaluatorRequest) -> BoxFuture<'a, Result<EvaluatorReply, String>> {
            async { Ok(EvaluatorReply::scored(1.0)) }.boxed()
        }
    }
    let mut scoring = ScoringServices::default();
    scoring.evaluators.insert("orders_written", Arc::new(Fixed));
    let offered = offered_metrics(&scoring);
    let find = |name: &str| offered.iter().find(|m| m.metric_name == name).unwrap();
    let judged = find("final_response_match_v2");
    assert_eq!(judged.needs, ["judge model", "expected response"]);
    assert!(judged
        .unavailable
        .as_deref()
        .unwrap()
        .starts_with("needs a judge model: add a [judge] table"));
    assert!(find("semantic_similarity")
        .unavailable
        .as_deref()
        .unwrap()
        .contains("make model"));
    let trajectory = find("tool_trajectory_avg_score");
    assert_eq!(
        (trajectory.needs.as_slice(), &trajectory.unavailable),
        (&["expected tool calls".to_string()][..], &None)
    );
    let own = find("orders_written");
    assert_eq!(
        own.criterion_options.as_deref(),
        Some(r#"{"evaluator":"orders_written"}"#)
    );
    // What the picker proposes for it is a config the server accepts.
    EvalConfig::from_picked([(
        "orders_written",
        own.default_threshold,
        own.criterion_options.as_deref(),
    )])
    .unwrap();

    scoring.judge = Some(Arc::new(YesJudge));
    assert_eq!(
        offered_metrics(&scoring)[7].unavailable,
        None,
        "a judge makes the judged metrics available"
    );
}

#[tokio::test]
async fn a_run_page_pools_repetitions_and_a_run_stored_before_summaries_gets_them_on_first_read() {
    let dir = tempfile::tempdir().unwrap();
    let services = services(&dir, Arc::new(YesJudge)).await;
    import_weather(&services).await;
    let config = EvalConfig::from_picked([("response_match_score", 0.5, None)]).unwrap();
    let (record, handle) = start_weather_run(&services, config, 3).await;
    handle.await.unwrap();
    let result_id = &record.summary.result_id;
    let page = run_page(&services.store, "demo", result_id, 1).await.unwrap();
    assert_eq!(page.summary.done, 3);
    assert_eq!(page.cases.len(), 1);
    assert_eq!(page.cases[0].num_runs, 3);
    assert_eq!(page.metrics[0].bins.iter().map(|bin| bin.count).sum::<u32>(), 1);

    services.store.forget_case_summaries(record.row).await.unwrap();
    let again = run_page(&services.store, "demo", result_id, 1).await.unwrap();
    assert_eq!(again, page);
    let compared = compare(&services.store, "demo", result_id, result_id, None, 1)
        .await
        .unwrap();
    assert_eq!(compared.cases.len(), 1);
    assert_eq!(compared.cases[0].before, Some(page.cases[0].clone()));
}

#[tokio::test]
async fn a_case_across_runs_covers_runs_stored_before_summaries_oldest_first() {
    let dir = tempfile::tempdir().unwrap();
    let services = services(&dir, Arc::new(YesJudge)).await;
    import_weather(&services).await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let config = EvalConfig::from_picked([("response_match_score", 0.5, None)]).unwrap();
        let (record, handle) = start_weather_run(&services, config, 1).await;
        handle.await.unwrap();
        ids.push((record.row, record.summary.result_id));
    }
    services.store.forget_case_summaries(ids[0].0).await.unwrap();
    let eval_id = run_page(&services.store, "demo", &ids[1].1, 1)
        .await
        .unwrap()
        .cases[0]
        .eval_id
        .clone();
    let history = case_across_runs(&services.store, "demo", "weather", &eval_id)
        .await
        .unwrap();
    let shown: Vec<&str> = history.iter().map(|run| run.result_id.as_str()).collect();
    assert_eq!(shown, [ids[0].1.as_str(), ids[1].1.as_str()]);
    // The same case and agent, so the same summary, but for how long the turn took: a wall
    // clock reading that may differ by a millisecond on a busy machine.
    let untimed = |summary: &crate::eval::result::CaseSummary| {
        let mut summary = summary.clone();
        summary
            .metrics
            .retain(|m| m.metric_name != pure_metrics::efficiency::INVOCATION_DURATION_V1);
        summary
    };
    assert_eq!(untimed(&history[0].summary), untimed(&history[1].summary));
}

//! The metric table against what reads it: the config, scoring, the picker and the messages.

use super::*;
use crate::eval::config::EvalConfig;
use crate::eval::result::{EvalCaseResult, EvalMetricResult, EvalStatus};
use crate::eval::score::{score_case, CaseRunVerdict};
use crate::eval::services::{Embedder, Judge, JudgeRequest, ScoringServices};
use crate::evalset::{parse_case_lean, ConversationScenario, EvalCase, Invocation};
use futures::executor::block_on;
use futures::future::BoxFuture;
use pure_metrics::efficiency::Efficiency;
use serde_json::json;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Answers every prompt "yes", counting them.
#[derive(Default)]
struct YesJudge(AtomicUsize);

impl Judge for YesJudge {
    fn complete<'a>(&'a self, _: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok("yes".to_string()) })
    }
}

/// The same vector for every text, counting the calls.
#[derive(Default)]
struct SameEmbedder(AtomicUsize);

impl Embedder for SameEmbedder {
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, String>> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move { Ok(vec![vec![1.0, 0.0]; texts.len()]) })
    }
}

fn weather_turn() -> Invocation {
    serde_json::from_value(json!({
        "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        "final_response": {"role": "model", "parts": [{"text": "Sunny in Paris."}]},
        "intermediate_data": {
            "tool_uses": [{"id": "1", "name": "get_weather", "args": {"city": "Paris"}}],
            "tool_responses": [{"id": "1", "name": "get_weather", "response": {"sky": "sunny"}}]
        }
    }))
    .unwrap()
}

#[test]
fn every_metric_name_is_known_once() {
    let names = METRICS
        .iter()
        .map(|spec| spec.name)
        .chain(approximations().map(|a| a.adk_name))
        .chain(INFORMATIONAL_ALIASES.map(|(alias, _)| alias))
        .chain(Efficiency::ALL.map(Efficiency::name));
    let mut seen = HashSet::new();
    for name in names {
        assert!(seen.insert(name), "`{name}` is named twice");
    }
}

/// The table and the dispatch cannot drift apart: every metric of the table is read from a
/// config into what its row builds, with its row's needs, and `score_case` scores it (asking
/// the judge or the embedder when its needs say so) or says why it could not.
#[test]
fn every_metric_of_the_table_is_scored_by_what_the_table_names() {
    let case = EvalCase {
        eval_id: "weather".into(),
        conversation: Some(vec![weather_turn()]),
        ..EvalCase::default()
    };
    for spec in METRICS {
        let config = EvalConfig::from_picked([(spec.name, spec.default_threshold, spec.criterion_options)])
            .unwrap_or_else(|error| panic!("{}: {error}", spec.name));
        let metric = &config.metrics[0];
        assert_eq!(metric.name, spec.name);
        let dispatched = match (spec.build, &metric.kind) {
            (Build::Metric(build), kind) => build(&metric.criterion, spec.name).as_ref() == Ok(kind),
            (_, MetricKind::Judge(judge)) => {
                spec.judge_kind(&metric.criterion, spec.name).unwrap().as_ref() == Ok(&judge.kind)
            }
            _ => false,
        };
        assert!(
            dispatched,
            "{}: {:?} read as {:?}",
            spec.name, spec.build, metric.kind
        );
        assert_eq!(
            (metric.needs, metric.reads_lean_case),
            (spec.needs, spec.reads_lean_case),
            "{}",
            spec.name
        );

        let (judge, embedder) = (Arc::new(YesJudge::default()), Arc::new(SameEmbedder::default()));
        let services = ScoringServices {
            judge: Some(judge.clone()),
            embedder: Some(embedder.clone()),
            ..ScoringServices::default()
        };
        // A metric that judges a simulated user needs a scenario case.
        let scenario_case = scenario_case();
        let case = if spec.needs.contains(&Need::Scenario) {
            &scenario_case
        } else {
            &case
        };
        let result = block_on(score_case(
            "set",
            Cow::Borrowed(case),
            vec![weather_turn()],
            &config,
            &services,
        ));
        let turn = &result.eval_metric_result_per_invocation[0].eval_metric_results[0];
        assert_eq!(turn.metric_name, spec.name);
        assert!(
            turn.score.is_some() || turn.details.reason.as_deref().is_some_and(|r| !r.is_empty()),
            "{}: neither a score nor a reason: {turn:?}",
            spec.name
        );
        let asked = (
            judge.0.load(Ordering::SeqCst) > 0,
            embedder.0.load(Ordering::SeqCst) > 0,
        );
        let expected = (
            spec.needs.contains(&Need::JudgeModel),
            spec.needs.contains(&Need::EmbeddingModel),
        );
        assert_eq!(asked, expected, "{}: (judge asked, embedder asked)", spec.name);
    }
}

#[test]
fn names_outside_the_table_are_refused_with_their_reason() {
    let error = |name: &str| {
        EvalConfig::parse(&json!({"criteria": {name: 0.5}}).to_string())
            .unwrap_err()
            .to_string()
    };
    for stand_in in approximations() {
        let message = error(stand_in.adk_name);
        assert!(
            message.contains(&format!("use `{}`", stand_in.name)) && message.contains("Vertex AI"),
            "{message}"
        );
        // The stand-in itself is a metric of the table, which says what it approximates.
        let info = metric_infos(ServerModels::default())
            .into_iter()
            .find(|info| info.metric_name == stand_in.name)
            .unwrap();
        assert!(info.note.unwrap().contains(stand_in.adk_name));
        assert_eq!(info.prompt.as_deref(), Some(stand_in.prompt));
    }
    for (alias, adk_name) in INFORMATIONAL_ALIASES {
        assert!(error(alias).contains(&format!("is reported on every eval as `{adk_name}`")));
    }
    for metric in Efficiency::ALL {
        assert!(error(metric.name()).contains("does not support a threshold"));
    }
    assert_eq!(
        error("bleu"),
        "criteria.bleu: unknown metric `bleu`; supported: semantic_similarity, answer_relevance, \
         tool_trajectory_avg_score, response_match_score, tool_trajectory_precision, tool_trajectory_recall, \
         tool_trajectory_f1, tool_single_use, final_response_match_v2, rubric_based_final_response_quality_v1, \
         rubric_based_tool_use_quality_v1, rubric_based_multi_turn_trajectory_quality_v1, hallucinations_v1, \
         per_turn_user_simulator_quality_v1, relevancy, fact_checking, answer_correctness, answer_faithfulness, answer_relevancy, context_precision, \
         context_recall, faithfulness, g_eval, coherence, safety, task_success, trajectory_quality, \
         tool_use_quality (or a custom judge: a criterion with judge_prompt or G-Eval's criteria; \
         or your own evaluator: a criterion with url or evaluator)"
    );
}

/// The row's metric alone, as the browser picks it with its defaults.
fn picked(spec: &MetricSpec) -> EvalConfig {
    let config = EvalConfig::from_picked([(spec.name, spec.default_threshold, spec.criterion_options)]);
    config.unwrap_or_else(|error| panic!("{}: {error}", spec.name))
}

/// Scoring services that answer at once: the judge "yes" to everything, every text the same
/// embedding.
/// A case a simulated user plays: a scenario, no expected invocations.
fn scenario_case() -> EvalCase {
    EvalCase {
        eval_id: "scenario".into(),
        conversation_scenario: Some(ConversationScenario {
            starting_prompt: "What's the weather in Paris?".into(),
            conversation_plan: "Ask about the weather.".into(),
            ..ConversationScenario::default()
        }),
        ..EvalCase::default()
    }
}

fn fake_services() -> ScoringServices {
    ScoringServices {
        judge: Some(Arc::new(YesJudge::default())),
        embedder: Some(Arc::new(SameEmbedder::default())),
        ..ScoringServices::default()
    }
}

/// The first metric's result over the case, and its result on each invocation.
fn first_metric(result: &EvalCaseResult) -> (EvalMetricResult, Vec<EvalMetricResult>) {
    let per_invocation = result.eval_metric_result_per_invocation.iter();
    (
        result.overall_eval_metric_results[0].clone(),
        per_invocation
            .map(|turn| turn.eval_metric_results[0].clone())
            .collect(),
    )
}

/// A row's needs say what scoring reads of the expected invocations. On a case without them (a
/// conversation scenario) a metric no judge scores is NOT_EVALUATED exactly when its row needs
/// expected tool calls or an expected response, and a judge that needs them says why on every
/// turn; on a case with them, every metric no judge scores is evaluated.
#[test]
fn a_row_is_not_evaluated_without_expected_invocations_exactly_when_it_needs_them() {
    let scripted = EvalCase {
        eval_id: "weather".into(),
        conversation: Some(vec![weather_turn()]),
        ..EvalCase::default()
    };
    let scenario = scenario_case();
    let services = fake_services();
    for spec in METRICS {
        let config = picked(spec);
        let score = |case: &EvalCase| {
            let result = block_on(score_case(
                "set",
                Cow::Borrowed(case),
                vec![weather_turn()],
                &config,
                &services,
            ));
            first_metric(&result)
        };
        let needs_expected = spec.needs.iter().any(|need| need.is_expected_invocations());
        let (overall, turns) = score(&scenario);
        let not_evaluated = overall.eval_status == EvalStatus::NotEvaluated;
        if spec.needs.contains(&Need::JudgeModel) {
            // Only "yes" is answered here, which not every judge reads: a judge's missing
            // expected invocation shows in its reasons.
            if needs_expected {
                assert!(not_evaluated, "{}: {overall:?}", spec.name);
                assert!(
                    turns.iter().all(|turn| turn.details.reason.is_some()),
                    "{}: {turns:?}",
                    spec.name
                );
            }
            continue;
        }
        assert_eq!(
            not_evaluated, needs_expected,
            "{}: NOT_EVALUATED without expected invocations, and needs {:?}",
            spec.name, spec.needs
        );
        assert!(score(&scripted).0.score.is_some(), "{}: not scored", spec.name);
    }
}

/// What decides a judge is its row's build; that row must say it needs the judge model.
#[test]
fn a_row_that_builds_a_judge_needs_the_judge_model() {
    for spec in METRICS {
        let config = picked(spec);
        let criterion = &config.metrics[0].criterion;
        assert_eq!(
            spec.judge_kind(criterion, spec.name).is_some(),
            spec.needs.contains(&Need::JudgeModel),
            "{}",
            spec.name
        );
    }
}

/// A row that says it reads a lean case scores the expected and actual cases read lean
/// (`parse_case_lean`, as `Keep::Verdicts` has them read) as it scores them whole: the same
/// scores, statuses and details, over the case and on each turn.
#[test]
fn a_row_that_reads_a_lean_case_scores_it_as_the_whole_case() {
    let case = |response: &str, city: &str| -> EvalCase {
        let weather = json!({"id": "1", "name": "get_weather", "args": {"city": city}});
        serde_json::from_value(json!({
            "eval_id": "weather",
            "session_input": {"app_name": "app", "user_id": "u", "state": {"unit": "C"}},
            "rubrics": [{"rubric_id": "r", "rubric_content": {"text_property": "Polite."}}],
            "conversation": [
                {
                    "invocation_id": "1",
                    "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                    "final_response": {"role": "model", "parts": [{"text": response}]},
                    "intermediate_data": {
                        "tool_uses": [weather],
                        "tool_responses": [{"id": "1", "name": "get_weather", "response": {"sky": "sunny"}}],
                        "intermediate_responses": [["agent", [{"text": "Looking it up."}]]]
                    },
                    "app_details": {"agent_details": {}},
                    "duration": 1.5
                },
                {
                    "invocation_id": "2",
                    "user_content": {"role": "user", "parts": [{"text": "And tomorrow?"}]},
                    "final_response": {"role": "model", "parts": [{"text": "Rain.", "thought": false}]},
                    "intermediate_data": {"invocation_events": [
                        {"author": "a", "content": {"parts": [{"function_call": {"id": "2", "name": "get_weather", "args": {"city": city, "day": 1}}}]},
                         "usage_metadata": {"prompt_token_count": 7}},
                        {"author": "a", "content": {"parts": [{"function_response": {"name": "get_weather", "response": {"sky": "rain"}}}]}}
                    ]}
                }
            ]
        }))
        .unwrap()
    };
    let lean = |case: &EvalCase| parse_case_lean(&serde_json::to_string(case).unwrap()).unwrap();
    let (expected, actual) = (case("Sunny in Paris.", "Paris"), case("It is sunny.", "paris"));
    assert_ne!(lean(&expected), expected, "the lean read keeps less");
    let rows: Vec<&MetricSpec> = METRICS.iter().filter(|spec| spec.reads_lean_case).collect();
    assert!(!rows.is_empty());
    let services = fake_services();
    for spec in rows {
        let config = picked(spec);
        let score = |expected: EvalCase, actual: EvalCase| {
            let turns = actual.conversation.unwrap_or_default();
            block_on(score_case("set", Cow::Owned(expected), turns, &config, &services))
        };
        let whole = score(expected.clone(), actual.clone());
        let read_lean = score(lean(&expected), lean(&actual));
        assert!(
            whole.overall_eval_metric_results[0].score.is_some(),
            "{}",
            spec.name
        );
        assert_eq!(first_metric(&read_lean), first_metric(&whole), "{}", spec.name);
        assert_eq!(
            CaseRunVerdict::of_result(&read_lean, &config),
            CaseRunVerdict::of_result(&whole, &config),
            "{}",
            spec.name
        );
    }
}

//! Tests of scoring runs into ADK's results: statuses, means, summaries, partial credit, pass@k.

use super::*;
use crate::eval::case_summaries::CaseSummaries;
use crate::eval::config::{EvalConfig, MetricKind};
use crate::eval::lineup::{ActualItem, ExpectedCases};
use crate::eval::result::{EvalSetResult, EvalStatus};
use crate::eval::score::{
    pass_at_and_hat_k, score_cases, score_eval_set, summarize_case, summarize_cases, CaseRunScores,
    CaseRunVerdict, Keep, ScoredCase,
};
use crate::eval::services::ScoringServices;
use crate::evalset::{parse_evalset_file, EvalSet, LegacyDefaults};
use futures::executor::block_on;
use pure_metrics::exact_mean::exact_mean;
use pure_metrics::partial::TrajectoryShare;
use pure_metrics::rouge::rouge1_fmeasure;

fn assert_close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < 1e-9, "{actual} != {expected}");
}

fn eval_set(cases: Value) -> EvalSet {
    let text = json!({"eval_set_id": "set", "eval_cases": cases}).to_string();
    let mut new_id = || "inv".to_string();
    let legacy = LegacyDefaults {
        name: "set",
        file_name: "set.json",
        now: 0.0,
        new_invocation_id: &mut new_id,
    };
    parse_evalset_file(&text, legacy).unwrap().0
}

fn turn(response: &str, calls: Value) -> Value {
    json!({
        "user_content": {"parts": [{"text": "q"}]},
        "final_response": {"role": "model", "parts": [{"text": response}]},
        "intermediate_data": {"tool_uses": calls},
    })
}

#[test]
fn case_status_walks_metrics_in_order() {
    use EvalStatus::*;
    assert_eq!(EvalStatus::of_case([]), NotEvaluated);
    assert_eq!(EvalStatus::of_case([NotEvaluated, NotEvaluated]), NotEvaluated);
    assert_eq!(EvalStatus::of_case([NotEvaluated, Passed]), Passed);
    assert_eq!(EvalStatus::of_case([Passed, Failed, Passed]), Failed);
    assert_eq!(EvalStatus::of_case([Informational, Passed]), Passed);
    assert_eq!(EvalStatus::from_score(0.8, 0.8), Passed);
    assert_eq!(EvalStatus::from_score(0.7999999999999999, 0.8), Failed);
}

#[test]
fn exact_mean_rounds_once_like_python_statistics_mean() {
    // statistics.mean gives exactly these; a running sum gives 0.7999999999999999 and 0.8000000000000002.
    assert_eq!(exact_mean(&[0.7, 0.8, 0.9]), Some(0.8));
    assert_eq!(exact_mean(&[0.8, 0.8, 0.8]), Some(0.8));
    assert_eq!(exact_mean(&[0.75, 1.0 / 3.0, 1.0, 1.0]), Some(0.7708333333333334));
    assert_eq!(exact_mean(&[1.0, 0.0, 0.0]), Some(1.0 / 3.0));
    // Values from Python 3.11's statistics.mean, ties going to even at the bottom of the range.
    assert_eq!(exact_mean(&[5e-324, 0.0]), Some(0.0));
    assert_eq!(exact_mean(&[1.5e-323, 0.0]), Some(1e-323));
    assert_eq!(exact_mean(&[5e-324, 5e-324, 5e-324, 0.0]), Some(5e-324));
    assert_eq!(
        exact_mean(&[9007199254740992.0, 9007199254740996.0, 1.0]),
        Some(6004799503160663.0)
    );
    assert_eq!(exact_mean(&[-0.5, 0.25]), Some(-0.125));
    assert_eq!(exact_mean(&[1e300, 1e300]), Some(1e300));
    assert_eq!(exact_mean(&[]), None);
}

#[test]
fn scores_runs_into_adk_results() {
    let weather = call("get_weather", json!({"city": "Paris"}));
    let expected = eval_set(json!([
        {"eval_id": "one", "conversation": [turn("It is sunny in Paris.", json!([weather])), turn("Bye", json!([]))],
         "session_input": {"app_name": "demo", "user_id": "ana"}},
        {"eval_id": "two", "conversation": [turn("Done", json!([]))]},
    ]));
    let run1 = eval_set(json!([
        {"eval_id": "two", "conversation": [turn("Done", json!([]))]},
        {"eval_id": "one", "conversation": [turn("It is sunny in Paris.", json!([weather])), turn("Bye", json!([weather]))]},
    ]));
    let run2 = eval_set(json!([
        {"eval_id": "one", "conversation": [turn("Sunny in Paris", json!([weather])), turn("Bye", json!([]))]},
        {"eval_id": "two", "conversation": [turn("Something else", json!([]))]},
    ]));
    let scored = block_on(score_eval_set(
        &expected,
        vec![run1, run2],
        &EvalConfig::default(),
        &ScoringServices::default(),
    ))
    .unwrap();
    assert_eq!(scored.case_results.len(), 4);

    let first = &scored.case_results[0];
    assert_eq!(
        (first.eval_id.as_str(), first.user_id.as_deref()),
        ("one", Some("ana"))
    );
    let overall: Vec<(Option<f64>, EvalStatus)> = first
        .overall_eval_metric_results
        .iter()
        .map(|m| (m.score, m.eval_status))
        .collect();
    // Then the informational metrics: one tool call per turn; no usage or timing recorded.
    assert_eq!(
        overall,
        [
            (Some(0.5), EvalStatus::Failed),
            (Some(1.0), EvalStatus::Passed),
            (Some(1.0), EvalStatus::Informational),
            (None, EvalStatus::Informational),
            (None, EvalStatus::Informational),
            (None, EvalStatus::Informational),
        ]
    );
    assert_eq!(first.final_eval_status, EvalStatus::Failed);
    let per_invocation: Vec<Vec<Option<f64>>> = first
        .eval_metric_result_per_invocation
        .iter()
        .map(|i| i.eval_metric_results.iter().map(|m| m.score).collect())
        .collect();
    assert_eq!(
        per_invocation,
        [
            [Some(1.0), Some(1.0), Some(1.0), None, None, None],
            [Some(0.0), Some(1.0), Some(1.0), None, None, None]
        ]
    );
    assert_eq!(scored.case_results[1].user_id.as_deref(), Some("test_user_id"));
    assert_eq!(scored.case_results[1].final_eval_status, EvalStatus::Passed);

    // Over both runs: trajectory (1 + 0 + 1 + 1) / 4, ROUGE (1 + 1 + F("Sunny in Paris") + 1) / 4.
    let one = &scored.summaries[0];
    assert_eq!((one.eval_id.as_str(), one.num_runs), ("one", 2));
    assert_eq!(one.metrics[0].score, Some(0.75));
    assert_eq!(one.metrics[0].eval_status, EvalStatus::Failed);
    let sunny = rouge1_fmeasure("Sunny in Paris", "It is sunny in Paris.");
    assert_close(one.metrics[1].score.unwrap(), (3.0 + sunny) / 4.0);
    assert_eq!(one.final_eval_status, EvalStatus::Failed);
    let two = &scored.summaries[1];
    assert_eq!(two.metrics[1].score, Some(0.5));
    assert_eq!(two.metrics[1].eval_status, EvalStatus::Failed);
    // Informational over runs: the mean when some turn had a value (tool calls per turn over
    // both runs: 1, 1, 1 and 0), INFORMATIONAL either way.
    let informational: Vec<(Option<f64>, Option<f64>, EvalStatus)> = one.metrics[2..]
        .iter()
        .map(|m| (m.threshold, m.score, m.eval_status))
        .collect();
    assert_eq!(
        informational,
        [
            (None, Some(0.75), EvalStatus::Informational),
            (None, None, EvalStatus::Informational),
            (None, None, EvalStatus::Informational),
            (None, None, EvalStatus::Informational),
        ]
    );
}

#[test]
fn result_json_has_adks_shape() {
    let expected = eval_set(json!([{"eval_id": "c", "conversation": [turn("Hello there", json!([]))]}]));
    let scored = block_on(score_eval_set(
        &expected,
        vec![expected.clone()],
        &EvalConfig::default(),
        &ScoringServices::default(),
    ))
    .unwrap();
    let result = EvalSetResult::new("demo", "set", scored, 1700000000.5);
    let value = serde_json::to_value(&result).unwrap();
    assert_eq!(value["eval_set_result_id"], "demo_set_1700000000.5");
    let case = &value["eval_case_results"][0];
    assert_eq!(case["final_eval_status"], 1);
    assert_eq!(case["eval_set_file"], "set");
    assert_eq!(case["session_id"], "");
    assert!(case["eval_metric_results"].is_null() && case["session_details"].is_null());
    let metric = &case["overall_eval_metric_results"][1];
    assert_eq!(
        metric,
        &json!({
            "metric_name": "response_match_score", "threshold": 0.8,
            "criterion": {"threshold": 0.8, "include_intermediate_responses_in_final": false},
            "custom_function_path": null, "score": 1.0, "eval_status": 1,
            "details": {"rubric_scores": null, "token_usage_details": null, "duration_details": null},
        })
    );
    let invocation = &case["eval_metric_result_per_invocation"][0];
    assert_eq!(
        invocation["actual_invocation"]["final_response"]["parts"][0]["text"],
        "Hello there"
    );
    assert_eq!(invocation["eval_metric_results"][0]["eval_status"], 1);
    assert_eq!(value["case_summaries"][0]["metrics"][0]["score"], 1.0);
}

#[test]
fn cases_without_scores_are_not_evaluated() {
    let expected = eval_set(json!([
        {"eval_id": "empty", "conversation": []},
        {"eval_id": "scenario", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}},
    ]));
    let actual = eval_set(json!([
        {"eval_id": "empty", "conversation": []},
        {"eval_id": "scenario", "conversation": [turn("hello", json!([]))]},
    ]));
    let scored = block_on(score_eval_set(
        &expected,
        vec![actual],
        &EvalConfig::default(),
        &ScoringServices::default(),
    ))
    .unwrap();
    for case in &scored.case_results {
        assert_eq!(
            case.final_eval_status,
            EvalStatus::NotEvaluated,
            "{}",
            case.eval_id
        );
        assert!(case
            .overall_eval_metric_results
            .iter()
            .filter(|m| m.threshold.is_some())
            .all(|m| m.score.is_none()));
    }
    let scenario = &scored.case_results[1].eval_metric_result_per_invocation;
    assert_eq!(scenario.len(), 1);
    assert!(scenario[0].expected_invocation.is_none());
    assert_eq!(
        scenario[0].eval_metric_results[0].eval_status,
        EvalStatus::NotEvaluated
    );
    assert_eq!(scored.summaries[1].final_eval_status, EvalStatus::NotEvaluated);
}

#[test]
fn mismatched_runs_are_errors_naming_the_case() {
    let expected = eval_set(json!([{"eval_id": "a", "conversation": [turn("x", json!([]))]}]));
    let score = |actual: Value| {
        block_on(score_eval_set(
            &expected,
            vec![expected.clone(), eval_set(actual)],
            &EvalConfig::default(),
            &ScoringServices::default(),
        ))
        .unwrap_err()
    };
    let missing = score(json!([]));
    assert_eq!(
        (missing.run, missing.problem.as_str()),
        (1, "eval case `a` is missing")
    );
    let extra = score(json!([
        {"eval_id": "a", "conversation": [turn("x", json!([]))]},
        {"eval_id": "b", "conversation": []},
    ]));
    assert_eq!(extra.to_string(), "eval case `b` is not in the expected eval set");
    let turns =
        score(json!([{"eval_id": "a", "conversation": [turn("x", json!([])), turn("y", json!([]))]}]));
    assert_eq!(
        turns.to_string(),
        "eval case `a` has 2 invocations where the expected case has 1"
    );
    let scenario = score(json!([
        {"eval_id": "a", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}},
    ]));
    assert!(scenario
        .to_string()
        .contains("eval case `a` has no conversation to score"));
}

#[test]
fn adk_fixtures_score_perfectly_against_themselves() {
    let dir = crate::testing::repo::repo_path("tests/fixtures/adk");
    for name in [
        "simple_test.test.json",
        "simple_multi_turn_conversation.test.json",
        "trip_inquiry.test.json",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let mut new_id = || "inv".to_string();
        let legacy = LegacyDefaults {
            name: "fixture",
            file_name: name,
            now: 0.0,
            new_invocation_id: &mut new_id,
        };
        let (set, _) = parse_evalset_file(&text, legacy).unwrap();
        let scored = block_on(score_eval_set(
            &set,
            vec![set.clone()],
            &EvalConfig::default(),
            &ScoringServices::default(),
        ))
        .unwrap();
        for summary in &scored.summaries {
            assert_eq!(
                summary.final_eval_status,
                EvalStatus::Passed,
                "{name}: {}",
                summary.eval_id
            );
            assert!(
                summary
                    .metrics
                    .iter()
                    .filter(|m| m.threshold.is_some())
                    .all(|m| m.score == Some(1.0)),
                "{name}"
            );
        }
    }
}

#[test]
fn partial_credit_metrics_parse_and_score() {
    let config = EvalConfig::parse(
        r#"{"criteria": {
            "tool_trajectory_recall": {"threshold": 0.5, "ignore_args": true},
            "tool_single_use": {"threshold": 1, "tool_name": "b"}
        }}"#,
    )
    .unwrap();
    assert_eq!(
        config.metrics[0].kind,
        MetricKind::TrajectoryShare {
            share: TrajectoryShare::Recall,
            ignore_args: true
        }
    );
    let case = |calls: Value| {
        json!({"eval_id": "c", "conversation": [
            {"invocation_id": "1", "user_content": {"role": "user", "parts": [{"text": "q"}]},
             "intermediate_data": {"tool_uses": calls}},
            {"invocation_id": "2", "user_content": {"role": "user", "parts": [{"text": "r"}]},
             "intermediate_data": {"tool_uses": []}}
        ]})
    };
    let expected = eval_set(json!([case(
        json!([{"name": "a", "args": {}}, {"name": "b", "args": {}}])
    )]));
    let actual = eval_set(json!([case(json!([{"name": "b", "args": {"z": 1}}]))]));
    let scored = block_on(score_eval_set(
        &expected,
        vec![actual],
        &config,
        &ScoringServices::default(),
    ))
    .unwrap();
    let result = &scored.case_results[0];
    // Recall: 1/2 on the first turn, 1 on the empty second turn; the mean passes 0.5.
    assert_eq!(result.overall_eval_metric_results[0].score, Some(0.75));
    // The tool was used in one of the two turns: the conversation used it.
    assert_eq!(result.overall_eval_metric_results[1].score, Some(1.0));
    let per_turn: Vec<Option<f64>> = result
        .eval_metric_result_per_invocation
        .iter()
        .map(|i| i.eval_metric_results[1].score)
        .collect();
    assert_eq!(per_turn, [Some(1.0), Some(0.0)]);
    assert_eq!(result.final_eval_status, EvalStatus::Passed);

    let error = EvalConfig::parse(r#"{"criteria": {"tool_single_use": 1}}"#).unwrap_err();
    assert!(error
        .to_string()
        .contains("criteria.tool_single_use.tool_name: missing"));
    let error = EvalConfig::parse(r#"{"criteria": {"tool_single_use": {"threshold": 1, "tool_name": 3}}}"#)
        .unwrap_err();
    assert!(error
        .to_string()
        .contains("criteria.tool_single_use.tool_name: expected the tool's name, found 3"));
}

#[test]
fn pass_at_k_and_pass_hat_k() {
    // 3 runs, 1 passed: pass@1 = 1/3, pass@2 = 1 - C(2,2)/C(3,2) = 2/3, pass@3 = 1;
    // pass^1 = 1/3, pass^2 = C(1,2)/C(3,2) = 0.
    let (at, hat) = pass_at_and_hat_k(3, 1);
    let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-12);
    assert!(close(&at, &[1.0 / 3.0, 2.0 / 3.0, 1.0]), "{at:?}");
    assert!(close(&hat, &[1.0 / 3.0, 0.0, 0.0]), "{hat:?}");
    assert_eq!(pass_at_and_hat_k(4, 4), (vec![1.0; 4], vec![1.0; 4]));
    assert_eq!(pass_at_and_hat_k(2, 0), (vec![0.0; 2], vec![0.0; 2]));
    // Large run counts do not overflow.
    let (at, hat) = pass_at_and_hat_k(100, 50);
    assert!(at[99] == 1.0 && hat[99] == 0.0 && (at[0] - 0.5).abs() < 1e-12);
}

#[test]
fn a_case_with_an_agent_error_fails_its_summary() {
    let config = EvalConfig::default();
    let run = |status, error| CaseRunScores {
        final_eval_status: status,
        error,
        metric_scores: vec![vec![Some(1.0)], vec![Some(1.0)]],
    };
    let summary = summarize_case(
        "c",
        &[run(EvalStatus::Passed, false), run(EvalStatus::Passed, true)],
        &config,
    );
    assert_eq!(summary.final_eval_status, EvalStatus::Failed);
    assert_eq!((summary.passed_runs, summary.errors), (1, 1));
    assert_eq!(summary.pass_at_k, [0.5, 1.0]);
    assert_eq!(summary.pass_hat_k, [0.5, 0.0]);
}

#[test]
fn result_files_written_case_by_case_are_the_whole_result_byte_for_byte() {
    use crate::eval::result_file::{AdkResultWriter, ResultHeader, SummaryWriter};
    let weather = call("get_weather", json!({"city": "Paris"}));
    let expected = eval_set(json!([
        {"eval_id": "one", "conversation": [turn("Sunny in Paris.", json!([weather]))]},
        {"eval_id": "two", "conversation": [turn("Done", json!([]))]},
    ]));
    let actual = eval_set(json!([
        {"eval_id": "one", "conversation": [turn("Rain in Paris.", json!([weather]))]},
        {"eval_id": "two", "conversation": [turn("Done", json!([]))]},
    ]));
    let config = EvalConfig::default();
    for cases in 0..=2 {
        let mut expected = expected.clone();
        expected.eval_cases.truncate(cases);
        let mut actual = actual.clone();
        actual.eval_cases.truncate(cases);
        let scored = block_on(score_eval_set(
            &expected,
            vec![actual],
            &config,
            &ScoringServices::default(),
        ))
        .unwrap();
        let whole = EvalSetResult::new("app", "set", scored.clone(), 1.5);
        let header = ResultHeader::named("app", "set", 1.5);
        for depth in [0, 1] {
            let mut writer = AdkResultWriter::begin(Vec::new(), &header, depth).unwrap();
            for result in &scored.case_results {
                writer.case(result).unwrap();
            }
            let written = String::from_utf8(writer.finish(Some(&scored.summaries)).unwrap()).unwrap();
            let pretty = serde_json::to_string_pretty(&whole.to_adk_value()).unwrap();
            // Inside a list, every line after the first moves in by one level.
            let pretty = pretty.replace('\n', &format!("\n{}", "  ".repeat(depth)));
            assert_eq!(written, pretty, "{cases} cases at depth {depth}");
        }

        let mut summary = SummaryWriter::begin(Vec::new(), &header, &config).unwrap();
        for result in &scored.case_results {
            summary
                .case_run(0, &CaseRunVerdict::of_result(result, &config))
                .unwrap();
        }
        let text = summary.finish(&scored.summaries).unwrap();
        let verdicts: Value = serde_json::from_slice(&text).unwrap();
        assert_eq!(verdicts["case_runs"].as_array().unwrap().len(), cases);
        assert_eq!(verdicts["cases"].as_array().unwrap().len(), cases);
        assert_eq!(verdicts["passed"], json!(cases < 1), "{verdicts}");
    }
}

#[test]
fn verdicts_scored_alone_are_those_of_the_whole_results() {
    use futures::StreamExt;
    let config = EvalConfig::parse(
        r#"{"criteria": {
            "tool_trajectory_avg_score": 1.0,
            "response_match_score": 0.5,
            "semantic_similarity": 0.5,
            "tool_single_use": {"threshold": 1, "tool_name": "get_weather"}
        }}"#,
    )
    .unwrap();
    let weather = call("get_weather", json!({"city": "Paris"}));
    let expected = eval_set(json!([
        {"eval_id": "one", "conversation": [turn("Sunny in Paris.", json!([weather])), turn("Bye", json!([]))]},
        {"eval_id": "empty", "conversation": []},
        {"eval_id": "scenario", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}},
    ]));
    let actual = eval_set(json!([
        {"eval_id": "scenario", "conversation": [turn("hello", json!([weather]))]},
        {"eval_id": "one", "conversation": [turn("Rain in Paris.", json!([weather])), turn("Bye", json!([weather]))]},
        {"eval_id": "empty", "conversation": []},
    ]));
    let score = |keep| {
        let arrivals = ActualItem::one_run(actual.eval_cases.clone());
        let services = ScoringServices::default();
        let scored = score_cases(
            &expected,
            futures::stream::iter(arrivals),
            &config,
            &services,
            keep,
        );
        block_on(scored.map(Result::unwrap).collect::<Vec<ScoredCase>>())
    };
    let whole = score(Keep::Results);
    let alone = score(Keep::Verdicts);
    assert_eq!(whole.len(), 3);
    for (whole, alone) in whole.iter().zip(&alone) {
        let result = whole.result.as_ref().unwrap();
        assert_eq!(alone.result, None);
        assert_eq!(alone.verdict, whole.verdict);
        assert_eq!(
            alone.verdict,
            CaseRunVerdict::of_result(result, &config),
            "{}",
            result.eval_id
        );
    }
}

#[test]
fn cases_read_lean_score_as_whole_cases_do() {
    use crate::evalset::{parse_case_lean, CaseParts, CompactEvalSet, EvalCase};
    use futures::StreamExt;
    let config = EvalConfig::parse(
        r#"{"criteria": {
            "tool_trajectory_avg_score": {"threshold": 1.0, "match_type": "IN_ORDER"},
            "response_match_score": 0.5,
            "tool_trajectory_f1": 0.5,
            "tool_single_use": {"threshold": 1, "tool_name": "get_weather"}
        }}"#,
    )
    .unwrap();
    assert_eq!(Keep::Verdicts.case_parts(&config), CaseParts::Lean);
    assert_eq!(Keep::Results.case_parts(&config), CaseParts::Whole);
    let weather = call("get_weather", json!({"city": "Paris"}));
    // A turn in the events form, with token usage, and timed.
    let events = json!({
        "invocation_id": "e",
        "user_content": {"parts": [{"text": "q"}]},
        "final_response": {"parts": [{"text": "Sunny", "thought": true}, {"text": "in Paris."}]},
        "intermediate_data": {"invocation_events": [
            {"author": "a", "content": {"parts": [{"function_call": {"id": "x", "name": "get_weather", "args": {"city": "Paris"}}}]},
             "usage_metadata": {"prompt_token_count": 7, "candidates_token_count": 3}, "model_version": "m"},
            {"author": "a", "content": {"parts": [{"function_response": {"name": "get_weather", "response": {"sky": "sun"}}}]}}
        ]},
        "duration": 2.5, "model_duration": 1.0, "tool_duration": 0.5
    });
    let expected = eval_set(json!([
        {"eval_id": "one", "conversation": [turn("Sunny in Paris.", json!([weather])), turn("Bye", json!([]))]},
        {"eval_id": "events", "conversation": [events.clone()]},
        {"eval_id": "scenario", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "ask"}},
    ]));
    let actual = eval_set(json!([
        {"eval_id": "events", "conversation": [events]},
        {"eval_id": "scenario", "conversation": [turn("hello", json!([weather]))]},
        {"eval_id": "one", "conversation": [turn("Rain in Paris.", json!([weather])), turn("Bye", json!([weather]))]},
    ]));
    let compact = CompactEvalSet::of(&expected);
    let services = ScoringServices::default();
    let verdicts = |arrivals: Vec<ActualItem>, keep| {
        let arrivals = futures::stream::iter(arrivals);
        let scored = score_cases(&compact, arrivals, &config, &services, keep);
        let scored = block_on(scored.map(Result::unwrap).collect::<Vec<ScoredCase>>());
        scored.into_iter().map(|case| case.verdict).collect::<Vec<_>>()
    };
    let lean: Vec<EvalCase> = actual
        .eval_cases
        .iter()
        .map(|case| parse_case_lean(&serde_json::to_string(case).unwrap()).unwrap())
        .collect();
    assert_ne!(lean, actual.eval_cases, "the lean read keeps less");
    let whole = verdicts(
        ActualItem::one_run(actual.eval_cases.clone()).collect(),
        Keep::Results,
    );
    assert_eq!(
        verdicts(ActualItem::one_run(lean.clone()).collect(), Keep::Verdicts),
        whole
    );
    // As `score`'s reading thread sends them when scoring is behind: with their expected cases.
    let with_expected = ActualItem::one_run(lean)
        .map(|item| match item {
            ActualItem::Case { run, case, .. } => {
                let index = (0..compact.len()).position(|i| compact.eval_id(i) == case.eval_id);
                let expected = compact.case_parts(index.unwrap(), CaseParts::Lean);
                ActualItem::Case {
                    run,
                    case,
                    expected: Some(Box::new(expected)),
                }
            }
            end => end,
        })
        .collect();
    assert_eq!(verdicts(with_expected, Keep::Verdicts), whole);
    // The events case's token usage and duration, which the lean read keeps.
    let names: Vec<&str> = config.metrics[6..].iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["token_usage_v1", "invocation_duration_v1"]);
    let scores: Vec<Option<f64>> = whole[0].metrics[6..].iter().map(|m| m.score).collect();
    assert_eq!(scores, [Some(10.0), Some(2.5)]);
}

#[test]
fn summaries_made_as_runs_come_are_those_made_at_the_end() {
    let config = EvalConfig::default();
    let expected = eval_set(json!([
        {"eval_id": "a", "conversation": [turn("x", json!([]))]},
        {"eval_id": "b", "conversation": [turn("x", json!([]))]},
        {"eval_id": "c", "conversation": [turn("x", json!([]))]},
    ]));
    let run = |score: f64| CaseRunScores {
        final_eval_status: EvalStatus::from_score(score, 0.8),
        error: false,
        metric_scores: vec![vec![Some(score)], vec![Some(score)]],
    };
    // Case runs as they came: `c` has none, and in the last run `b` is missing.
    let came = [
        (1, run(1.0)),
        (0, run(0.5)),
        (0, run(1.0)),
        (1, run(0.0)),
        (0, run(0.9)),
    ];
    for runs in 1..=3 {
        let came = &came[..[2, 4, 5][runs - 1]];
        let mut summaries = CaseSummaries::new(3, runs, config.clone());
        for (index, scores) in came {
            summaries.add(*index, expected.eval_id(*index), scores.clone());
        }
        let at_the_end = summarize_cases(&expected, came.iter().cloned(), &config);
        assert_eq!(summaries.finish(&expected), at_the_end, "{runs} runs");
    }
}

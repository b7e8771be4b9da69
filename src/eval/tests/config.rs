//! Tests of the eval config: parsing, defaults, errors, REST metric lists, metrics picked in the UI.

use super::*;
use crate::eval::config::{EvalConfig, MetricKind};
use crate::eval::judge::JudgeKind;
use crate::eval::metrics::{
    metric_infos, ServerModels, CUSTOM_JUDGE_EXAMPLE, RESPONSE_MATCH_SCORE, TOOL_TRAJECTORY_AVG_SCORE,
};
use pure_metrics::efficiency::{
    INFERENCE_CALL_COUNT_V1, INVOCATION_DURATION_V1, TOKEN_USAGE_V1, TOOL_CALL_COUNT_V1,
};
use pure_metrics::trajectory::{MatchType, TrajectoryCriterion};

#[test]
fn default_config_is_adks() {
    let config = EvalConfig::default();
    let metrics: Vec<(&str, Option<f64>)> = config
        .metrics
        .iter()
        .map(|m| (m.name.as_str(), (!m.is_informational()).then_some(m.threshold)))
        .collect();
    // The thresholds of ADK's default, then its informational metrics, appended to every eval.
    assert_eq!(
        metrics,
        [
            (TOOL_TRAJECTORY_AVG_SCORE, Some(1.0)),
            (RESPONSE_MATCH_SCORE, Some(0.8)),
            (TOOL_CALL_COUNT_V1, None),
            (INFERENCE_CALL_COUNT_V1, None),
            (TOKEN_USAGE_V1, None),
            (INVOCATION_DURATION_V1, None),
        ]
    );
    // They are implied, so a config written out does not name them.
    assert_eq!(EvalConfig::parse(&config.to_json().to_string()).unwrap(), config);
    assert!(!config.to_json().to_string().contains("_v1"));
}

#[test]
fn informational_metrics_cannot_be_configured() {
    let error = |text: &str| EvalConfig::parse(text).unwrap_err().to_string();
    assert!(error(r#"{"criteria": {"token_usage_v1": 100}}"#)
        .starts_with("criteria.token_usage_v1: `token_usage_v1` does not support a threshold"));
    assert!(error(r#"{"criteria": {"latency_ms": 2000}}"#)
        .contains("`latency_ms` is reported on every eval as `invocation_duration_v1`"));
}

#[test]
fn parses_thresholds_and_criteria() {
    let config = EvalConfig::parse(
        r#"{"criteria": {
            "response_match_score": 0.5,
            "tool_trajectory_avg_score": {"threshold": 1, "matchType": "in-order", "ignore_args": true, "note": "x"}
        }, "user_simulator_config": {"model": "m"}}"#,
    )
    .unwrap();
    assert_eq!(config.metrics[0].name, RESPONSE_MATCH_SCORE);
    assert_eq!(config.metrics[0].kind, MetricKind::ResponseMatch);
    assert_eq!(
        Value::Object(serde_json::Map::clone(&config.metrics[0].criterion)),
        json!({"threshold": 0.5, "include_intermediate_responses_in_final": false})
    );
    let trajectory = &config.metrics[1];
    assert_eq!(trajectory.threshold, 1.0);
    assert_eq!(
        trajectory.kind,
        MetricKind::ToolTrajectory(TrajectoryCriterion {
            match_type: MatchType::InOrder,
            ignore_args: true
        })
    );
    // As ADK's BaseCriterion dumps it: known fields first, then the others as written.
    assert_eq!(
        serde_json::to_string(&trajectory.criterion).unwrap(),
        r#"{"threshold":1.0,"include_intermediate_responses_in_final":false,"matchType":"in-order","ignore_args":true,"note":"x"}"#
    );
    for (written, match_type) in [
        ("\" any order \"", MatchType::AnyOrder),
        ("2", MatchType::AnyOrder),
        ("0", MatchType::Exact),
    ] {
        let text = format!(
            r#"{{"criteria": {{"tool_trajectory_avg_score": {{"threshold": 1, "match_type": {written}}}}}}}"#
        );
        let kind = EvalConfig::parse(&text).unwrap().metrics.remove(0).kind;
        assert_eq!(
            kind,
            MetricKind::ToolTrajectory(TrajectoryCriterion {
                match_type,
                ignore_args: false
            })
        );
    }
    assert!(EvalConfig::parse("{}")
        .unwrap()
        .metrics
        .iter()
        .all(|m| m.is_informational()));
}

#[test]
fn config_errors_name_the_field() {
    let error = |text: &str| EvalConfig::parse(text).unwrap_err().to_string();
    assert!(error(r#"{"criteria": {"tool_trajectory_avg_scor": 1}}"#)
        .contains("criteria.tool_trajectory_avg_scor: unknown metric `tool_trajectory_avg_scor`"));
    assert!(error(r#"{"criteria": {"response_match_score": "0.8"}}"#)
        .contains("criteria.response_match_score: expected a threshold (a number)"));
    assert!(
        error(r#"{"criteria": {"response_match_score": {"threshold": true}}}"#)
            .contains("criteria.response_match_score.threshold: the threshold must be a number, found true")
    );
    assert!(
        error(r#"{"criteria": {"response_match_score": {"match_type": "EXACT"}}}"#)
            .contains("criteria.response_match_score.threshold: missing")
    );
    assert!(error(
        r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "exactly"}}}"#
    )
    .contains("criteria.tool_trajectory_avg_score.match_type: \"exactly\" is not a match type"));
    assert!(
        error(r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": 3}}}"#)
            .contains("match_type: 3 is not a match type")
    );
    assert!(
        error(r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "ignore_args": "yes"}}}"#)
            .contains("criteria.tool_trajectory_avg_score.ignore_args: expected true or false")
    );
    assert!(error(r#"{"criteria": {"safety_v1": {"threshold": 0.5}}}"#)
        .contains("ADK's `safety_v1` is scored by Vertex AI's SAFETY on Google Cloud, which Evalstudio does not call; use `safety`"));
    assert!(error(r#"{"criteria": {"multi_turn_task_success_v1": 0.5}}"#).contains("use `task_success`"));
    assert!(error(
        r#"{"criteria": {"mine": 0.5}, "custom_metrics": {"mine": {"code_config": {"name": "m.f"}}}}"#
    )
    .contains("custom_metrics.mine: custom metrics are not supported yet"));
    assert!(error(r#"{"criteria": [1]}"#).contains("criteria: expected an object"));
    assert!(error(r#"[1]"#).contains("expected an object"));
    assert!(error(r#"{"criteria": {"#).contains("not valid JSON"));
}

#[test]
fn adk_fixture_configs_parse_or_say_what_is_missing() {
    let dir = crate::testing::repo::repo_path("tests/fixtures/adk");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let home = EvalConfig::parse(&read("home_automation__test_config.json")).unwrap();
    let thresholds: Vec<f64> = home
        .metrics
        .iter()
        .filter(|m| !m.is_informational())
        .map(|m| m.threshold)
        .collect();
    assert_eq!(thresholds, [1.0, 0.5]);
    let scenario = EvalConfig::parse(&read("conversation_scenario__test_config.json")).unwrap();
    assert_eq!(scenario.metrics[0].name, "hallucinations_v1");
    assert_eq!(scenario.metrics[0].threshold, 0.8);
    assert_eq!(scenario.simulator.max_allowed_invocations, 10);
}

#[test]
fn configs_round_trip_and_come_from_rest_metric_lists() {
    let text = r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "IN_ORDER"}, "response_match_score": 0.7}}"#;
    let config = EvalConfig::parse(text).unwrap();
    assert_eq!(EvalConfig::parse(&config.to_json().to_string()).unwrap(), config);
    let from_rest = EvalConfig::from_eval_metrics(&[
        json!({"metricName": "tool_trajectory_avg_score", "criterion": {"threshold": 1, "match_type": "IN_ORDER"}}),
        json!({"metric_name": "response_match_score", "threshold": 0.7}),
    ])
    .unwrap();
    assert_eq!(from_rest, config);
    let error = EvalConfig::from_eval_metrics(&[json!({"threshold": 1})]).unwrap_err();
    assert_eq!(error.to_string(), "eval_metrics[0].metric_name: missing");
    let error = EvalConfig::from_eval_metrics(&[json!({"metricName": "response_match_score"})]).unwrap_err();
    assert_eq!(error.to_string(), "eval_metrics[0].threshold: missing");
}

#[test]
fn metrics_picked_in_the_browser_take_their_criterion_options() {
    // Every metric the picker offers runs with its default threshold and prefilled options.
    for info in metric_infos(ServerModels::default()) {
        let picked = [(
            info.metric_name.as_str(),
            info.default_threshold,
            info.criterion_options.as_deref(),
        )];
        let config = EvalConfig::from_picked(picked);
        assert!(config.is_ok(), "{}: {config:?}", info.metric_name);
    }
    let text = r#"{"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "match_type": "IN_ORDER"}, "tool_single_use": {"threshold": 1.0, "tool_name": "get_weather"}}}"#;
    let picked = EvalConfig::from_picked([
        (
            "tool_trajectory_avg_score",
            0.5,
            Some(r#"{"match_type": "IN_ORDER", "threshold": 0.9}"#),
        ),
        ("tool_single_use", 1.0, Some(r#" {"tool_name": "get_weather"} "#)),
    ])
    .unwrap();
    assert_eq!(
        picked,
        EvalConfig::parse(text).unwrap(),
        "the threshold field wins"
    );

    let error = |options: &str| {
        EvalConfig::from_picked([("tool_single_use", 1.0, Some(options))])
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(r#"{"tool_name": }"#),
        "tool_single_use options: not valid JSON: expected value at line 1 column 15"
    );
    assert_eq!(
        error("[]"),
        "tool_single_use options: expected a JSON object of criterion keys, found a list"
    );
    assert!(
        error("{}").starts_with("tool_single_use options.tool_name: missing"),
        "{}",
        error("{}")
    );
    // A prompt on a built-in metric would be ignored, so it is refused.
    let built_in = EvalConfig::from_picked([("response_match_score", 0.8, Some(CUSTOM_JUDGE_EXAMPLE))]);
    assert!(built_in.unwrap_err().to_string().starts_with(
        "response_match_score options.judge_prompt: `response_match_score` is a built-in metric"
    ),);
    let in_a_file = r#"{"criteria": {"final_response_match_v2": {"threshold": 1, "judge_prompt": "{response}", "reply": "yes_no"}}}"#;
    assert!(EvalConfig::parse(in_a_file)
        .unwrap_err()
        .to_string()
        .starts_with("criteria.final_response_match_v2.judge_prompt:"));

    // A custom judge is any other name with a prompt; one name cannot be picked twice.
    let custom = EvalConfig::from_picked([("polite", 1.0, Some(CUSTOM_JUDGE_EXAMPLE))]).unwrap();
    assert!(
        matches!(&custom.metrics[0].kind, MetricKind::Judge(judge) if matches!(judge.kind, JudgeKind::Custom(_)))
    );
    let twice = EvalConfig::from_picked([("polite", 1.0, Some(CUSTOM_JUDGE_EXAMPLE)), ("polite", 0.5, None)]);
    assert_eq!(
        twice.unwrap_err().to_string(),
        "polite: picked twice; give each metric a name of its own"
    );
}

#[test]
fn evaluator_criteria_name_a_url_or_a_declared_evaluator() {
    use crate::eval::evaluators::{EvaluatorHeaders, EvaluatorTarget, HttpTarget};
    let config = EvalConfig::parse(
        r#"{"criteria": {
            "db": {"threshold": 1, "evaluator": "orders_written", "table": "orders"},
            "style": {"threshold": 0.5, "url": "http://127.0.0.1:9000/score", "timeout_secs": 2.5, "retries": 0}
        }}"#,
    )
    .unwrap();
    assert_eq!(
        config.metrics[0].kind,
        MetricKind::Evaluator(EvaluatorTarget::Named("orders_written".into()))
    );
    assert_eq!(
        config.metrics[0].criterion["table"], "orders",
        "the user's own keys reach the evaluator"
    );
    assert_eq!(
        config.metrics[1].kind,
        MetricKind::Evaluator(EvaluatorTarget::Http(HttpTarget {
            url: "http://127.0.0.1:9000/score".into(),
            timeout: std::time::Duration::from_millis(2500),
            retries: 0,
            headers: EvaluatorHeaders::default(),
        }))
    );
    let error = |criteria: &str| {
        EvalConfig::parse(&format!(r#"{{"criteria": {criteria}}}"#))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error(r#"{"x": {"threshold": 1, "url": "file:///etc/passwd"}}"#),
        r#"criteria.x.url: expected an http:// or https:// URL, found "file:///etc/passwd""#
    );
    assert!(error(r#"{"x": {"threshold": 1, "url": "http://h", "evaluator": "e"}}"#).ends_with("not both"));
    assert!(
        error(r#"{"x": {"threshold": 1, "url": "http://h", "retries": 99}}"#)
            .starts_with("criteria.x.retries:")
    );
    assert!(
        error(r#"{"response_match_score": {"threshold": 1, "evaluator": "e"}}"#)
            .contains("is a built-in metric")
    );
    assert!(error(r#"{"x": {"threshold": 1, "command": "rm -rf /"}}"#)
        .starts_with("criteria.x.command: commands run only from evalstudio.toml"));
}

#[test]
fn a_picked_threshold_outside_the_metrics_scores_is_refused_naming_the_metric() {
    let error = EvalConfig::from_picked([("response_match_score", 5.0, None)]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "response_match_score threshold: 5 is outside the metric's scores (0–1); pick a threshold from 0 to 1"
    );
    assert!(EvalConfig::from_picked([("response_match_score", 1.0, None)]).is_ok());
    assert!(EvalConfig::from_picked([("response_match_score", 0.0, None)]).is_ok());
}

#[test]
fn an_evaluator_may_declare_its_scores_and_its_threshold_is_checked_against_them() {
    let options = r#"{"url": "http://127.0.0.1:9/score", "score_range": [1, 5]}"#;
    let config = EvalConfig::from_picked([("stars", 4.0, Some(options))]).unwrap();
    assert_eq!(
        config.metrics[0].scores,
        pure_metrics::score_range::ScoreRange::new(1.0, 5.0).unwrap()
    );
    assert!(EvalConfig::from_picked([("stars", 6.0, Some(options))]).is_err());
    let bad = r#"{"url": "http://127.0.0.1:9/score", "score_range": [5, 1]}"#;
    let error = EvalConfig::from_picked([("stars", 4.0, Some(bad))])
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("stars options.score_range: expected [lowest, highest]"),
        "{error}"
    );
}

#[test]
fn a_config_file_keeps_an_out_of_range_threshold_as_adk_does_and_says_what_is_wrong() {
    let config = EvalConfig::parse(r#"{"criteria": {"tool_trajectory_avg_score": 5}}"#).unwrap();
    let problem = config.metrics[0].threshold_problem().unwrap();
    assert!(
        problem.starts_with("tool_trajectory_avg_score threshold: 5 is outside"),
        "{problem}"
    );
    assert!(config.with_thresholds_in_range().is_err());
}

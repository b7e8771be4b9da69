//! Tests of G-Eval: its steps written once, each turn scored by them, and its settings checked.

use super::*;
use futures::executor::block_on;
use serde_json::json;

/// Answers G-Eval's steps request with two steps, counting them, and every scoring prompt with
/// `score`.
fn g_eval_judge(score: &'static str) -> ScriptedJudge<impl Fn(&str) -> Result<String, String> + Send + Sync> {
    ScriptedJudge::new(move |prompt| {
        Ok(if prompt.contains("Write 3 or 4 short evaluation steps") {
            "```json\n{\"steps\": [\"Check the city.\", \"Check the temperature.\"]}\n```".to_string()
        } else {
            score.to_string()
        })
    })
}

#[test]
fn g_eval_writes_its_steps_once_and_scores_each_turn_by_them() {
    let judged = metric(
        "correct",
        json!({"threshold": 0.5, "criteria": "The answer is right.", "evaluation_params": ["input", "actual_output", "expected_output", "TOOLS_CALLED"]}),
    );
    let judge = g_eval_judge(r#"{"score": 8, "reason": "Right city."}"#);
    // Two turns of one case and one of another: one steps request, three scoring ones.
    let clone = judged.clone();
    for metric in [&judged, &judged, &clone] {
        let score = block_on(evaluate_judge_metric(metric, &input(), &judge));
        assert_eq!(score.score, Some(7.0 / 9.0), "{score:?}");
        let evidence = score.evidence.unwrap();
        assert_eq!(
            evidence.judge().unwrap().steps.as_deref(),
            Some(
                &[
                    "Check the city.".to_string(),
                    "Check the temperature.".to_string()
                ][..]
            )
        );
    }
    let prompts = judge.prompts();
    assert_eq!(prompts.len(), 4);
    assert!(
        prompts[0].contains("The answer is right.")
            && prompts[0].contains("Input, Actual Output, Expected Output and Tool Calls")
    );
    let scoring = &prompts[1];
    assert!(
        scoring.contains("1. Check the city.\n2. Check the temperature."),
        "{scoring}"
    );
    assert!(
        scoring.contains("Input:\nWhat's the weather in Paris?"),
        "{scoring}"
    );
    assert!(
        scoring.contains("Expected Output:\nSunny, 25 degrees."),
        "{scoring}"
    );

    // Steps from the config are used as they are.
    let given = metric(
        "g_eval",
        json!({"threshold": 0.5, "evaluation_steps": ["Is it polite?"], "evaluation_params": ["actual_output"]}),
    );
    let judge = g_eval_judge(r#"{"score": 10, "reason": "Polite."}"#);
    assert_eq!(
        block_on(evaluate_judge_metric(&given, &input(), &judge)).score,
        Some(1.0)
    );
    assert_eq!(judge.prompts().len(), 1);
}

#[test]
fn g_eval_says_why_it_could_not_score() {
    let judged = metric(
        "clear",
        json!({"threshold": 0.5, "criteria": "Clear.", "evaluation_params": ["expected_output"]}),
    );
    // No steps in the reply: NOT_EVALUATED quoting it, and the next turn asks again.
    let judge = replies_in_turn(&[
        "I think it is fine",
        r#"{"steps": ["Read it."]}"#,
        r#"{"score": 11}"#,
    ]);
    let first = block_on(evaluate_judge_metric(&judged, &input(), &judge));
    assert_eq!(first.score, None);
    assert!(first.reason.unwrap().contains("replied `I think it is fine`"));
    let second = block_on(evaluate_judge_metric(&judged, &input(), &judge));
    assert_eq!(
        second.reason.as_deref(),
        Some("the judge's score 11 is outside 1 to 10")
    );
    // A part the turn does not have.
    let mut no_reference = input();
    no_reference.reference = None;
    let third = block_on(evaluate_judge_metric(&judged, &no_reference, &g_eval_judge("{}")));
    assert!(third.reason.unwrap().contains("has no expected final response"));
}

#[test]
fn g_eval_settings_are_checked() {
    assert_eq!(
        config_error("g_eval", json!({"threshold": 0.5})),
        "criteria.g_eval.criteria: missing; G-Eval needs the criterion in plain words (or evaluation_steps)"
    );
    assert!(config_error(
        "x",
        json!({"criteria": "c", "evaluation_params": ["input", "mood"]})
    )
    .starts_with("criteria.x.evaluation_params[1]: \"mood\" is not one of input, actual_output"));
    assert!(
        config_error("x", json!({"criteria": "c", "judge_prompt": "p {response}"}))
            .contains("give either judge_prompt or criteria")
    );
    assert!(
        config_error("x", json!({"criteria": "c", "evaluation_steps": []}))
            .contains("expected a list of steps")
    );
    assert!(config_error("x", json!({"criteria": "c", "rubric": "r"}))
        .contains("criteria, evaluation_params, evaluation_steps"));
}

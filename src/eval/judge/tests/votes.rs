//! Tests of sample votes, unreadable replies and judge errors, and the rubric metric's votes.

use super::*;
use crate::eval::metrics::{
    ANSWER_CORRECTNESS, ANSWER_FAITHFULNESS, FACT_CHECKING, FINAL_RESPONSE_MATCH_V2, RELEVANCY,
    RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
};
use serde_json::json;
use std::sync::Mutex;

// ---------------------------------------------------------------------------------------------
// Samples and votes

#[test]
fn final_response_match_v2_takes_the_majority_and_a_tie_is_invalid() {
    let v2 = metric(FINAL_RESPONSE_MATCH_V2, json!({"threshold": 0.5}));
    assert_eq!(v2.options.num_samples, 5, "ADK's default");
    let valid = "{\"reasoning\": \"ok\", \"is_the_agent_response_valid\": \"valid\"}";
    let invalid = "{\"reasoning\": \"no\", \"is_the_agent_response_valid\": \"invalid\"}";
    // 2 valid, 2 invalid, 1 unreadable: the unreadable one does not vote, the tie is invalid.
    let judge = replies_in_turn(&[valid, invalid, "I refuse.", valid, invalid]);
    let score = evaluate(&v2, &input(), &judge);
    assert_eq!(score.score, Some(0.0));
    let evidence = stored(score.evidence);
    assert_eq!(evidence["votes"], json!({"yes": 2, "no": 2, "unread": 1}));
    assert_eq!(evidence["samples"][2]["reply"], "I refuse.");
    assert_eq!(
        evidence["samples"][0]["verdict"],
        json!({"label": "valid", "parser": "adk"})
    );
    // 1 valid and 4 unreadable: valid.
    let judge = replies_in_turn(&[valid, "?", "?", "?", "?"]);
    assert_eq!(evaluate(&v2, &input(), &judge).score, Some(1.0));
    // The prompt is ADK's, filled with the query, response and reference.
    let prompt = &judge.prompts()[0];
    assert!(prompt.contains("  \"User prompt\": What's the weather in Paris?,\n  \"Agent response\": It is sunny in Paris, 25 °C.,\n  \"Reference response\": Sunny, 25 degrees.,\n}"), "{prompt}");
    assert!(prompt.contains("{\n  \"reasoning\": [reasoning],"));
}

#[test]
fn unreadable_replies_are_not_evaluated_with_the_raw_text_kept() {
    let relevancy = metric(
        RELEVANCY,
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 3}}),
    );
    let judge = replies_in_turn(&["perhaps", "hmm", "unclear"]);
    let score = evaluate(&relevancy, &input(), &judge);
    assert_eq!(score.score, None);
    assert_eq!(
        score.reason.as_deref(),
        Some("the judge's reply was neither yes nor no")
    );
    let evidence = stored(score.evidence);
    let raw: Vec<&str> = evidence["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reply"].as_str().unwrap())
        .collect();
    assert_eq!(raw, ["perhaps", "hmm", "unclear"]);

    let faithfulness = metric(ANSWER_FAITHFULNESS, json!({"threshold": 0.5}));
    let score = evaluate(
        &faithfulness,
        &input(),
        &replies_in_turn(&["{\"score\": 0.9, \"feedback\""]),
    );
    assert_eq!(score.score, None);
    assert!(score.reason.unwrap().contains("no JSON object"));
    assert_eq!(
        stored(score.evidence)["samples"][0]["reply"],
        "{\"score\": 0.9, \"feedback\""
    );
}

#[test]
fn a_judge_error_is_not_evaluated_with_the_error() {
    let calls = Mutex::new(0);
    let judge = ScriptedJudge::new(move |_| {
        let mut n = calls.lock().unwrap();
        *n += 1;
        if *n == 2 {
            Err("the judge model server failed (500)".to_string())
        } else {
            Ok("yes".to_string())
        }
    });
    let correctness = metric(
        ANSWER_CORRECTNESS,
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 3}}),
    );
    let score = evaluate(&correctness, &input(), &judge);
    assert_eq!(score.score, None);
    assert_eq!(
        score.reason.as_deref(),
        Some("the judge failed: the judge model server failed (500)")
    );
    assert_eq!(
        stored(score.evidence)["samples"][1],
        json!({"error": "the judge model server failed (500)"})
    );
}

#[test]
fn yes_no_metrics_show_the_judge_their_inputs() {
    let judge = replies_in_turn(&["Yes", "NO", "yes"]);
    let relevancy = metric(RELEVANCY, json!({"threshold": 1.0}));
    let fact_checking = metric(FACT_CHECKING, json!({"threshold": 1.0}));
    let correctness = metric(ANSWER_CORRECTNESS, json!({"threshold": 1.0}));
    assert_eq!(evaluate(&relevancy, &input(), &judge).score, Some(1.0));
    assert_eq!(evaluate(&fact_checking, &input(), &judge).score, Some(0.0));
    assert_eq!(evaluate(&correctness, &input(), &judge).score, Some(1.0));
    let prompts = judge.prompts();
    assert!(prompts[0].contains("Query:\nWhat's the weather in Paris?\n\nResponse:\nIt is sunny in Paris, 25 °C.\n\nContext:\nget_weather:"));
    assert!(prompts[1].contains("Document:\nget_weather: {\"temp_c\":25,\"sky\":\"sunny\"}\n\nget_news:"));
    assert!(prompts[1].ends_with("Claim:\nIt is sunny in Paris, 25 °C.\n"));
    assert!(prompts[2].contains("Reference answer:\nSunny, 25 degrees.\n"));
    // Without a reference, answer_correctness cannot be judged.
    let score = evaluate(
        &correctness,
        &JudgeInput {
            reference: Some(" ".into()),
            ..input()
        },
        &judge,
    );
    assert!(score
        .reason
        .unwrap()
        .contains("needs the expected final response"));
}

// ---------------------------------------------------------------------------------------------
// Rubrics

#[test]
fn rubric_metric_votes_per_rubric_and_averages() {
    let rubric_metric = metric(
        RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
        json!({"threshold": 0.5, "judge_model_options": {"num_samples": 3}, "rubrics": [
            {"rubric_id": "concise", "rubric_content": {"text_property": "The answer is concise."}},
            {"rubricId": "units", "rubricContent": {"textProperty": "Temperatures say °C or °F."}}
        ]}),
    );
    let mut with_invocation_rubric = input();
    let mut typed = rubric("tool", "The answer uses the tool's data.");
    typed.extra.insert("type".into(), json!("FINAL_RESPONSE_QUALITY"));
    with_invocation_rubric.rubrics = vec![typed, rubric("untyped", "Ignored: no type.")];
    let replies = [
        // concise yes, units no, tool yes (matched by its text, no id).
        rubric_reply(&[
            ("concise", "x", "yes"),
            ("units", "x", "no"),
            ("", "The answer uses the tool's data.", "yes"),
        ]),
        // concise no, units no, tool unreadable.
        rubric_reply(&[
            ("concise", "x", "no"),
            ("units", "x", "no"),
            ("tool", "x", "unsure"),
        ]),
        // Unreadable as a whole (counts disagree): no votes.
        "Property: only this\n".to_string(),
    ];
    let replies: Vec<&str> = replies.iter().map(String::as_str).collect();
    let judge = replies_in_turn(&replies);
    let score = evaluate(&rubric_metric, &with_invocation_rubric, &judge);
    // concise: 1 yes, 1 no → tie → no; units: no; tool: 1 yes → yes. Mean 1/3.
    assert_eq!(score.score, Some(1.0 / 3.0));
    let evidence = stored(score.evidence.clone());
    let per_rubric: Vec<(&str, Option<f64>)> = evidence["rubrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rubric_id"].as_str().unwrap(), r["score"].as_f64()))
        .collect();
    assert_eq!(
        per_rubric,
        [("concise", Some(0.0)), ("units", Some(0.0)), ("tool", Some(1.0))]
    );
    assert_eq!(
        evidence["rubrics"][0]["votes"],
        json!({"yes": 1, "no": 1, "unread": 0})
    );
    assert_eq!(evidence["rubrics"][0]["rationale"], "because no");
    let prompt = &judge.prompts()[0];
    assert!(prompt.ends_with("<properties>\n*  [id: concise] The answer is concise.\n*  [id: units] Temperatures say °C or °F.\n*  [id: tool] The answer uses the tool's data.\n</properties>\n\n## Output\n"), "{prompt}");
    assert!(!prompt.contains("untyped"));

    // Over a case: the mean of every rubric score, not of the invocations' means.
    let other = with_evidence(
        InvocationScore::scored(1.0),
        JudgeEvidence {
            rubrics: Some(vec![RubricOutcome {
                rubric_id: "concise".into(),
                text: "The answer is concise.".into(),
                score: Some(1.0),
                rationale: String::new(),
                votes: Votes::default(),
            }]),
            ..JudgeEvidence::default()
        },
    );
    let not_evaluated = InvocationScore::not_evaluated("judge down");
    assert_eq!(
        rubric_metric.overall_score(&[score, other, not_evaluated]),
        Some(0.5)
    );
}

#[test]
fn rubric_metric_without_rubrics_or_with_clashing_ids_is_not_evaluated() {
    let rubric_metric = metric(RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, json!({"threshold": 0.5}));
    let judge = replies_in_turn(&[]);
    let reason = evaluate(&rubric_metric, &input(), &judge).reason.unwrap();
    assert!(reason.contains("there are no rubrics"), "{reason}");
    let clashing = JudgeInput {
        rubrics: [rubric("a", "One."), rubric("a", "Two.")]
            .into_iter()
            .map(|mut r| {
                r.extra.insert("type".into(), json!("FINAL_RESPONSE_QUALITY"));
                r
            })
            .collect(),
        ..input()
    };
    let reason = evaluate(&rubric_metric, &clashing, &judge).reason.unwrap();
    assert!(reason.contains("rubric_id `a`"), "{reason}");
    assert!(judge.prompts().is_empty());
}

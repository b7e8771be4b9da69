//! Tests of judge evidence as stored: the exact JSON text that runs keep and the REST API returns.

use super::*;
use crate::eval::metrics::{
    ANSWER_CORRECTNESS, CONTEXT_PRECISION, FAITHFULNESS, FINAL_RESPONSE_MATCH_V2, RELEVANCY,
    RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
};
use serde_json::json;
use std::sync::Mutex;

/// The evidence as results store it, checked to read back as the same typed judge evidence.
fn evidence_text(score: &InvocationScore) -> String {
    let evidence = score.evidence.as_ref().expect("evidence");
    let text = serde_json::to_string(evidence).unwrap();
    let read: Evidence = serde_json::from_str(&text).unwrap();
    assert!(
        matches!(read, Evidence::Judge(_)),
        "{text} reads back as {read:?}"
    );
    assert_eq!(&read, evidence);
    text
}

#[test]
fn evidence_of_votes_keeps_each_reply_its_reading_and_the_tally() {
    let relevancy = metric(
        RELEVANCY,
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 3}}),
    );
    let score = evaluate(&relevancy, &input(), &replies_in_turn(&["Yes", "NO", "perhaps"]));
    assert_eq!(
        evidence_text(&score),
        r#"{"samples":[{"reply":"Yes","verdict":"yes"},{"reply":"NO","verdict":"no"},{"reply":"perhaps","problem":"the judge's reply was neither yes nor no"}],"votes":{"yes":1,"no":1,"unread":1}}"#
    );

    let v2 = metric(
        FINAL_RESPONSE_MATCH_V2,
        json!({"threshold": 0.5, "judge_model_options": {"num_samples": 3}}),
    );
    let valid = "{\"reasoning\": \"ok\", \"is_the_agent_response_valid\": \"valid\"}";
    let score = evaluate(&v2, &input(), &replies_in_turn(&[valid, "Invalid", "I refuse."]));
    assert_eq!(
        evidence_text(&score),
        r#"{"samples":[{"reply":"{\"reasoning\": \"ok\", \"is_the_agent_response_valid\": \"valid\"}","verdict":{"label":"valid","parser":"adk"}},{"reply":"Invalid","verdict":{"label":"invalid","parser":"tolerant"}},{"reply":"I refuse.","problem":"the judge's reply has no \"is_the_agent_response_valid\" label"}],"votes":{"yes":1,"no":1,"unread":1}}"#
    );
}

#[test]
fn evidence_of_a_failed_request_keeps_what_the_judge_answered() {
    let calls = Mutex::new(0);
    let judge = ScriptedJudge::new(move |_| {
        let mut n = calls.lock().unwrap();
        *n += 1;
        if *n == 2 {
            Err("down".to_string())
        } else {
            Ok("yes".to_string())
        }
    });
    let correctness = metric(
        ANSWER_CORRECTNESS,
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 3}}),
    );
    assert_eq!(
        evidence_text(&evaluate(&correctness, &input(), &judge)),
        r#"{"samples":[{"reply":"yes"},{"error":"down"},{"reply":"yes"}]}"#
    );
}

#[test]
fn evidence_of_scores_keeps_each_score_and_feedback() {
    let custom = metric(
        "grounded",
        json!({"threshold": 0.5, "judge_prompt": "{response}", "reply": "score_json", "score_range": [1, 5],
               "judge_model_options": {"num_samples": 3}}),
    );
    let judge = replies_in_turn(&[
        "{\"score\": 5, \"feedback\": \"good\"}",
        "{\"score\": 3}",
        "no idea",
    ]);
    assert_eq!(
        evidence_text(&evaluate(&custom, &input(), &judge)),
        r#"{"samples":[{"reply":"{\"score\": 5, \"feedback\": \"good\"}","score":1.0,"feedback":"good"},{"reply":"{\"score\": 3}","score":0.5,"feedback":null},{"reply":"no idea","problem":"the judge's reply has no JSON object with a \"score\""}]}"#
    );
}

#[test]
fn evidence_of_rubrics_keeps_each_rubric_and_each_reply() {
    let rubric_metric = metric(
        RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
        json!({"threshold": 0.5, "judge_model_options": {"num_samples": 2}, "rubrics": [
            {"rubric_id": "concise", "rubric_content": {"text_property": "The answer is concise."}},
            {"rubric_id": "units", "rubric_content": {"text_property": "Temperatures say °C."}}
        ]}),
    );
    let replies = [
        rubric_reply(&[("concise", "x", "yes"), ("units", "x", "unsure")]),
        rubric_reply(&[
            ("concise", "x", "yes"),
            ("concise", "x", "no"),
            ("units", "x", "no"),
        ]),
    ];
    let replies: Vec<&str> = replies.iter().map(String::as_str).collect();
    let score = evaluate(&rubric_metric, &input(), &replies_in_turn(&replies));
    assert_eq!(
        evidence_text(&score),
        r#"{"rubrics":[{"rubric_id":"concise","text":"The answer is concise.","score":1.0,"rationale":"because yes","votes":{"yes":2,"no":1,"unread":0}},{"rubric_id":"units","text":"Temperatures say °C.","score":0.0,"rationale":"because no","votes":{"yes":0,"no":1,"unread":1}}],"samples":[{"reply":"ID: concise\nProperty: x\nEvidence: e\nRationale: because yes\nVerdict: yes\n\nID: units\nProperty: x\nEvidence: e\nRationale: because unsure\nVerdict: unsure\n","rubric_scores":{"concise":1.0,"units":null}},{"reply":"ID: concise\nProperty: x\nEvidence: e\nRationale: because yes\nVerdict: yes\n\nID: concise\nProperty: x\nEvidence: e\nRationale: because no\nVerdict: no\n\nID: units\nProperty: x\nEvidence: e\nRationale: because no\nVerdict: no\n","rubric_scores":{"concise":0.0,"units":0.0}}]}"#
    );
}

#[test]
fn evidence_of_context_items_keeps_each_item_and_its_reply() {
    let precision = metric(CONTEXT_PRECISION, json!({"threshold": 0.5}));
    let three = JudgeInput {
        context: vec!["A".into(), "B".into(), "C".into()],
        ..input()
    };
    let judge = ScriptedJudge::new(|prompt: &str| {
        if prompt.contains("Context:\nA\n") {
            Ok("Yes.".to_string())
        } else if prompt.contains("Context:\nB\n") {
            Ok("dunno".to_string())
        } else {
            Err("down".to_string())
        }
    });
    assert_eq!(
        evidence_text(&evaluate(&precision, &three, &judge)),
        r#"{"items":[{"context":"A","useful":true,"reply":"Yes."},{"context":"B","reply":"dunno","problem":"the judge's reply was neither yes nor no"},{"context":"C","error":"down"}],"answer":"reference"}"#
    );
    let judge = ScriptedJudge::new(|_: &str| Ok("no".to_string()));
    let score = evaluate(
        &precision,
        &JudgeInput {
            reference: None,
            ..three
        },
        &judge,
    );
    assert_eq!(
        evidence_text(&score),
        r#"{"items":[{"context":"A","useful":false,"reply":"no"},{"context":"B","useful":false,"reply":"no"},{"context":"C","useful":false,"reply":"no"}],"answer":"response"}"#
    );
}

#[test]
fn evidence_of_statements_keeps_the_list_and_each_check() {
    let faithfulness = metric(FAITHFULNESS, json!({"threshold": 0.5}));
    let judge = ScriptedJudge::new(|prompt: &str| {
        if prompt.starts_with("Break the text") {
            Ok("[\"A.\", \"B.\", \"C.\", \"D.\"]".to_string())
        } else if prompt.contains("Claim:\nA.") {
            Ok("Yes".to_string())
        } else if prompt.contains("Claim:\nB.") {
            Ok("No".to_string())
        } else if prompt.contains("Claim:\nC.") {
            Ok("hmm".to_string())
        } else {
            Err("down".to_string())
        }
    });
    assert_eq!(
        evidence_text(&evaluate(&faithfulness, &input(), &judge)),
        r#"{"statements_reply":"[\"A.\", \"B.\", \"C.\", \"D.\"]","statements":[{"statement":"A.","supported":true,"reply":"Yes"},{"statement":"B.","supported":false,"reply":"No"},{"statement":"C.","reply":"hmm","problem":"the judge's reply was neither yes nor no"},{"statement":"D.","error":"down"}]}"#
    );
    let no_context = JudgeInput {
        context: Vec::new(),
        ..input()
    };
    let judge = replies_in_turn(&["[\"A.\"]"]);
    assert_eq!(
        evidence_text(&evaluate(&faithfulness, &no_context, &judge)),
        r#"{"statements_reply":"[\"A.\"]","statements":[{"statement":"A.","supported":false,"reply":null}]}"#
    );
    let judge = replies_in_turn(&["[]"]);
    assert_eq!(
        evidence_text(&evaluate(&faithfulness, &input(), &judge)),
        r#"{"statements_reply":"[]","statements":[]}"#
    );
    let judge = replies_in_turn(&["It is sunny."]);
    assert_eq!(
        evidence_text(&evaluate(&faithfulness, &input(), &judge)),
        r#"{"statements_reply":"It is sunny."}"#
    );
}

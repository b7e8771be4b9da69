//! The reply parsers of ADK's judge metrics against google-adk's own, on the replies
//! `conformance/adk_judge_replies.py` recorded (well formed and malformed):
//! `tests/fixtures/adk_judge_replies.json`.

use super::{hallucinations, parse, simulator_quality};
use serde_json::Value;

fn fixture() -> Value {
    serde_json::from_str(include_str!("../../../tests/fixtures/adk_judge_replies.json")).unwrap()
}

fn entries<'a>(fixture: &'a Value, key: &str) -> &'a Vec<Value> {
    let entries = fixture[key].as_array().unwrap();
    assert!(entries.len() > 50, "{key}: only {} replies", entries.len());
    entries
}

#[test]
fn the_is_valid_label_is_read_as_adk_reads_it() {
    let fixture = fixture();
    for entry in entries(&fixture, "is_valid") {
        let reply = entry["reply"].as_str().unwrap();
        let ours = match simulator_quality::is_valid(reply) {
            Some(true) => "VALID",
            Some(false) => "INVALID",
            None => "NOT_FOUND",
        };
        assert_eq!(ours, entry["label"], "reply {reply:?}");
    }
}

#[test]
fn sentences_and_their_labels_are_read_as_adk_reads_them() {
    let fixture = fixture();
    for entry in entries(&fixture, "sentences") {
        let reply = entry["reply"].as_str().unwrap();
        let expected: Vec<String> = serde_json::from_value(entry["sentences"].clone()).unwrap();
        assert_eq!(hallucinations::sentences(reply), expected, "reply {reply:?}");
    }
    for entry in entries(&fixture, "labels") {
        let reply = entry["reply"].as_str().unwrap();
        let ours: Vec<[String; 3]> = hallucinations::labels(reply)
            .into_iter()
            .map(|l| [l.sentence, l.label, l.rationale])
            .collect();
        let expected: Vec<[String; 3]> = serde_json::from_value(entry["labels"].clone()).unwrap();
        assert_eq!(ours, expected, "reply {reply:?}");
    }
}

#[test]
fn rubric_verdicts_are_read_as_adk_reads_them() {
    let fixture = fixture();
    for entry in entries(&fixture, "rubrics") {
        let reply = entry["reply"].as_str().unwrap();
        let expected: Vec<(Option<String>, String, String, Option<f64>)> =
            serde_json::from_value(entry["verdicts"].clone()).unwrap();
        // Evalstudio reads `**Property:**` too, where ADK reads nothing.
        if expected.is_empty() && reply.contains("**") {
            continue;
        }
        let ours: Vec<(Option<String>, String, String, Option<f64>)> = parse::rubric_verdicts(reply)
            .into_iter()
            .map(|v| (v.rubric_id, v.property, v.rationale, v.score))
            .collect();
        assert_eq!(ours, expected, "reply {reply:?}");
    }
}

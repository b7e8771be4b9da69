//! Tests of the Ragas-style RAG metrics: context precision, faithfulness and context recall.

use super::*;
use crate::eval::metrics::{CONTEXT_PRECISION, CONTEXT_RECALL, FAITHFULNESS};
use serde_json::json;

#[test]
fn context_precision_is_mean_precision_at_the_useful_items() {
    let precision = metric(CONTEXT_PRECISION, json!({"threshold": 0.5}));
    let three = JudgeInput {
        context: vec!["A".into(), "B".into(), "C".into()],
        ..input()
    };
    let judge = ScriptedJudge::new(|prompt: &str| {
        Ok(if prompt.contains("Context:\nB\n") {
            "NO"
        } else {
            "Yes."
        }
        .to_string())
    });
    let score = evaluate(&precision, &three, &judge);
    // Useful at 1 and 3: (1/1 + 2/3) / 2.
    assert!((score.score.unwrap() - (1.0 + 2.0 / 3.0) / 2.0).abs() < 1e-12);
    let evidence = stored(score.evidence);
    assert_eq!(evidence["items"][1]["useful"], false);
    assert_eq!(evidence["answer"], "reference");
    assert!(judge.prompts()[0].contains("Answer:\nSunny, 25 degrees.\n"));

    let judge = ScriptedJudge::new(|_: &str| Ok("no".to_string()));
    assert_eq!(evaluate(&precision, &three, &judge).score, Some(0.0));
    let judge = ScriptedJudge::new(|prompt: &str| {
        Ok(if prompt.contains("\nB\n") { "dunno" } else { "yes" }.to_string())
    });
    let score = evaluate(&precision, &three, &judge);
    assert_eq!(
        score.reason.as_deref(),
        Some("context item 2: the judge's reply was neither yes nor no")
    );
    let none = JudgeInput {
        context: Vec::new(),
        ..input()
    };
    assert!(evaluate(&precision, &none, &judge)
        .reason
        .unwrap()
        .contains("no context"));
}

#[test]
fn faithfulness_checks_each_claim_against_the_context() {
    let faithfulness = metric(FAITHFULNESS, json!({"threshold": 0.5}));
    let judge = ScriptedJudge::new(|prompt: &str| {
        Ok(if prompt.starts_with("Break the text") {
            "```json\n[\"Paris is sunny.\", \"It is 25 °C in Paris.\", \"Paris is in Spain.\"]\n```"
        } else if prompt.contains("Claim:\nParis is in Spain.") {
            "No"
        } else {
            "Yes"
        }
        .to_string())
    });
    let score = evaluate(&faithfulness, &input(), &judge);
    assert_eq!(score.score, Some(2.0 / 3.0));
    let evidence = stored(score.evidence);
    assert_eq!(
        evidence["statements"][2],
        json!({"statement": "Paris is in Spain.", "supported": false, "reply": "No"})
    );
    let prompts = judge.prompts();
    assert!(prompts[0].contains("Text:\nIt is sunny in Paris, 25 °C.\n"));
    assert_eq!(prompts.len(), 4);

    // No claims to check; no context to check them against.
    let judge = replies_in_turn(&["[]"]);
    assert!(evaluate(&faithfulness, &input(), &judge)
        .reason
        .unwrap()
        .contains("no statements in the response"));
    let judge = replies_in_turn(&["[\"Paris is sunny.\"]"]);
    let score = evaluate(
        &faithfulness,
        &JudgeInput {
            context: Vec::new(),
            ..input()
        },
        &judge,
    );
    assert_eq!(score.score, Some(0.0));
    assert_eq!(judge.prompts().len(), 1, "nothing to check the claim against");
}

#[test]
fn context_recall_checks_the_reference_statements() {
    let recall = metric(CONTEXT_RECALL, json!({"threshold": 0.5}));
    let judge = ScriptedJudge::new(|prompt: &str| {
        Ok(if prompt.starts_with("Break the text") {
            "{\"statements\": [\"It is sunny.\", \"It is 25 degrees.\"]}"
        } else {
            "yes"
        }
        .to_string())
    });
    assert_eq!(evaluate(&recall, &input(), &judge).score, Some(1.0));
    assert!(judge.prompts()[0].contains("Text:\nSunny, 25 degrees.\n"));
    let score = evaluate(
        &recall,
        &JudgeInput {
            reference: None,
            ..input()
        },
        &judge,
    );
    assert!(score
        .reason
        .unwrap()
        .contains("context_recall needs the expected final response"));
    let broken = replies_in_turn(&["It is sunny and warm."]);
    let score = evaluate(&recall, &input(), &broken);
    assert!(score.reason.unwrap().contains("neither a JSON list"));
    assert_eq!(
        stored(score.evidence)["statements_reply"],
        "It is sunny and warm."
    );
}

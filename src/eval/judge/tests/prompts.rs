//! Tests of prompt templates, custom judge prompts, inputs read from invocations and ADK's prompts.

use super::*;
use crate::eval::judge::template;
use crate::eval::metrics::{FINAL_RESPONSE_MATCH_V2, RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1};
use crate::evalset::Invocation;
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Templates

#[test]
fn templates_fill_names_and_keep_other_braces() {
    let prompt = "Q: {query}\n{{literal}} {\"score\": 1} {not a name} {response}{query}é{";
    assert_eq!(template::placeholders(prompt), ["query", "response"]);
    let filled = template::render(prompt, |name| match name {
        "query" => Some("why {response}?"),
        "response" => Some("R"),
        _ => None,
    })
    .unwrap();
    // A value's braces are never read as placeholders.
    assert_eq!(
        filled,
        "Q: why {response}?\n{literal} {\"score\": 1} {not a name} Rwhy {response}?é{"
    );
    assert_eq!(
        template::render("{reference}", |_| None),
        Err("reference".to_string())
    );
    assert_eq!(template::fill("{a} {b}", &[("a", "1")]), "1 {b}");
}

#[test]
fn custom_prompt_placeholders_are_substituted() {
    let custom = metric(
        "tone",
        json!({"threshold": 0.5, "judge_prompt": "Q={query}|R={response}|C={context}|G={reference}|{{x}}", "reply": "yes_no"}),
    );
    let judge = replies_in_turn(&["YES"]);
    let score = evaluate(&custom, &input(), &judge);
    assert_eq!(score.score, Some(1.0));
    assert_eq!(
        judge.prompts(),
        [format!(
            "Q=What's the weather in Paris?|R=It is sunny in Paris, 25 °C.|C={}\n\n{}|G=Sunny, 25 degrees.|{{x}}",
            input().context[0],
            input().context[1]
        )]
    );
    // No tool calls: the context says so rather than being empty.
    let judge = replies_in_turn(&["no"]);
    let bare = JudgeInput {
        context: Vec::new(),
        ..input()
    };
    assert_eq!(evaluate(&custom, &bare, &judge).score, Some(0.0));
    assert!(judge.prompts()[0].contains("C=(none: the agent called no tools)"));
}

#[test]
fn custom_prompt_without_a_reference_is_not_evaluated_naming_the_field() {
    let custom = metric(
        "matches",
        json!({"threshold": 0.5, "judgePrompt": "{response} vs {reference}", "reply": "yes_no"}),
    );
    let judge = replies_in_turn(&[]);
    let score = evaluate(
        &custom,
        &JudgeInput {
            reference: None,
            ..input()
        },
        &judge,
    );
    assert_eq!(score.score, None);
    let reason = score.reason.unwrap();
    assert!(
        reason.contains("criteria.matches.judgePrompt uses {reference}"),
        "{reason}"
    );
    assert!(judge.prompts().is_empty());
}

#[test]
fn custom_score_json_maps_its_range_onto_0_to_1() {
    let custom = metric(
        "grounded",
        json!({"threshold": 0.5, "judge_prompt": "{response}", "reply": "score_json", "score_range": [1, 5],
               "judge_model_options": {"num_samples": 2, "judge_model": "small-judge"}}),
    );
    let judge = replies_in_turn(&[
        "{\"score\": 4, \"feedback\": \"good\"}",
        "```json\n{\"score\": \"5\"}\n```",
    ]);
    let score = evaluate(&custom, &input(), &judge);
    assert_eq!(score.score, Some((0.75 + 1.0) / 2.0));
    assert_eq!(stored(score.evidence)["samples"][0]["feedback"], "good");
    let models: Vec<Option<String>> = judge
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|(_, m)| m.clone())
        .collect();
    assert_eq!(
        models,
        [Some("small-judge".to_string()), Some("small-judge".to_string())]
    );
}

// ---------------------------------------------------------------------------------------------
// Inputs from invocations, and ADK's prompts byte for byte

/// Prompts google-adk 2.13 built for these invocations (`conformance/adk_judge_prompts.py`).
#[test]
fn adk_prompts_are_byte_identical() {
    let path = crate::testing::repo::repo_path("tests/fixtures/adk_judge_prompts.json");
    let scenarios: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(scenarios.len(), 2);
    for scenario in scenarios {
        let name = scenario["name"].as_str().unwrap();
        let actual: Invocation = serde_json::from_value(scenario["actual"].clone()).unwrap();
        let expected: Invocation = serde_json::from_value(scenario["expected"].clone()).unwrap();
        let include = scenario["include_intermediate_responses_in_final"]
            .as_bool()
            .unwrap();
        let input = JudgeInput::new(&actual, Some(&expected), &[], include);
        let criterion = json!({
            "threshold": 0.5,
            "include_intermediate_responses_in_final": include,
            "judge_model_options": {"num_samples": 1},
            "rubrics": scenario["criterion_rubrics"],
        });
        for metric_name in [FINAL_RESPONSE_MATCH_V2, RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1] {
            let mut criterion = criterion.clone();
            if metric_name == FINAL_RESPONSE_MATCH_V2 {
                criterion.as_object_mut().unwrap().remove("rubrics");
            }
            let judge = replies_in_turn(&["no label"]);
            evaluate(&metric(metric_name, criterion), &input, &judge);
            assert_eq!(
                judge.prompts()[0],
                scenario[metric_name].as_str().unwrap(),
                "{name}: {metric_name}"
            );
        }
    }
}

#[test]
fn inputs_read_both_intermediate_data_forms() {
    let events: Invocation = serde_json::from_value(json!({
        "user_content": {"parts": [{"text": "Order 42?"}]},
        "final_response": {"parts": [{"text": "Shipped."}]},
        "intermediate_data": {"invocation_events": [
            {"author": "a", "content": {"parts": [{"text": "Checking."}, {"function_call": {"id": "1", "name": "get_order_status", "args": {"id": 42}}}]}},
            {"author": "a", "content": {"parts": [{"function_response": {"id": "1", "name": "get_order_status", "response": {"status": "shipped"}}}]}}
        ]},
        "rubrics": [{"rubric_id": "own", "rubric_content": {"text_property": "x"}}]
    }))
    .unwrap();
    let tool_uses: Invocation = serde_json::from_value(json!({
        "user_content": {"parts": [{"text": "Order 42?"}]},
        "final_response": {"parts": [{"text": "It shipped."}]},
        "intermediate_data": {
            "tool_uses": [{"id": "1", "name": "get_order_status", "args": {"id": 42}}],
            "tool_responses": [{"id": "1", "name": "get_order_status", "response": {"status": "shipped"}}],
            "intermediate_responses": [["a", [{"text": "One moment."}]]]
        },
        "rubrics": [{"rubric_id": "expected", "rubric_content": {"text_property": "y"}}]
    }))
    .unwrap();
    let case_rubrics = [rubric("case", "z")];
    let input = JudgeInput::new(&events, Some(&tool_uses), &case_rubrics, false);
    assert_eq!(input.query, "Order 42?");
    assert_eq!(input.response, "Shipped.");
    assert_eq!(input.reference.as_deref(), Some("It shipped."));
    assert_eq!(input.context, ["get_order_status: {\"status\":\"shipped\"}"]);
    let ids: Vec<&str> = input.rubrics.iter().map(|r| r.rubric_id.as_str()).collect();
    assert_eq!(ids, ["own", "case", "expected"]);

    let with_intermediate = JudgeInput::new(&events, Some(&tool_uses), &[], true);
    assert_eq!(with_intermediate.response, "Checking.\nShipped.");
    assert_eq!(
        with_intermediate.reference.as_deref(),
        Some("One moment.\nIt shipped.")
    );
    let reversed = JudgeInput::new(&tool_uses, None, &[], false);
    assert_eq!(reversed.context, input.context);
    assert_eq!(reversed.reference, None);
}

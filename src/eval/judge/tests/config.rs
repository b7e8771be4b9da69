//! Tests of reading judge metrics' config: ADK's options, and errors naming each field.

use super::*;
use crate::eval::metrics::{
    FAITHFULNESS, FINAL_RESPONSE_MATCH_V2, RELEVANCY, RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1,
};
use serde_json::{json, Map};

#[test]
fn config_reads_adk_options_and_names_the_field_of_each_error() {
    let v2 = metric(
        FINAL_RESPONSE_MATCH_V2,
        json!({"threshold": 0.8, "judgeModelOptions": {"judgeModel": "gpt-4o", "numSamples": 3.0, "parallelism_limit": 2}, "include_intermediate_responses_in_final": true}),
    );
    assert_eq!(
        v2.options,
        JudgeModelOptions {
            judge_model: Some("gpt-4o".into()),
            num_samples: 3,
            parallelism_limit: Some(2),
        }
    );
    assert!(v2.include_intermediate_responses_in_final);
    assert_eq!(
        metric(RELEVANCY, json!({"threshold": 1.0})).options.num_samples,
        1
    );
    let not_judge = parse_judge_metric(
        "tool_trajectory_avg_score",
        &Map::new(),
        "criteria.tool_trajectory_avg_score",
    );
    assert_eq!(not_judge, Ok(None));

    let errors = [
        (
            config_error(FINAL_RESPONSE_MATCH_V2, json!({"threshold": 1, "judge_model_options": {"num_samples": 0}})),
            "criteria.final_response_match_v2.judge_model_options.num_samples: expected a positive integer, found 0",
        ),
        (
            config_error(FINAL_RESPONSE_MATCH_V2, json!({"threshold": 1, "judge_model_options": {"num_sample": 2}})),
            "criteria.final_response_match_v2.judge_model_options.num_sample: unknown option",
        ),
        (
            config_error(RELEVANCY, json!({"threshold": 1, "judge_model_options": {"judge_model_config": {"temperature": 0}}})),
            "criteria.relevancy.judge_model_options.judge_model_config: not supported",
        ),
        (
            config_error(RELEVANCY, json!({"threshold": 1, "judge_model_options": 3})),
            "criteria.relevancy.judge_model_options: expected an object",
        ),
        (
            config_error(RELEVANCY, json!({"threshold": 1, "rubrics": []})),
            "criteria.relevancy.rubrics: not a setting of a judge metric",
        ),
        (
            config_error(RELEVANCY, json!({"threshold": 1, "judge_prompt": "{response}"})),
            "criteria.relevancy.judge_prompt: `relevancy` has its own prompt",
        ),
        (
            config_error(FAITHFULNESS, json!({"threshold": 1, "judge_model_options": {"num_samples": 5}})),
            "criteria.faithfulness.judge_model_options.num_samples: `faithfulness` asks the judge once per statement",
        ),
        (
            config_error(RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, json!({"threshold": 1, "rubrics": [{"rubric_id": "a"}]})),
            "criteria.rubric_based_final_response_quality_v1.rubrics[0]: missing field `rubric_content`",
        ),
        (
            config_error(RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, json!({"threshold": 1, "rubrics": [
                {"rubric_id": "a", "rubric_content": {"text_property": "A"}},
                {"rubric_id": "a", "rubric_content": {"text_property": "B"}}]})),
            "criteria.rubric_based_final_response_quality_v1.rubrics[1].rubric_id: `a` is used twice",
        ),
        (
            config_error(RUBRIC_BASED_FINAL_RESPONSE_QUALITY_V1, json!({"threshold": 1, "rubrics": [
                {"rubric_id": "a", "rubric_content": {"text_property": "A"}, "weight": 2}]})),
            "criteria.rubric_based_final_response_quality_v1.rubrics[0].weight: not a rubric field",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "Is {answer} polite? {response}", "reply": "yes_no"})),
            "criteria.tone.judge_prompt: unknown placeholder {answer}",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "Is it polite? {query}", "reply": "yes_no"})),
            "criteria.tone.judge_prompt: the prompt never shows the judge the response",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}"})),
            "criteria.tone.reply: missing",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}", "reply": "YES/NO"})),
            "criteria.tone.reply: expected \"yes_no\" or \"score_json\"",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}", "reply": "score_json", "score_range": [5, 1]})),
            "criteria.tone.score_range: expected [lowest, highest]",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}", "reply": "yes_no", "score_range": [1, 5]})),
            "criteria.tone.score_range: only a \"score_json\" reply has a score range",
        ),
        (
            config_error("tone", json!({"threshold": 1, "judge_prompt": "{response}", "reply": "yes_no", "rubric": "x"})),
            "criteria.tone.rubric: not a setting of a judge metric",
        ),
    ];
    for (error, expected) in errors {
        assert!(
            error.starts_with(expected),
            "{error}\n  should start with\n{expected}"
        );
    }
}

#[test]
fn a_judges_own_settings_read_either_spelling_and_name_the_key_as_written() {
    use crate::eval::metrics::{HALLUCINATIONS_V1, PER_TURN_USER_SIMULATOR_QUALITY_V1};
    let kind = metric(
        HALLUCINATIONS_V1,
        json!({"threshold": 1, "evaluateIntermediateNlResponses": true}),
    )
    .kind;
    assert_eq!(
        kind,
        JudgeKind::HallucinationsV1 {
            evaluate_intermediate_nl_responses: true
        }
    );
    let kind = metric(
        PER_TURN_USER_SIMULATOR_QUALITY_V1,
        json!({"threshold": 1, "stopSignal": "<done>"}),
    )
    .kind;
    assert_eq!(
        kind,
        JudgeKind::PerTurnUserSimulatorQualityV1 {
            stop_signal: "<done>".into()
        }
    );
    assert_eq!(
        config_error(PER_TURN_USER_SIMULATOR_QUALITY_V1, json!({"threshold": 1, "stopSignal": ""})),
        "criteria.per_turn_user_simulator_quality_v1.stopSignal: expected the stop signal's text, such as \"</finished>\""
    );
    assert_eq!(
        config_error(
            HALLUCINATIONS_V1,
            json!({"threshold": 1, "evaluate_intermediate_nl_responses": "yes"})
        ),
        "criteria.hallucinations_v1.evaluate_intermediate_nl_responses: expected true or false"
    );
}

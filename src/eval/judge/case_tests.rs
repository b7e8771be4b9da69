//! ADK's judge metrics that read more than one invocation's texts (`hallucinations_v1`, the
//! multi-turn trajectory and simulator-quality metrics, the single-turn rubric metrics' case
//! checks) against a judge that answers from a script.

use super::tests::{metric, replies_in_turn};
use super::{judge_case, CaseView, Evidence};
use crate::evalset::{Content, ConversationScenario, Invocation};
use futures::executor::block_on;
use serde_json::json;

fn turn(user: &str, answer: &str) -> Invocation {
    Invocation {
        invocation_id: user.into(),
        user_content: Content::text("user", user),
        final_response: Some(Content::text("model", answer)),
        ..Invocation::default()
    }
}

fn view<'a>(
    actual: &'a [Invocation],
    scenario: Option<&'a ConversationScenario>,
    threshold: f64,
) -> CaseView<'a> {
    CaseView {
        actual,
        expected: None,
        case_rubrics: &[],
        scenario,
        threshold,
    }
}

#[test]
fn hallucinations_score_the_share_of_supported_sentences_and_keep_each_label() {
    let judge = replies_in_turn(&[
        "<sentence>Paris is sunny.</sentence>\n<sentence>It rains.</sentence>",
        "sentence: Paris is sunny.\nlabel: supported\nrationale: the tool says so\nsupporting_excerpt: sunny\ncontradicting_excerpt: null\n\n\
         sentence: It rains.\nlabel: contradictory\nrationale: the tool says sunny\nsupporting_excerpt: null\ncontradicting_excerpt: sunny",
        "Paris is sunny.",
    ]);
    let conversation = [
        turn("Weather in Paris?", "Paris is sunny. It rains."),
        turn("And now?", "Paris is sunny."),
    ];
    let hallucinations = metric("hallucinations_v1", json!({"threshold": 0.8}));
    let judged = block_on(judge_case(
        &hallucinations,
        &view(&conversation, None, 0.8),
        &judge,
    ));
    assert_eq!(judged.per_invocation[0].score, Some(0.5));
    let Some(Evidence::Judge(evidence)) = &judged.per_invocation[0].evidence else {
        panic!("no judge evidence")
    };
    let checked = &evidence.responses.as_ref().unwrap()[0];
    assert_eq!(checked.sentences, ["Paris is sunny.", "It rains."]);
    assert_eq!(checked.labels[1].label, "contradictory");
    // A segmentation without tags leaves the turn without a score, and says why.
    assert_eq!(judged.per_invocation[1].score, None);
    assert!(judged.per_invocation[1]
        .reason
        .as_deref()
        .unwrap()
        .contains("<sentence>"));
    assert_eq!(judged.overall, Some(0.5));
    let prompts = judge.prompts();
    assert!(
        prompts[1].contains("User prompt:\nWeather in Paris?\n"),
        "{}",
        prompts[1]
    );
}

#[test]
fn the_multi_turn_trajectory_is_judged_once_on_the_last_turn() {
    let judge = replies_in_turn(&[
        "ID: r1\nProperty: The agent answers every question.\nRationale: it does\nVerdict: yes",
    ]);
    let conversation = [turn("Weather in Paris?", "Sunny."), turn("And Rome?", "Rainy.")];
    let trajectory = metric(
        "rubric_based_multi_turn_trajectory_quality_v1",
        json!({"threshold": 0.5, "judge_model_options": {"num_samples": 1},
               "rubrics": [{"rubric_id": "r1", "rubric_content": {"text_property": "The agent answers every question."}}]}),
    );
    let judged = block_on(judge_case(&trajectory, &view(&conversation, None, 0.5), &judge));
    assert_eq!(judged.per_invocation[0].score, None);
    assert!(judged.per_invocation[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("as a whole"));
    assert_eq!(judged.per_invocation[1].score, Some(1.0));
    assert_eq!(judged.overall, Some(1.0));
    let prompt = &judge.prompts()[0];
    for line in [
        "USER TURN 1: Weather in Paris?",
        "AGENT (agent) TURN 2: Rainy.",
        "\"id\": \"r1\"",
    ] {
        assert!(prompt.contains(line), "{line} not in {prompt}");
    }
}

#[test]
fn a_simulated_user_that_should_not_have_stopped_fails_its_last_turn() {
    let scenario = ConversationScenario {
        starting_prompt: "Weather in Paris?".into(),
        conversation_plan: "Ask about Paris, then Rome.".into(),
        ..ConversationScenario::default()
    };
    // Turn 2 keeps to the plan; the stop signal after it comes too early.
    let judge = replies_in_turn(&["{\"is_valid\": true}", "{\"is_valid\": \"invalid\"}"]);
    let conversation = [turn("Weather in Paris?", "Sunny."), turn("And Rome?", "Rainy.")];
    let quality = metric(
        "per_turn_user_simulator_quality_v1",
        json!({"threshold": 1.0, "judge_model_options": {"num_samples": 1}}),
    );
    let judged = block_on(judge_case(
        &quality,
        &view(&conversation, Some(&scenario), 1.0),
        &judge,
    ));
    assert_eq!(judged.per_invocation[0].score, Some(1.0));
    assert_eq!(judged.per_invocation[1].score, Some(0.0));
    assert!(judged.per_invocation[1]
        .reason
        .as_deref()
        .unwrap()
        .contains("</finished>"));
    assert_eq!(judged.overall, Some(0.5));
    assert!(
        judge.prompts()[1].ends_with("</finished>"),
        "{}",
        judge.prompts()[1]
    );

    // Without a scenario, or with a judge that fails, nothing is scored and the reason says why.
    let judged = block_on(judge_case(&quality, &view(&conversation, None, 1.0), &judge));
    assert_eq!(judged.overall, None);
    assert!(judged.per_invocation[0]
        .reason
        .as_deref()
        .unwrap()
        .contains("conversation_scenario"));
    let failing = super::tests::ScriptedJudge::new(|_| Err("HTTP 500".to_string()));
    let judged = block_on(judge_case(
        &quality,
        &view(&conversation, Some(&scenario), 1.0),
        &failing,
    ));
    assert_eq!(judged.overall, None);
    assert!(judged.per_invocation.iter().all(|s| s.score.is_none()));
    assert!(judged.per_invocation[1]
        .reason
        .as_deref()
        .unwrap()
        .contains("HTTP 500"));
}

#[test]
fn a_turn_without_rubrics_leaves_a_single_turn_rubric_metric_not_evaluated() {
    let judge = replies_in_turn(&[]);
    let mut with_rubric = turn("Weather in Paris?", "Sunny.");
    with_rubric.rubrics = Some(vec![serde_json::from_value(json!({"rubric_id": "t1",
        "rubric_content": {"text_property": "It calls get_weather."}, "type": "TOOL_USE_QUALITY"}))
    .unwrap()]);
    let conversation = [with_rubric, turn("And Rome?", "Rainy.")];
    let tool_use = metric("rubric_based_tool_use_quality_v1", json!({"threshold": 0.5}));
    let judged = block_on(judge_case(&tool_use, &view(&conversation, None, 0.5), &judge));
    assert_eq!(judged.overall, None);
    assert!(
        judge.prompts().is_empty(),
        "ADK asks nothing when a turn has no rubrics"
    );
    assert!(judged.per_invocation[0]
        .reason
        .as_deref()
        .unwrap()
        .starts_with("turn 2: there are no rubrics"));
}

#[test]
fn vertex_stand_ins_judge_each_turn_or_the_whole_conversation() {
    let conversation = [turn("Weather in Paris?", "Sunny."), turn("And Rome?", "Rainy.")];
    let safety = metric("safety", json!({"threshold": 1.0}));
    let judge = replies_in_turn(&["YES", "no"]);
    let judged = block_on(judge_case(&safety, &view(&conversation, None, 1.0), &judge));
    let scores: Vec<Option<f64>> = judged.per_invocation.iter().map(|s| s.score).collect();
    assert_eq!(scores, [Some(1.0), Some(0.0)]);
    assert!(judge.prompts()[1].contains("Agent's response:\nRainy."));

    let trajectory = metric("trajectory_quality", json!({"threshold": 0.5}));
    let judge = replies_in_turn(&[r#"{"score": 4, "feedback": "one detour"}"#]);
    let judged = block_on(judge_case(&trajectory, &view(&conversation, None, 0.5), &judge));
    assert_eq!(judged.per_invocation[0].score, None);
    assert_eq!(judged.per_invocation[1].score, Some(0.75));
    assert_eq!(judged.overall, Some(0.75));
    assert!(judge.prompts()[0].contains("USER TURN 2: And Rome?\nAGENT (agent) TURN 2: Rainy."));
}

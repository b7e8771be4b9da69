//! On the weather agent's recorded turn (tests/fixtures/otlp/adk_schema2.spans.json).

use super::*;
use crate::agent::to_eval_case::session_to_eval_case;
use crate::records::spans::SpanRecord;
use crate::testing::repo::repo_path;
use crate::traces::sessions::{group_sessions, trace_session};

fn spans() -> Vec<SpanRecord> {
    let path = repo_path("tests/fixtures/otlp/adk_schema2.spans.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn session() -> TraceSession {
    trace_session("s2", &spans())
}

/// A reference case asking `question` over `turns` turns.
fn reference(eval_id: &str, question: &str, turns: usize) -> EvalCase {
    let mut recorded = session();
    recorded.turns[0].turn.user = question.to_string();
    let turn = recorded.turns[0].clone();
    recorded.turns = vec![turn; turns];
    let mut case = session_to_eval_case(eval_id, &recorded.origin, &recorded.turns, 1.0);
    case.rubrics = Some(Vec::new());
    case
}

#[test]
fn a_session_with_no_reference_case_has_no_expected_conversation() {
    let case = recorded_case(&session(), &[]).unwrap();
    assert_eq!(case.expected.eval_id, "s2");
    assert_eq!(case.expected.conversation, None);
    assert_eq!(case.matched, None);
    assert_eq!(case.actual.len(), 1);
    assert_eq!(
        case.actual[0].user_content.joined_text(),
        "What's the weather in Paris?"
    );
}

#[test]
fn the_case_named_like_the_session_is_its_reference() {
    let cases = [
        reference("other", "What's the weather in Paris?", 1),
        reference("s2", "Something else", 1),
    ];
    let case = recorded_case(&session(), &cases).unwrap();
    let matched = case.matched.unwrap();
    assert_eq!((matched.eval_id.as_str(), matched.by), ("s2", MatchedBy::EvalId));
    assert_eq!(case.expected.conversation, cases[1].conversation);
    assert_eq!(case.expected.rubrics, Some(Vec::new()));
    assert_eq!(case.expected.eval_id, "s2");
}

#[test]
fn else_the_case_asking_the_same_first_question_over_as_many_turns() {
    let cases = [
        reference("two_turns", "What's the weather in Paris?", 2),
        reference("paris", " What's the weather in Paris?\n", 1),
    ];
    let case = recorded_case(&session(), &cases).unwrap();
    let matched = case.matched.unwrap();
    assert_eq!(
        (matched.eval_id.as_str(), matched.by),
        ("paris", MatchedBy::FirstUserMessage)
    );
    assert_eq!(
        case.expected.eval_id, "s2",
        "results stay named after the session"
    );
}

#[test]
fn an_incomplete_or_contentless_session_is_not_scored() {
    let mut partial = session();
    partial.complete = false;
    assert_eq!(
        recorded_case(&partial, &[]),
        Err(Unscorable::Incomplete("s2".into()))
    );
    let mut silent = session();
    silent.content_missing = true;
    assert_eq!(
        recorded_case(&silent, &[]),
        Err(Unscorable::NoContent("s2".into()))
    );
}

#[test]
fn spans_group_into_the_sessions_their_traces_name() {
    let mut spans = spans();
    let named = spans.iter().filter(|span| span.session_id.is_some()).count();
    assert!(
        named > 0 && named < spans.len(),
        "some spans of the trace do not name it"
    );
    let mut stray = spans[0].clone();
    stray.trace_id = "f".repeat(32);
    stray.session_id = None;
    spans.push(stray);
    let total = spans.len();
    let sessions = group_sessions(spans);
    let [(id, grouped)] = &sessions[..] else {
        panic!("{sessions:#?}")
    };
    assert_eq!(
        grouped.len(),
        total - 1,
        "the trace naming no session is left out"
    );
    assert_eq!(trace_session(id, grouped).turns.len(), 1);
}

#[test]
fn the_case_add_to_evalset_saved_the_session_as_is_its_reference() {
    let cases = [
        reference("other", "What's the weather in Paris?", 1),
        reference("session_s2", "Something else", 1),
    ];
    let matched = recorded_case(&session(), &cases).unwrap().matched.unwrap();
    assert_eq!(
        (matched.eval_id.as_str(), matched.by),
        ("session_s2", MatchedBy::EvalId)
    );
}

//! Recorded sessions as cases to score without running the agent again: what the session did
//! is the actual invocations; the expected case is the reference eval set's case it matches,
//! or none, and then only metrics that need no reference (rubrics, hallucinations, judges
//! without one, evaluators, efficiency) score it: the others are NOT_EVALUATED, as for a
//! conversation scenario.

use super::sessions::TraceSession;
use crate::agent::to_eval_case::session_to_eval_case;
use crate::evalset::{EvalCase, Invocation};
use crate::records::traces::session_eval_id;

/// One recorded session, ready to score.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCase {
    /// Named after the session (its result's eval id); the matched case's conversation,
    /// rubrics and state when there is one.
    pub expected: EvalCase,
    pub actual: Vec<Invocation>,
    /// The reference case it matched, and how.
    pub matched: Option<Matched>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matched {
    pub eval_id: String,
    pub by: MatchedBy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchedBy {
    /// The case's eval id is the session's id, or the one Add to evalset names it by.
    EvalId,
    /// The case's first user message is the session's, word for word, over as many turns.
    FirstUserMessage,
}

impl MatchedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            MatchedBy::EvalId => "eval id",
            MatchedBy::FirstUserMessage => "first user message",
        }
    }
}

/// Why a recorded session cannot be scored or saved as a case.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unscorable {
    #[error("session `{0}` has no turns")]
    Empty(String),
    #[error("session `{0}` is missing spans (a trace without its root or a span's parent)")]
    Incomplete(String),
    #[error("spans of session `{0}` are still arriving: try again in a few seconds")]
    Arriving(String),
    #[error("the spans of session `{0}` carry no messages: run the agent with {setting}", setting = super::sessions::CONTENT_SETTING)]
    NoContent(String),
}

/// Whether `session` can become a case (to score, or to save): it has turns, every span of it,
/// and the messages.
pub fn check_usable(session: &TraceSession) -> Result<(), Unscorable> {
    let id = || session.session_id.clone();
    if session.turns.is_empty() {
        return Err(Unscorable::Empty(id()));
    }
    if !session.complete {
        return Err(Unscorable::Incomplete(id()));
    }
    if session.content_missing {
        return Err(Unscorable::NoContent(id()));
    }
    Ok(())
}

/// `session` as a case to score, against the case of `reference` it matches: the one whose
/// eval id is the session's id, else the first whose first user message is the session's and
/// which has as many turns (scores pair turns in order, so a different count would compare
/// the wrong ones).
pub fn recorded_case(session: &TraceSession, reference: &[EvalCase]) -> Result<RecordedCase, Unscorable> {
    check_usable(session)?;
    let id = &session.session_id;
    let recorded = session_to_eval_case(id, &session.origin, &session.turns, 0.0);
    let actual = recorded.conversation.clone().unwrap_or_default();
    let matched = matching_case(id, &actual, reference);
    let expected = match matched {
        None => EvalCase {
            conversation: None,
            ..recorded
        },
        Some((case, _)) => EvalCase {
            eval_id: id.clone(),
            conversation: case.conversation.clone(),
            rubrics: case.rubrics.clone(),
            session_input: case.session_input.clone().or(recorded.session_input),
            ..EvalCase::default()
        },
    };
    Ok(RecordedCase {
        expected,
        actual,
        matched: matched.map(|(case, by)| Matched {
            eval_id: case.eval_id.clone(),
            by,
        }),
    })
}

impl RecordedCase {
    /// The session's turns as the actual case scored against `expected`.
    pub fn actual_case(self) -> EvalCase {
        EvalCase {
            eval_id: self.expected.eval_id,
            conversation: Some(self.actual),
            ..EvalCase::default()
        }
    }
}

fn matching_case<'a>(
    session_id: &str,
    actual: &[Invocation],
    reference: &'a [EvalCase],
) -> Option<(&'a EvalCase, MatchedBy)> {
    let same_turns = |case: &EvalCase| case.conversation.as_ref().map(Vec::len) == Some(actual.len());
    // Its id, or the id Add to evalset names it by.
    let saved_as = session_eval_id(session_id);
    if let Some(case) = reference
        .iter()
        .find(|case| (case.eval_id == session_id || case.eval_id == saved_as) && same_turns(case))
    {
        return Some((case, MatchedBy::EvalId));
    }
    let first = actual.first()?.user_content.joined_text();
    reference
        .iter()
        .filter(|case| same_turns(case))
        .find(|case| {
            case.conversation
                .as_ref()
                .and_then(|turns| turns.first())
                .is_some_and(|turn| turn.user_content.joined_text().trim() == first.trim())
        })
        .map(|case| (case, MatchedBy::FirstUserMessage))
}

#[cfg(test)]
#[path = "recorded_cases_tests.rs"]
mod tests;

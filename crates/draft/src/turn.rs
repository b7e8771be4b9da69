//! A turn of the draft: its steps in the form the file used, and where its calls, responses and texts are.

use super::lists::Keyed;
use super::model::{
    content_text, rubric_drafts, CallDraft, EventDraft, Key, Keys, PartDraft, ResponseDraft, RubricDraft,
    TextDraft,
};
use evalset::{Content, Invocation, Part};

#[derive(Debug, Clone, PartialEq)]
pub struct TurnDraft {
    pub key: Key,
    pub base: Invocation,
    pub user: String,
    pub final_response: String,
    pub steps: Steps,
    pub rubrics: Vec<RubricDraft>,
}

/// What happens between the user's message and the final response, in the form the file
/// used: the two are never converted into each other.
#[derive(Debug, Clone, PartialEq)]
pub enum Steps {
    /// `tool_uses`, `tool_responses` and `intermediate_responses`.
    ToolUses {
        calls: Vec<CallDraft>,
        responses: Vec<ResponseDraft>,
        texts: Vec<TextDraft>,
    },
    /// `invocation_events`: each event's author and parts.
    Events(Vec<EventDraft>),
}

impl TurnDraft {
    pub(super) fn from_invocation(invocation: &Invocation, keys: &mut Keys) -> TurnDraft {
        let data = invocation.intermediate_data.clone().unwrap_or_default();
        let steps = match &data.invocation_events {
            Some(events) => Steps::Events(
                events
                    .iter()
                    .map(|event| EventDraft::from_event(event, keys))
                    .collect(),
            ),
            None => Steps::ToolUses {
                calls: data
                    .tool_uses
                    .iter()
                    .map(|call| CallDraft::from_call(call, keys))
                    .collect(),
                responses: data
                    .tool_responses
                    .iter()
                    .map(|response| ResponseDraft::from_response(response, keys))
                    .collect(),
                texts: data
                    .intermediate_responses
                    .iter()
                    .map(|(author, parts)| TextDraft {
                        key: keys.next(),
                        base: parts.clone(),
                        author: author.clone(),
                        text: joined(parts),
                    })
                    .collect(),
            },
        };
        TurnDraft {
            key: keys.next(),
            base: invocation.clone(),
            user: invocation.user_content.joined_text(),
            final_response: content_text(invocation.final_response.as_ref()),
            steps,
            rubrics: rubric_drafts(invocation.rubrics.as_deref(), keys),
        }
    }

    /// The expected tool calls in order, in either form.
    pub fn calls(&self) -> Vec<&CallDraft> {
        match &self.steps {
            Steps::ToolUses { calls, .. } => calls.iter().collect(),
            Steps::Events(events) => events
                .iter()
                .flat_map(|event| &event.parts)
                .filter_map(|part| match part {
                    PartDraft::Call(call) => Some(call),
                    _ => None,
                })
                .collect(),
        }
    }

    pub fn call(&self, key: Key) -> Option<&CallDraft> {
        self.calls().into_iter().find(|call| call.key == key)
    }

    /// The call `key`, wherever the turn holds it.
    pub fn call_mut(&mut self, key: Key) -> Option<&mut CallDraft> {
        match &mut self.steps {
            Steps::ToolUses { calls, .. } => calls.iter_mut().find(|call| call.key == key),
            Steps::Events(events) => events
                .iter_mut()
                .flat_map(|event| &mut event.parts)
                .find_map(|part| match part {
                    PartDraft::Call(call) if call.key == key => Some(call),
                    _ => None,
                }),
        }
    }

    pub fn response(&self, key: Key) -> Option<&ResponseDraft> {
        match &self.steps {
            Steps::ToolUses { responses, .. } => responses.iter().find(|r| r.key == key),
            Steps::Events(events) => {
                events
                    .iter()
                    .flat_map(|event| &event.parts)
                    .find_map(|part| match part {
                        PartDraft::Response(response) if response.key == key => Some(response),
                        _ => None,
                    })
            }
        }
    }

    /// The text `key`, read-only (see [`TurnDraft::text_mut`]).
    pub fn text(&self, key: Key) -> Option<&str> {
        match &self.steps {
            Steps::ToolUses { texts, .. } => texts.iter().find(|t| t.key == key).map(|t| t.text.as_str()),
            Steps::Events(events) => {
                events
                    .iter()
                    .flat_map(|event| &event.parts)
                    .find_map(|part| match part {
                        PartDraft::Text { key: k, text, .. } if *k == key => Some(text.as_str()),
                        _ => None,
                    })
            }
        }
    }

    pub fn response_mut(&mut self, key: Key) -> Option<&mut ResponseDraft> {
        match &mut self.steps {
            Steps::ToolUses { responses, .. } => responses.iter_mut().find(|r| r.key == key),
            Steps::Events(events) => events
                .iter_mut()
                .flat_map(|event| &mut event.parts)
                .find_map(|part| match part {
                    PartDraft::Response(response) if response.key == key => Some(response),
                    _ => None,
                }),
        }
    }

    /// The text `key`: an intermediate response's, or a text part's of an event.
    pub fn text_mut(&mut self, key: Key) -> Option<&mut String> {
        match &mut self.steps {
            Steps::ToolUses { texts, .. } => texts.iter_mut().find(|t| t.key == key).map(|t| &mut t.text),
            Steps::Events(events) => events
                .iter_mut()
                .flat_map(|event| &mut event.parts)
                .find_map(|part| match part {
                    PartDraft::Text { key: k, text, .. } if *k == key => Some(text),
                    _ => None,
                }),
        }
    }

    /// The author of the last event or intermediate response, for a new one.
    pub fn last_author(&self) -> String {
        let last = match &self.steps {
            Steps::ToolUses { texts, .. } => texts.last().map(|t| t.author.clone()),
            Steps::Events(events) => events.last().map(|e| e.author.clone()),
        };
        last.filter(|a| !a.is_empty()).unwrap_or_else(|| "agent".into())
    }
}

fn joined(parts: &[Part]) -> String {
    content_text(Some(&Content {
        parts: Some(parts.to_vec()),
        ..Content::default()
    }))
}

impl Keyed for TurnDraft {
    fn key(&self) -> Key {
        self.key
    }
    fn rekey(&mut self, next: &mut Key) {
        let mut keys = Keys(next);
        self.key = keys.next();
        self.rubrics.iter_mut().for_each(|r| r.rekey(keys.0));
        match &mut self.steps {
            Steps::ToolUses {
                calls,
                responses,
                texts,
            } => {
                calls.iter_mut().for_each(|c| c.rekey(keys.0));
                responses.iter_mut().for_each(|r| r.rekey(keys.0));
                texts.iter_mut().for_each(|t| t.rekey(keys.0));
            }
            Steps::Events(events) => events.iter_mut().for_each(|e| e.rekey(keys.0)),
        }
    }
}

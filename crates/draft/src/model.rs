//! The draft's shape and how it is made from a stored case. Each item keeps `base`, the part
//! of the case it was made from (a default one when the editor added it); `build` writes the
//! edited text back onto a copy of it.

use super::lists::{duplicate_item, Keyed};
pub use super::turn::{Steps, TurnDraft};
use evalset::{
    Content, ConversationScenario, EvalCase, FunctionCall, FunctionResponse, Invocation, InvocationEvent,
    Part, Rubric, SessionInput,
};
use serde_json::{Map, Value};

/// Identifies an item of the draft for as long as the editor is open.
pub type Key = u64;

#[derive(Debug, Clone, PartialEq)]
pub struct CaseDraft {
    /// The case as it was opened.
    pub base: EvalCase,
    pub eval_id: String,
    /// Free-form tags, comma-separated; stored as the extra field `tags` (a list of strings).
    pub tags: String,
    pub session: Option<SessionDraft>,
    pub rubrics: Vec<RubricDraft>,
    pub scenario: Option<ScenarioDraft>,
    pub turns: Vec<TurnDraft>,
    pub next_key: Key,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SessionDraft {
    pub base: SessionInput,
    pub app_name: String,
    pub user_id: String,
    /// The initial state, a JSON object.
    pub state: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioDraft {
    pub base: ConversationScenario,
    pub starting_prompt: String,
    pub conversation_plan: String,
    /// The user persona as JSON; empty for none.
    pub persona: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RubricDraft {
    pub key: Key,
    pub base: Rubric,
    pub id: String,
    pub text: String,
    /// ADK's optional rubric `type`; empty for none.
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallDraft {
    pub key: Key,
    /// Keeps the call's id and any other field as they were.
    pub base: FunctionCall,
    pub name: String,
    /// The args as a JSON object.
    pub args: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ResponseDraft {
    pub key: Key,
    pub base: FunctionResponse,
    pub name: String,
    /// The response as a JSON object; empty for none.
    pub response: String,
}

/// One intermediate response: an author and what it wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct TextDraft {
    pub key: Key,
    pub base: Vec<Part>,
    pub author: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EventDraft {
    pub key: Key,
    pub base: InvocationEvent,
    pub author: String,
    pub parts: Vec<PartDraft>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PartDraft {
    Call(CallDraft),
    Response(ResponseDraft),
    Text {
        key: Key,
        base: Part,
        text: String,
    },
    /// A part the editor does not edit (a thought, inline data, code): kept as it is.
    Kept {
        key: Key,
        base: Part,
    },
}

/// Hands out keys.
pub(super) struct Keys<'a>(pub(super) &'a mut Key);

impl Keys<'_> {
    pub(super) fn next(&mut self) -> Key {
        *self.0 += 1;
        *self.0
    }
}

/// JSON as the editor shows it: pretty, two-space indented.
pub(super) fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

pub(super) fn object_text(map: Option<&Map<String, Value>>) -> String {
    map.map(|m| pretty(&Value::Object(m.clone())))
        .unwrap_or_else(|| "{}".into())
}

pub(super) fn content_text(content: Option<&Content>) -> String {
    content.map(Content::joined_text).unwrap_or_default()
}

/// The case's tags as the editor shows them, each with the value it came from.
pub(super) fn tag_values(case: &EvalCase) -> Vec<(String, Value)> {
    let shown = |value: &Value| match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match case.extra.get("tags") {
        Some(Value::Array(items)) => items.iter().map(|item| (shown(item), item.clone())).collect(),
        Some(other) => vec![(shown(other), other.clone())],
        None => Vec::new(),
    }
}

/// The case's `tags` extra field as the editor shows it: comma-separated.
pub(super) fn tags_text(case: &EvalCase) -> String {
    tag_values(case)
        .into_iter()
        .map(|(text, _)| text)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn rubric_kind(rubric: &Rubric) -> String {
    rubric
        .extra
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

impl CaseDraft {
    pub fn from_case(case: &EvalCase) -> CaseDraft {
        CaseDraft::from_case_after(case, 0)
    }

    /// A draft whose keys all come after `last_key`: a case read again into an open editor
    /// must not reuse the keys of rows the page still shows.
    pub fn from_case_after(case: &EvalCase, last_key: Key) -> CaseDraft {
        let mut next_key = last_key;
        let mut keys = Keys(&mut next_key);
        let session = case.session_input.as_ref().map(|s| SessionDraft {
            base: s.clone(),
            app_name: s.app_name.clone(),
            user_id: s.user_id.clone(),
            state: pretty(&Value::Object(s.state.clone())),
        });
        let scenario = case.conversation_scenario.as_ref().map(|s| ScenarioDraft {
            base: s.clone(),
            starting_prompt: s.starting_prompt.clone(),
            conversation_plan: s.conversation_plan.clone(),
            persona: s.user_persona.as_ref().map(pretty).unwrap_or_default(),
        });
        let rubrics = rubric_drafts(case.rubrics.as_deref(), &mut keys);
        let turns = case
            .invocations()
            .iter()
            .map(|invocation| TurnDraft::from_invocation(invocation, &mut keys))
            .collect();
        CaseDraft {
            base: case.clone(),
            eval_id: case.eval_id.clone(),
            tags: tags_text(case),
            session,
            rubrics,
            scenario,
            turns,
            next_key,
        }
    }

    pub fn new_key(&mut self) -> Key {
        Keys(&mut self.next_key).next()
    }

    /// Whether the turns use the invocation_events form (new turns follow the case's form).
    pub fn uses_events(&self) -> bool {
        self.turns
            .iter()
            .any(|turn| matches!(turn.steps, Steps::Events(_)))
    }

    /// A new, empty turn at the end.
    pub fn add_turn(&mut self) -> Key {
        let key = self.new_key();
        let steps = if self.uses_events() {
            Steps::Events(Vec::new())
        } else {
            Steps::ToolUses {
                calls: Vec::new(),
                responses: Vec::new(),
                texts: Vec::new(),
            }
        };
        let base = Invocation {
            invocation_id: self.fresh_invocation_id(),
            ..Invocation::default()
        };
        self.turns.push(TurnDraft {
            key,
            base,
            user: String::new(),
            final_response: String::new(),
            steps,
            rubrics: Vec::new(),
        });
        key
    }

    /// An invocation id no turn has, for a new or copied turn.
    fn fresh_invocation_id(&self) -> String {
        (self.turns.len() + 1..)
            .map(|n| format!("e-turn-{n}"))
            .find(|id| !self.turns.iter().any(|t| &t.base.invocation_id == id))
            .expect("some id is free")
    }

    /// Puts a copy of the turn `key` after it, with new keys and its own invocation id; the
    /// calls keep their ids (they pair with the copied responses).
    pub fn duplicate_turn(&mut self, key: Key) {
        let invocation_id = self.fresh_invocation_id();
        let mut next = self.next_key;
        if let Some(copy) = duplicate_item(&mut self.turns, key, &mut next) {
            if let Some(turn) = self.turn_mut(copy) {
                turn.base.invocation_id = invocation_id;
            }
        }
        self.next_key = next;
    }

    /// Puts a copy of a call (tool_uses form) after it; the copy is a new call, without an id.
    pub fn duplicate_call(&mut self, turn: Key, call: Key) {
        let mut next = self.next_key;
        if let Some(Steps::ToolUses { calls, .. }) = self.turn_mut(turn).map(|t| &mut t.steps) {
            if let Some(copy) = duplicate_item(calls, call, &mut next) {
                if let Some(c) = calls.iter_mut().find(|c| c.key == copy) {
                    c.base.id = None;
                }
            }
        }
        self.next_key = next;
    }

    pub fn turn(&self, key: Key) -> Option<&TurnDraft> {
        self.turns.iter().find(|turn| turn.key == key)
    }

    pub fn turn_mut(&mut self, key: Key) -> Option<&mut TurnDraft> {
        self.turns.iter_mut().find(|turn| turn.key == key)
    }

    /// The tool names the case calls, for the name field's suggestions.
    pub fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .turns
            .iter()
            .flat_map(TurnDraft::calls)
            .map(|call| call.name.clone())
            .filter(|name| !name.is_empty())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

pub(super) fn rubric_drafts(rubrics: Option<&[Rubric]>, keys: &mut Keys) -> Vec<RubricDraft> {
    rubrics
        .unwrap_or_default()
        .iter()
        .map(|rubric| RubricDraft {
            key: keys.next(),
            base: rubric.clone(),
            id: rubric.rubric_id.clone(),
            text: rubric.rubric_content.text_property.clone().unwrap_or_default(),
            kind: rubric_kind(rubric),
        })
        .collect()
}

impl RubricDraft {
    pub fn new(key: Key, id: String) -> RubricDraft {
        RubricDraft {
            key,
            base: Rubric::default(),
            id,
            text: String::new(),
            kind: String::new(),
        }
    }
}

impl CallDraft {
    pub fn new(key: Key) -> CallDraft {
        CallDraft {
            key,
            // ADK records a call without arguments as `args: {}`.
            base: FunctionCall {
                args: Some(Map::new()),
                ..FunctionCall::default()
            },
            name: String::new(),
            args: "{}".into(),
        }
    }

    pub(super) fn from_call(call: &FunctionCall, keys: &mut Keys) -> CallDraft {
        CallDraft {
            key: keys.next(),
            base: call.clone(),
            name: call.name.clone().unwrap_or_default(),
            args: object_text(call.args.as_ref()),
        }
    }
}

impl ResponseDraft {
    pub fn new(key: Key) -> ResponseDraft {
        ResponseDraft {
            key,
            base: FunctionResponse::default(),
            name: String::new(),
            response: "{}".into(),
        }
    }

    pub(super) fn from_response(response: &FunctionResponse, keys: &mut Keys) -> ResponseDraft {
        ResponseDraft {
            key: keys.next(),
            base: response.clone(),
            name: response.name.clone().unwrap_or_default(),
            response: response
                .response
                .as_ref()
                .map(|m| pretty(&Value::Object(m.clone())))
                .unwrap_or_default(),
        }
    }
}

impl TextDraft {
    pub fn new(key: Key, author: String) -> TextDraft {
        TextDraft {
            key,
            base: Vec::new(),
            author,
            text: String::new(),
        }
    }
}

impl EventDraft {
    /// A new event holding one part.
    pub fn new(key: Key, author: String, part: PartDraft) -> EventDraft {
        EventDraft {
            key,
            base: InvocationEvent::default(),
            author,
            parts: vec![part],
        }
    }

    pub(super) fn from_event(event: &InvocationEvent, keys: &mut Keys) -> EventDraft {
        let parts = event
            .content
            .iter()
            .flat_map(|content| content.parts.iter().flatten())
            .map(|part| PartDraft::from_part(part, keys))
            .collect();
        EventDraft {
            key: keys.next(),
            base: event.clone(),
            author: event.author.clone(),
            parts,
        }
    }
}

impl PartDraft {
    fn from_part(part: &Part, keys: &mut Keys) -> PartDraft {
        // Only a part that is nothing but a call, a response or a visible text is edited.
        let bare = Part {
            function_call: None,
            function_response: None,
            text: None,
            ..part.clone()
        };
        let plain = bare == Part::default();
        match (&part.function_call, &part.function_response, &part.text) {
            (Some(call), None, None) if plain => PartDraft::Call(CallDraft::from_call(call, keys)),
            (None, Some(response), None) if plain => {
                PartDraft::Response(ResponseDraft::from_response(response, keys))
            }
            (None, None, Some(text)) if plain => PartDraft::Text {
                key: keys.next(),
                base: part.clone(),
                text: text.clone(),
            },
            _ => PartDraft::Kept {
                key: keys.next(),
                base: part.clone(),
            },
        }
    }

    pub fn key(&self) -> Key {
        match self {
            PartDraft::Call(call) => call.key,
            PartDraft::Response(response) => response.key,
            PartDraft::Text { key, .. } | PartDraft::Kept { key, .. } => *key,
        }
    }
}

impl Keyed for CallDraft {
    fn key(&self) -> Key {
        self.key
    }
    fn rekey(&mut self, next: &mut Key) {
        self.key = Keys(next).next();
    }
}

impl Keyed for ResponseDraft {
    fn key(&self) -> Key {
        self.key
    }
    fn rekey(&mut self, next: &mut Key) {
        self.key = Keys(next).next();
    }
}

impl Keyed for TextDraft {
    fn key(&self) -> Key {
        self.key
    }
    fn rekey(&mut self, next: &mut Key) {
        self.key = Keys(next).next();
    }
}

impl Keyed for RubricDraft {
    fn key(&self) -> Key {
        self.key
    }
    fn rekey(&mut self, next: &mut Key) {
        self.key = Keys(next).next();
    }
}

impl Keyed for EventDraft {
    fn key(&self) -> Key {
        self.key
    }
    fn rekey(&mut self, next: &mut Key) {
        self.key = Keys(next).next();
        self.parts.iter_mut().for_each(|part| part.rekey(next));
    }
}

impl Keyed for PartDraft {
    fn key(&self) -> Key {
        PartDraft::key(self)
    }
    fn rekey(&mut self, next: &mut Key) {
        match self {
            PartDraft::Call(call) => call.rekey(next),
            PartDraft::Response(response) => response.rekey(next),
            PartDraft::Text { key, .. } | PartDraft::Kept { key, .. } => *key = Keys(next).next(),
        }
    }
}

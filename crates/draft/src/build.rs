//! Turns a draft back into a case, or says what is wrong with it: every problem names the field
//! (for the page to show it beside the field) and where it is ("turn 2, call 1: args").

use super::json_text::{parse_json, parse_json_object};
use super::model::{
    content_text, object_text, pretty, rubric_kind, tag_values, tags_text, CallDraft, CaseDraft, EventDraft,
    Key, PartDraft, ResponseDraft, RubricDraft, Steps, TextDraft, TurnDraft,
};
use evalset::{validate_new_eval_id, Content, EvalCase, IntermediateData, Invocation, Part, Rubric};
use serde_json::Value;

/// Something that keeps the draft from being saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The field's id: `eval_id`, `session.state`, or `<key>.<field>` for an item's field.
    pub field: String,
    /// Where the field is, in words: "turn 2, call 1 (get_weather): args".
    pub place: String,
    pub message: String,
}

/// The field id of an item's field.
pub fn item_field(key: Key, name: &str) -> String {
    format!("{key}.{name}")
}

#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn add(&mut self, field: String, place: String, message: impl Into<String>) {
        self.0.push(Problem {
            field,
            place,
            message: message.into(),
        });
    }

    fn non_empty(&mut self, value: &str, field: String, place: String, what: &str) {
        if value.trim().is_empty() {
            self.add(field, place, format!("{what} is empty"));
        }
    }
}

impl CaseDraft {
    /// What keeps the draft from being saved; empty when it can be.
    pub fn problems(&self) -> Vec<Problem> {
        self.build().err().unwrap_or_default()
    }

    /// The case the draft describes: a copy of the opened one with the edits written onto it.
    pub fn build(&self) -> Result<EvalCase, Vec<Problem>> {
        let mut problems = Problems::default();
        let mut case = self.base.clone();
        // A renamed case gets a typed id's rules; a kept id stays as the file had it.
        if self.eval_id != self.base.eval_id {
            if let Err(message) = validate_new_eval_id(&self.eval_id) {
                problems.add("eval_id".into(), "eval_id".into(), message);
            }
        }
        case.eval_id = self.eval_id.clone();
        if self.tags != tags_text(&self.base) {
            // A tag left as it was keeps its value (a number stays a number).
            let before = tag_values(&self.base);
            let tags: Vec<Value> = self
                .tags
                .split(',')
                .map(str::trim)
                .filter(|tag| !tag.is_empty())
                .map(|tag| {
                    before
                        .iter()
                        .find(|(text, _)| text == tag)
                        .map(|(_, value)| value.clone())
                        .unwrap_or_else(|| Value::String(tag.to_string()))
                })
                .collect();
            if tags.is_empty() {
                case.extra.shift_remove("tags");
            } else {
                case.extra.insert("tags".into(), Value::Array(tags));
            }
        }
        case.session_input = self.session.as_ref().map(|draft| {
            let mut session = draft.base.clone();
            let place = |what: &str| format!("session input: {what}");
            problems.non_empty(
                &draft.app_name,
                "session.app_name".into(),
                place("app_name"),
                "app_name",
            );
            problems.non_empty(
                &draft.user_id,
                "session.user_id".into(),
                place("user_id"),
                "user_id",
            );
            session.app_name = draft.app_name.clone();
            session.user_id = draft.user_id.clone();
            match parse_json_object(&draft.state) {
                Ok(state) => session.state = state,
                Err(err) => problems.add("session.state".into(), place("state"), err.to_string()),
            }
            session
        });
        case.conversation_scenario = self.scenario.as_ref().map(|draft| {
            let mut scenario = draft.base.clone();
            let place = |what: &str| format!("conversation scenario: {what}");
            problems.non_empty(
                &draft.starting_prompt,
                "scenario.starting_prompt".into(),
                place("starting prompt"),
                "the starting prompt",
            );
            problems.non_empty(
                &draft.conversation_plan,
                "scenario.conversation_plan".into(),
                place("plan"),
                "the conversation plan",
            );
            scenario.starting_prompt = draft.starting_prompt.clone();
            scenario.conversation_plan = draft.conversation_plan.clone();
            let unchanged = scenario.user_persona.as_ref().map(pretty).unwrap_or_default();
            if draft.persona != unchanged {
                scenario.user_persona = if draft.persona.trim().is_empty() {
                    None
                } else {
                    match parse_json(&draft.persona) {
                        Ok(persona) => Some(persona),
                        Err(err) => {
                            problems.add("scenario.persona".into(), place("user persona"), err.to_string());
                            None
                        }
                    }
                };
            }
            scenario
        });
        case.rubrics = list_field(
            &self.base.rubrics,
            build_rubrics(&self.rubrics, "case rubric", &mut problems),
        );
        let turns: Vec<Invocation> = self
            .turns
            .iter()
            .enumerate()
            .map(|(index, turn)| build_turn(turn, index + 1, &mut problems))
            .collect();
        case.conversation = if self.scenario.is_some() {
            if !turns.is_empty() {
                problems.add(
                    "scenario".into(),
                    "conversation scenario".into(),
                    "a case has either scripted turns or a conversation scenario: remove the turns or the scenario",
                );
            }
            None
        } else {
            Some(turns)
        };
        if problems.0.is_empty() {
            Ok(case)
        } else {
            Err(problems.0)
        }
    }
}

/// An absent list stays absent while the editor leaves it empty.
fn list_field<T>(base: &Option<Vec<T>>, items: Vec<T>) -> Option<Vec<T>> {
    (base.is_some() || !items.is_empty()).then_some(items)
}

fn build_rubrics(drafts: &[RubricDraft], owner: &str, problems: &mut Problems) -> Vec<Rubric> {
    drafts
        .iter()
        .enumerate()
        .map(|(index, draft)| {
            let place = |what: &str| format!("{owner} {}: {what}", index + 1);
            problems.non_empty(
                &draft.id,
                item_field(draft.key, "id"),
                place("rubric_id"),
                "rubric_id",
            );
            if drafts[..index].iter().any(|other| other.id == draft.id) {
                problems.add(
                    item_field(draft.key, "id"),
                    place("rubric_id"),
                    format!("rubric_id `{}` is used twice", draft.id),
                );
            }
            problems.non_empty(
                &draft.text,
                item_field(draft.key, "text"),
                place("text"),
                "the rubric's text",
            );
            let mut rubric = draft.base.clone();
            rubric.rubric_id = draft.id.clone();
            if draft.text != rubric.rubric_content.text_property.clone().unwrap_or_default() {
                rubric.rubric_content.text_property = Some(draft.text.clone());
            }
            if draft.kind != rubric_kind(&draft.base) {
                if draft.kind.trim().is_empty() {
                    rubric.extra.shift_remove("type");
                } else {
                    rubric
                        .extra
                        .insert("type".into(), Value::String(draft.kind.trim().into()));
                }
            }
            rubric
        })
        .collect()
}

fn build_turn(turn: &TurnDraft, number: usize, problems: &mut Problems) -> Invocation {
    let mut invocation = turn.base.clone();
    problems.non_empty(
        &turn.user,
        item_field(turn.key, "user"),
        format!("turn {number}: user message"),
        "the user message",
    );
    invocation.user_content =
        with_text(Some(&turn.base.user_content), "user", &turn.user).expect("a base content gives a content");
    invocation.final_response = with_text(turn.base.final_response.as_ref(), "model", &turn.final_response);
    let base_data = turn.base.intermediate_data.clone();
    invocation.intermediate_data = match &turn.steps {
        Steps::ToolUses {
            calls,
            responses,
            texts,
        } => {
            let mut data = base_data.clone().unwrap_or_default();
            data.tool_uses = calls
                .iter()
                .enumerate()
                .map(|(i, call)| build_call(call, &format!("turn {number}, call {}", i + 1), problems))
                .collect();
            data.tool_responses = responses
                .iter()
                .enumerate()
                .map(|(i, r)| build_response(r, &format!("turn {number}, tool response {}", i + 1), problems))
                .collect();
            data.intermediate_responses = texts
                .iter()
                .enumerate()
                .map(|(i, text)| {
                    build_text(
                        text,
                        &format!("turn {number}, intermediate response {}", i + 1),
                        problems,
                    )
                })
                .collect();
            (base_data.is_some() || data != IntermediateData::default()).then_some(data)
        }
        Steps::Events(events) => {
            let mut data = base_data.unwrap_or_default();
            data.invocation_events = Some(
                events
                    .iter()
                    .enumerate()
                    .map(|(i, event)| {
                        build_event(event, &format!("turn {number}, event {}", i + 1), problems)
                    })
                    .collect(),
            );
            Some(data)
        }
    };
    invocation.rubrics = list_field(
        &turn.base.rubrics,
        build_rubrics(&turn.rubrics, &format!("turn {number}, rubric"), problems),
    );
    invocation
}

fn build_call(draft: &CallDraft, place: &str, problems: &mut Problems) -> evalset::FunctionCall {
    let place = if draft.name.is_empty() {
        place.to_string()
    } else {
        format!("{place} ({})", draft.name)
    };
    problems.non_empty(
        &draft.name,
        item_field(draft.key, "name"),
        format!("{place}: tool name"),
        "the tool name",
    );
    let mut call = draft.base.clone();
    if draft.name != call.name.clone().unwrap_or_default() {
        call.name = Some(draft.name.trim().to_string());
    }
    if draft.args != object_text(draft.base.args.as_ref()) {
        match parse_json_object(&draft.args) {
            Ok(args) => call.args = Some(args),
            Err(err) => problems.add(
                item_field(draft.key, "args"),
                format!("{place}: args"),
                err.to_string(),
            ),
        }
    }
    call
}

fn build_response(draft: &ResponseDraft, place: &str, problems: &mut Problems) -> evalset::FunctionResponse {
    let mut response = draft.base.clone();
    problems.non_empty(
        &draft.name,
        item_field(draft.key, "name"),
        format!("{place}: tool name"),
        "the tool name",
    );
    if draft.name != response.name.clone().unwrap_or_default() {
        response.name = Some(draft.name.trim().to_string());
    }
    let unchanged = draft
        .base
        .response
        .as_ref()
        .map(|m| pretty(&Value::Object(m.clone())))
        .unwrap_or_default();
    if draft.response != unchanged {
        response.response = if draft.response.trim().is_empty() {
            None
        } else {
            match parse_json_object(&draft.response) {
                Ok(map) => Some(map),
                Err(err) => {
                    problems.add(
                        item_field(draft.key, "response"),
                        format!("{place}: response"),
                        err.to_string(),
                    );
                    draft.base.response.clone()
                }
            }
        };
    }
    response
}

fn build_text(draft: &TextDraft, place: &str, problems: &mut Problems) -> (String, Vec<Part>) {
    problems.non_empty(
        &draft.author,
        item_field(draft.key, "author"),
        format!("{place}: author"),
        "the author",
    );
    (draft.author.clone(), parts_with_text(&draft.base, &draft.text))
}

fn build_event(draft: &EventDraft, place: &str, problems: &mut Problems) -> evalset::InvocationEvent {
    problems.non_empty(
        &draft.author,
        item_field(draft.key, "author"),
        format!("{place}: author"),
        "the author",
    );
    let mut event = draft.base.clone();
    event.author = draft.author.clone();
    let parts: Vec<Part> = draft
        .parts
        .iter()
        .map(|part| match part {
            PartDraft::Call(call) => Part {
                function_call: Some(Box::new(build_call(call, place, problems))),
                ..Part::default()
            },
            PartDraft::Response(response) => Part {
                function_response: Some(Box::new(build_response(response, place, problems))),
                ..Part::default()
            },
            PartDraft::Text { base, text, .. } => Part {
                text: Some(text.clone()),
                ..base.clone()
            },
            PartDraft::Kept { base, .. } => base.clone(),
        })
        .collect();
    let unchanged = draft
        .base
        .content
        .as_ref()
        .and_then(|c| c.parts.clone())
        .unwrap_or_default();
    if parts != unchanged {
        // ADK files put tool responses in user-role content, calls and text in model-role.
        let role = match draft.parts.first() {
            Some(PartDraft::Response(_)) => "user",
            _ => "model",
        };
        let content = event.content.get_or_insert_with(|| Content {
            role: Some(role.into()),
            ..Content::default()
        });
        content.parts = Some(parts);
    }
    event
}

/// `base` with its visible text replaced by `text`, keeping every other part (thoughts, inline
/// data, calls) where it was; `base` itself when the text did not change.
fn with_text(base: Option<&Content>, role: &str, text: &str) -> Option<Content> {
    if content_text(base) == text {
        return base.cloned();
    }
    let mut content = base.cloned().unwrap_or_default();
    content.role.get_or_insert_with(|| role.to_string());
    content.parts = Some(parts_with_text(
        content.parts.as_deref().unwrap_or_default(),
        text,
    ));
    Some(content)
}

fn parts_with_text(base: &[Part], text: &str) -> Vec<Part> {
    let visible_text = |part: &Part| part.text.is_some() && part.thought != Some(true);
    if content_text(Some(&Content {
        parts: Some(base.to_vec()),
        ..Content::default()
    })) == text
    {
        return base.to_vec();
    }
    let new_text = |like: Option<&Part>| Part {
        text: Some(text.to_string()),
        ..like.cloned().unwrap_or_default()
    };
    let mut parts = Vec::with_capacity(base.len() + 1);
    let mut placed = text.is_empty();
    for part in base {
        if visible_text(part) {
            if !placed {
                parts.push(new_text(Some(part)));
                placed = true;
            }
        } else {
            parts.push(part.clone());
        }
    }
    if !placed {
        parts.push(new_text(None));
    }
    parts
}

//! An evalset written back in the old list form a `.test.json` was read from (ADK's
//! AgentEvaluator still reads it), so a file edited here keeps its own form. The lists hold
//! less than an evalset: what they cannot hold is refused with the reason, never dropped.

use crate::import::SourceFormat;
use crate::model::case::{EvalCase, Invocation};
use crate::model::eval_set::EvalSet;
use crate::model::genai::Content;
use serde::Serialize;
use serde_json::{Map, Value};

/// `[{query, expected_tool_use, expected_intermediate_agent_responses?, reference}, ...]`.
#[derive(Serialize)]
struct LegacyInvocation {
    query: String,
    expected_tool_use: Vec<LegacyToolUse>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    expected_intermediate_agent_responses: Vec<LegacyResponse>,
    reference: String,
}

#[derive(Serialize)]
struct LegacyToolUse {
    tool_name: String,
    tool_input: Map<String, Value>,
}

#[derive(Serialize)]
struct LegacyResponse {
    author: String,
    text: String,
}

/// `[{name, data: [...], initial_session?}, ...]`.
#[derive(Serialize)]
struct LegacyNamedCase {
    name: String,
    data: Vec<LegacyInvocation>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    initial_session: Map<String, Value>,
}

/// The evalset in `form`, two-space indented with a final newline, or why it does not fit.
pub fn to_file_form(eval_set: &EvalSet, form: SourceFormat) -> Result<String, String> {
    let json = match form {
        SourceFormat::EvalSet => return Ok(crate::to_adk_json(eval_set)),
        SourceFormat::LegacyTestList => match eval_set.eval_cases.as_slice() {
            [case] => serde_json::to_string_pretty(&invocations(case)?),
            cases => {
                return Err(format!(
                    "a .test.json list holds one case and this evalset has {}",
                    cases.len()
                ))
            }
        },
        SourceFormat::LegacyNamedList => {
            let cases = eval_set
                .eval_cases
                .iter()
                .map(named_case)
                .collect::<Result<Vec<_>, _>>()?;
            serde_json::to_string_pretty(&cases)
        }
    };
    Ok(json.expect("legacy lists serialise") + "\n")
}

fn named_case(case: &EvalCase) -> Result<LegacyNamedCase, String> {
    let mut initial_session = Map::new();
    if let Some(input) = &case.session_input {
        initial_session.insert("state".into(), Value::Object(input.state.clone()));
        initial_session.insert("app_name".into(), Value::String(input.app_name.clone()));
        initial_session.insert("user_id".into(), Value::String(input.user_id.clone()));
    }
    Ok(LegacyNamedCase {
        name: case.eval_id.clone(),
        data: invocations(case)?,
        initial_session,
    })
}

fn invocations(case: &EvalCase) -> Result<Vec<LegacyInvocation>, String> {
    let refuse = |what: &str| {
        format!(
            "case `{}` has {what}, which the old list form cannot hold",
            case.eval_id
        )
    };
    if case.conversation_scenario.is_some() {
        return Err(refuse("a conversation scenario"));
    }
    if case.rubrics.is_some() {
        return Err(refuse("rubrics"));
    }
    case.conversation
        .iter()
        .flatten()
        .map(|invocation| {
            invocation_item(invocation).ok_or_else(|| refuse("a turn with more than text and tool calls"))
        })
        .collect()
}

fn invocation_item(invocation: &Invocation) -> Option<LegacyInvocation> {
    let data = invocation.intermediate_data.clone().unwrap_or_default();
    let expected_tool_use = data
        .tool_uses
        .iter()
        .map(|call| {
            Some(LegacyToolUse {
                tool_name: call.name.clone()?,
                tool_input: call.args.clone().unwrap_or_default(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let expected_intermediate_agent_responses = data
        .intermediate_responses
        .iter()
        .map(|(author, parts)| {
            let text = text_of(&Content {
                parts: Some(parts.clone()),
                ..Content::default()
            })?;
            Some(LegacyResponse {
                author: author.clone(),
                text,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(LegacyInvocation {
        query: text_of(&invocation.user_content)?,
        expected_tool_use,
        expected_intermediate_agent_responses,
        reference: match &invocation.final_response {
            Some(content) => text_of(content)?,
            None => String::new(),
        },
    })
}

/// The content's text, when text is all it holds.
fn text_of(content: &Content) -> Option<String> {
    content
        .parts
        .iter()
        .flatten()
        .map(|part| {
            let only_text = part.function_call.is_none()
                && part.function_response.is_none()
                && part.inline_data.is_none();
            only_text.then(|| part.text.clone().unwrap_or_default())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{parse_evalset_file, LegacyDefaults};

    fn read(text: &str) -> (EvalSet, SourceFormat) {
        let mut next = || "id".to_string();
        let legacy = LegacyDefaults {
            name: "t",
            file_name: "t.test.json",
            now: 0.0,
            new_invocation_id: &mut next,
        };
        parse_evalset_file(text, legacy).unwrap()
    }

    const TEST_LIST: &str = r#"[
  {
    "query": "Turn off device_3.",
    "expected_tool_use": [
      {
        "tool_name": "set_device_info",
        "tool_input": {
          "device_id": "device_3",
          "status": "OFF"
        }
      }
    ],
    "reference": "Done."
  }
]
"#;

    #[test]
    fn a_test_list_is_written_back_as_it_was_read() {
        let (set, form) = read(TEST_LIST);
        assert_eq!(form, SourceFormat::LegacyTestList);
        assert_eq!(to_file_form(&set, form).unwrap(), TEST_LIST);
    }

    #[test]
    fn a_named_list_keeps_its_names_and_session() {
        let text = r#"[{"name": "a", "data": [{"query": "hi", "expected_tool_use": [], "reference": "hello"}],
            "initial_session": {"state": {"k": 1}, "app_name": "home", "user_id": "u"}}]"#;
        let (set, form) = read(text);
        let written = to_file_form(&set, form).unwrap();
        let (again, again_form) = read(&written);
        assert_eq!((again, again_form), (set, form));
    }

    #[test]
    fn what_a_list_cannot_hold_is_refused() {
        let (mut set, form) = read(TEST_LIST);
        set.eval_cases.push(set.eval_cases[0].clone());
        assert!(to_file_form(&set, form).unwrap_err().contains("holds one case"));
        set.eval_cases.pop();
        set.eval_cases[0].rubrics = Some(Vec::new());
        assert!(to_file_form(&set, form).unwrap_err().contains("rubrics"));
    }
}

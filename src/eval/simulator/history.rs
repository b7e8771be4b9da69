//! The conversation so far as ADK's simulator shows it to its model
//! (`LlmBackedUserSimulator._summarize_conversation`): one `author: text` paragraph per text
//! part, thoughts left out, and, when asked, the tool calls and what they returned.

use super::python_repr::python_repr;
use crate::evalset::{Content, Invocation, Part};
use serde_json::Value;

/// The invocations as ADK's events would read: the user's message, the agent's events, then its
/// final response, whose author is the last event's (or `agent_name` when it had none).
pub fn conversation_history(
    conversation: &[Invocation],
    agent_name: &str,
    include_function_calls: bool,
) -> String {
    let mut paragraphs = Vec::new();
    for invocation in conversation {
        push_content(
            &mut paragraphs,
            "user",
            Some(&invocation.user_content),
            include_function_calls,
        );
        let events = invocation
            .intermediate_data
            .as_ref()
            .map(|data| data.events())
            .unwrap_or_default();
        for event in events {
            push_content(
                &mut paragraphs,
                &event.author,
                event.content.as_ref(),
                include_function_calls,
            );
        }
        let final_author = events.last().map_or(agent_name, |event| event.author.as_str());
        push_content(
            &mut paragraphs,
            final_author,
            invocation.final_response.as_ref(),
            include_function_calls,
        );
    }
    paragraphs.join("\n\n")
}

fn push_content(
    paragraphs: &mut Vec<String>,
    author: &str,
    content: Option<&Content>,
    include_function_calls: bool,
) {
    let parts: &[Part] = content.and_then(|c| c.parts.as_deref()).unwrap_or_default();
    for part in parts {
        match part {
            Part { text: Some(text), .. } if !text.is_empty() && part.thought != Some(true) => {
                paragraphs.push(format!("{author}: {text}"));
            }
            Part {
                function_call: Some(call),
                ..
            } if include_function_calls => paragraphs.push(format!(
                "{author} called tool '{}' with args: {}",
                call.name.as_deref().unwrap_or_default(),
                call.args
                    .as_ref()
                    .map_or("None".to_string(), |args| python_repr(&Value::Object(
                        args.clone()
                    )))
            )),
            Part {
                function_response: Some(response),
                ..
            } if include_function_calls => paragraphs.push(format!(
                "Tool '{}' returned: {}",
                response.name.as_deref().unwrap_or_default(),
                response
                    .response
                    .as_ref()
                    .map_or("None".to_string(), |value| python_repr(&Value::Object(
                        value.clone()
                    )))
            )),
            _ => {}
        }
    }
}

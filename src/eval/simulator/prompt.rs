//! The simulator's instructions as ADK renders them (`llm_backed_user_simulator_prompts.py`):
//! its default template, its persona template, or the config's `custom_instructions`. ADK
//! renders them with Jinja; the placeholders they use (`{{ name }}`, `{{ persona.description }}`)
//! are all Evalstudio renders, and anything else in custom instructions is refused by name.

use super::personas::{Behavior, Persona};
use super::python_repr::str_repr;

/// ADK's `_DEFAULT_USER_SIMULATOR_INSTRUCTIONS_TEMPLATE`, byte for byte.
const DEFAULT_INSTRUCTIONS: &str = include_str!("default_instructions.txt");

/// The start of ADK's `_USER_SIMULATOR_INSTRUCTIONS_WITH_PERSONA_TEMPLATE`, up to the persona's
/// description; [`persona_instructions`] writes the rest as its Jinja loop does.
const PERSONA_INSTRUCTIONS_HEAD: &str = "\
You are a Simulated User designed to test an AI Agent.

Your single most important job is to react logically to the Agent's last message while role-playing as the given Persona.
The Conversation Plan is your canonical grounding, not a script; your response MUST be dictated by what the Agent just said.

# Persona Description

";

/// The placeholders custom instructions must use, as ADK's validator demands.
pub(super) const REQUIRED_PLACEHOLDERS: [&str; 3] =
    ["stop_signal", "conversation_plan", "conversation_history"];

/// What a template's placeholders stand for.
pub(crate) struct Values<'a> {
    pub stop_signal: &'a str,
    pub conversation_plan: &'a str,
    pub conversation_history: &'a str,
    pub persona: Option<&'a Persona>,
}

/// The instructions ADK sends for the next user message.
pub(super) fn instructions(custom: Option<&str>, values: &Values) -> Result<String, String> {
    match (custom, values.persona) {
        (None, None) => render(DEFAULT_INSTRUCTIONS, values),
        (None, Some(persona)) => persona_instructions(persona, values),
        (Some(custom), persona) => {
            if persona.is_some()
                && !placeholders(custom)?
                    .into_iter()
                    .any(|name| root(name) == "persona")
            {
                return Err(
                    "custom_instructions: the scenario has a user_persona, so the instructions must use {{ persona }} (or {{ persona.description }}) as well as {{ stop_signal }}, {{ conversation_plan }} and {{ conversation_history }}"
                        .into(),
                );
            }
            render(custom, values)
        }
    }
}

/// Checks custom instructions as ADK's `is_valid_user_simulator_template` does: every required
/// placeholder is used. Also refuses what Evalstudio does not render.
pub(super) fn check_custom_instructions(text: &str) -> Result<(), String> {
    let used = placeholders(text)?;
    let missing: Vec<String> = REQUIRED_PLACEHOLDERS
        .iter()
        .filter(|name| !used.contains(name))
        .map(|name| format!("{{{{ {name} }}}}"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "custom_instructions: missing {}; the instructions must use {{{{ stop_signal }}}}, {{{{ conversation_plan }}}} and {{{{ conversation_history }}}}",
            missing.join(", ")
        ))
    }
}

fn root(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// A template cut into its text and its `{{ … }}` placeholders.
enum Segment<'a> {
    Text(&'a str),
    /// The placeholder's name, trimmed.
    Placeholder(&'a str),
}

/// Cuts a template into segments; an error for Jinja statements, comments or an unclosed
/// placeholder.
fn segments(template: &str) -> Result<Vec<Segment<'_>>, String> {
    for (opening, what) in [("{%", "statements ({% … %})"), ("{#", "comments ({# … #})")] {
        if template.contains(opening) {
            return Err(format!(
                "custom_instructions: Jinja {what} are not supported; use {{{{ name }}}} placeholders"
            ));
        }
    }
    let mut segments = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or("custom_instructions: a `{{` is never closed by `}}`")?;
        segments.push(Segment::Text(&rest[..start]));
        segments.push(Segment::Placeholder(after[..end].trim()));
        rest = &after[end + 2..];
    }
    segments.push(Segment::Text(rest));
    Ok(segments)
}

/// The names of the placeholders, in order.
fn placeholders(template: &str) -> Result<Vec<&str>, String> {
    Ok(segments(template)?
        .into_iter()
        .filter_map(|segment| match segment {
            Segment::Placeholder(name) => Some(name),
            Segment::Text(_) => None,
        })
        .collect())
}

/// Fills the placeholders; like Jinja, drops one trailing newline.
pub(crate) fn render(template: &str, values: &Values) -> Result<String, String> {
    let mut out = String::with_capacity(template.len() + values.conversation_history.len());
    for segment in segments(template)? {
        match segment {
            Segment::Text(text) => out.push_str(text),
            Segment::Placeholder(name) => out.push_str(&value_of(name, values)?),
        }
    }
    if out.ends_with('\n') {
        out.pop();
    }
    Ok(out)
}

fn value_of(name: &str, values: &Values) -> Result<String, String> {
    let persona = || {
        values.persona.ok_or(format!(
            "custom_instructions: `{{{{ {name} }}}}` needs a user_persona in the scenario, and it has none"
        ))
    };
    Ok(match name {
        "stop_signal" => values.stop_signal.to_string(),
        "conversation_plan" => values.conversation_plan.to_string(),
        "conversation_history" => values.conversation_history.to_string(),
        "persona" => persona_str(persona()?),
        "persona.id" => persona()?.id.clone(),
        "persona.description" => persona()?.description.clone(),
        other => {
            return Err(format!(
                "custom_instructions: unknown placeholder `{{{{ {other} }}}}`; known: stop_signal, conversation_plan, conversation_history, persona, persona.id, persona.description"
            ))
        }
    })
}

/// ADK's persona template: the description, then each behavior's name, description and
/// instructions (themselves rendered, as its `render_string_filter` does), then the plan and
/// the history.
fn persona_instructions(persona: &Persona, values: &Values) -> Result<String, String> {
    let mut out = String::from(PERSONA_INSTRUCTIONS_HEAD);
    out.push_str(&persona.description);
    out.push_str("\nThis persona behaves in the following ways:\n");
    for behavior in &persona.behaviors {
        out.push_str("\n## ");
        out.push_str(&render(&behavior.name, values)?);
        out.push('\n');
        out.push_str(&render(&behavior.description, values)?);
        out.push_str("\n\nInstructions:\n");
        out.push_str(&render(&behavior.instructions_text(), values)?);
        out.push('\n');
    }
    out.push_str("\n# Conversation Plan\n\n");
    out.push_str(values.conversation_plan);
    out.push_str("\n\n# Conversation History\n\n");
    out.push_str(values.conversation_history);
    Ok(out)
}

/// `str()` of ADK's pydantic `UserPersona`, which `{{ persona }}` renders.
fn persona_str(persona: &Persona) -> String {
    let behaviors: Vec<String> = persona.behaviors.iter().map(behavior_repr).collect();
    format!(
        "id={} description={} behaviors=[{}]",
        str_repr(&persona.id),
        str_repr(&persona.description),
        behaviors.join(", ")
    )
}

fn behavior_repr(behavior: &Behavior) -> String {
    let list = |items: &[String]| {
        items
            .iter()
            .map(|item| str_repr(item))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "UserBehavior(name={}, description={}, behavior_instructions=[{}], violation_rubrics=[{}])",
        str_repr(&behavior.name),
        str_repr(&behavior.description),
        list(&behavior.behavior_instructions),
        list(&behavior.violation_rubrics)
    )
}

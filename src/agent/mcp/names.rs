//! The name a model sees for an MCP tool. ADK's McpToolset puts `{tool_name_prefix}_` before a
//! server's tool names; OpenAI-compatible APIs accept only `^[a-zA-Z0-9_-]{1,64}$`, while MCP
//! also allows `.` and `/`, so every other character becomes `_` and the name is cut at 64.
//! Two tools that end up with one name are refused by the toolbox, never renamed further: a
//! silent rename would change the trajectories recorded with it.

/// The longest function name OpenAI-compatible APIs accept.
pub const MAX_TOOL_NAME_CHARS: usize = 64;

/// `prefix_tool`, or `tool` without a prefix, made acceptable to OpenAI-compatible APIs.
pub fn model_tool_name(prefix: Option<&str>, tool: &str) -> String {
    let full = match prefix.filter(|p| !p.is_empty()) {
        Some(prefix) => format!("{prefix}_{tool}"),
        None => tool.to_string(),
    };
    full.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_TOOL_NAME_CHARS)
        .collect()
}

/// Whether `prefix` can start a tool name as it is (the same characters as a name).
pub fn valid_prefix(prefix: &str) -> bool {
    !prefix.is_empty()
        && prefix.len() < MAX_TOOL_NAME_CHARS
        && prefix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_prefixed_as_adk_does_and_fit_openai() {
        assert_eq!(model_tool_name(None, "get-sum"), "get-sum");
        assert_eq!(model_tool_name(Some("everything"), "echo"), "everything_echo");
        assert_eq!(model_tool_name(Some(""), "echo"), "echo");
        assert_eq!(model_tool_name(None, "files/read.text"), "files_read_text");
        assert_eq!(model_tool_name(None, "météo"), "m_t_o");
        let long = "x".repeat(80);
        assert_eq!(model_tool_name(Some("p"), &long).len(), MAX_TOOL_NAME_CHARS);
    }

    #[test]
    fn prefixes_use_name_characters_only() {
        assert!(valid_prefix("github"));
        assert!(valid_prefix("gh-2"));
        assert!(!valid_prefix(""));
        assert!(!valid_prefix("a.b"));
        assert!(!valid_prefix(&"p".repeat(64)));
    }
}

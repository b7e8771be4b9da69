//! What a profile's agent is, told the way ADK's web server tells an app: its root agent with its
//! model, instruction and tools (`build_graph`'s app info), the graph adk-web draws of it (Graphviz
//! DOT, in ADK's own style), and its `/list-apps?detailed=true` entry. Pure: no I/O.

use serde_json::{json, Value};

/// One agent and the tools it is offered.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentOutline {
    /// The app's name, which is also its root agent's (the author of its events).
    pub app: String,
    pub description: String,
    pub model: Option<String>,
    pub instruction: Option<String>,
    /// Built-in tools, by name.
    pub tools: Vec<String>,
    /// MCP servers whose tools the agent is offered, by server name (ADK draws a toolset as one
    /// node too).
    pub toolsets: Vec<String>,
}

impl AgentOutline {
    /// ADK's `serialize_app_info`: `{name, root_agent: {name, description, model, instruction,
    /// tools: [{name, type: "tool"}], sub_agents: []}}`.
    pub fn app_info(&self) -> Value {
        let tools: Vec<Value> = self
            .tools
            .iter()
            .chain(&self.toolsets)
            .map(|name| json!({"name": name, "type": "tool"}))
            .collect();
        let mut agent = json!({
            "name": self.app,
            "description": self.description,
            "sub_agents": [],
            "tools": tools,
        });
        if let Some(model) = &self.model {
            agent["model"] = json!(model);
        }
        if let Some(instruction) = &self.instruction {
            agent["instruction"] = json!(instruction);
        }
        json!({"name": self.app, "root_agent": agent})
    }

    /// ADK's `AppInfo`, as `/list-apps?detailed=true` lists it. ADK knows only `python` and
    /// `yaml` agents; a profile is declared in a config file, as ADK's YAML agents are.
    pub fn list_entry(&self) -> Value {
        json!({
            "name": self.app,
            "rootAgentName": self.app,
            "description": self.description,
            "language": "yaml",
            "isComputerUse": false,
        })
    }

    /// The agent and its tools as a Graphviz digraph, styled as ADK's `plot_workflow_graph` styles
    /// a non-workflow agent: the agent, a dashed edge to each tool.
    pub fn dot(&self, dark: bool) -> String {
        let palette = if dark { DARK } else { LIGHT };
        let mut dot = format!(
            "// Workflow Visualization\ndigraph {{\n\tgraph [bgcolor=\"{}\" fontname=Helvetica nodesep=0.5 pad=0.5 ranksep=0.8 splines=spline]\n\tnode [color=\"{}\" fillcolor=\"{}\" fontcolor=\"{}\" fontname=Helvetica fontsize=12 margin=\"0.25,0.15\" penwidth=1.5 shape=rect style=\"rounded,filled\"]\n\tedge [arrowhead=vee arrowsize=0.7 color=\"{}\" fontname=Helvetica fontsize=10 penwidth=1.2]\n",
            palette.background, palette.border, palette.fill, palette.text, palette.edge
        );
        let agent = quoted(&self.app);
        dot += &format!(
            "\t{agent} [label={} tooltip=Agent]\n",
            quoted(&format!("✦ {}", self.app))
        );
        for (n, tool) in self.tools.iter().chain(&self.toolsets).enumerate() {
            // Tools get their own node ids: a tool may share the agent's name.
            dot += &format!(
                "\ttool_{n} [label={} style=\"rounded,filled,dashed\" tooltip=Tool]\n\t{agent} -> tool_{n} [style=dashed]\n",
                quoted(&format!("🔧 {tool}"))
            );
        }
        dot + "}\n"
    }
}

struct Palette {
    background: &'static str,
    border: &'static str,
    fill: &'static str,
    text: &'static str,
    edge: &'static str,
}

const LIGHT: Palette = Palette {
    background: "#F8FAFC",
    border: "#94A3B8",
    fill: "#FFFFFF",
    text: "#0F172A",
    edge: "#64748B",
};

const DARK: Palette = Palette {
    background: "#0F172A",
    border: "#475569",
    fill: "#1E293B",
    text: "#F8FAFC",
    edge: "#94A3B8",
};

/// A DOT quoted string: only `"` and `\` need escaping inside one, and a newline would end it.
fn quoted(text: &str) -> String {
    let escaped: String = text
        .chars()
        .flat_map(|c| match c {
            '"' => vec!['\\', '"'],
            '\\' => vec!['\\', '\\'],
            '\n' | '\r' => vec![' '],
            c => vec![c],
        })
        .collect();
    format!("\"{escaped}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> AgentOutline {
        AgentOutline {
            app: "demo".into(),
            description: "Offline demo agent.".into(),
            model: None,
            instruction: None,
            tools: vec!["get_weather".into(), "convert_currency".into()],
            toolsets: vec!["files".into()],
        }
    }

    #[test]
    fn app_info_has_adks_keys_and_every_tool() {
        let info = demo().app_info();
        assert_eq!(info["name"], "demo");
        assert_eq!(info["root_agent"]["name"], "demo");
        assert_eq!(info["root_agent"]["sub_agents"], json!([]));
        let tools: Vec<&str> = info["root_agent"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(tools, ["get_weather", "convert_currency", "files"]);
        assert!(info["root_agent"].get("model").is_none(), "no model, no key");
    }

    #[test]
    fn the_graph_draws_an_edge_from_the_agent_to_each_tool() {
        let dot = demo().dot(false);
        assert!(dot.starts_with("// Workflow Visualization\ndigraph {"));
        assert_eq!(dot.matches("\"demo\" -> tool_").count(), 3);
        assert!(dot.contains("tool_2 [label=\"🔧 files\""));
        assert!(dot.contains("#F8FAFC"));
        assert!(demo().dot(true).contains("#0F172A"));
    }

    #[test]
    fn names_cannot_break_out_of_their_quotes() {
        let outline = AgentOutline {
            app: "a\"] evil [x=\"\\".into(),
            tools: vec!["t\nu".into()],
            ..demo()
        };
        let dot = outline.dot(false);
        assert!(dot.contains("\t\"a\\\"] evil [x=\\\"\\\\\" [label="), "{dot}");
        assert!(dot.contains("🔧 t u"));
    }
}

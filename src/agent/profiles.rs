//! Agent profiles: the app's named agents, each built once from its profile and shared by every
//! chat turn and eval run that uses it (an `openai` agent keeps its connection pool). Each
//! profile is an ADK "app"; its name is the `{app}` in REST paths. The built-in `demo` profile
//! always exists. `crate::config` reads the profiles from evalstudio.toml and checks them.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::adk::{AdkAgent, AdkConfig, ServerHeaders};
use super::mcp::McpServers;
use super::openai::{OpenAiAgent, OpenAiConfig};
use super::outline::AgentOutline;
use super::{Agent, DemoAgent, ToolRegistry, Toolbox};

/// The kinds of agent a profile can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    Demo,
    Openai,
    Adk,
}

/// One profile as the config file states it. Holds no secret the file states: only the key's
/// variable name (folder mode's `adk` profiles also carry the secret of the ADK server it
/// started, never serialised or shown).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentProfile {
    pub name: String,
    pub kind: AgentKind,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub base_url: Option<String>,
    #[serde(default)]
    pub api_key_env: Option<String>,
    #[serde(default)]
    pub system_prompt: Option<String>,
    #[serde(default)]
    pub temperature: Option<f64>,
    /// Tool names from the built-in registry; when absent, all of them, or none if the
    /// profile names `mcp_servers`.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// For `openai`: the `[[mcp_servers]]` whose tools the model is offered too.
    #[serde(default)]
    pub mcp_servers: Vec<String>,
    #[serde(default)]
    pub max_tool_steps: Option<usize>,
    /// For `openai`: whether answers stream (default true); false for servers that send tool
    /// calls only in whole answers.
    #[serde(default)]
    pub stream: Option<bool>,
    /// For `openai`: `tool_choice` of each turn's first model reply (`auto`, `required`, `none`
    /// or a tool's name, which must then be called).
    #[serde(default)]
    pub tool_choice: Option<String>,
    /// For `adk`: the app the api_server runs (its agent folder); the profile name when absent.
    #[serde(default)]
    pub adk_app: Option<String>,
    /// For `adk`: headers every request to its server carries (folder mode's secret).
    #[serde(skip)]
    pub server_headers: ServerHeaders,
}

impl AgentProfile {
    /// The built-in `demo` profile.
    pub fn demo() -> AgentProfile {
        AgentProfile {
            name: "demo".into(),
            kind: AgentKind::Demo,
            model: None,
            base_url: None,
            api_key_env: None,
            system_prompt: None,
            temperature: None,
            tools: None,
            mcp_servers: Vec::new(),
            max_tool_steps: None,
            stream: None,
            tool_choice: None,
            adk_app: None,
            server_headers: ServerHeaders::default(),
        }
    }

    /// The built-in tools the profile's agent may call (an ADK agent's tools live on its server).
    fn tools(&self) -> ToolRegistry {
        let mut tools = ToolRegistry::demo();
        match &self.tools {
            Some(wanted) => tools.retain(|name| wanted.iter().any(|w| w == name)),
            None if !self.mcp_servers.is_empty() => tools.retain(|_| false),
            None => {}
        }
        tools
    }

    /// The names of the tools the profile's agent is known to have.
    pub fn tool_names(&self) -> Vec<String> {
        match self.kind {
            AgentKind::Demo | AgentKind::Openai => {
                self.tools().iter().map(|tool| tool.name().to_string()).collect()
            }
            AgentKind::Adk => Vec::new(),
        }
    }

    /// What the profile's agent is, as ADK's web server tells an app; `None` for an `adk`
    /// profile, whose agent only its own server knows.
    pub fn outline(&self) -> Option<AgentOutline> {
        let description = match self.kind {
            AgentKind::Demo => {
                "Evalstudio's offline demo agent: rule-based, no model, the same answer every time."
            }
            AgentKind::Openai => {
                "A model behind an OpenAI-compatible API, with the tools its profile offers."
            }
            AgentKind::Adk => return None,
        };
        Some(AgentOutline {
            app: self.name.clone(),
            description: description.to_string(),
            model: self.model.clone(),
            instruction: self.system_prompt.clone(),
            tools: self.tool_names(),
            toolsets: self.mcp_servers.clone(),
        })
    }

    /// The agent this profile describes; `mcp` holds the servers its `mcp_servers` name.
    fn build(&self, mcp: &McpServers) -> Arc<dyn Agent> {
        let tools = self.tools();
        match self.kind {
            AgentKind::Demo => Arc::new(DemoAgent::new()),
            AgentKind::Openai => {
                let mut config = OpenAiConfig::new(
                    self.base_url.clone().unwrap_or_default(),
                    self.model.clone().unwrap_or_default(),
                );
                config.api_key_env = self.api_key_env.clone();
                config.system_prompt = self.system_prompt.clone();
                config.temperature = self.temperature;
                if let Some(steps) = self.max_tool_steps {
                    config.max_tool_steps = steps;
                }
                config.stream = self.stream.unwrap_or(true);
                config.tool_choice = self.tool_choice.clone();
                let servers = self
                    .mcp_servers
                    .iter()
                    .filter_map(|name| mcp.get(name).cloned())
                    .collect();
                Arc::new(OpenAiAgent::new(config, Toolbox::new(tools, servers)))
            }
            AgentKind::Adk => Arc::new(AdkAgent::new(AdkConfig {
                headers: self.server_headers.clone(),
                ..AdkConfig::new(
                    self.base_url.clone().unwrap_or_default(),
                    self.adk_app.clone().unwrap_or_else(|| self.name.clone()),
                )
            })),
        }
    }
}

/// The profiles in order, each with its agent, and the MCP servers they use. Clones share the
/// agents and the servers.
#[derive(Clone)]
pub struct AgentProfiles {
    profiles: Vec<(AgentProfile, Arc<dyn Agent>)>,
    mcp: McpServers,
}

impl Default for AgentProfiles {
    /// Just `demo`.
    fn default() -> Self {
        AgentProfiles::new(vec![AgentProfile::demo()], McpServers::default())
    }
}

impl fmt::Debug for AgentProfiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl AgentProfiles {
    /// Builds each profile's agent. The profiles are taken as they are: `crate::config` checks
    /// them (and that each MCP server they name is in `mcp`) and puts `demo` first.
    pub fn new(profiles: Vec<AgentProfile>, mcp: McpServers) -> AgentProfiles {
        let profiles = profiles
            .into_iter()
            .map(|profile| {
                let agent = profile.build(&mcp);
                (profile, agent)
            })
            .collect();
        AgentProfiles { profiles, mcp }
    }

    /// Adds an `adk` profile for an app of a running api_server (folder mode), named as the
    /// app, unless the config already has a profile of that name; `headers` go with every
    /// request to it.
    pub fn add_adk_app(&mut self, app: &str, base_url: &str, headers: &[(String, String)]) {
        if self.get(app).is_some() {
            return;
        }
        let profile = AgentProfile {
            name: app.to_string(),
            kind: AgentKind::Adk,
            base_url: Some(base_url.to_string()),
            adk_app: Some(app.to_string()),
            server_headers: ServerHeaders(headers.to_vec()),
            ..AgentProfile::demo()
        };
        let agent = profile.build(&self.mcp);
        self.profiles.push((profile, agent));
    }

    /// The configured MCP servers.
    pub fn mcp_servers(&self) -> &McpServers {
        &self.mcp
    }

    pub fn iter(&self) -> impl Iterator<Item = &AgentProfile> {
        self.profiles.iter().map(|(profile, _)| profile)
    }

    pub fn get(&self, name: &str) -> Option<&AgentProfile> {
        self.iter().find(|p| p.name == name)
    }

    /// The agent of the profile named `name`, or an error naming the profiles there are.
    pub fn agent_or_error(&self, name: &str) -> Result<Arc<dyn Agent>, String> {
        self.agent(name).ok_or_else(|| {
            let known: Vec<&str> = self.iter().map(|p| p.name.as_str()).collect();
            format!(
                "no agent profile is named `{name}` (known: {}); add one to evalstudio.toml",
                known.join(", ")
            )
        })
    }

    /// The agent of the profile named `name`.
    pub fn agent(&self, name: &str) -> Option<Arc<dyn Agent>> {
        self.profiles
            .iter()
            .find(|(profile, _)| profile.name == name)
            .map(|(_, agent)| agent.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_profile_has_one_agent_that_every_lookup_shares() {
        let gpt = AgentProfile {
            name: "gpt".into(),
            kind: AgentKind::Openai,
            model: Some("m".into()),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            ..AgentProfile::demo()
        };
        let profiles = AgentProfiles::new(vec![AgentProfile::demo(), gpt], McpServers::default());
        for name in ["demo", "gpt"] {
            let first = profiles.agent(name).unwrap();
            let second = profiles.agent_or_error(name).unwrap();
            assert!(Arc::ptr_eq(&first, &second), "{name}");
        }
        let shared = profiles.clone();
        assert!(Arc::ptr_eq(
            &shared.agent("gpt").unwrap(),
            &profiles.agent("gpt").unwrap()
        ));
        assert!(profiles.agent("nope").is_none());
        let error = profiles.agent_or_error("nope").err().expect("no such profile");
        assert!(error.contains("(known: demo, gpt)"), "{error}");
    }
}

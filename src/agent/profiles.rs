//! Agent profiles: named agents from a TOML file. Each profile is an ADK "app"; its name is the
//! `{app}` in REST paths. The built-in `demo` profile always exists.
//!
//! ```toml
//! [[profiles]]
//! name = "gpt"                      # letters, digits, _ - .
//! kind = "openai"                   # "demo" or "openai"
//! model = "gpt-4o-mini"
//! base_url = "https://api.openai.com/v1"
//! api_key_env = "OPENAI_API_KEY"    # the variable's name; the key itself never leaves the server
//! system_prompt = "You are a helpful assistant."
//! temperature = 0.2
//! tools = ["get_weather", "calculate"]   # default: all built-in tools
//! max_tool_steps = 8
//!
//! [[profiles]]
//! name = "weather_adk"
//! kind = "adk"                      # a running `adk api_server`
//! base_url = "http://127.0.0.1:8000"
//! adk_app = "weather_agent"         # the agent folder it serves; default: the profile name
//!
//! [judge]                           # the model behind the LLM-as-judge metrics (optional)
//! base_url = "https://api.openai.com/v1"
//! model = "gpt-4o-mini"
//! api_key_env = "OPENAI_API_KEY"
//! temperature = 0.0                 # default 0
//! timeout_secs = 60
//! max_retries = 3
//! ```

use super::adk::{AdkAgent, AdkConfig};
use super::openai::{OpenAiAgent, OpenAiConfig};
use super::{Agent, DemoAgent, ToolRegistry};
use crate::eval::{Judge, JudgeConfig, OpenAiJudge};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// Where profiles come from when `--config` is not given.
pub const DEFAULT_CONFIG_FILE: &str = "evalstudio.toml";

/// The kinds of agent a profile can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentKind {
    Demo,
    Openai,
    Adk,
}

/// One profile as the config file states it. Holds no secret: only the key's variable name.
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
    /// Tool names from the built-in registry; all of them when absent.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub max_tool_steps: Option<usize>,
    /// For `adk`: the app the api_server runs (its agent folder); the profile name when absent.
    #[serde(default)]
    pub adk_app: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    profiles: Vec<AgentProfile>,
    #[serde(default)]
    judge: Option<JudgeConfig>,
}

/// The configured profiles, `demo` first, and the judge if one is configured.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentProfiles {
    profiles: Vec<AgentProfile>,
    judge: Option<JudgeConfig>,
}

impl Default for AgentProfiles {
    fn default() -> Self {
        AgentProfiles {
            profiles: vec![demo_profile()],
            judge: None,
        }
    }
}

fn demo_profile() -> AgentProfile {
    AgentProfile {
        name: "demo".into(),
        kind: AgentKind::Demo,
        model: None,
        base_url: None,
        api_key_env: None,
        system_prompt: None,
        temperature: None,
        tools: None,
        max_tool_steps: None,
        adk_app: None,
    }
}

impl AgentProfiles {
    /// Reads profiles from `path`; a missing file at the default location means "just demo".
    pub fn load(path: Option<&Path>) -> Result<AgentProfiles, String> {
        let (path, explicit) = match path {
            Some(path) => (path, true),
            None => (Path::new(DEFAULT_CONFIG_FILE), false),
        };
        match std::fs::read_to_string(path) {
            Ok(text) => AgentProfiles::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(err) if !explicit && err.kind() == std::io::ErrorKind::NotFound => {
                Ok(AgentProfiles::default())
            }
            Err(err) => Err(format!("cannot read {}: {err}", path.display())),
        }
    }

    /// Parses a config file's text and checks every profile.
    pub fn parse(text: &str) -> Result<AgentProfiles, String> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
        if let Some(judge) = &file.judge {
            judge.validate()?;
        }
        let mut profiles = AgentProfiles {
            judge: file.judge,
            ..AgentProfiles::default()
        };
        let tools = ToolRegistry::demo();
        for (index, profile) in file.profiles.into_iter().enumerate() {
            let at = format!("profiles[{index}] (`{}`)", profile.name);
            crate::evalset::validate_eval_set_id(&profile.name)
                .map_err(|m| format!("{at}: {}", m.replace("eval_set_id", "profile name")))?;
            let required: &[(&str, &Option<String>)] = match profile.kind {
                AgentKind::Demo => &[],
                AgentKind::Openai => &[("model", &profile.model), ("base_url", &profile.base_url)],
                AgentKind::Adk => &[("base_url", &profile.base_url)],
            };
            for (field, value) in required {
                if value.as_deref().is_none_or(|v| v.trim().is_empty()) {
                    let kind = format!("{:?}", profile.kind).to_lowercase();
                    return Err(format!("{at}: an {kind} profile needs `{field}`"));
                }
            }
            if profile.kind == AgentKind::Adk && profile.tools.is_some() {
                return Err(format!(
                    "{at}: an adk profile runs the api_server's own tools; remove `tools`"
                ));
            }
            if let Some(unknown) = profile
                .tools
                .iter()
                .flatten()
                .find(|name| tools.get(name).is_none())
            {
                let known: Vec<&str> = tools.iter().map(|t| t.name()).collect();
                return Err(format!(
                    "{at}: no tool named `{unknown}` (known: {})",
                    known.join(", ")
                ));
            }
            match profiles.profiles.iter().position(|p| p.name == profile.name) {
                // A file may redefine `demo`, e.g. to give it fewer tools.
                Some(existing) if profile.name == "demo" => profiles.profiles[existing] = profile,
                Some(_) => return Err(format!("{at}: the name is used twice")),
                None => profiles.profiles.push(profile),
            }
        }
        Ok(profiles)
    }

    pub fn iter(&self) -> impl Iterator<Item = &AgentProfile> {
        self.profiles.iter()
    }

    pub fn get(&self, name: &str) -> Option<&AgentProfile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// The `[judge]` table, if the file has one.
    pub fn judge_config(&self) -> Option<&JudgeConfig> {
        self.judge.as_ref()
    }

    /// A ready judge for the LLM-as-judge metrics, if one is configured.
    pub fn judge(&self) -> Option<Arc<dyn Judge>> {
        let judge: Arc<dyn Judge> = Arc::new(OpenAiJudge::new(self.judge.clone()?));
        Some(judge)
    }

    /// A ready agent for the profile named `name`, or an error naming the profiles there are.
    pub fn agent_or_error(&self, name: &str) -> Result<Box<dyn Agent>, String> {
        self.agent(name).ok_or_else(|| {
            let known: Vec<&str> = self.iter().map(|p| p.name.as_str()).collect();
            format!(
                "no agent profile is named `{name}` (known: {}); add one to evalstudio.toml",
                known.join(", ")
            )
        })
    }

    /// A ready agent for the profile named `name`.
    pub fn agent(&self, name: &str) -> Option<Box<dyn Agent>> {
        let profile = self.get(name)?;
        let mut tools = ToolRegistry::demo();
        if let Some(wanted) = &profile.tools {
            tools.retain(|name| wanted.iter().any(|w| w == name));
        }
        Some(match profile.kind {
            AgentKind::Demo => Box::new(DemoAgent::new()),
            AgentKind::Openai => {
                let mut config = OpenAiConfig::new(
                    profile.base_url.clone().unwrap_or_default(),
                    profile.model.clone().unwrap_or_default(),
                );
                config.api_key_env = profile.api_key_env.clone();
                config.system_prompt = profile.system_prompt.clone();
                config.temperature = profile.temperature;
                if let Some(steps) = profile.max_tool_steps {
                    config.max_tool_steps = steps;
                }
                Box::new(OpenAiAgent::new(config, tools))
            }
            AgentKind::Adk => Box::new(AdkAgent::new(AdkConfig::new(
                profile.base_url.clone().unwrap_or_default(),
                profile.adk_app.clone().unwrap_or_else(|| profile.name.clone()),
            ))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_exists_without_a_file() {
        let profiles = AgentProfiles::load(None).unwrap();
        assert_eq!(
            profiles.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["demo"]
        );
        assert!(profiles.agent("demo").is_some());
        assert!(profiles.agent("nope").is_none());
        assert!(AgentProfiles::load(Some(Path::new("/no/such/evalstudio.toml")))
            .unwrap_err()
            .contains("cannot read"));
    }

    #[test]
    fn profiles_parse_and_are_checked() {
        let text = r#"
            [[profiles]]
            name = "local_llama"
            kind = "openai"
            model = "qwen2.5"
            base_url = "http://127.0.0.1:8080/v1"
            api_key_env = "LLAMA_KEY"
            tools = ["get_weather"]
        "#;
        let profiles = AgentProfiles::parse(text).unwrap();
        let names: Vec<_> = profiles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["demo", "local_llama"]);
        assert_eq!(
            profiles.get("local_llama").unwrap().api_key_env.as_deref(),
            Some("LLAMA_KEY")
        );
        assert!(profiles.agent("local_llama").is_some());

        let missing_model = "[[profiles]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"http://h/v1\"";
        assert!(AgentProfiles::parse(missing_model)
            .unwrap_err()
            .contains("needs `model`"));
        let bad_tool = "[[profiles]]\nname = \"x\"\nkind = \"demo\"\ntools = [\"rm_rf\"]";
        assert!(AgentProfiles::parse(bad_tool)
            .unwrap_err()
            .contains("no tool named `rm_rf`"));
        let bad_name = "[[profiles]]\nname = \"a/b\"\nkind = \"demo\"";
        assert!(AgentProfiles::parse(bad_name)
            .unwrap_err()
            .contains("profile name"));
        let twice =
            "[[profiles]]\nname = \"x\"\nkind = \"demo\"\n[[profiles]]\nname = \"x\"\nkind = \"demo\"";
        assert!(AgentProfiles::parse(twice).unwrap_err().contains("used twice"));
        let typo = "[[profiles]]\nname = \"x\"\nkind = \"demo\"\nmodle = \"m\"";
        let err = AgentProfiles::parse(typo).unwrap_err();
        assert!(err.contains("modle") && err.contains("line 4"), "{err}");
        let adk = "[[profiles]]\nname = \"w\"\nkind = \"adk\"\nbase_url = \"http://127.0.0.1:8000\"\nadk_app = \"weather_agent\"";
        let profiles = AgentProfiles::parse(adk).unwrap();
        assert_eq!(profiles.get("w").unwrap().kind, AgentKind::Adk);
        assert!(profiles.agent("w").is_some());
        let adk_without_url = "[[profiles]]\nname = \"w\"\nkind = \"adk\"";
        assert!(AgentProfiles::parse(adk_without_url)
            .unwrap_err()
            .contains("an adk profile needs `base_url`"));
        let bad_kind = "[[profiles]]\nname = \"x\"\nkind = \"gemini\"";
        assert!(AgentProfiles::parse(bad_kind).unwrap_err().contains("gemini"));
    }

    #[test]
    fn the_judge_table_is_parsed_and_checked() {
        assert!(AgentProfiles::default().judge().is_none());
        let text = r#"
            [judge]
            base_url = "http://127.0.0.1:8080/v1"
            model = "qwen2.5"
            api_key_env = "JUDGE_KEY"
            timeout_secs = 30
            max_retries = 1
        "#;
        let profiles = AgentProfiles::parse(text).unwrap();
        let judge = profiles.judge_config().unwrap();
        assert_eq!(judge.model, "qwen2.5");
        assert_eq!(judge.api_key_env.as_deref(), Some("JUDGE_KEY"));
        assert_eq!(
            (judge.temperature, judge.timeout_secs, judge.max_retries),
            (None, Some(30.0), Some(1))
        );
        assert!(profiles.judge().is_some());
        assert_eq!(profiles.iter().count(), 1, "a judge is not an agent profile");

        let errors = [
            ("[judge]\nmodel = \"m\"", "missing field `base_url`"),
            (
                "[judge]\nbase_url = \"http://h/v1\"\nmodel = \" \"",
                "judge.model: missing",
            ),
            (
                "[judge]\nbase_url = \"h/v1\"\nmodel = \"m\"",
                "judge.base_url: `h/v1` is not an http",
            ),
            (
                "[judge]\nbase_url = \"http://h/v1\"\nmodel = \"m\"\ntemperature = 3",
                "judge.temperature: 3 is outside",
            ),
            (
                "[judge]\nbase_url = \"http://h/v1\"\nmodel = \"m\"\ntimeout_secs = 0",
                "judge.timeout_secs: 0 is not",
            ),
            (
                "[judge]\nbase_url = \"http://h/v1\"\nmodel = \"m\"\napi_key = \"sk-1\"",
                "unknown field `api_key`",
            ),
        ];
        for (text, expected) in errors {
            let error = AgentProfiles::parse(text).unwrap_err();
            assert!(error.contains(expected), "{error}");
        }
    }
}

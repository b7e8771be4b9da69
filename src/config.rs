//! evalstudio.toml: the agent profiles, the judge model and the user simulator's model. Reading
//! the file, checking it (errors name the profile or the field), and building what it
//! describes: the profiles' agents (`AgentProfiles`), the judge of the LLM-as-judge metrics and
//! the model that plays the user in `conversation_scenario` cases.
//!
//! ```toml
//! [[profiles]]
//! name = "gpt"                      # letters, digits, _ - .
//! kind = "openai"                   # "demo", "openai" or "adk"
//! model = "gpt-4o-mini"
//! base_url = "https://api.openai.com/v1"
//! api_key_env = "OPENAI_API_KEY"    # the variable's name; the key itself never leaves the server
//! system_prompt = "You are a helpful assistant."
//! temperature = 0.2
//! tools = ["get_weather", "calculate"]   # default: all built-in tools (none with mcp_servers)
//! mcp_servers = ["everything"]     # offer these MCP servers' tools too
//! max_tool_steps = 8
//! stream = false                    # default true; false for servers that call tools only unstreamed
//! tool_choice = "get_weather"       # each turn's first reply: auto, required, none or a tool to call
//!
//! [[mcp_servers]]                   # an MCP tool server; see agent/mcp/config.rs for every key
//! name = "everything"
//! command = "npx"                   # stdio; or url = "https://…" for streamable HTTP
//! args = ["@modelcontextprotocol/server-everything"]
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
//! api_key_env = "OPENAI_API_KEY"    # optional; local servers usually need none
//! temperature = 0.0                 # default 0
//! timeout_secs = 60                 # limit on each wait for the server
//! max_retries = 3                   # retries after 429, 5xx and connection failures
//!
//! [simulator]                       # plays the user of conversation_scenario cases (optional;
//! base_url = "http://127.0.0.1:8080/v1"  # the same keys as [judge], which it defaults to)
//! model = "qwen2.5"
//! temperature = 0.7
//!
//! [[evaluators]]                    # your own scoring; a test_config.json criterion names it:
//! name = "orders_written"           # {"threshold": 1, "evaluator": "orders_written"}
//! command = ["python3", "checks/orders_written.py"]   # reads the case on stdin, prints the reply
//! env = { ORDERS_DB = "env:ORDERS_DB_URL" }  # all it gets besides PATH, HOME, the locale…
//! timeout_secs = 30                 # default 30
//!
//! [[evaluators]]
//! name = "house_style"
//! url = "http://127.0.0.1:9000/score"  # POSTed the case; answers {score, passed?, reason?, details?}
//! headers = { Authorization = "env:HOUSE_STYLE_AUTH" }  # a value, or a variable read when called
//! retries = 2                       # after connection failures, timeouts, 429 and 5xx (default 2)
//!
//! [auth]                            # users, roles and tokens on a shared server (config/auth.rs)
//!
//! [otlp]                            # the OpenTelemetry receiver at /v1/traces (config/otlp.rs)
//!
//! [limits]                          # live views held open at once (config/limits.rs)
//! ```

mod auth;
mod limits;
mod otlp;

pub use auth::AuthConfig;
pub use limits::LimitsConfig;
pub use otlp::OtlpConfig;

use std::path::Path;
use std::sync::{Arc, LazyLock};

use serde::Deserialize;

use crate::agent::mcp::config::{named_variable, EnvTable};
use crate::agent::mcp::{check_mcp_servers, McpServerEntry, McpServers};
use crate::agent::{AgentKind, AgentProfile, AgentProfiles, ToolRegistry};
use crate::eval::embedding::LazyMiniLm;
use crate::eval::evaluators::{
    CommandEvaluator, CommandSpec, Evaluator, EvaluatorHeaders, Evaluators, HttpEvaluator, HttpTarget,
    DEFAULT_EVALUATOR_RETRIES, DEFAULT_EVALUATOR_TIMEOUT,
};
use crate::eval::judge::{JudgeConfig, OpenAiJudge};
use crate::eval::services::{Judge, ScoringServices};

/// The most retries a file may ask of a judge, a simulator or an evaluator: each waits longer,
/// and a server asked without bound would hold a run (and a connection) for hours.
const MAX_RETRIES: u32 = 10;

/// How long an HTTP evaluator may take to accept a connection.
const EVALUATOR_CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Where the configuration comes from when `--config` is not given.
pub const DEFAULT_CONFIG_FILE: &str = "evalstudio.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    profiles: Vec<AgentProfile>,
    #[serde(default)]
    judge: Option<JudgeConfig>,
    #[serde(default)]
    simulator: Option<JudgeConfig>,
    #[serde(default)]
    evaluators: Vec<EvaluatorEntry>,
    #[serde(default)]
    mcp_servers: Vec<McpServerEntry>,
    #[serde(default)]
    auth: Option<AuthConfig>,
    #[serde(default)]
    otlp: Option<OtlpConfig>,
    #[serde(default)]
    limits: LimitsConfig,
}

/// One `[[evaluators]]` entry: a command or a URL.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvaluatorEntry {
    pub name: String,
    #[serde(default)]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    pub url: Option<String>,
    /// Sent with each request to `url`, a value or `env:NAME`, as `[[mcp_servers]]` spell them.
    #[serde(default)]
    pub headers: EvaluatorHeaders,
    /// A command's environment besides PATH, HOME and the locale, as `[[mcp_servers]]` spell it.
    #[serde(default)]
    pub env: EnvTable,
    #[serde(default)]
    pub timeout_secs: Option<f64>,
    #[serde(default)]
    pub retries: Option<u32>,
}

/// What the file configures. The default is what no file means: just `demo`, no judge.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The agent profiles, `demo` first, each with its agent built, and the MCP servers.
    pub profiles: AgentProfiles,
    /// The `[judge]` table, if the file has one.
    pub judge: Option<JudgeConfig>,
    /// The `[simulator]` table, if the file has one.
    pub simulator: Option<JudgeConfig>,
    /// The `[[evaluators]]`, checked.
    pub evaluators: Vec<EvaluatorEntry>,
    /// The `[auth]` table: auth is on when there is one (see config/auth.rs).
    pub auth: Option<AuthConfig>,
    /// The `[otlp]` table: the trace receiver is on when there is one (see config/otlp.rs).
    pub otlp: Option<OtlpConfig>,
    /// The `[limits]` table (see config/limits.rs).
    pub limits: LimitsConfig,
}

impl Config {
    /// Reads `path`; a missing file at the default location means the default config.
    pub fn load(path: Option<&Path>) -> Result<Config, String> {
        let (path, explicit) = match path {
            Some(path) => (path, true),
            None => (Path::new(DEFAULT_CONFIG_FILE), false),
        };
        match std::fs::read_to_string(path) {
            Ok(text) => Config::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(err) if !explicit && err.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(err) => Err(format!("cannot read {}: {err}", path.display())),
        }
    }

    /// Parses a config file's text, checks the judge and every profile, and builds the agents.
    pub fn parse(text: &str) -> Result<Config, String> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
        for (table, model) in [("judge", &file.judge), ("simulator", &file.simulator)] {
            if let Some(model) = model {
                check_model(table, model)?;
            }
        }
        check_mcp_servers(&file.mcp_servers)?;
        if let Some(auth) = &file.auth {
            auth::check_auth(auth)?;
        }
        if let Some(otlp) = &file.otlp {
            otlp::check_otlp(otlp)?;
        }
        limits::check_limits(&file.limits)?;
        let profiles = check_profiles(file.profiles, &file.mcp_servers)?;
        Ok(Config {
            profiles: AgentProfiles::new(profiles, McpServers::new(file.mcp_servers)),
            judge: file.judge,
            simulator: file.simulator,
            evaluators: check_evaluators(file.evaluators)?,
            auth: file.auth,
            otlp: file.otlp,
            limits: file.limits,
        })
    }

    /// What a server's scoring and running evals use: the judge, the embedding model (loaded on
    /// first use), the simulator's model and the evaluators evalstudio.toml declares. A
    /// criterion's own `url` is refused: the server sends requests only where its config says.
    pub fn build_scoring(&self) -> ScoringServices {
        ScoringServices {
            judge: self.build_judge(),
            embedder: LazyMiniLm::from_environment(),
            simulator: self.build_simulator(),
            evaluators: self.build_evaluators(),
        }
    }

    /// What the CLI scores its user's own files with: as [`Config::build_scoring`], and a
    /// criterion's `url` is called too (the file, like the machine, is the user's).
    pub fn build_scoring_for_own_files(&self) -> ScoringServices {
        let mut scoring = self.build_scoring();
        // Made when first needed: loading the system's certificates costs every command that
        // scores, `score` among them, several milliseconds.
        let client = LazyLock::new(|| crate::outbound::client(EVALUATOR_CONNECT_TIMEOUT));
        scoring.evaluators = scoring.evaluators.with_http(Arc::new(move |target: &HttpTarget| {
            let evaluator: Arc<dyn Evaluator> =
                Arc::new(HttpEvaluator::new((*client).clone(), target.clone()));
            evaluator
        }));
        scoring
    }

    /// A ready judge for the LLM-as-judge metrics, if one is configured.
    fn build_judge(&self) -> Option<Arc<dyn Judge>> {
        let judge: Arc<dyn Judge> = Arc::new(OpenAiJudge::new(self.judge.clone()?));
        Some(judge)
    }

    /// The `[[evaluators]]` by name.
    fn build_evaluators(&self) -> Evaluators {
        let mut evaluators = Evaluators::default();
        // One client for every URL entry (a client loads the system's certificates), made only
        // when there is one.
        let client = LazyLock::new(|| crate::outbound::client(EVALUATOR_CONNECT_TIMEOUT));
        for entry in &self.evaluators {
            let timeout = entry
                .timeout_secs
                .map_or(DEFAULT_EVALUATOR_TIMEOUT, std::time::Duration::from_secs_f64);
            let evaluator: Arc<dyn Evaluator> = match (&entry.command, &entry.url) {
                (Some(argv), _) => Arc::new(
                    CommandEvaluator::new(CommandSpec {
                        name: entry.name.clone(),
                        argv: argv.clone(),
                        timeout,
                    })
                    .with_env(entry.env.clone()),
                ),
                (None, Some(url)) => Arc::new(HttpEvaluator::new(
                    (*client).clone(),
                    HttpTarget {
                        url: url.clone(),
                        timeout,
                        retries: entry.retries.unwrap_or(DEFAULT_EVALUATOR_RETRIES),
                        headers: entry.headers.clone(),
                    },
                )),
                (None, None) => unreachable!("check_evaluators refuses an entry with neither"),
            };
            evaluators.insert(entry.name.clone(), evaluator);
        }
        evaluators
    }

    /// The model that plays the user of `conversation_scenario` cases: `[simulator]`, or the
    /// judge's model when there is no `[simulator]`.
    fn build_simulator(&self) -> Option<Arc<dyn Judge>> {
        let model = self.simulator.clone().or_else(|| self.judge.clone())?;
        let simulator: Arc<dyn Judge> = Arc::new(OpenAiJudge::new(model));
        Some(simulator)
    }

    /// The variables the file names for its parts: the judge's, the simulator's and the
    /// profiles' `api_key_env`, `[auth]`'s `proxy_secret_env`, the `env:NAME` values of
    /// evaluators and MCP servers. ADK's server in folder mode is not given them.
    pub fn secret_variable_names(&self) -> Vec<String> {
        let models = [&self.judge, &self.simulator].into_iter().flatten();
        let keys = (models.map(|m| &m.api_key_env))
            .chain(self.profiles.iter().map(|p| &p.api_key_env))
            .chain(self.auth.iter().map(|a| &a.proxy_secret_env))
            .flatten()
            .map(String::as_str);
        let servers = self.profiles.mcp_servers().iter().map(|s| s.entry());
        let server_values = servers.flat_map(|s| s.env.values().chain(s.headers.values()));
        let evaluator_values =
            (self.evaluators.iter()).flat_map(|e| e.env.0.values().chain(e.headers.0.values()));
        let values = server_values.chain(evaluator_values);
        let mut names: Vec<String> = keys
            .chain(values.filter_map(|value| named_variable(value)))
            .map(str::to_string)
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// The file's profiles after `demo`, which a file may redefine (e.g. to give it fewer tools).
fn check_profiles(
    from_file: Vec<AgentProfile>,
    mcp_servers: &[McpServerEntry],
) -> Result<Vec<AgentProfile>, String> {
    let mut profiles = vec![AgentProfile::demo()];
    let tools = ToolRegistry::demo();
    for (index, profile) in from_file.into_iter().enumerate() {
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
        check_profile_servers(&at, &profile, mcp_servers)?;
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
        match profiles.iter().position(|p| p.name == profile.name) {
            Some(existing) if profile.name == "demo" => profiles[existing] = profile,
            Some(_) => return Err(format!("{at}: the name is used twice")),
            None => profiles.push(profile),
        }
    }
    Ok(profiles)
}

/// The MCP servers a profile names: only an `openai` profile offers them, each once, each one
/// of the file's `[[mcp_servers]]`.
fn check_profile_servers(at: &str, profile: &AgentProfile, servers: &[McpServerEntry]) -> Result<(), String> {
    if profile.mcp_servers.is_empty() {
        return Ok(());
    }
    if profile.kind != AgentKind::Openai {
        return Err(format!(
            "{at}.mcp_servers: only an openai profile offers MCP tools to its model"
        ));
    }
    for (index, name) in profile.mcp_servers.iter().enumerate() {
        if !servers.iter().any(|s| &s.name == name) {
            let known: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
            let known = if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            };
            return Err(format!(
                "{at}.mcp_servers: no [[mcp_servers]] entry is named `{name}` (known: {known})"
            ));
        }
        if profile.mcp_servers[..index].contains(name) {
            return Err(format!("{at}.mcp_servers: `{name}` is named twice"));
        }
    }
    Ok(())
}

/// Checks each `[[evaluators]]` entry: a name of its own, exactly one of command and url.
fn check_evaluators(entries: Vec<EvaluatorEntry>) -> Result<Vec<EvaluatorEntry>, String> {
    let mut names = std::collections::HashSet::new();
    for (index, entry) in entries.iter().enumerate() {
        let at = format!("evaluators[{index}] (`{}`)", entry.name);
        if entry.name.trim().is_empty() {
            return Err(format!("evaluators[{index}].name: missing"));
        }
        if !names.insert(entry.name.as_str()) {
            return Err(format!("{at}: the name is used twice"));
        }
        if entry.url.is_none() && !entry.headers.0.is_empty() {
            return Err(format!(
                "{at}.headers: only an HTTP evaluator (`url`) takes headers"
            ));
        }
        if entry.command.is_none() && !entry.env.0.is_empty() {
            return Err(format!("{at}.env: only a command evaluator takes env"));
        }
        match (&entry.command, &entry.url) {
            (Some(_), Some(_)) => return Err(format!("{at}: give either `command` or `url`, not both")),
            (None, None) => {
                return Err(format!(
                    "{at}: needs a `command` (a list: program, then arguments) or a `url`"
                ))
            }
            (Some(argv), None) if argv.first().is_none_or(|p| p.trim().is_empty()) => {
                return Err(format!(
                    "{at}.command: name the program first, e.g. [\"python3\", \"check.py\"]"
                ))
            }
            (None, Some(url)) if !(url.starts_with("http://") || url.starts_with("https://")) => {
                return Err(format!("{at}.url: `{url}` is not an http:// or https:// URL"))
            }
            _ => {}
        }
        check_timeout(&at, entry.timeout_secs)?;
        if entry.retries.is_some_and(|r| r > MAX_RETRIES) {
            return Err(format!("{at}.retries: at most {MAX_RETRIES}"));
        }
    }
    Ok(entries)
}

/// Checks the values of a model table (`[judge]`, `[simulator]`) a file may get wrong; the
/// message names the field.
fn check_model(table: &str, model: &JudgeConfig) -> Result<(), String> {
    for (field, value) in [("base_url", &model.base_url), ("model", &model.model)] {
        if value.trim().is_empty() {
            return Err(format!("{table}.{field}: missing; the {table} needs a `{field}`"));
        }
    }
    if !(model.base_url.starts_with("http://") || model.base_url.starts_with("https://")) {
        return Err(format!(
            "{table}.base_url: `{}` is not an http:// or https:// URL",
            model.base_url
        ));
    }
    if let Some(t) = model.temperature.filter(|t| !(0.0..=2.0).contains(t)) {
        return Err(format!("{table}.temperature: {t} is outside 0 to 2"));
    }
    if let Some(retries) = model.max_retries.filter(|r| *r > MAX_RETRIES) {
        return Err(format!(
            "{table}.max_retries: {retries} is more than {MAX_RETRIES}"
        ));
    }
    check_timeout(table, model.timeout_secs)
}

/// A `timeout_secs` of the table or entry at `at`: seconds, more than 0 and at most an hour.
fn check_timeout(at: &str, timeout_secs: Option<f64>) -> Result<(), String> {
    match timeout_secs.filter(|s| !(s.is_finite() && *s > 0.0 && *s <= 3600.0)) {
        Some(secs) => Err(format!(
            "{at}.timeout_secs: {secs} is not a number of seconds between 0 and 3600"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_exists_without_a_file() {
        let config = Config::load(None).unwrap();
        let profiles = &config.profiles;
        assert_eq!(
            profiles.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            ["demo"]
        );
        assert!(profiles.agent("demo").is_some());
        assert!(profiles.agent("nope").is_none());
        assert!(Config::load(Some(Path::new("/no/such/evalstudio.toml")))
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
        let profiles = Config::parse(text).unwrap().profiles;
        let names: Vec<_> = profiles.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["demo", "local_llama"]);
        assert_eq!(
            profiles.get("local_llama").unwrap().api_key_env.as_deref(),
            Some("LLAMA_KEY")
        );
        assert!(profiles.agent("local_llama").is_some());

        let missing_model = "[[profiles]]\nname = \"x\"\nkind = \"openai\"\nbase_url = \"http://h/v1\"";
        assert!(Config::parse(missing_model)
            .unwrap_err()
            .contains("needs `model`"));
        let bad_tool = "[[profiles]]\nname = \"x\"\nkind = \"demo\"\ntools = [\"rm_rf\"]";
        assert!(Config::parse(bad_tool)
            .unwrap_err()
            .contains("no tool named `rm_rf`"));
        let bad_name = "[[profiles]]\nname = \"a/b\"\nkind = \"demo\"";
        assert!(Config::parse(bad_name).unwrap_err().contains("profile name"));
        let twice =
            "[[profiles]]\nname = \"x\"\nkind = \"demo\"\n[[profiles]]\nname = \"x\"\nkind = \"demo\"";
        assert!(Config::parse(twice).unwrap_err().contains("used twice"));
        let typo = "[[profiles]]\nname = \"x\"\nkind = \"demo\"\nmodle = \"m\"";
        let err = Config::parse(typo).unwrap_err();
        assert!(err.contains("modle") && err.contains("line 4"), "{err}");
        let adk = "[[profiles]]\nname = \"w\"\nkind = \"adk\"\nbase_url = \"http://127.0.0.1:8000\"\nadk_app = \"weather_agent\"";
        let profiles = Config::parse(adk).unwrap().profiles;
        assert_eq!(profiles.get("w").unwrap().kind, AgentKind::Adk);
        assert!(profiles.agent("w").is_some());
        let adk_without_url = "[[profiles]]\nname = \"w\"\nkind = \"adk\"";
        assert!(Config::parse(adk_without_url)
            .unwrap_err()
            .contains("an adk profile needs `base_url`"));
        let bad_kind = "[[profiles]]\nname = \"x\"\nkind = \"gemini\"";
        assert!(Config::parse(bad_kind).unwrap_err().contains("gemini"));
    }

    #[test]
    fn evaluators_are_checked_naming_the_entry() {
        for (config, expected) in [
            ("[[evaluators]]\nname = \"x\"\n", "evaluators[0] (`x`): needs a `command`"),
            (
                "[[evaluators]]\nname = \"x\"\nurl = \"ftp://h\"\n",
                "evaluators[0] (`x`).url: `ftp://h` is not an http:// or https:// URL",
            ),
            (
                "[[evaluators]]\nname = \"x\"\ncommand = [\"a\"]\n[[evaluators]]\nname = \"x\"\ncommand = [\"b\"]\n",
                "evaluators[1] (`x`): the name is used twice",
            ),
            (
                "[[evaluators]]\nname = \"x\"\ncommand = []\n",
                "evaluators[0] (`x`).command: name the program first",
            ),
        ] {
            let error = Config::parse(config).err().unwrap();
            assert!(error.starts_with(expected), "{error}");
        }
        let config =
            Config::parse("[[evaluators]]\nname = \"db\"\ncommand = [\"python3\", \"db.py\"]\n").unwrap();
        assert_eq!(config.build_evaluators().names(), ["db"]);
    }

    #[test]
    fn mcp_servers_are_offered_by_openai_profiles_that_name_them() {
        let server = "[[mcp_servers]]\nname = \"files\"\ncommand = \"npx\"\n";
        let profile = |extra: &str| {
            format!(
                "{server}[[profiles]]\nname = \"p\"\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"http://h/v1\"\n{extra}"
            )
        };
        let config = Config::parse(&profile("mcp_servers = [\"files\"]\n")).unwrap();
        assert!(config.profiles.mcp_servers().get("files").is_some());
        let p = config.profiles.get("p").unwrap();
        assert!(p.tool_names().is_empty(), "no built-in tools unless asked for");
        let both = Config::parse(&profile("mcp_servers = [\"files\"]\ntools = [\"calculate\"]\n")).unwrap();
        assert_eq!(both.profiles.get("p").unwrap().tool_names(), ["calculate"]);
        for (extra, expected) in [
            (
                "mcp_servers = [\"nope\"]\n",
                "profiles[0] (`p`).mcp_servers: no [[mcp_servers]] entry is named `nope` (known: files)",
            ),
            (
                "mcp_servers = [\"files\", \"files\"]\n",
                "profiles[0] (`p`).mcp_servers: `files` is named twice",
            ),
        ] {
            assert_eq!(Config::parse(&profile(extra)).err().unwrap(), expected);
        }
        let demo =
            format!("{server}[[profiles]]\nname = \"d\"\nkind = \"demo\"\nmcp_servers = [\"files\"]\n");
        assert!(Config::parse(&demo)
            .unwrap_err()
            .contains("only an openai profile"));
        let typo = "[[mcp_servers]]\nname = \"f\"\ncommand = \"npx\"\nagrs = []\n";
        let error = Config::parse(typo).unwrap_err();
        assert!(error.contains("agrs") && error.contains("line 4"), "{error}");
    }

    #[test]
    fn the_judge_table_is_parsed_and_checked() {
        assert!(Config::default().build_judge().is_none());
        let text = r#"
            [judge]
            base_url = "http://127.0.0.1:8080/v1"
            model = "qwen2.5"
            api_key_env = "JUDGE_KEY"
            timeout_secs = 30
            max_retries = 1
        "#;
        let config = Config::parse(text).unwrap();
        let judge = config.judge.as_ref().unwrap();
        assert_eq!(judge.model, "qwen2.5");
        assert_eq!(judge.api_key_env.as_deref(), Some("JUDGE_KEY"));
        assert_eq!(
            (judge.temperature, judge.timeout_secs, judge.max_retries),
            (None, Some(30.0), Some(1))
        );
        assert!(config.build_judge().is_some());
        assert_eq!(
            config.profiles.iter().count(),
            1,
            "a judge is not an agent profile"
        );

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
                "[judge]\nbase_url = \"http://h/v1\"\nmodel = \"m\"\nmax_retries = 1000",
                "judge.max_retries: 1000 is more than 10",
            ),
            (
                "[judge]\nbase_url = \"http://h/v1\"\nmodel = \"m\"\napi_key = \"sk-1\"",
                "unknown field `api_key`",
            ),
        ];
        for (text, expected) in errors {
            let error = Config::parse(text).unwrap_err();
            assert!(error.contains(expected), "{error}");
        }
    }

    #[test]
    fn the_variables_the_file_names_are_its_secrets() {
        let text = r#"
            [judge]
            base_url = "http://h/v1"
            model = "m"
            api_key_env = "JUDGE_KEY"

            [simulator]
            base_url = "http://h/v1"
            model = "m"
            api_key_env = "JUDGE_KEY"

            [[profiles]]
            name = "gpt"
            kind = "openai"
            model = "m"
            base_url = "http://h/v1"
            api_key_env = "OPENAI_API_KEY"

            [[mcp_servers]]
            name = "files"
            command = "npx"
            env = { API_TOKEN = "env:FILES_TOKEN", MODE = "fast" }

            [[mcp_servers]]
            name = "github"
            url = "https://h/mcp"
            headers = { Authorization = "env:GITHUB_MCP_AUTH" }

            [[evaluators]]
            name = "orders"
            command = ["python3", "check.py"]
            env = { DB = "env:ORDERS_DB_URL", LEVEL = "strict" }

            [auth]
            trusted_proxies = ["127.0.0.1"]
            proxy_secret_env = "PROXY_SECRET"
        "#;
        let config = Config::parse(text).unwrap();
        assert_eq!(
            config.secret_variable_names(),
            [
                "FILES_TOKEN",
                "GITHUB_MCP_AUTH",
                "JUDGE_KEY",
                "OPENAI_API_KEY",
                "ORDERS_DB_URL",
                "PROXY_SECRET"
            ]
        );
        assert!(
            !format!("{:?}", config.evaluators).contains("strict"),
            "env values stay out of Debug"
        );
        let url_with_env = "[[evaluators]]\nname = \"e\"\nurl = \"http://h\"\nenv = { A = \"b\" }\n";
        assert_eq!(
            Config::parse(url_with_env).unwrap_err(),
            "evaluators[0] (`e`).env: only a command evaluator takes env"
        );
    }
}

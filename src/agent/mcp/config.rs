//! One `[[mcp_servers]]` entry of evalstudio.toml, and its checks (errors name the entry and
//! the field). A command runs only from this file, never from a request. Values of `env` and
//! `headers` may name an environment variable (`"env:MY_TOKEN"`), read when the server is
//! connected; no value of either is ever shown, logged or exported. A stdio server gets only
//! PATH, HOME, the locale and the like of Evalstudio's environment (`child::only_needed`), then
//! its `env`.
//!
//! ```toml
//! [[mcp_servers]]
//! name = "everything"
//! command = "npx"                   # stdio: a program, its arguments, environment and folder
//! args = ["@modelcontextprotocol/server-everything"]
//! env = { API_TOKEN = "env:EVERYTHING_TOKEN" }
//! cwd = "tools"
//! tool_name_prefix = "everything"   # the model sees everything_echo
//! timeout_secs = 60                 # per call (and for connecting); default 60
//!
//! [[mcp_servers]]
//! name = "github"
//! url = "https://api.githubcopilot.com/mcp/"   # streamable HTTP
//! headers = { Authorization = "env:GITHUB_MCP_AUTH" }
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::names::valid_prefix;

/// How long a call (or connecting) may take when the entry does not say.
pub const DEFAULT_MCP_TIMEOUT: Duration = Duration::from_secs(60);

/// The prefix that makes a value name an environment variable.
const ENV_PREFIX: &str = "env:";

#[derive(Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerEntry {
    pub name: String,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub tool_name_prefix: Option<String>,
    #[serde(default)]
    pub timeout_secs: Option<f64>,
}

impl fmt::Debug for McpServerEntry {
    // By hand: env and header values may be secrets, so only their names are shown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServerEntry")
            .field("name", &self.name)
            .field("transport", &self.transport_text())
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("tool_name_prefix", &self.tool_name_prefix)
            .finish_non_exhaustive()
    }
}

impl McpServerEntry {
    pub fn timeout(&self) -> Duration {
        self.timeout_secs
            .map_or(DEFAULT_MCP_TIMEOUT, Duration::from_secs_f64)
    }

    /// How the server is reached, for people: `stdio: npx @… ` or `http: https://…`. Holds no
    /// secret (env and header values are not part of it).
    pub fn transport_text(&self) -> String {
        match (&self.command, &self.url) {
            (Some(command), _) => {
                let mut text = format!("stdio: {command}");
                for arg in &self.args {
                    text.push(' ');
                    text.push_str(arg);
                }
                text
            }
            (None, Some(url)) => format!("http: {url}"),
            (None, None) => String::new(),
        }
    }
}

/// A value of `env` or `headers`: itself, or the variable it names (`env:NAME`).
pub fn resolve_value(
    server: &str,
    table: &str,
    key: &str,
    value: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    resolve_value_of(&format!("the MCP server `{server}`"), table, key, value, lookup)
}

/// `resolve_value` for any `owner` ("the evaluator `x`"), whom the error names.
pub fn resolve_value_of(
    owner: &str,
    table: &str,
    key: &str,
    value: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, String> {
    match named_variable(value) {
        None => Ok(value.to_string()),
        Some(var) => lookup(var).filter(|v| !v.is_empty()).ok_or_else(|| {
            format!("{owner} needs the environment variable {var} (its {table}.{key}), which is not set")
        }),
    }
}

/// The variable a value of `env` or `headers` names (`env:NAME`), if it names one.
pub fn named_variable(value: &str) -> Option<&str> {
    value.strip_prefix(ENV_PREFIX)
}

/// The environment of a child with this `env` table (a stdio server's, a command evaluator's):
/// only what it needs of `parent` (`child::only_needed`: PATH, HOME, the locale…) and the table,
/// its `env:NAME` values read through `lookup`. Err names `owner` and the variable not set.
pub fn child_environment(
    owner: &str,
    env: &BTreeMap<String, String>,
    parent: impl IntoIterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<crate::child::Environment, String> {
    let own = resolve_table(owner, "env", env, lookup)?;
    Ok(crate::child::only_needed(parent, own))
}

/// Every value of a table resolved (`resolve_value_of`), in the table's order.
fn resolve_table(
    owner: &str,
    table: &str,
    values: &BTreeMap<String, String>,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Vec<(String, String)>, String> {
    values
        .iter()
        .map(|(key, value)| Ok((key.clone(), resolve_value_of(owner, table, key, value, &lookup)?)))
        .collect()
}

/// An `env` table written as `[[mcp_servers]]` writes it, for `[[evaluators]]`: each value
/// itself or `env:NAME`. Its Debug shows the names alone, as values may be secrets.
#[derive(Clone, Default, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct EnvTable(pub BTreeMap<String, String>);

impl fmt::Debug for EnvTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.keys()).finish()
    }
}

/// Checks every entry: a unique name, exactly one of `command` and `url`, fields that fit
/// the transport, a usable prefix and timeout.
pub fn check_mcp_servers(entries: &[McpServerEntry]) -> Result<(), String> {
    let mut names = std::collections::HashSet::new();
    for (index, entry) in entries.iter().enumerate() {
        let at = format!("mcp_servers[{index}] (`{}`)", entry.name);
        crate::evalset::validate_eval_set_id(&entry.name).map_err(|m| {
            format!(
                "mcp_servers[{index}].name: {}",
                m.replace("eval_set_id", "server name")
            )
        })?;
        if !names.insert(entry.name.as_str()) {
            return Err(format!("{at}: the name is used twice"));
        }
        check_transport(&at, entry)?;
        if let Some(prefix) = entry.tool_name_prefix.as_deref() {
            if !valid_prefix(prefix) {
                return Err(format!(
                    "{at}.tool_name_prefix: `{prefix}` must be letters, digits, _ or -, shorter than 64"
                ));
            }
        }
        if let Some(secs) = entry
            .timeout_secs
            .filter(|s| !(s.is_finite() && *s > 0.0 && *s <= 3600.0))
        {
            return Err(format!(
                "{at}.timeout_secs: {secs} is not a number of seconds between 0 and 3600"
            ));
        }
    }
    Ok(())
}

fn check_transport(at: &str, entry: &McpServerEntry) -> Result<(), String> {
    match (&entry.command, &entry.url) {
        (Some(_), Some(_)) => Err(format!(
            "{at}: give either `command` (stdio) or `url` (HTTP), not both"
        )),
        (None, None) => Err(format!(
            "{at}: needs a `command` (a program run over stdio) or a `url` (streamable HTTP)"
        )),
        (Some(command), None) if command.trim().is_empty() => {
            Err(format!("{at}.command: name the program, e.g. \"npx\""))
        }
        (Some(_), None) if !entry.headers.is_empty() => Err(format!(
            "{at}.headers: only an HTTP server (`url`) takes headers; a stdio server takes `env`"
        )),
        (None, Some(url)) if !(url.starts_with("http://") || url.starts_with("https://")) => {
            Err(format!("{at}.url: `{url}` is not an http:// or https:// URL"))
        }
        (None, Some(_)) if !entry.args.is_empty() || !entry.env.is_empty() || entry.cwd.is_some() => Err(
            format!("{at}: `args`, `env` and `cwd` belong to a stdio server (`command`), not to a `url`"),
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(text: &str) -> Vec<McpServerEntry> {
        #[derive(Deserialize)]
        struct File {
            mcp_servers: Vec<McpServerEntry>,
        }
        toml::from_str::<File>(text).unwrap().mcp_servers
    }

    #[test]
    fn broken_entries_name_the_entry_and_field() {
        for (text, expected) in [
            ("[[mcp_servers]]\nname = \"a\"\n", "mcp_servers[0] (`a`): needs a `command`"),
            (
                "[[mcp_servers]]\nname = \"a\"\ncommand = \"x\"\nurl = \"http://h\"\n",
                "mcp_servers[0] (`a`): give either",
            ),
            (
                "[[mcp_servers]]\nname = \"a\"\nurl = \"ftp://h\"\n",
                "mcp_servers[0] (`a`).url: `ftp://h` is not",
            ),
            (
                "[[mcp_servers]]\nname = \"a\"\ncommand = \"x\"\nheaders = { A = \"b\" }\n",
                "mcp_servers[0] (`a`).headers: only an HTTP server",
            ),
            (
                "[[mcp_servers]]\nname = \"a\"\nurl = \"http://h\"\nargs = [\"x\"]\n",
                "mcp_servers[0] (`a`): `args`, `env` and `cwd` belong",
            ),
            (
                "[[mcp_servers]]\nname = \"a\"\ncommand = \"x\"\ntool_name_prefix = \"a.b\"\n",
                "mcp_servers[0] (`a`).tool_name_prefix: `a.b`",
            ),
            (
                "[[mcp_servers]]\nname = \"a\"\ncommand = \"x\"\ntimeout_secs = 0\n",
                "mcp_servers[0] (`a`).timeout_secs: 0 is not",
            ),
            (
                "[[mcp_servers]]\nname = \"a\"\ncommand = \"x\"\n[[mcp_servers]]\nname = \"a\"\ncommand = \"y\"\n",
                "mcp_servers[1] (`a`): the name is used twice",
            ),
            ("[[mcp_servers]]\nname = \"a/b\"\ncommand = \"x\"\n", "mcp_servers[0].name:"),
        ] {
            let error = check_mcp_servers(&entries(text)).unwrap_err();
            assert!(error.starts_with(expected), "{error}");
        }
    }

    #[test]
    fn secret_values_come_from_the_environment_and_stay_out_of_debug() {
        let entry = &entries(
            "[[mcp_servers]]\nname = \"gh\"\nurl = \"https://h/mcp\"\nheaders = { Authorization = \"Bearer sk-123\" }\n",
        )[0];
        assert!(check_mcp_servers(std::slice::from_ref(entry)).is_ok());
        assert!(!format!("{entry:?}").contains("sk-123"));
        let lookup = |var: &str| (var == "TOKEN").then(|| "Bearer t".to_string());
        assert_eq!(
            resolve_value("gh", "headers", "A", "env:TOKEN", lookup).unwrap(),
            "Bearer t"
        );
        assert_eq!(
            resolve_value("gh", "headers", "A", "plain", lookup).unwrap(),
            "plain"
        );
        let missing = resolve_value("gh", "headers", "A", "env:NOPE", lookup).unwrap_err();
        assert!(
            missing.contains("NOPE") && missing.contains("headers.A"),
            "{missing}"
        );
    }
}

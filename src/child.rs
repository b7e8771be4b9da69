//! Child processes that die with Evalstudio: a stdio MCP server, ADK's api_server in folder mode.
//! Killing them on drop covers a clean exit and Ctrl+C; the kernel covers a crash or kill -9.
//!
//! And what each is given of Evalstudio's environment, which holds its secrets (`DATABASE_URL`
//! with its password, the model keys, `EVALSTUDIO_TOKEN`): a stdio MCP server and a command
//! evaluator get only [`KEPT`] and their entry's own `env`; ADK's server, which needs the
//! user's model keys from their shell, gets everything but Evalstudio's secrets.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// Asks the kernel to send the child SIGTERM when Evalstudio dies, however it dies.
pub fn die_with_parent(process: &mut tokio::process::Command) {
    // SAFETY: prctl is async-signal-safe and touches only the child being set up.
    unsafe {
        process.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// What a child given only what it needs keeps of Evalstudio's environment (and every `LC_*`):
/// finding programs, the user's home and name, the locale, the time zone, the temporary folder.
pub const KEPT: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR",
];

/// An environment: names to values.
pub type Environment = BTreeMap<OsString, OsString>;

/// The environment of a child given only what it needs: what `parent` has of [`KEPT`] and
/// `LC_*`, then `own` (its entry's `env`, resolved), which wins.
pub fn only_needed(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
    own: impl IntoIterator<Item = (String, String)>,
) -> Environment {
    let mut environment: Environment = parent.into_iter().filter(|(name, _)| kept(name)).collect();
    environment.extend(own.into_iter().map(|(name, value)| (name.into(), value.into())));
    environment
}

/// `parent` without Evalstudio's secrets: `DATABASE_URL`, every `EVALSTUDIO_*` variable and
/// `named`, the variables evalstudio.toml names (`Config::secret_variable_names`).
pub fn without_secrets(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
    named: &[String],
) -> Environment {
    let secret = |name: &OsStr| {
        name.to_str().is_some_and(|name| {
            name == "DATABASE_URL" || name.starts_with("EVALSTUDIO_") || named.iter().any(|n| n == name)
        })
    };
    parent.into_iter().filter(|(name, _)| !secret(name)).collect()
}

/// Gives `process` exactly `environment`, nothing inherited.
pub fn set_environment(process: &mut tokio::process::Command, environment: Environment) {
    process.env_clear().envs(environment);
}

fn kept(name: &OsStr) -> bool {
    name.to_str()
        .is_some_and(|name| KEPT.contains(&name) || name.starts_with("LC_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent() -> Vec<(OsString, OsString)> {
        [
            ("PATH", "/usr/bin"),
            ("HOME", "/home/me"),
            ("LANG", "fr_FR.UTF-8"),
            ("LC_TIME", "C"),
            ("DATABASE_URL", "postgres://evalstudio:hunter2@db/evalstudio"),
            ("EVALSTUDIO_TOKEN", "es_secret"),
            ("EVALSTUDIO_EMBEDDING_MODEL", "/models/minilm"),
            ("OPENAI_API_KEY", "sk-judge"),
            ("GOOGLE_API_KEY", "agent-key"),
            ("VIRTUAL_ENV", "/venv"),
        ]
        .into_iter()
        .map(|(name, value)| (name.into(), value.into()))
        .collect()
    }

    fn names(environment: &Environment) -> Vec<&str> {
        environment.keys().map(|name| name.to_str().unwrap()).collect()
    }

    #[test]
    fn a_child_given_only_what_it_needs_gets_the_kept_variables_and_its_own() {
        let own = [
            ("API_TOKEN".to_string(), "t".to_string()),
            ("LANG".to_string(), "C.UTF-8".to_string()),
        ];
        let environment = only_needed(parent(), own);
        assert_eq!(
            names(&environment),
            ["API_TOKEN", "HOME", "LANG", "LC_TIME", "PATH"]
        );
        assert_eq!(
            environment[OsStr::new("LANG")],
            "C.UTF-8",
            "the entry's own value wins"
        );
        assert_eq!(environment[OsStr::new("PATH")], "/usr/bin");
    }

    #[test]
    fn a_child_keeping_the_environment_loses_evalstudios_secrets() {
        let named = ["OPENAI_API_KEY".to_string()];
        let environment = without_secrets(parent(), &named);
        assert_eq!(
            names(&environment),
            ["GOOGLE_API_KEY", "HOME", "LANG", "LC_TIME", "PATH", "VIRTUAL_ENV"]
        );
    }
}

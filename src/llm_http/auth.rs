//! The API key: read from the environment variable the config names each time a request is
//! made, sent only in the `Authorization` header, and scrubbed from anything a server echoes.

/// Reads an environment variable; swapped out by tests so they need not mutate the process's
/// environment (which is shared by every test thread).
pub(crate) type KeyLookup = fn(&str) -> Option<String>;

pub(crate) fn env_lookup(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The key, if one is configured: read from the variable named `api_key_env` now. Err if the
/// variable is named but unset or empty.
pub(crate) fn api_key(api_key_env: Option<&str>, lookup: KeyLookup) -> Result<Option<String>, String> {
    let Some(var) = api_key_env else {
        return Ok(None);
    };
    match lookup(var) {
        Some(key) if !key.trim().is_empty() => Ok(Some(key.trim().to_string())),
        _ => Err(format!(
            "the API key variable ${var} is not set (or is empty); export it in the server's \
             environment, or clear api_key_env if the model server needs no key"
        )),
    }
}

/// Removes the key from a message, in case a server echoed it.
pub(super) fn scrub(message: &str, key: Option<&str>) -> String {
    match key {
        Some(key) if key.len() >= 4 => message.replace(key, "[redacted]"),
        _ => message.to_string(),
    }
}

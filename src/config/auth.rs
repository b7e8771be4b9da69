//! `[auth]`: who may use a shared server. Its presence turns auth on; a bind beyond loopback
//! without it refuses to start (`--insecure-no-auth` overrides, warning).
//!
//! ```toml
//! [auth]
//! session_hours = 12                 # a browser login lasts this long
//! secure_cookie = true               # served over TLS (or trust X-Forwarded-Proto below)
//! trusted_proxies = ["127.0.0.1"]    # whose X-Forwarded-For/-Proto and proxy_header count
//! proxy_header = "X-Forwarded-User"  # the user a trusted proxy (oauth2-proxy, SSO) signed in
//! proxy_secret_env = "PROXY_SECRET"  # a variable holding the secret the proxy sends as
//!                                    # X-Evalstudio-Proxy-Secret; without it the proxy's headers
//!                                    # are believed from any process on a trusted address
//! failed_login_limit = 5             # failed logins per user from one address (4x per address,
//!                                    # 20x an hour per user from all: service/auth/logins.rs) ...
//! failed_login_window_minutes = 15   # ... within this window; then 429 with Retry-After
//! ```

use serde::Deserialize;
use std::net::IpAddr;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    #[serde(default = "default_session_hours")]
    pub session_hours: f64,
    #[serde(default)]
    pub secure_cookie: bool,
    #[serde(default)]
    pub trusted_proxies: Vec<IpAddr>,
    #[serde(default)]
    pub proxy_header: Option<String>,
    /// The variable holding the secret a trusted proxy proves itself with.
    #[serde(default)]
    pub proxy_secret_env: Option<String>,
    #[serde(default = "default_failed_login_limit")]
    pub failed_login_limit: u32,
    #[serde(default = "default_window_minutes")]
    pub failed_login_window_minutes: f64,
}

fn default_session_hours() -> f64 {
    12.0
}

fn default_failed_login_limit() -> u32 {
    5
}

fn default_window_minutes() -> f64 {
    15.0
}

/// Checks what the table may get wrong; the message names the field.
pub fn check_auth(auth: &AuthConfig) -> Result<(), String> {
    if !(0.0..=24.0 * 90.0).contains(&auth.session_hours) || auth.session_hours == 0.0 {
        return Err(format!(
            "auth.session_hours: {} is not between 0 and 2160 (90 days)",
            auth.session_hours
        ));
    }
    if auth.failed_login_limit == 0 {
        return Err("auth.failed_login_limit: at least 1".into());
    }
    if auth.failed_login_window_minutes.is_nan() || auth.failed_login_window_minutes <= 0.0 {
        return Err("auth.failed_login_window_minutes: must be more than 0".into());
    }
    if auth.proxy_secret_env.is_some() && auth.trusted_proxies.is_empty() {
        return Err("auth.proxy_secret_env: list the proxies that send it in auth.trusted_proxies".into());
    }
    if let Some(header) = &auth.proxy_header {
        let valid = !header.is_empty()
            && header
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !valid {
            return Err(format!("auth.proxy_header: `{header}` is not a header name"));
        }
        if auth.trusted_proxies.is_empty() {
            return Err(
                "auth.proxy_header: list the proxies it is believed from in auth.trusted_proxies \
                 (anyone else could send it)"
                    .into(),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    #[test]
    fn an_empty_auth_table_turns_auth_on_with_defaults() {
        let auth = Config::parse("[auth]\n").unwrap().auth.unwrap();
        assert_eq!(
            (auth.session_hours, auth.failed_login_limit, auth.secure_cookie),
            (12.0, 5, false)
        );
        assert!(Config::parse("").unwrap().auth.is_none());
    }

    #[test]
    fn auth_mistakes_name_the_field() {
        for (text, expected) in [
            ("[auth]\nsession_hours = 0", "auth.session_hours"),
            ("[auth]\nfailed_login_limit = 0", "auth.failed_login_limit"),
            ("[auth]\nproxy_header = \"X-User\"", "auth.trusted_proxies"),
            (
                "[auth]\nproxy_header = \"X User\"\ntrusted_proxies = [\"10.0.0.1\"]",
                "auth.proxy_header",
            ),
            ("[auth]\ntrusted_proxies = [\"nope\"]", "invalid IP address"),
            ("[auth]\npasword = 1", "unknown field `pasword`"),
        ] {
            let err = Config::parse(text).unwrap_err();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}

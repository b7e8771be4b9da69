//! What people are shown of a configured address. A URL in evalstudio.toml (an MCP server's, a
//! profile's `base_url`, an evaluator's) may carry a secret in its userinfo (`user:pass@`), its
//! query (`?token=…`) or its fragment; pages, REST answers and stored results show it without
//! them. Pure, browser too: plain text in, plain text out.

/// What stands for text that is not a URL this can read: it may hold anything, so none of it
/// is shown.
pub const HIDDEN_URL: &str = "(hidden)";

/// `url` as people may see it: its scheme, host, port and path, without userinfo, query or
/// fragment. Text that is not an absolute `scheme://host…` URL is [`HIDDEN_URL`].
///
/// ```
/// use evalstudio::redact::redacted_url;
/// assert_eq!(redacted_url("https://me:pw@mcp.example.com/mcp?token=abc"), "https://mcp.example.com/mcp");
/// ```
pub fn redacted_url(url: &str) -> String {
    shown(url.trim()).unwrap_or_else(|| HIDDEN_URL.to_string())
}

/// The parts kept, or `None` when the text is not read as a URL the same way everywhere.
fn shown(url: &str) -> Option<String> {
    // Whitespace, control characters and backslashes are read differently by different
    // parsers (browsers take `\` for `/`): where they disagree, a secret could land in what
    // one of them calls the host or the path.
    if url
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
    {
        return None;
    }
    let (scheme, rest) = url.split_once("://")?;
    let mut letters = scheme.chars();
    let scheme_ok = letters.next().is_some_and(|c| c.is_ascii_alphabetic())
        && letters.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return None;
    }
    // The authority ends where the path, the query or the fragment starts; its userinfo is
    // everything before its last `@`.
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, after) = rest.split_at(authority_end);
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    if !is_host_and_port(host_port) {
        return None;
    }
    let path = &after[..after.find(['?', '#']).unwrap_or(after.len())];
    Some(format!("{}://{host_port}{path}", scheme.to_ascii_lowercase()))
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`, with a host name of letters, digits, `-`, `.`,
/// `_`, `~` and `%`-escapes.
fn is_host_and_port(text: &str) -> bool {
    let (host_ok, port) = match text.strip_prefix('[') {
        Some(bracketed) => match bracketed.split_once(']') {
            Some((v6, after)) => (
                v6.contains(':')
                    && v6
                        .chars()
                        .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.')),
                match after {
                    "" => None,
                    _ => Some(after.strip_prefix(':').unwrap_or("x")),
                },
            ),
            None => (false, None),
        },
        None => {
            let (host, port) = match text.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (text, None),
            };
            (
                !host.is_empty()
                    && host
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '%')),
                port,
            )
        }
    };
    host_ok && port.is_none_or(|port| port.len() <= 5 && port.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_query_and_fragment_are_dropped() {
        for (url, shown) in [
            (
                "https://me:hunter2@mcp.example.com/mcp",
                "https://mcp.example.com/mcp",
            ),
            (
                "https://api.example.com/v1?token=abc&x=1",
                "https://api.example.com/v1",
            ),
            ("https://api.example.com/v1#key=abc", "https://api.example.com/v1"),
            (
                "https://me:hunter2@mcp.example.com:8443/a/b?token=abc#frag",
                "https://mcp.example.com:8443/a/b",
            ),
            // A password holding `@`: the userinfo runs to the last one.
            ("http://me:p@ss@host:80/v1", "http://host:80/v1"),
            ("http://token@127.0.0.1:9/v1", "http://127.0.0.1:9/v1"),
            // The path is kept as written, `@` and all.
            ("http://host/users/@me", "http://host/users/@me"),
            ("HTTPS://Api.Example.com/V1", "https://Api.Example.com/V1"),
            ("  http://h/v1  ", "http://h/v1"),
        ] {
            assert_eq!(redacted_url(url), shown, "{url}");
        }
    }

    #[test]
    fn an_ipv6_host_keeps_its_brackets_and_port() {
        assert_eq!(
            redacted_url("http://u:p@[::1]:8080/v1?k=v"),
            "http://[::1]:8080/v1"
        );
        assert_eq!(redacted_url("http://[2001:db8::7]/"), "http://[2001:db8::7]/");
        assert_eq!(
            redacted_url("http://[::ffff:127.0.0.1]"),
            "http://[::ffff:127.0.0.1]"
        );
    }

    #[test]
    fn without_a_path_only_the_origin_is_left() {
        assert_eq!(redacted_url("https://api.example.com"), "https://api.example.com");
        assert_eq!(
            redacted_url("https://api.example.com?token=abc"),
            "https://api.example.com"
        );
        assert_eq!(
            redacted_url("https://key@api.example.com#x"),
            "https://api.example.com"
        );
        assert_eq!(
            redacted_url("https://api.example.com/"),
            "https://api.example.com/"
        );
    }

    #[test]
    fn what_is_not_read_as_a_url_is_hidden_whole() {
        for text in [
            "",
            "not a url",
            "h/v1",
            "api.example.com/v1?token=abc",
            "http://",
            "http://user:pass@",
            "://host/",
            "1http://host/",
            // A `/` in the password ends the authority early: its port would be `p`.
            "http://user:p/ss@host/",
            "http://user:pa?ss@host/",
            "http://host:80x/",
            "http://host:123456/",
            "http://[::1/",
            "http://[::1]x/",
            "http://[host]/",
            "http://a b/",
            "http://host\\user:pass@evil/",
            "http://host/\ntoken",
        ] {
            assert_eq!(redacted_url(text), HIDDEN_URL, "{text:?}");
        }
    }
}

//! What every outgoing request of the server obeys, whoever configured its address: a redirect
//! is followed only while it stays on the origin it was sent to (a configured server cannot
//! bounce Evalstudio to cloud metadata or an intranet page), connecting times out, and an
//! answer is read only up to a cap.

use std::time::Duration;

/// Most redirects followed on the same origin.
const MAX_REDIRECTS: usize = 5;

/// The most an evaluator's or a judge's answer may hold.
pub const EVALUATOR_BODY_CAP: usize = 1 << 20;
/// The most an agent's non-streamed answer, or an error body, may hold.
pub const AGENT_BODY_CAP: usize = 16 << 20;

/// Makes ring rustls's cryptography for the whole process (the first call does; later ones
/// find it done). reqwest is built without a provider of its own, so every client, ours or
/// rmcp's, is built after this: every command calls it first thing
/// (`cli::run`), and so do `Server::bind`, [`client`] and the MCP transport, for what runs the
/// library without the binary.
pub fn use_ring_for_tls() {
    let _already_chosen = rustls::crypto::ring::default_provider().install_default();
}

/// A client that connects within `connect_timeout` and follows redirects only on the origin
/// of the request it made.
pub fn client(connect_timeout: Duration) -> reqwest::Client {
    use_ring_for_tls();
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if same_origin && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    });
    reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .redirect(policy)
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// Why an answer could not be read whole.
#[derive(Debug)]
pub enum ReadFailure {
    /// The connection broke while it arrived.
    Broke(reqwest::Error),
    /// It held more than the cap, in bytes.
    TooLarge(usize),
}

impl ReadFailure {
    /// Over the cap: asking again gets the same.
    pub fn is_too_large(&self) -> bool {
        matches!(self, ReadFailure::TooLarge(_))
    }
}

impl std::fmt::Display for ReadFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadFailure::Broke(error) => write!(f, "broke off its answer: {error}"),
            ReadFailure::TooLarge(cap) => write!(f, "answered more than {}", size_text(*cap)),
        }
    }
}

/// The body as text (invalid UTF-8 replaced), read a chunk at a time and given up past `cap`.
pub async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<String, ReadFailure> {
    if response
        .content_length()
        .is_some_and(|length| length > cap as u64)
    {
        return Err(ReadFailure::TooLarge(cap));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(ReadFailure::Broke)? {
        if body.len() + chunk.len() > cap {
            return Err(ReadFailure::TooLarge(cap));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// A cap as the README states it: `1 MiB`.
fn size_text(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

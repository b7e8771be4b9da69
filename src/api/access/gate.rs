//! The gate every request passes: who is calling, from where, and over what.

use super::Refusal;
use crate::access::SignedIn;
use crate::api::AppState;
use crate::service::auth::{self, actor::acting_as, AuthError, LoginPolicy};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, SocketAddr};

/// The browser session's cookie, over plain HTTP (a loopback or trusted network).
pub const SESSION_COOKIE: &str = "evalstudio_session";
/// The cookie over TLS: the `__Host-` prefix makes browsers refuse it unless Secure, for this
/// host alone, so a sibling subdomain cannot plant one of its own.
const SECURE_SESSION_COOKIE: &str = "__Host-evalstudio_session";

fn cookie_name(tls: bool) -> &'static str {
    if tls {
        SECURE_SESSION_COOKIE
    } else {
        SESSION_COOKIE
    }
}

/// The `[auth]` settings as the gate uses them. No gate (`AppState::auth` is `None`) means auth
/// is off: every request may do everything, as on a loopback bind.
#[derive(Debug, Clone)]
pub struct AuthGate {
    pub policy: LoginPolicy,
    /// Mark the cookie Secure: the server is reached over TLS.
    pub secure_cookie: bool,
    /// Proxies whose `X-Forwarded-*` headers and `proxy_header` are believed.
    pub trusted_proxies: Vec<IpAddr>,
    /// The header a trusted proxy names the signed-in user in (oauth2-proxy, an SSO gateway).
    pub proxy_header: Option<HeaderName>,
    /// The SHA-256 of the secret a trusted proxy sends in [`PROXY_SECRET_HEADER`]; without it
    /// any process on a trusted address is believed.
    pub proxy_secret_digest: Option<String>,
}

/// The header a proxy proves itself with, when `[auth] proxy_secret_env` is set.
pub const PROXY_SECRET_HEADER: &str = "x-evalstudio-proxy-secret";

/// Headers only a proxy adds: without `[auth]` a request carrying one came from elsewhere.
const PROXY_HEADERS: &[&str] = &[
    "forwarded",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-forwarded-port",
    "x-forwarded-prefix",
    "x-real-ip",
    "via",
];

/// Who is calling, as the checks see it (a request extension).
#[derive(Debug, Clone)]
pub enum Caller {
    /// Auth is off: the one local user.
    AuthOff,
    Anonymous,
    User {
        user: SignedIn,
        by_cookie: bool,
    },
}

impl Caller {
    pub fn user(&self) -> Option<&SignedIn> {
        match self {
            Caller::User { user, .. } => Some(user),
            _ => None,
        }
    }
}

/// Where the request came from, for the login's rate limit and cookie (a request extension).
#[derive(Debug, Clone)]
pub struct Client {
    /// The caller's address (as a trusted proxy saw it, behind one).
    pub address: String,
    /// Whether the browser reached us over TLS, so the cookie is Secure.
    pub tls: bool,
    /// The host the browser asked for (a trusted proxy's X-Forwarded-Host, else Host).
    pub host: Option<String>,
}

impl Client {
    /// This server's origin as the browser sees it, which a change's Origin must be.
    fn origin(&self) -> Option<String> {
        let scheme = if self.tls { "https" } else { "http" };
        Some(format!("{scheme}://{}", self.host.as_ref()?))
    }
}

/// Around every request: finds the caller, refuses a cross-site change, runs the rest as the
/// caller's user. Each route's own check then decides. With auth off a change from another
/// site is refused all the same (a page open in the developer's browser could otherwise post
/// to their local server), and a loopback-only server answers only to a loopback host name
/// (a rebound DNS name is another site).
pub async fn identify(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip());
    let (caller, client) = match &state.auth {
        None => {
            if let Some(header) = PROXY_HEADERS.iter().find(|h| request.headers().contains_key(**h)) {
                return Refusal::Proxied(header).into_response();
            }
            let host = text(request.headers(), "host").map(str::to_string);
            if state.loopback_only && !host.as_deref().is_some_and(names_loopback) {
                return Refusal::NotLoopbackHost.into_response();
            }
            let client = Client {
                address: address(peer),
                tls: false,
                host,
            };
            (Caller::AuthOff, client)
        }
        Some(gate) => {
            let client = gate.client(request.headers(), peer);
            match gate.caller(&state, request.headers(), peer, client.tls).await {
                Ok(caller) => (caller, client),
                Err(refusal) => return refusal.into_response(),
            }
        }
    };
    if cross_site(request.method(), request.headers(), &caller, &client) {
        return Refusal::CrossSite.into_response();
    }
    let user = caller.user().map(|user| user.name.clone());
    request.extensions_mut().insert(caller);
    request.extensions_mut().insert(client);
    acting_as(user, next.run(request)).await
}

impl AuthGate {
    /// A trusted proxy: one of its addresses, with its secret when one is set.
    fn trusts(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> bool {
        let proven = match &self.proxy_secret_digest {
            None => true,
            Some(expected) => {
                text(headers, PROXY_SECRET_HEADER).is_some_and(|sent| auth::digest(sent) == *expected)
            }
        };
        proven && peer.is_some_and(|peer| self.trusted_proxies.contains(&peer))
    }

    fn client(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Client {
        let trusted = self.trusts(headers, peer);
        let forwarded_for = trusted
            .then(|| text(headers, "x-forwarded-for"))
            .flatten()
            .and_then(|list| list.rsplit(',').next().map(|last| last.trim().to_string()));
        let forwarded_tls =
            trusted && text(headers, "x-forwarded-proto").is_some_and(|p| p.eq_ignore_ascii_case("https"));
        let forwarded_host = trusted.then(|| text(headers, "x-forwarded-host")).flatten();
        Client {
            address: forwarded_for.unwrap_or_else(|| address(peer)),
            tls: self.secure_cookie || forwarded_tls,
            host: forwarded_host
                .or_else(|| text(headers, "host"))
                .map(str::to_string),
        }
    }

    async fn caller(
        &self,
        state: &AppState,
        headers: &HeaderMap,
        peer: Option<IpAddr>,
        tls: bool,
    ) -> Result<Caller, Refusal> {
        let store = &state.services.store;
        if let Some(token) =
            text(headers, header::AUTHORIZATION.as_str()).and_then(|v| v.strip_prefix("Bearer "))
        {
            let found = auth::token_user(store, token.trim()).await;
            return signed_in(found, false, Err(Refusal::BadToken));
        }
        if let Some(name) = self
            .proxy_header
            .as_ref()
            .filter(|_| self.trusts(headers, peer))
            .and_then(|h| text(headers, h.as_str()))
        {
            let found = auth::proxy_user(store, name).await;
            return signed_in(found, false, Err(Refusal::UnknownProxyUser));
        }
        match session_cookie(headers, tls) {
            Some(secret) => signed_in(
                auth::session_user(store, secret).await,
                true,
                Ok(Caller::Anonymous),
            ),
            None => Ok(Caller::Anonymous),
        }
    }

    /// The Set-Cookie value of a new session: HttpOnly (no script reads it), SameSite=Lax (no
    /// other site's form or fetch sends it with a change), ending with the session.
    pub fn session_cookie(&self, secret: &str, tls: bool) -> HeaderValue {
        let seconds = self.policy.session_seconds as u64;
        cookie(&format!("{}={secret}; Max-Age={seconds}", cookie_name(tls)), tls)
    }

    /// The Set-Cookie value that removes the session's cookie.
    pub fn cleared_cookie(&self, tls: bool) -> HeaderValue {
        cookie(&format!("{}=; Max-Age=0", cookie_name(tls)), tls)
    }
}

fn cookie(head: &str, tls: bool) -> HeaderValue {
    let secure = if tls { "; Secure" } else { "" };
    HeaderValue::from_str(&format!("{head}; Path=/; HttpOnly; SameSite=Lax{secure}"))
        .expect("a hex secret makes a valid header")
}

/// The session secret in the request's cookies.
pub fn session_cookie(headers: &HeaderMap, tls: bool) -> Option<&str> {
    let name = cookie_name(tls);
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
        .filter(|secret| !secret.is_empty())
}

/// The caller a credential names, or `unknown` when it names nobody.
fn signed_in(
    found: Result<Option<SignedIn>, AuthError>,
    by_cookie: bool,
    unknown: Result<Caller, Refusal>,
) -> Result<Caller, Refusal> {
    match found {
        Ok(Some(user)) => Ok(Caller::User { user, by_cookie }),
        Ok(None) => unknown,
        Err(err) => Err(Refusal::fault(err)),
    }
}

/// A change (any method but GET, HEAD, OPTIONS) whose Origin is another site's, or that carries
/// the session cookie with no Origin at all: the browser sent it for a page we did not serve.
fn cross_site(method: &Method, headers: &HeaderMap, caller: &Caller, client: &Client) -> bool {
    if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
        return false;
    }
    let by_cookie = matches!(caller, Caller::User { by_cookie: true, .. });
    match text(headers, "origin") {
        Some(origin) => client.origin().is_none_or(|own| origin != own),
        None => by_cookie,
    }
}

/// Whether a Host header names this machine: `localhost`, `*.localhost` or a loopback address,
/// with or without a port.
fn names_loopback(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    name.eq_ignore_ascii_case("localhost")
        || name.to_ascii_lowercase().ends_with(".localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn text<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

fn address(peer: Option<IpAddr>) -> String {
    peer.map(|ip| ip.to_string()).unwrap_or_else(|| "unknown".into())
}

//! An HTTP evaluator: the request is POSTed as JSON and the body of a 2xx answer is the reply.
//! Connection failures, timeouts, 429 and 5xx are retried with a doubling pause; anything else,
//! or a body that is not a reply, is final and says what came back. Redirects off the
//! evaluator's origin are not followed and an answer over 1 MiB is refused
//! ([`crate::outbound`]).

use super::{Evaluator, EvaluatorReply, EvaluatorRequest, HttpTarget};
use crate::agent::mcp::config::resolve_value_of;
use crate::outbound::{read_capped, EVALUATOR_BODY_CAP};
use futures::future::BoxFuture;
use futures::FutureExt;
use std::time::Duration;

pub struct HttpEvaluator {
    client: reqwest::Client,
    target: HttpTarget,
    retry_pause: Duration,
}

/// The pause before the first retry; it doubles after each.
const RETRY_PAUSE: Duration = Duration::from_millis(500);
/// How much of an answer an error quotes.
const QUOTED_CHARS: usize = 200;

impl HttpEvaluator {
    /// `client` should be [`crate::outbound::client`]'s, which keeps redirects on the origin.
    pub fn new(client: reqwest::Client, target: HttpTarget) -> HttpEvaluator {
        HttpEvaluator {
            client,
            target,
            retry_pause: RETRY_PAUSE,
        }
    }

    /// Retries without pausing, for tests.
    pub fn without_retry_pause(mut self) -> HttpEvaluator {
        self.retry_pause = Duration::ZERO;
        self
    }

    async fn call(&self, request: &EvaluatorRequest) -> Result<EvaluatorReply, String> {
        // The reason is stored with the run, which every viewer reads: the URL without what may
        // be a secret in it (userinfo, query, fragment).
        let url = crate::redact::redacted_url(&self.target.url);
        let headers = self.headers(&format!("the evaluator at {url}"))?;
        let mut attempt = 0;
        loop {
            let (message, retryable) = match self.attempt(request, &headers).await {
                Ok(reply) => return Ok(reply),
                Err(failure) => failure,
            };
            if !retryable || attempt >= self.target.retries {
                let tries = if attempt > 0 {
                    format!(" (gave up after {} attempts)", attempt + 1)
                } else {
                    String::new()
                };
                return Err(format!("the evaluator at {url} {message}{tries}"));
            }
            tokio::time::sleep(self.retry_pause * 2u32.pow(attempt.min(10))).await;
            attempt += 1;
        }
    }

    /// The configured headers, each `env:NAME` read now; an error names `owner`.
    fn headers(&self, owner: &str) -> Result<Vec<(String, String)>, String> {
        let lookup = |var: &str| std::env::var(var).ok();
        (self.target.headers.0.iter())
            .map(|(name, value)| {
                Ok((
                    name.clone(),
                    resolve_value_of(owner, "headers", name, value, lookup)?,
                ))
            })
            .collect()
    }

    /// One request: the reply, or what went wrong and whether another try may help.
    async fn attempt(
        &self,
        request: &EvaluatorRequest,
        headers: &[(String, String)],
    ) -> Result<EvaluatorReply, (String, bool)> {
        let timeout = self.target.timeout;
        let mut sent = self.client.post(&self.target.url).json(request);
        for (name, value) in headers {
            sent = sent.header(name, value);
        }
        let response = match tokio::time::timeout(timeout, sent.send()).await {
            Err(_) => return Err((format!("did not answer within {timeout:?}"), true)),
            // The error names the URL: the caller names it, redacted.
            Ok(Err(error)) => return Err((format!("could not be reached: {}", error.without_url()), true)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_redirection() {
            return Err((
                format!("answered {status}, a redirect off its own address, which is not followed"),
                false,
            ));
        }
        let body = match tokio::time::timeout(timeout, read_capped(response, EVALUATOR_BODY_CAP)).await {
            Ok(Ok(body)) => body,
            Ok(Err(failure)) => return Err((failure.to_string(), !failure.is_too_large())),
            Err(_) => return Err((format!("did not finish its answer within {timeout:?}"), true)),
        };
        if !status.is_success() {
            let retryable = status.as_u16() == 429 || status.is_server_error();
            let excerpt: String = body.trim().chars().take(QUOTED_CHARS).collect();
            return Err((format!("answered {status}: {excerpt}"), retryable));
        }
        EvaluatorReply::parse(&body).map_err(|problem| (format!("answered, but {problem}"), false))
    }
}

impl Evaluator for HttpEvaluator {
    fn evaluate<'a>(
        &'a self,
        request: &'a EvaluatorRequest,
    ) -> BoxFuture<'a, Result<EvaluatorReply, String>> {
        self.call(request).boxed()
    }
}

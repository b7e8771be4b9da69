//! One chat-completions endpoint as the agent and the judge call it: a POST with a timeout,
//! errors that name the URL, the model and the key's variable (never the key), and retries with
//! backoff after 429, 5xx and connection failures.

use std::time::Duration;

use futures::Future;
use serde_json::Value;

use super::auth::scrub;
use super::error_text::{causes, fmt_duration, server_message};
use super::retry::{backoff, next_salt, retry_after};
use crate::outbound::{read_capped, ReadFailure};
use crate::redact::redacted_url;

/// Where and how a model is called.
pub(crate) struct Endpoint<'a> {
    pub client: &'a reqwest::Client,
    /// `{base_url}/chat/completions`.
    pub url: String,
    pub model: &'a str,
    pub api_key_env: Option<&'a str>,
    /// Limit on waiting for the response headers, and on each wait while reading the answer.
    pub request_timeout: Duration,
    /// The setting that sets `request_timeout`, named in timeout errors.
    pub timeout_setting: &'static str,
    pub max_retries: u32,
    pub retry_base_delay: Duration,
    /// The most an answer may hold ([`crate::outbound`]'s caps).
    pub body_cap: usize,
}

impl Endpoint<'_> {
    /// Posts `body` and reads a successful response with `read`; retries what can be retried.
    pub(crate) async fn call<T, Read, Reading>(
        &self,
        key: Option<&str>,
        body: &Value,
        read: Read,
    ) -> Result<T, String>
    where
        Read: Fn(reqwest::Response) -> Reading,
        Reading: Future<Output = Result<T, Failure>>,
    {
        self.call_typed(key, body, read).await.map_err(|f| f.message)
    }

    /// As [`Endpoint::call`], saying also whether the server refused the request as invalid
    /// (a 400 or 422), which a caller may answer by leaving out an optional field.
    pub(crate) async fn call_typed<T, Read, Reading>(
        &self,
        key: Option<&str>,
        body: &Value,
        read: Read,
    ) -> Result<T, CallFailure>
    where
        Read: Fn(reqwest::Response) -> Reading,
        Reading: Future<Output = Result<T, Failure>>,
    {
        let mut attempt = 0;
        loop {
            let result = match self.send(body, key).await {
                Ok(response) => read(response).await,
                Err(failure) => Err(failure),
            };
            let failure = match result {
                Ok(answer) => return Ok(answer),
                Err(failure) => failure,
            };
            let message = scrub(&failure.message, key);
            if !failure.retryable || attempt >= self.max_retries {
                let message = if attempt > 0 {
                    format!("{message} (gave up after {} attempts)", attempt + 1)
                } else {
                    message
                };
                return Err(CallFailure {
                    message,
                    refused: failure.refused,
                });
            }
            let delay = failure
                .retry_after
                .unwrap_or_else(|| backoff(self.retry_base_delay, attempt, next_salt()));
            tracing::warn!(
                "{message}; retrying in {} ms (retry {} of {})",
                delay.as_millis(),
                attempt + 1,
                self.max_retries
            );
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// The whole body of a non-streamed answer, read under the request timeout and the cap.
    /// Nothing of it was used yet when reading fails, so asking again is safe.
    pub(crate) async fn read_text(&self, response: reqwest::Response) -> Result<String, Failure> {
        let (url, timeout) = (self.shown_url(), self.request_timeout);
        match tokio::time::timeout(timeout, read_capped(response, self.body_cap)).await {
            Err(_) => Err(Failure::fatal(format!(
                "the answer from {url} stalled: it did not arrive within {} ({})",
                fmt_duration(timeout),
                self.timeout_setting
            ))),
            Ok(Err(ReadFailure::Broke(e))) => Err(Failure::retry(
                format!(
                    "the connection to {url} broke while the answer arrived: {}",
                    causes(&e)
                ),
                None,
            )),
            Ok(Err(too_large)) => Err(Failure::fatal(format!("the server at {url} {too_large}"))),
            Ok(Ok(text)) => Ok(text),
        }
    }

    /// The URL as messages name it: no credentials or query, which a page may show anyone.
    fn shown_url(&self) -> String {
        redacted_url(&self.url)
    }

    /// One request; the response if its status is a success.
    async fn send(&self, body: &Value, key: Option<&str>) -> Result<reqwest::Response, Failure> {
        let (url, timeout) = (self.shown_url(), self.request_timeout);
        let mut request = self.client.post(&self.url).json(body);
        if let Some(key) = key {
            request = request.bearer_auth(key);
        }
        let response = match tokio::time::timeout(timeout, request.send()).await {
            Err(_) => {
                return Err(Failure::fatal(format!(
                    "the model server at {url} did not answer within {} ({})",
                    fmt_duration(timeout),
                    self.timeout_setting
                )))
            }
            Ok(Err(e)) => return Err(send_failure(&url, &e)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry_after(response.headers());
        let text = match tokio::time::timeout(timeout, read_capped(response, self.body_cap)).await {
            Ok(Ok(text)) => text,
            _ => String::new(),
        };
        Err(self.status_failure(status, &text, retry_after))
    }

    fn status_failure(
        &self,
        status: reqwest::StatusCode,
        body: &str,
        retry_after: Option<Duration>,
    ) -> Failure {
        let (url, model) = (self.shown_url(), self.model);
        let detail = server_message(body);
        let detail = if detail.is_empty() {
            String::new()
        } else {
            format!(": {detail}")
        };
        match status.as_u16() {
            // The body is left out: some servers echo part of the key they rejected.
            401 => Failure::fatal(match self.api_key_env {
                Some(var) => format!(
                    "the model server at {url} rejected the API key ({status}); check the API key in ${var}"
                ),
                None => format!(
                    "the model server at {url} requires an API key ({status}); set api_key_env to the \
                     name of the environment variable that holds it"
                ),
            }),
            403 => Failure::fatal(format!(
                "the model server at {url} refused the request ({status}); check that the API key{} \
                 may use model \"{model}\"{detail}",
                self.api_key_env.map(|v| format!(" in ${v}")).unwrap_or_default()
            )),
            404 => Failure::fatal(format!(
                "model \"{model}\" or the endpoint {url} was not found ({status}); check the model name \
                 and base_url{detail}"
            )),
            429 => Failure::retry(
                format!("the model server at {url} is rate limiting requests ({status}){detail}"),
                retry_after,
            ),
            code if code >= 500 => Failure::retry(
                format!("the model server at {url} failed ({status}){detail}"),
                retry_after,
            ),
            code => Failure {
                refused: code == 400 || code == 422,
                ..Failure::fatal(format!(
                    "the model server at {url} rejected the request for model \"{model}\" ({status}){detail}"
                ))
            },
        }
    }
}

/// Why a call failed in the end.
#[derive(Debug)]
pub(crate) struct CallFailure {
    pub message: String,
    /// The server refused the request as invalid (400, 422).
    pub refused: bool,
}

/// Why an attempt failed, and whether another one may succeed.
pub(crate) struct Failure {
    message: String,
    retryable: bool,
    retry_after: Option<Duration>,
    /// A 400 or 422: the request itself was refused.
    refused: bool,
}

impl Failure {
    pub(crate) fn fatal(message: String) -> Self {
        Self {
            message,
            retryable: false,
            retry_after: None,
            refused: false,
        }
    }

    pub(crate) fn retry(message: String, retry_after: Option<Duration>) -> Self {
        Self {
            message,
            retryable: true,
            retry_after,
            refused: false,
        }
    }
}

/// A request that got no response at all.
fn send_failure(url: &str, e: &reqwest::Error) -> Failure {
    if e.is_builder() {
        return Failure::fatal(format!("cannot send a request to {url}: {}", causes(e)));
    }
    if e.is_connect() {
        return Failure::retry(
            format!("could not connect to the model server at {url}: {}", causes(e)),
            None,
        );
    }
    Failure::retry(format!("the request to {url} failed: {}", causes(e)), None)
}

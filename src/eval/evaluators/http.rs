//! An HTTP evaluator: the request is POSTed as JSON and the body of a 2xx answer is the reply.
//! Connection failures, timeouts, 429 and 5xx are retried with a doubling pause; anything else,
//! or a body that is not a reply, is final and says what came back.

use super::{Evaluator, EvaluatorReply, EvaluatorRequest, HttpTarget};
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

impl HttpEvaluator {
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
        let url = &self.target.url;
        let mut attempt = 0;
        loop {
            let (message, retryable) = match self.attempt(request).await {
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

    /// One request: the reply, or what went wrong and whether another try may help.
    async fn attempt(&self, request: &EvaluatorRequest) -> Result<EvaluatorReply, (String, bool)> {
        let timeout = self.target.timeout;
        let sent = self.client.post(&self.target.url).json(request).send();
        let response = match tokio::time::timeout(timeout, sent).await {
            Err(_) => return Err((format!("did not answer within {timeout:?}"), true)),
            Ok(Err(error)) => return Err((format!("could not be reached: {error}"), true)),
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        let body = match tokio::time::timeout(timeout, response.text()).await {
            Ok(Ok(body)) => body,
            Ok(Err(error)) => return Err((format!("broke off its answer: {error}"), true)),
            Err(_) => return Err((format!("did not finish its answer within {timeout:?}"), true)),
        };
        if !status.is_success() {
            let retryable = status.as_u16() == 429 || status.is_server_error();
            let excerpt: String = body.trim().chars().take(200).collect();
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

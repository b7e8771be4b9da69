//! Judge metrics against a scripted in-memory judge: prompts, reply reading (ADK's parsers
//! checked against google-adk's own outputs), sample votes, evidence and config errors.

use super::*;
use crate::eval::services::JudgeRequest;
use crate::evalset::RubricContent;
use futures::executor::block_on;
use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::Value;
use std::sync::Mutex;

mod config;
mod evidence;
mod g_eval;
mod prompts;
mod rag;
mod replies;
mod votes;

/// Answers each prompt with `answer(prompt)` and records the requests.
pub(super) struct ScriptedJudge<F> {
    answer: F,
    requests: Mutex<Vec<(String, Option<String>)>>,
}

impl<F: Fn(&str) -> Result<String, String> + Send + Sync> ScriptedJudge<F> {
    pub(super) fn new(answer: F) -> Self {
        ScriptedJudge {
            answer,
            requests: Mutex::new(Vec::new()),
        }
    }

    pub(super) fn prompts(&self) -> Vec<String> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }
}

impl<F: Fn(&str) -> Result<String, String> + Send + Sync> Judge for ScriptedJudge<F> {
    fn complete<'a>(&'a self, request: JudgeRequest<'a>) -> BoxFuture<'a, Result<String, String>> {
        self.requests
            .lock()
            .unwrap()
            .push((request.prompt.to_string(), request.model.map(str::to_string)));
        let reply = (self.answer)(request.prompt);
        async move { reply }.boxed()
    }
}

/// A judge that gives `replies` in turn, one per request.
pub(super) fn replies_in_turn(
    replies: &[&str],
) -> ScriptedJudge<impl Fn(&str) -> Result<String, String> + Send + Sync> {
    let queue: Mutex<Vec<String>> = Mutex::new(replies.iter().rev().map(|r| r.to_string()).collect());
    ScriptedJudge::new(move |_| Ok(queue.lock().unwrap().pop().expect("the script ran out")))
}

pub(super) fn metric(name: &str, criterion: Value) -> JudgeMetric {
    let Value::Object(criterion) = criterion else {
        panic!("criterion must be an object")
    };
    parse_judge_metric(name, &criterion, &format!("criteria.{name}"))
        .unwrap()
        .unwrap()
}

fn config_error(name: &str, criterion: Value) -> String {
    let Value::Object(criterion) = criterion else {
        panic!("criterion must be an object")
    };
    parse_judge_metric(name, &criterion, &format!("criteria.{name}")).unwrap_err()
}

fn input() -> JudgeInput {
    JudgeInput {
        query: "What's the weather in Paris?".into(),
        response: "It is sunny in Paris, 25 °C.".into(),
        reference: Some("Sunny, 25 degrees.".into()),
        context: vec![
            "get_weather: {\"temp_c\":25,\"sky\":\"sunny\"}".into(),
            "get_news: {\"headline\":\"Bridge opens\"}".into(),
        ],
        ..JudgeInput::default()
    }
}

fn evaluate(metric: &JudgeMetric, input: &JudgeInput, judge: &dyn Judge) -> InvocationScore {
    block_on(evaluate_judge_metric(metric, input, judge))
}

/// Evidence as results store it.
fn stored(evidence: Option<Evidence>) -> Value {
    serde_json::to_value(evidence.expect("evidence")).unwrap()
}

fn rubric(id: &str, text: &str) -> Rubric {
    Rubric {
        rubric_id: id.into(),
        rubric_content: RubricContent {
            text_property: Some(text.into()),
            ..RubricContent::default()
        },
        ..Rubric::default()
    }
}

fn rubric_reply(verdicts: &[(&str, &str, &str)]) -> String {
    verdicts
        .iter()
        .map(|(id, property, verdict)| {
            format!("ID: {id}\nProperty: {property}\nEvidence: e\nRationale: because {verdict}\nVerdict: {verdict}\n")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

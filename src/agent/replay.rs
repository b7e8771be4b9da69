//! Tool replay in evals: a turn's calls answered with the results the case recorded instead of
//! running the tools, so a re-run neither books the flight twice nor sees today's answers. A call
//! takes the first unused recorded call of its turn with the same name and arguments equal as
//! the trajectory metric compares them; a call with no match runs, or gets an error saying there
//! is no recorded result, as the run asked.

use std::sync::Mutex;

use pure_metrics::trajectory::args_equal;
use serde_json::{Map, Value};

use super::{ReplayMiss, ToolSource};
use crate::evalset::Invocation;

/// A recorded call and its result.
#[derive(Debug, Clone, PartialEq)]
struct RecordedCall {
    name: String,
    args: Map<String, Value>,
    response: Map<String, Value>,
}

/// One expected turn's recorded calls, each answering at most one call.
#[derive(Debug)]
pub struct ReplayTable {
    calls: Vec<RecordedCall>,
    used: Mutex<Vec<bool>>,
    miss: ReplayMiss,
    /// Calls the turn recorded without a result (an imported file with tool_uses only).
    unanswered: usize,
}

/// A call's answer under replay: the recorded result, or what to do instead.
#[derive(Debug, Clone, PartialEq)]
pub enum Replayed {
    Recorded(Map<String, Value>),
    /// No recorded match: run the tool.
    RunLive,
    /// No recorded match: answer with this error message.
    Missing(String),
}

impl ReplayTable {
    /// The calls `expected` recorded with their results. A result pairs with its call by id
    /// when both have one, else the n-th result of a name with the n-th call of that name.
    pub fn from_invocation(expected: &Invocation, miss: ReplayMiss) -> ReplayTable {
        let data = expected.intermediate_data.clone().unwrap_or_default();
        let calls = data.tool_calls();
        let responses = data.tool_responses();
        let mut taken = vec![false; responses.len()];
        let mut recorded = Vec::new();
        for call in &calls {
            let name = call.name.clone().unwrap_or_default();
            let by_id = call.id.as_deref().and_then(|id| {
                responses
                    .iter()
                    .enumerate()
                    .position(|(i, r)| !taken[i] && r.id.as_deref() == Some(id))
            });
            let by_order = || {
                responses
                    .iter()
                    .enumerate()
                    .position(|(i, r)| !taken[i] && r.name.as_deref() == Some(name.as_str()))
            };
            if let Some(index) = by_id.or_else(by_order) {
                taken[index] = true;
                recorded.push(RecordedCall {
                    name,
                    args: call.args.clone().unwrap_or_default(),
                    response: responses[index].response.clone().unwrap_or_default(),
                });
            }
        }
        let unanswered = calls.len() - recorded.len();
        ReplayTable {
            used: Mutex::new(vec![false; recorded.len()]),
            calls: recorded,
            miss,
            unanswered,
        }
    }

    /// How many of the turn's recorded calls have no recorded result.
    pub fn unanswered(&self) -> usize {
        self.unanswered
    }

    /// The answer to a call of `name` with `args`.
    pub fn answer(&self, name: &str, args: &Map<String, Value>) -> Replayed {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        let found =
            self.calls.iter().enumerate().position(|(i, call)| {
                !used[i] && call.name == name && args_equal(Some(&call.args), Some(args))
            });
        match (found, self.miss) {
            (Some(index), _) => {
                used[index] = true;
                Replayed::Recorded(self.calls[index].response.clone())
            }
            (None, ReplayMiss::Live) => Replayed::RunLive,
            (None, ReplayMiss::Error) => Replayed::Missing(format!(
                "no recorded result for {name} {}",
                Value::Object(args.clone())
            )),
        }
    }
}

impl Replayed {
    /// Where the result of a call so answered comes from.
    pub fn source(&self) -> ToolSource {
        match self {
            Replayed::Recorded(_) => ToolSource::Replayed,
            Replayed::RunLive => ToolSource::Live,
            Replayed::Missing(_) => ToolSource::Unrecorded,
        }
    }
}

/// A call's result: `live` run, or under replay the recorded result (or the missing one's
/// error), with how long it took and where it came from.
pub(crate) async fn answer_call(
    replay: Option<&ReplayTable>,
    name: &str,
    args: &Map<String, Value>,
    live: impl std::future::Future<Output = Result<Map<String, Value>, String>>,
) -> (Result<Map<String, Value>, String>, u64, ToolSource) {
    let replayed = replay.map_or(Replayed::RunLive, |table| table.answer(name, args));
    let source = replayed.source();
    match replayed {
        Replayed::Recorded(response) => (Ok(response), 0, source),
        Replayed::Missing(message) => (Err(message), 0, source),
        Replayed::RunLive => {
            let started = std::time::Instant::now();
            let result = live.await;
            (result, started.elapsed().as_millis() as u64, source)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn turn(data: Value) -> Invocation {
        serde_json::from_value(json!({"invocation_id": "i", "user_content": {"role": "user", "parts": [{"text": "hi"}]}, "intermediate_data": data})).unwrap()
    }

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_call_takes_the_first_unused_recorded_match() {
        let expected = turn(json!({
            "tool_uses": [
                {"id": "a", "name": "count", "args": {"by": 1}},
                {"id": "b", "name": "count", "args": {"by": 1.0}}
            ],
            "tool_responses": [
                {"id": "b", "name": "count", "response": {"n": 2}},
                {"id": "a", "name": "count", "response": {"n": 1}}
            ]
        }));
        let table = ReplayTable::from_invocation(&expected, ReplayMiss::Error);
        assert_eq!(table.unanswered(), 0);
        let by_one = args(json!({"by": 1}));
        assert_eq!(
            table.answer("count", &by_one),
            Replayed::Recorded(args(json!({"n": 1})))
        );
        assert_eq!(
            table.answer("count", &by_one),
            Replayed::Recorded(args(json!({"n": 2})))
        );
        let third = table.answer("count", &by_one);
        assert_eq!(third.source(), ToolSource::Unrecorded);
        assert_eq!(
            third,
            Replayed::Missing("no recorded result for count {\"by\":1}".into())
        );
    }

    #[test]
    fn results_pair_by_name_and_order_without_ids_and_misses_can_run_live() {
        let expected = turn(json!({
            "tool_uses": [{"name": "f", "args": {}}, {"name": "g", "args": {"x": "1"}}, {"name": "h", "args": {}}],
            "tool_responses": [{"name": "g", "response": {"g": true}}, {"name": "f", "response": {"f": true}}]
        }));
        let table = ReplayTable::from_invocation(&expected, ReplayMiss::Live);
        assert_eq!(table.unanswered(), 1, "h has no recorded result");
        assert_eq!(
            table.answer("g", &args(json!({"x": "1"}))),
            Replayed::Recorded(args(json!({"g": true})))
        );
        assert_eq!(table.answer("g", &args(json!({"x": "2"}))), Replayed::RunLive);
        assert_eq!(table.answer("f", &Map::new()).source(), ToolSource::Replayed);
    }
}

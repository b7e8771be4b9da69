//! A case's stored run as the results table shows it when the case is opened: its ADK result
//! deserialised into the typed `EvalCaseResult`.

use crate::eval::result::EvalCaseResult;
use crate::records::runs::EvalRunCase;
use serde::Deserialize;

/// One stored run of a case.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CaseRun {
    pub run_index: i64,
    /// Why the agent could not finish the case, if it could not.
    pub error: Option<String>,
    /// The scored result, or why the stored one could not be read.
    pub result: Result<EvalCaseResult, String>,
}

impl From<&EvalRunCase> for CaseRun {
    fn from(stored: &EvalRunCase) -> Self {
        CaseRun {
            run_index: stored.run_index,
            error: stored.error.clone(),
            result: EvalCaseResult::deserialize(&stored.result)
                .map_err(|err| format!("The stored result of this run could not be read: {err}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::evidence::Evidence;
    use crate::eval::judge::{JudgeEvidence, Sample, Verdict, Votes, YesNo};
    use crate::eval::result::{
        EvalMetricResult, EvalMetricResultDetails, EvalMetricResultPerInvocation, EvalStatus,
    };
    use crate::evalset::{Content, Invocation};
    use serde_json::{json, Value};

    fn scored(eval_id: &str) -> EvalCaseResult {
        EvalCaseResult {
            eval_set_file: Some("set".into()),
            eval_set_id: "set".into(),
            eval_id: eval_id.into(),
            final_eval_status: EvalStatus::Passed,
            eval_metric_results: None,
            overall_eval_metric_results: Vec::new(),
            eval_metric_result_per_invocation: vec![EvalMetricResultPerInvocation {
                actual_invocation: Invocation {
                    user_content: Content::text("user", "Where is my order?"),
                    final_response: Some(Content::text("model", "It has shipped.")),
                    ..Invocation::default()
                },
                expected_invocation: None,
                eval_metric_results: vec![EvalMetricResult {
                    metric_name: "polite".into(),
                    threshold: Some(1.0),
                    criterion: None,
                    custom_function_path: None,
                    score: Some(1.0),
                    eval_status: EvalStatus::Passed,
                    details: EvalMetricResultDetails::with_evidence(
                        None,
                        Some(Evidence::Judge(polite_yes())),
                    ),
                }],
            }],
            session_id: "s1".into(),
            session_details: None,
            user_id: None,
            error: None,
            tool_sources: Vec::new(),
        }
    }

    fn polite_yes() -> JudgeEvidence {
        JudgeEvidence {
            samples: Some(vec![Sample::Verdict {
                reply: "YES".into(),
                verdict: Verdict::YesNo(YesNo::Yes),
            }]),
            votes: Some(Votes {
                yes: 1,
                no: 0,
                unread: 0,
            }),
            ..JudgeEvidence::default()
        }
    }

    fn stored(run_index: i64, eval_id: &str, result: Value) -> EvalRunCase {
        EvalRunCase {
            run_index,
            case_index: 0,
            eval_id: eval_id.into(),
            status: crate::eval::result::EvalStatus::Passed,
            error: None,
            metric_scores: Vec::new(),
            result,
        }
    }

    #[test]
    fn a_stored_result_reads_back_as_the_typed_result() {
        let result = scored("order");
        let run = CaseRun::from(&stored(0, "order", serde_json::to_value(&result).unwrap()));
        assert_eq!(run.result, Ok(result));
    }

    #[test]
    fn an_unreadable_result_is_a_message_not_a_panic() {
        for bad in [Value::Null, json!({"eval_id": 3}), json!([])] {
            let message = CaseRun::from(&stored(0, "order", bad)).result.unwrap_err();
            assert!(
                message.starts_with("The stored result of this run could not be read"),
                "{message}"
            );
        }
    }
}

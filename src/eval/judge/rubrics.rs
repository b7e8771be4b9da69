//! ADK's rubric-based judging: the rubrics that apply to an invocation, the list the prompt
//! shows, and the judge's verdicts per rubric, majority over samples (`RubricBasedEvaluator`).

use super::asking::{with_evidence, Asker};
use super::evidence::{JudgeEvidence, RubricOutcome, RubricScores, Sample, Votes};
use super::parse::{self, RubricVerdict};
use crate::eval::services::InvocationScore;
use crate::evalset::Rubric;
use serde_json::Value;

/// The rubrics ADK uses for an invocation: the criterion's, then the invocation's of the
/// metric's type (an id twice is an error unless both are the same rubric).
pub(super) fn effective_rubrics(
    criterion: &[Rubric],
    invocation: &[Rubric],
    rubric_type: &str,
) -> Result<Vec<Rubric>, String> {
    let of_type = invocation
        .iter()
        .filter(|r| r.extra.get("type").and_then(Value::as_str) == Some(rubric_type));
    let mut rubrics: Vec<Rubric> = Vec::new();
    for rubric in criterion.iter().chain(of_type) {
        match rubrics.iter().find(|r| r.rubric_id == rubric.rubric_id) {
            Some(existing) if existing == rubric => {}
            Some(_) => {
                return Err(format!(
                    "two different rubrics have the rubric_id `{}`",
                    rubric.rubric_id
                ))
            }
            None => rubrics.push(rubric.clone()),
        }
    }
    if rubrics.is_empty() {
        return Err(format!(
            "there are no rubrics: give the criterion `rubrics`, or rubrics of type {rubric_type} to the eval case or its invocations"
        ));
    }
    Ok(rubrics)
}

pub(super) fn rubric_text(rubric: &Rubric) -> &str {
    rubric.rubric_content.text_property.as_deref().unwrap_or("None")
}

/// The rubrics as ADK's single-turn prompts list them.
pub(super) fn rubric_list(rubrics: &[Rubric]) -> String {
    rubrics
        .iter()
        .map(|r| format!("*  [id: {}] {}", r.rubric_id, rubric_text(r)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// ADK's `RubricBasedEvaluator`: `samples` replies to the prompt, each read into a verdict per
/// rubric, the majority per rubric (a tie goes to no), the mean over rubrics.
pub(super) async fn rubric_verdicts(
    asker: &Asker<'_>,
    rubrics: &[Rubric],
    prompt: &str,
    samples: usize,
) -> InvocationScore {
    let replies = match asker.samples(prompt, samples).await {
        Ok(replies) => replies,
        Err(failed) => return failed,
    };
    // Per rubric id, in the order first seen: its verdicts over all samples.
    let mut votes: Vec<(String, Vec<RubricVerdict>)> = Vec::new();
    let read_samples = replies
        .iter()
        .map(|reply| {
            let matched = match_rubrics(&parse::rubric_verdicts(reply), rubrics);
            let mut rubric_scores = RubricScores::default();
            for (rubric_id, verdict) in &matched {
                match votes.iter_mut().find(|(id, _)| id == rubric_id) {
                    Some((_, list)) => list.push(verdict.clone()),
                    None => votes.push((rubric_id.clone(), vec![verdict.clone()])),
                }
                rubric_scores.insert(rubric_id, verdict.score);
            }
            Sample::RubricScores {
                reply: reply.clone(),
                rubric_scores,
            }
        })
        .collect();
    let outcomes: Vec<RubricOutcome> = votes
        .iter()
        .map(|(rubric_id, verdicts)| {
            let positives: Vec<&RubricVerdict> = verdicts.iter().filter(|v| v.score == Some(1.0)).collect();
            let negatives: Vec<&RubricVerdict> = verdicts
                .iter()
                .filter(|v| v.score.is_some_and(|s| s != 1.0))
                .collect();
            // ADK's MajorityVotePerInvocationResultsAggregator: a tie goes to the negatives.
            let chosen = if positives.is_empty() && negatives.is_empty() {
                &verdicts[0]
            } else if positives.len() > negatives.len() {
                positives[0]
            } else {
                negatives[0]
            };
            let text = rubrics
                .iter()
                .find(|r| &r.rubric_id == rubric_id)
                .map(rubric_text)
                .unwrap_or_default();
            RubricOutcome {
                rubric_id: rubric_id.clone(),
                text: text.to_string(),
                score: chosen.score,
                rationale: chosen.rationale.clone(),
                votes: Votes {
                    yes: positives.len(),
                    no: negatives.len(),
                    unread: verdicts.len() - positives.len() - negatives.len(),
                },
            }
        })
        .collect();
    let scores: Vec<f64> = outcomes.iter().filter_map(|r| r.score).collect();
    let score = if scores.is_empty() {
        InvocationScore::not_evaluated(
            "the judge's replies gave no readable verdict on any rubric (expected ID/Property/Rationale/Verdict blocks)",
        )
    } else {
        InvocationScore::scored(scores.iter().sum::<f64>() / scores.len() as f64)
    };
    with_evidence(
        score,
        JudgeEvidence {
            rubrics: Some(outcomes),
            samples: Some(read_samples),
            ..JudgeEvidence::default()
        },
    )
}

/// Each verdict with the id of the rubric it is about: by the id the judge copied, else by the
/// property's text (ADK's `convert_auto_rater_response_to_score`). Verdicts on properties that
/// are not rubrics are dropped.
fn match_rubrics(verdicts: &[RubricVerdict], rubrics: &[Rubric]) -> Vec<(String, RubricVerdict)> {
    verdicts
        .iter()
        .filter_map(|verdict| {
            let by_id = verdict
                .rubric_id
                .as_ref()
                .and_then(|id| rubrics.iter().find(|r| &r.rubric_id == id));
            let rubric = by_id.or_else(|| {
                let property = parse::normalize_property(&verdict.property);
                rubrics
                    .iter()
                    .rev()
                    .find(|r| parse::normalize_property(rubric_text(r)) == property)
            })?;
            Some((rubric.rubric_id.clone(), verdict.clone()))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// RAG metrics

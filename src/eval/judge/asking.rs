//! Asking the judge: `samples` replies to a prompt, at most `parallelism_limit` at a time,
//! read into votes (yes/no, majority wins) or averaged scores, each sample kept as evidence.

use super::evidence::{JudgeEvidence, Sample, Verdict, Votes, YesNo};
use super::{parse, ReplyKind};
use crate::eval::evidence::Evidence;
use crate::eval::services::{InvocationScore, Judge, JudgeRequest};
use futures::stream::{self, StreamExt};

/// Why an invocation is NOT_EVALUATED when `num_samples` is 0.
const NO_SAMPLES: &str = "num_samples is 0, so the judge was not asked";

/// `samples` replies to `prompt` of the `reply` kind: yes/no voted, scores (in `range`)
/// averaged.
pub(super) async fn ask(
    asker: &Asker<'_>,
    prompt: &str,
    samples: usize,
    reply: ReplyKind,
    range: (f64, f64),
) -> InvocationScore {
    match reply {
        ReplyKind::YesNo => voted(asker, prompt, samples, yes_no).await,
        ReplyKind::ScoreJson => averaged(asker, prompt, samples, range).await,
    }
}

/// A yes/no reply read into its vote and verdict.
pub(super) fn yes_no(reply: &str) -> Result<(bool, Verdict), String> {
    parse::yes_no(reply).map(|yes| (yes, Verdict::YesNo(if yes { YesNo::Yes } else { YesNo::No })))
}

/// The judge and how to ask it.
pub(super) struct Asker<'a> {
    pub(super) judge: &'a dyn Judge,
    pub(super) model: Option<&'a str>,
    pub(super) parallelism_limit: Option<usize>,
}

impl Asker<'_> {
    /// One reply per prompt, in order, at most `parallelism_limit` requests at a time.
    pub(super) async fn ask_all(&self, prompts: Vec<&str>) -> Vec<Result<String, String>> {
        let limit = self.parallelism_limit.unwrap_or(prompts.len()).max(1);
        // Requests made up front: a lazily mapped stream here makes callers' futures not
        // provably Send.
        let requests: Vec<_> = prompts
            .into_iter()
            .map(|prompt| {
                self.judge.complete(JudgeRequest {
                    prompt,
                    model: self.model,
                })
            })
            .collect();
        stream::iter(requests).buffered(limit).collect().await
    }

    /// `samples` replies to one prompt; Err if any request failed (ADK: a failed sample makes
    /// the invocation NOT_EVALUATED), with what the judge answered as evidence.
    pub(super) async fn samples(&self, prompt: &str, samples: usize) -> Result<Vec<String>, InvocationScore> {
        let replies = self.ask_all(vec![prompt; samples]).await;
        if let Some(error) = replies.iter().find_map(|r| r.as_ref().err()) {
            let samples = replies
                .iter()
                .map(|reply| match reply {
                    Ok(reply) => Sample::Unjudged { reply: reply.clone() },
                    Err(error) => Sample::Failed { error: error.clone() },
                })
                .collect();
            return Err(with_evidence(
                InvocationScore::not_evaluated(format!("the judge failed: {error}")),
                JudgeEvidence {
                    samples: Some(samples),
                    ..JudgeEvidence::default()
                },
            ));
        }
        Ok(replies.into_iter().flatten().collect())
    }
}

pub(super) fn with_evidence(mut score: InvocationScore, evidence: JudgeEvidence) -> InvocationScore {
    score.evidence = Some(Evidence::Judge(evidence));
    score
}

/// Each reply as the sample `read` makes of it, or as unread with why; and the first such why.
fn read_all(
    replies: &[String],
    mut read: impl FnMut(&str) -> Result<Sample, String>,
) -> (Vec<Sample>, Option<String>) {
    let mut first_problem = None;
    let samples = replies
        .iter()
        .map(|reply| {
            read(reply).unwrap_or_else(|problem| {
                first_problem.get_or_insert_with(|| problem.clone());
                Sample::Unread {
                    reply: reply.clone(),
                    problem,
                }
            })
        })
        .collect();
    (samples, first_problem)
}

/// Majority vote over samples of a yes/no kind of reply: 1.0 when more samples say yes than
/// no, else 0.0 (a tie is a no, as ADK's `final_response_match_v2`). Replies that cannot be
/// read do not vote; with none readable the invocation is NOT_EVALUATED.
pub(super) async fn voted(
    asker: &Asker<'_>,
    prompt: &str,
    samples: usize,
    read: impl Fn(&str) -> Result<(bool, Verdict), String>,
) -> InvocationScore {
    let replies = match asker.samples(prompt, samples).await {
        Ok(replies) => replies,
        Err(failed) => return failed,
    };
    let (mut yes, mut no) = (0, 0);
    let (read_samples, first_problem) = read_all(&replies, |reply| {
        let (passes, verdict) = read(reply)?;
        if passes {
            yes += 1;
        } else {
            no += 1;
        }
        Ok(Sample::Verdict {
            reply: reply.to_string(),
            verdict,
        })
    });
    let unread = replies.len() - yes - no;
    let evidence = JudgeEvidence {
        samples: Some(read_samples),
        votes: Some(Votes { yes, no, unread }),
        ..JudgeEvidence::default()
    };
    let score = if yes + no == 0 {
        InvocationScore::not_evaluated(first_problem.unwrap_or_else(|| NO_SAMPLES.into()))
    } else {
        InvocationScore::scored(if yes > no { 1.0 } else { 0.0 })
    };
    with_evidence(score, evidence)
}

/// The mean score of the samples' `{score, feedback}` replies that can be read.
pub(super) async fn averaged(
    asker: &Asker<'_>,
    prompt: &str,
    samples: usize,
    range: (f64, f64),
) -> InvocationScore {
    let replies = match asker.samples(prompt, samples).await {
        Ok(replies) => replies,
        Err(failed) => return failed,
    };
    let mut scores = Vec::new();
    let (read_samples, first_problem) = read_all(&replies, |reply| {
        let read = parse::score_json(reply, range)?;
        scores.push(read.score);
        Ok(Sample::Scored {
            reply: reply.to_string(),
            score: read.score,
            feedback: read.feedback,
        })
    });
    let evidence = JudgeEvidence {
        samples: Some(read_samples),
        ..JudgeEvidence::default()
    };
    let score = if scores.is_empty() {
        InvocationScore::not_evaluated(first_problem.unwrap_or_else(|| NO_SAMPLES.into()))
    } else {
        InvocationScore::scored(scores.iter().sum::<f64>() / scores.len() as f64)
    };
    with_evidence(score, evidence)
}

// ---------------------------------------------------------------------------------------------
// ADK rubric_based_final_response_quality_v1

//! The Ragas-style judges over the invocation's context (its tool responses): context
//! precision, and the fraction of a text's statements the context supports (faithfulness,
//! context recall).

use super::asking::{with_evidence, Asker};
use super::template::fill;
use super::{
    context_block, parse, prompts, reference, AnsweredWith, ContextItem, JudgeEvidence, JudgeInput,
    StatementCheck,
};
use crate::eval::services::InvocationScore;

/// Σ_k precision@k · useful_k / #useful over the context items in order; 0 when none is useful.
pub(super) async fn context_precision(asker: &Asker<'_>, input: &JudgeInput) -> InvocationScore {
    if input.context.is_empty() {
        return InvocationScore::not_evaluated("there is no context: the agent called no tools");
    }
    let answer = reference(input).unwrap_or(&input.response);
    let prompts: Vec<String> = input
        .context
        .iter()
        .map(|item| {
            fill(
                prompts::CONTEXT_USEFUL,
                &[("query", &input.query), ("answer", answer), ("item", item)],
            )
        })
        .collect();
    let replies = asker.ask_all(prompts.iter().map(String::as_str).collect()).await;
    let mut verdicts = Vec::with_capacity(replies.len());
    let mut problem = None;
    let items = input
        .context
        .iter()
        .zip(&replies)
        .enumerate()
        .map(|(index, (item, reply))| match reply {
            Err(error) => {
                problem.get_or_insert_with(|| format!("the judge failed: {error}"));
                ContextItem::Failed {
                    context: item.clone(),
                    error: error.clone(),
                }
            }
            Ok(reply) => match parse::yes_no(reply) {
                Ok(useful) => {
                    verdicts.push(useful);
                    ContextItem::Judged {
                        context: item.clone(),
                        useful,
                        reply: reply.clone(),
                    }
                }
                Err(why) => {
                    problem.get_or_insert_with(|| format!("context item {}: {why}", index + 1));
                    ContextItem::Unread {
                        context: item.clone(),
                        reply: reply.clone(),
                        problem: why,
                    }
                }
            },
        })
        .collect();
    let answered_with = if reference(input).is_some() {
        AnsweredWith::Reference
    } else {
        AnsweredWith::Response
    };
    let evidence = JudgeEvidence {
        items: Some(items),
        answer: Some(answered_with),
        ..JudgeEvidence::default()
    };
    if let Some(problem) = problem {
        return with_evidence(InvocationScore::not_evaluated(problem), evidence);
    }
    let mut useful_so_far = 0;
    let mut total = 0.0;
    for (k, useful) in verdicts.iter().enumerate() {
        if *useful {
            useful_so_far += 1;
            total += f64::from(useful_so_far) / (k + 1) as f64;
        }
    }
    let score = if useful_so_far == 0 {
        0.0
    } else {
        total / f64::from(useful_so_far)
    };
    with_evidence(InvocationScore::scored(score), evidence)
}

/// The fraction of `text`'s statements the context supports: the judge lists the statements,
/// then checks each against the context (`faithfulness` with the response, `context_recall`
/// with the reference).
pub(super) async fn supported_fraction(
    asker: &Asker<'_>,
    input: &JudgeInput,
    text: &str,
    what: &str,
) -> InvocationScore {
    let (reply, statements) = match listed_statements(asker, input, text, what).await {
        Ok(listed) => listed,
        Err(not_evaluated) => return not_evaluated,
    };
    // Without context nothing can be supported; the judge need not be asked.
    let replies: Vec<Result<String, String>> = if input.context.is_empty() {
        Vec::new()
    } else {
        let document = context_block(input);
        let checks: Vec<String> = statements
            .iter()
            .map(|claim| {
                fill(
                    prompts::FACT_CHECKING,
                    &[("document", &document), ("claim", claim)],
                )
            })
            .collect();
        asker.ask_all(checks.iter().map(String::as_str).collect()).await
    };
    let (checked, supported, problem) = checked_statements(&statements, &replies);
    let evidence = JudgeEvidence {
        statements_reply: Some(reply),
        statements: Some(checked),
        ..JudgeEvidence::default()
    };
    let score = match problem {
        Some(problem) => InvocationScore::not_evaluated(problem),
        None => InvocationScore::scored(supported as f64 / statements.len() as f64),
    };
    with_evidence(score, evidence)
}

/// The judge's reply listing `text`'s statements and the statements, or why there are none
/// to check.
async fn listed_statements(
    asker: &Asker<'_>,
    input: &JudgeInput,
    text: &str,
    what: &str,
) -> Result<(String, Vec<String>), InvocationScore> {
    let prompt = fill(prompts::STATEMENTS, &[("query", &input.query), ("text", text)]);
    let reply = match asker.ask_all(vec![prompt.as_str()]).await.remove(0) {
        Ok(reply) => reply,
        Err(error) => {
            return Err(InvocationScore::not_evaluated(format!(
                "the judge failed: {error}"
            )))
        }
    };
    let statements = match parse::statements(&reply) {
        Ok(statements) => statements,
        Err(problem) => {
            return Err(with_evidence(
                InvocationScore::not_evaluated(problem),
                JudgeEvidence {
                    statements_reply: Some(reply),
                    ..JudgeEvidence::default()
                },
            ))
        }
    };
    if statements.is_empty() {
        return Err(with_evidence(
            InvocationScore::not_evaluated(format!("the judge found no statements in the {what} to check")),
            JudgeEvidence {
                statements_reply: Some(reply),
                statements: Some(Vec::new()),
                ..JudgeEvidence::default()
            },
        ));
    }
    Ok((reply, statements))
}

/// Each statement with the judge's check of it (none asked: unsupported), how many are
/// supported, and the first problem reading the checks.
fn checked_statements(
    statements: &[String],
    replies: &[Result<String, String>],
) -> (Vec<StatementCheck>, usize, Option<String>) {
    let mut supported = 0;
    let mut problem = None;
    let checked = statements
        .iter()
        .enumerate()
        .map(|(index, statement)| match replies.get(index) {
            None => StatementCheck::Checked {
                statement: statement.clone(),
                supported: false,
                reply: None,
            },
            Some(Err(error)) => {
                problem.get_or_insert_with(|| format!("the judge failed: {error}"));
                StatementCheck::Failed {
                    statement: statement.clone(),
                    error: error.clone(),
                }
            }
            Some(Ok(reply)) => match parse::yes_no(reply) {
                Ok(yes) => {
                    supported += usize::from(yes);
                    StatementCheck::Checked {
                        statement: statement.clone(),
                        supported: yes,
                        reply: Some(reply.clone()),
                    }
                }
                Err(why) => {
                    problem.get_or_insert_with(|| format!("statement {}: {why}", index + 1));
                    StatementCheck::Unread {
                        statement: statement.clone(),
                        reply: reply.clone(),
                        problem: why,
                    }
                }
            },
        })
        .collect();
    (checked, supported, problem)
}

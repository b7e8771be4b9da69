//! What a metric's verdict on a turn rests on, read through its typed fields: a judge's
//! replies and how each was read, its votes, rubrics, context items and statements, G-Eval's
//! steps; an
//! embedding metric's two texts and their cosine. Evidence of a shape this build does not know
//! (an older run's) is shown as its raw JSON.

use super::labels::score_text;
use crate::eval::evidence::{EmbeddingEvidence, Evidence};
use crate::eval::judge::{
    AnsweredWith, CheckedResponse, ContextItem, JudgeEvidence, RubricOutcome, Sample, StatementCheck,
    ValidityLabel, ValidityParser, Verdict, Votes, YesNo,
};
use crate::ui::json_view::JsonView;
use leptos::prelude::*;

#[component]
pub(super) fn EvidenceView(evidence: Evidence) -> impl IntoView {
    match evidence {
        Evidence::Judge(judge) => judge_view(judge).into_any(),
        Evidence::Embedding(embedding) => embedding_view(embedding).into_any(),
        Evidence::Raw(value) => view! { <JsonView value /> }.into_any(),
    }
}

fn judge_view(evidence: JudgeEvidence) -> impl IntoView {
    let JudgeEvidence {
        rubrics,
        samples,
        votes,
        items,
        answer,
        statements_reply,
        statements,
        steps,
        responses,
    } = evidence;
    let part = |label: &'static str, list: Vec<AnyView>| {
        view! {
            <p class="muted small">{label}</p>
            <ol>{list}</ol>
        }
    };
    view! {
        <div class="evidence">
            {steps
                .map(|steps| {
                    part(
                        "Evaluation steps (G-Eval)",
                        steps.into_iter().map(|step| view! { <li class="small">{step}</li> }.into_any()).collect(),
                    )
                })}
            {votes.map(|votes| view! { <p class="small">{format!("Votes: {}", votes_text(votes))}</p> })}
            {rubrics.map(|rubrics| part("Rubrics", rubrics.into_iter().map(rubric_view).collect()))}
            {samples.map(|samples| part("Replies", samples.into_iter().map(sample_view).collect()))}
            {answer.map(|answer| view! { <p class="muted small">{answered_with_text(answer)}</p> })}
            {items.map(|items| part("Context items", items.into_iter().map(context_item_view).collect()))}
            {statements_reply.map(|reply| view! {
                <p class="muted small">"Statements, as the judge listed them"</p>
                <pre class="json">{reply}</pre>
            })}
            {statements.map(|checks| part("Statements checked", checks.into_iter().map(statement_view).collect()))}
            {responses.map(|responses| part("Responses checked for hallucinations", responses.into_iter().map(checked_response_view).collect()))}
        </div>
    }
}

/// What was read from the reply, then the reply as the judge wrote it.
fn reading(read: String, reply: Option<String>) -> AnyView {
    view! {
        <li>
            <span class="small">{read}</span>
            {reply.map(|reply| view! { <pre class="json">{reply}</pre> })}
        </li>
    }
    .into_any()
}

fn sample_view(sample: Sample) -> AnyView {
    match sample {
        Sample::Verdict { reply, verdict } => reading(verdict_text(verdict), Some(reply)),
        Sample::Scored {
            reply,
            score,
            feedback,
        } => {
            let score = score_text(Some(score));
            let read = feedback.map_or_else(|| format!("score {score}"), |f| format!("score {score}: {f}"));
            reading(read, Some(reply))
        }
        Sample::RubricScores { reply, rubric_scores } => {
            let read: Vec<String> = rubric_scores
                .0
                .iter()
                .map(|(rubric_id, score)| format!("{rubric_id} {}", score_text(*score)))
                .collect();
            reading(read.join(" · "), Some(reply))
        }
        Sample::Unread { reply, problem } => reading(format!("unread: {problem}"), Some(reply)),
        Sample::Unjudged { reply } => reading("not read: another request failed".into(), Some(reply)),
        Sample::Failed { error } => reading(format!("request failed: {error}"), None),
    }
}

fn verdict_text(verdict: Verdict) -> String {
    match verdict {
        Verdict::YesNo(YesNo::Yes) => "yes".into(),
        Verdict::YesNo(YesNo::No) => "no".into(),
        Verdict::Validity { label, parser } => {
            let label = match label {
                ValidityLabel::Valid => "valid",
                ValidityLabel::Invalid => "invalid",
            };
            let parser = match parser {
                ValidityParser::Adk => "read by ADK's parser",
                ValidityParser::Tolerant => "read by the tolerant parser",
            };
            format!("{label} ({parser})")
        }
    }
}

fn votes_text(votes: Votes) -> String {
    format!("{} yes · {} no · {} unread", votes.yes, votes.no, votes.unread)
}

fn rubric_view(rubric: RubricOutcome) -> AnyView {
    view! {
        <li>
            <span class="mono">{rubric.rubric_id}</span>
            " " {rubric.text} " "
            <span class="small">{format!("{} ({})", score_text(rubric.score), votes_text(rubric.votes))}</span>
            <p class="muted">{rubric.rationale}</p>
        </li>
    }
    .into_any()
}

fn answered_with_text(answer: AnsweredWith) -> &'static str {
    match answer {
        AnsweredWith::Reference => "Each item judged useful or not for the expected response",
        AnsweredWith::Response => "Each item judged useful or not for the agent's response (no expected one)",
    }
}

fn context_item_view(item: ContextItem) -> AnyView {
    let (context, read, reply) = match item {
        ContextItem::Judged {
            context,
            useful,
            reply,
        } => (
            context,
            if useful { "useful" } else { "not useful" }.to_string(),
            Some(reply),
        ),
        ContextItem::Unread {
            context,
            reply,
            problem,
        } => (context, format!("unread: {problem}"), Some(reply)),
        ContextItem::Failed { context, error } => (context, format!("request failed: {error}"), None),
    };
    view! {
        <li>
            <pre class="json">{context}</pre>
            <span class="small">{read}</span>
            {reply.map(|reply| view! { <pre class="json">{reply}</pre> })}
        </li>
    }
    .into_any()
}

fn statement_view(check: StatementCheck) -> AnyView {
    let (statement, read, reply) = match check {
        StatementCheck::Checked {
            statement,
            supported,
            reply,
        } => {
            let read = match (supported, &reply) {
                (_, None) => "not supported: there is no context to check it against",
                (true, Some(_)) => "supported",
                (false, Some(_)) => "not supported",
            };
            (statement, read.to_string(), reply)
        }
        StatementCheck::Unread {
            statement,
            reply,
            problem,
        } => (statement, format!("unread: {problem}"), Some(reply)),
        StatementCheck::Failed { statement, error } => (statement, format!("request failed: {error}"), None),
    };
    view! {
        <li>
            {statement} " " <span class="small">{format!("({read})")}</span>
            {reply.map(|reply| view! { <pre class="json">{reply}</pre> })}
        </li>
    }
    .into_any()
}

/// A response `hallucinations_v1` checked: its score, each sentence with its label and the
/// judge's rationale, then the judge's two replies.
fn checked_response_view(checked: CheckedResponse) -> AnyView {
    let CheckedResponse {
        response,
        score,
        problem,
        segmenter_reply,
        sentences,
        validator_reply,
        labels,
    } = checked;
    let read = match &problem {
        Some(problem) => format!("not scored: {problem}"),
        None => format!(
            "score {} ({} sentences, {} labelled)",
            score_text(score),
            sentences.len(),
            labels.len()
        ),
    };
    let reply = |title: &'static str, reply: Option<String>| {
        reply.map(|reply| {
            view! {
                <details>
                    <summary class="small">{title}</summary>
                    <pre class="json">{reply}</pre>
                </details>
            }
        })
    };
    view! {
        <li>
            <blockquote>{response}</blockquote>
            <span class="small">{read}</span>
            <ol>
                {labels
                    .into_iter()
                    .map(|label| {
                        view! {
                            <li class="small">
                                {label.sentence} " " <span class="mono">{format!("({})", label.label)}</span>
                                <p class="muted">{label.rationale}</p>
                            </li>
                        }
                    })
                    .collect_view()}
            </ol>
            {reply("The judge's segmentation", segmenter_reply)}
            {reply("The judge's labels", validator_reply)}
        </li>
    }
    .into_any()
}

fn embedding_view(evidence: EmbeddingEvidence) -> impl IntoView {
    let ((reference_label, reference), (response_label, response), cosine) = match evidence {
        EmbeddingEvidence::SemanticSimilarity {
            expected,
            actual,
            cosine,
        } => (("expected", expected), ("actual", actual), cosine),
        EmbeddingEvidence::AnswerRelevance {
            query,
            response,
            cosine,
        } => (("query", query), ("response", response), cosine),
    };
    view! {
        <dl class="facts">
            <dt>{reference_label}</dt>
            <dd>{reference}</dd>
            <dt>{response_label}</dt>
            <dd>{response}</dd>
            {cosine.map(|cosine| view! { <dt>"cosine"</dt> <dd>{cosine.to_string()}</dd> })}
        </dl>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(stored: &str) -> String {
        let evidence: Evidence = serde_json::from_str(stored).unwrap();
        Owner::new().with(|| view! { <EvidenceView evidence /> }.to_html())
    }

    #[test]
    fn judge_evidence_shows_each_reply_with_what_was_read_from_it() {
        let html = html(
            r#"{"samples":[{"reply":"**YES**","verdict":"yes"},{"reply":"perhaps","problem":"the judge's reply was neither yes nor no"}],"votes":{"yes":1,"no":0,"unread":1}}"#,
        );
        for shown in [
            "Votes: 1 yes · 0 no · 1 unread",
            "**YES**",
            "unread: the judge's reply was neither yes nor no",
            "perhaps",
        ] {
            assert!(html.contains(shown), "{shown} not in {html}");
        }
    }

    #[test]
    fn evidence_of_an_unknown_shape_shows_its_raw_json() {
        let html = html(r#"{"verdict_of_old": "YES"}"#);
        assert!(html.contains("class=\"json\""), "{html}");
        assert!(html.contains("\"verdict_of_old\""), "{html}");
    }
}

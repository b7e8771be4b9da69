//! One turn of a case result: the user's message, the aligned trajectories, the final
//! responses with their word diff, the metrics' verdicts on the turn, and its timing; "Accept
//! actual" makes what the agent did this turn's expectation. A turn of a simulated conversation
//! has no expectation: it shows what the simulated user said and what the agent did.

use super::trajectory::Trajectory;
use crate::agent::ToolSource;
use crate::eval::result::{EvalCaseResult, EvalMetricResultPerInvocation};
use crate::evalset::{Content, DiffKind, FunctionCall, Invocation};
use crate::ui::evaluate::metric_result::MetricResult;
use leptos::prelude::*;
use pure_metrics::compare::word_diff;
use pure_metrics::efficiency::turn_tokens;

/// Every turn of one run of a case, each with where its tool results came from.
#[component]
pub fn TurnResults(
    result: EvalCaseResult,
    /// Accepts a turn's actual; None when there is nothing to accept into.
    on_accept: Option<Callback<usize>>,
) -> impl IntoView {
    let mut sources = result.tool_sources.into_iter();
    result
        .eval_metric_result_per_invocation
        .into_iter()
        .enumerate()
        .map(|(index, turn)| {
            let tool_sources = sources.next().unwrap_or_default();
            view! { <TurnResult number=index + 1 turn on_accept tool_sources /> }
        })
        .collect_view()
}

#[component]
pub fn TurnResult(
    number: usize,
    turn: EvalMetricResultPerInvocation,
    /// Accepts this turn's actual; None when there is nothing to accept into.
    on_accept: Option<Callback<usize>>,
    /// Under tool replay, where each tool result came from (empty when the tools ran live).
    #[prop(optional)]
    tool_sources: Vec<ToolSource>,
) -> impl IntoView {
    let actual = turn.actual_invocation;
    let expected = turn.expected_invocation;
    let calls = |invocation: Option<&Invocation>| -> Vec<FunctionCall> {
        invocation
            .map(|i| i.tool_calls().into_iter().cloned().collect())
            .unwrap_or_default()
    };
    let (expected_calls, actual_calls) = (calls(expected.as_ref()), calls(Some(&actual)));
    let replay_note = (!tool_sources.is_empty()).then(|| {
        let names = actual
            .tool_responses()
            .into_iter()
            .map(|r| r.name.clone().unwrap_or_default());
        view! { <ReplayNote results=names.zip(tool_sources).collect() /> }
    });
    let text = |content: Option<&Content>| content.map(Content::joined_text).unwrap_or_default();
    let expected_text = text(expected.as_ref().and_then(|e| e.final_response.as_ref()));
    let actual_text = text(actual.final_response.as_ref());
    let timing = timing_text(&actual);
    let simulated = expected.is_none();
    let metrics = turn
        .eval_metric_results
        .into_iter()
        .map(|metric| view! { <MetricResult metric /> })
        .collect_view();
    view! {
        <section class="card turn-result-card" id=format!("turn-{number}")>
            <div class="row-head">
                <h2 class="turn-title">"Turn " {number}</h2>
                {timing.map(|t| view! { <span class="muted small">{t}</span> })}
                {on_accept.map(|accept| view! { <AcceptTurn number accept /> })}
            </div>
            <div class="message-row">
                <span class="role role-user">{if simulated { "Simulated user" } else { "User" }}</span>
                <p class="message">{actual.user_content.joined_text()}</p>
            </div>
            <h3>"Tool calls"</h3>
            {if simulated {
                view! { <CallList calls=actual_calls /> }.into_any()
            } else {
                view! { <Trajectory expected=expected_calls actual=actual_calls /> }.into_any()
            }}
            {replay_note}
            <h3>"Final response"</h3>
            {if simulated {
                view! { <p class="message">{actual_text}</p> }.into_any()
            } else {
                view! { <ResponsePair expected=expected_text actual=actual_text /> }.into_any()
            }}
            <h3>"Metrics"</h3>
            <ul class="metric-results">{metrics}</ul>
        </section>
    }
}

/// "Accept actual for this turn": the turn's actual becomes the expectation.
#[component]
fn AcceptTurn(number: usize, accept: Callback<usize>) -> impl IntoView {
    view! {
        <button
            type="button"
            title="Make what the agent did this turn the expectation (a new case version)"
            on:click=move |_| accept.run(number - 1)
        >
            "Accept actual for this turn"
        </button>
    }
}

/// The expected and the actual final response side by side, then word by word.
#[component]
fn ResponsePair(expected: String, actual: String) -> impl IntoView {
    view! {
        <div class="response-pair">
            <div>
                <p class="muted small">"Expected"</p>
                <p class="message">{expected.clone()}</p>
            </div>
            <div>
                <p class="muted small">"Actual"</p>
                <p class="message">{actual.clone()}</p>
            </div>
        </div>
        <ResponseDiff expected actual />
    }
}

/// Where each tool result of a replayed turn came from: the case's recording, the tool (no
/// recorded match, run live), or an error (no recorded match).
#[component]
fn ReplayNote(results: Vec<(String, ToolSource)>) -> impl IntoView {
    let items = results
        .into_iter()
        .map(|(name, source)| {
            let (class, text) = match source {
                ToolSource::Replayed => ("badge info", "replayed"),
                ToolSource::Live => ("badge running", "ran live: no recorded match"),
                ToolSource::Unrecorded => ("badge error", "no recorded result"),
            };
            view! {
                <li>
                    <code>{name}</code>
                    " "
                    <span class=class>{text}</span>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="replay-note">
            <span class="muted small">"Tool replay"</span>
            <ul>{items}</ul>
        </div>
    }
}

/// The calls the agent made, in order, when there were none to expect.
#[component]
fn CallList(calls: Vec<FunctionCall>) -> impl IntoView {
    if calls.is_empty() {
        return view! { <p class="muted">"No tool calls."</p> }.into_any();
    }
    let items = calls
        .into_iter()
        .map(|call| {
            let args = call
                .args
                .map(|args| serde_json::Value::Object(args).to_string())
                .unwrap_or_default();
            view! {
                <li>
                    <code>{call.name.unwrap_or_default()}</code>
                    " "
                    <code class="muted">{args}</code>
                </li>
            }
        })
        .collect_view();
    view! { <ol class="made-calls">{items}</ol> }.into_any()
}

/// The actual response against the expected one, word by word.
#[component]
fn ResponseDiff(expected: String, actual: String) -> impl IntoView {
    if expected == actual {
        return view! { <p class="muted small">"The responses are the same."</p> }.into_any();
    }
    let runs = word_diff(&expected, &actual)
        .into_iter()
        .map(|(kind, text)| match kind {
            DiffKind::Same => view! { <span>{text}</span> }.into_any(),
            DiffKind::Removed => {
                view! { <del class="diff-removed" title="expected, not said">{text}</del> }.into_any()
            }
            DiffKind::Added => {
                view! { <ins class="diff-added" title="said, not expected">{text}</ins> }.into_any()
            }
        })
        .collect_view();
    view! {
        <p class="word-diff">
            <span class="muted small">"Word diff (− expected, + actual): "</span>
            {runs}
        </p>
    }
    .into_any()
}

/// The turn's latency (model and tool time when known) and tokens, e.g. "1.20 s (model 0.90 s,
/// tools 0.20 s) · 275 tokens (250 in, 25 out)".
fn timing_text(actual: &Invocation) -> Option<String> {
    let time = actual.duration.map(|total| {
        let parts: Vec<String> = [("model", actual.model_duration), ("tools", actual.tool_duration)]
            .into_iter()
            .filter_map(|(label, value)| value.map(|v| format!("{label} {v:.2} s")))
            .collect();
        if parts.is_empty() {
            format!("{total:.2} s")
        } else {
            format!("{total:.2} s ({})", parts.join(", "))
        }
    });
    let tokens =
        turn_tokens(actual).map(|t| format!("{} tokens ({} in, {} out)", t.total, t.input, t.output));
    let shown: Vec<String> = time.into_iter().chain(tokens).collect();
    (!shown.is_empty()).then(|| shown.join(" · "))
}

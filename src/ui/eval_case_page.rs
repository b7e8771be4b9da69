//! One eval case, turn by turn: what the user says, the tool calls expected, the expected answer;
//! its actions (duplicate, delete) and its history.

use super::case_across_runs::CaseAcrossRuns;
use super::case_actions::CaseActions;
use super::case_history::CaseHistory;
use super::json_view::JsonView;
use super::{count, error_text, eval_set_href, short_time, ErrorNote, NotFound};
use crate::api::cases::RestoreCaseVersion;
use crate::api::get_case;
use crate::evalset::{Content, EvalCase, FunctionCall, FunctionResponse, Invocation};
use crate::records::cases::StoredCase;
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};
use serde_json::Value;

#[component]
pub fn EvalCasePage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let app = move || params.read().get("app").unwrap_or_default();
    let eval_set_id = move || params.read().get("eval_set_id").unwrap_or_default();
    let eval_id = move || query.read().get("eval_id").unwrap_or_default();
    // A restore makes a new version: the case is read again when one finishes.
    let restore = ServerAction::<RestoreCaseVersion>::new();
    let case = Resource::new(
        move || (app(), eval_set_id(), eval_id(), restore.version().get()),
        |(a, s, e, _)| get_case(a, s, e),
    );

    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/">"Evalsets"</a>
            <span aria-hidden="true">"/"</span>
            <a class="mono" href=move || eval_set_href(&app(), &eval_set_id())>{eval_set_id}</a>
            <span aria-hidden="true">"/"</span>
            <span class="mono">{eval_id}</span>
        </nav>
        <Transition fallback=|| view! { <p class="muted">"Loading case…"</p> }>
            {move || Suspend::new(async move {
                match case.await {
                    Ok(Some(stored)) => view! { <CaseView stored restore /> }.into_any(),
                    Ok(None) => view! { <NotFound /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn CaseView(stored: StoredCase, restore: ServerAction<RestoreCaseVersion>) -> impl IntoView {
    let (app, set) = (stored.app_name.clone(), stored.eval_set_id.clone());
    let case = stored.case.clone();
    let raw = serde_json::to_value(&case).unwrap_or(Value::Null);
    let turns = case
        .invocations()
        .iter()
        .enumerate()
        .map(|(i, invocation)| view! { <TurnCard number=i + 1 invocation=invocation.clone() /> })
        .collect_view();
    view! {
        <div class="page-header">
            <div>
                <h1 class="mono">{case.eval_id.clone()}</h1>
                <p class="muted">
                    {count(case.turn_count() as i64, "turn")} " · "
                    {count(case.tool_call_count() as i64, "tool call")} " · version " {stored.version}
                    " · updated " {short_time(&stored.updated_at)}
                </p>
            </div>
            <CaseActions app=app.clone() eval_set_id=set.clone() eval_id=case.eval_id.clone() />
        </div>
        <SessionSummary case=case.clone() />
        {case
            .conversation_scenario
            .clone()
            .map(|scenario| {
                view! {
                    <section class="card">
                        <h2>"Conversation scenario"</h2>
                        <p class="muted">"A user simulator plays this conversation; it has no scripted turns."</p>
                        <dl class="facts">
                            <dt>"Starting prompt"</dt>
                            <dd class="message">{scenario.starting_prompt}</dd>
                            <dt>"Plan"</dt>
                            <dd class="message">{scenario.conversation_plan}</dd>
                        </dl>
                        {scenario
                            .user_persona
                            .map(|persona| view! { <h3>"User persona"</h3> <JsonView value=persona /> })}
                    </section>
                }
            })}
        <ol class="turns">{turns}</ol>
        <details class="card raw-json">
            <summary>"Case JSON (as exported)"</summary>
            <JsonView value=raw />
        </details>
        <CaseAcrossRuns app=app.clone() eval_set_id=set.clone() eval_id=case.eval_id.clone() />
        <CaseHistory
            app
            eval_set_id=set
            eval_id=case.eval_id.clone()
            current_version=stored.version
            current=case.clone()
            restore
        />
    }
}

#[component]
fn SessionSummary(case: EvalCase) -> impl IntoView {
    case.session_input.map(|session| {
        view! {
            <section class="card session">
                <h2>"Session input"</h2>
                <dl class="facts inline">
                    <dt>"App"</dt>
                    <dd class="mono">{session.app_name.clone()}</dd>
                    <dt>"User"</dt>
                    <dd class="mono">{session.user_id.clone()}</dd>
                </dl>
                {(!session.state.is_empty())
                    .then(|| {
                        view! {
                            <h3>"Initial state"</h3>
                            <JsonView value=Value::Object(session.state.clone()) />
                        }
                    })}
            </section>
        }
    })
}

#[component]
fn TurnCard(number: usize, invocation: Invocation) -> impl IntoView {
    let calls: Vec<FunctionCall> = invocation.tool_calls().into_iter().cloned().collect();
    let data = invocation.intermediate_data.clone().unwrap_or_default();
    let responses: Vec<FunctionResponse> = data.tool_responses().into_iter().cloned().collect();
    let intermediate = data
        .intermediate_texts()
        .into_iter()
        .map(|(author, parts)| {
            let content = Content {
                parts: Some(parts),
                ..Content::default()
            };
            view! {
                <div class="message-row">
                    <span class="role role-agent">{author}</span>
                    <MessageText content=Some(content) />
                </div>
            }
        })
        .collect_view();
    view! {
        <li class="card turn">
            <h2 class="turn-title">"Turn " {number}</h2>
            <div class="message-row">
                <span class="role role-user">"User"</span>
                <MessageText content=Some(invocation.user_content.clone()) />
            </div>
            <div class="tool-calls">
                <h3>"Expected tool calls"</h3>
                <ExpectedCalls calls />
            </div>
            {(!responses.is_empty()).then(|| view! { <ToolResponses responses /> })}
            {intermediate}
            <div class="message-row">
                <span class="role role-model">"Expected response"</span>
                <MessageText content=invocation.final_response.clone() />
            </div>
        </li>
    }
}

/// The turn's expected tool calls, each with its arguments.
#[component]
fn ExpectedCalls(calls: Vec<FunctionCall>) -> impl IntoView {
    if calls.is_empty() {
        return view! { <p class="muted">"No tool calls."</p> }.into_any();
    }
    let items = calls
        .into_iter()
        .map(|call| {
            let args = call.args.map(Value::Object).unwrap_or(Value::Null);
            view! {
                <li class="tool-call">
                    <span class="tool-name mono">{call.name.unwrap_or_else(|| "(unnamed)".into())}</span>
                    <JsonView value=args />
                </li>
            }
        })
        .collect_view();
    view! { <ol class="tool-call-list">{items}</ol> }.into_any()
}

/// The turn's recorded tool responses, folded.
#[component]
fn ToolResponses(responses: Vec<FunctionResponse>) -> impl IntoView {
    let count = responses.len();
    let items = responses
        .into_iter()
        .map(|response| {
            let value = response.response.map(Value::Object).unwrap_or(Value::Null);
            view! {
                <div class="tool-call">
                    <span class="tool-name mono">{response.name.unwrap_or_default()}</span>
                    <JsonView value />
                </div>
            }
        })
        .collect_view();
    view! {
        <details class="tool-responses">
            <summary>"Tool responses (" {count} ")"</summary>
            {items}
        </details>
    }
}

/// A message's text, shown as plain text (never parsed as HTML).
#[component]
fn MessageText(content: Option<Content>) -> impl IntoView {
    let text = content.map(|c| c.joined_text()).unwrap_or_default();
    if text.trim().is_empty() {
        view! { <p class="message muted">"(no text)"</p> }.into_any()
    } else {
        view! { <p class="message">{text}</p> }.into_any()
    }
}

//! One case's result in one run (its own URL, linked from the run results): each turn's
//! expected and actual side by side, with accept-actual and re-run right there. With several
//! runs of the case, `?run=N` picks one.

mod trajectory;
mod turn_result;

pub(crate) use turn_result::TurnResults;

use super::evaluate::labels::{case_status_badge, run_status_badge};
use super::evaluate::progress_stream::follow_progress;
use super::{
    case_href, edit_href, encode_query_value, error_text, eval_set_href, short_time_seconds, ErrorNote,
    NotFound,
};
use crate::api::case_results::{case_result, AcceptActual, CaseResultView, RerunCase};
use crate::eval::result::{EvalCaseResult, EvalStatus};
use crate::records::runs::{CaseRunOutcome, EvalRunCase, RunOrigin, RunStatus};
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_params_map, use_query_map};
use serde::Deserialize;

/// Link to one case's result in a run.
pub fn case_result_href(app: &str, eval_set_id: &str, result_id: &str, eval_id: &str) -> String {
    format!(
        "/evalsets/{app}/{eval_set_id}/results/{}?eval_id={}",
        encode_query_value(result_id),
        encode_query_value(eval_id)
    )
}

#[component]
pub fn CaseResultPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let app = move || params.read().get("app").unwrap_or_default();
    let eval_set_id = move || params.read().get("eval_set_id").unwrap_or_default();
    let result_id = move || params.read().get("result_id").unwrap_or_default();
    let eval_id = move || query.read().get("eval_id").unwrap_or_default();
    let run = move || {
        query
            .read()
            .get("run")
            .and_then(|r| r.parse::<i64>().ok())
            .unwrap_or(0)
    };
    let accept = ServerAction::<AcceptActual>::new();
    let rerun = ServerAction::<RerunCase>::new();
    let refresh = RwSignal::new(0);
    let result = Resource::new(
        move || {
            (
                app(),
                result_id(),
                eval_id(),
                accept.version().get(),
                refresh.get(),
            )
        },
        |(app, result_id, eval_id, _, _)| case_result(app, result_id, eval_id),
    );
    // While the run is running, follow its progress and read the result again as cases finish.
    let running = Memo::new(move |_| {
        result
            .get()
            .and_then(Result::ok)
            .flatten()
            .filter(|view| view.run.status == RunStatus::Running)
            .map(|view| view.run.result_id)
    });
    follow_progress(untrack(app), running, RwSignal::new(None), refresh);
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(new_result)) = rerun.value().get() {
            // The hint to run it again is done with.
            accept.value().set(None);
            navigate(
                &case_result_href(
                    &untrack(app),
                    &untrack(eval_set_id),
                    &new_result,
                    &untrack(eval_id),
                ),
                Default::default(),
            );
        }
    });
    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/">"Evalsets"</a>
            <span aria-hidden="true">"/"</span>
            <a class="mono" href=move || eval_set_href(&app(), &eval_set_id())>{eval_set_id}</a>
            <span aria-hidden="true">"/"</span>
            <span class="mono">{result_id}</span>
            <span aria-hidden="true">"/"</span>
            <span class="mono">{eval_id}</span>
        </nav>
        <ActionNotes accept rerun />
        <Transition fallback=|| view! { <p class="muted">"Loading the result…"</p> }>
            {move || Suspend::new(async move {
                match result.await {
                    Ok(Some(view)) => view! { <CaseResultBody view run=run() accept rerun /> }.into_any(),
                    Ok(None) => view! { <NotFound /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

/// What accepting the actual side or re-running the case did: its error, or the hint to run the
/// accepted case again.
#[component]
fn ActionNotes(accept: ServerAction<AcceptActual>, rerun: ServerAction<RerunCase>) -> impl IntoView {
    let failed = |value: Option<Result<_, ServerFnError>>| value.and_then(Result::err);
    view! {
        {move || {
            failed(accept.value().get().map(|r| r.map(|_| ())))
                .or_else(|| failed(rerun.value().get().map(|r| r.map(|_| ()))))
                .map(|err| view! { <ErrorNote message=error_text(&err) /> })
        }}
        {move || {
            matches!(accept.value().get(), Some(Ok(_)))
                .then(|| {
                    view! {
                        <p class="note note-passed" role="status">
                            <span class="status-icon" aria-hidden="true">"✓"</span>
                            "Accepted as the expectation: the case has a new version. Run it again to see it pass."
                        </p>
                    }
                })
        }}
    }
}

#[component]
fn CaseResultBody(
    view: CaseResultView,
    run: i64,
    accept: ServerAction<AcceptActual>,
    rerun: ServerAction<RerunCase>,
) -> impl IntoView {
    let CaseResultView {
        run: summary,
        runs,
        current,
    } = view;
    let eval_id = runs.first().map(|r| r.eval_id.clone()).unwrap_or_default();
    let Some(shown) = runs.iter().find(|r| r.run_index == run).or(runs.first()).cloned() else {
        let message = if summary.status == RunStatus::Running {
            "This case has not finished yet in this run."
        } else {
            "This run has no result for this case."
        };
        return view! {
            <h1 class="mono">{eval_id}</h1>
            <p class="muted">{message}</p>
        }
        .into_any();
    };
    let result = EvalCaseResult::deserialize(&shown.result);
    // A recorded session (scored from its spans) is named by its session id, not a case.
    let recorded = summary.origin == RunOrigin::Recorded;
    let unreferenced = result.as_ref().is_ok_and(|r| {
        r.eval_metric_result_per_invocation
            .iter()
            .all(|turn| turn.expected_invocation.is_none())
    });
    // A conversation the simulated user played has nothing expected to accept into.
    let simulated = unreferenced && !recorded;
    let target = CaseRunTarget {
        app: summary.app_name.clone(),
        eval_set_id: summary.eval_set_id.clone(),
        result_id: summary.result_id.clone(),
        eval_id,
        run: shown.run_index,
        version: current.as_ref().map(|c| c.version),
    };
    let can_accept = target.version.is_some() && shown.error.is_none() && !simulated;
    let accept_turn = can_accept.then(|| {
        let target = target.clone();
        Callback::new(move |turn: usize| target.accept(accept, Some(turn)))
    });
    let turns = match result.as_ref() {
        Ok(result) => view! { <TurnResults result=result.clone() on_accept=accept_turn /> }.into_any(),
        Err(err) => {
            view! { <ErrorNote message=format!("The stored result could not be read: {err}") /> }.into_any()
        }
    };
    let status = result.map_or(EvalStatus::NotEvaluated, |r| r.final_eval_status);
    let errors = usize::from(shown.error.is_some());
    view! {
        <div class="page-header">
            <div>
                <h1 class="mono">{target.eval_id.clone()}</h1>
                <p class="muted">
                    {case_status_badge(status, errors)} " · run of " {short_time_seconds(summary.created_at)} " · agent "
                    <code>{summary.agent.clone()}</code> " · " {run_status_badge(summary.status)}
                </p>
            </div>
            {if recorded {
                view! { <a class="button" href=recorded_session_href(&target.app, &target.eval_id)>"Open the session"</a> }.into_any()
            } else {
                view! { <CaseRunActions target=target.clone() can_accept accept rerun /> }.into_any()
            }}
        </div>
        {(runs.len() > 1).then(|| view! { <RunSwitcher target=target.clone() runs /> })}
        {(current.is_none() && !recorded).then(|| view! { <p class="note note-warning">"This case has been deleted since the run: there is nothing to accept into."</p> })}
        {recorded.then(|| view! { <RecordedNote unreferenced /> })}
        {shown.error.clone().map(|e| view! { <ErrorNote message=format!("Agent error: {e}") /> })}
        {simulated
            .then(|| {
                view! {
                    <p class="note">
                        "A simulated conversation: the user's messages after the first came from the user simulator, playing the case's scenario. Metrics that compare with an expected conversation are not evaluated."
                    </p>
                }
            })}
        {turns}
    }
    .into_any()
}

/// A session recorded by the agent's exporter: what was scored, and against what.
#[component]
fn RecordedNote(unreferenced: bool) -> impl IntoView {
    let reference = if unreferenced {
        "It matched no case of this evalset, so metrics that compare with an expected conversation are not evaluated."
    } else {
        "It matched a case of this evalset (its id, or its first question over as many turns), which is the expected side."
    };
    view! {
        <p class="note">
            "A session the agent's OpenTelemetry exporter recorded, scored without running the agent. " {reference}
        </p>
    }
}

fn recorded_session_href(app: &str, session_id: &str) -> String {
    format!(
        "/traces?app={}&session={}",
        encode_query_value(app),
        encode_query_value(session_id)
    )
}

/// The case run a result page shows, as its actions name it.
#[derive(Clone)]
struct CaseRunTarget {
    app: String,
    eval_set_id: String,
    result_id: String,
    eval_id: String,
    run: i64,
    /// The stored case's version, which an accept sends back; none once it was deleted.
    version: Option<i64>,
}

impl CaseRunTarget {
    /// Accepts the run's actual invocation `turn` (or all of them) as expected.
    fn accept(&self, accept: ServerAction<AcceptActual>, turn: Option<usize>) {
        accept.dispatch(AcceptActual {
            app: self.app.clone(),
            result_id: self.result_id.clone(),
            eval_id: self.eval_id.clone(),
            run: self.run,
            turn,
            version: self.version.unwrap_or_default(),
        });
    }

    fn rerun(&self, rerun: ServerAction<RerunCase>) {
        rerun.dispatch(RerunCase {
            app: self.app.clone(),
            result_id: self.result_id.clone(),
            eval_id: self.eval_id.clone(),
        });
    }
}

/// Accept the whole run as expected, re-run the case, and go to the case.
#[component]
fn CaseRunActions(
    target: CaseRunTarget,
    can_accept: bool,
    accept: ServerAction<AcceptActual>,
    rerun: ServerAction<RerunCase>,
) -> impl IntoView {
    let (app, set, eval_id) = (
        target.app.clone(),
        target.eval_set_id.clone(),
        target.eval_id.clone(),
    );
    let exists = target.version.is_some();
    let (accepting, rerunning) = (target.clone(), target);
    view! {
        <div class="case-actions">
            {can_accept
                .then(|| {
                    view! {
                        <button
                            on:click=move |_| accepting.accept(accept, None)
                            disabled=move || accept.pending().get()
                        >
                            "Accept actual as expected"
                        </button>
                    }
                })}
            <button
                class="primary"
                on:click=move |_| rerunning.rerun(rerun)
                disabled=move || rerun.pending().get()
            >
                "Re-run this case"
            </button>
            {exists
                .then(|| {
                    view! {
                        <a class="button" href=edit_href(&app, &set, &eval_id)>"Edit case"</a>
                        <a class="button" href=case_href(&app, &set, &eval_id)>"Case"</a>
                    }
                })}
        </div>
    }
}

/// Links to each run of the case, the one shown marked.
#[component]
fn RunSwitcher(target: CaseRunTarget, runs: Vec<EvalRunCase>) -> impl IntoView {
    let links = runs
        .iter()
        .map(|r| {
            let href = format!(
                "{}&run={}",
                case_result_href(&target.app, &target.eval_set_id, &target.result_id, &r.eval_id),
                r.run_index
            );
            let status = match r.outcome() {
                CaseRunOutcome::Error => "error",
                CaseRunOutcome::Passed => "passed",
                CaseRunOutcome::Failed => "failed",
                CaseRunOutcome::NotEvaluated => "not evaluated",
            };
            let current = r.run_index == target.run;
            view! {
                <a href=href aria-current=current.then_some("page") class="run-link">
                    {format!("Run {} · {status}", r.run_index + 1)}
                </a>
            }
        })
        .collect_view();
    view! { <nav class="run-switcher" aria-label="Runs of this case">{links}</nav> }
}

//! The Evaluate panel itself: it reads the runs list and the shown run, re-reads them while
//! the run is running, and lays out the run form, the runs and the results.

use super::open_cases::OpenCases;
use super::progress_stream::follow_progress;
use super::run_form::RunForm;
use super::run_list::RunList;
use super::run_results::RunResults;
use crate::api::evaluate::{get_eval_run, list_eval_runs};
use crate::records::runs::{EvalRunSummary, ResultsPage, RunProgress, RunStatus};
use crate::ui::runs::RunTrend;
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;

/// Bumped when the shown run has more cases done, or another status: the page around the panel
/// lists its cases again then, so their statuses follow the run.
#[derive(Clone, Copy)]
pub struct RunsChanged(pub RwSignal<u32>);

/// The cases selected in the page's list, which the run form can run alone.
#[derive(Clone, Copy)]
pub struct SelectedCases(pub RwSignal<std::collections::BTreeSet<String>>);

/// The shown run as the server reads it (None: the evalset has no runs yet).
type ShownRunView = Resource<Result<Option<ResultsPage>, ServerFnError>>;

/// The Evaluate panel of one eval set: the run form, its runs, and the shown run's results.
#[component]
pub fn EvaluatePanel(app: String, eval_set_id: String) -> impl IntoView {
    // Bumped to re-read the runs list and the selected run.
    let refresh = RwSignal::new(0u32);
    let selected = RwSignal::new(None::<String>);
    // Outlives the run view, which each poll of a running run replaces.
    let open_cases = OpenCases::new();
    let runs = {
        let (app, id) = (app.clone(), eval_set_id.clone());
        Resource::new(
            move || refresh.get(),
            move |_| list_eval_runs(app.clone(), id.clone()),
        )
    };
    // The page of the shown run's results table.
    let page = RwSignal::new(1i64);
    // The run shown: the one picked, else the newest (the server picks it, so this resource
    // does not wait on the runs list).
    let run_view: ShownRunView = {
        let (app, id) = (app.clone(), eval_set_id.clone());
        Resource::new(
            move || (selected.get(), refresh.get(), page.get()),
            move |(result_id, _, page)| get_eval_run(app.clone(), id.clone(), result_id, page),
        )
    };
    let shown = move || {
        selected.get().or_else(|| {
            run_view
                .get()
                .and_then(Result::ok)
                .flatten()
                .map(|view| view.summary.result_id)
        })
    };
    tell_page_when_run_moves(run_view);
    reread_list_when_run_ends(run_view, runs);
    // While the shown run is running, follow its progress stream.
    let live = RwSignal::new(None::<RunProgress>);
    follow_progress(app.clone(), running_run(run_view), live, refresh);
    let on_started = move |result_id: String| {
        page.set(1);
        selected.set(Some(result_id));
        refresh.update(|n| *n += 1);
    };

    view! {
        <section class="eval-panel" aria-labelledby="evaluate-heading">
            <h2 id="evaluate-heading">"Evaluate"</h2>
            <RunForm app=app.clone() eval_set_id=eval_set_id.clone() on_started />
            {move || live.get().map(|progress| view! { <LiveProgress progress /> })}
            <RunsOf runs selected shown=Signal::derive(shown) />
            // Created with the panel (not inside a Suspend), so the server and the browser create
            // its resource in the same order.
            <RunTrend app=app.clone() eval_set_id=eval_set_id.clone() reload=refresh />
            <ShownRun app run_view refresh open_cases page />
        </section>
    }
}

/// Bumps the page's `RunsChanged` when the shown run got further (not on the first reading,
/// which is what the page was drawn with), so the page lists its cases' statuses again.
fn tell_page_when_run_moves(run_view: ShownRunView) {
    let Some(RunsChanged(changed)) = use_context::<RunsChanged>() else {
        return;
    };
    let seen = StoredValue::new(None::<Option<(String, i64, RunStatus)>>);
    Effect::new(move |_| {
        let Some(Ok(view)) = run_view.get() else {
            return;
        };
        let now = view.map(|view| (view.summary.result_id, view.summary.done, view.summary.status));
        match seen.get_value() {
            Some(before) if before == now => {}
            Some(_) => {
                seen.set_value(Some(now));
                changed.update(|n| *n += 1);
            }
            None => seen.set_value(Some(now)),
        }
    });
}

/// The runs list and the shown run are read together; a run that ended between the two reads
/// is listed as running while shown finished. Reads the list again then (once: the shown run's
/// end is final).
fn reread_list_when_run_ends(
    run_view: ShownRunView,
    runs: Resource<Result<Vec<EvalRunSummary>, ServerFnError>>,
) {
    Effect::new(move |_| {
        let (Some(Ok(Some(view))), Some(Ok(list))) = (run_view.get(), runs.get()) else {
            return;
        };
        let shown = &view.summary;
        let listed_running = list
            .iter()
            .any(|run| run.result_id == shown.result_id && run.status == RunStatus::Running);
        if shown.status != RunStatus::Running && listed_running {
            runs.refetch();
        }
    });
}

/// The shown run's id while it is running.
fn running_run(run_view: ShownRunView) -> Memo<Option<String>> {
    Memo::new(move |_| {
        run_view
            .get()
            .and_then(Result::ok)
            .flatten()
            .filter(|view| view.summary.status == RunStatus::Running)
            .map(|view| view.summary.result_id)
    })
}

/// The evalset's runs, the shown one marked; a line on what a run does before the first.
#[component]
fn RunsOf(
    runs: Resource<Result<Vec<EvalRunSummary>, ServerFnError>>,
    selected: RwSignal<Option<String>>,
    shown: Signal<Option<String>>,
) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || {
                Suspend::new(async move {
                    match runs.await {
                        Ok(list) if list.is_empty() => {
                            view! {
                                <p class="muted">
                                    "No runs yet. Pick metrics and an agent, then Run evaluation: each case is replayed through the agent and scored."
                                </p>
                            }
                                .into_any()
                        }
                        Ok(list) => view! { <RunList runs=list selected shown /> }.into_any(),
                        Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}

/// The shown run's results.
#[component]
fn ShownRun(
    app: String,
    run_view: ShownRunView,
    refresh: RwSignal<u32>,
    open_cases: OpenCases,
    page: RwSignal<i64>,
) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || {
                let app = app.clone();
                Suspend::new(async move {
                    match run_view.await {
                        Ok(Some(view)) => view! { <RunResults app view refresh open_cases page /> }.into_any(),
                        Ok(None) => ().into_any(),
                        Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    }
                })
            }}
        </Transition>
    }
}

/// The running run's counts and the time left, as its progress stream reports them.
#[component]
fn LiveProgress(progress: RunProgress) -> impl IntoView {
    let eta = progress
        .eta_seconds
        .map(|s| {
            format!(
                " · about {} left",
                if s < 60.0 {
                    format!("{s:.0} s")
                } else {
                    format!("{:.1} min", s / 60.0)
                }
            )
        })
        .unwrap_or_default();
    view! {
        <div class="live-progress" role="status" aria-live="polite">
            <progress max=progress.total.to_string() value=progress.done.to_string()></progress>
            <span>
                {format!(
                    "{} of {} case runs · {} passed · {} failed{}{eta}",
                    progress.done,
                    progress.total,
                    progress.passed,
                    progress.failed,
                    if progress.errors > 0 { format!(" · {} errors", progress.errors) } else { String::new() },
                )}
            </span>
        </div>
    }
}

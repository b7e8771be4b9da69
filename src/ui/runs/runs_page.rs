//! Every run of an app (or of one evalset): when, which evalset and agent, status, pass rate,
//! each metric's mean, duration.

use super::{duration, pass_rate, rerun_note, run_href, run_short_title, source_notes};
use crate::api::runs::list_runs;
use crate::api::DEFAULT_APP;
use crate::records::runs::RunRow;
use crate::ui::evaluate::labels::{run_status_badge, score_text};
use crate::ui::{error_text, eval_set_href, ErrorNote};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

#[component]
pub fn RunsPage() -> impl IntoView {
    let query = use_query_map();
    let app = move || query.read().get("app").unwrap_or_else(|| DEFAULT_APP.to_string());
    let eval_set_id = move || query.read().get("eval_set_id").filter(|s| !s.is_empty());
    let runs = Resource::new(move || (app(), eval_set_id()), |(app, set)| list_runs(app, set));
    view! {
        <div class="page-header">
            <div>
                <h1>"Runs"</h1>
                <p class="muted">
                    "App " <code>{app}</code>
                    {move || eval_set_id().map(|set| view! { " · evalset " <code>{set}</code> })}
                </p>
            </div>
        </div>
        <Transition fallback=|| view! { <p class="muted">"Loading runs…"</p> }>
            {move || Suspend::new(async move {
                match runs.await {
                    Ok(rows) if rows.is_empty() => view! {
                        <div class="empty-state">
                            <h2>"No runs yet"</h2>
                            <p>"Open an evalset and run an evaluation from its Evaluate panel."</p>
                        </div>
                    }
                    .into_any(),
                    Ok(rows) => view! { <RunsTable rows /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn RunsTable(rows: Vec<RunRow>) -> impl IntoView {
    let body = rows
        .into_iter()
        .map(|RunRow { summary, metrics }| {
            let means = metrics
                .iter()
                .map(|m| view! { <li><span class="mono">{m.metric_name.clone()}</span> " " {score_text(m.mean)}</li> })
                .collect_view();
            view! {
                <tr>
                    <td>
                        <a href=run_href(&summary.app_name, &summary.result_id) title=summary.result_id.clone()>
                            {run_short_title(&summary)}
                        </a>
                        {rerun_note(&summary).map(|note| view! { <span class="run-note">{note}</span> })}
                        {source_notes(&summary)}
                    </td>
                    <td>
                        <a class="mono" href=eval_set_href(&summary.app_name, &summary.eval_set_id)>
                            {summary.eval_set_id.clone()}
                        </a>
                    </td>
                    <td class="mono">{summary.agent.clone()}</td>
                    <td>{run_status_badge(summary.status)}</td>
                    <td>{pass_rate(&summary)}</td>
                    <td><ul class="means">{means}</ul></td>
                    <td class="num">{duration(&summary)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="data-table runs-list">
            <thead>
                <tr>
                    <th scope="col">"Run"</th>
                    <th scope="col">"Evalset"</th>
                    <th scope="col">"Agent"</th>
                    <th scope="col">"Status"</th>
                    <th scope="col">"Pass rate"</th>
                    <th scope="col">"Metric means"</th>
                    <th scope="col" class="num">"Duration"</th>
                </tr>
            </thead>
            <tbody>{body}</tbody>
        </table>
    }
}

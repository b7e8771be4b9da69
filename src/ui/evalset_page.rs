//! One evalset: its cases, a page at a time.

use super::evaluate::EvaluatePanel;
use super::{case_href, count, error_text, export_href, preview, ErrorNote};
use crate::api::list_cases;
use crate::records::CaseListPage;
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn EvalSetPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let app = move || params.read().get("app").unwrap_or_default();
    let eval_set_id = move || params.read().get("eval_set_id").unwrap_or_default();
    let page = move || {
        query
            .read()
            .get("page")
            .and_then(|p| p.parse::<i64>().ok())
            .unwrap_or(1)
    };
    let cases = Resource::new(
        move || (app(), eval_set_id(), page()),
        |(app, id, page)| list_cases(app, id, page),
    );

    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/">"Evalsets"</a>
            <span aria-hidden="true">"/"</span>
            <span class="mono">{eval_set_id}</span>
        </nav>
        <Transition fallback=|| view! { <p class="muted">"Loading cases…"</p> }>
            {move || Suspend::new(async move {
                match cases.await {
                    Ok(page) => view! { <CaseList page /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn CaseList(page: CaseListPage) -> impl IntoView {
    let set = page.eval_set.clone();
    let (app, id) = (set.app_name.clone(), set.eval_set_id.clone());
    let title = set.name.clone().unwrap_or_else(|| id.clone());
    let page_href = {
        let (app, id) = (app.clone(), id.clone());
        move |n: i64| format!("/evalsets/{app}/{id}?page={n}")
    };
    let rows = page
        .cases
        .iter()
        .map(|case| {
            view! {
                <tr>
                    <td>
                        <a class="mono" href=case_href(&app, &id, &case.eval_id)>
                            {case.eval_id.clone()}
                        </a>
                    </td>
                    <td class="num">{case.turn_count}</td>
                    <td class="num">{case.tool_call_count}</td>
                    <td class="preview" title=case.first_user_message.clone()>
                        {preview(&case.first_user_message, 120)}
                    </td>
                </tr>
            }
        })
        .collect_view();
    let (current, last) = (page.page, page.page_count());
    view! {
        <div class="page-header">
            <div>
                <h1 class="mono">{title}</h1>
                <p class="muted">
                    {set.description.clone().unwrap_or_default()} " " {count(set.case_count, "case")} " · app "
                    <code>{app.clone()}</code>
                </p>
            </div>
            <a
                class="button"
                href=export_href(&app, &id)
                download=format!("{id}.evalset.json")
                rel="external"
            >
                "Export"
            </a>
        </div>
        {if page.total_cases == 0 {
            view! {
                <div class="empty-state">
                    <h2>"No cases yet"</h2>
                    <p>"Import a file with cases into this evalset, or add them over the REST API."</p>
                </div>
            }
                .into_any()
        } else {
            view! {
                <table class="data-table">
                    <thead>
                        <tr>
                            <th scope="col">"Eval id"</th>
                            <th scope="col" class="num">"Turns"</th>
                            <th scope="col" class="num">"Tool calls"</th>
                            <th scope="col">"First user message"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
                {(last > 1)
                    .then(|| {
                        view! {
                            <nav class="pager" aria-label="Pages">
                                {(current > 1)
                                    .then(|| {
                                        view! { <a href=page_href(current - 1) rel="prev">"← Previous"</a> }
                                    })}
                                <span class="muted">"Page " {current} " of " {last}</span>
                                {(current < last)
                                    .then(|| view! { <a href=page_href(current + 1) rel="next">"Next →"</a> })}
                            </nav>
                        }
                    })}
            }
                .into_any()
        }}
        {(page.total_cases > 0).then(|| view! { <EvaluatePanel app=app.clone() eval_set_id=id.clone() /> })}
    }
}

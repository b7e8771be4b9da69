//! The case editor: every part of an eval case as structured, validated fields (see
//! `crate::draft`), saved with the version it was opened at.

mod case_fields;
mod conflict;
mod drag;
mod editor;
mod events;
mod fields;
mod rubrics;
mod saving;
mod tool_uses;
mod turns;

use super::{case_href, error_text, eval_set_href, ErrorNote, NotFound};
use crate::api::cases::tool_suggestions;
use crate::api::get_case;
use editor::Editor;
use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};

#[component]
pub fn CaseEditorPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let app = move || params.read().get("app").unwrap_or_default();
    let eval_set_id = move || params.read().get("eval_set_id").unwrap_or_default();
    let eval_id = move || query.read().get("eval_id").unwrap_or_default();
    let case = Resource::new(
        move || (app(), eval_set_id(), eval_id()),
        |(a, s, e)| get_case(a, s, e),
    );
    let tools = Resource::new(move || (app(), eval_set_id()), |(a, s)| tool_suggestions(a, s));
    view! {
        <nav class="breadcrumbs" aria-label="Breadcrumb">
            <a href="/">"Evalsets"</a>
            <span aria-hidden="true">"/"</span>
            <a class="mono" href=move || eval_set_href(&app(), &eval_set_id())>{eval_set_id}</a>
            <span aria-hidden="true">"/"</span>
            <a class="mono" href=move || case_href(&app(), &eval_set_id(), &eval_id())>{eval_id}</a>
            <span aria-hidden="true">"/"</span>
            <span>"Edit"</span>
        </nav>
        <Transition fallback=|| view! { <p class="muted">"Loading case…"</p> }>
            {move || Suspend::new(async move {
                let tools = tools.await.unwrap_or_default();
                match case.await {
                    Ok(Some(stored)) => view! { <Editor stored tools /> }.into_any(),
                    Ok(None) => view! { <NotFound /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

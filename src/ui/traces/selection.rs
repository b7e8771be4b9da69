//! What the Traces list does with the sessions ticked in it: "Add selected" saves each as a case
//! of an evalset (one per session, named after it); "Score…" scores them, or every one the
//! filters keep, without running the agent, as a run.

use super::session::EvalSetInput;
use crate::api::traces::add_recorded_sessions;
use crate::records::traces::{SessionsAdded, TraceSessionFilter};
use crate::ui::evaluate::ScoreRecordedForm;
use crate::ui::{error_text, eval_set_href, ErrorNote};
use leptos::prelude::*;
use std::collections::BTreeSet;

#[derive(Clone, Copy, PartialEq)]
enum Open {
    Nothing,
    Add,
    Score,
}

#[component]
pub(super) fn SelectionBar(
    app: String,
    selected: RwSignal<BTreeSet<String>>,
    filter: TraceSessionFilter,
) -> impl IntoView {
    let open = RwSignal::new(Open::Nothing);
    let count = move || selected.with(BTreeSet::len);
    let ids = Signal::derive(move || selected.with(|s| s.iter().cloned().collect::<Vec<_>>()));
    let toggle =
        move |which: Open| open.update(|open| *open = if *open == which { Open::Nothing } else { which });
    let form = move || match open.get() {
        Open::Nothing => ().into_any(),
        Open::Add => view! { <AddSelected app=app.clone() ids /> }.into_any(),
        Open::Score => {
            view! { <ScoreRecordedForm app=app.clone() session_ids=ids filter=filter.clone() /> }.into_any()
        }
    };
    view! {
        <div class="toolbar selection-bar" aria-label="Selected sessions">
            <span aria-live="polite">{move || format!("{} selected", count())}</span>
            <button aria-expanded=move || (open.get() == Open::Add).to_string() disabled=move || count() == 0
                on:click=move |_| toggle(Open::Add)>"Add selected…"</button>
            <button aria-expanded=move || (open.get() == Open::Score).to_string()
                on:click=move |_| toggle(Open::Score)>"Score…"</button>
        </div>
        {form}
    }
}

/// The evalset the selected sessions go to, and what became of each.
#[component]
fn AddSelected(app: String, ids: Signal<Vec<String>>) -> impl IntoView {
    let eval_set_id = RwSignal::new("production".to_string());
    let add = Action::new(move |(app, set, ids): &(String, String, Vec<String>)| {
        add_recorded_sessions(app.clone(), set.clone(), ids.clone())
    });
    let submit = {
        let app = app.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            add.dispatch((app.clone(), eval_set_id.get_untracked(), ids.get_untracked()));
        }
    };
    let link = {
        let app = app.clone();
        move || eval_set_href(&app, &eval_set_id.get_untracked())
    };
    let outcome = move || {
        add.value().get().map(|done| match done {
            Ok(done) => view! { <AddedNote done href=link() /> }.into_any(),
            Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
        })
    };
    view! {
        <form class="add-recorded" on:submit=submit>
            <EvalSetInput id="bulk-eval-set" label="Selected sessions to evalset" app value=eval_set_id />
            <button type="submit" class="primary" disabled=move || add.pending().get()>
                {move || format!("Add {} as cases", ids.with(Vec::len))}
            </button>
        </form>
        {outcome}
    }
}

#[component]
fn AddedNote(done: SessionsAdded, href: String) -> impl IntoView {
    let refused = (!done.refused.is_empty()).then(|| {
        let items = done
            .refused
            .into_iter()
            .map(|(session, why)| view! { <li><code>{session}</code> ": " {why}</li> })
            .collect_view();
        view! { <ul class="note note-warning refused-sessions">{items}</ul> }
    });
    let saved = done.added.len();
    view! {
        {(saved > 0).then(|| view! {
            <p class="note note-passed" role="status">
                {format!("Saved {saved} case{} to ", if saved == 1 { "" } else { "s" })}
                <a href=href>"the evalset"</a> "."
            </p>
        })}
        {refused}
    }
}

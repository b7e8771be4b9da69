//! A run's label on its page: shown, and renamed or cleared in place.

use crate::api::runs::set_run_label;
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[component]
pub(super) fn RunLabel(app: String, result_id: String, label: Option<String>) -> impl IntoView {
    let text = RwSignal::new(label.clone().unwrap_or_default());
    let saved = RwSignal::new(label);
    let error = RwSignal::new(None::<String>);
    let save = move |_| {
        let (app, result_id, label) = (app.clone(), result_id.clone(), text.get_untracked());
        spawn_local(async move {
            match set_run_label(app, result_id, label).await {
                Ok(label) => {
                    text.set(label.clone().unwrap_or_default());
                    saved.set(label);
                    error.set(None);
                }
                Err(err) => error.set(Some(error_text(&err))),
            }
        });
    };
    let changed = move || text.get().trim() != saved.get().unwrap_or_default();
    view! {
        <form class="run-label" on:submit=|ev| ev.prevent_default()>
            <label>
                "Label "
                <input
                    placeholder="Name this run (optional)"
                    maxlength="100"
                    bind:value=text
                />
            </label>
            <button type="submit" class="small" disabled=move || !changed() on:click=save>
                "Save label"
            </button>
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
        </form>
    }
}

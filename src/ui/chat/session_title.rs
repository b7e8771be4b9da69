//! The conversation's heading: the session title, renamed in place.

use crate::api::chat::rename_chat_session;
use crate::records::sessions::SessionRecord;
use crate::ui::{error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The session's title, renamed in place (Enter saves, Esc cancels).
#[component]
pub(super) fn SessionTitle(
    app: String,
    record: Option<SessionRecord>,
    sessions_changed: RwSignal<u32>,
) -> impl IntoView {
    let record = record?;
    let id = record.summary.id.clone();
    let title = RwSignal::new(record.summary.title.clone());
    let draft = RwSignal::new(None::<String>);
    let error = RwSignal::new(None::<String>);
    let save = move || {
        let Some(new_title) = draft.get_untracked() else {
            return;
        };
        let (app, id) = (app.clone(), id.clone());
        spawn_local(async move {
            match rename_chat_session(app, id, new_title.clone()).await {
                Ok(()) => {
                    title.set(new_title.trim().to_string());
                    draft.set(None);
                    error.set(None);
                    sessions_changed.update(|n| *n += 1);
                }
                Err(err) => error.set(Some(error_text(&err))),
            }
        });
    };
    Some(view! {
        <header class="session-header">
            {move || match draft.get() {
                None => view! {
                    <h1 class="session-name">
                        {move || { let t = title.get(); if t.is_empty() { "New session".to_string() } else { t } }}
                    </h1>
                    <button class="small" on:click=move |_| draft.set(Some(title.get_untracked()))>"Rename"</button>
                }
                .into_any(),
                Some(_) => {
                    let save = save.clone();
                    let save_on_enter = save.clone();
                    view! {
                        <label class="visually-hidden" for="session-title">"Session title"</label>
                        <input
                            id="session-title"
                            prop:value=move || draft.get().unwrap_or_default()
                            on:input=move |ev| draft.set(Some(event_target_value(&ev)))
                            on:keydown=move |ev| match ev.key().as_str() {
                                "Enter" => save_on_enter(),
                                "Escape" => draft.set(None),
                                _ => {}
                            }
                        />
                        <button class="small primary" on:click=move |_| save()>"Save"</button>
                        <button class="small" on:click=move |_| draft.set(None)>"Cancel"</button>
                    }
                    .into_any()
                }
            }}
            {move || error.get().map(|message| view! { <ErrorNote message /> })}
        </header>
    })
}

//! One recorded session as a transcript drawn as the chat draws a turn, and "Add to evalset",
//! which saves it as a case exactly as Add current session does.

use crate::api::evalsets::list_eval_sets;
use crate::api::traces::{add_recorded_session, get_recorded_session};
use crate::records::traces::{session_eval_id, RecordedTranscript};
use crate::ui::chat::TurnItems;
use crate::ui::{edit_href, error_text, ErrorNote};
use leptos::prelude::*;

/// A session as a transcript, with what it needs to become a case.
#[component]
pub(super) fn RecordedSession(app: String, session_id: String) -> impl IntoView {
    let transcript = Resource::new(
        move || (app.clone(), session_id.clone()),
        |(app, session_id)| get_recorded_session(app, session_id),
    );
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading the session…"</p> }>
            {move || Suspend::new(async move {
                match transcript.await {
                    Ok(Some(transcript)) => view! { <TranscriptView transcript /> }.into_any(),
                    Ok(None) => view! { <ErrorNote message="No spans of this session were received.".to_string() /> }.into_any(),
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn TranscriptView(transcript: RecordedTranscript) -> impl IntoView {
    let notes = if transcript.arriving {
        Some(view! { <p class="note" role="status">"Spans of this session are still arriving: it can be added once none has for a few seconds. Reload to see it whole."</p> }.into_any())
    } else {
        (!transcript.complete)
            .then(|| view! { <p class="note note-warning">"Some spans of this session have not arrived: it is incomplete."</p> }.into_any())
    };
    let content = transcript.content_setting.clone().map(|setting| {
        view! { <p class="note note-warning">"Its spans carry no messages. Run the agent with " <code>{setting}</code> "."</p> }
    });
    let addable = transcript.complete && !transcript.arriving && transcript.content_setting.is_none();
    let turns = transcript
        .turns
        .into_iter()
        .map(|turn| {
            view! {
                <div class="turn-block">
                    <div class="bubble bubble-user">{turn.user_message}</div>
                    <TurnItems events=turn.events />
                </div>
            }
        })
        .collect_view();
    view! {
        <section class="card recorded-session" aria-label="Recorded session">
            <h2>"Session " <code>{transcript.session_id.clone()}</code> " · " {transcript.app.clone()}</h2>
            {notes}
            {content}
            <div class="transcript">{turns}</div>
            {addable.then(|| view! { <AddToEvalSet app=transcript.app.clone() session_id=transcript.session_id.clone() /> })}
        </section>
    }
}

/// "Add to evalset": the evalset (made when new) and the case's id.
#[component]
fn AddToEvalSet(app: String, session_id: String) -> impl IntoView {
    let eval_set_id = RwSignal::new("production".to_string());
    let eval_id = RwSignal::new(session_eval_id(&session_id));
    let add = Action::new(
        move |(app, set, id, session): &(String, String, String, String)| {
            add_recorded_session(app.clone(), set.clone(), session.clone(), id.clone())
        },
    );
    let submit = {
        let app = app.clone();
        move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            add.dispatch((app.clone(), eval_set_id.get(), eval_id.get(), session_id.clone()));
        }
    };
    let set_input =
        view! { <EvalSetInput id="trace-eval-set" label="Evalset" app=app.clone() value=eval_set_id /> };
    let outcome = move || {
        add.value().get().map(|saved| match saved {
            Ok(id) => view! {
                <p class="note note-passed" role="status">
                    "Saved as " <a href=edit_href(&app, &eval_set_id.get_untracked(), &id)>{id.clone()}</a> "."
                </p>
            }
            .into_any(),
            Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
        })
    };
    view! {
        <form class="add-recorded" on:submit=submit>
            {set_input}
            <label for="trace-eval-id">"Eval id"</label>
            <input id="trace-eval-id" prop:value=move || eval_id.get()
                on:input=move |ev| eval_id.set(event_target_value(&ev)) />
            <button type="submit" disabled=move || add.pending().get()>"Add to evalset"</button>
        </form>
        {outcome}
    }
}

/// An evalset's id, typed or picked among the app's (a new one is made when saved to).
#[component]
pub(super) fn EvalSetInput(
    id: &'static str,
    label: &'static str,
    app: String,
    value: RwSignal<String>,
) -> impl IntoView {
    let sets = Resource::new(move || app.clone(), list_eval_sets);
    let list = format!("{id}-options");
    view! {
        <label for=id>{label}</label>
        <input id=id list=list.clone() prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev)) />
        <datalist id=list>
            <Transition>
                {move || Suspend::new(async move {
                    sets.await.unwrap_or_default().into_iter()
                        .map(|set| view! { <option value=set.eval_set_id /> })
                        .collect_view()
                })}
            </Transition>
        </datalist>
    }
}

//! "New scenario case": a `conversation_scenario` for the simulated user to play (its first
//! message, its plan and optionally one of ADK's personas), added to the evalset, then opened.

use super::modal::Modal;
use super::{case_href, error_text, ErrorNote};
use crate::api::cases::NewScenarioCase;
use crate::eval::simulator::built_in_personas;
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

#[component]
pub fn NewScenarioDialog(open: RwSignal<bool>, app: String, eval_set_id: String) -> impl IntoView {
    let create = ServerAction::<NewScenarioCase>::new();
    let navigate = use_navigate();
    let (to_app, to_set) = (app.clone(), eval_set_id.clone());
    Effect::new(move |_| {
        if let Some(Ok(Ok(eval_id))) = create.value().get() {
            open.set(false);
            navigate(&case_href(&to_app, &to_set, &eval_id), Default::default());
        }
    });
    let (app, eval_set_id) = (StoredValue::new(app), StoredValue::new(eval_set_id));
    view! {
        <Show when=move || open.get()>
            <Modal on_close=Callback::new(move |()| open.set(false)) labelled_by="new-scenario-title" wide=true>
                <h2 id="new-scenario-title">"New scenario case"</h2>
                <p class="muted small">
                    "A simulated user opens with the first message, then follows the plan, answering the agent until the plan is done (ADK's user simulator; the model is evalstudio.toml's [simulator], or [judge])."
                </p>
                <ActionForm action=create>
                    <input type="hidden" name="app" value=app.get_value() />
                    <input type="hidden" name="eval_set_id" value=eval_set_id.get_value() />
                    <ScenarioFields />
                    {move || {
                        let refused = match create.value().get()? {
                            Ok(Ok(_)) => return None,
                            Ok(Err(reason)) => reason,
                            Err(err) => error_text(&err),
                        };
                        Some(view! { <ErrorNote message=refused /> })
                    }}
                    <div class="dialog-actions">
                        <button type="button" on:click=move |_| open.set(false)>"Cancel"</button>
                        <button type="submit" class="primary" disabled=move || create.pending().get()>
                            "Add scenario case"
                        </button>
                    </div>
                </ActionForm>
            </Modal>
        </Show>
    }
}

/// The scenario's eval id, first message, plan and persona, named as the server function reads
/// them.
#[component]
fn ScenarioFields() -> impl IntoView {
    let personas = built_in_personas()
        .iter()
        .map(|persona| {
            view! { <option value=persona.id.clone() title=persona.description.clone()>{persona.id.clone()}</option> }
        })
        .collect_view();
    view! {
        <div class="field">
            <label for="scenario-eval-id">"Eval id"</label>
            <input
                id="scenario-eval-id"
                type="text"
                class="mono"
                name="eval_id"
                required
                pattern="[A-Za-z0-9_.\\-]+"
                title="Letters, digits, _, - and ."
                placeholder="book_a_flight"
            />
        </div>
        <div class="field">
            <label for="scenario-starting-prompt">"First user message (sent as written)"</label>
            <textarea id="scenario-starting-prompt" name="starting_prompt" rows="2" required></textarea>
        </div>
        <div class="field">
            <label for="scenario-plan">"Conversation plan"</label>
            <textarea
                id="scenario-plan"
                name="conversation_plan"
                rows="5"
                required
                placeholder="First, book a one-way flight from SFO to LAX next Tuesday morning. Once booked, rent a car for three days."
            ></textarea>
        </div>
        <div class="field">
            <label for="scenario-persona">"Persona"</label>
            <select id="scenario-persona" name="persona">
                <option value="">"None (ADK's default instructions)"</option>
                {personas}
            </select>
        </div>
    }
}

//! The agent picker at the top of the sessions list.

use super::chat_href;
use crate::api::chat::list_agent_profiles;
use leptos::prelude::*;

/// Chooses the agent profile to chat with. A change reloads the page for that app.
#[component]
pub(super) fn AgentPicker(app: String) -> impl IntoView {
    let profiles = Resource::new(|| (), |_| list_agent_profiles());
    view! {
        <label class="small muted" for="agent-picker">"Agent"</label>
        <Transition fallback=|| ()>
            {
                let app = app.clone();
                move || {
                    let app = app.clone();
                    Suspend::new(async move {
                        let names: Vec<String> =
                            profiles.await.unwrap_or_default().into_iter().map(|p| p.name).collect();
                        view! {
                            <select
                                id="agent-picker"
                                on:change=move |ev| {
                                    let _ = window().location().set_href(&chat_href(&event_target_value(&ev), None));
                                }
                            >
                                {names
                                    .into_iter()
                                    .map(|name| {
                                        let selected = name == app;
                                        view! { <option value=name.clone() selected=selected>{name.clone()}</option> }
                                    })
                                    .collect_view()}
                            </select>
                        }
                    })
                }
            }
        </Transition>
    }
}

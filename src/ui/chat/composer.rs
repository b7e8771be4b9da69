//! The message box under the transcript: Enter sends, Shift+Enter makes a new line, and Stop
//! ends the turn being answered.

use super::live_turn::LiveTurn;
use leptos::prelude::*;

#[component]
pub(super) fn Composer(
    live: RwSignal<Option<LiveTurn>>,
    #[prop(into)] on_send: Callback<String>,
    #[prop(into)] on_stop: Callback<()>,
) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let running = move || live.with(Option::is_some);
    let submit = move || {
        let message = text.get_untracked();
        if message.trim().is_empty() || live.with_untracked(Option::is_some) {
            return;
        }
        text.set(String::new());
        on_send.run(message);
    };
    view! {
        <form
            class="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                submit();
            }
        >
            <label class="visually-hidden" for="chat-input">"Message"</label>
            <textarea
                id="chat-input"
                rows="2"
                placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        submit();
                    }
                }
            ></textarea>
            {move || {
                if running() {
                    view! {
                        <button type="button" class="danger" on:click=move |_| on_stop.run(())>
                            "Stop"
                        </button>
                    }
                        .into_any()
                } else {
                    view! { <button type="submit">"Send"</button> }.into_any()
                }
            }}
        </form>
    }
}

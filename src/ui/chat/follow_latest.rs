//! Keeps the newest message in view: while the reader is at the end of the conversation, each
//! new word or turn scrolls it along; once they scroll up to read, it stops and offers a
//! "Jump to latest" button instead.

use super::live_turn::LiveTurn;
use crate::records::sessions::SessionTurn;
use crate::ui::browser;
use leptos::prelude::*;

/// How far from the end, in pixels, still counts as "at the end".
const AT_END_SLACK: f64 = 48.0;

#[component]
pub(super) fn FollowLatest(
    new_turns: RwSignal<Vec<SessionTurn>>,
    live: RwSignal<Option<LiveTurn>>,
    /// Changes when a session was loaded (or loaded again).
    #[prop(into)]
    loaded: Signal<()>,
) -> impl IntoView {
    let following = RwSignal::new(true);
    let scroll = window_event_listener(leptos::ev::scroll, move |_| {
        following.set(browser::scrolled_to_end(AT_END_SLACK));
    });
    on_cleanup(move || scroll.remove());
    Effect::new(move |_| {
        new_turns.track();
        live.track();
        loaded.track();
        if following.get_untracked() {
            browser::scroll_to_end();
        }
    });
    let jump = move |_| {
        following.set(true);
        browser::scroll_to_end();
    };
    view! {
        <button type="button" class="jump-latest small" class:hidden=move || following.get() on:click=jump>
            "↓ Jump to latest"
        </button>
    }
}

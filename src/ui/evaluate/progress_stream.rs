//! Follows a running run through its progress stream (server-sent events) instead of polling:
//! the counts and time left arrive as they change, and the run's results are read again only
//! when case runs were stored.

use crate::records::runs::RunProgress;
use crate::ui::browser::{EventHandler, ServerEvents};
use crate::ui::rest_links;
use leptos::prelude::*;

/// While `running` names a running run, listens to its progress: sets `live` on each progress
/// event and bumps `refresh` when case runs were stored and when the run ends.
pub(crate) fn follow_progress(
    app: String,
    running: Memo<Option<String>>,
    live: RwSignal<Option<RunProgress>>,
    refresh: RwSignal<u32>,
) {
    // The open stream; replacing it (or clearing it) closes the one before.
    let open: StoredValue<Option<ServerEvents>> = StoredValue::new(None);
    Effect::new(move |_| {
        open.set_value(None);
        let Some(result_id) = running.get() else {
            live.set(None);
            return;
        };
        let on_progress = move |data: String| {
            if let Ok(progress) = serde_json::from_str::<RunProgress>(&data) {
                live.set(Some(progress));
            }
        };
        let on_cases = move |_: String| refresh.update(|n| *n += 1);
        let on_end = move |_: String| {
            live.set(None);
            refresh.update(|n| *n += 1);
        };
        let handlers: Vec<(&'static str, EventHandler)> = vec![
            ("progress", Box::new(on_progress)),
            ("cases", Box::new(on_cases)),
            ("end", Box::new(on_end)),
        ];
        open.set_value(ServerEvents::open(
            &rest_links::run_progress(&app, &result_id),
            "end",
            handlers,
        ));
    });
    on_cleanup(move || open.set_value(None));
}

//! Follows a running run through its progress stream (server-sent events) instead of polling:
//! the counts and time left arrive as they change, and the run's results are read again only
//! when case runs were stored.

use crate::records::RunProgress;
use leptos::prelude::*;

/// While `running` names a running run, listens to its progress: sets `live` on each progress
/// event and bumps `refresh` when case runs were stored and when the run ends.
pub(crate) fn follow_progress(
    app: String,
    running: Memo<Option<String>>,
    live: RwSignal<Option<RunProgress>>,
    refresh: RwSignal<u32>,
) {
    #[cfg(feature = "hydrate")]
    {
        use send_wrapper::SendWrapper;
        use wasm_bindgen::{closure::Closure, JsCast};
        use web_sys::{EventSource, MessageEvent};

        /// The open stream and the listeners it needs kept alive.
        type Open = SendWrapper<(EventSource, Vec<Closure<dyn Fn(MessageEvent)>>)>;
        let open: StoredValue<Option<Open>> = StoredValue::new(None);
        let close = move || {
            if let Some(stream) = open.try_update_value(Option::take).flatten() {
                stream.take().0.close();
            }
        };
        Effect::new(move |_| {
            close();
            let Some(result_id) = running.get() else {
                live.set(None);
                return;
            };
            let url = crate::ui::rest_links::run_progress(&app, &result_id);
            let Ok(source) = EventSource::new(&url) else {
                return;
            };
            let on_progress = Closure::<dyn Fn(MessageEvent)>::new(move |ev: MessageEvent| {
                if let Some(progress) = ev
                    .data()
                    .as_string()
                    .and_then(|text| serde_json::from_str::<RunProgress>(&text).ok())
                {
                    live.set(Some(progress));
                }
            });
            let on_cases = Closure::<dyn Fn(MessageEvent)>::new(move |_| refresh.update(|n| *n += 1));
            let on_end = {
                let source = SendWrapper::new(source.clone());
                Closure::<dyn Fn(MessageEvent)>::new(move |_| {
                    source.close();
                    live.set(None);
                    refresh.update(|n| *n += 1);
                })
            };
            for (name, listener) in [("progress", &on_progress), ("cases", &on_cases), ("end", &on_end)] {
                let _ = source.add_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
            }
            open.set_value(Some(SendWrapper::new((
                source,
                vec![on_progress, on_cases, on_end],
            ))));
        });
        on_cleanup(close);
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (app, running, live, refresh);
}

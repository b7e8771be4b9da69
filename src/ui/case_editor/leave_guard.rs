//! Asks before unsaved changes are left behind: closing or reloading the tab (the browser's own
//! prompt) and following a link inside the app (a confirm before the router navigates).

use leptos::prelude::*;

/// While `dirty` is true, leaving the page asks first.
pub fn guard_leaving(dirty: Memo<bool>) {
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        use wasm_bindgen::{closure::Closure, JsCast};

        let unload = window_event_listener(leptos::ev::beforeunload, move |ev| {
            if dirty.get_untracked() {
                ev.prevent_default();
            }
        });
        // The router follows links from a listener on `window`; this one, on `document`, hears
        // the click first and can stop it.
        let on_click = Closure::<dyn Fn(web_sys::MouseEvent)>::new(move |ev: web_sys::MouseEvent| {
            let link = ev
                .target()
                .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
                .and_then(|element| element.closest("a[href]").ok().flatten());
            if link.is_none() || !dirty.get_untracked() {
                return;
            }
            let leave = window()
                .confirm_with_message("This case has unsaved changes. Leave without saving?")
                .unwrap_or(true);
            if !leave {
                ev.prevent_default();
                ev.stop_propagation();
            }
        });
        let document = document();
        let _ = document.add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
        let listener = send_wrapper::SendWrapper::new((document, on_click));
        on_cleanup(move || {
            unload.remove();
            let (document, on_click) = listener.take();
            let _ = document.remove_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
        });
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = dirty;
}

//! The browser's own APIs the pages use, in one place: local storage, the address bar, focus,
//! the page's scroll position, leaving the page, a chosen file, a details element's state and a
//! server-sent event stream. Each does its work in the browser (`hydrate`); on the server, where
//! pages are rendered but never run, each is a stand-in that does nothing. No other file of `ui`
//! names web-sys or needs a cfg for these.

pub use imp::*;

/// What one named server-sent event calls with its data.
pub type EventHandler = Box<dyn Fn(String)>;

/// A file the user chose in a file input.
pub struct ChosenFile {
    pub name: String,
    #[cfg(feature = "hydrate")]
    file: web_sys::File,
}

#[cfg(feature = "hydrate")]
mod imp {
    use super::{ChosenFile, EventHandler};
    use leptos::prelude::*;
    use send_wrapper::SendWrapper;
    use wasm_bindgen::{closure::Closure, JsCast};
    use web_sys::{EventSource, MessageEvent};

    /// The value remembered for `key` in this browser, if any.
    pub fn stored(key: &str) -> Option<String> {
        window()
            .local_storage()
            .ok()
            .flatten()?
            .get_item(key)
            .ok()
            .flatten()
    }

    /// Remembers `value` for `key` in this browser.
    pub fn store(key: &str, value: &str) {
        if let Some(storage) = window().local_storage().ok().flatten() {
            let _ = storage.set_item(key, value);
        }
    }

    /// Replaces the page's address in the browser's history, leaving the router's state alone.
    pub fn replace_address(href: &str) {
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(href));
        }
    }

    /// Whether the page is scrolled to its end, give or take `slack` pixels.
    pub fn scrolled_to_end(slack: f64) -> bool {
        let window = window();
        let top = window.scroll_y().unwrap_or(0.0);
        let seen = window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
        let height = document()
            .document_element()
            .map(|root| f64::from(root.scroll_height()))
            .unwrap_or(0.0);
        top + seen >= height - slack
    }

    /// Scrolls the page to its end once the browser has laid out what was just drawn.
    pub fn scroll_to_end() {
        request_animation_frame(|| {
            let height = document()
                .document_element()
                .map(|root| f64::from(root.scroll_height()))
                .unwrap_or(0.0);
            window().scroll_to_with_x_and_y(0.0, height);
        });
    }

    /// Scrolls the first element matching `selector` into view and focuses it (it needs a
    /// tabindex), so what it says is where the user looks.
    pub fn reveal(selector: &str) {
        let Some(element) = document().query_selector(selector).ok().flatten() else {
            return;
        };
        element.scroll_into_view();
        if let Ok(element) = element.dyn_into::<web_sys::HtmlElement>() {
            let _ = element.focus();
        }
    }

    /// Runs `change` (a move that reorders rows) and gives the focus back to the element that
    /// had it, which the move took out of the page and put back.
    pub fn keeping_focus(change: impl FnOnce()) {
        let active = document().active_element();
        change();
        if let Some(element) = active {
            request_animation_frame(move || {
                if let Ok(element) = element.dyn_into::<web_sys::HtmlElement>() {
                    let _ = element.focus();
                }
            });
        }
    }

    /// While `dirty` is true, leaving the page asks first: closing or reloading the tab (the
    /// browser's own prompt) and following a link inside the app (`question`, confirmed before
    /// the router navigates).
    pub fn guard_leaving(dirty: Memo<bool>, question: &'static str) {
        Effect::new(move |_| {
            let unload = window_event_listener(leptos::ev::beforeunload, move |ev| {
                if dirty.get_untracked() {
                    ev.prevent_default();
                }
            });
            // The router follows links from a listener on `window`; this one, on `document`,
            // hears the click first and can stop it.
            let on_click = Closure::<dyn Fn(web_sys::MouseEvent)>::new(move |ev: web_sys::MouseEvent| {
                let link = ev
                    .target()
                    .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
                    .and_then(|element| element.closest("a[href]").ok().flatten());
                if link.is_none() || !dirty.get_untracked() {
                    return;
                }
                if !window().confirm_with_message(question).unwrap_or(true) {
                    ev.prevent_default();
                    ev.stop_propagation();
                }
            });
            let document = document();
            let _ = document.add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
            let listener = SendWrapper::new((document, on_click));
            on_cleanup(move || {
                unload.remove();
                let (document, on_click) = listener.take();
                let _ =
                    document.remove_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
            });
        });
    }

    /// The file chosen in the file input `ev` is from, clearing the input so the same file can
    /// be chosen again (after it is fixed).
    pub fn take_chosen_file(ev: &leptos::ev::Event) -> Option<ChosenFile> {
        let input: web_sys::HtmlInputElement = event_target(ev);
        let file = input.files().and_then(|files| files.get(0))?;
        input.set_value("");
        Some(ChosenFile {
            name: file.name(),
            file,
        })
    }

    impl ChosenFile {
        /// The file's text; None if it cannot be read as text.
        pub async fn text(self) -> Option<String> {
            wasm_bindgen_futures::JsFuture::from(self.file.text())
                .await
                .ok()
                .and_then(|text| text.as_string())
        }
    }

    /// Whether the `<details>` that `ev` (its toggle event) is from is open now.
    pub fn details_open(ev: &leptos::ev::Event) -> bool {
        event_target::<web_sys::HtmlDetailsElement>(ev).open()
    }

    /// The stream and the listeners it needs kept alive.
    type Open = (EventSource, Vec<Closure<dyn Fn(MessageEvent)>>);

    /// An open server-sent event stream and its listeners; closed when dropped.
    pub struct ServerEvents(SendWrapper<Open>);

    impl ServerEvents {
        /// Listens to `url`, calling each handler with the data of its named events. The event
        /// named `last` closes the stream before its handler runs (else the browser would
        /// reconnect once the server ends it).
        pub fn open(
            url: &str,
            last: &'static str,
            handlers: Vec<(&'static str, EventHandler)>,
        ) -> Option<ServerEvents> {
            let source = EventSource::new(url).ok()?;
            let listeners = handlers
                .into_iter()
                .map(|(name, handle)| {
                    let closing = (name == last).then(|| SendWrapper::new(source.clone()));
                    let listener = Closure::<dyn Fn(MessageEvent)>::new(move |ev: MessageEvent| {
                        if let Some(source) = &closing {
                            source.close();
                        }
                        handle(ev.data().as_string().unwrap_or_default())
                    });
                    let _ = source.add_event_listener_with_callback(name, listener.as_ref().unchecked_ref());
                    listener
                })
                .collect();
            Some(ServerEvents(SendWrapper::new((source, listeners))))
        }
    }

    impl Drop for ServerEvents {
        fn drop(&mut self) {
            self.0 .0.close();
        }
    }
}

/// The server's stand-ins: pages are rendered there, never run, so none of these is called
/// with an effect that matters.
#[cfg(not(feature = "hydrate"))]
mod imp {
    use super::{ChosenFile, EventHandler};
    use leptos::prelude::*;

    pub fn stored(_key: &str) -> Option<String> {
        None
    }

    pub fn store(_key: &str, _value: &str) {}

    pub fn replace_address(_href: &str) {}

    pub fn scrolled_to_end(_slack: f64) -> bool {
        true
    }

    pub fn scroll_to_end() {}

    pub fn reveal(_selector: &str) {}

    pub fn keeping_focus(change: impl FnOnce()) {
        change();
    }

    pub fn guard_leaving(_dirty: Memo<bool>, _question: &'static str) {}

    pub fn take_chosen_file(_ev: &leptos::ev::Event) -> Option<ChosenFile> {
        None
    }

    pub fn details_open(_ev: &leptos::ev::Event) -> bool {
        false
    }

    impl ChosenFile {
        pub async fn text(self) -> Option<String> {
            None
        }
    }

    pub struct ServerEvents;

    impl ServerEvents {
        pub fn open(
            _url: &str,
            _last: &'static str,
            _handlers: Vec<(&'static str, EventHandler)>,
        ) -> Option<ServerEvents> {
            None
        }
    }
}

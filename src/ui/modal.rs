//! The one modal dialog shell: a dimmed overlay with the dialog on it. A click outside the
//! dialog or Escape (anywhere on the page, while it is open) closes it.

use leptos::prelude::*;

#[component]
pub fn Modal(
    /// Closes the dialog (whoever shows it decides how).
    on_close: Callback<()>,
    /// The id of the dialog's heading.
    labelled_by: &'static str,
    /// An `alertdialog` (a confirmation) rather than a `dialog`.
    #[prop(optional)]
    alert: bool,
    /// Wider, for forms.
    #[prop(optional)]
    wide: bool,
    children: Children,
) -> impl IntoView {
    let escape = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() == "Escape" {
            on_close.run(());
        }
    });
    on_cleanup(move || escape.remove());
    view! {
        <div class="overlay" on:click=move |_| on_close.run(())>
            <div
                class=if wide { "dialog dialog-wide" } else { "dialog" }
                role=if alert { "alertdialog" } else { "dialog" }
                aria-modal="true"
                aria-labelledby=labelled_by
                on:click=|ev| ev.stop_propagation()
            >
                {children()}
            </div>
        </div>
    }
}

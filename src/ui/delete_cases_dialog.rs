//! Asks before cases of an evalset's list are deleted: one row's, or the selection.

use crate::api::cases::DeleteCases;
use leptos::prelude::*;

/// Asks before deleting the cases in `asking` (one row's, or the selection).
#[component]
pub fn DeleteCasesDialog(
    asking: RwSignal<Vec<String>>,
    app: String,
    eval_set_id: String,
    delete: ServerAction<DeleteCases>,
    /// Where the ids being deleted are kept, for the undo offer.
    deleting: RwSignal<Vec<String>>,
) -> impl IntoView {
    let confirm = move |_| {
        let eval_ids = asking.get_untracked();
        deleting.set(eval_ids.clone());
        delete.dispatch(DeleteCases {
            app: app.clone(),
            eval_set_id: eval_set_id.clone(),
            eval_ids,
        });
        asking.set(Vec::new());
    };
    let title = move || match asking.with(Vec::len) {
        1 => format!("Delete {}?", asking.with(|a| a[0].clone())),
        n => format!("Delete {n} cases?"),
    };
    view! {
        <Show when=move || !asking.with(Vec::is_empty)>
            <div class="overlay" on:click=move |_| asking.set(Vec::new())>
                <div
                    class="dialog"
                    role="alertdialog"
                    aria-modal="true"
                    aria-labelledby="delete-cases-title"
                    on:click=|ev| ev.stop_propagation()
                    on:keydown=move |ev| {
                        if ev.key() == "Escape" {
                            asking.set(Vec::new());
                        }
                    }
                >
                    <h2 id="delete-cases-title">{title}</h2>
                    <p>"You can undo this from this page for a day; after that it is gone."</p>
                    <div class="dialog-actions">
                        <button on:click=move |_| asking.set(Vec::new())>"Cancel"</button>
                        <button class="danger" on:click=confirm.clone()>"Delete"</button>
                    </div>
                </div>
            </div>
        </Show>
    }
}

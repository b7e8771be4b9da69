//! Asks before cases of an evalset's list are deleted: one row's, or the selection.

use super::modal::Modal;
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
    let confirm = Callback::new(move |()| {
        let eval_ids = asking.get_untracked();
        deleting.set(eval_ids.clone());
        delete.dispatch(DeleteCases {
            app: app.clone(),
            eval_set_id: eval_set_id.clone(),
            eval_ids,
        });
        asking.set(Vec::new());
    });
    let title = move || match asking.with(Vec::len) {
        1 => format!("Delete {}?", asking.with(|a| a[0].clone())),
        n => format!("Delete {n} cases?"),
    };
    view! {
        <Show when=move || !asking.with(Vec::is_empty)>
            <Modal on_close=Callback::new(move |()| asking.set(Vec::new())) labelled_by="delete-cases-title" alert=true>
                <h2 id="delete-cases-title">{title}</h2>
                <p>"You can undo this from this page for a day; after that it is gone."</p>
                <div class="dialog-actions">
                    <button on:click=move |_| asking.set(Vec::new())>"Cancel"</button>
                    <button class="danger" on:click=move |_| confirm.run(())>"Delete"</button>
                </div>
            </Modal>
        </Show>
    }
}

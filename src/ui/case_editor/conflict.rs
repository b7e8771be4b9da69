//! A save that found the case changed since the editor opened it: the difference between the
//! stored case and the user's, and the choice to reload theirs or overwrite it with this one.

use crate::evalset::{case_diff, EvalCase};
use crate::records::cases::StoredCase;
use crate::ui::diff_view::DiffView;
use leptos::prelude::*;

#[component]
pub fn ConflictPanel(
    stored: StoredCase,
    mine: EvalCase,
    opened_version: i64,
    on_reload: Callback<()>,
    on_overwrite: Callback<()>,
    /// A save is under way (an overwrite must not be sent twice).
    pending: Signal<bool>,
) -> impl IntoView {
    let lines = case_diff(&stored.case, &mine);
    view! {
        <section class="card conflict" role="alert" aria-labelledby="conflict-title">
            <h2 id="conflict-title">"This case changed since you opened it"</h2>
            <p>
                "You opened version " {opened_version} "; version " {stored.version}
                " was saved since. Nothing was overwritten. Here is the stored case against yours:"
            </p>
            <DiffView lines old_label="stored".to_string() new_label="yours".to_string() />
            <div class="button-row">
                <button type="button" on:click=move |_| on_reload.run(())>
                    "Reload the stored case (drop my changes)"
                </button>
                <button
                    type="button"
                    class="danger"
                    disabled=move || pending.get()
                    on:click=move |_| on_overwrite.run(())
                >
                    "Overwrite it with mine"
                </button>
            </div>
        </section>
    }
}

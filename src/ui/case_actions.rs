//! The case page's actions: edit, duplicate (then open the copy) and delete, asked first, after which
//! the evalset page offers to undo it.

use super::modal::Modal;
use super::{case_href, edit_href, encode_query_value, error_text, eval_set_href, ErrorNote};
use crate::api::cases::{DeleteCase, DuplicateCase};
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

#[component]
pub fn CaseActions(app: String, eval_set_id: String, eval_id: String) -> impl IntoView {
    let duplicate = ServerAction::<DuplicateCase>::new();
    let delete = ServerAction::<DeleteCase>::new();
    let asking = RwSignal::new(false);
    let navigate = use_navigate();
    {
        let (app, set, navigate) = (app.clone(), eval_set_id.clone(), navigate.clone());
        Effect::new(move |_| {
            if let Some(Ok(copy)) = duplicate.value().get() {
                navigate(&case_href(&app, &set, &copy), Default::default());
            }
        });
    }
    {
        let (app, set, id) = (app.clone(), eval_set_id.clone(), eval_id.clone());
        Effect::new(move |_| {
            if let Some(Ok(())) = delete.value().get() {
                let href = format!(
                    "{}?deleted={}",
                    eval_set_href(&app, &set),
                    encode_query_value(&id)
                );
                navigate(&href, Default::default());
            }
        });
    }
    let edit = edit_href(&app, &eval_set_id, &eval_id);
    let args = move || (app.clone(), eval_set_id.clone(), eval_id.clone());
    let on_duplicate = {
        let args = args.clone();
        move |_| {
            let (app, eval_set_id, eval_id) = args();
            duplicate.dispatch(DuplicateCase {
                app,
                eval_set_id,
                eval_id,
            });
        }
    };
    let on_delete = Callback::new(move |()| {
        let (app, eval_set_id, eval_id) = args();
        delete.dispatch(DeleteCase {
            app,
            eval_set_id,
            eval_id,
        });
        asking.set(false);
    });
    let error = move || {
        let failed = |value: Option<Result<_, ServerFnError>>| value.and_then(Result::err);
        failed(duplicate.value().get().map(|r| r.map(|_| ()))).or_else(|| failed(delete.value().get()))
    };
    view! {
        <div class="case-actions">
            <a class="button primary" href=edit>"Edit"</a>
            <button on:click=on_duplicate disabled=move || duplicate.pending().get()>"Duplicate"</button>
            <button class="danger" on:click=move |_| asking.set(true)>"Delete"</button>
        </div>
        {move || error().map(|err| view! { <ErrorNote message=error_text(&err) /> })}
        <Show when=move || asking.get()>
            <Modal on_close=Callback::new(move |()| asking.set(false)) labelled_by="delete-case-title" alert=true>
                <h2 id="delete-case-title">"Delete this case?"</h2>
                <p>"You can undo this from the evalset page for a day; after that it is gone."</p>
                <div class="dialog-actions">
                    <button on:click=move |_| asking.set(false)>"Cancel"</button>
                    <button class="danger" on:click=move |_| on_delete.run(())>"Delete case"</button>
                </div>
            </Modal>
        </Show>
    }
}

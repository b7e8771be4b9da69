//! Folder mode on the pages: the open folder in the header, and on an evalset's page its file
//! (where it is, why it cannot be read, that a first save reformats it), read again whenever
//! the file changes on disk.

use super::browser::{EventHandler, ServerEvents};
use super::rest_links;
use crate::api::folder::{eval_set_file_status, open_folder};
use crate::records::evalsets::EvalSetFile;
use leptos::prelude::*;

/// The agents folder, in the header; nothing outside folder mode.
#[component]
pub fn FolderBadge() -> impl IntoView {
    let folder = OnceResource::new(open_folder());
    view! {
        <Suspense>
            {move || Suspend::new(async move {
                folder.await.ok().flatten().map(|folder| {
                    let chat_off = folder.chat_off.clone();
                    let title = format!("Agents folder: {}", folder.path);
                    view! {
                        // Long paths lose their start, not the folder's own name.
                        <span class="folder-badge mono" title=title>
                            <bdi>{folder.path}</bdi>
                        </span>
                        {chat_off.map(|why| view! { <span class="folder-badge warn" title=why>"chat off"</span> })}
                    }
                })
            })}
        </Suspense>
    }
}

/// The evalset's file, with what the user must know before saving. Bumps `changed` whenever
/// the file changes on disk, so the page reads the evalset again.
#[component]
pub fn EvalSetFileNote(app: String, eval_set_id: String, changed: RwSignal<u32>) -> impl IntoView {
    let file = Resource::new(
        {
            let (app, id) = (app.clone(), eval_set_id.clone());
            move || (app.clone(), id.clone(), changed.get())
        },
        |(app, id, _)| eval_set_file_status(app, id),
    );
    let in_folder = Signal::derive(move || file.get().and_then(Result::ok).flatten().is_some());
    follow_file(app, eval_set_id, in_folder, changed);
    view! {
        <Transition>
            {move || Suspend::new(async move { file.await.ok().flatten().map(|file| view! { <FileLine file /> }) })}
        </Transition>
    }
}

#[component]
fn FileLine(file: EvalSetFile) -> impl IntoView {
    let EvalSetFile {
        path,
        problem,
        reformat_on_save,
    } = file;
    match (problem, reformat_on_save) {
        (Some(problem), _) => view! {
            <div class="notice error" role="alert">
                <p>
                    <code>{format!("{path}:{}:{}", problem.line, problem.column)}</code>
                    " does not parse: " {problem.message}
                    ". Evalstudio shows what it last read and will not write this file; fix it on disk and it is read again."
                </p>
            </div>
        }
        .into_any(),
        (None, true) => view! {
            <div class="notice" role="status">
                <p>
                    <code>{path}</code>
                    " is not formatted as ADK writes it: the first change saved here rewrites the whole file in ADK's formatting."
                </p>
            </div>
        }
        .into_any(),
        (None, false) => view! { <p class="muted file-line">"File: " <code>{path}</code></p> }.into_any(),
    }
}

/// Listens for the file's changes on disk while the page is open, once it is known to be in
/// folder mode (outside it there is no stream to listen to).
fn follow_file(app: String, eval_set_id: String, in_folder: Signal<bool>, changed: RwSignal<u32>) {
    let open: StoredValue<Option<ServerEvents>> = StoredValue::new(None);
    Effect::new(move |_| {
        if !in_folder.get() || open.with_value(Option::is_some) {
            return;
        }
        let on_change: EventHandler = Box::new(move |_| changed.update(|n| *n += 1));
        open.set_value(ServerEvents::open(
            &rest_links::eval_set_changes(&app, &eval_set_id),
            "",
            vec![("changed", on_change)],
        ));
    });
    on_cleanup(move || open.set_value(None));
}

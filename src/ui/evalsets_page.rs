//! The evalsets page: list with case counts, create, delete (confirmed), import, export.

use super::modal::Modal;
use super::{browser, count, error_text, eval_set_href, rest_links, short_time, ErrorNote};
use crate::api::{
    import_eval_set, list_apps, list_eval_sets, CreateEvalSet, DeleteEvalSet, ImportOutcome, DEFAULT_APP,
};
use crate::records::evalsets::{EvalSetSummary, ImportSummary};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::hooks::use_query_map;

/// Where an import stands.
#[derive(Clone, Debug, PartialEq)]
enum ImportState {
    Idle,
    Working(String),
    Done(ImportSummary),
    /// The id is taken: the file is kept so the user can choose to replace.
    Exists {
        file_name: String,
        content: String,
        eval_set_id: String,
    },
    Failed {
        file_name: String,
        message: String,
    },
}

#[component]
pub fn EvalSetsPage() -> impl IntoView {
    let query = use_query_map();
    let app = Memo::new(move |_| query.read().get("app").unwrap_or_else(|| DEFAULT_APP.to_string()));
    let create = ServerAction::<CreateEvalSet>::new();
    let delete = ServerAction::<DeleteEvalSet>::new();
    let importer = Importer::new(app);
    let eval_sets = Resource::new(
        move || {
            (
                app.get(),
                create.version().get(),
                delete.version().get(),
                importer.done.get(),
            )
        },
        |(app, ..)| list_eval_sets(app),
    );
    let apps = Resource::new(move || importer.done.get(), |_| list_apps());
    let pending_delete = RwSignal::new(None::<EvalSetSummary>);
    view! {
        <div class="page-header">
            <div>
                <h1>"Evalsets"</h1>
                <p class="muted">
                    "ADK evalset files: import them, browse their cases, export them unchanged."
                </p>
            </div>
            <AppPicker app apps />
        </div>
        <section class="toolbar" aria-label="Add evalsets">
            <CreateForm app create />
            <ImportControls importer />
        </section>
        <ActionError value=Signal::derive(move || create.value().get()) />
        <ActionError value=Signal::derive(move || delete.value().get()) />
        <ImportStatus state=importer.state on_replace=move |(name, content)| importer.run(name, content, true) />
        <EvalSetList eval_sets pending_delete />
        <ConfirmDelete pending_delete delete />
    }
}

/// Imports files into the app shown, one at a time, and says how each went.
#[derive(Clone, Copy)]
struct Importer {
    app: Memo<String>,
    state: RwSignal<ImportState>,
    /// The evalset id to import under, when the file's own is not the one wanted.
    import_as: RwSignal<String>,
    /// Bumped by each import that stored something.
    done: RwSignal<u32>,
}

impl Importer {
    fn new(app: Memo<String>) -> Self {
        Importer {
            app,
            state: RwSignal::new(ImportState::Idle),
            import_as: RwSignal::new(String::new()),
            done: RwSignal::new(0),
        }
    }

    /// Imports `content` (replacing an evalset of the same id when `replace`).
    fn run(self, file_name: String, content: String, replace: bool) {
        self.state.set(ImportState::Working(file_name.clone()));
        spawn_local(async move {
            let app = self.app.get_untracked();
            let id = Some(self.import_as.get_untracked());
            let next = match import_eval_set(app, file_name.clone(), content.clone(), replace, id).await {
                Ok(ImportOutcome::Imported(summary)) => {
                    self.done.update(|n| *n += 1);
                    ImportState::Done(summary)
                }
                Ok(ImportOutcome::AlreadyExists { eval_set_id }) => ImportState::Exists {
                    file_name,
                    content,
                    eval_set_id,
                },
                Ok(ImportOutcome::Invalid(err)) => ImportState::Failed {
                    file_name,
                    message: format!(
                        "{}: {} (line {}, column {})",
                        err.path, err.message, err.line, err.column
                    ),
                },
                Err(err) => ImportState::Failed {
                    file_name,
                    message: error_text(&err),
                },
            };
            self.state.set(next);
        });
    }

    /// Reads the file the user chose, then imports it.
    fn import_chosen(self, ev: leptos::ev::Event) {
        let Some(file) = browser::take_chosen_file(&ev) else {
            return;
        };
        let file_name = file.name.clone();
        self.state.set(ImportState::Working(file_name.clone()));
        spawn_local(async move {
            match file.text().await {
                Some(content) => self.run(file_name, content, false),
                None => self.state.set(ImportState::Failed {
                    file_name,
                    message: "the file could not be read as text".into(),
                }),
            }
        });
    }
}

/// A new, empty evalset by id.
#[component]
fn CreateForm(app: Memo<String>, create: ServerAction<CreateEvalSet>) -> impl IntoView {
    view! {
        <div class="inline-form">
            <ActionForm action=create>
                <input type="hidden" name="app" value=move || app.get() />
                <label for="new-eval-set-id">"New evalset"</label>
                <input
                    id="new-eval-set-id"
                    name="eval_set_id"
                    required
                    pattern="[A-Za-z0-9_.\\-]+"
                    placeholder="weather_smoke"
                    title="Letters, digits, _, - and ."
                />
                <button type="submit" disabled=move || create.pending().get()>
                    {move || if create.pending().get() { "Creating…" } else { "Create" }}
                </button>
            </ActionForm>
        </div>
    }
}

/// The id to import under, and the file picker.
#[component]
fn ImportControls(importer: Importer) -> impl IntoView {
    view! {
        <label class="import-as">
            "Import as "
            <input
                placeholder="the file's own id"
                pattern="[A-Za-z0-9_.\\-]+"
                title="An evalset id to import the file under instead of its own: letters, digits, _, - and ."
                bind:value=importer.import_as
            />
        </label>
        <label class="button file-button">
            "Import file…"
            <input
                type="file"
                accept=".json,application/json"
                data-testid="import-file"
                on:change=move |ev| importer.import_chosen(ev)
            />
        </label>
    }
}

/// What a failed create or delete said.
#[component]
fn ActionError(value: Signal<Option<Result<(), ServerFnError>>>) -> impl IntoView {
    move || {
        value
            .get()
            .and_then(Result::err)
            .map(|err| view! { <ErrorNote message=error_text(&err) /> })
    }
}

/// The app's evalsets, or what to do when it has none.
#[component]
fn EvalSetList(
    eval_sets: Resource<Result<Vec<EvalSetSummary>, ServerFnError>>,
    pending_delete: RwSignal<Option<EvalSetSummary>>,
) -> impl IntoView {
    view! {
        <Transition fallback=|| view! { <p class="muted">"Loading evalsets…"</p> }>
            {move || Suspend::new(async move {
                match eval_sets.await {
                    Err(err) => view! { <ErrorNote message=error_text(&err) /> }.into_any(),
                    Ok(sets) if sets.is_empty() => {
                        view! {
                            <div class="empty-state">
                                <h2>"No evalsets yet"</h2>
                                <p>
                                    "Import an ADK "<code>".evalset.json"</code>" or legacy "
                                    <code>".test.json"</code>" file, or create an empty evalset above."
                                </p>
                            </div>
                        }
                            .into_any()
                    }
                    Ok(sets) => view! { <EvalSetTable sets pending_delete /> }.into_any(),
                }
            })}
        </Transition>
    }
}

/// Switches between apps (agent profiles) that have evalsets.
#[component]
fn AppPicker(app: Memo<String>, apps: Resource<Result<Vec<String>, ServerFnError>>) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                let names = apps.await.unwrap_or_default();
                (names.len() > 1)
                    .then(|| {
                        view! {
                            <nav class="app-picker" aria-label="Apps">
                                <span class="muted">"App"</span>
                                {names
                                    .into_iter()
                                    .map(|name| {
                                        let current = name == app.get_untracked();
                                        view! {
                                            <a
                                                href=format!("/?app={name}")
                                                class:current=current
                                                aria-current=current.then_some("page")
                                            >
                                                {name.clone()}
                                            </a>
                                        }
                                    })
                                    .collect_view()}
                            </nav>
                        }
                    })
            })}
        </Transition>
    }
}

#[component]
fn ImportStatus(
    state: RwSignal<ImportState>,
    #[prop(into)] on_replace: Callback<(String, String)>,
) -> impl IntoView {
    move || {
        match state.get() {
        ImportState::Idle => ().into_any(),
        ImportState::Working(name) => view! {
            <p class="note note-running" role="status">
                <span class="status-icon" aria-hidden="true">"↻"</span>
                "Importing " <code>{name}</code> "…"
            </p>
        }
        .into_any(),
        ImportState::Done(summary) => view! {
            <p class="note note-passed" role="status">
                <span class="status-icon" aria-hidden="true">"✓"</span>
                "Imported " <strong>{count(summary.cases as i64, "case")}</strong> " into " <code>{summary.eval_set_id}</code>
                " (" {summary.format} {summary.replaced.then_some(", replaced the old one")} ")."
            </p>
        }
        .into_any(),
        ImportState::Failed { file_name, message } => view! {
            <div class="note note-error" role="alert">
                <span class="status-icon" aria-hidden="true">"⚠"</span>
                <code>{file_name}</code> " was not imported. Nothing was changed."
                <pre class="error-detail">{message}</pre>
            </div>
        }
        .into_any(),
        ImportState::Exists { file_name, content, eval_set_id } => {
            let replace = move |_| on_replace.run((file_name.clone(), content.clone()));
            view! {
                <div class="note note-warning" role="alert">
                    <span class="status-icon" aria-hidden="true">"!"</span>
                    "An evalset " <code>{eval_set_id}</code> " already exists in this app: replace it, or type another id in Import as and choose the file again. "
                    <button class="danger" on:click=replace>"Replace it"</button>
                    <button on:click=move |_| state.set(ImportState::Idle)>"Cancel"</button>
                </div>
            }
            .into_any()
        }
    }
    }
}

#[component]
fn EvalSetTable(
    sets: Vec<EvalSetSummary>,
    pending_delete: RwSignal<Option<EvalSetSummary>>,
) -> impl IntoView {
    view! {
        <table class="data-table">
            <thead>
                <tr>
                    <th scope="col">"Evalset"</th>
                    <th scope="col" class="hide-narrow">"Description"</th>
                    <th scope="col" class="num">"Cases"</th>
                    <th scope="col">"Updated"</th>
                    <th scope="col" class="actions">
                        <span class="visually-hidden">"Actions"</span>
                    </th>
                </tr>
            </thead>
            <tbody>
                {sets
                    .into_iter()
                    .map(|set| {
                        let for_delete = set.clone();
                        let download = format!("{}.evalset.json", set.eval_set_id);
                        view! {
                            <tr>
                                <td>
                                    <a class="mono" href=eval_set_href(&set.app_name, &set.eval_set_id)>
                                        {set.eval_set_id.clone()}
                                    </a>
                                    {set
                                        .name
                                        .clone()
                                        .filter(|name| *name != set.eval_set_id)
                                        .map(|name| view! { <div class="muted">{name}</div> })}
                                </td>
                                <td class="muted hide-narrow">{set.description.clone().unwrap_or_default()}</td>
                                <td class="num">{set.case_count}</td>
                                <td class="muted nowrap">{short_time(&set.updated_at)}</td>
                                <td class="actions">
                                    <a
                                        class="button"
                                        href=rest_links::eval_set_export(&set.app_name, &set.eval_set_id)
                                        download=download
                                        rel="external"
                                    >
                                        "Export"
                                    </a>
                                    <button
                                        class="danger"
                                        on:click=move |_| pending_delete.set(Some(for_delete.clone()))
                                    >
                                        "Delete"
                                    </button>
                                </td>
                            </tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
}

/// Asks before deleting an evalset; Esc, a click outside or Cancel closes it.
#[component]
fn ConfirmDelete(
    pending_delete: RwSignal<Option<EvalSetSummary>>,
    delete: ServerAction<DeleteEvalSet>,
) -> impl IntoView {
    let cancel = move || pending_delete.set(None);
    // Focus starts on Cancel, so Enter never deletes by accident.
    let cancel_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(button) = cancel_button.get() {
            let _ = button.focus();
        }
    });
    move || {
        pending_delete.get().map(|set| {
            let confirm = {
                let set = set.clone();
                move |_| {
                    delete.dispatch(DeleteEvalSet {
                        app: set.app_name.clone(),
                        eval_set_id: set.eval_set_id.clone(),
                    });
                    pending_delete.set(None);
                }
            };
            view! {
                <Modal on_close=Callback::new(move |()| cancel()) labelled_by="confirm-title" alert=true>
                    <h2 id="confirm-title">"Delete " <code>{set.eval_set_id.clone()}</code> "?"</h2>
                    <p>
                        "This deletes the evalset and its " <strong>{count(set.case_count, "case")}</strong>
                        ". Export it first if you may want it back."
                    </p>
                    <div class="dialog-actions">
                        <button node_ref=cancel_button on:click=move |_| cancel()>"Cancel"</button>
                        <button class="danger" on:click=confirm>"Delete evalset"</button>
                    </div>
                </Modal>
            }
        })
    }
}

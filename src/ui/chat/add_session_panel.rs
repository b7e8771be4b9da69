//! The chat page's Eval panel, "Add current session": saves the session as an eval case whose
//! expected trajectory is what the agent did, into an existing evalset or a new one. The
//! evalset offered first is the one this browser last saved into for the app; with none, a new
//! one, so a session is never filed quietly into an unrelated set.

use crate::api::chat::{add_chat_session_to_eval_set, suggested_eval_id, AddSessionOutcome};
use crate::api::list_eval_sets;
use crate::evalset::validate_eval_id;
use crate::records::evalsets::EvalSetSummary;
use crate::records::sessions::{SessionRecord, SessionTurn};
use crate::ui::{browser, case_href, edit_href, error_text, ErrorNote};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// What the user has chosen and typed in the panel, and the last save's outcome. The page owns
/// it: the panel is drawn again whenever its session loads (a new session's, once it has an
/// id and again after its first answer), and what was typed meanwhile must stay.
#[derive(Clone, Copy)]
pub(super) struct AddSessionForm {
    chosen: RwSignal<String>,
    new_set_id: RwSignal<String>,
    eval_id: RwSignal<String>,
    /// Whether to say what is wrong with the eval id: once it was typed in or saving was tried.
    checked: RwSignal<bool>,
    outcome: RwSignal<Option<Result<AddSessionOutcome, String>>>,
    saving: RwSignal<bool>,
    /// Bumped when another session is shown: a save started before then is not reported.
    session_epoch: StoredValue<u32>,
    /// Set while the session being typed about gets its id (the page's first send).
    adopting: StoredValue<bool>,
    /// Set once the evalset last used was offered: later drawings keep the user's choice.
    recalled: StoredValue<bool>,
}

impl AddSessionForm {
    pub(super) fn new() -> Self {
        AddSessionForm {
            chosen: RwSignal::new(String::new()),
            new_set_id: RwSignal::new(String::from("my_evalset")),
            eval_id: RwSignal::new(String::new()),
            checked: RwSignal::new(false),
            outcome: RwSignal::new(None),
            saving: RwSignal::new(false),
            session_epoch: StoredValue::new(0),
            adopting: StoredValue::new(false),
            recalled: StoredValue::new(false),
        }
    }

    /// The next change of session is the new session of this page's first send getting its id,
    /// not another session.
    pub(super) fn adopt_new_session(&self) {
        self.adopting.set_value(true);
    }

    /// The page shows another session: its own case id, no outcome, no save under way (the
    /// evalset choice stays). The session adopted after a first send keeps everything.
    pub(super) fn session_changed(&self) {
        if self.adopting.get_value() {
            self.adopting.set_value(false);
            return;
        }
        self.session_epoch.update_value(|epoch| *epoch += 1);
        self.eval_id.set(String::new());
        self.checked.set(false);
        self.outcome.set(None);
        self.saving.set(false);
    }
}

/// The evalset menu's value for "+ New evalset…".
const NEW: &str = "__new__";

/// "Add current session": pick or create an evalset, name the case, save.
#[component]
pub(super) fn AddSessionPanel(
    app: String,
    record: Option<SessionRecord>,
    new_turns: RwSignal<Vec<SessionTurn>>,
    form: AddSessionForm,
) -> impl IntoView {
    let remembered_key = StoredValue::new(format!("evalstudio.add_session_set.{app}"));
    let session_id = record.as_ref().map(|r| r.summary.id.clone());
    let has_turns = {
        let loaded = record.as_ref().is_some_and(|r| !r.turns.is_empty());
        move || loaded || !new_turns.read().is_empty()
    };
    let eval_sets = {
        let app = app.clone();
        Resource::new(|| (), move |_| list_eval_sets(app.clone()))
    };
    suggest_eval_id(form.eval_id, record.as_ref(), new_turns);
    let save = Callback::new({
        let saver = SessionSaver {
            app,
            session_id,
            form,
            eval_sets,
            remembered_key,
        };
        move |overwrite: bool| saver.save(overwrite)
    });
    let AddSessionForm { saving, outcome, .. } = form;

    view! {
        <aside class="eval-panel card" aria-label="Eval">
            <h2>"Eval"</h2>
            <p class="muted small">"Save this session as an eval case: its tool calls become the expected trajectory."</p>
            <EvalSetChoice eval_sets form remembered_key />
            <EvalIdField form />
            <button
                type="button"
                class="primary"
                disabled=move || !has_turns() || saving.get()
                on:click=move |_| save.run(false)
            >
                {move || if saving.get() { "Saving…" } else { "Add current session" }}
            </button>
            {move || (!has_turns()).then(|| view! { <p class="muted small">"Chat first: an empty session has nothing to save."</p> })}
            {move || outcome.get().map(|result| view! { <SaveOutcome result outcome save /> })}
        </aside>
    }
}

/// Suggests a case id from the session's first message, now or when its first answer arrives
/// (after the panel is drawn), unless one was typed.
fn suggest_eval_id(
    eval_id: RwSignal<String>,
    record: Option<&SessionRecord>,
    new_turns: RwSignal<Vec<SessionTurn>>,
) {
    if eval_id.get_untracked().is_empty() {
        if let Some(turn) = record.and_then(|r| r.turns.first()) {
            eval_id.set(suggested_eval_id(&turn.user_message));
        }
    }
    Effect::new(move |_| {
        if eval_id.get_untracked().is_empty() {
            if let Some(turn) = new_turns.read().first() {
                eval_id.set(suggested_eval_id(&turn.user_message));
            }
        }
    });
}

/// What saving the shown session needs.
struct SessionSaver {
    app: String,
    session_id: Option<String>,
    form: AddSessionForm,
    eval_sets: Resource<Result<Vec<EvalSetSummary>, ServerFnError>>,
    remembered_key: StoredValue<String>,
}

impl SessionSaver {
    /// Saves the session as the typed case (over an existing one when `overwrite`), into the
    /// chosen evalset or a new one, and reports the outcome unless the page moved on.
    fn save(&self, overwrite: bool) {
        let AddSessionForm {
            chosen,
            new_set_id,
            eval_id,
            checked,
            outcome,
            saving,
            session_epoch,
            ..
        } = self.form;
        let Some(session_id) = self.session_id.clone() else {
            return;
        };
        checked.set(true);
        if validate_eval_id(&eval_id.get_untracked()).is_err() {
            return;
        }
        let creating = chosen.get_untracked() == NEW || chosen.get_untracked().is_empty();
        let set_id = if creating {
            new_set_id.get_untracked()
        } else {
            chosen.get_untracked()
        };
        saving.set(true);
        let epoch = session_epoch.get_value();
        let (app, eval_sets, remembered_key) = (self.app.clone(), self.eval_sets, self.remembered_key);
        spawn_local(async move {
            let result = add_chat_session_to_eval_set(
                app,
                set_id.clone(),
                creating,
                eval_id.get_untracked(),
                session_id,
                overwrite,
            )
            .await
            .map_err(|err| error_text(&err));
            // The page has moved on to another session: this outcome is not its.
            if session_epoch.get_value() != epoch {
                return;
            }
            if matches!(result, Ok(AddSessionOutcome::Added(_))) {
                browser::store(&remembered_key.get_value(), &set_id);
                if creating {
                    eval_sets.refetch();
                    chosen.set(set_id);
                }
            }
            outcome.set(Some(result));
            saving.set(false);
        });
    }
}

/// The evalset to save into: the app's evalsets and "+ New evalset…" (with its id field). The
/// one this browser last saved into is offered first.
#[component]
fn EvalSetChoice(
    eval_sets: Resource<Result<Vec<EvalSetSummary>, ServerFnError>>,
    form: AddSessionForm,
    remembered_key: StoredValue<String>,
) -> impl IntoView {
    let AddSessionForm { chosen, recalled, .. } = form;
    view! {
        <label for="eval-set-select">"Evalset"</label>
        <Transition fallback=|| view! { <p class="muted small">"Loading evalsets…"</p> }>
            {move || Suspend::new(async move {
                let sets = eval_sets.await.unwrap_or_default();
                if chosen.get_untracked().is_empty() {
                    chosen.set(NEW.to_string());
                }
                // Local storage is read once the page runs (the server cannot), so both draw the same first.
                let ids: Vec<String> = sets.iter().map(|s| s.eval_set_id.clone()).collect();
                Effect::new(move |_| {
                    if recalled.get_value() {
                        return;
                    }
                    recalled.set_value(true);
                    let last_used = browser::stored(&remembered_key.get_value()).filter(|id| ids.contains(id));
                    if let (Some(id), true) = (last_used, chosen.get_untracked() == NEW) {
                        chosen.set(id);
                    }
                });
                view! { <EvalSetSelect sets form /> }
            })}
        </Transition>
    }
}

/// The evalset menu, and the new evalset's id while "+ New evalset…" is chosen.
#[component]
fn EvalSetSelect(sets: Vec<EvalSetSummary>, form: AddSessionForm) -> impl IntoView {
    let AddSessionForm {
        chosen, new_set_id, ..
    } = form;
    let options = sets
        .into_iter()
        .map(|s| {
            let id = s.eval_set_id.clone();
            view! { <option value=id.clone() selected=move || chosen.get() == id>{s.eval_set_id}</option> }
        })
        .collect_view();
    view! {
        <select
            id="eval-set-select"
            on:change=move |ev| chosen.set(event_target_value(&ev))
            prop:value=move || chosen.get()
        >
            {options}
            <option value=NEW selected=move || chosen.get() == NEW>
                "+ New evalset…"
            </option>
        </select>
        // Inside the Suspend, like the choice it depends on, so server and browser draw the same.
        {move || {
            (chosen.get() == NEW)
                .then(|| {
                    view! {
                        <label for="new-eval-set">"New evalset id"</label>
                        <input
                            id="new-eval-set"
                            prop:value=move || new_set_id.get()
                            on:input=move |ev| new_set_id.set(event_target_value(&ev))
                        />
                    }
                })
        }}
    }
}

/// The case's eval id, with what is wrong with it once it was typed in or saving was tried.
#[component]
fn EvalIdField(form: AddSessionForm) -> impl IntoView {
    let AddSessionForm { eval_id, checked, .. } = form;
    let shown_problem = move || {
        checked
            .get()
            .then(|| validate_eval_id(&eval_id.get()).err())
            .flatten()
    };
    view! {
        <label for="eval-id">"Eval id"</label>
        <input
            id="eval-id"
            prop:value=move || eval_id.get()
            on:input=move |ev| {
                checked.set(true);
                eval_id.set(event_target_value(&ev));
            }
        />
        {move || shown_problem().map(|problem| view! { <p class="field-error small">{problem}</p> })}
    }
}

/// What the last save did: the saved case's links, the offer to overwrite a case of that id,
/// or the error.
#[component]
fn SaveOutcome(
    result: Result<AddSessionOutcome, String>,
    outcome: RwSignal<Option<Result<AddSessionOutcome, String>>>,
    save: Callback<bool>,
) -> impl IntoView {
    match result {
        Ok(AddSessionOutcome::Added(stored)) => {
            let href = case_href(&stored.app_name, &stored.eval_set_id, &stored.case.eval_id);
            let edit = edit_href(&stored.app_name, &stored.eval_set_id, &stored.case.eval_id);
            view! {
                <p class="note note-passed" role="status">
                    <span class="status-icon" aria-hidden="true">"✓"</span>
                    "Saved as " <a href=href>{stored.case.eval_id.clone()}</a> " in "
                    <code>{stored.eval_set_id.clone()}</code> ". "
                    <a class="button small" href=edit>"Open in editor"</a>
                </p>
            }
            .into_any()
        }
        Ok(AddSessionOutcome::Exists { eval_id: taken }) => view! {
            <div class="note note-warning" role="alert">
                <span class="status-icon" aria-hidden="true">"!"</span>
                "A case " <code>{taken}</code> " already exists in this evalset."
                <button class="danger small" on:click=move |_| save.run(true)>"Overwrite it"</button>
                <button class="small" on:click=move |_| outcome.set(None)>"Cancel"</button>
            </div>
        }
        .into_any(),
        Err(message) => view! { <ErrorNote message /> }.into_any(),
    }
}

//! Saving a case from the editor: the draft against what was last saved, Save with the version
//! the case was opened at, and what a save found (saved, renamed, or changed meanwhile: the
//! conflict the user settles by reloading or overwriting).

use crate::api::cases::{SaveCase, SaveOutcome};
use crate::draft::{CaseDraft, Problem};
use crate::evalset::EvalCase;
use crate::records::cases::StoredCase;
use crate::ui::{browser, edit_href};
use leptos::prelude::*;

/// The editor's draft and its save state; every part a signal, so the whole is `Copy`.
#[derive(Clone, Copy)]
pub struct Saving {
    pub app: StoredValue<String>,
    pub set: StoredValue<String>,
    /// The id the case is stored under: a saved rename changes it.
    pub opened_id: RwSignal<String>,
    pub draft: RwSignal<CaseDraft>,
    /// The draft as last saved (or opened): the page has unsaved changes when they differ.
    saved: RwSignal<CaseDraft>,
    pub version: RwSignal<i64>,
    pub problems: Memo<Vec<Problem>>,
    pub dirty: Memo<bool>,
    pub save: ServerAction<SaveCase>,
    /// What the pending save sent, which becomes the saved state when it succeeds.
    sent: StoredValue<Option<(CaseDraft, EvalCase)>>,
    /// The case as stored now and the one this editor tried to save over it.
    pub conflict: RwSignal<Option<(StoredCase, EvalCase)>>,
    saved_version: RwSignal<Option<i64>>,
}

impl Saving {
    /// The editor's state for `stored`, following each save's outcome.
    pub fn new(stored: &StoredCase) -> Saving {
        let opened = CaseDraft::from_case(&stored.case);
        let draft = RwSignal::new(opened.clone());
        let saved = RwSignal::new(opened);
        let saving = Saving {
            app: StoredValue::new(stored.app_name.clone()),
            set: StoredValue::new(stored.eval_set_id.clone()),
            opened_id: RwSignal::new(stored.case.eval_id.clone()),
            draft,
            saved,
            version: RwSignal::new(stored.version),
            problems: Memo::new(move |_| draft.with(CaseDraft::problems)),
            dirty: Memo::new(move |_| draft.with(|d| saved.with(|s| d != s))),
            save: ServerAction::<SaveCase>::new(),
            sent: StoredValue::new(None),
            conflict: RwSignal::new(None),
            saved_version: RwSignal::new(None),
        };
        Effect::new(move |_| saving.settle());
        saving
    }

    /// Save, unless there is nothing to save; with problems, shows them wherever the user is.
    pub fn save_now(self) {
        if !self.problems.with_untracked(Vec::is_empty) {
            browser::reveal(".problems");
        } else if self.dirty.get_untracked() && !self.save.pending().get_untracked() {
            self.send(self.version.get_untracked());
        }
    }

    pub fn can_save(self) -> bool {
        self.dirty.get() && self.problems.with(Vec::is_empty) && !self.save.pending().get()
    }

    /// Drops the draft for the case as it is stored now.
    pub fn reload(self) {
        if let Some((stored, _)) = self.conflict.get_untracked() {
            let next_key = self.draft.with_untracked(|d| d.next_key);
            let fresh = CaseDraft::from_case_after(&stored.case, next_key);
            self.draft.set(fresh.clone());
            self.saved.set(fresh);
            self.version.set(stored.version);
            self.saved_version.set(None);
            self.conflict.set(None);
        }
    }

    /// Saves the draft over the case as it is stored now.
    pub fn overwrite(self) {
        if let Some((stored, _)) = self.conflict.get_untracked() {
            self.send(stored.version);
        }
    }

    /// What the toolbar says of the case's saved state.
    pub fn state(self) -> String {
        if self.save.pending().get() {
            "Saving…".to_string()
        } else if self.conflict.with(Option::is_some) {
            "Not saved: the case changed since you opened it".into()
        } else if self.dirty.get() {
            "Unsaved changes".into()
        } else if let Some(version) = self.saved_version.get() {
            format!("Saved · version {version}")
        } else {
            "No changes".into()
        }
    }

    fn send(self, at_version: i64) {
        let Ok(case) = self.draft.with_untracked(CaseDraft::build) else {
            return;
        };
        self.sent
            .set_value(Some((self.draft.get_untracked(), case.clone())));
        self.save.dispatch(SaveCase {
            app: self.app.get_value(),
            eval_set_id: self.set.get_value(),
            eval_id: self.opened_id.get_untracked(),
            case,
            version: at_version,
        });
    }

    /// Takes in what the last save answered.
    fn settle(self) {
        match self.save.value().get() {
            Some(Ok(SaveOutcome::Saved { eval_id, version })) => {
                if let Some((sent_draft, _)) = self.sent.try_update_value(Option::take).flatten() {
                    self.saved.set(sent_draft);
                }
                self.version.set(version);
                self.saved_version.set(Some(version));
                self.conflict.set(None);
                if eval_id != self.opened_id.get_untracked() {
                    // Renamed: the address follows the case, without the router reading it
                    // again (which would drop what was typed since the save).
                    browser::replace_address(&edit_href(
                        &self.app.get_value(),
                        &self.set.get_value(),
                        &eval_id,
                    ));
                    self.opened_id.set(eval_id);
                }
            }
            Some(Ok(SaveOutcome::Changed(stored))) => {
                let mine = self.sent.with_value(|s| s.as_ref().map(|(_, case)| case.clone()));
                if let Some(mine) = mine {
                    self.conflict.set(Some((*stored, mine)));
                }
            }
            _ => {}
        }
    }
}

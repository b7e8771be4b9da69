//! An eval case as the editor holds it: plain text for what a person edits (messages, JSON as
//! typed), each item tied to the part of the case it came from, so that a save changes only what
//! was edited and everything the editor does not show (unknown keys, app_details, thoughts,
//! inline data, ids) survives untouched. Pure; compiled for the browser too.

mod build;
mod json_text;
mod lists;
mod model;
#[cfg(test)]
mod tests;
mod turn;

pub use build::{item_field, Problem};
pub use lists::{duplicate_item, move_item, move_to, remove_item};
pub use model::{
    CallDraft, CaseDraft, EventDraft, Key, PartDraft, ResponseDraft, RubricDraft, ScenarioDraft,
    SessionDraft, Steps, TextDraft, TurnDraft,
};

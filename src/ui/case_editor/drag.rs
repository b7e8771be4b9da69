//! Reordering a list's rows by dragging their handle: which row is being dragged, and a drop
//! onto another row, which takes its place. Only a dragged row is dropped this way; text dragged
//! into a field goes to the field.

use crate::draft::Key;
use leptos::ev::DragEvent;
use leptos::prelude::*;

/// The row of one list being dragged, if any.
#[derive(Clone, Copy)]
pub struct Dragging(RwSignal<Option<Key>>);

impl Dragging {
    pub fn new() -> Dragging {
        Dragging(RwSignal::new(None))
    }

    /// Whether `row` is the one being dragged (for its style).
    pub fn is(self, row: Key) -> bool {
        self.0.get() == Some(row)
    }

    /// On a row's `dragover`: lets a dragged row be dropped there.
    pub fn allow(self, ev: &DragEvent) {
        if self.0.get_untracked().is_some() {
            ev.prevent_default();
        }
    }

    /// On a row's `drop`: `put(from)` moves the dragged row `from` to this row's place.
    pub fn drop(self, ev: &DragEvent, put: impl FnOnce(Key)) {
        if let Some(from) = self.0.get_untracked() {
            ev.prevent_default();
            put(from);
        }
        self.0.set(None);
    }

    /// The handle that drags `row`.
    pub fn handle(self, row: Key) -> impl IntoView {
        view! {
            <span
                class="drag-handle"
                draggable="true"
                title="Drag to reorder (or Alt+↑/↓)"
                aria-hidden="true"
                on:dragstart=move |_| self.0.set(Some(row))
                on:dragend=move |_| self.0.set(None)
            >
                "⠿"
            </span>
        }
    }
}

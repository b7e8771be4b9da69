//! A line diff, marked the same way everywhere: removed lines red with `−`, added green with
//! `+`; long runs of unchanged lines fold to a count.

use crate::evalset::{DiffKind, DiffLine};
use leptos::prelude::*;

/// Unchanged lines kept around each change.
const CONTEXT: usize = 3;

/// What the view shows: lines, and folds standing for unchanged runs.
enum Shown {
    Line(DiffLine),
    Fold(usize),
}

fn fold(lines: Vec<DiffLine>) -> Vec<Shown> {
    let changed: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind != DiffKind::Same)
        .map(|(i, _)| i)
        .collect();
    let near = |i: usize| changed.iter().any(|&c| c.abs_diff(i) <= CONTEXT);
    let mut shown = Vec::new();
    let mut folded = 0;
    for (i, line) in lines.into_iter().enumerate() {
        if line.kind == DiffKind::Same && !near(i) {
            folded += 1;
            continue;
        }
        if folded > 0 {
            shown.push(Shown::Fold(folded));
            folded = 0;
        }
        shown.push(Shown::Line(line));
    }
    if folded > 0 {
        shown.push(Shown::Fold(folded));
    }
    shown
}

#[component]
pub fn DiffView(lines: Vec<DiffLine>, old_label: String, new_label: String) -> impl IntoView {
    let added = lines.iter().filter(|l| l.kind == DiffKind::Added).count();
    let removed = lines.iter().filter(|l| l.kind == DiffKind::Removed).count();
    let rows = fold(lines)
        .into_iter()
        .map(|shown| match shown {
            Shown::Line(line) => {
                let (class, mark) = match line.kind {
                    DiffKind::Same => ("diff-same", " "),
                    DiffKind::Added => ("diff-added", "+"),
                    DiffKind::Removed => ("diff-removed", "−"),
                };
                view! {
                    <div class=format!("diff-line {class}")>
                        <span class="diff-mark" aria-hidden="true">{mark}</span>
                        <span>{line.text}</span>
                    </div>
                }
                .into_any()
            }
            Shown::Fold(n) => {
                view! { <div class="diff-line diff-fold">{format!("… {n} unchanged lines")}</div> }.into_any()
            }
        })
        .collect_view();
    view! {
        <div class="diff">
            <p class="diff-legend">
                <span class="diff-removed">"− " {old_label} " (" {removed} " lines)"</span>
                <span class="diff-added">"+ " {new_label} " (" {added} " lines)"</span>
            </p>
            {if added + removed == 0 {
                view! { <p class="muted">"No differences."</p> }.into_any()
            } else {
                view! { <pre class="diff-body mono">{rows}</pre> }.into_any()
            }}
        </div>
    }
}

//! Expected and actual tool calls side by side, aligned call by call: matched calls paired,
//! missing and extra ones marked, and each argument that differs highlighted where it is, nested
//! values included.

use crate::evalset::FunctionCall;
use leptos::prelude::*;
use pure_metrics::compare::{align_calls, AlignedCall, ArgChange, ArgDiff, CallMatch};
use serde_json::Value;

#[component]
pub fn Trajectory(expected: Vec<FunctionCall>, actual: Vec<FunctionCall>) -> impl IntoView {
    let rows = align_calls(
        &expected.iter().collect::<Vec<_>>(),
        &actual.iter().collect::<Vec<_>>(),
    );
    if rows.is_empty() {
        return view! { <p class="muted">"No tool calls expected, none made."</p> }.into_any();
    }
    view! {
        <table class="trajectory">
            <thead>
                <tr>
                    <th scope="col"></th>
                    <th scope="col">"Expected"</th>
                    <th scope="col">"Actual"</th>
                </tr>
            </thead>
            <tbody>{rows.into_iter().map(row).collect_view()}</tbody>
        </table>
    }
    .into_any()
}

fn row(aligned: AlignedCall) -> impl IntoView {
    let (class, mark, label) = match aligned.kind() {
        CallMatch::Same => ("call-same", "=", "same"),
        CallMatch::ArgsDiffer => ("call-differs", "≠", "args differ"),
        CallMatch::Missing => ("call-missing", "−", "missing"),
        CallMatch::Extra => ("call-extra", "+", "extra"),
    };
    let paired = aligned.expected.is_some() && aligned.actual.is_some();
    let cell = |call: Option<FunctionCall>, side: Side| match call {
        None => view! { <td class="muted">"—"</td> }.into_any(),
        Some(call) => {
            let args = if paired {
                arg_rows(&aligned.args, side).into_any()
            } else {
                plain_args(&call).into_any()
            };
            view! {
                <td>
                    <span class="tool-name mono">{call.name.clone().unwrap_or_else(|| "(unnamed)".into())}</span>
                    {args}
                </td>
            }
            .into_any()
        }
    };
    let expected = cell(aligned.expected.clone(), Side::Expected);
    let actual = cell(aligned.actual.clone(), Side::Actual);
    view! {
        <tr class=class>
            <td class="call-mark" title=label>
                <span aria-hidden="true">{mark}</span>
                <span class="visually-hidden">{label}</span>
            </td>
            {expected}
            {actual}
        </tr>
    }
}

#[derive(Clone, Copy)]
enum Side {
    Expected,
    Actual,
}

/// The args of one side of a matched pair, leaf by leaf, differing leaves marked.
fn arg_rows(diffs: &[ArgDiff], side: Side) -> impl IntoView {
    let items = diffs
        .iter()
        .filter_map(|diff| {
            let value = match side {
                Side::Expected => diff.expected.as_ref(),
                Side::Actual => diff.actual.as_ref(),
            }?;
            let class = match diff.change {
                ArgChange::Same => "arg",
                ArgChange::Changed => "arg arg-changed",
                ArgChange::Missing | ArgChange::Extra => "arg arg-unmatched",
            };
            let changed = diff.change != ArgChange::Same;
            Some(view! {
                <li class=class data-path=diff.path.clone()>
                    <span class="arg-path">{diff.path.clone()}</span>
                    ": "
                    <span class="arg-value">{value_text(value)}</span>
                    {changed.then(|| view! { <span class="visually-hidden">" (differs)"</span> })}
                </li>
            })
        })
        .collect_view();
    view! { <ul class="args mono">{items}</ul> }
}

fn plain_args(call: &FunctionCall) -> impl IntoView {
    let items = call
        .args
        .iter()
        .flatten()
        .map(|(key, value)| {
            view! {
                <li class="arg">
                    <span class="arg-path">{key.clone()}</span>
                    ": "
                    <span class="arg-value">{value_text(value)}</span>
                </li>
            }
        })
        .collect_view();
    view! { <ul class="args mono">{items}</ul> }
}

fn value_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

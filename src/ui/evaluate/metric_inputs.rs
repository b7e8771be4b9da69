//! The inputs of a metric row in the run form: its threshold and, for metrics that take
//! more, its criterion options as JSON.

use leptos::prelude::*;

/// A metric's threshold as the user types it (checked when the run starts).
#[component]
pub(super) fn ThresholdInput(label: String, value: RwSignal<String>) -> impl IntoView {
    view! {
        <input
            class="threshold"
            type="number"
            step="0.05"
            aria-label=label
            prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev))
        />
    }
}

/// A metric's criterion keys beyond the threshold, as JSON the user edits.
#[component]
pub(super) fn CriterionOptions(label: String, value: RwSignal<String>, shown: Signal<bool>) -> impl IntoView {
    view! {
        <textarea
            class="criterion-options mono"
            class:hidden=move || !shown.get()
            rows="3"
            spellcheck="false"
            aria-label=label
            prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev))
        ></textarea>
    }
}

/// The threshold typed for `name`, or what is wrong with it.
pub(super) fn threshold_of(name: &str, text: RwSignal<String>) -> Result<f64, String> {
    match text.get_untracked().trim().parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        _ => Err(format!("{name}: the threshold must be a number")),
    }
}

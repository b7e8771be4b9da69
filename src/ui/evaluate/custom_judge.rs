//! "+ Custom judge metric": rows in the run form for judge metrics written in the browser.

use super::metric_inputs::{threshold_of, CriterionOptions, ThresholdInput};
use crate::api::evaluate::MetricChoice;
use crate::eval::metrics::CUSTOM_JUDGE_EXAMPLE;
use leptos::prelude::*;

/// A custom judge metric being written in the run form: its name, threshold, and prompt and
/// reply kind as criterion JSON. `number` tells the rows apart (1, 2, … as added).
#[derive(Debug, Clone, Copy)]
pub(super) struct CustomJudgePick {
    pub number: usize,
    name: RwSignal<String>,
    threshold: RwSignal<String>,
    options: RwSignal<String>,
}

impl CustomJudgePick {
    pub(super) fn new(number: usize) -> Self {
        CustomJudgePick {
            number,
            name: RwSignal::new(String::new()),
            threshold: RwSignal::new("1".into()),
            options: RwSignal::new(CUSTOM_JUDGE_EXAMPLE.into()),
        }
    }

    /// Its name and threshold, as the folded run settings list it.
    pub(super) fn summary(&self) -> String {
        let name = self.name.get();
        let name = match name.trim() {
            "" => format!("custom metric {}", self.number),
            name => name.to_string(),
        };
        format!("{name} ≥ {}", self.threshold.get().trim())
    }

    pub(super) fn choice(&self) -> Result<MetricChoice, String> {
        let name = self.name.get_untracked().trim().to_string();
        if name.is_empty() {
            return Err(format!("Custom metric {}: give it a name.", self.number));
        }
        Ok(MetricChoice {
            threshold: threshold_of(&name, self.threshold)?,
            metric_name: name,
            options: Some(self.options.get_untracked()),
        })
    }
}

/// One custom judge metric's row: name, threshold, prompt options, and Remove.
#[component]
pub(super) fn CustomJudgeRow(
    custom: CustomJudgePick,
    remove: impl Fn() + Send + Sync + 'static,
) -> impl IntoView {
    let CustomJudgePick {
        number,
        name,
        threshold,
        options,
    } = custom;
    view! {
        <tr class="custom-metric">
            <td>
                <input
                    class="metric-name mono"
                    placeholder="metric_name"
                    aria-label=format!("Custom metric {number} name")
                    prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev))
                />
            </td>
            <td>
                <ThresholdInput label=format!("Custom metric {number} threshold") value=threshold />
            </td>
            <td class="muted small-text">
                "Custom judge: the prompt ({query}, {response}, {context}, {reference}) and the reply it asks for, \"yes_no\" or \"score_json\"."
                <CriterionOptions label=format!("Custom metric {number} options") value=options shown=Signal::stored(true) />
                <button class="small" on:click=move |_| remove()>"Remove"</button>
            </td>
        </tr>
    }
}

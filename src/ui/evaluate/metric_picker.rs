//! The run form's metric picker: a search box, the metrics this server can score grouped by
//! family (each with its threshold, checked against the scores it gives as it is typed), and
//! the ones it cannot folded into a line per reason that says what would enable them.

use super::custom_judge::{CustomJudgePick, CustomJudgeRow};
use super::metric_inputs::{threshold_of, CriterionOptions, ThresholdInput};
use crate::eval::metrics::{MetricFamily, MetricInfo};
use leptos::prelude::*;
use pure_metrics::score_range::ScoreRange;

/// A metric in the run form, as the user set it.
#[derive(Clone)]
pub(super) struct MetricPick {
    pub name: String,
    pub picked: RwSignal<bool>,
    pub threshold: RwSignal<String>,
    /// The criterion's other keys as JSON text, for metrics that take them.
    pub options: Option<RwSignal<String>>,
    info: MetricInfo,
}

impl MetricPick {
    /// ADK's two default metrics start picked, when this server can score them.
    pub(super) fn new(info: &MetricInfo) -> Self {
        let default = matches!(
            info.metric_name.as_str(),
            "tool_trajectory_avg_score" | "response_match_score"
        );
        MetricPick {
            name: info.metric_name.clone(),
            picked: RwSignal::new(default && info.unavailable.is_none()),
            threshold: RwSignal::new(info.default_threshold.to_string()),
            options: info.criterion_options.clone().map(RwSignal::new),
            info: info.clone(),
        }
    }

    fn matches(&self, search: &str) -> bool {
        let search = search.trim().to_lowercase();
        search.is_empty()
            || self.name.to_lowercase().contains(&search)
            || self.info.description.to_lowercase().contains(&search)
    }

    /// Why `threshold` is outside the scores this metric gives, as the server would say it. An
    /// evaluator may declare its range in its options; the server checks those.
    pub(super) fn range_problem(&self, threshold: f64) -> Option<String> {
        if self.info.family == MetricFamily::Yours {
            return None;
        }
        self.info.score_range.threshold_problem(&self.name, threshold)
    }

    /// What is wrong with the typed threshold, once the metric is picked.
    fn threshold_problem(&self) -> Option<String> {
        if !self.picked.get() {
            return None;
        }
        self.threshold.track();
        match threshold_of(&self.name, self.threshold) {
            Err(problem) => Some(problem),
            // Beside the field, the short form of what the run form refuses on start.
            Ok(value) => self
                .range_problem(value)
                .map(|_| out_of_range(self.info.score_range)),
        }
    }
}

/// The picked metrics with their thresholds, as the folded run settings name them.
pub(super) fn picked_summary(metrics: &[MetricPick], customs: &[CustomJudgePick]) -> String {
    let mut picked: Vec<String> = metrics
        .iter()
        .filter(|m| m.picked.get())
        .map(|m| format!("{} ≥ {}", m.name, m.threshold.get().trim()))
        .collect();
    picked.extend(customs.iter().map(|custom| custom.summary()));
    match picked.len() {
        0 => "no metric picked yet".to_string(),
        _ => picked.join(", "),
    }
}

fn out_of_range(range: ScoreRange) -> String {
    format!(
        "Scores run from {} to {}: pick a threshold in that range.",
        range.min, range.max
    )
}

/// The metric table, grouped by family, with a search box and the custom judge rows.
#[component]
pub(super) fn MetricPicker(
    metrics: Vec<MetricPick>,
    customs: RwSignal<Vec<CustomJudgePick>>,
) -> impl IntoView {
    let search = RwSignal::new(String::new());
    let (available, unavailable): (Vec<_>, Vec<_>) = metrics
        .into_iter()
        .partition(|metric| metric.info.unavailable.is_none());
    let groups = MetricFamily::ALL
        .into_iter()
        .map(|family| {
            let rows: Vec<MetricPick> = available
                .iter()
                .filter(|m| m.info.family == family)
                .cloned()
                .collect();
            view! { <MetricGroup family rows search customs /> }
        })
        .collect_view();
    view! {
        <div class="metric-picker">
            <div class="metric-search">
                <input
                    type="search"
                    placeholder="Search metrics"
                    aria-label="Search metrics"
                    bind:value=search
                />
            </div>
            <table class="metric-table">
                <caption class="visually-hidden">"Metrics to score the run with"</caption>
                {groups}
            </table>
            <UnavailableMetrics metrics=unavailable />
        </div>
    }
}

/// One family's rows under its heading; hidden while the search matches none of them. The
/// custom judge rows close the last family ("Yours").
#[component]
fn MetricGroup(
    family: MetricFamily,
    rows: Vec<MetricPick>,
    search: RwSignal<String>,
    customs: RwSignal<Vec<CustomJudgePick>>,
) -> impl IntoView {
    let yours = family == MetricFamily::Yours;
    // Families beyond ADK's two defaults start folded, unless one of theirs is picked; a
    // search shows every match.
    let open = RwSignal::new(
        matches!(
            family,
            MetricFamily::Trajectory | MetricFamily::Response | MetricFamily::Yours
        ) || rows.iter().any(|m| m.picked.get_untracked()),
    );
    let folded = Signal::derive(move || !open.get() && search.with(|s| s.trim().is_empty()));
    let count = rows.len();
    let matched = {
        let rows = rows.clone();
        move || {
            (yours && search.with(|s| s.trim().is_empty()))
                || search.with(|s| rows.iter().any(|m| m.matches(s)))
        }
    };
    let custom_rows = move || {
        yours.then(|| {
            customs
                .get()
                .into_iter()
                .map(|custom| {
                    let remove = move || customs.update(|c| c.retain(|k| k.number != custom.number));
                    view! { <CustomJudgeRow custom remove /> }
                })
                .collect_view()
        })
    };
    let add_custom = move |_| {
        customs.update(|c| {
            let number = c.iter().map(|k| k.number).max().unwrap_or(0) + 1;
            c.push(CustomJudgePick::new(number));
        })
    };
    view! {
        <tbody class:hidden=move || !matched()>
            <tr class="metric-family">
                <th scope="colgroup" colspan="3">
                    {if yours {
                        view! { <span>{family.label()}</span> }.into_any()
                    } else {
                        view! {
                            <button
                                type="button"
                                class="link family-toggle"
                                aria-expanded=move || (!folded.get()).to_string()
                                on:click=move |_| open.update(|o| *o = !*o)
                            >
                                {move || if folded.get() { "▸ " } else { "▾ " }}
                                {format!("{} ({count})", family.label())}
                            </button>
                        }
                            .into_any()
                    }}
                    {yours
                        .then(|| {
                            view! { <button type="button" class="small add-custom" on:click=add_custom>"+ Custom judge metric"</button> }
                        })}
                </th>
            </tr>
            {rows.into_iter().map(|metric| view! { <MetricRow metric search folded /> }).collect_view()}
            {custom_rows}
        </tbody>
    }
}

/// A metric's row: pick it, set its threshold, read what it measures (and its options).
#[component]
fn MetricRow(metric: MetricPick, search: RwSignal<String>, folded: Signal<bool>) -> impl IntoView {
    let (name, picked, threshold, info) = (
        metric.name.clone(),
        metric.picked,
        metric.threshold,
        metric.info.clone(),
    );
    let options = metric.options;
    let shown = {
        let metric = metric.clone();
        move || !folded.get() && search.with(|s| metric.matches(s))
    };
    let problem = {
        let metric = metric.clone();
        move || metric.threshold_problem()
    };
    let note = info
        .note
        .clone()
        .map(|note| view! { <span class="metric-note">{note}</span> });
    let prompt = info.prompt.clone().map(|prompt| {
        view! {
            <details class="metric-prompt">
                <summary>"The judge's prompt"</summary>
                <pre>{prompt}</pre>
            </details>
        }
    });
    let needs = (!info.needs.is_empty()).then(|| {
        let chips = info
            .needs
            .iter()
            .map(|need| view! { <span class="need-chip">{need.clone()}</span> })
            .collect_view();
        view! { <span class="metric-needs">"Needs: " {chips}</span> }
    });
    let options = options.map(|options| {
        view! { <CriterionOptions label=format!("{name} options") value=options shown=picked.into() /> }
    });
    view! {
        <tr class:hidden=move || !shown()>
            <td>
                <label class="metric-pick" title=info.description.clone()>
                    <input
                        type="checkbox"
                        prop:checked=move || picked.get()
                        on:change=move |ev| picked.set(event_target_checked(&ev))
                    />
                    <span class="mono">{name.clone()}</span>
                </label>
            </td>
            <td class="threshold-cell">
                <ThresholdInput label=format!("{name} threshold") value=threshold />
                <span class="muted small-text">{info.score_range.label()}</span>
                {move || problem().map(|problem| view! { <p class="field-error small">{problem}</p> })}
            </td>
            <td class="muted small-text">
                <details class="metric-about">
                    <summary>{first_sentence(&info.description)}</summary>
                    {info.description.clone()} {note} {needs} {prompt}
                </details>
                {options}
            </td>
        </tr>
    }
}

/// The metrics this server cannot score, one line per reason (what would enable them), with
/// their names folded under it.
#[component]
fn UnavailableMetrics(metrics: Vec<MetricPick>) -> impl IntoView {
    let mut reasons: Vec<(String, Vec<String>)> = Vec::new();
    for metric in &metrics {
        let reason = metric.info.unavailable.clone().unwrap_or_default();
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, names)) => names.push(metric.name.clone()),
            None => reasons.push((reason, vec![metric.name.clone()])),
        }
    }
    reasons
        .into_iter()
        .map(|(reason, names)| {
            let line = match names.len() {
                1 => format!("1 more metric {reason}"),
                n => format!("{n} more metrics {}", reason.replacen("needs", "need", 1)),
            };
            view! {
                <details class="metrics-unavailable small-text">
                    <summary>{line}</summary>
                    <p class="mono">{names.join(", ")}</p>
                </details>
            }
        })
        .collect_view()
}

/// A description's first sentence, for the row's one-line summary.
fn first_sentence(text: &str) -> String {
    match text.find(". ") {
        Some(end) => text[..=end].to_string(),
        None => text.to_string(),
    }
}

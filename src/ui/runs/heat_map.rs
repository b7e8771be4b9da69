//! A run's cases × metrics as an SVG heat map drawn on the server: each cell coloured by its
//! score (red at 0 to green at 1), the score written in it, its verdict in its tooltip, and a
//! link to the case's result.

use crate::eval::result::{CaseSummary, EvalStatus, MetricSummary};
use crate::ui::case_result_href;
use leptos::prelude::*;

const LABEL_WIDTH: f64 = 230.0;
const CELL_WIDTH: f64 = 64.0;
const CELL_HEIGHT: f64 = 22.0;
const HEADER_HEIGHT: f64 = 96.0;
/// Characters of an eval id or metric name drawn before "…" (the tooltip has all of it).
const LABEL_CHARS: usize = 32;
const HEADER_CHARS: usize = 22;

#[component]
pub fn HeatMap(
    app: String,
    eval_set_id: String,
    result_id: String,
    cases: Vec<CaseSummary>,
) -> impl IntoView {
    let metrics: Vec<String> = cases
        .first()
        .map(|case| scored(case).map(|m| m.metric_name.clone()).collect())
        .unwrap_or_default();
    let headers = metrics
        .iter()
        .enumerate()
        .map(|(column, name)| {
            let x = LABEL_WIDTH + (column as f64 + 0.5) * CELL_WIDTH;
            let y = HEADER_HEIGHT - 6.0;
            view! {
                <text class="axis" x=x y=y transform=format!("rotate(-35 {x} {y})")>
                    {shorten(name, HEADER_CHARS)}
                    <title>{name.clone()}</title>
                </text>
            }
        })
        .collect_view();
    let failing = cases
        .iter()
        .flat_map(scored)
        .filter(|m| m.eval_status == EvalStatus::Failed)
        .count();
    let label = format!(
        "Heat map of {} cases by {} metrics: {failing} scores below their threshold. Each cell links to the case's result.",
        cases.len(),
        metrics.len()
    );
    let rows = cases
        .iter()
        .enumerate()
        .map(|(row, case)| {
            let href = case_result_href(&app, &eval_set_id, &result_id, &case.eval_id);
            heat_row(row, case, href)
        })
        .collect_view();
    // Room on the right for the last rotated metric name.
    let width = LABEL_WIDTH + CELL_WIDTH * metrics.len() as f64 + HEADER_HEIGHT + 40.0;
    let height = HEADER_HEIGHT + CELL_HEIGHT * cases.len() as f64 + 4.0;
    view! {
        <div class="chart-scroll">
            <svg class="heat-map" role="img" aria-label=label viewBox=format!("0 0 {width} {height}") width=width height=height>
                {headers}
                {rows}
            </svg>
        </div>
    }
}

/// One case: its id, then a linked cell per metric.
fn heat_row(row: usize, case: &CaseSummary, href: String) -> impl IntoView {
    let y = HEADER_HEIGHT + row as f64 * CELL_HEIGHT;
    let cells = scored(case)
        .enumerate()
        .map(|(column, metric)| {
            let x = LABEL_WIDTH + column as f64 * CELL_WIDTH;
            // A failing cell says so in its text too, not by colour alone.
            let mark = if metric.eval_status == EvalStatus::Failed { "✗ " } else { "" };
            let (fill, text) = match metric.score {
                Some(score) => (score_colour(score), format!("{mark}{score:.2}")),
                None => ("var(--surface-2)".to_string(), "–".to_string()),
            };
            // In a <g>, so the macro makes an SVG link, not an HTML one.
            view! {
                <g>
                <a href=href.clone()>
                    <rect class="cell" x=x + 1.0 y=y + 1.0 width=CELL_WIDTH - 2.0 height=CELL_HEIGHT - 2.0 fill=fill />
                    <text class="cell-text" x=x + CELL_WIDTH / 2.0 y=y + CELL_HEIGHT / 2.0 + 4.0 text-anchor="middle">
                        {text}
                    </text>
                    <title>{cell_text(&case.eval_id, metric)}</title>
                </a>
                </g>
            }
        })
        .collect_view();
    view! {
        <g>
        <a href=href.clone()>
            <text class="row-label" x=LABEL_WIDTH - 8.0 y=y + CELL_HEIGHT / 2.0 + 4.0 text-anchor="end">
                {shorten(&case.eval_id, LABEL_CHARS)}
                <title>{case.eval_id.clone()}</title>
            </text>
        </a>
        {cells}
        </g>
    }
}

/// The metrics that pass or fail (informational ones are left out).
fn scored(case: &CaseSummary) -> impl Iterator<Item = &MetricSummary> {
    case.metrics.iter().filter(|m| m.threshold.is_some())
}

/// Red (0) through amber to green (1).
fn score_colour(score: f64) -> String {
    format!("hsl({:.0}, 62%, 42%)", score.clamp(0.0, 1.0) * 120.0)
}

fn cell_text(eval_id: &str, metric: &MetricSummary) -> String {
    let verdict = match metric.eval_status {
        EvalStatus::Passed => "passed",
        EvalStatus::Failed => "failed",
        _ => "not evaluated",
    };
    let score = metric.score.map_or("no score".to_string(), |s| format!("{s:.3}"));
    let threshold = metric
        .threshold
        .map(|t| format!(" against {t}"))
        .unwrap_or_default();
    format!(
        "{eval_id} · {}: {score}{threshold}, {verdict}",
        metric.metric_name
    )
}

/// Keeps the end of a long id (paths differ at their end), with "…" before it.
fn shorten(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        text.to_string()
    } else {
        let tail: String = text.chars().skip(count - (max - 1)).collect();
        format!("…{tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_labels_keep_their_end() {
        assert_eq!(shorten("tests/a/b/case.json", 10), "…case.json");
        assert_eq!(shorten("short", 10), "short");
    }

    #[test]
    fn scores_run_from_red_to_green() {
        assert_eq!(score_colour(0.0), "hsl(0, 62%, 42%)");
        assert_eq!(score_colour(1.0), "hsl(120, 62%, 42%)");
        assert_eq!(score_colour(7.0), "hsl(120, 62%, 42%)");
    }
}

//! An evalset's runs over time, as small SVG charts drawn on the server: the pass rate, then
//! each metric's mean with its threshold, a point per run that links to the run. Re-runs of
//! some cases are left out: they would read as the whole set getting better or worse.

use super::{run_href, run_title};
use crate::api::runs::list_runs;
use crate::records::runs::RunRow;
use leptos::prelude::*;

const WIDTH: f64 = 280.0;
const HEIGHT: f64 = 96.0;
const LEFT: f64 = 26.0;
const TOP: f64 = 8.0;
const BOTTOM: f64 = 8.0;

/// One series: a value (0..1) per run, oldest first, and the threshold it is held to.
struct Series {
    name: String,
    threshold: Option<f64>,
    values: Vec<Option<f64>>,
}

#[component]
pub fn RunTrend(
    app: String,
    eval_set_id: String,
    /// Bumped when the runs changed.
    #[prop(into)]
    reload: Signal<u32>,
) -> impl IntoView {
    let runs = Resource::new(
        move || (app.clone(), eval_set_id.clone(), reload.get()),
        |(app, set, _)| list_runs(app, Some(set)),
    );
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                let mut rows: Vec<RunRow> = runs.await.unwrap_or_default();
                rows.retain(|row| row.summary.whole_set && row.summary.done > 0);
                rows.reverse();
                (rows.len() >= 2).then(|| view! { <TrendCharts rows /> })
            })}
        </Transition>
    }
}

#[component]
fn TrendCharts(rows: Vec<RunRow>) -> impl IntoView {
    let charts = series(&rows)
        .into_iter()
        .map(|series| view! { <TrendChart series rows=rows.clone() /> })
        .collect_view();
    view! {
        <section class="trend" aria-label="Trend over runs">
            <h3>"Over the last " {rows.len()} " runs"</h3>
            <div class="trend-charts">{charts}</div>
        </section>
    }
}

/// The pass rate, then each metric the runs scored, in the order the newest run lists them.
fn series(rows: &[RunRow]) -> Vec<Series> {
    let mut all = vec![Series {
        name: "pass rate".into(),
        threshold: None,
        values: rows
            .iter()
            .map(|row| Some(row.summary.passed as f64 / row.summary.done.max(1) as f64))
            .collect(),
    }];
    let newest = rows.last().map(|row| row.metrics.as_slice()).unwrap_or_default();
    for metric in newest {
        all.push(Series {
            name: metric.metric_name.clone(),
            threshold: metric.threshold,
            values: rows
                .iter()
                .map(|row| {
                    row.metrics
                        .iter()
                        .find(|m| m.metric_name == metric.metric_name)
                        .and_then(|m| m.mean)
                })
                .collect(),
        });
    }
    all
}

#[component]
fn TrendChart(series: Series, rows: Vec<RunRow>) -> impl IntoView {
    let step = if rows.len() > 1 {
        (WIDTH - LEFT - 8.0) / (rows.len() - 1) as f64
    } else {
        0.0
    };
    let x = move |i: usize| LEFT + i as f64 * step;
    let y = |value: f64| TOP + (1.0 - value.clamp(0.0, 1.0)) * (HEIGHT - TOP - BOTTOM);
    let line: Vec<String> = series
        .values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| format!("{:.1},{:.1}", x(i), y(v))))
        .collect();
    let points = rows
        .iter()
        .zip(&series.values)
        .enumerate()
        .filter_map(|(i, (row, value))| {
            let value = (*value)?;
            let tip = format!("{}: {} {value:.3}", run_title(&row.summary), series.name);
            // In a <g>, so the macro makes an SVG link, not an HTML one.
            Some(view! {
                <g>
                    <a href=run_href(&row.summary.app_name, &row.summary.result_id)>
                        <circle class="point" cx=x(i) cy=y(value) r="4">
                            <title>{tip}</title>
                        </circle>
                    </a>
                </g>
            })
        })
        .collect_view();
    let threshold = series.threshold.map(|t| {
        view! {
            <line class="threshold" x1=LEFT x2=WIDTH - 4.0 y1=y(t) y2=y(t)>
                <title>{format!("threshold {t}")}</title>
            </line>
        }
    });
    let latest = series.values.last().copied().flatten();
    let label = format!(
        "{} over {} runs, oldest first: {}{}",
        series.name,
        rows.len(),
        series
            .values
            .iter()
            .map(|v| v.map_or("–".to_string(), |v| format!("{v:.2}")))
            .collect::<Vec<_>>()
            .join(", "),
        series
            .threshold
            .map(|t| format!("; threshold {t}"))
            .unwrap_or_default()
    );
    view! {
        <figure class="trend-chart">
            <figcaption>
                <span class="mono">{series.name.clone()}</span>
                {latest.map(|v| view! { <span class="muted">" · latest " {format!("{v:.3}")}</span> })}
            </figcaption>
            <svg role="img" aria-label=label viewBox=format!("0 0 {WIDTH} {HEIGHT}") width=WIDTH height=HEIGHT>
                <text class="axis" x=LEFT - 4.0 y=TOP + 4.0 text-anchor="end">"1"</text>
                <text class="axis" x=LEFT - 4.0 y=HEIGHT - BOTTOM text-anchor="end">"0"</text>
                <line class="axis-line" x1=LEFT x2=LEFT y1=TOP y2=HEIGHT - BOTTOM />
                {threshold}
                <polyline class="series" points=line.join(" ") />
                {points}
            </svg>
        </figure>
    }
}

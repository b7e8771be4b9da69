//! Score distributions drawn as SVG on the server (no chart library): a bar per bin of [0, 1]
//! (a bin edge at the threshold, so a bar's colour says whether its scores pass), ticks on
//! both axes, the threshold marked and labelled, and a sentence for screen readers.

use crate::eval::run_stats::{MetricStats, ScoreBin};
use leptos::prelude::*;

/// The plot area's size and the margins for the axes' labels, in px.
const PLOT_WIDTH: f64 = 300.0;
const PLOT_HEIGHT: f64 = 110.0;
const LEFT: f64 = 28.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 18.0;
/// The width of the bar of exactly 1, drawn right of the axis's end.
const EXACT_WIDTH: f64 = 10.0;

#[component]
pub fn Histogram(stats: MetricStats) -> impl IntoView {
    let most = stats.bins.iter().map(|bin| bin.count).max().unwrap_or(0).max(1);
    let x = |score: f64| LEFT + score.clamp(0.0, 1.0) * PLOT_WIDTH;
    let y = |count: u32| TOP + PLOT_HEIGHT - f64::from(count) / f64::from(most) * PLOT_HEIGHT;
    let bars = stats
        .bins
        .iter()
        .map(|bin| {
            let (left, width) = if bin.low == bin.high {
                (x(1.0) + 2.0, EXACT_WIDTH)
            } else {
                (x(bin.low) + 1.0, (bin.high - bin.low) * PLOT_WIDTH - 2.0)
            };
            let top = y(bin.count);
            view! {
                <rect
                    class=bar_class(bin)
                    x=format!("{left:.1}")
                    y=format!("{top:.1}")
                    width=format!("{:.1}", width.max(1.0))
                    height=format!("{:.1}", TOP + PLOT_HEIGHT - top)
                >
                    <title>{bin_text(bin)}</title>
                </rect>
            }
        })
        .collect_view();
    let x_ticks = (0..=5)
        .map(|i| {
            let score = f64::from(i) / 5.0;
            view! {
                <line class="tick" x1=x(score) x2=x(score) y1=TOP + PLOT_HEIGHT y2=TOP + PLOT_HEIGHT + 3.0 />
                <text class="axis" x=x(score) y=TOP + PLOT_HEIGHT + 14.0 text-anchor="middle">
                    {format!("{score:.1}")}
                </text>
            }
        })
        .collect_view();
    let threshold = stats.threshold.map(|t| {
        let at = x(t);
        view! {
            <line class="threshold" x1=at x2=at y1=TOP - 4.0 y2=TOP + PLOT_HEIGHT />
            <text class="axis threshold-label" x=at y=TOP - 5.0 text-anchor=anchor_near(t)>
                {format!("threshold {t}")}
            </text>
        }
    });
    let width = LEFT + PLOT_WIDTH + EXACT_WIDTH + 6.0;
    let height = TOP + PLOT_HEIGHT + BOTTOM;
    view! {
        <svg
            class="histogram"
            viewBox=format!("0 0 {width} {height}")
            role="img"
            aria-label=describe(&stats)
            width=width
            height=height
        >
            <line class="axis-line" x1=LEFT x2=LEFT + PLOT_WIDTH y1=TOP + PLOT_HEIGHT y2=TOP + PLOT_HEIGHT />
            <text class="axis" x=LEFT - 4.0 y=TOP + 4.0 text-anchor="end">{most}</text>
            <text class="axis" x=LEFT - 4.0 y=TOP + PLOT_HEIGHT text-anchor="end">"0"</text>
            {bars}
            {x_ticks}
            {threshold}
        </svg>
    }
}

/// Where a label at score `t` is anchored, so it stays inside the chart near its ends.
fn anchor_near(t: f64) -> &'static str {
    if t < 0.2 {
        "start"
    } else if t > 0.8 {
        "end"
    } else {
        "middle"
    }
}

fn bar_class(bin: &ScoreBin) -> &'static str {
    match bin.passing {
        Some(true) => "bar bar-pass",
        Some(false) => "bar bar-fail",
        None => "bar",
    }
}

/// A bar's tooltip: how many cases scored in its bin, and whether that passes.
fn bin_text(bin: &ScoreBin) -> String {
    let cases = crate::ui::count(bin.count, "case");
    let range = if bin.low == bin.high {
        format!("exactly {}", bin.low)
    } else if bin.high >= 1.0 {
        format!("{:.2}–{:.2}", bin.low, bin.high)
    } else {
        format!("{:.2} to under {:.2}", bin.low, bin.high)
    };
    let verdict = match bin.passing {
        Some(true) => " (passing)",
        Some(false) => " (failing)",
        None => "",
    };
    format!("{cases} scored {range}{verdict}")
}

/// The chart in one sentence, for screen readers.
fn describe(stats: &MetricStats) -> String {
    let scored: u32 = stats.bins.iter().map(|bin| bin.count).sum();
    let mut text = format!(
        "{}: {} scored",
        stats.metric_name,
        crate::ui::count(scored, "case")
    );
    if let Some(mean) = stats.mean {
        text.push_str(&format!(", mean {mean:.3}"));
    }
    if let Some(t) = stats.threshold {
        text.push_str(&format!(
            "; threshold {t}: {} passed, {} failed",
            stats.passed, stats.failed
        ));
    }
    let bins: Vec<String> = stats
        .bins
        .iter()
        .filter(|bin| bin.count > 0)
        .map(bin_text)
        .collect();
    if !bins.is_empty() {
        text.push_str(&format!(". {}.", bins.join("; ")));
    }
    text
}

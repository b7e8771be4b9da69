//! Score distributions drawn as SVG on the server (no chart library): one bar per tenth of
//! [0, 1], the threshold marked, the counts in each bar's tooltip.

use crate::eval::{MetricStats, BUCKETS};
use leptos::prelude::*;

const WIDTH: f64 = 220.0;
const HEIGHT: f64 = 70.0;

#[component]
pub fn Histogram(stats: MetricStats) -> impl IntoView {
    let most = stats.buckets.iter().copied().max().unwrap_or(0).max(1) as f64;
    let bar = WIDTH / BUCKETS as f64;
    let bars = stats
        .buckets
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let h = (n as f64 / most) * (HEIGHT - 12.0);
            let low = i as f64 / BUCKETS as f64;
            let passing = stats.threshold.is_some_and(|t| low + 0.1 > t);
            let class = if passing { "bar bar-pass" } else { "bar bar-fail" };
            let tip = format!(
                "{n} case{} scored {low:.1}–{:.1}",
                if n == 1 { "" } else { "s" },
                low + 0.1
            );
            view! {
                <rect
                    class=class
                    x=format!("{:.1}", i as f64 * bar + 1.0)
                    y=format!("{:.1}", HEIGHT - 12.0 - h)
                    width=format!("{:.1}", bar - 2.0)
                    height=format!("{h:.1}")
                >
                    <title>{tip}</title>
                </rect>
            }
        })
        .collect_view();
    let threshold = stats.threshold.map(|t| {
        let x = format!("{:.1}", t.clamp(0.0, 1.0) * WIDTH);
        view! {
            <line class="threshold" x1=x.clone() x2=x y1="0" y2=format!("{:.1}", HEIGHT - 12.0)>
                <title>{format!("threshold {t}")}</title>
            </line>
        }
    });
    let label = format!(
        "Distribution of {} scores: {}",
        stats.metric_name,
        stats
            .buckets
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
    view! {
        <svg
            class="histogram"
            viewBox=format!("0 0 {WIDTH} {HEIGHT}")
            role="img"
            aria-label=label
            width=WIDTH.to_string()
            height=HEIGHT.to_string()
        >
            {bars}
            {threshold}
            <text x="0" y=HEIGHT.to_string() class="axis">"0"</text>
            <text x=(WIDTH - 8.0).to_string() y=HEIGHT.to_string() class="axis">"1"</text>
        </svg>
    }
}

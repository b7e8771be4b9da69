//! Pages and components. They read and write through the server functions in `crate::api`,
//! never the store. All agent and imported text is rendered as text nodes, which Leptos escapes, except agent
//! answers, which go through `markdown::render_markdown` (raw HTML and unsafe links neutralised).

mod account_menu;
mod browser;
mod case_across_runs;
mod case_actions;
mod case_editor;
mod case_history;
mod case_list;
mod case_list_address;
mod case_result;
mod case_status;
mod chat;
mod delete_cases_dialog;
mod diff_view;
mod eval_case_page;
mod evalset_page;
mod evalsets_page;
mod evaluate;
mod folder_notes;
mod json_view;
mod login_page;
mod markdown;
mod modal;
mod new_scenario_dialog;
mod pager;
mod rest_links;
pub(crate) mod runs;
mod settings;
mod traces;

pub use account_menu::AccountMenu;
pub use case_editor::CaseEditorPage;
pub use case_result::{case_result_href, CaseResultPage};
pub use chat::ChatPage;
pub use eval_case_page::EvalCasePage;
pub use evalset_page::EvalSetPage;
pub use evalsets_page::EvalSetsPage;
pub use folder_notes::FolderBadge;
pub use login_page::LoginPage;
pub use runs::{ComparePage, RunPage, RunsPage};
pub use settings::SettingsPage;
pub use traces::TracesPage;

use leptos::prelude::*;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    {
        if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
            response.set_status(axum::http::StatusCode::NOT_FOUND);
        }
    }
    view! {
        <section class="empty-state">
            <h1>"Page not found"</h1>
            <p>"There is nothing at this address. " <a href="/">"Go to the evalsets"</a></p>
        </section>
    }
}

/// A failed load or action, shown where its result would have been.
#[component]
pub fn ErrorNote(message: String) -> impl IntoView {
    view! {
        <p class="note note-error" role="alert">
            <span class="status-icon" aria-hidden="true">"⚠"</span>
            {message}
        </p>
    }
}

/// A metric's column heading: its name, breakable only after an underscore, so a narrow score
/// column reads `tool_trajectory_` / `avg_score` rather than a letter or two a line.
#[component]
pub fn MetricHeading(name: String) -> impl IntoView {
    let segments: Vec<String> = name.split_inclusive('_').map(str::to_string).collect();
    view! {
        <th scope="col" class="num mono metric-heading" title=name>
            {segments.into_iter().map(|segment| view! { {segment}<wbr /> }).collect_view()}
        </th>
    }
}

/// A server function error as a person should read it, without the transport's prefix.
pub fn error_text(err: &ServerFnError) -> String {
    match err {
        ServerFnError::ServerError(message) => message.clone(),
        ServerFnError::Request(message) => format!("could not reach the server: {message}"),
        other => other.to_string(),
    }
}

/// Percent-encodes a value for a URL query string.
pub fn encode_query_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// Link to one case's page.
pub fn case_href(app: &str, eval_set_id: &str, eval_id: &str) -> String {
    format!(
        "/evalsets/{app}/{eval_set_id}/case?eval_id={}",
        encode_query_value(eval_id)
    )
}

/// Link to one case's editor.
pub fn edit_href(app: &str, eval_set_id: &str, eval_id: &str) -> String {
    format!(
        "/evalsets/{app}/{eval_set_id}/edit?eval_id={}",
        encode_query_value(eval_id)
    )
}

pub fn eval_set_href(app: &str, eval_set_id: &str) -> String {
    format!("/evalsets/{app}/{eval_set_id}")
}

/// "1 case", "2 cases".
pub fn count(n: impl Into<i64>, noun: &str) -> String {
    let n = n.into();
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// An ISO 8601 UTC timestamp from the store, to the minute: "2026-11-23 08:36 UTC".
pub fn short_time(iso: &str) -> String {
    format!("{} UTC", iso.get(..16).unwrap_or(iso).replace('T', " "))
}

/// Seconds since the epoch, as the store records run times, to the second in UTC (two runs
/// a minute apart must not read the same).
pub fn short_time_seconds(seconds: f64) -> String {
    let days = (seconds / 86_400.0).floor() as i64;
    let second_of_day = (seconds - days as f64 * 86_400.0).floor() as i64;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    )
}

/// Day `days` since 1970-01-01 as `YYYY-MM-DD`.
pub fn date_of_day(days: i64) -> String {
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The day count since 1970-01-01 of a `YYYY-MM-DD` date, if it is one.
pub fn day_of_date(date: &str) -> Option<i64> {
    let mut parts = date.trim().splitn(3, '-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: i64 = parts.next()?.parse().ok()?;
    let day: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    // 2026-02-31 is not a date.
    (date_of_day(days)
        == format!(
            "{:04}-{month:02}-{day:02}",
            if month <= 2 { year + 1 } else { year }
        ))
    .then_some(days)
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Shortens a one-line preview to `max` characters.
pub fn preview(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        line
    } else {
        let cut: String = line.chars().take(max.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_are_encoded() {
        assert_eq!(encode_query_value("tests/a b.json"), "tests%2Fa%20b.json");
        assert_eq!(encode_query_value("中"), "%E4%B8%AD");
        assert_eq!(
            case_href("demo", "s", "a&b"),
            "/evalsets/demo/s/case?eval_id=a%26b"
        );
    }

    #[test]
    fn dates_and_day_counts_convert_both_ways() {
        assert_eq!(day_of_date("1970-01-01"), Some(0));
        assert_eq!(day_of_date("2026-11-27"), Some(20_784));
        assert_eq!(date_of_day(20_784), "2026-11-27");
        assert_eq!(
            day_of_date("2024-02-29").map(date_of_day).as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(day_of_date("2026-02-29"), None);
        assert_eq!(day_of_date("2026-13-01"), None);
        assert_eq!(day_of_date("yesterday"), None);
    }

    #[test]
    fn counts_and_times_read_naturally() {
        assert_eq!(count(1, "case"), "1 case");
        assert_eq!(count(0, "case"), "0 cases");
        assert_eq!(short_time("2026-11-23T08:36:25.294Z"), "2026-11-23 08:36 UTC");
        assert_eq!(short_time_seconds(1_795_422_985.5), "2026-11-23 08:36:25 UTC");
        assert_eq!(short_time_seconds(951_782_400.0), "2000-02-29 00:00:00 UTC");
    }

    #[test]
    fn previews_are_one_line_and_bounded() {
        assert_eq!(preview("a\n  b", 10), "a b");
        assert_eq!(preview("abcdefghijk", 5), "abcd…");
        assert_eq!(preview("天气怎么样", 5), "天气怎么样");
    }
}

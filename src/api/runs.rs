//! Server functions behind the Runs pages: the runs list, one run's page, and two runs
//! compared. The work is `service::runs::views`.

use crate::records::runs::{RunComparison, RunPage, RunRow};
use leptos::prelude::*;

#[cfg(feature = "ssr")]
use super::server_error;
#[cfg(feature = "ssr")]
use super::services;
#[cfg(feature = "ssr")]
use crate::service::runs::views;
#[cfg(feature = "ssr")]
use crate::{access::Role, api::access::require};

/// The app's runs, newest first (of one evalset when given).
#[server]
pub async fn list_runs(app: String, eval_set_id: Option<String>) -> Result<Vec<RunRow>, ServerFnError> {
    views::run_rows(&services().store, &app, eval_set_id.as_deref())
        .await
        .map_err(server_error)
}

#[server]
pub async fn run_details(
    app: String,
    result_id: String,
    page: i64,
) -> Result<Option<RunPage>, ServerFnError> {
    super::found(views::run_page(&services().store, &app, &result_id, page).await)
}

/// Names the run (an empty label takes the name away); answers the label as stored.
#[server]
pub async fn set_run_label(
    app: String,
    result_id: String,
    label: String,
) -> Result<Option<String>, ServerFnError> {
    require(Role::Editor)?;
    crate::service::runs::label::set_run_label(&services().store, &app, &result_id, Some(&label))
        .await
        .map_err(server_error)
}

/// `before` against `after`; `change` (a `Change::as_str`) keeps one kind of case.
#[server]
pub async fn compare_runs(
    app: String,
    before: String,
    after: String,
    change: Option<String>,
    page: i64,
) -> Result<Option<RunComparison>, ServerFnError> {
    let change = change.as_deref().and_then(crate::eval::run_stats::Change::parse);
    super::found(views::compare(&services().store, &app, &before, &after, change, page).await)
}

//! What the Runs pages show: runs with their per-metric means, one run's statistics and cases
//! a page at a time, and two runs of an evalset compared case by case. Everything is read from
//! the runs' stored case summaries and cached statistics, a page at a time (the run's stored
//! eval set and its cases' full results are not read).

use super::error::EvalRunError;
use super::stored::{config_of, list_eval_runs};
use super::summaries::{backfill, run_stats, summarised_head};
use crate::eval::result::CaseSummary;
use crate::eval::run_stats::{compare_runs, Change, ComparedCase};
use crate::records::runs::{ResultsPage, RunComparison, RunPage, RunRow};
use crate::store::Store;
use std::collections::HashMap;

/// Cases per page of a run's or a comparison's case list.
pub const RUN_CASES_PER_PAGE: usize = 50;

/// The page to show of `count` items (clamped into range), the page count, and its first item.
fn page_range(count: usize, page: i64) -> (i64, i64, usize) {
    let page_count = count.div_ceil(RUN_CASES_PER_PAGE).max(1) as i64;
    let page = page.clamp(1, page_count);
    (page, page_count, (page as usize - 1) * RUN_CASES_PER_PAGE)
}

/// The app's runs (of one evalset, if given), newest first, each with its metrics' statistics.
pub async fn run_rows(
    store: &Store,
    app: &str,
    eval_set_id: Option<&str>,
) -> Result<Vec<RunRow>, EvalRunError> {
    let mut rows = Vec::new();
    for mut head in store.list_eval_run_heads(app, eval_set_id).await? {
        let config = config_of(&head)?;
        backfill(store, &mut head, &config).await?;
        let metrics = run_stats(store, &head).await?;
        rows.push(RunRow {
            summary: head.summary,
            metrics,
        });
    }
    Ok(rows)
}

/// A page of a run's case summaries, in the eval set's order, with the page shown and the
/// page count.
async fn summaries_page(
    store: &Store,
    run_row: i64,
    page: i64,
) -> Result<(Vec<CaseSummary>, i64, i64), EvalRunError> {
    let count = store.case_summary_count(run_row).await? as usize;
    let (page, page_count, start) = page_range(count, page);
    let shown = store
        .case_summaries(run_row, start as i64, Some(RUN_CASES_PER_PAGE as i64))
        .await?;
    Ok((shown, page, page_count))
}

/// One page of a run's case summaries, for its results table (the cases' per-turn results are
/// read when a case is opened).
pub async fn results_page(
    store: &Store,
    app: &str,
    result_id: &str,
    page: i64,
) -> Result<ResultsPage, EvalRunError> {
    let (head, config) = summarised_head(store, app, result_id).await?;
    let (case_summaries, page, page_count) = summaries_page(store, head.row, page).await?;
    Ok(ResultsPage {
        summary: head.summary,
        metric_names: config.metrics.iter().map(|m| m.name.clone()).collect(),
        case_summaries,
        page,
        page_count,
    })
}

pub async fn run_page(store: &Store, app: &str, result_id: &str, page: i64) -> Result<RunPage, EvalRunError> {
    let (head, _) = summarised_head(store, app, result_id).await?;
    let (cases, page, page_count) = summaries_page(store, head.row, page).await?;
    let other_runs = list_eval_runs(store, app, Some(&head.summary.eval_set_id))
        .await?
        .into_iter()
        .filter(|run| run.result_id != result_id)
        .collect();
    Ok(RunPage {
        metrics: run_stats(store, &head).await?,
        summary: head.summary,
        cases,
        page,
        page_count,
        other_runs,
    })
}

/// `before` against `after` (two runs of one evalset), one page of the cases of `change` (all
/// when None). Every case is classified from its stored outcome; only the page's summaries
/// are read.
pub async fn compare(
    store: &Store,
    app: &str,
    before_id: &str,
    after_id: &str,
    change: Option<Change>,
    page: i64,
) -> Result<RunComparison, EvalRunError> {
    let (before, _) = summarised_head(store, app, before_id).await?;
    let (after, _) = summarised_head(store, app, after_id).await?;
    let compared = compare_runs(
        &store.case_outcomes(before.row).await?,
        &store.case_outcomes(after.row).await?,
    );
    let counts = Change::ALL
        .iter()
        .map(|kind| compared.iter().filter(|(_, c)| c == kind).count())
        .collect();
    let chosen: Vec<(String, Change)> = compared
        .into_iter()
        .filter(|(_, c)| change.is_none_or(|kind| *c == kind))
        .collect();
    let (page, page_count, start) = page_range(chosen.len(), page);
    let shown = &chosen[start.min(chosen.len())..(start + RUN_CASES_PER_PAGE).min(chosen.len())];
    let ids: Vec<String> = shown.iter().map(|(id, _)| id.clone()).collect();
    let by_id = |summaries: Vec<CaseSummary>| -> HashMap<String, CaseSummary> {
        summaries.into_iter().map(|s| (s.eval_id.clone(), s)).collect()
    };
    let mut earlier = by_id(store.case_summaries_of(before.row, &ids).await?);
    let mut later = by_id(store.case_summaries_of(after.row, &ids).await?);
    let cases = shown
        .iter()
        .map(|(eval_id, change)| ComparedCase {
            eval_id: eval_id.clone(),
            change: *change,
            before: earlier.remove(eval_id),
            after: later.remove(eval_id),
        })
        .collect();
    Ok(RunComparison {
        before_metrics: run_stats(store, &before).await?,
        after_metrics: run_stats(store, &after).await?,
        before: before.summary,
        after: after.summary,
        counts,
        cases,
        page,
        page_count,
    })
}

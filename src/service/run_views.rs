//! What the Runs pages show: runs with their per-metric means, one run's statistics and cases
//! a page at a time, and two runs of an evalset compared case by case. The summaries are made
//! from the stored scores alone (the run's stored eval set is not read).

use super::eval_runs::{list_eval_runs, stored_config, EvalRunError};
use crate::eval::{
    compare_runs, metric_stats, summarize_case, CaseRunScores, CaseSummary, Change, EvalConfig, EvalStatus,
};
use crate::records::{ResultsPage, RunComparison, RunPage, RunRow};
use crate::store::{EvalRunHead, Store};
use std::collections::BTreeMap;

/// Cases per page of a run's or a comparison's case list.
pub const RUN_CASES_PER_PAGE: usize = 50;

fn config_of(record: &EvalRunHead) -> Result<EvalConfig, EvalRunError> {
    stored_config(&record.summary.result_id, &record.config_json).map_err(EvalRunError::Unreadable)
}

/// A run's cases pooled over its runs, in the eval set's order.
async fn case_summaries(
    store: &Store,
    record: &EvalRunHead,
    config: &EvalConfig,
) -> Result<Vec<CaseSummary>, EvalRunError> {
    let mut by_case: BTreeMap<i64, (String, Vec<CaseRunScores>)> = BTreeMap::new();
    for row in store.eval_run_cases(record.row, false).await? {
        let scores = CaseRunScores {
            final_eval_status: EvalStatus::from_number(row.status),
            error: row.error.is_some(),
            metric_scores: row.metric_scores,
        };
        by_case
            .entry(row.case_index)
            .or_insert_with(|| (row.eval_id, Vec::new()))
            .1
            .push(scores);
    }
    Ok(by_case
        .into_values()
        .map(|(eval_id, runs)| summarize_case(&eval_id, &runs, config))
        .collect())
}

/// The app's runs (of one evalset, if given), newest first, each with its metrics' statistics.
pub async fn run_rows(
    store: &Store,
    app: &str,
    eval_set_id: Option<&str>,
) -> Result<Vec<RunRow>, EvalRunError> {
    let mut rows = Vec::new();
    for summary in list_eval_runs(store, app, eval_set_id).await? {
        let record = store.eval_run_head(app, &summary.result_id).await?;
        let metrics = metric_stats(&case_summaries(store, &record, &config_of(&record)?).await?);
        rows.push(RunRow { summary, metrics });
    }
    Ok(rows)
}

fn page_of<T: Clone>(items: &[T], page: i64) -> (Vec<T>, i64, i64) {
    let page_count = items.len().div_ceil(RUN_CASES_PER_PAGE).max(1) as i64;
    let page = page.clamp(1, page_count);
    let start = (page as usize - 1) * RUN_CASES_PER_PAGE;
    let shown = items
        .iter()
        .skip(start)
        .take(RUN_CASES_PER_PAGE)
        .cloned()
        .collect();
    (shown, page, page_count)
}

/// One page of a run's case summaries, for its results table (the cases' per-turn results are
/// read when a case is opened).
pub async fn results_page(
    store: &Store,
    app: &str,
    result_id: &str,
    page: i64,
) -> Result<ResultsPage, EvalRunError> {
    let record = store.eval_run_head(app, result_id).await?;
    let config = config_of(&record)?;
    let summaries = case_summaries(store, &record, &config).await?;
    let (case_summaries, page, page_count) = page_of(&summaries, page);
    Ok(ResultsPage {
        summary: record.summary,
        metric_names: config.metrics.iter().map(|m| m.name.clone()).collect(),
        case_summaries,
        page,
        page_count,
    })
}

pub async fn run_page(store: &Store, app: &str, result_id: &str, page: i64) -> Result<RunPage, EvalRunError> {
    let record = store.eval_run_head(app, result_id).await?;
    let summaries = case_summaries(store, &record, &config_of(&record)?).await?;
    let (cases, page, page_count) = page_of(&summaries, page);
    let other_runs = list_eval_runs(store, app, Some(&record.summary.eval_set_id))
        .await?
        .into_iter()
        .filter(|run| run.result_id != result_id)
        .collect();
    Ok(RunPage {
        metrics: metric_stats(&summaries),
        summary: record.summary,
        cases,
        page,
        page_count,
        other_runs,
    })
}

/// `before` against `after` (two runs of one evalset), one page of the cases of `change` (all
/// when None).
pub async fn compare(
    store: &Store,
    app: &str,
    before_id: &str,
    after_id: &str,
    change: Option<Change>,
    page: i64,
) -> Result<RunComparison, EvalRunError> {
    let (before, after) = (
        store.eval_run_head(app, before_id).await?,
        store.eval_run_head(app, after_id).await?,
    );
    let (earlier, later) = (
        case_summaries(store, &before, &config_of(&before)?).await?,
        case_summaries(store, &after, &config_of(&after)?).await?,
    );
    let compared = compare_runs(&earlier, &later);
    let counts = Change::ALL
        .iter()
        .map(|kind| compared.iter().filter(|c| c.change == *kind).count())
        .collect();
    let chosen: Vec<_> = compared
        .into_iter()
        .filter(|c| change.is_none_or(|kind| c.change == kind))
        .collect();
    let (cases, page, page_count) = page_of(&chosen, page);
    Ok(RunComparison {
        before_metrics: metric_stats(&earlier),
        after_metrics: metric_stats(&later),
        before: before.summary,
        after: after.summary,
        counts,
        cases,
        page,
        page_count,
    })
}

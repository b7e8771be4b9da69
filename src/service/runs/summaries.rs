//! A run's case summaries (each case pooled over its repetitions) and its per-metric
//! statistics, kept in the store so a run's pages read a page of cases: written with each
//! batch of case runs, backfilled once for runs stored before they existed, and the statistics
//! cached until the next write.

use super::case_rows::summarise;
use super::error::EvalRunError;
use super::stored::config_of;
use crate::eval::config::EvalConfig;
use crate::eval::junit::RunError;
use crate::eval::result::CaseSummary;
use crate::eval::run_stats::{metric_stats, MetricStats};
use crate::records::runs::{EvalRunCase, EvalRunSummary};
use crate::store::{BatchWrite, EvalRunHead, Store, StoreError, Written};

/// What a run's report (the results table, JUnit) needs: the run, each case's verdict pooled
/// over its runs, and the case runs the agent could not finish. Read from the stored summaries,
/// so it holds a verdict per case rather than every case run with its scores.
pub struct RunVerdicts {
    pub summary: EvalRunSummary,
    pub summaries: Vec<CaseSummary>,
    pub errors: Vec<EvalRunCase>,
}

impl RunVerdicts {
    /// The case runs the agent could not finish, as JUnit reports them.
    pub fn junit_errors(&self) -> Vec<RunError<'_>> {
        self.errors
            .iter()
            .filter_map(|case| {
                Some(RunError {
                    eval_id: &case.eval_id,
                    run_index: case.run_index,
                    error: case.error.as_deref()?,
                })
            })
            .collect()
    }
}

/// The verdicts of the run `result_id` as stored so far (its summaries written first if it
/// was stored before summaries were kept).
pub async fn run_verdicts(store: &Store, app: &str, result_id: &str) -> Result<RunVerdicts, EvalRunError> {
    let mut head = store.eval_run_head(app, result_id).await?;
    let config = config_of(&head)?;
    backfill(store, &mut head, &config).await?;
    Ok(RunVerdicts {
        summaries: store.case_summaries(head.row, 0, None).await?,
        errors: store.eval_run_errors(head.row).await?,
        summary: head.summary,
    })
}

/// Stores finished case runs with their cases' new summaries, each pooled over the case's runs
/// already stored and the new ones (a new try of a case run replaces the earlier one), as long
/// as this process holds their `batches` (see `BatchWrite`). One worker at a time holds a
/// case's batch, so the read of its stored runs below cannot race another write of them.
pub async fn save_case_runs(
    store: &Store,
    run_row: i64,
    rows: &[EvalRunCase],
    config: &EvalConfig,
    batches: &BatchWrite,
) -> Result<Written, StoreError> {
    let mut eval_ids: Vec<String> = rows.iter().map(|row| row.eval_id.clone()).collect();
    eval_ids.sort();
    eval_ids.dedup();
    let mut runs: Vec<EvalRunCase> = store
        .eval_run_cases_of(run_row, &eval_ids, false)
        .await?
        .into_iter()
        .filter(|stored| {
            !rows
                .iter()
                .any(|new| (new.run_index, new.case_index) == (stored.run_index, stored.case_index))
        })
        .collect();
    runs.extend(rows.iter().cloned());
    store
        .save_eval_run_cases(run_row, rows, &summarise(&runs, config), batches)
        .await
}

/// Writes the summaries of a run stored before summaries were kept (a no-op for any other).
/// Case runs written meanwhile (a resume) make it read the run again.
pub async fn backfill(store: &Store, head: &mut EvalRunHead, config: &EvalConfig) -> Result<(), StoreError> {
    for _ in 0..3 {
        if head.summarised {
            return Ok(());
        }
        let rows = summarise(&store.eval_run_cases(head.row, false).await?, config);
        if store
            .replace_case_summaries(head.row, head.cases_version, &rows)
            .await?
        {
            head.summarised = true;
            head.stats_json = None;
            return Ok(());
        }
        *head = store
            .eval_run_head(&head.summary.app_name, &head.summary.result_id)
            .await?;
    }
    Err(StoreError::Conflict(format!(
        "eval result `{}` kept changing while its summaries were written; try again",
        head.summary.result_id
    )))
}

/// The run's per-metric statistics: cached, or computed from all its summaries and cached for
/// the next read (until case runs are written again).
pub async fn run_stats(store: &Store, head: &EvalRunHead) -> Result<Vec<MetricStats>, EvalRunError> {
    if let Some(cached) = head.stats_json.as_deref() {
        if let Ok(stats) = serde_json::from_str(cached) {
            return Ok(stats);
        }
    }
    let stats = metric_stats(&store.case_summaries(head.row, 0, None).await?);
    let json = serde_json::to_string(&stats).expect("statistics serialise");
    store.cache_run_stats(head.row, head.cases_version, &json).await?;
    Ok(stats)
}

/// A run's head with its summaries in place (backfilled if it predates them) and its config.
pub async fn summarised_head(
    store: &Store,
    app: &str,
    result_id: &str,
) -> Result<(EvalRunHead, EvalConfig), EvalRunError> {
    let mut head = store.eval_run_head(app, result_id).await?;
    let config = config_of(&head)?;
    backfill(store, &mut head, &config).await?;
    Ok((head, config))
}

//! The case list's view of the evalset's latest run: each listed case's outcome there, pooled
//! over its runs, with the reason of each metric that could not score.

use super::stored::config_of;
use super::summaries::backfill;
use crate::eval::result::{CaseSummary, EvalCaseResult, EvalStatus};
use crate::records::cases::{CaseListPage, LastResult};
use crate::store::{Store, StoreError};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// Fills in `page.last_run` and each case's `last_result` (cases the run did not reach have none).
pub async fn add_last_run(store: &Store, page: &mut CaseListPage) -> Result<(), StoreError> {
    let (app, set) = (&page.eval_set.app_name, &page.eval_set.eval_set_id);
    let Some(mut record) = store.latest_eval_run(app, set).await? else {
        return Ok(());
    };
    // A config this build cannot read (an older run's) leaves the list without statuses.
    let Ok(config) = config_of(&record) else {
        return Ok(());
    };
    backfill(store, &mut record, &config).await?;
    let ids: Vec<String> = page.cases.iter().map(|c| c.eval_id.clone()).collect();
    let mut summaries: HashMap<String, CaseSummary> = store
        .case_summaries_of(record.row, &ids)
        .await?
        .into_iter()
        .map(|summary| (summary.eval_id.clone(), summary))
        .collect();
    let mut unscored = Vec::new();
    for item in &mut page.cases {
        let Some(summary) = summaries.remove(&item.eval_id) else {
            continue;
        };
        if summary
            .metrics
            .iter()
            .any(|m| m.eval_status == EvalStatus::NotEvaluated)
        {
            unscored.push(item.eval_id.clone());
        }
        item.last_result = Some(LastResult {
            summary,
            reasons: BTreeMap::new(),
        });
    }
    // Only the cases with an unscored metric have their whole results read, for the reasons.
    for row in store.eval_run_cases_of(record.row, &unscored, true).await? {
        let Some(last) = page
            .cases
            .iter_mut()
            .find(|c| c.eval_id == row.eval_id)
            .and_then(|c| c.last_result.as_mut())
        else {
            continue;
        };
        if let Ok(result) = EvalCaseResult::deserialize(&row.result) {
            for metric in result.overall_eval_metric_results {
                if let Some(reason) = metric.details.reason {
                    last.reasons.entry(metric.metric_name).or_insert(reason);
                }
            }
        }
    }
    page.last_run = Some(record.summary);
    Ok(())
}

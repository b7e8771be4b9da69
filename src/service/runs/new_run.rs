//! The one way a new run is recorded, whatever its origin: an agent run queued for workers, or
//! a run already over (recorded sessions scored, a run `adk eval` wrote) stored whole, its case
//! runs and their cases' summaries with it, in one write.

use super::case_rows::{stored_case, summarise};
use crate::agent::ToolExecution;
use crate::eval::config::EvalConfig;
use crate::eval::runner::FinishedCase;
use crate::evalset::CompactEvalSet;
use crate::records::runs::{EvalRunCase, RunCommit, RunOrigin};
use crate::store::{EvalRunRecord, NewEvalRun, Store, StoreError};

/// A run to record.
pub struct NewRun<'a> {
    pub app: &'a str,
    pub eval_set_id: &'a str,
    pub agent: &'a str,
    /// The eval set as run.
    pub expected: &'a CompactEvalSet,
    pub config: &'a EvalConfig,
    pub num_runs: usize,
    pub created_at: f64,
    pub label: Option<&'a str>,
    /// Whether it runs every case of the evalset (not a re-run of some).
    pub whole_set: bool,
    pub tools: ToolExecution,
    /// Folder mode: the folder's git commit.
    pub commit: Option<&'a RunCommit>,
    /// ADK's own id, for a run read from an eval history file; else one is made.
    pub result_id: Option<&'a str>,
    pub origin: RunOrigin,
}

impl NewRun<'_> {
    /// Records the run as `running`, each of its cases' runs queued in batches for workers,
    /// before any case starts.
    pub async fn queue(&self, store: &Store) -> Result<EvalRunRecord, StoreError> {
        let config_json = self.config.to_json().to_string();
        let total = self.expected.len() * self.num_runs;
        store.create_eval_run(&self.stored(&config_json, total)).await
    }

    /// Stores the run whole and finished at `finished_at`: its case runs `finished`, scored on
    /// its config, and each case's summary pooled over them.
    pub async fn store_finished(
        &self,
        store: &Store,
        finished: &[FinishedCase],
        finished_at: f64,
    ) -> Result<EvalRunRecord, StoreError> {
        let config_json = self.config.to_json().to_string();
        let rows: Vec<EvalRunCase> = finished
            .iter()
            .map(|case| stored_case(case, self.config))
            .collect();
        let summaries = summarise(&rows, self.config);
        let run = self.stored(&config_json, rows.len());
        store
            .create_finished_eval_run(&run, &rows, &summaries, finished_at)
            .await
    }

    /// The run as the store records it, of `total` case runs.
    fn stored<'s>(&'s self, config_json: &'s str, total: usize) -> NewEvalRun<'s> {
        NewEvalRun {
            app_name: self.app,
            eval_set_id: self.eval_set_id,
            agent: self.agent,
            expected: self.expected,
            config_json,
            num_runs: self.num_runs,
            total,
            created_at: self.created_at,
            label: self.label,
            whole_set: self.whole_set,
            tools: self.tools,
            commit: self.commit,
            result_id: self.result_id,
            origin: self.origin,
        }
    }
}

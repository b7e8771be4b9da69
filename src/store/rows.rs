//! What the store takes and answers besides the plain `records` the pages share: rows only
//! services handle, the hook for evalsets that are also files, and the lease's timing.

use super::StoreResult;
use crate::agent::ToolExecution;
use crate::eval::CaseSummary;
use crate::evalset::EvalCase;
use crate::records::{EvalRunSummary, RunCommit, RunOrigin, RUN_LEASE_SECONDS};
use std::time::Duration;

/// A case as one table row: its canonical JSON and the figures the lists show.
pub struct CaseRow {
    pub(in crate::store) eval_id: String,
    pub(in crate::store) case_json: String,
    pub(in crate::store) turn_count: i64,
    pub(in crate::store) tool_call_count: i64,
    pub(in crate::store) first_user_message: String,
    pub(in crate::store) tool_names: String,
}

impl CaseRow {
    pub fn new(case: &EvalCase) -> CaseRow {
        let mut case_json = serde_json::to_string(case).expect("serializing an EvalCase cannot fail");
        // An import holds every row until its transaction; the writer's spare room would be up to half.
        case_json.shrink_to_fit();
        CaseRow {
            eval_id: case.eval_id.clone(),
            case_json,
            turn_count: case.turn_count() as i64,
            tool_call_count: case.tool_call_count() as i64,
            first_user_message: case.first_user_message(),
            tool_names: case.tool_names(),
        }
    }
}

/// One version of a case as it was saved.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseVersion {
    pub version: i64,
    pub saved_at: String,
    pub case: EvalCase,
}

/// The format of the summaries and statistics this build writes. Bump it when
/// `eval::summarize_case` or `eval::metric_stats` change what they compute: every run's
/// summaries are then written again (from its stored case runs) on its next read.
pub const SUMMARY_FORMAT: i64 = 2;

/// A case's summary and its position in the run's stored eval set.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseSummaryRow {
    pub case_index: i64,
    pub summary: CaseSummary,
}

/// What a new run records before its first case starts.
#[derive(Debug, Clone)]
pub struct NewEvalRun<'a> {
    pub app_name: &'a str,
    pub eval_set_id: &'a str,
    pub agent: &'a str,
    /// The eval set as run, ADK JSON.
    pub expected_json: &'a str,
    /// The eval config, `{"criteria": ...}`.
    pub config_json: &'a str,
    pub num_runs: usize,
    pub total: usize,
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

/// A run without its stored eval set (which can be large): what lists, progress and statistics
/// need.
#[derive(Debug, Clone)]
pub struct EvalRunHead {
    pub row: i64,
    pub summary: EvalRunSummary,
    pub config_json: String,
    /// Whether its case summaries are stored in this build's [`SUMMARY_FORMAT`] (false for runs
    /// stored before summaries were kept, or summarised by a build that summarised differently).
    pub summarised: bool,
    /// Bumped by every write of case runs.
    pub cases_version: i64,
    /// The per-metric statistics cached for this `cases_version`, if any (JSON).
    pub stats_json: Option<String>,
}

/// A stored run with what is needed to resume or report it.
#[derive(Debug, Clone)]
pub struct EvalRunRecord {
    pub row: i64,
    pub summary: EvalRunSummary,
    pub expected_json: String,
    pub config_json: String,
}

/// Where evalsets are written as files.
pub trait EvalSetFiles: Send + Sync {
    /// Writes the evalset's ADK text (`None`: it was deleted), or refuses with the reason.
    fn write(&self, app: &str, eval_set_id: &str, text: Option<&str>) -> StoreResult<()>;
}

/// How long a lease lasts without renewal: after this a run whose process died reads as
/// interrupted and can be resumed.
pub const LEASE_SECONDS: f64 = RUN_LEASE_SECONDS as f64;

/// How often a runner renews its lease: three tries before it runs out.
pub const RENEW_EVERY: Duration = Duration::from_secs(RUN_LEASE_SECONDS / 3);

//! What the store takes and answers besides the plain `records` the pages share: rows only
//! services handle, the hook for evalsets that are also files, and the lease's timing.

use super::StoreResult;
use crate::agent::ToolExecution;
use crate::eval::result::CaseSummary;
use crate::evalset::{CompactEvalSet, EvalCase};
use crate::records::runs::{EvalRunSummary, RunCommit, RunOrigin, RunStatus, RUN_LEASE_SECONDS};
use std::time::Duration;

/// A case as one table row: its canonical JSON and the figures the lists show.
pub struct CaseRow {
    pub(in crate::store) eval_id: String,
    pub(in crate::store) case_json: String,
    pub(in crate::store) turn_count: i64,
    pub(in crate::store) tool_call_count: i64,
    pub(in crate::store) first_user_message: String,
    pub(in crate::store) tool_names: String,
    /// Who saved it (`None`: without a login, or from a file).
    pub(in crate::store) saved_by: Option<String>,
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
            saved_by: None,
        }
    }

    /// The same row, saved by `user`.
    pub fn saved_by(mut self, user: Option<&str>) -> CaseRow {
        self.saved_by = user.map(str::to_string);
        self
    }
}

/// What an import does when the evalset's id is already stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportMode {
    /// Refuses (a conflict): the id must be new.
    New,
    /// Replaces the stored evalset whole.
    Replace,
    /// Replaces it only while its tag is still this one (a push of what was pulled); refuses
    /// as stale when it changed, or is gone.
    ReplaceIfTag(String),
}

impl ImportMode {
    pub fn replacing(replace: bool) -> ImportMode {
        if replace {
            ImportMode::Replace
        } else {
            ImportMode::New
        }
    }
}

/// A user as logging in reads them: their row, who they are, and their password's hash
/// (`None` for a user who signs in only through the proxy header).
pub struct StoredUser {
    pub row: i64,
    pub signed_in: crate::access::SignedIn,
    pub password_hash: Option<String>,
}

/// One version of a case as it was saved.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseVersion {
    pub version: i64,
    pub saved_at: String,
    pub saved_by: Option<String>,
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

/// What a new run is recorded with, whether it is to run or is already over.
#[derive(Debug, Clone)]
pub struct NewEvalRun<'a> {
    pub app_name: &'a str,
    pub eval_set_id: &'a str,
    pub agent: &'a str,
    /// The eval set as run.
    pub expected: &'a CompactEvalSet,
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
    pub config_json: String,
}

/// Where evalsets are written as files.
pub trait EvalSetFiles: Send + Sync {
    /// Writes the evalset's ADK text (`None`: it was deleted), or refuses with the reason.
    fn write(&self, app: &str, eval_set_id: &str, text: Option<&str>) -> StoreResult<()>;
}

/// How long a batch's lease lasts without renewal: after this the batch of a worker that died
/// is claimed by another.
pub const LEASE_SECONDS: f64 = RUN_LEASE_SECONDS as f64;

/// How often a worker renews its leases: three tries before they run out.
pub const RENEW_EVERY: Duration = Duration::from_secs(RUN_LEASE_SECONDS / 3);

/// About how many case runs a batch holds: small enough that workers share a run evenly and a
/// dead worker's batch is little to redo, large enough that claiming costs nothing beside the
/// agent's time.
pub const CASE_RUNS_PER_BATCH: usize = 16;

/// Cases per batch for a run of `num_runs` repetitions: a batch holds every repetition of its
/// cases, so one worker writes each case's summary.
pub fn cases_per_batch(num_runs: usize) -> usize {
    (CASE_RUNS_PER_BATCH / num_runs.max(1)).max(1)
}

/// A batch this process claimed: cases `cases` of the eval set, every repetition, less the
/// case runs already `stored` (by a worker that died after storing them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedBatch {
    pub id: i64,
    pub cases: std::ops::Range<usize>,
    /// (run_index, case_index) pairs.
    pub stored: Vec<(usize, usize)>,
}

/// What a claim found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchClaim {
    Claimed(ClaimedBatch),
    /// None free now: live workers (this process included) hold the run's other batches.
    Busy,
    /// Nothing left to claim: the run is no longer running (its status).
    Over(RunStatus),
}

/// The batches a write of case runs belongs to: it is stored only while this process holds
/// every one of `held` (else nothing is written: another worker has them now); the `completed`
/// ones (their last case runs are in this write) are deleted with it, and when they were the
/// run's last, the run is finished `at` then.
#[derive(Debug, Clone, Default)]
pub struct BatchWrite {
    pub held: Vec<i64>,
    pub completed: Vec<i64>,
    pub at: f64,
}

/// What a write of case runs did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    /// Stored; `finished` when it completed the run's last batch.
    Stored { finished: bool },
    /// Nothing stored: this process no longer holds a batch of the write.
    NotHeld,
}

/// A chat turn under way as the store holds it: what the user said and the agent's events
/// stored so far after the position asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveTurnRead {
    pub invocation_id: String,
    pub user_message: String,
    /// (position, event), in order.
    pub events: Vec<(i64, crate::agent::AgentEvent)>,
    /// Its lease has ended: the process running it died or hung.
    pub abandoned: bool,
}

//! Evaluation runs: where one stands, what it takes, its stored case runs, and the pages that
//! show one run or compare two.

use crate::agent::ToolExecution;
use crate::eval::result::{CaseSummary, EvalStatus};
use crate::eval::run_stats::{ComparedCase, MetricStats};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where an evaluation run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Running,
    Finished,
    /// Its process ended (crash, kill) before the run did; it can be resumed.
    Interrupted,
    /// Stopped by a user; it can be resumed.
    Cancelled,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Finished => "finished",
            RunStatus::Interrupted => "interrupted",
            RunStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<RunStatus> {
        [
            RunStatus::Running,
            RunStatus::Finished,
            RunStatus::Interrupted,
            RunStatus::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    /// Whether resuming would run the cases still missing.
    pub fn resumable(self) -> bool {
        matches!(self, RunStatus::Interrupted | RunStatus::Cancelled)
    }
}

/// Which of an eval set's cases a run takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RunScope {
    All,
    /// These eval ids (the cases selected in the list).
    Selected(Vec<String>),
    /// The cases that failed or errored in the eval set's latest run.
    FailedLastRun,
}

/// One metric picked in the browser's Evaluate panel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricChoice {
    pub metric_name: String,
    pub threshold: f64,
    /// The criterion's other keys as JSON object text, for metrics that take them.
    pub options: Option<String>,
}

/// How long a worker's lease on a batch of a run's cases lasts unless it renews it: after a
/// crash or kill, another worker takes the batch up this long after the last renewal at most.
pub const RUN_LEASE_SECONDS: u64 = 15;

/// One evaluation run as lists show it: counts over the case runs stored so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalRunSummary {
    /// ADK's eval_set_result_id.
    pub result_id: String,
    pub app_name: String,
    pub eval_set_id: String,
    pub agent: String,
    pub status: RunStatus,
    pub num_runs: i64,
    /// Case runs planned (cases × runs) and stored.
    pub total: i64,
    pub done: i64,
    pub passed: i64,
    pub failed: i64,
    /// Case runs the agent could not finish.
    pub errors: i64,
    /// Seconds since the epoch.
    pub created_at: f64,
    pub finished_at: Option<f64>,
    /// What the user called it, if anything.
    #[serde(default)]
    pub label: Option<String>,
    /// Whether it ran every case of the evalset; else a re-run of some.
    #[serde(default = "whole_set")]
    pub whole_set: bool,
    /// Whether its tools ran or answered from the cases' recordings.
    #[serde(default)]
    pub tools: ToolExecution,
    /// Folder mode: the folder's git commit when it started.
    #[serde(default)]
    pub commit: Option<RunCommit>,
    /// Who made it: Evalstudio, or ADK (read from a folder's eval history).
    #[serde(default)]
    pub origin: RunOrigin,
}

/// Who made a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum RunOrigin {
    #[default]
    Evalstudio,
    /// `adk eval` or `adk web`, read from an agents folder's eval history.
    Adk,
    /// Sessions recorded as spans (the OTLP receiver), scored without running the agent.
    Recorded,
}

impl RunOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            RunOrigin::Evalstudio => "evalstudio",
            RunOrigin::Adk => "adk",
            RunOrigin::Recorded => "recorded",
        }
    }

    pub fn parse(text: &str) -> Option<RunOrigin> {
        [RunOrigin::Evalstudio, RunOrigin::Adk, RunOrigin::Recorded]
            .into_iter()
            .find(|o| o.as_str() == text)
    }
}

/// The git commit a run was made on, and whether the tree had changes beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunCommit {
    pub commit: String,
    pub dirty: bool,
}

impl RunCommit {
    /// The commit as people write it: its first 8 characters, `+changes` when dirty.
    pub fn short(&self) -> String {
        let short: String = self.commit.chars().take(8).collect();
        if self.dirty {
            format!("{short}+changes")
        } else {
            short
        }
    }
}

fn whole_set() -> bool {
    true
}

impl EvalRunSummary {
    /// How many cases it ran.
    pub fn case_count(&self) -> i64 {
        self.total / self.num_runs.max(1)
    }

    /// Ok when resuming would run the cases still missing; else why not.
    pub fn check_resumable(&self) -> Result<(), String> {
        if self.status.resumable() {
            Ok(())
        } else {
            let hint = match self.status {
                RunStatus::Running => format!(
                    " (workers are on it; the cases of one that died are taken up by another \
                     once its lease runs out, within {RUN_LEASE_SECONDS} s)"
                ),
                _ => String::new(),
            };
            Err(format!(
                "eval result `{}` is {}; only an interrupted or cancelled run can be resumed{hint}",
                self.result_id,
                self.status.as_str()
            ))
        }
    }
}

/// Where a running run stands, as its progress stream reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunProgress {
    pub status: RunStatus,
    pub done: i64,
    pub total: i64,
    pub passed: i64,
    pub failed: i64,
    pub errors: i64,
    /// Seconds left at the pace so far; None before the first case finishes or once done.
    pub eta_seconds: Option<f64>,
}

/// One stored case run: ADK's EvalCaseResult as JSON, plus what lists need without parsing it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalRunCase {
    pub run_index: i64,
    pub case_index: i64,
    pub eval_id: String,
    /// ADK's EvalStatus of the case run (stored as its number).
    pub status: EvalStatus,
    pub error: Option<String>,
    /// Per metric of the run's config, each invocation's score (`None` when it got none).
    pub metric_scores: Vec<Vec<Option<f64>>>,
    pub result: Value,
}

/// How one case run ended, as lists and filters tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseRunOutcome {
    Passed,
    Failed,
    NotEvaluated,
    /// The agent could not finish it.
    Error,
}

impl EvalRunCase {
    pub fn outcome(&self) -> CaseRunOutcome {
        match (&self.error, self.status) {
            (Some(_), _) => CaseRunOutcome::Error,
            (None, EvalStatus::Passed) => CaseRunOutcome::Passed,
            (None, EvalStatus::Failed) => CaseRunOutcome::Failed,
            (None, EvalStatus::NotEvaluated | EvalStatus::Informational) => CaseRunOutcome::NotEvaluated,
        }
    }

    /// Whether "failed in the latest run" takes it: it failed or its agent errored.
    pub fn failed(&self) -> bool {
        matches!(self.outcome(), CaseRunOutcome::Failed | CaseRunOutcome::Error)
    }
}

/// One row of a runs list: the run and its per-metric means.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    pub summary: EvalRunSummary,
    pub metrics: Vec<MetricStats>,
}

/// A page of a run's results table: the run, its metrics, and a page of its cases pooled over
/// their runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultsPage {
    pub summary: EvalRunSummary,
    pub metric_names: Vec<String>,
    pub case_summaries: Vec<CaseSummary>,
    pub page: i64,
    pub page_count: i64,
}

/// A run's page: its summary, per-metric statistics over all its cases, one page of its cases,
/// and the evalset's other runs to compare it with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunPage {
    pub summary: EvalRunSummary,
    pub metrics: Vec<MetricStats>,
    pub cases: Vec<CaseSummary>,
    pub page: i64,
    pub page_count: i64,
    pub other_runs: Vec<EvalRunSummary>,
}

/// Two runs of an evalset compared: how many cases moved each way, per-metric statistics of
/// both, and one page of the cases (of one kind of change, or all).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunComparison {
    pub before: EvalRunSummary,
    pub after: EvalRunSummary,
    pub before_metrics: Vec<MetricStats>,
    pub after_metrics: Vec<MetricStats>,
    /// Per change (in `Change::ALL` order), its number of cases.
    pub counts: Vec<usize>,
    pub cases: Vec<ComparedCase>,
    pub page: i64,
    pub page_count: i64,
}

/// A case in one run of its evalset, pooled over that run's repetitions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseInRun {
    pub result_id: String,
    pub created_at: f64,
    pub summary: CaseSummary,
}

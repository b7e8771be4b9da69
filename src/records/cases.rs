//! An evalset's cases: the case list (its rows, query, order and page), a case as stored, its
//! history and the deleted cases that can come back.

use super::evalsets::EvalSetSummary;
use super::runs::EvalRunSummary;
use crate::eval::result::CaseSummary;
use crate::evalset::EvalCase;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One row of an evalset's case list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseListItem {
    pub eval_id: String,
    pub turn_count: i64,
    pub tool_call_count: i64,
    pub first_user_message: String,
    pub version: i64,
    pub updated_at: String,
    /// How the case did in the evalset's latest run, if that run has it.
    #[serde(default)]
    pub last_result: Option<LastResult>,
}

/// A case's outcome in the evalset's latest run: pooled over its runs, with why each metric
/// that could not score did not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LastResult {
    pub summary: CaseSummary,
    /// By metric name, the reason a NOT_EVALUATED metric gave.
    pub reasons: BTreeMap<String, String>,
}

/// Which of an evalset's cases to list, in which order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CaseListQuery {
    /// Keeps the cases whose eval_id, first user message or a tool name contains it, ignoring
    /// case; all when empty.
    pub text: String,
    pub sort: CaseSort,
    pub descending: bool,
    /// Keeps only the cases that failed (or errored) in the evalset's latest run.
    #[serde(default)]
    pub failed_last_run: bool,
}

/// The orders the case list offers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseSort {
    /// The order of the file (and of export).
    #[default]
    File,
    EvalId,
    Turns,
    ToolCalls,
    Updated,
}

impl CaseSort {
    pub const ALL: [CaseSort; 5] = [
        CaseSort::File,
        CaseSort::EvalId,
        CaseSort::Turns,
        CaseSort::ToolCalls,
        CaseSort::Updated,
    ];

    /// Its name in URLs and the REST API.
    pub fn as_str(self) -> &'static str {
        match self {
            CaseSort::File => "file",
            CaseSort::EvalId => "eval_id",
            CaseSort::Turns => "turns",
            CaseSort::ToolCalls => "tool_calls",
            CaseSort::Updated => "updated",
        }
    }

    pub fn parse(text: &str) -> Option<CaseSort> {
        CaseSort::ALL.into_iter().find(|sort| sort.as_str() == text)
    }

    pub fn label(self) -> &'static str {
        match self {
            CaseSort::File => "File order",
            CaseSort::EvalId => "Eval id",
            CaseSort::Turns => "Turns",
            CaseSort::ToolCalls => "Tool calls",
            CaseSort::Updated => "Last updated",
        }
    }
}

/// A page of an evalset's cases that match a query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseListPage {
    pub eval_set: EvalSetSummary,
    pub cases: Vec<CaseListItem>,
    /// 1-based page number actually returned (clamped to the last page).
    pub page: i64,
    pub per_page: i64,
    /// How many cases match the query (all of the evalset's when it is empty).
    pub total_cases: i64,
    pub query: CaseListQuery,
    /// The evalset's latest run, whose results the cases show.
    #[serde(default)]
    pub last_run: Option<EvalRunSummary>,
}

impl CaseListPage {
    pub fn page_count(&self) -> i64 {
        ((self.total_cases + self.per_page - 1) / self.per_page).max(1)
    }
}

/// A case as stored, with the version an edit must name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredCase {
    pub app_name: String,
    pub eval_set_id: String,
    pub case: EvalCase,
    pub version: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// One entry of a case's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseVersionSummary {
    pub version: i64,
    /// When this version was saved.
    pub saved_at: String,
    /// Who saved it (`None`: saved without a login, or read from a file).
    #[serde(default)]
    pub saved_by: Option<String>,
    /// What this version changed from the one before it ("turn 2: args of get_weather
    /// changed"); empty for the first version.
    pub changes: Vec<String>,
    /// Whether this is the case as it is now.
    pub current: bool,
}

/// A deleted case that can still be brought back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeletedCase {
    pub eval_id: String,
    pub deleted_at: String,
}

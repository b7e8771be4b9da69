//! `Store`: the one interface to the store, forwarding each call to its backend's queries.

use super::{postgres, sqlite, EvalSetFiles, Location, StoreError, StoreResult};
use crate::access::{Role, SignedIn, TokenSummary, UserSummary};
use crate::agent::AgentEvent;
use crate::eval::result::CaseSummary;
use crate::eval::run_stats::CaseOutcome;
use crate::evalset::{EvalCase, EvalSet};
use crate::records::cases::{CaseListPage, CaseListQuery, DeletedCase, StoredCase};
use crate::records::evalsets::{EvalSetSummary, ImportSummary};
use crate::records::runs::{CaseInRun, EvalRunCase, EvalRunSummary, RunStatus};
use crate::records::sessions::{SessionRecord, SessionSummary, SessionTurn};
use crate::records::spans::SpanRecord;
use crate::records::traces::{TraceSessionFilter, TraceSessionSummary};
use crate::store::{
    BatchClaim, BatchWrite, CaseRow, CaseSummaryRow, CaseVersion, EvalRunHead, EvalRunRecord, ImportMode,
    LiveTurnRead, NewEvalRun, StoredUser, Written,
};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The store, on whichever backend it was opened. Cheap to clone: clones share the pool.
#[derive(Clone)]
pub struct Store(Backend);

#[derive(Clone)]
enum Backend {
    Sqlite(sqlite::SqlStore),
    Postgres(postgres::SqlStore),
}

/// Forwards each listed call to the backend's query code, where it is documented.
macro_rules! forward {
    ($( pub async fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $ret:ty; )*) => {
        impl Store {
            $( pub async fn $name(&self $(, $arg: $ty)*) -> $ret {
                match &self.0 {
                    Backend::Sqlite(store) => store.$name($($arg),*).await,
                    Backend::Postgres(store) => store.$name($($arg),*).await,
                }
            } )*
        }
    };
}

impl Store {
    /// Opens the store at `location` (creating a SQLite file if needed) and applies its
    /// pending migrations.
    pub async fn open(location: &Location) -> StoreResult<Store> {
        let opened = match location {
            Location::Sqlite(path) => sqlite::open(path).await.map(Backend::Sqlite),
            Location::Postgres(url) => postgres::open(url).await.map(Backend::Postgres),
        };
        opened.map(Store).map_err(|source| StoreError::Open {
            location: location.to_string(),
            source: Box::new(source),
        })
    }

    /// Where it is.
    pub fn location(&self) -> &Location {
        match &self.0 {
            Backend::Sqlite(store) => store.location(),
            Backend::Postgres(store) => store.location(),
        }
    }

    /// The id this store handle holds leases under (see `sql/leases.rs`).
    pub fn boot_id(&self) -> &str {
        match &self.0 {
            Backend::Sqlite(store) => store.boot_id(),
            Backend::Postgres(store) => store.boot_id(),
        }
    }

    /// From now on every evalset write also goes to `files` (see `sql/eval_set_files.rs`).
    pub fn write_eval_sets_to(&self, files: Arc<dyn EvalSetFiles>) {
        match &self.0 {
            Backend::Sqlite(store) => store.write_eval_sets_to(files),
            Backend::Postgres(store) => store.write_eval_sets_to(files),
        }
    }
}

forward! {
// sql/eval_sets.rs
pub async fn list_apps(&self) -> StoreResult<Vec<String>>;
pub async fn list_eval_sets(&self, app: &str) -> StoreResult<Vec<EvalSetSummary>>;
pub async fn eval_set_summary(&self, app: &str, eval_set_id: &str) -> StoreResult<EvalSetSummary>;
pub async fn create_eval_set(&self, app: &str, eval_set_id: &str, now: f64) -> StoreResult<()>;
pub async fn create_eval_set_with(&self, app: &str, eval_set_id: &str, now: f64, extra: &Map<String, Value>) -> StoreResult<()>;
pub async fn eval_set_extra(&self, app: &str, eval_set_id: &str) -> StoreResult<Map<String, Value>>;
pub async fn delete_eval_set(&self, app: &str, eval_set_id: &str) -> StoreResult<()>;
pub async fn import_eval_set(&self, app: &str, eval_set: &EvalSet, cases: &[CaseRow], format: &str, mode: &ImportMode) -> StoreResult<ImportSummary>;
pub async fn export_tagged(&self, app: &str, eval_set_id: &str) -> StoreResult<(String, String)>;
pub async fn export_adk_json(&self, app: &str, eval_set_id: &str) -> StoreResult<String>;
pub async fn case_tool_names(&self, app: &str, eval_set_id: &str) -> StoreResult<Vec<String>>;
pub async fn case_ids(&self, app: &str, eval_set_id: &str) -> StoreResult<Vec<String>>;
pub async fn list_cases(&self, app: &str, eval_set_id: &str, query: &CaseListQuery, page: i64, per_page: i64) -> StoreResult<CaseListPage>;
pub async fn get_case(&self, app: &str, eval_set_id: &str, eval_id: &str) -> StoreResult<StoredCase>;
pub async fn update_case(&self, app: &str, eval_set_id: &str, eval_id: &str, case: &EvalCase, expected_version: i64, saved_by: Option<&str>) -> StoreResult<StoredCase>;
pub async fn add_case(&self, app: &str, eval_set_id: &str, case: &EvalCase, saved_by: Option<&str>) -> StoreResult<StoredCase>;
// sql/case_versions.rs
pub async fn case_versions(&self, app: &str, eval_set_id: &str, eval_id: &str) -> StoreResult<Vec<CaseVersion>>;
pub async fn case_version(&self, app: &str, eval_set_id: &str, eval_id: &str, version: i64) -> StoreResult<Option<CaseVersion>>;
// sql/deleted_cases.rs
pub async fn delete_cases(&self, app: &str, eval_set_id: &str, eval_ids: &[String]) -> StoreResult<()>;
pub async fn undo_delete(&self, app: &str, eval_set_id: &str, eval_ids: &[String]) -> StoreResult<()>;
pub async fn deleted_cases(&self, app: &str, eval_set_id: &str) -> StoreResult<Vec<DeletedCase>>;
pub async fn purge_deleted_cases(&self, days: u32) -> StoreResult<u64>;
// sql/eval_set_files.rs
pub async fn sync_eval_set_from_file(&self, app: &str, eval_set: &EvalSet, cases: &[CaseRow]) -> StoreResult<bool>;
pub async fn remove_eval_set_of_file(&self, app: &str, eval_set_id: &str) -> StoreResult<bool>;
// sql/sessions.rs
pub async fn create_session(&self, app: &str, user: &str, id: Option<&str>, state: &Map<String, Value>) -> StoreResult<SessionRecord>;
pub async fn list_sessions(&self, app: &str, user: &str) -> StoreResult<Vec<SessionSummary>>;
pub async fn get_session(&self, app: &str, user: &str, id: &str) -> StoreResult<SessionRecord>;
pub async fn append_turn(&self, app: &str, user: &str, id: &str, turn: &SessionTurn) -> StoreResult<()>;
pub async fn rename_session(&self, app: &str, user: &str, id: &str, title: &str) -> StoreResult<()>;
pub async fn delete_session(&self, app: &str, user: &str, id: &str) -> StoreResult<()>;
// sql/live_turns.rs
pub async fn begin_live_turn(&self, session_id: &str, invocation_id: &str, user_message: &str) -> StoreResult<bool>;
pub async fn push_live_event(&self, session_id: &str, invocation_id: &str, position: i64, event: &AgentEvent) -> StoreResult<()>;
pub async fn renew_live_turn(&self, session_id: &str, invocation_id: &str) -> StoreResult<bool>;
pub async fn request_turn_stop(&self, session_id: &str) -> StoreResult<bool>;
pub async fn live_turn(&self, session_id: &str, after: i64) -> StoreResult<Option<LiveTurnRead>>;
// sql/runs.rs
pub async fn create_eval_run(&self, run: &NewEvalRun<'_>) -> StoreResult<EvalRunRecord>;
pub async fn create_finished_eval_run(&self, run: &NewEvalRun<'_>, cases: &[EvalRunCase], summaries: &[CaseSummaryRow], finished_at: f64) -> StoreResult<EvalRunRecord>;
pub async fn set_run_label(&self, app: &str, result_id: &str, label: Option<&str>) -> StoreResult<()>;
pub async fn save_eval_run_cases(&self, run_row: i64, cases: &[EvalRunCase], summaries: &[CaseSummaryRow], batches: &BatchWrite) -> StoreResult<Written>;
pub async fn list_eval_runs(&self, app: &str, eval_set_id: Option<&str>) -> StoreResult<Vec<EvalRunSummary>>;
pub async fn list_eval_run_heads(&self, app: &str, eval_set_id: Option<&str>) -> StoreResult<Vec<EvalRunHead>>;
pub async fn eval_run(&self, app: &str, result_id: &str) -> StoreResult<EvalRunRecord>;
pub async fn eval_run_head(&self, app: &str, result_id: &str) -> StoreResult<EvalRunHead>;
pub async fn eval_run_set_cases(&self, run_row: i64, cases: std::ops::Range<usize>) -> StoreResult<Vec<String>>;
pub async fn eval_run_cases(&self, run_row: i64, with_results: bool) -> StoreResult<Vec<EvalRunCase>>;
pub async fn eval_run_errors(&self, run_row: i64) -> StoreResult<Vec<EvalRunCase>>;
pub async fn latest_eval_run(&self, app: &str, eval_set_id: &str) -> StoreResult<Option<EvalRunHead>>;
pub async fn eval_run_cases_of(&self, run_row: i64, eval_ids: &[String], with_results: bool) -> StoreResult<Vec<EvalRunCase>>;
pub async fn eval_run_cases_after(&self, run_row: i64, after: i64, limit: i64) -> StoreResult<Vec<(i64, EvalRunCase)>>;
pub async fn eval_run_results_page(&self, run_row: i64, after: Option<(i64, i64)>, limit: i64) -> StoreResult<Vec<((i64, i64), Value)>>;
pub async fn eval_run_case_runs(&self, run_row: i64, eval_id: &str) -> StoreResult<Vec<EvalRunCase>>;
pub async fn eval_run_case_of_session(&self, app: &str, session_id: &str) -> StoreResult<Option<EvalRunCase>>;
// sql/run_summaries.rs
pub async fn case_summary_count(&self, run_row: i64) -> StoreResult<i64>;
pub async fn case_summaries(&self, run_row: i64, offset: i64, limit: Option<i64>) -> StoreResult<Vec<CaseSummary>>;
pub async fn case_summaries_of(&self, run_row: i64, eval_ids: &[String]) -> StoreResult<Vec<CaseSummary>>;
pub async fn case_outcomes(&self, run_row: i64) -> StoreResult<Vec<CaseOutcome>>;
pub async fn case_across_runs(&self, app: &str, eval_set_id: &str, eval_id: &str, limit: i64) -> StoreResult<Vec<CaseInRun>>;
pub async fn replace_case_summaries(&self, run_row: i64, cases_version: i64, summaries: &[CaseSummaryRow]) -> StoreResult<bool>;
pub async fn cache_run_stats(&self, run_row: i64, cases_version: i64, stats_json: &str) -> StoreResult<()>;
// sql/run_queue.rs
pub async fn claim_run_batch(&self, run_row: i64) -> StoreResult<BatchClaim>;
pub async fn renew_run_batches(&self, run_row: i64) -> StoreResult<RunStatus>;
pub async fn release_run_batches(&self, run_row: i64) -> StoreResult<()>;
pub async fn release_all_run_batches(&self) -> StoreResult<u64>;
pub async fn stop_eval_run(&self, run_row: i64, end: RunStatus, at: f64) -> StoreResult<bool>;
pub async fn interrupt_held_eval_run(&self, run_row: i64, at: f64) -> StoreResult<bool>;
pub async fn resume_eval_run(&self, run_row: i64) -> StoreResult<bool>;
pub async fn runs_with_free_batches(&self, limit: i64) -> StoreResult<Vec<(String, String)>>;
// sql/users.rs
pub async fn add_user(&self, name: &str, role: Role, password_hash: Option<&str>) -> StoreResult<()>;
pub async fn set_user_password(&self, name: &str, password_hash: &str) -> StoreResult<bool>;
pub async fn list_users(&self) -> StoreResult<Vec<UserSummary>>;
pub async fn remove_user(&self, name: &str) -> StoreResult<bool>;
pub async fn stored_user(&self, name: &str) -> StoreResult<Option<StoredUser>>;
pub async fn create_token(&self, user: &str, name: &str, token_hash: &str) -> StoreResult<()>;
pub async fn revoke_token(&self, name: &str) -> StoreResult<bool>;
pub async fn list_tokens(&self) -> StoreResult<Vec<TokenSummary>>;
pub async fn user_of_token(&self, token_hash: &str) -> StoreResult<Option<SignedIn>>;
pub async fn start_login_session(&self, user_row: i64, token_hash: &str, lifetime_seconds: f64) -> StoreResult<()>;
pub async fn user_of_login_session(&self, token_hash: &str) -> StoreResult<Option<SignedIn>>;
pub async fn end_login_session(&self, token_hash: &str) -> StoreResult<()>;
pub async fn record_failed_login(&self, user: &str, address: &str, keep_seconds: f64) -> StoreResult<i64>;
pub async fn forget_failed_login(&self, id: i64) -> StoreResult<()>;
pub async fn failed_logins(&self, user: Option<&str>, address: Option<&str>, window_seconds: f64) -> StoreResult<(i64, Option<f64>)>;
pub async fn clear_failed_logins(&self, user: &str, address: &str) -> StoreResult<()>;
// sql/pulls.rs
pub async fn record_pull(&self, server: &str, app: &str, eval_set_id: &str, tag: &str) -> StoreResult<()>;
pub async fn pulled_tag(&self, server: &str, app: &str, eval_set_id: &str) -> StoreResult<Option<String>>;
// sql/spans.rs
pub async fn insert_spans(&self, spans: &[SpanRecord], at: f64) -> StoreResult<u64>;
pub async fn session_spans(&self, session_id: &str) -> StoreResult<Vec<SpanRecord>>;
pub async fn insert_trace_users(&self, users: &[(String, String)], at: f64) -> StoreResult<()>;
pub async fn trace_session_summary(&self, session_id: &str) -> StoreResult<Option<TraceSessionSummary>>;
pub async fn trace_sessions(&self, filter: &TraceSessionFilter, offset: i64, limit: i64) -> StoreResult<Vec<TraceSessionSummary>>;
pub async fn trace_apps(&self) -> StoreResult<Vec<String>>;
pub async fn span_count(&self) -> StoreResult<i64>;
pub async fn prune_spans(&self, before: f64, keep: i64) -> StoreResult<u64>;
}

#[cfg(test)]
forward! {
    pub async fn forget_case_summaries(&self, run_row: i64) -> StoreResult<()>;
    pub async fn age_deleted_cases(&self, eval_id: &str, days: i64) -> StoreResult<()>;
    pub async fn expire_run_batch_leases(&self, run_row: i64) -> StoreResult<()>;
}

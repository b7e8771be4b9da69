//! Plain data the store hands out, the services pass on and the pages show. Compiled for the
//! browser too, so server functions and pages share the types without the browser ever
//! reaching the store.

use crate::agent::{AgentEvent, ToolExecution};
use crate::eval::{CaseSummary, ComparedCase, EvalStatus, MetricStats};
use crate::evalset::EvalCase;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// One row of the evalsets list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalSetSummary {
    pub app_name: String,
    pub eval_set_id: String,
    pub name: Option<String>,
    pub description: Option<String>,
    pub case_count: i64,
    pub updated_at: String,
}

/// The agents folder Evalstudio works on (folder mode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FolderInfo {
    pub path: String,
    /// Why chat is off (ADK's api_server could not start), when it is.
    pub chat_off: Option<String>,
}

/// Where an evalset's file stands (folder mode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalSetFile {
    /// The file's path inside the agents folder.
    pub path: String,
    /// Why the file cannot be read; Evalstudio then never writes it.
    pub problem: Option<FileProblem>,
    /// The file is not as ADK formats it: the first save here rewrites it in ADK's formatting.
    pub reformat_on_save: bool,
}

/// Where and why a file does not parse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileProblem {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

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

/// The outcome of an import.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportSummary {
    pub eval_set_id: String,
    pub cases: usize,
    /// The file's form, such as "ADK evalset" or "legacy .test.json list".
    pub format: String,
    /// Whether an existing evalset of that id was replaced.
    pub replaced: bool,
    /// The stored evalset's tag after the import (its ETag; see `export_tagged`).
    #[serde(default)]
    pub tag: String,
}

/// One row of a sessions list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    pub id: String,
    pub app_name: String,
    pub user_id: String,
    /// The first message, shortened, until someone renames the session.
    pub title: String,
    pub turn_count: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// A finished turn: the user's message and everything the agent did in answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionTurn {
    pub invocation_id: String,
    /// The agent that answered.
    pub author: String,
    pub user_message: String,
    pub events: Vec<AgentEvent>,
    /// When each event arrived, in milliseconds after `started_at` (empty for turns recorded
    /// before per-event times were kept).
    #[serde(default)]
    pub event_offsets_ms: Vec<u64>,
    /// Seconds since the epoch when the message arrived.
    pub started_at: f64,
    pub latency_ms: i64,
}

impl SessionTurn {
    /// When event `index` happened, in seconds since the epoch (the turn's start if unknown).
    pub fn event_time(&self, index: usize) -> f64 {
        let offset = self.event_offsets_ms.get(index).copied().unwrap_or(0);
        self.started_at + offset as f64 / 1000.0
    }

    /// Token usage the agent reported, summed: (prompt, completion).
    pub fn token_usage(&self) -> (u64, u64) {
        self.events.iter().fold((0, 0), |(p, c), event| match event {
            AgentEvent::Usage {
                prompt_tokens,
                completion_tokens,
            } => (p + prompt_tokens, c + completion_tokens),
            _ => (p, c),
        })
    }
}

/// A whole session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub summary: SessionSummary,
    pub state: Map<String, Value>,
    pub turns: Vec<SessionTurn>,
}

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

/// An MCP server as the Settings page shows it. Holds no secret: the transport names the
/// program or the URL without userinfo, query or fragment (`redact::redacted_url`), never an
/// env or header value; a stdio server's arguments only for an admin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerView {
    pub name: String,
    /// `stdio: npx` or `http: https://host/path`.
    pub transport: String,
    /// A stdio server's arguments, joined by spaces, which may hold a token: shown to admins
    /// alone (`None` for anyone else, and for an HTTP server).
    #[serde(default)]
    pub args: Option<String>,
    pub status: McpServerStatus,
    /// The tools it offers while running, in its order.
    pub tools: Vec<McpToolView>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpServerStatus {
    /// Not used yet: servers start on first use.
    NotStarted,
    Starting,
    Running,
    Failed {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpToolView {
    /// The name the model sees.
    pub name: String,
    /// The server's own name for it.
    pub remote_name: String,
    pub description: String,
}

/// A span as an OTLP receiver stored it (ids as lowercase hex, times in Unix nanoseconds),
/// with its resource's and its own attributes as JSON objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanRecord {
    pub trace_id: String,
    pub span_id: String,
    pub parent_span_id: Option<String>,
    pub name: String,
    pub kind: SpanKind,
    pub start_unix_nano: i64,
    pub end_unix_nano: i64,
    pub status: SpanStatus,
    pub status_message: Option<String>,
    /// The resource's `service.name`.
    pub service_name: Option<String>,
    /// The conversation it belongs to, when the span says (ADK's, OpenInference's or the GenAI
    /// conventions' attribute).
    pub session_id: Option<String>,
    /// The instrumentation scope that made it (`gcp.vertex.agent` for ADK).
    pub scope: Option<String>,
    pub attributes: Map<String, Value>,
    pub events: Vec<SpanEvent>,
    pub resource: Map<String, Value>,
}

impl SpanRecord {
    /// The tool an `execute_tool` span ran (`gen_ai.tool.name`; OpenInference's TOOL span's
    /// `tool.name`).
    pub fn tool_name(&self) -> Option<&str> {
        let named = |key: &str| self.attributes.get(key).and_then(|name| name.as_str());
        let open_inference_tool = named("openinference.span.kind") == Some("TOOL");
        named("gen_ai.tool.name").or_else(|| named("tool.name").filter(|_| open_inference_tool))
    }

    /// The agent the span names: the GenAI conventions' `gen_ai.agent.name`, else
    /// OpenInference's `agent.name`.
    pub fn agent_name(&self) -> Option<&str> {
        let named = |key: &str| self.attributes.get(key).and_then(|name| name.as_str());
        named("gen_ai.agent.name").or_else(|| named("agent.name"))
    }

    /// What was said and sent in the span, lowercased, for the Traces list's text filter: the
    /// string values of its messages, tool arguments and results (JSON held as text read
    /// first), without their keys. None when it has none.
    pub fn search_text(&self) -> Option<String> {
        let mut texts = Vec::new();
        for key in CONTENT_KEYS {
            if let Some(value) = self.attributes.get(*key) {
                string_leaves(value, &mut texts);
            }
        }
        // OpenInference flattens its messages into an attribute per field.
        let flattened = self.attributes.iter().filter(|(key, _)| {
            let message = key.starts_with("llm.input_messages.") || key.starts_with("llm.output_messages.");
            message && (key.ends_with(".content") || key.ends_with(".text") || key.ends_with(".arguments"))
        });
        for (_, value) in flattened {
            string_leaves(value, &mut texts);
        }
        (!texts.is_empty()).then(|| texts.join("\n").to_lowercase())
    }

    /// The tokens a model call used, as the GenAI conventions report them
    /// (`gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`), else as OpenInference
    /// does (`llm.token_count.prompt`, `llm.token_count.completion`).
    pub fn tokens(&self) -> (Option<i64>, Option<i64>) {
        let count = |key: &str| {
            self.attributes
                .get(key)
                .and_then(|n| n.as_f64())
                .map(|n| n as i64)
        };
        let either = |genai: &str, open_inference: &str| count(genai).or_else(|| count(open_inference));
        (
            either("gen_ai.usage.input_tokens", "llm.token_count.prompt"),
            either("gen_ai.usage.output_tokens", "llm.token_count.completion"),
        )
    }
}

/// The attributes that carry what was said and sent: the GenAI conventions', ADK's schema 1,
/// OpenInference's.
const CONTENT_KEYS: &[&str] = &[
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
    "gcp.vertex.agent.llm_request",
    "gcp.vertex.agent.llm_response",
    "gcp.vertex.agent.tool_call_args",
    "gcp.vertex.agent.tool_response",
    "input.value",
    "output.value",
];

/// The strings in `value`, a string holding JSON read as that JSON.
fn string_leaves(value: &serde_json::Value, texts: &mut Vec<String>) {
    use serde_json::Value;
    match value {
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(inner @ (Value::Object(_) | Value::Array(_))) => string_leaves(&inner, texts),
            _ => texts.push(text.clone()),
        },
        Value::Array(items) => items.iter().for_each(|item| string_leaves(item, texts)),
        Value::Object(fields) => fields.values().for_each(|field| string_leaves(field, texts)),
        Value::Number(_) | Value::Bool(_) | Value::Null => {}
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanEvent {
    pub name: String,
    pub time_unix_nano: i64,
    pub attributes: Map<String, Value>,
}

/// OTLP's span kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    Unspecified,
    Internal,
    Server,
    Client,
    Producer,
    Consumer,
}

impl SpanKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SpanKind::Unspecified => "unspecified",
            SpanKind::Internal => "internal",
            SpanKind::Server => "server",
            SpanKind::Client => "client",
            SpanKind::Producer => "producer",
            SpanKind::Consumer => "consumer",
        }
    }

    pub fn parse(text: &str) -> Option<SpanKind> {
        [
            SpanKind::Unspecified,
            SpanKind::Internal,
            SpanKind::Server,
            SpanKind::Client,
            SpanKind::Producer,
            SpanKind::Consumer,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }
}

/// OTLP's span status codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpanStatus {
    Unset,
    Ok,
    Error,
}

impl SpanStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SpanStatus::Unset => "unset",
            SpanStatus::Ok => "ok",
            SpanStatus::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<SpanStatus> {
        [SpanStatus::Unset, SpanStatus::Ok, SpanStatus::Error]
            .into_iter()
            .find(|status| status.as_str() == text)
    }
}

/// A recorded session as the trace list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceSessionSummary {
    pub session_id: String,
    /// The root agent's name.
    pub app: String,
    /// When its first span started and its last ended, in Unix nanoseconds.
    pub started_unix_nano: i64,
    pub ended_unix_nano: i64,
    /// Its traces: one per turn.
    pub turns: i64,
    /// Its spans that ran a tool (`execute_tool`, or OpenInference's TOOL).
    pub tool_calls: i64,
    /// Its spans whose status is an error.
    pub errors: i64,
    /// The user, when a log record of it names one (ADK's inference log events do).
    #[serde(default)]
    pub user_id: Option<String>,
    /// Tokens its model calls used, as their spans report them; None when none did.
    #[serde(default)]
    pub input_tokens: Option<i64>,
    #[serde(default)]
    pub output_tokens: Option<i64>,
    /// When its last span arrived (seconds since the epoch).
    #[serde(default)]
    pub last_received_at: f64,
}

/// The eval id a recorded session is saved under unless the user names it: `session_` and its
/// id, with anything but ASCII letters and digits made `_`.
pub fn session_eval_id(session_id: &str) -> String {
    format!(
        "session_{}",
        session_id.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    )
}

/// What "Add selected" did: the eval ids of the cases saved, and each session not saved with
/// why (spans missing, no messages, its eval id taken).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionsAdded {
    pub added: Vec<String>,
    pub refused: Vec<(String, String)>,
}

/// A page of the Traces list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedSessionsPage {
    pub sessions: Vec<TraceSessionSummary>,
    /// Every app with recorded sessions, for the filter.
    pub apps: Vec<String>,
    /// From 0.
    pub page: i64,
    pub has_more: bool,
}

/// Which recorded sessions a page lists.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceSessionFilter {
    /// Only this app's (its root agent's name); every app's when `None`.
    pub app: Option<String>,
    /// Only those with a span in error.
    pub errors_only: bool,
    /// Only those that started at or after this, and before that (Unix nanoseconds).
    #[serde(default)]
    pub started_from: Option<i64>,
    #[serde(default)]
    pub started_before: Option<i64>,
    /// Only those that called this tool.
    #[serde(default)]
    pub tool: Option<String>,
    /// Only those with this text (any case) in a span's attributes: a message, a tool's
    /// arguments or response.
    #[serde(default)]
    pub text: Option<String>,
}

/// A recorded session as the Traces page shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedTranscript {
    pub session_id: String,
    pub app: String,
    /// Whether every span of it has arrived.
    pub complete: bool,
    /// Whether spans of it arrived within the receiver's quiet period: more may follow.
    #[serde(default)]
    pub arriving: bool,
    /// When its spans carry no messages: the setting the agent needs.
    pub content_setting: Option<String>,
    pub turns: Vec<RecordedTurnView>,
}

/// One recorded turn: the user's message and what the agent did, as the chat shows a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedTurnView {
    pub user_message: String,
    pub events: Vec<AgentEvent>,
    /// Seconds since the epoch.
    pub started_at: f64,
}

//! `evalstudio score-traces`: sessions an agent recorded as OpenTelemetry spans (OTLP/JSON
//! files) scored without running it again: each session's turns are the actual invocations,
//! scored against the reference case it matches, or by the metrics that need none.

use super::files::{read_compact_eval_set, read_eval_config};
use super::score::{open_outputs, report, Outputs};
use super::score_files::ScoreWriter;
use super::CliError;
use crate::config::Config;
use crate::eval::config::EvalConfig;
use crate::eval::lineup::ActualItem;
use crate::eval::score::score_cases;
use crate::eval::services::ScoringServices;
use crate::evalset::{CompactEvalSet, EvalCase, EvalSet};
use crate::records::spans::SpanRecord;
use crate::traces::otlp::{decode_traces, Encoding};
use crate::traces::recorded_cases::{recorded_case, RecordedCase};
use crate::traces::sessions::{group_sessions, trace_session};
use clap::Args;
use futures::StreamExt;
use serde_json::value::RawValue;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ScoreTracesArgs {
    /// OTLP/JSON files of spans: ExportTraceServiceRequest objects one per line, as the
    /// OpenTelemetry Collector's file exporter writes them, or one object per file.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Eval config (ADK's test_config.json) with the metrics; those that compare with a
    /// reference score only the sessions matched to a case of --expected.
    #[arg(long)]
    config: PathBuf,
    /// Evalset of reference cases: a session is scored against the case whose eval id is its
    /// session id, else the case with its first user message and as many turns.
    #[arg(long)]
    expected: Option<PathBuf>,
    /// Only the sessions of this app (the root agent's name, else the service name).
    #[arg(long)]
    app: Option<String>,
    /// Also write the results as ADK's EvalSetResult JSON to this file, case by case.
    #[arg(long, value_name = "OUT")]
    json: Option<PathBuf>,
    /// Also write the verdicts alone to this file (compact JSON, for CI).
    #[arg(long, value_name = "OUT")]
    json_summary: Option<PathBuf>,
    /// Where the judge model is configured (its [judge] table); by default
    /// ./evalstudio.toml when it exists.
    #[arg(long, env = "EVALSTUDIO_CONFIG")]
    profiles: Option<PathBuf>,
}

/// The eval set id of the results when no reference evalset is given.
const NO_REFERENCE: &str = "recorded_sessions";

/// Prints the results table (and writes `--json`, `--json-summary`); exits 0 when every session
/// passed, else 1. Sessions that cannot be scored (spans missing, no messages) are named on
/// stderr and left out.
pub async fn score_traces(args: ScoreTracesArgs) -> Result<ExitCode, CliError> {
    let services = Config::load(args.profiles.as_deref())
        .map_err(CliError::Profiles)?
        .build_scoring_for_own_files();
    let config = read_eval_config(&args.config)?;
    let reference = match &args.expected {
        Some(path) => Some(read_compact_eval_set(path)?),
        None => None,
    };
    let reference_cases: Vec<EvalCase> = reference
        .iter()
        .flat_map(|set| (0..set.len()).map(|index| set.case(index)))
        .collect();
    let mut spans = Vec::new();
    for path in &args.files {
        spans.extend(read_spans(path)?);
    }
    let (app, cases) = recorded_cases(spans, args.app.as_deref(), &reference_cases)?;
    let eval_set_id = reference.as_ref().map_or(NO_REFERENCE, |set| set.eval_set_id());
    let expected = CompactEvalSet::of(&EvalSet {
        eval_set_id: eval_set_id.to_string(),
        eval_cases: cases.iter().map(|case| case.expected.clone()).collect(),
        ..EvalSet::default()
    });
    let outputs = Outputs {
        json: args.json.as_deref(),
        json_summary: args.json_summary.as_deref(),
        app: &app,
    };
    let mut writer = open_outputs(&expected, &outputs, &config, 1)?;
    let scored = score_sessions(&expected, cases, &config, &services, &mut writer).await;
    report(writer, scored, &expected, 1)
}

/// The spans of an OTLP/JSON file; refused spans (bad ids) are counted on stderr.
fn read_spans(path: &Path) -> Result<Vec<SpanRecord>, CliError> {
    let input_error = |message| CliError::Input {
        name: path.display().to_string(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|err| input_error(format!("cannot read it: {err}")))?;
    let mut spans = Vec::new();
    let mut requests = serde_json::Deserializer::from_slice(&bytes).into_iter::<&RawValue>();
    while let Some(request) = requests.next() {
        let at = line_of(&bytes, requests.byte_offset());
        let request = request.map_err(|err| input_error(format!("line {}: {err}", err.line())))?;
        let decoded = decode_traces(request.get().as_bytes(), Encoding::Json)
            .map_err(|err| input_error(format!("the request ending on line {at}: {err}")))?;
        if decoded.rejected > 0 {
            eprintln!(
                "{}: {} span(s) left out of the request ending on line {at}: {}",
                path.display(),
                decoded.rejected,
                decoded.problem.unwrap_or_default()
            );
        }
        spans.extend(decoded.spans);
    }
    Ok(spans)
}

/// The line (from 1) of byte `offset`.
fn line_of(bytes: &[u8], offset: usize) -> usize {
    1 + bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&byte| byte == b'\n')
        .count()
}

/// The app scored and each of its sessions as a case; those that cannot be scored are named on
/// stderr, and each match to a reference case said.
fn recorded_cases(
    spans: Vec<SpanRecord>,
    app: Option<&str>,
    reference: &[EvalCase],
) -> Result<(String, Vec<RecordedCase>), CliError> {
    let sessions: Vec<_> = group_sessions(spans)
        .into_iter()
        .map(|(id, spans)| trace_session(&id, &spans))
        .filter(|session| app.is_none_or(|app| session.origin.app_name == app))
        .collect();
    let Some(app) = app
        .map(str::to_string)
        .or_else(|| sessions.first().map(|s| s.origin.app_name.clone()))
    else {
        return Err(CliError::Usage(
            "no span names a session: nothing to score".into(),
        ));
    };
    if let Some(other) = sessions.iter().find(|s| s.origin.app_name != app) {
        return Err(CliError::Usage(format!(
            "the spans are of several apps (`{app}`, `{}`): choose one with --app",
            other.origin.app_name
        )));
    }
    let mut cases = Vec::new();
    for session in &sessions {
        match recorded_case(session, reference) {
            Ok(case) => {
                if let Some(matched) = &case.matched {
                    eprintln!(
                        "session `{}`: scored against case `{}` (same {})",
                        session.session_id,
                        matched.eval_id,
                        matched.by.as_str()
                    );
                }
                cases.push(case);
            }
            Err(unscorable) => eprintln!("left out: {unscorable}"),
        }
    }
    if cases.is_empty() {
        return Err(CliError::Usage(format!(
            "no session of app `{app}` can be scored"
        )));
    }
    Ok((app, cases))
}

/// Scores each session's recorded turns against its case, handing each result to `writer`.
async fn score_sessions(
    expected: &CompactEvalSet,
    cases: Vec<RecordedCase>,
    config: &EvalConfig,
    services: &ScoringServices,
    writer: &mut ScoreWriter,
) -> Result<(), CliError> {
    let arrivals = ActualItem::one_run(cases.into_iter().map(RecordedCase::actual_case));
    let keep = writer.keep();
    let results = score_cases(expected, futures::stream::iter(arrivals), config, services, keep);
    futures::pin_mut!(results);
    while let Some(scored) = results.next().await {
        writer.push(scored.map_err(|err| CliError::Run(err.to_string()))?)?;
    }
    Ok(())
}

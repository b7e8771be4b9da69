//! Reading evalset files: ADK's EvalSet JSON and the two legacy list forms ADK still accepts.
//!
//! Every error names the JSON path of the bad value and its line and column in the file.

use super::ids::validate_eval_set_id;
use super::model::case::{EvalCase, IntermediateData, Invocation, SessionInput};
use super::model::eval_set::{EvalSet, EvalSetVisitor};
use super::model::genai::{Content, FunctionCall, Part};
use super::scan::{string_len, value_len};
use serde::de::DeserializeSeed;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::fmt;

/// Why a file is not a valid evalset, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{message} at {path} (line {line}, column {column})")]
pub struct FormatError {
    /// JSON path of the bad value, such as `eval_cases[2].conversation[0].user_content`; `$` is the whole file.
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Which form a file was in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceFormat {
    EvalSet,
    /// `[{query, expected_tool_use, reference}, ...]`: one case, one invocation per item.
    LegacyTestList,
    /// `[{name, data: [...], initial_session}, ...]`: one case per item.
    LegacyNamedList,
}

impl fmt::Display for SourceFormat {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            SourceFormat::EvalSet => "ADK evalset",
            SourceFormat::LegacyTestList => "legacy .test.json list",
            SourceFormat::LegacyNamedList => "legacy named list",
        })
    }
}

/// What a legacy conversion needs that the file does not say. ADK makes these up (the file
/// path, uuid4 ids, `time.time()`); passing them in keeps this module free of I/O and clocks.
pub struct LegacyDefaults<'a> {
    /// The eval set id.
    pub name: &'a str,
    /// The file's name: the flat list's one case is named after it, as ADK names it after the path.
    pub file_name: &'a str,
    /// Seconds since the epoch, for creation timestamps.
    pub now: f64,
    /// Makes a fresh invocation id.
    pub new_invocation_id: &'a mut dyn FnMut() -> String,
}

/// Parses an evalset file in any accepted form and checks what ADK checks, plus unique eval ids.
pub fn parse_evalset_file(
    text: &str,
    legacy: LegacyDefaults<'_>,
) -> Result<(EvalSet, SourceFormat), FormatError> {
    let mut cases = Vec::new();
    let (mut eval_set, format) = parse_evalset_file_streaming(text, legacy, &mut |case| cases.push(case))?;
    eval_set.eval_cases = cases;
    Ok((eval_set, format))
}

/// Like [`parse_evalset_file`], but hands each checked case to `on_case` as soon as it is read
/// and returns the evalset without its cases, so a large file is never held parsed all at once.
/// On error, cases already handed over should be discarded.
pub fn parse_evalset_file_streaming(
    text: &str,
    legacy: LegacyDefaults<'_>,
    on_case: &mut dyn FnMut(EvalCase),
) -> Result<(EvalSet, SourceFormat), FormatError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.bytes().find(|b| !b.is_ascii_whitespace()) == Some(b'[') {
        let (mut eval_set, format) = parse_legacy(text, legacy)?;
        validate_eval_set_id(&eval_set.eval_set_id).map_err(|m| error_at(text, &[], m))?;
        let mut seen = HashSet::new();
        for (index, case) in eval_set.eval_cases.iter().enumerate() {
            // Legacy cases are made here, not read from the file: only the named list has a place to point at.
            check_case(case, &mut seen).map_err(|m| error_at(text, &[Seg::Index(index)], m))?;
        }
        eval_set.eval_cases.drain(..).for_each(&mut *on_case);
        return Ok((eval_set, format));
    }
    let mut seen = HashSet::new();
    let mut rejected = None;
    let mut check = |index: usize, case: EvalCase| {
        if let Err(message) = check_case(&case, &mut seen) {
            let err = error_at(text, &[Seg::Key("eval_cases"), Seg::Index(index)], message);
            let summary = err.message.clone();
            rejected = Some(err);
            return Err(summary);
        }
        on_case(case);
        Ok(())
    };
    let parsed = parse_fast(
        serde_json::Deserializer::from_str(text),
        EvalSetVisitor { on_case: &mut check },
    );
    let eval_set = parsed.map_err(|err| {
        rejected.take().unwrap_or_else(|| {
            // Read again, cases ignored, to say where the error is.
            let mut ignore = |_: usize, _: EvalCase| Ok(());
            parse_json_seed(text, EvalSetVisitor { on_case: &mut ignore })
                .err()
                .unwrap_or(err)
        })
    })?;
    validate_eval_set_id(&eval_set.eval_set_id).map_err(|m| error_at(text, &[Seg::Key("eval_set_id")], m))?;
    Ok((eval_set, SourceFormat::EvalSet))
}

/// Parses one eval case (the body of an edit), with the same checks as a case inside a file.
pub fn parse_eval_case(text: &str) -> Result<EvalCase, FormatError> {
    let case: EvalCase = parse_json(text)?;
    validate_case(&case).map_err(|message| error_at(text, &[], message))?;
    Ok(case)
}

/// The checks every case in a set passes: those of a single case, and a unique eval_id.
fn check_case(case: &EvalCase, seen: &mut HashSet<String>) -> Result<(), String> {
    validate_case(case)?;
    if !seen.insert(case.eval_id.clone()) {
        return Err(format!("duplicate eval_id `{}`", case.eval_id));
    }
    Ok(())
}

/// The checks a single case passes wherever it comes from: a file, the API, the editor.
pub fn validate_case(case: &EvalCase) -> Result<(), String> {
    validate_parts(
        &case.eval_id,
        case.conversation.is_some(),
        case.conversation_scenario.is_some(),
    )
}

pub(crate) fn validate_parts(eval_id: &str, conversation: bool, scenario: bool) -> Result<(), String> {
    if eval_id.trim().is_empty() {
        return Err("eval_id is empty".into());
    }
    if conversation == scenario {
        return Err(format!(
            "eval case `{eval_id}` must have exactly one of conversation and conversation_scenario"
        ));
    }
    Ok(())
}

/// Parses `text`; an error names the JSON path of the bad value, which only a second, slower
/// pass that tracks the path finds.
fn parse_json<'a, T: Deserialize<'a>>(text: &'a str) -> Result<T, FormatError> {
    parse_fast(
        serde_json::Deserializer::from_str(text),
        std::marker::PhantomData::<T>,
    )
    .map_err(|err| {
        parse_json_seed(text, std::marker::PhantomData::<T>)
            .err()
            .unwrap_or(err)
    })
}

/// Parses without tracking the path: an error has its line and column, and `$` as its path.
fn parse_fast<'de, R: serde_json::de::Read<'de>, S: DeserializeSeed<'de>>(
    mut deserializer: serde_json::Deserializer<R>,
    seed: S,
) -> Result<S::Value, FormatError> {
    let value = seed
        .deserialize(&mut deserializer)
        .map_err(|err| json_error("$".into(), &err))?;
    deserializer.end().map_err(|err| json_error("$".into(), &err))?;
    Ok(value)
}

/// Parses `text`, tracking the JSON path so that an error names it.
fn parse_json_seed<'a, S: DeserializeSeed<'a>>(text: &'a str, seed: S) -> Result<S::Value, FormatError> {
    let mut deserializer = serde_json::Deserializer::from_str(text);

    let mut track = serde_path_to_error::Track::new();
    let value = seed
        .deserialize(serde_path_to_error::Deserializer::new(
            &mut deserializer,
            &mut track,
        ))
        .map_err(|err| {
            // A syntax error inside an object leaves an unknown last key, shown as `?`.
            let path = track.path().to_string();
            let path = path.trim_end_matches(".?").trim_end_matches('?');
            json_error(
                if path.is_empty() || path == "." {
                    "$".into()
                } else {
                    path.into()
                },
                &err,
            )
        })?;
    deserializer.end().map_err(|err| json_error("$".into(), &err))?;
    Ok(value)
}

/// Reads an evalset in ADK's form from `reader` without holding its text, handing each case to
/// `on_case` as soon as it is read, with its place in the list; an `Err` from `on_case` stops
/// reading. Memory holds one case at a time. Errors name the line and column (a reader is not
/// read twice, so the JSON path is `$` but for a case `on_case` refused).
pub fn read_evalset_cases<R: std::io::Read>(
    reader: R,
    on_case: &mut dyn FnMut(usize, EvalCase) -> Result<(), String>,
) -> Result<EvalSet, FormatError> {
    let reader = serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(1 << 16, reader));
    let eval_set = parse_fast(reader, EvalSetVisitor { on_case })?;
    validate_eval_set_id(&eval_set.eval_set_id).map_err(|message| FormatError {
        path: "eval_set_id".into(),
        line: 0,
        column: 0,
        message,
    })?;
    Ok(eval_set)
}

fn json_error(path: String, err: &serde_json::Error) -> FormatError {
    FormatError {
        path,
        line: err.line(),
        column: err.column(),
        message: strip_position(&err.to_string()),
    }
}

/// serde_json appends " at line L column C" to its messages; the position is reported separately.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

#[derive(Deserialize)]
struct LegacyInvocation {
    query: String,
    #[serde(default)]
    expected_tool_use: Vec<LegacyToolUse>,
    #[serde(default)]
    expected_intermediate_agent_responses: Vec<LegacyIntermediateResponse>,
    #[serde(default)]
    reference: String,
}

#[derive(Deserialize)]
struct LegacyToolUse {
    tool_name: String,
    #[serde(default)]
    tool_input: Map<String, Value>,
}

#[derive(Deserialize)]
struct LegacyIntermediateResponse {
    author: String,
    text: String,
}

#[derive(Deserialize)]
struct LegacyNamedCase {
    name: String,
    data: Vec<LegacyInvocation>,
    #[serde(default)]
    initial_session: Map<String, Value>,
}

/// Converts the legacy lists as ADK's `convert_eval_set_to_pydantic_schema` and
/// `AgentEvaluator._get_eval_set_from_old_format` do.
fn parse_legacy(text: &str, legacy: LegacyDefaults<'_>) -> Result<(EvalSet, SourceFormat), FormatError> {
    let items: Vec<Value> = parse_json(text)?;
    if items.is_empty() {
        return Err(error_at(
            text,
            &[],
            "the file is an empty list: there is nothing to import".into(),
        ));
    }
    let named = items[0].get("data").is_some();
    let now = legacy.now;
    let new_id = legacy.new_invocation_id;
    let (cases, format) = if named {
        let named_cases: Vec<LegacyNamedCase> = parse_json(text)?;
        let cases = named_cases
            .into_iter()
            .map(|case| EvalCase {
                eval_id: case.name,
                conversation: Some(
                    case.data
                        .into_iter()
                        .map(|i| legacy_invocation(i, now, new_id))
                        .collect(),
                ),
                session_input: legacy_session_input(&case.initial_session),
                creation_timestamp: now,
                ..EvalCase::default()
            })
            .collect();
        (cases, SourceFormat::LegacyNamedList)
    } else {
        let invocations: Vec<LegacyInvocation> = parse_json(text)?;
        let case = EvalCase {
            eval_id: legacy.file_name.to_string(),
            conversation: Some(
                invocations
                    .into_iter()
                    .map(|i| legacy_invocation(i, now, new_id))
                    .collect(),
            ),
            creation_timestamp: now,
            ..EvalCase::default()
        };
        (vec![case], SourceFormat::LegacyTestList)
    };
    let eval_set = EvalSet {
        eval_set_id: legacy.name.to_string(),
        name: Some(legacy.name.to_string()),
        eval_cases: cases,
        creation_timestamp: now,
        ..EvalSet::default()
    };
    Ok((eval_set, format))
}

fn legacy_invocation(old: LegacyInvocation, now: f64, new_id: &mut dyn FnMut() -> String) -> Invocation {
    let tool_uses = old
        .expected_tool_use
        .into_iter()
        .map(|tool| FunctionCall {
            name: Some(tool.tool_name),
            args: Some(tool.tool_input),
            ..FunctionCall::default()
        })
        .collect();
    let intermediate_responses = old
        .expected_intermediate_agent_responses
        .into_iter()
        .map(|r| {
            let part = Part {
                text: Some(r.text),
                ..Part::default()
            };
            (r.author, vec![part])
        })
        .collect();
    Invocation {
        invocation_id: new_id(),
        user_content: Content::text("user", &old.query),
        final_response: Some(Content::text("model", &old.reference)),
        intermediate_data: Some(IntermediateData {
            tool_uses,
            intermediate_responses,
            ..IntermediateData::default()
        }),
        creation_timestamp: now,
        ..Invocation::default()
    }
}

fn legacy_session_input(initial: &Map<String, Value>) -> Option<SessionInput> {
    if initial.is_empty() {
        return None;
    }
    let text = |key: &str| {
        initial
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Some(SessionInput {
        app_name: text("app_name"),
        user_id: text("user_id"),
        state: initial
            .get("state")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        ..SessionInput::default()
    })
}

/// One step of a JSON path.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// An error about the value at `path`, positioned at that value in `text`.
fn error_at(text: &str, path: &[Seg<'_>], message: String) -> FormatError {
    let offset = locate(text, path).unwrap_or(0);
    let (line, column) = line_column(text, offset);
    let path = path.iter().fold(String::new(), |mut out, seg| {
        match seg {
            Seg::Key(key) if out.is_empty() => out.push_str(key),
            Seg::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
        out
    });
    FormatError {
        path: if path.is_empty() { "$".into() } else { path },
        line,
        column,
        message,
    }
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Byte offset of the value at `path` in a valid JSON text. Used only for errors found after
/// parsing, so it may assume the text is well-formed.
pub(crate) fn locate(text: &str, path: &[Seg<'_>]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut pos = skip_ws(bytes, 0);
    for seg in path {
        match (*seg, bytes.get(pos)?) {
            (Seg::Key(want), b'{') => {
                pos = skip_ws(bytes, pos + 1);
                loop {
                    if bytes.get(pos)? != &b'"' {
                        return None;
                    }
                    let key_end = skip_string(bytes, pos)?;
                    let key: String = serde_json::from_str(&text[pos..key_end]).ok()?;
                    pos = skip_ws(bytes, key_end);
                    pos = skip_ws(bytes, pos + 1); // the ':'
                    if key == want {
                        break;
                    }
                    pos = skip_ws(bytes, skip_value(bytes, pos)?);
                    if bytes.get(pos)? != &b',' {
                        return None;
                    }
                    pos = skip_ws(bytes, pos + 1);
                }
            }
            (Seg::Index(want), b'[') => {
                pos = skip_ws(bytes, pos + 1);
                for _ in 0..want {
                    pos = skip_ws(bytes, skip_value(bytes, pos)?);
                    if bytes.get(pos)? != &b',' {
                        return None;
                    }
                    pos = skip_ws(bytes, pos + 1);
                }
            }
            _ => return None,
        }
    }
    Some(pos)
}

fn skip_ws(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).is_some_and(u8::is_ascii_whitespace) {
        pos += 1;
    }
    pos
}

/// Returns the offset just past the string starting at `pos`.
fn skip_string(bytes: &[u8], pos: usize) -> Option<usize> {
    Some(pos + string_len(bytes.get(pos..)?)?)
}

/// Returns the offset just past the value starting at `pos`, however deeply it nests.
fn skip_value(bytes: &[u8], pos: usize) -> Option<usize> {
    Some(pos + value_len(bytes.get(pos..)?, true, usize::MAX).ok()??)
}

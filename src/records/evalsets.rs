//! An evalset as lists show it, its file in folder mode, and what an import did.

use serde::{Deserialize, Serialize};

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

//! The folder's evalset files as Evalstudio last read or wrote them, and the store's way out to
//! them ([`EvalSetFiles`]): each evalset's text goes to its file in the form the file has (ADK's
//! evalset JSON, or the old `.test.json` lists), atomically; a file that did not parse is never
//! written, and what its form cannot hold is refused, both with the reason.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::evalset::{parse_evalset_file, to_file_form, EvalSet, LegacyDefaults, SourceFormat};
use crate::folder::{write_atomically, AgentsDir};
use crate::records::evalsets::FileProblem;
use crate::store::{CaseRow, EvalSetFiles, StoreError, StoreResult};

pub(super) type Key = (String, String);

pub(super) struct FolderFiles {
    pub(super) dir: AgentsDir,
    pub(super) apps: HashSet<String>,
    states: Mutex<HashMap<Key, FileState>>,
}

/// What Evalstudio last read from or wrote to one evalset's file.
#[derive(Clone)]
pub(super) struct FileState {
    pub(super) path: PathBuf,
    pub(super) form: SourceFormat,
    /// The text last read or written: the same text again (our own write) is not read again.
    pub(super) hash: u64,
    pub(super) problem: Option<FileProblem>,
    /// The file is not as Evalstudio would write it: the first save reformats it.
    pub(super) reformat: bool,
}

/// A file read: its evalset (the id its name gives), its cases as the store keeps them, and
/// its form.
pub(super) struct ReadFile {
    pub(super) eval_set: EvalSet,
    pub(super) rows: Vec<CaseRow>,
    pub(super) form: SourceFormat,
    pub(super) reformat: bool,
}

impl FolderFiles {
    pub(super) fn new(dir: AgentsDir, apps: HashSet<String>) -> FolderFiles {
        FolderFiles {
            dir,
            apps,
            states: Mutex::default(),
        }
    }

    pub(super) fn state(&self, key: &Key) -> Option<FileState> {
        self.states.lock().expect("file states").get(key).cloned()
    }

    pub(super) fn set_state(&self, key: Key, state: FileState) {
        self.states.lock().expect("file states").insert(key, state);
    }

    /// The evalset's file and its form: as last read or written, else where a new one goes.
    pub(super) fn path_and_form(&self, key: &Key) -> (PathBuf, SourceFormat) {
        match self.state(key) {
            Some(state) => (state.path, state.form),
            None => (self.dir.eval_set_file(&key.0, &key.1), SourceFormat::EvalSet),
        }
    }

    /// Forgets the file; true when it was known.
    pub(super) fn forget(&self, key: &Key) -> bool {
        self.states.lock().expect("file states").remove(key).is_some()
    }

    /// Whether a text of `hash` is what was last read from or written to the file.
    pub(super) fn known(&self, key: &Key, hash: u64) -> bool {
        self.state(key).is_some_and(|s| s.hash == hash)
    }
}

impl EvalSetFiles for FolderFiles {
    fn write(&self, app: &str, eval_set_id: &str, text: Option<&str>) -> StoreResult<()> {
        if !self.apps.contains(app) {
            return Ok(());
        }
        let key = (app.to_string(), eval_set_id.to_string());
        let (path, form) = self.path_and_form(&key);
        let mut states = self.states.lock().expect("file states");
        let shown = self.dir.relative(&path).display().to_string();
        if let Some(problem) = states.get(&key).and_then(|s| s.problem.as_ref()) {
            return Err(StoreError::Conflict(format!(
                "{shown} does not parse (line {}, column {}: {}); Evalstudio leaves it as it is. \
                 Fix it on disk and the change shows here",
                problem.line, problem.column, problem.message
            )));
        }
        let Some(text) = text else {
            states.remove(&key);
            return match std::fs::remove_file(&path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err.into()),
                _ => Ok(()),
            };
        };
        let text = in_form(text, form).map_err(|reason| {
            StoreError::Conflict(format!(
                "{shown} is in ADK's old list form, and {reason}; export the evalset as an .evalset.json to keep it"
            ))
        })?;
        let state = FileState {
            path: path.clone(),
            form,
            hash: text_hash(&text),
            problem: None,
            reformat: false,
        };
        states.insert(key, state);
        write_atomically(&path, &text)?;
        Ok(())
    }
}

/// The evalset's ADK text in the file's own form.
fn in_form(adk_text: &str, form: SourceFormat) -> Result<String, String> {
    if form == SourceFormat::EvalSet {
        return Ok(adk_text.to_string());
    }
    let mut no_ids = || String::new();
    let legacy = LegacyDefaults {
        name: "",
        file_name: "",
        now: 0.0,
        new_invocation_id: &mut no_ids,
    };
    let (eval_set, _) = parse_evalset_file(adk_text, legacy).map_err(|e| e.message)?;
    to_file_form(&eval_set, form)
}

/// The file at `path` as the evalset `eval_set_id` (its id from the file's name, as ADK's
/// LocalEvalSetsManager has it), or where the file is wrong.
pub(super) fn read(eval_set_id: &str, path: &Path, text: &str) -> Result<ReadFile, FileProblem> {
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let mut counter = 0;
    // Legacy lists get ids from their place in the file, so reading it twice gives the same cases.
    let mut next_id = || {
        counter += 1;
        format!("{eval_set_id}-{counter}")
    };
    let legacy = LegacyDefaults {
        name: eval_set_id,
        file_name,
        now: 0.0,
        new_invocation_id: &mut next_id,
    };
    let (mut eval_set, form) = parse_evalset_file(text, legacy).map_err(|e| FileProblem {
        line: e.line,
        column: e.column,
        message: if e.path == "$" {
            e.message
        } else {
            format!("{}: {}", e.path, e.message)
        },
    })?;
    eval_set.eval_set_id = eval_set_id.to_string();
    let reformat = to_file_form(&eval_set, form).map_or(true, |written| written != text);
    let rows = eval_set.eval_cases.iter().map(CaseRow::new).collect();
    eval_set.eval_cases = Vec::new();
    Ok(ReadFile {
        eval_set,
        rows,
        form,
        reformat,
    })
}

pub(super) fn text_hash(text: &str) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

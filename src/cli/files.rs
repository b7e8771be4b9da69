//! The files commands read (evalsets, eval configs) and write (results, exports).

use super::CliError;
use crate::clock::now_seconds;
use crate::eval::config::EvalConfig;
use crate::evalset::{
    eval_set_id_from_file_name, parse_evalset_file, parse_evalset_file_streaming,
    read_evalset_cases_parallel, CaseRead, CompactCase, CompactEvalSet, EvalSet, LegacyDefaults,
};
use std::collections::HashSet;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The path's last part, as text.
pub fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads an evalset file in any form `import` accepts into each case's JSON, checked as
/// `import` checks it: for a large expected set read once and used a case at a time. ADK's form
/// is read from the file a case at a time; a legacy list, or a file with an error (to say on
/// which line), is read whole.
pub fn read_compact_eval_set(path: &Path) -> Result<CompactEvalSet, CliError> {
    let input_error = |message| CliError::Input {
        name: path.display().to_string(),
        message,
    };
    let (reader, list) = open_evalset(path).map_err(|e| input_error(format!("cannot read it: {e}")))?;
    if !list {
        let mut compact = CompactEvalSet::default();
        let mut seen = HashSet::new();
        let reopen = || open_evalset(path).map(|(reader, _)| reader);
        let check = |case: CaseRead| {
            case.validate()?;
            Ok(CompactCase::read(case))
        };
        let streamed = read_evalset_cases_parallel(reader, reopen, &check, &mut |_, case| {
            if !seen.insert(case.eval_id().to_string()) {
                return Err(format!("duplicate eval_id `{}`", case.eval_id()));
            }
            compact.push_case(case);
            Ok(())
        });
        if let Ok(header) = streamed {
            compact.header = header;
            return Ok(compact);
        }
    }
    let text = read(path).map_err(input_error)?;
    let file_name = file_name(path);
    let mut compact = CompactEvalSet::default();
    let mut new_invocation_id = || uuid::Uuid::new_v4().to_string();
    let name = eval_set_id_from_file_name(&file_name);
    let legacy = legacy_defaults(&name, &file_name, &mut new_invocation_id);
    let (header, _) = parse_evalset_file_streaming(&text, legacy, &mut |case| compact.push(&case))
        .map_err(|err| input_error(err.to_string()))?;
    compact.header = header;
    Ok(compact)
}

/// An evalset file opened past any leading whitespace and byte-order mark, and whether it is a
/// legacy list (`[` first) rather than ADK's object.
pub fn open_evalset(path: &Path) -> io::Result<(BufReader<std::fs::File>, bool)> {
    let mut reader = BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let list = starts_with_list(&mut reader);
    Ok((reader, list))
}

/// Whether the first thing in a file is `[` (a legacy list), looked at without consuming
/// anything but the whitespace (and byte order mark) before it.
fn starts_with_list(reader: &mut impl BufRead) -> bool {
    loop {
        let Ok(buffer) = reader.fill_buf() else {
            return false;
        };
        let Some(&first) = buffer.first() else {
            return false;
        };
        if first.is_ascii_whitespace() {
            reader.consume(1);
        } else if buffer.starts_with("\u{feff}".as_bytes()) {
            reader.consume(3);
        } else {
            return first == b'[';
        }
    }
}

/// Parses evalset text in any form `import` accepts; a legacy list is named after `file_name`.
pub fn parse_eval_set(text: &str, file_name: &str) -> Result<EvalSet, String> {
    let mut new_invocation_id = || uuid::Uuid::new_v4().to_string();
    let name = eval_set_id_from_file_name(file_name);
    parse_evalset_file(text, legacy_defaults(&name, file_name, &mut new_invocation_id))
        .map(|(set, _)| set)
        .map_err(|e| e.to_string())
}

/// How a legacy list read from `file_name` is named and stamped.
fn legacy_defaults<'a>(
    name: &'a str,
    file_name: &'a str,
    new_invocation_id: &'a mut dyn FnMut() -> String,
) -> LegacyDefaults<'a> {
    LegacyDefaults {
        name,
        file_name,
        now: now_seconds(),
        new_invocation_id,
    }
}

/// Reads an eval config file (ADK's test_config.json). A threshold outside its metric's scores
/// is a warning on stderr, not an error: ADK accepts it, and the file may be shared with ADK.
pub fn read_eval_config(path: &Path) -> Result<EvalConfig, CliError> {
    let config = read(path)
        .and_then(|text| EvalConfig::parse(&text).map_err(|e| e.to_string()))
        .map_err(|message| CliError::Input {
            name: path.display().to_string(),
            message,
        })?;
    for problem in config
        .metrics
        .iter()
        .filter_map(|metric| metric.threshold_problem())
    {
        eprintln!(
            "warning: {}: {problem} (ADK accepts it, but the metric then always passes or always fails)",
            path.display()
        );
    }
    Ok(config)
}

/// The file's text; the error says why not, for the caller to name the file.
pub fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))
}

/// Writes an output file.
pub fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<(), CliError> {
    std::fs::write(path, contents).map_err(|source| write_error(path, source))
}

/// An output file written through a buffer into a temporary file beside it, which becomes the
/// file only on [`ResultFile::keep`]: a command that fails midway leaves no half-written file.
pub struct ResultFile {
    path: PathBuf,
    file: BufWriter<tempfile::NamedTempFile>,
}

impl ResultFile {
    pub fn create(path: &Path) -> Result<ResultFile, CliError> {
        let dir = path
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let file = tempfile::NamedTempFile::new_in(dir).map_err(|source| write_error(path, source))?;
        Ok(ResultFile {
            path: path.to_path_buf(),
            file: BufWriter::with_capacity(1 << 16, file),
        })
    }

    /// Where the file goes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The error of a write to this file, naming it.
    pub fn error(&self, source: io::Error) -> CliError {
        write_error(&self.path, source)
    }

    /// Flushes the file and puts it in place.
    pub fn keep(self) -> Result<(), CliError> {
        let path = self.path;
        let file = self
            .file
            .into_inner()
            .map_err(|err| write_error(&path, err.into_error()))?;
        file.persist(&path).map_err(|err| write_error(&path, err.error))?;
        Ok(())
    }
}

impl Write for ResultFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.file.write(bytes)
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// A failed write of `path`.
pub fn write_error(path: &Path, source: io::Error) -> CliError {
    CliError::Write {
        path: path.to_path_buf(),
        source,
    }
}

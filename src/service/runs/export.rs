//! A stored run as files: ADK's EvalSetResult JSON, as `adk eval` writes it into
//! `.adk/eval_history/<name>.evalset_result.json`, and JUnit XML for CI systems.

use super::error::{EvalRunError, UnreadableRun};
use super::summaries::run_verdicts;
use crate::eval::junit;
use crate::eval::result::adk_case_result;
use crate::eval::result_file::{AdkResultWriter, ResultHeader};
use crate::store::Store;
use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};

/// A run exported: the file name to offer and its text.
pub struct RunFile {
    pub file_name: String,
    pub text: String,
}

/// Case results read from the store this many at a time: a result of a few turns parses to
/// about 100 KB, so a page stays a few MB.
const PAGE: i64 = 32;

/// A run's ADK file as it is produced: its name, and its text a page of cases at a time.
pub struct RunFileChunks {
    pub file_name: String,
    pub chunks: BoxStream<'static, Result<Vec<u8>, EvalRunError>>,
}

/// The run as the file ADK's eval history holds (pretty, two-space indented, as pydantic's
/// `model_dump_json(indent=2)`), its case results run after run, read from the store and
/// written a page at a time: memory holds one page, however large the run. `depth`: the levels
/// the result starts in (0 for a file of its own, 1 as an element of a list).
pub async fn adk_result_chunks(
    store: &Store,
    app: &str,
    result_id: &str,
    depth: usize,
) -> Result<RunFileChunks, EvalRunError> {
    let record = store.eval_run(app, result_id).await?;
    let summary = &record.summary;
    // ADK names the file after the id with `/` made `_`.
    let name = summary.result_id.replace('/', "_");
    let header = ResultHeader {
        eval_set_result_id: summary.result_id.clone(),
        eval_set_result_name: Some(name.clone()),
        eval_set_id: summary.eval_set_id.clone(),
        creation_timestamp: summary.created_at,
    };
    let writer = AdkResultWriter::begin(Vec::new(), &header, depth).map_err(write_failed)?;
    let start = Page::Next { writer, after: None };
    let (store, run_row) = (store.clone(), record.row);
    let chunks = stream::unfold(start, move |page| {
        let store = store.clone();
        async move { page.next(&store, run_row).await }
    });
    Ok(RunFileChunks {
        file_name: format!("{name}.evalset_result.json"),
        chunks: chunks.boxed(),
    })
}

/// Where the export is: the next page after a case run, or the end.
enum Page {
    Next {
        writer: AdkResultWriter<Vec<u8>>,
        after: Option<(i64, i64)>,
    },
    Done,
}

impl Page {
    /// The next chunk of text and what follows it.
    async fn next(self, store: &Store, run_row: i64) -> Option<(Result<Vec<u8>, EvalRunError>, Page)> {
        let Page::Next { mut writer, after } = self else {
            return None;
        };
        let results = match store.eval_run_results_page(run_row, after, PAGE).await {
            Ok(results) => results,
            Err(err) => return Some((Err(err.into()), Page::Done)),
        };
        let Some(&(last, _)) = results.last() else {
            let text = writer.finish(None).map_err(|(_, err)| write_failed(err));
            return Some((text, Page::Done));
        };
        for (_, result) in results {
            if let Err(err) = writer.stored_case(&adk_case_result(result)) {
                return Some((Err(write_failed(err)), Page::Done));
            }
        }
        let text = std::mem::take(writer.out_mut());
        Some((
            Ok(text),
            Page::Next {
                writer,
                after: Some(last),
            },
        ))
    }
}

/// Writing to memory fails only when serialising does, which stored results never make.
fn write_failed(err: std::io::Error) -> EvalRunError {
    EvalRunError::Unreadable(UnreadableRun(format!(
        "the stored results could not be written: {err}"
    )))
}

/// The whole file at once, for the folder's eval history.
pub async fn adk_result_file(store: &Store, app: &str, result_id: &str) -> Result<RunFile, EvalRunError> {
    let RunFileChunks { file_name, chunks } = adk_result_chunks(store, app, result_id, 0).await?;
    let parts: Vec<Vec<u8>> = chunks.try_collect().await?;
    let text = String::from_utf8(parts.concat()).map_err(|err| write_failed(std::io::Error::other(err)))?;
    Ok(RunFile { file_name, text })
}

/// The run as JUnit XML: one test case per eval case, pooled over its runs.
pub async fn junit_file(store: &Store, app: &str, result_id: &str) -> Result<RunFile, EvalRunError> {
    let verdicts = run_verdicts(store, app, result_id).await?;
    let summary = &verdicts.summary;
    Ok(RunFile {
        file_name: format!("{}.junit.xml", summary.result_id.replace('/', "_")),
        text: junit::report(
            &summary.eval_set_id,
            &verdicts.summaries,
            &verdicts.junit_errors(),
        ),
    })
}

//! Folder mode (`evalstudio web AGENTS_DIR`): the agents folder's evalset files are the truth.
//! At start each `<app>/<id>.evalset.json` is read into the store; from then on every evalset
//! write goes to its file too (the store hands it over before it commits; see
//! `store::EvalSetFiles`), and a file changed on disk by anything else is read again, a changed
//! case becoming a new version in its history. A file that does not parse is shown with its line
//! and column and never written; the store keeps its last good content. Finished runs are
//! written to `<app>/.adk/eval_history/` as ADK writes them. The `.test.json` files beside them
//! are evalsets too, kept in their own form (`files`).

mod files;

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use tokio::sync::{broadcast, mpsc};

use crate::evalset::{EvalSet, SourceFormat};
use crate::folder::{git_state, write_atomically, AgentsDir, FolderPath, FolderWatcher, RESULT_SUFFIX};
use crate::records::evalsets::EvalSetFile;
use crate::records::runs::RunCommit;
use crate::service::runs::adk_history::import_adk_run;
use crate::service::runs::export::adk_result_file;
use crate::service::runs::stored::eval_run;
use crate::store::{Store, StoreError};
use files::{text_hash, FileState, FolderFiles};

/// The agents folder Evalstudio works on, its apps and their evalset files.
pub struct Folder {
    dir: AgentsDir,
    apps: Vec<String>,
    files: Arc<FolderFiles>,
    /// Why chat is off, when ADK's api_server could not be started.
    chat_off: Option<String>,
    changes: broadcast::Sender<(String, String)>,
}

impl Folder {
    /// Reads every app's evalset files into the store, makes the store write them back, and
    /// watches the folder for changes made by anything else.
    pub async fn open(
        store: &Store,
        dir: AgentsDir,
        apps: Vec<String>,
        chat_off: Option<String>,
    ) -> Result<Arc<Folder>, StoreError> {
        let files = Arc::new(FolderFiles::new(dir.clone(), apps.iter().cloned().collect()));
        let folder = Arc::new(Folder {
            dir: dir.clone(),
            apps: apps.clone(),
            files: files.clone(),
            chat_off,
            changes: broadcast::channel(64).0,
        });
        // Watching first: a change made while the files are read is not missed.
        let batches = FolderWatcher::start(dir.clone(), apps.clone());
        for app in &apps {
            for (eval_set_id, _) in dir.eval_set_files(app) {
                folder.read_file(store, app, &eval_set_id).await?;
            }
            folder.forget_missing_files(store, app).await?;
            for path in dir.result_files(app) {
                folder.read_run(store, app, &path).await;
            }
        }
        store.write_eval_sets_to(files);
        tokio::spawn(follow(store.clone(), folder.clone(), batches));
        Ok(folder)
    }

    /// The folder's path, as the page header shows it.
    pub fn path(&self) -> String {
        self.dir.root().display().to_string()
    }

    pub fn apps(&self) -> &[String] {
        &self.apps
    }

    pub fn dir(&self) -> &AgentsDir {
        &self.dir
    }

    pub fn chat_off(&self) -> Option<&str> {
        self.chat_off.as_deref()
    }

    /// Evalsets changed on disk, as (app, eval set id), from now on.
    pub fn changes(&self) -> broadcast::Receiver<(String, String)> {
        self.changes.subscribe()
    }

    /// Writes a finished run of one of the folder's apps into its eval history, as ADK's
    /// LocalEvalSetResultsManager does, so `adk web` lists it. A failure is logged: the run
    /// itself is stored.
    pub async fn write_run_history(&self, store: &Store, app: &str, result_id: &str) {
        if !self.files.apps.contains(app) {
            return;
        }
        let written = match adk_result_file(store, app, result_id).await {
            Ok(file) => {
                let path = self.dir.eval_history_dir(app).join(&file.file_name);
                write_atomically(&path, &file.text).map_err(|e| format!("{}: {e}", path.display()))
            }
            Err(err) => Err(err.to_string()),
        };
        if let Err(err) = written {
            tracing::error!(result_id, "could not write the run to the eval history: {err}");
        }
    }

    /// The folder's git commit, for a run of one of its apps.
    pub async fn commit_of(&self, app: &str) -> Option<RunCommit> {
        if !self.files.apps.contains(app) {
            return None;
        }
        let state = git_state(&self.dir.app_dir(app)).await?;
        Some(RunCommit {
            commit: state.commit,
            dirty: state.dirty,
        })
    }

    /// Where the evalset's file stands, if the app is one of the folder's.
    pub fn eval_set_file(&self, app: &str, eval_set_id: &str) -> Option<EvalSetFile> {
        if !self.files.apps.contains(app) {
            return None;
        }
        let key = (app.to_string(), eval_set_id.to_string());
        let (path, _) = self.files.path_and_form(&key);
        let state = self.files.state(&key);
        Some(EvalSetFile {
            path: self.dir.relative(&path).display().to_string(),
            problem: state.as_ref().and_then(|s| s.problem.clone()),
            reformat_on_save: state.is_some_and(|s| s.reformat),
        })
    }

    /// Reads the evalset's file again if it changed since last read or written: into the store
    /// when it parses, as a problem when it does not; a missing file's evalset is forgotten.
    async fn read_file(&self, store: &Store, app: &str, eval_set_id: &str) -> Result<(), StoreError> {
        let key = (app.to_string(), eval_set_id.to_string());
        let path = self.dir.eval_set_file(app, eval_set_id);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                if self.files.forget(&key) && store.remove_eval_set_of_file(app, eval_set_id).await? {
                    tracing::info!("{} was deleted on disk", path.display());
                    let _ = self.changes.send(key);
                }
                return Ok(());
            }
            Err(err) => {
                tracing::warn!("cannot read {}: {err}", path.display());
                return Ok(());
            }
        };
        let hash = text_hash(&text);
        if self.files.known(&key, hash) {
            return Ok(());
        }
        let state = match files::read(eval_set_id, &path, &text) {
            Ok(read) => {
                store
                    .sync_eval_set_from_file(app, &read.eval_set, &read.rows)
                    .await?;
                FileState {
                    path,
                    form: read.form,
                    hash,
                    problem: None,
                    reformat: read.reformat,
                }
            }
            Err(problem) => {
                tracing::warn!(
                    "{}:{}:{}: {} (left as it is)",
                    path.display(),
                    problem.line,
                    problem.column,
                    problem.message
                );
                if store.eval_set_summary(app, eval_set_id).await.is_err() {
                    // Listed, empty, so the page can say what is wrong with its file.
                    store
                        .sync_eval_set_from_file(app, &empty_eval_set(eval_set_id), &[])
                        .await?;
                }
                FileState {
                    path,
                    form: SourceFormat::EvalSet,
                    hash,
                    problem: Some(problem),
                    reformat: false,
                }
            }
        };
        self.files.set_state(key.clone(), state);
        let _ = self.changes.send(key);
        Ok(())
    }

    /// Stores a run ADK wrote into the app's eval history, unless it is stored already. A file
    /// that is not a run is logged and skipped.
    async fn read_run(&self, store: &Store, app: &str, path: &Path) {
        // The file is named after its run's id (`/` made `_`, which ids here never hold): a run
        // stored already is not read and parsed again at every start.
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(RESULT_SUFFIX));
        if let Some(name) = name {
            if eval_run(store, app, name).await.is_ok() {
                return;
            }
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            return;
        };
        match import_adk_run(store, app, &text).await {
            Ok(Some(run)) => {
                tracing::info!(
                    "read ADK's run {} from {}",
                    run.result_id,
                    self.dir.relative(path).display()
                );
                let _ = self.changes.send((app.to_string(), run.eval_set_id));
            }
            Ok(None) => {}
            Err(err) => tracing::warn!("{}: {err}", path.display()),
        }
    }

    /// Forgets the app's stored evalsets whose files are gone (deleted while Evalstudio was not
    /// running, or by a `git checkout`).
    async fn forget_missing_files(&self, store: &Store, app: &str) -> Result<(), StoreError> {
        let on_disk: HashSet<String> = self
            .dir
            .eval_set_files(app)
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        for summary in store.list_eval_sets(app).await? {
            if !on_disk.contains(&summary.eval_set_id) {
                store.remove_eval_set_of_file(app, &summary.eval_set_id).await?;
            }
        }
        Ok(())
    }
}

/// Reads each batch of changed files as it comes.
async fn follow(store: Store, folder: Arc<Folder>, mut batches: mpsc::Receiver<Vec<FolderPath>>) {
    while let Some(batch) = batches.recv().await {
        for path in batch {
            match path {
                FolderPath::EvalSet { app, eval_set_id } if folder.files.apps.contains(&app) => {
                    if let Err(err) = folder.read_file(&store, &app, &eval_set_id).await {
                        tracing::error!("could not read {app}/{eval_set_id} into the store: {err}");
                    }
                }
                FolderPath::RunResult { app, name } if folder.files.apps.contains(&app) => {
                    let path = folder
                        .dir
                        .eval_history_dir(&app)
                        .join(format!("{name}{RESULT_SUFFIX}"));
                    folder.read_run(&store, &app, &path).await;
                }
                _ => {}
            }
        }
    }
}

fn empty_eval_set(eval_set_id: &str) -> EvalSet {
    EvalSet {
        eval_set_id: eval_set_id.to_string(),
        name: Some(eval_set_id.to_string()),
        ..Default::default()
    }
}

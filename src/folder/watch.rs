//! Changes on disk, from git, an editor or `adk web`: the folder's evalset files and run files,
//! as batches of [`FolderPath`]s. Only the folders that hold them are watched (the apps' own
//! folders and their `.adk/eval_history`), one level each, so `.git`, `.venv` and
//! `node_modules` cost nothing however large. Native events (inotify) where they work, polling
//! otherwise. Events are gathered until the folder has been quiet for a moment: a `git checkout`
//! of many files is one batch.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{EventKind, ModifyKind};
use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use super::{AgentsDir, FolderPath};

/// Quiet time that ends a batch.
const QUIET: Duration = Duration::from_millis(30);
/// Longest a batch waits while events keep coming.
const MOST: Duration = Duration::from_millis(300);
const POLL_EVERY: Duration = Duration::from_millis(500);

/// Watches the folder while its batches are read; stops when the receiver is dropped.
pub struct FolderWatcher;

impl FolderWatcher {
    /// Starts watching `apps`' folders. Whether events are native or polled is logged.
    pub fn start(dir: AgentsDir, apps: Vec<String>) -> mpsc::Receiver<Vec<FolderPath>> {
        let (raw_tx, raw_rx) = mpsc::unbounded_channel::<PathBuf>();
        let (batch_tx, batch_rx) = mpsc::channel(16);
        let watcher = watcher(raw_tx);
        tokio::spawn(run(dir, apps, watcher, raw_rx, batch_tx));
        batch_rx
    }
}

fn watcher(raw: mpsc::UnboundedSender<PathBuf>) -> Box<dyn Watcher + Send> {
    let handler = move |event: notify::Result<notify::Event>| {
        // Only what changes a file's content or name: opening and reading one (ours included,
        // which would feed back) or touching its metadata is no change.
        let Ok(event) = event else { return };
        if matches!(
            event.kind,
            EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_))
        ) {
            return;
        }
        for path in event.paths {
            let _ = raw.send(path);
        }
    };
    match notify::RecommendedWatcher::new(handler.clone(), notify::Config::default()) {
        Ok(native) => Box::new(native),
        Err(err) => {
            tracing::warn!("watching the folder by polling (native events failed: {err})");
            let config = notify::Config::default().with_poll_interval(POLL_EVERY);
            Box::new(notify::PollWatcher::new(handler, config).expect("a polling watcher"))
        }
    }
}

async fn run(
    dir: AgentsDir,
    apps: Vec<String>,
    mut watcher: Box<dyn Watcher + Send>,
    mut raw: mpsc::UnboundedReceiver<PathBuf>,
    batches: mpsc::Sender<Vec<FolderPath>>,
) {
    let mut watched = HashSet::new();
    for app in &apps {
        for folder in [
            dir.app_dir(app),
            dir.app_dir(app).join(".adk"),
            dir.eval_history_dir(app),
        ] {
            watch(&mut *watcher, &mut watched, &folder);
        }
    }
    while let Some(first) = raw.recv().await {
        let mut paths = vec![first];
        let started = tokio::time::Instant::now();
        while started.elapsed() < MOST {
            match tokio::time::timeout(QUIET, raw.recv()).await {
                Ok(Some(path)) => paths.push(path),
                Ok(None) => return,
                Err(_) => break,
            }
        }
        let mut batch: Vec<FolderPath> = Vec::new();
        for path in paths {
            // A new `.adk` or `eval_history` folder: watch it, and read what it already holds.
            if path.is_dir() && is_history_folder(&dir, &path) {
                batch.extend(watch_new_folder(&dir, &mut *watcher, &mut watched, &path));
            }
            if let Some(file) = dir.classify(&path) {
                if !batch.contains(&file) {
                    batch.push(file);
                }
            }
        }
        if !batch.is_empty() && batches.send(batch).await.is_err() {
            return;
        }
    }
}

/// `<app>/.adk` or `<app>/.adk/eval_history`.
fn is_history_folder(dir: &AgentsDir, path: &Path) -> bool {
    let parts: Vec<_> = dir.relative(path).components().map(|c| c.as_os_str()).collect();
    matches!(parts.as_slice(), [_, adk] if *adk == ".adk")
        || matches!(parts.as_slice(), [_, adk, history] if *adk == ".adk" && *history == "eval_history")
}

/// Watches a new history folder (and the one inside it) and answers the files it already holds.
fn watch_new_folder(
    dir: &AgentsDir,
    watcher: &mut dyn Watcher,
    watched: &mut HashSet<PathBuf>,
    folder: &Path,
) -> Vec<FolderPath> {
    if !watch(watcher, watched, folder) {
        return Vec::new();
    }
    let mut found = Vec::new();
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() && is_history_folder(dir, &path) {
            found.extend(watch_new_folder(dir, watcher, watched, &path));
        } else if let Some(file) = dir.classify(&path) {
            found.push(file);
        }
    }
    found
}

/// Watches `folder` (one level) if it exists and is not watched yet; true when it was added.
fn watch(watcher: &mut dyn Watcher, watched: &mut HashSet<PathBuf>, folder: &Path) -> bool {
    if watched.contains(folder) || !folder.is_dir() {
        return false;
    }
    match watcher.watch(folder, RecursiveMode::NonRecursive) {
        Ok(()) => {
            watched.insert(folder.to_path_buf());
            true
        }
        Err(err) => {
            tracing::warn!("cannot watch {}: {err}", folder.display());
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn next(batches: &mut mpsc::Receiver<Vec<FolderPath>>) -> Vec<FolderPath> {
        tokio::time::timeout(Duration::from_secs(10), batches.recv())
            .await
            .expect("a batch in time")
            .expect("the watcher runs")
    }

    #[tokio::test]
    async fn an_evalset_written_on_disk_and_a_new_run_folder_are_seen() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("weather")).unwrap();
        let dir = AgentsDir::new(tmp.path()).unwrap();
        let mut batches = FolderWatcher::start(dir.clone(), vec!["weather".into()]);
        tokio::time::sleep(Duration::from_millis(100)).await;

        std::fs::write(dir.eval_set_path("weather", "smoke"), "{}").unwrap();
        let set = FolderPath::EvalSet {
            app: "weather".into(),
            eval_set_id: "smoke".into(),
        };
        assert_eq!(next(&mut batches).await, [set]);
        // Reading a file is no change (else reading what changed would be a change again).
        std::fs::read_to_string(dir.eval_set_path("weather", "smoke")).unwrap();
        let quiet = tokio::time::timeout(Duration::from_millis(500), batches.recv()).await;
        assert!(quiet.is_err(), "a read was reported: {quiet:?}");

        let history = dir.eval_history_dir("weather");
        std::fs::create_dir_all(&history).unwrap();
        std::fs::write(history.join("r1.evalset_result.json"), "{}").unwrap();
        let run = FolderPath::RunResult {
            app: "weather".into(),
            name: "r1".into(),
        };
        let mut seen = Vec::new();
        while !seen.contains(&run) {
            seen.extend(next(&mut batches).await);
        }
    }
}

//! Where ADK keeps an app's evalsets and runs, as its LocalEvalSetsManager and
//! LocalEvalSetResultsManager read and write them:
//! `AGENTS_DIR/<app>/<eval_set_id>.evalset.json` (the id is the file's stem) and
//! `AGENTS_DIR/<app>/.adk/eval_history/<result name>.evalset_result.json`; beside them the
//! `<id>.test.json` files ADK's AgentEvaluator (and VeADK) run, one evalset each, named the same
//! way (an `<id>.evalset.json` of the same id wins).

use std::path::{Path, PathBuf};

pub const EVAL_SET_SUFFIX: &str = ".evalset.json";
pub const TEST_SUFFIX: &str = ".test.json";
pub const RESULT_SUFFIX: &str = ".evalset_result.json";
const EVAL_HISTORY: [&str; 2] = [".adk", "eval_history"];

/// A file of the folder that Evalstudio reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FolderPath {
    EvalSet { app: String, eval_set_id: String },
    RunResult { app: String, name: String },
}

/// The agents folder, its path made absolute once.
#[derive(Debug, Clone)]
pub struct AgentsDir {
    root: PathBuf,
}

impl AgentsDir {
    pub fn new(root: &Path) -> std::io::Result<AgentsDir> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a folder",
                root.display()
            )));
        }
        Ok(AgentsDir { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn app_dir(&self, app: &str) -> PathBuf {
        self.root.join(app)
    }

    pub fn eval_set_path(&self, app: &str, eval_set_id: &str) -> PathBuf {
        self.app_dir(app).join(format!("{eval_set_id}{EVAL_SET_SUFFIX}"))
    }

    pub fn eval_history_dir(&self, app: &str) -> PathBuf {
        EVAL_HISTORY
            .iter()
            .fold(self.app_dir(app), |dir, part| dir.join(part))
    }

    /// The path relative to the folder, as pages show it.
    pub fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }

    /// What `path` is to Evalstudio, if anything.
    pub fn classify(&self, path: &Path) -> Option<FolderPath> {
        let parts: Vec<&str> = self
            .relative(path)
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect::<Option<_>>()?;
        match parts.as_slice() {
            [app, file] => Some(FolderPath::EvalSet {
                app: app.to_string(),
                eval_set_id: eval_set_id_of(file)?.to_string(),
            }),
            [app, adk, history, file] if [*adk, *history] == EVAL_HISTORY => Some(FolderPath::RunResult {
                app: app.to_string(),
                name: file
                    .strip_suffix(RESULT_SUFFIX)
                    .filter(|n| !n.is_empty())?
                    .to_string(),
            }),
            _ => None,
        }
    }

    /// The app's evalset files, by id, sorted (an id's `.evalset.json` before its `.test.json`).
    pub fn eval_set_files(&self, app: &str) -> Vec<(String, PathBuf)> {
        let mut ids: Vec<String> = read_dir_names(&self.app_dir(app))
            .iter()
            .filter_map(|name| Some(eval_set_id_of(name)?.to_string()))
            .collect();
        ids.sort();
        ids.dedup();
        ids.into_iter()
            .map(|id| {
                let path = self.eval_set_file(app, &id);
                (id, path)
            })
            .collect()
    }

    /// The evalset's file: its `.evalset.json`, else its `.test.json` if there is one, else
    /// where a new `.evalset.json` goes.
    pub fn eval_set_file(&self, app: &str, eval_set_id: &str) -> PathBuf {
        let evalset = self.eval_set_path(app, eval_set_id);
        let test = self.app_dir(app).join(format!("{eval_set_id}{TEST_SUFFIX}"));
        if !evalset.is_file() && test.is_file() {
            test
        } else {
            evalset
        }
    }

    /// The app's run files in its eval history.
    pub fn result_files(&self, app: &str) -> Vec<PathBuf> {
        let dir = self.eval_history_dir(app);
        let mut files: Vec<PathBuf> = read_dir_names(&dir)
            .into_iter()
            .filter(|name| name.ends_with(RESULT_SUFFIX))
            .map(|name| dir.join(name))
            .collect();
        files.sort();
        files
    }

    /// The folders that look like ADK apps, for when ADK's own loader cannot be asked (no
    /// `adk` installed): those with an agent module, an agent YAML or an evalset file.
    pub fn apps_without_adk(&self) -> Vec<String> {
        let mut apps: Vec<String> = read_dir_names(&self.root)
            .into_iter()
            .filter(|name| !name.starts_with('.') && !name.starts_with('_'))
            .filter(|name| {
                let dir = self.app_dir(name);
                ["agent.py", "__init__.py", "root_agent.yaml"]
                    .iter()
                    .any(|f| dir.join(f).is_file())
                    || !self.eval_set_files(name).is_empty()
            })
            .collect();
        apps.sort();
        apps
    }
}

/// `smoke` of `smoke.evalset.json` or `smoke.test.json`.
fn eval_set_id_of(file: &str) -> Option<&str> {
    file.strip_suffix(EVAL_SET_SUFFIX)
        .or_else(|| file.strip_suffix(TEST_SUFFIX))
        .filter(|id| !id.is_empty())
}

fn read_dir_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Where folder mode keeps its SQLite file when `--db` is not given: in the user's cache,
/// one per folder (keyed by its absolute path), never inside the folder where git would see it.
pub fn default_db_path(dir: &AgentsDir) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    dir.root().hash(&mut hasher);
    let name = dir
        .root()
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("folder");
    cache_home()
        .join("evalstudio")
        .join("folders")
        .join(format!("{name}-{:016x}", hasher.finish()))
        .join("evalstudio.db")
}

fn cache_home() -> PathBuf {
    match (std::env::var_os("XDG_CACHE_HOME"), std::env::var_os("HOME")) {
        (Some(cache), _) if !cache.is_empty() => PathBuf::from(cache),
        (_, Some(home)) => PathBuf::from(home).join(".cache"),
        _ => std::env::temp_dir(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> (tempfile::TempDir, AgentsDir) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = AgentsDir::new(tmp.path()).unwrap();
        (tmp, dir)
    }

    #[test]
    fn an_evalset_file_is_named_by_its_stem_and_a_run_by_its_name() {
        let (_tmp, dir) = dir();
        let set = dir.eval_set_path("weather", "smoke");
        assert_eq!(
            dir.classify(&set),
            Some(FolderPath::EvalSet {
                app: "weather".into(),
                eval_set_id: "smoke".into()
            })
        );
        let run = dir
            .eval_history_dir("weather")
            .join("weather_smoke_1.5.evalset_result.json");
        assert_eq!(
            dir.classify(&run),
            Some(FolderPath::RunResult {
                app: "weather".into(),
                name: "weather_smoke_1.5".into()
            })
        );
    }

    #[test]
    fn other_files_are_not_evalstudios() {
        let (_tmp, dir) = dir();
        for other in [
            "weather/agent.py",
            "weather/.evalset.json",
            "weather/sub/x.evalset.json",
            "weather/x.json",
            "x.evalset.json",
        ] {
            assert_eq!(dir.classify(&dir.root().join(other)), None, "{other}");
        }
    }

    #[test]
    fn a_test_file_is_an_evalset_unless_an_evalset_file_has_its_id() {
        let (_tmp, dir) = dir();
        std::fs::create_dir_all(dir.app_dir("w")).unwrap();
        for file in ["a.test.json", "b.evalset.json", "b.test.json"] {
            std::fs::write(dir.app_dir("w").join(file), "").unwrap();
        }
        let files: Vec<(String, String)> = dir
            .eval_set_files("w")
            .into_iter()
            .map(|(id, path)| (id, path.file_name().unwrap().to_string_lossy().into_owned()))
            .collect();
        assert_eq!(
            files,
            [
                ("a".into(), "a.test.json".into()),
                ("b".into(), "b.evalset.json".into())
            ]
        );
        let test = dir.app_dir("w").join("a.test.json");
        assert_eq!(
            dir.classify(&test),
            Some(FolderPath::EvalSet {
                app: "w".into(),
                eval_set_id: "a".into()
            })
        );
    }

    #[test]
    fn an_app_is_a_folder_with_an_agent_or_an_evalset() {
        let (_tmp, dir) = dir();
        for (app, file) in [
            ("a", "agent.py"),
            ("b", "x.evalset.json"),
            ("c", "notes.txt"),
            (".venv", "agent.py"),
        ] {
            std::fs::create_dir_all(dir.app_dir(app)).unwrap();
            std::fs::write(dir.app_dir(app).join(file), "").unwrap();
        }
        assert_eq!(dir.apps_without_adk(), ["a", "b"]);
        assert_eq!(dir.eval_set_files("b")[0].0, "x");
    }

    #[test]
    fn the_database_lives_outside_the_folder() {
        let (_tmp, dir) = dir();
        assert!(!default_db_path(&dir).starts_with(dir.root()));
    }
}

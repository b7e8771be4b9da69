//! The folder's git commit and whether its tree has changes, read with `git` itself, so a run
//! made on a folder points at the commit it ran.

use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitState {
    pub commit: String,
    pub dirty: bool,
}

/// The commit checked out in `dir` and whether anything differs from it; `None` when `dir` is
/// not in a git work tree or git is not installed.
pub async fn git_state(dir: &Path) -> Option<GitState> {
    let commit = git(dir, &["rev-parse", "HEAD"]).await?;
    // ADK's own `.adk` (sessions, eval history) changes with every chat and run.
    let status = git(dir, &["status", "--porcelain", "--", ".", ":(exclude).adk"]).await?;
    Some(GitState {
        commit: commit.trim().to_string(),
        dirty: !status.trim().is_empty(),
    })
}

async fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = tokio::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(dir: &Path, args: &[&str]) {
        let status = tokio::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .status()
            .await
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    #[tokio::test]
    async fn a_commit_and_a_change_after_it_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(git_state(dir.path()).await, None);
        run(dir.path(), &["init", "-q"]).await;
        std::fs::write(dir.path().join("a.evalset.json"), "{}").unwrap();
        run(dir.path(), &["add", "."]).await;
        run(dir.path(), &["commit", "-q", "-m", "first"]).await;
        let clean = git_state(dir.path()).await.unwrap();
        assert_eq!((clean.commit.len(), clean.dirty), (40, false));
        std::fs::write(dir.path().join("a.evalset.json"), "{\"x\": 1}").unwrap();
        assert!(git_state(dir.path()).await.unwrap().dirty);
    }
}

//! Folder mode's I/O on the user's ADK project (`evalstudio web AGENTS_DIR`): where ADK keeps
//! what (layout), files written whole or not at all (atomic), ADK's own api_server as a child
//! (adk_server), changes on disk (watch) and the folder's git commit (git). It knows nothing of
//! the store: `service::folder` keeps the store and the files in step.

mod adk_server;
mod atomic;
mod git;
mod layout;
mod watch;

pub use adk_server::{AdkServer, AdkServerError};
pub use atomic::write_atomically;
pub use git::{git_state, GitState};
pub use layout::{default_db_path, AgentsDir, FolderPath, EVAL_SET_SUFFIX, RESULT_SUFFIX};
pub use watch::FolderWatcher;

//! The product's use cases: importing and exporting evalsets, editing cases, chat sessions and
//! their turns, "Add current session", and eval runs. REST handlers, server functions and the
//! CLI call these and only translate: request to arguments, and each module's error enum to a
//! status, a `ServerFnError` or an exit code. Nothing here knows HTTP, axum or Leptos.

pub mod add_session;
pub mod auth;
pub mod case_results;
pub mod cases;
pub mod errors;
pub mod eval_sets;
pub mod folder;
pub mod mcp_servers;
pub mod metric_offer;
pub mod remote_copies;
pub mod running;
pub mod runs;
pub mod sessions;
pub mod startup;
pub mod traces;
pub mod turn_following;
pub mod turns;

use crate::agent::AgentProfiles;
use crate::eval::services::ScoringServices;
use crate::store::Store;
use running::Running;
use std::sync::Arc;

/// What the use cases work with. Cheap to clone: every part is shared.
#[derive(Clone)]
pub struct Services {
    pub store: Store,
    pub profiles: Arc<AgentProfiles>,
    /// The judge and embedding model metrics may use.
    pub scoring: ScoringServices,
    /// Chat turns under way, by session.
    pub turns: Running,
    /// Eval runs under way in this process, by result id.
    pub eval_runs: Running,
    /// The agents folder, in folder mode (`evalstudio web`).
    pub folder: Option<Arc<folder::Folder>>,
    /// Whether this process works on eval runs, and how many case runs of each at once.
    pub worker: runs::workers::WorkerSettings,
    /// The OTLP trace receiver's settings, when it is on.
    pub otlp: Option<traces::OtlpSettings>,
}

impl Services {
    pub fn new(store: Store, profiles: AgentProfiles, scoring: ScoringServices) -> Services {
        Services {
            store,
            profiles: Arc::new(profiles),
            scoring,
            turns: Running::default(),
            eval_runs: Running::default(),
            folder: None,
            worker: runs::workers::WorkerSettings::default(),
            otlp: None,
        }
    }

    /// The services of folder mode, keeping `folder`'s files and the store in step.
    pub fn with_folder(self, folder: Arc<folder::Folder>) -> Services {
        Services {
            folder: Some(folder),
            ..self
        }
    }
}

#[cfg(test)]
mod tests;

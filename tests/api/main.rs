//! The REST API and the pages over HTTP, against the real server (see `helpers`), one module
//! per feature.

#[path = "../common/adk.rs"]
mod adk;
#[path = "../common/mod.rs"]
mod common;
#[path = "../common/fixtures.rs"]
mod fixtures;
#[path = "../common/ok_eval_set.rs"]
mod ok_eval_set;
#[path = "../common/otlp_json.rs"]
mod otlp_json;
#[path = "../common/wait.rs"]
mod wait;

mod helpers;

mod add_session;
mod adk_agent;
mod adk_dev_routes;
mod agents_folder;
mod auth;
mod cancel_and_resume;
mod case_history;
mod cases;
mod chat_across_servers;
mod cli_database;
mod delete_undo;
mod eval_runs;
mod eval_sets;
mod evaluators;
mod import_export;
mod internal_errors;
mod judge;
mod limits;
mod local_model;
mod mcp_servers;
mod not_found;
mod openai_agent;
mod otlp;
mod pages;
mod push_pull;
mod run;
mod run_export;
mod scenarios;
mod security;
mod servers;
mod sessions;
mod tool_replay;
mod trace_sessions;
mod workers;

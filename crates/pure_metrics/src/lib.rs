//! The metrics that need no model: google-adk's `tool_trajectory_avg_score` and
//! `response_match_score` (ROUGE-1 with NLTK's Porter stemmer), partial credit for
//! trajectories, ADK's informational efficiency metrics, Python's exact mean, metrics' score ranges, and the
//! expected-against-actual comparison the result view shows. Pure functions of ADK's data
//! model: no I/O, no clock, no async; compiled for the server and the browser. The app's `eval`
//! module scores with them and re-exports them.

pub mod compare;
pub mod efficiency;
pub mod exact_mean;
pub mod partial;
pub mod porter;
pub mod rouge;
pub mod score_range;
pub mod trajectory;

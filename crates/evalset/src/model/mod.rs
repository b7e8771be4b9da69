//! ADK's evalset data model (google-adk `evaluation/eval_case.py`, `eval_set.py` and the
//! google-genai types they use), as serde types.
//!
//! Every model follows the same three rules, enforced by `adk_model!` (adk_model.rs):
//! - it reads snake_case or camelCase keys (ADK's pydantic `alias_generator=to_camel`);
//! - keys it does not know are kept, in order, in `extra` and written back after the known ones;
//! - it writes what ADK's file writer writes (`model_dump_json(exclude_unset, exclude_defaults,
//!   exclude_none)`): snake_case keys in ADK's declaration order, with nulls and default values left out.
//!
//! JSON `null` reads as "not set" everywhere, so a file written by an older ADK (which wrote every
//! unset field as null) reads the same as one written by a newer one.
//!
//! eval_set.rs holds the set (read a case at a time), case.rs ADK's case and its parts,
//! genai.rs the google-genai types they carry.

pub mod adk_model;
pub mod case;
pub mod eval_set;
pub mod genai;

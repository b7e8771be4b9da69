//! Production traces: what OTLP exporters send, read without I/O into the spans the store keeps.

pub mod otlp;
pub mod recorded_cases;
pub mod sessions;

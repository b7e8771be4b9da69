//! What a metric's score on one invocation rests on, kept in the result's `details.evidence`
//! for display: a judge's replies and how they were read, or the texts an embedding metric
//! compared. Stored runs and the REST API carry it as JSON, each kind in the shape results have
//! always had; evidence of a shape this build does not know (an older run's) reads back as it
//! is.

use super::judge::JudgeEvidence;
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Evidence {
    Judge(JudgeEvidence),
    Embedding(EmbeddingEvidence),
    /// Stored in a shape none of the above reads; shown as the raw JSON.
    Raw(Value),
}

impl Evidence {
    pub fn judge(&self) -> Option<&JudgeEvidence> {
        match self {
            Evidence::Judge(judge) => Some(judge),
            Evidence::Embedding(_) | Evidence::Raw(_) => None,
        }
    }
}

/// The two texts an embedding metric compared, and their cosine (unclamped; absent when the
/// texts were not embedded: one is blank, or the embedder failed).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum EmbeddingEvidence {
    SemanticSimilarity {
        expected: String,
        actual: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cosine: Option<f64>,
    },
    AnswerRelevance {
        query: String,
        response: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cosine: Option<f64>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn evidence_of_a_shape_not_known_reads_back_raw_and_unchanged() {
        for stored in [
            json!({"reply": "YES"}),
            json!({"samples": [{"reply": "yes", "verdict": "yes", "weight": 2}]}),
            json!({"votes": {"yes": 1, "no": 0}}),
            json!({"expected": "sunny"}),
            json!(["a list"]),
            json!("text"),
        ] {
            let read: Evidence = serde_json::from_value(stored.clone()).unwrap();
            assert_eq!(read, Evidence::Raw(stored.clone()));
            assert_eq!(serde_json::to_value(&read).unwrap(), stored);
        }
    }
}

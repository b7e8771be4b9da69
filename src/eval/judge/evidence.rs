//! What a judge's score on one invocation rests on: every reply and how it was read. Stored
//! runs and the REST API carry it as JSON, so each type serialises to the shape results have
//! always had (keys in this order, absent parts left out); the browser reads it back typed.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// The parts a judge metric kept. Which are present depends on the metric: `samples` (with
/// `votes` for yes/no verdicts, after `rubrics` for the rubric-based metric), `items` and
/// `answer` for `context_precision`, `statements_reply` and `statements` for `faithfulness`
/// and `context_recall`, `responses` for `hallucinations_v1`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeEvidence {
    /// Each rubric's verdict, chosen by majority over the samples.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rubrics: Option<Vec<RubricOutcome>>,
    /// Each sample's reply, in the order asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<Vec<Sample>>,
    /// The samples' yes/no (or valid/invalid) verdicts, counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub votes: Option<Votes>,
    /// Each context item (tool response), judged useful or not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<ContextItem>>,
    /// What the context items were judged useful for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<AnsweredWith>,
    /// The judge's reply listing the statements to check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statements_reply: Option<String>,
    /// Each statement, checked against the context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statements: Option<Vec<StatementCheck>>,
    /// G-Eval's evaluation steps the score followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<String>>,
    /// `hallucinations_v1`: each response checked, its sentences and their labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responses: Option<Vec<CheckedResponse>>,
}

/// One natural-language response `hallucinations_v1` checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckedResponse {
    pub response: String,
    /// The share of labelled sentences that are supported or not applicable.
    pub score: Option<f64>,
    /// Why the response has no score.
    pub problem: Option<String>,
    /// The judge's segmentation, and the sentences read from it.
    pub segmenter_reply: Option<String>,
    pub sentences: Vec<String>,
    /// The judge's labelling, and the labels read from it.
    pub validator_reply: Option<String>,
    pub labels: Vec<SentenceLabel>,
}

/// One sentence as the judge labelled it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentenceLabel {
    pub sentence: String,
    /// As written: `supported`, `unsupported`, `contradictory`, `disputed`, `not_applicable`,
    /// or something else, which does not count.
    pub label: String,
    pub rationale: String,
}

/// One sample: the judge's reply and what was read from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Sample {
    Verdict {
        reply: String,
        verdict: Verdict,
    },
    /// A `{score, feedback}` reply, its score mapped onto 0..1.
    Scored {
        reply: String,
        score: f64,
        feedback: Option<String>,
    },
    /// A rubric-based reply: the score it gave each rubric it named.
    RubricScores {
        reply: String,
        rubric_scores: RubricScores,
    },
    /// A reply that could not be read, and why.
    Unread {
        reply: String,
        problem: String,
    },
    /// A reply left unread because another sample's request failed.
    Unjudged {
        reply: String,
    },
    /// The request failed.
    Failed {
        error: String,
    },
}

/// What a yes/no reply or a `final_response_match_v2` reply said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Verdict {
    YesNo(YesNo),
    Validity {
        label: ValidityLabel,
        /// Which reading found the label.
        parser: ValidityParser,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum YesNo {
    Yes,
    No,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValidityLabel {
    Valid,
    Invalid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValidityParser {
    /// ADK's own parser.
    Adk,
    /// The tolerant reading, where ADK's found nothing.
    Tolerant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Votes {
    pub yes: usize,
    pub no: usize,
    /// Replies with no verdict, which do not vote.
    pub unread: usize,
}

/// One rubric over all samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RubricOutcome {
    pub rubric_id: String,
    pub text: String,
    /// The chosen verdict's score; `None` when no sample gave a readable one.
    pub score: Option<f64>,
    pub rationale: String,
    pub votes: Votes,
}

/// A reply's score per rubric id, in the order the reply first named each; a rubric named
/// twice keeps its first place and its last score. Serialised as a JSON object.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RubricScores(pub Vec<(String, Option<f64>)>);

impl RubricScores {
    pub fn insert(&mut self, rubric_id: &str, score: Option<f64>) {
        match self.0.iter_mut().find(|(id, _)| id == rubric_id) {
            Some((_, kept)) => *kept = score,
            None => self.0.push((rubric_id.to_string(), score)),
        }
    }
}

impl Serialize for RubricScores {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (rubric_id, score) in &self.0 {
            map.serialize_entry(rubric_id, score)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for RubricScores {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = RubricScores;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of rubric ids and scores")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<RubricScores, A::Error> {
                let mut scores = RubricScores::default();
                while let Some((rubric_id, score)) = entries.next_entry::<String, Option<f64>>()? {
                    scores.insert(&rubric_id, score);
                }
                Ok(scores)
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

/// One context item of `context_precision`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum ContextItem {
    Judged {
        context: String,
        useful: bool,
        reply: String,
    },
    Unread {
        context: String,
        reply: String,
        problem: String,
    },
    Failed {
        context: String,
        error: String,
    },
}

/// The text `context_precision` judged the context items against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnsweredWith {
    /// The expected final response.
    Reference,
    /// The agent's response, when there is no expected one.
    Response,
}

/// One statement of `faithfulness` or `context_recall`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum StatementCheck {
    /// `reply` is `None` when there was no context to check against, so nothing supports it.
    Checked {
        statement: String,
        supported: bool,
        reply: Option<String>,
    },
    Unread {
        statement: String,
        reply: String,
        problem: String,
    },
    Failed {
        statement: String,
        error: String,
    },
}

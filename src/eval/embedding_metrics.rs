//! The metrics scored by sentence-embedding cosine: `semantic_similarity` (expected vs actual final
//! response) and `answer_relevance` (the user's message vs the actual final response). Pure over
//! the `Embedder` trait, so compiled for the server and the browser and tested with a scripted
//! embedder; the real one is `embedding::MiniLmEmbedder`.
//!
//! Score: the cosine clamped to [0, 1]. A negative cosine means the texts point away from each
//! other, which for a relevance or similarity score is no better than unrelated (0); stretching
//! [-1, 1] onto [0, 1] instead would put unrelated texts near 0.5 and make thresholds misleading.
//! The unclamped cosine is kept in the evidence.
//!
//! Text missing: a blank reference (no expected response, no user message) leaves nothing to
//! measure against, so the invocation is NOT_EVALUATED with that reason; a blank actual response
//! scores 0, because saying nothing neither matches nor answers anything.

use super::evidence::{EmbeddingEvidence, Evidence};
use super::services::{Embedder, InvocationScore};
use crate::evalset::Invocation;
use pure_metrics::rouge::response_text;
use std::collections::HashMap;

/// Cosine of the embeddings of the expected and the actual final response text.
pub async fn semantic_similarity(
    actual: &Invocation,
    expected: &Invocation,
    embedder: &dyn Embedder,
) -> InvocationScore {
    first(semantic_similarity_all(&[(actual, expected)], embedder).await)
}

/// `semantic_similarity` of many (actual, expected) pairs with one call to the embedder (each
/// distinct text embedded once), scores in the same order.
pub async fn semantic_similarity_all(
    pairs: &[(&Invocation, &Invocation)],
    embedder: &dyn Embedder,
) -> Vec<InvocationScore> {
    let comparisons = pairs
        .iter()
        .map(|(actual, expected)| Comparison {
            evidence: |expected, actual, cosine| EmbeddingEvidence::SemanticSimilarity {
                expected,
                actual,
                cosine,
            },
            reference: response_text(expected.final_response.as_ref()),
            missing_reference: "the expected invocation has no final response to compare with",
            response: response_text(actual.final_response.as_ref()),
        })
        .collect();
    score_comparisons(comparisons, embedder).await
}

/// Cosine of the embeddings of the user's message and the actual final response.
pub async fn answer_relevance(actual: &Invocation, embedder: &dyn Embedder) -> InvocationScore {
    first(answer_relevance_all(&[actual], embedder).await)
}

/// `answer_relevance` of many invocations with one call to the embedder, scores in the same order.
pub async fn answer_relevance_all(actuals: &[&Invocation], embedder: &dyn Embedder) -> Vec<InvocationScore> {
    let comparisons = actuals
        .iter()
        .map(|actual| Comparison {
            evidence: |query, response, cosine| EmbeddingEvidence::AnswerRelevance {
                query,
                response,
                cosine,
            },
            reference: response_text(Some(&actual.user_content)),
            missing_reference: "the invocation has no user message to measure relevance against",
            response: response_text(actual.final_response.as_ref()),
        })
        .collect();
    score_comparisons(comparisons, embedder).await
}

fn first(mut scores: Vec<InvocationScore>) -> InvocationScore {
    scores.remove(0)
}

/// Two texts whose embedding cosine is one invocation's score: what the response is measured
/// against, and the response.
struct Comparison {
    /// The metric's evidence of the reference, the response and their cosine.
    evidence: fn(String, String, Option<f64>) -> EmbeddingEvidence,
    reference: String,
    missing_reference: &'static str,
    response: String,
}

impl Comparison {
    fn evidence(&self, cosine: Option<f64>) -> Evidence {
        Evidence::Embedding((self.evidence)(
            self.reference.clone(),
            self.response.clone(),
            cosine,
        ))
    }

    fn with_evidence(&self, score: InvocationScore, cosine: Option<f64>) -> InvocationScore {
        InvocationScore {
            evidence: Some(self.evidence(cosine)),
            ..score
        }
    }
}

async fn score_comparisons(comparisons: Vec<Comparison>, embedder: &dyn Embedder) -> Vec<InvocationScore> {
    let is_blank = |text: &str| text.trim().is_empty();
    let needs_embedding =
        |comparison: &Comparison| !is_blank(&comparison.reference) && !is_blank(&comparison.response);

    // Each distinct text once: an expected response recurs in every run of its case.
    let mut texts: Vec<String> = Vec::new();
    let mut text_index: HashMap<&str, usize> = HashMap::new();
    for comparison in comparisons
        .iter()
        .filter(|comparison| needs_embedding(comparison))
    {
        for text in [&comparison.reference, &comparison.response] {
            text_index.entry(text.as_str()).or_insert_with(|| {
                texts.push(text.clone());
                texts.len() - 1
            });
        }
    }
    let vectors = if texts.is_empty() {
        Ok(Vec::new())
    } else {
        match embedder.embed(&texts).await {
            Ok(vectors) if vectors.len() != texts.len() => Err(format!(
                "expected {} vectors from the embedder, got {}",
                texts.len(),
                vectors.len()
            )),
            Ok(vectors) => Ok(vectors),
            Err(err) => Err(format!("embedding failed: {err}")),
        }
    };

    comparisons
        .iter()
        .map(|comparison| {
            if is_blank(&comparison.reference) {
                return comparison
                    .with_evidence(InvocationScore::not_evaluated(comparison.missing_reference), None);
            }
            if is_blank(&comparison.response) {
                return comparison.with_evidence(InvocationScore::scored(0.0), None);
            }
            let vectors = match &vectors {
                Ok(vectors) => vectors,
                Err(reason) => return comparison.with_evidence(InvocationScore::not_evaluated(reason), None),
            };
            let vector = |text: &String| &vectors[text_index[text.as_str()]];
            match cosine(vector(&comparison.reference), vector(&comparison.response)) {
                Some(cosine) => {
                    comparison.with_evidence(InvocationScore::scored(cosine.clamp(0.0, 1.0)), Some(cosine))
                }
                None => comparison.with_evidence(
                    InvocationScore::not_evaluated(
                        "the embeddings cannot be compared (different lengths, or a zero vector)",
                    ),
                    None,
                ),
            }
        })
        .collect()
}

/// Cosine similarity in f64; `None` for vectors of different lengths or a zero vector. Computed
/// in full rather than as a dot product so an embedder that does not normalise is still right.
fn cosine(left: &[f32], right: &[f32]) -> Option<f64> {
    if left.len() != right.len() || left.is_empty() {
        return None;
    }
    let (mut dot, mut left_norm, mut right_norm) = (0.0f64, 0.0f64, 0.0f64);
    for (&l, &r) in left.iter().zip(right) {
        let (l, r) = (f64::from(l), f64::from(r));
        dot += l * r;
        left_norm += l * l;
        right_norm += r * r;
    }
    let norms = left_norm.sqrt() * right_norm.sqrt();
    (norms > 0.0 && norms.is_finite()).then(|| dot / norms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use futures::future::BoxFuture;
    use serde_json::{json, Value};
    use std::sync::Mutex;

    /// Fixed vectors per text; records each call's texts. Texts it does not know are an error.
    #[derive(Default)]
    struct ScriptedEmbedder {
        vectors: HashMap<String, Vec<f32>>,
        failure: Option<String>,
        calls: Mutex<Vec<Vec<String>>>,
    }

    impl ScriptedEmbedder {
        fn new(vectors: &[(&str, &[f32])]) -> ScriptedEmbedder {
            ScriptedEmbedder {
                vectors: vectors
                    .iter()
                    .map(|(text, vector)| (text.to_string(), vector.to_vec()))
                    .collect(),
                ..ScriptedEmbedder::default()
            }
        }

        fn calls(&self) -> Vec<Vec<String>> {
            self.calls.lock().unwrap().clone()
        }
    }

    impl Embedder for ScriptedEmbedder {
        fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, String>> {
            self.calls.lock().unwrap().push(texts.to_vec());
            let result = match &self.failure {
                Some(failure) => Err(failure.clone()),
                None => texts
                    .iter()
                    .map(|text| {
                        self.vectors
                            .get(text)
                            .cloned()
                            .ok_or(format!("unscripted text {text:?}"))
                    })
                    .collect(),
            };
            Box::pin(async move { result })
        }
    }

    fn invocation(user: &str, response: Option<&str>) -> Invocation {
        serde_json::from_value(json!({
            "user_content": {"role": "user", "parts": [{"text": user}]},
            "final_response": response.map(|text| json!({"role": "model", "parts": [{"text": text}]})),
        }))
        .unwrap()
    }

    /// Evidence as results store it.
    fn stored(evidence: Option<Evidence>) -> Value {
        serde_json::to_value(evidence.expect("evidence")).unwrap()
    }

    fn answer(text: &str) -> Invocation {
        invocation("q", Some(text))
    }

    const SUNNY: &[f32] = &[1.0, 0.0, 0.0];
    const WARM: &[f32] = &[0.6, 0.8, 0.0];
    const RAIN: &[f32] = &[0.0, 0.0, 1.0];
    const OPPOSITE: &[f32] = &[-0.6, -0.8, 0.0];

    #[test]
    fn similarity_is_the_cosine_of_expected_and_actual() {
        let embedder = ScriptedEmbedder::new(&[("sunny", SUNNY), ("warm", WARM)]);
        let score = block_on(semantic_similarity(&answer("warm"), &answer("sunny"), &embedder));
        assert!((score.score.unwrap() - 0.6).abs() < 1e-7, "{score:?}");
        assert_eq!(score.reason, None);
        let evidence = stored(score.evidence);
        assert_eq!(evidence["expected"], "sunny");
        assert_eq!(evidence["actual"], "warm");
        assert!((evidence["cosine"].as_f64().unwrap() - 0.6).abs() < 1e-7);
        assert_eq!(embedder.calls(), [["sunny", "warm"]]);
    }

    #[test]
    fn same_text_scores_one_and_unrelated_scores_zero() {
        let embedder = ScriptedEmbedder::new(&[("sunny", SUNNY), ("rain", RAIN)]);
        let same = block_on(semantic_similarity(&answer("sunny"), &answer("sunny"), &embedder));
        assert_eq!(same.score, Some(1.0));
        assert_eq!(
            embedder.calls(),
            [["sunny"]],
            "a text shared by both sides is embedded once"
        );
        let unrelated = block_on(semantic_similarity(&answer("rain"), &answer("sunny"), &embedder));
        assert_eq!(unrelated.score, Some(0.0));
    }

    #[test]
    fn a_negative_cosine_scores_zero_and_keeps_the_cosine() {
        let embedder = ScriptedEmbedder::new(&[("warm", WARM), ("cold", OPPOSITE)]);
        let score = block_on(semantic_similarity(&answer("cold"), &answer("warm"), &embedder));
        assert_eq!(score.score, Some(0.0));
        assert!((stored(score.evidence)["cosine"].as_f64().unwrap() + 1.0).abs() < 1e-7);
    }

    #[test]
    fn vectors_need_not_be_normalised() {
        let embedder = ScriptedEmbedder::new(&[("sunny", &[3.0, 0.0, 0.0]), ("warm", &[6.0, 8.0, 0.0])]);
        let score = block_on(semantic_similarity(&answer("warm"), &answer("sunny"), &embedder));
        assert!((score.score.unwrap() - 0.6).abs() < 1e-7);
    }

    #[test]
    fn no_expected_response_is_not_evaluated_without_embedding() {
        let embedder = ScriptedEmbedder::new(&[]);
        for expected in [invocation("q", None), answer(""), answer(" \n ")] {
            let score = block_on(semantic_similarity(&answer("warm"), &expected, &embedder));
            assert_eq!(score.score, None);
            assert_eq!(
                score.reason.as_deref(),
                Some("the expected invocation has no final response to compare with")
            );
            assert_eq!(stored(score.evidence)["actual"], "warm");
        }
        assert!(embedder.calls().is_empty());
    }

    #[test]
    fn evidence_is_stored_as_the_texts_compared_and_the_cosine() {
        let embedder = ScriptedEmbedder::new(&[("sunny", SUNNY), ("warm", WARM)]);
        let similarity = block_on(semantic_similarity(&answer("warm"), &answer("sunny"), &embedder));
        let relevance = block_on(answer_relevance(&invocation("sunny", Some("warm")), &embedder));
        let blank = block_on(semantic_similarity(
            &invocation("q", None),
            &answer("sunny"),
            &embedder,
        ));
        for (score, text) in [
            (
                similarity,
                r#"{"expected":"sunny","actual":"warm","cosine":0.6000000095367428}"#,
            ),
            (
                relevance,
                r#"{"query":"sunny","response":"warm","cosine":0.6000000095367428}"#,
            ),
            (blank, r#"{"expected":"sunny","actual":""}"#),
        ] {
            assert_eq!(serde_json::to_string(&score.evidence).unwrap(), text);
            let read: Evidence = serde_json::from_str(text).unwrap();
            assert!(
                matches!(read, Evidence::Embedding(_)),
                "{text} reads back as {read:?}"
            );
            assert_eq!(Some(read), score.evidence);
        }
    }

    #[test]
    fn no_actual_response_scores_zero_without_embedding() {
        let embedder = ScriptedEmbedder::new(&[]);
        let score = block_on(semantic_similarity(
            &invocation("q", None),
            &answer("sunny"),
            &embedder,
        ));
        assert_eq!(score.score, Some(0.0));
        assert_eq!(stored(score.evidence), json!({"expected": "sunny", "actual": ""}));
        assert!(embedder.calls().is_empty());
    }

    #[test]
    fn an_embedder_error_is_not_evaluated_with_the_error() {
        let embedder = ScriptedEmbedder {
            failure: Some("model not loaded".into()),
            ..ScriptedEmbedder::default()
        };
        let score = block_on(semantic_similarity(&answer("warm"), &answer("sunny"), &embedder));
        assert_eq!(score.score, None);
        assert_eq!(
            score.reason.as_deref(),
            Some("embedding failed: model not loaded")
        );
    }

    #[test]
    fn vectors_that_cannot_be_compared_are_not_evaluated() {
        struct WrongCount;
        impl Embedder for WrongCount {
            fn embed<'a>(&'a self, _: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, String>> {
                Box::pin(async { Ok(vec![vec![1.0]]) })
            }
        }
        let score = block_on(semantic_similarity(
            &answer("warm"),
            &answer("sunny"),
            &WrongCount,
        ));
        assert_eq!(
            score.reason.as_deref(),
            Some("expected 2 vectors from the embedder, got 1")
        );

        for (sunny, warm) in [(SUNNY, &[1.0, 0.0][..]), (SUNNY, &[0.0, 0.0, 0.0][..])] {
            let embedder = ScriptedEmbedder::new(&[("sunny", sunny), ("warm", warm)]);
            let score = block_on(semantic_similarity(&answer("warm"), &answer("sunny"), &embedder));
            assert_eq!(score.score, None);
            assert!(score.reason.unwrap().contains("cannot be compared"));
        }
    }

    #[test]
    fn relevance_is_the_cosine_of_the_user_message_and_the_response() {
        let embedder = ScriptedEmbedder::new(&[("is it sunny?", SUNNY), ("warm", WARM)]);
        let score = block_on(answer_relevance(
            &invocation("is it sunny?", Some("warm")),
            &embedder,
        ));
        assert!((score.score.unwrap() - 0.6).abs() < 1e-7);
        let evidence = stored(score.evidence);
        assert_eq!(evidence["query"], "is it sunny?");
        assert_eq!(evidence["response"], "warm");
    }

    #[test]
    fn relevance_without_a_question_or_an_answer() {
        let embedder = ScriptedEmbedder::new(&[]);
        let no_question = block_on(answer_relevance(&invocation("", Some("warm")), &embedder));
        assert_eq!(
            no_question.reason.as_deref(),
            Some("the invocation has no user message to measure relevance against")
        );
        let no_answer = block_on(answer_relevance(&invocation("is it sunny?", None), &embedder));
        assert_eq!(no_answer.score, Some(0.0));
        assert!(embedder.calls().is_empty());
    }

    #[test]
    fn batches_embed_each_distinct_text_once_in_one_call() {
        let embedder = ScriptedEmbedder::new(&[("sunny", SUNNY), ("warm", WARM), ("rain", RAIN)]);
        let expected = answer("sunny");
        let (run1, run2, run3, silent) = (
            answer("warm"),
            answer("sunny"),
            answer("rain"),
            invocation("q", None),
        );
        let scores = block_on(semantic_similarity_all(
            &[
                (&run1, &expected),
                (&run2, &expected),
                (&silent, &expected),
                (&run3, &expected),
            ],
            &embedder,
        ));
        let scores: Vec<Option<f64>> = scores
            .into_iter()
            .map(|score| score.score.map(|s| (s * 1e6).round() / 1e6))
            .collect();
        assert_eq!(scores, [Some(0.6), Some(1.0), Some(0.0), Some(0.0)]);
        assert_eq!(embedder.calls(), [["sunny", "warm", "rain"]]);

        let relevance = block_on(answer_relevance_all(&[], &embedder));
        assert!(relevance.is_empty());
        assert_eq!(embedder.calls().len(), 1, "nothing to embed, no call");
    }
}

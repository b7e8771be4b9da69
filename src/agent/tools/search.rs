//! `search_knowledge_base`: BM25 over the bundled help-center documents.

use std::collections::HashMap;
use std::sync::OnceLock;

use futures::future::BoxFuture;
use serde_json::{json, Map, Value};

use super::{object, one_string_param, ready, round_to, str_arg};
use crate::agent::knowledge::{Doc, DOCS};
use crate::agent::Tool;

const K1: f64 = 1.2;

const B: f64 = 0.75;

const TOP_K: usize = 3;

const STOPWORDS: &[&str] = &[
    "a", "about", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "did", "do", "does", "for", "from", "had", "has", "have", "he", "her", "here", "his", "how",
    "i", "if", "in", "into", "is", "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "please",
    "she", "should", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "to", "up", "us", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will",
    "with", "would", "you", "your",
];

/// Lowercase alphanumeric runs minus stopwords.
pub fn tokenize(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty() && !STOPWORDS.contains(t))
        .map(str::to_string)
        .collect()
}

struct Index {
    /// Term frequencies per document (title and text together).
    docs: Vec<HashMap<String, usize>>,
    lengths: Vec<usize>,
    avg_len: f64,
    doc_freq: HashMap<String, usize>,
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut docs = Vec::new();
        let mut lengths = Vec::new();
        let mut doc_freq: HashMap<String, usize> = HashMap::new();
        for doc in DOCS.iter() {
            let tokens = tokenize(&format!("{} {}", doc.title, doc.text));
            let mut tf: HashMap<String, usize> = HashMap::new();
            for t in &tokens {
                *tf.entry(t.clone()).or_default() += 1;
            }
            for t in tf.keys() {
                *doc_freq.entry(t.clone()).or_default() += 1;
            }
            lengths.push(tokens.len());
            docs.push(tf);
        }
        let avg_len = lengths.iter().sum::<usize>() as f64 / lengths.len() as f64;
        Index {
            docs,
            lengths,
            avg_len,
            doc_freq,
        }
    })
}

/// Ranks the bundled documents against `query`; best first, ties in document order, only
/// scores above zero, at most `k`.
pub fn bm25_search(query: &str, k: usize) -> Vec<(&'static Doc, f64)> {
    let index = index();
    let n = DOCS.len() as f64;
    let mut terms = tokenize(query);
    // A repeated query word should not count twice: "return return" means "return".
    let mut seen = std::collections::HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    let mut scored: Vec<(usize, f64)> = (0..DOCS.len())
        .map(|i| {
            let len_norm = 1.0 - B + B * index.lengths[i] as f64 / index.avg_len;
            let score = terms
                .iter()
                .filter_map(|t| {
                    let tf = *index.docs[i].get(t)? as f64;
                    let df = index.doc_freq[t] as f64;
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    Some(idf * tf * (K1 + 1.0) / (tf + K1 * len_norm))
                })
                .sum::<f64>();
            (i, score)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().take(k).map(|(i, s)| (&DOCS[i], s)).collect()
}

pub fn search_knowledge_base(query: &str) -> Map<String, Value> {
    let results: Vec<Value> = bm25_search(query, TOP_K)
        .into_iter()
        .map(|(doc, score)| {
            json!({ "id": doc.id, "title": doc.title, "text": doc.text, "score": round_to(score, 4) })
        })
        .collect();
    object(json!({ "results": results }))
}

pub struct SearchKnowledgeBase;

impl Tool for SearchKnowledgeBase {
    fn name(&self) -> &str {
        "search_knowledge_base"
    }
    fn description(&self) -> &str {
        "Search the shop's help center (returns, shipping, payments, accounts, warranty...). \
         Returns up to 3 matching passages, best first."
    }
    fn parameters(&self) -> Value {
        one_string_param("query", "The customer's question or keywords.")
    }
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        ready(str_arg(args, "query").map(search_knowledge_base))
    }
}

//! `response_match_score`: ROUGE-1 F-measure of the actual final response against the expected
//! one, as google-adk's `RougeEvaluator` computes it (`final_response_match_v1.py`): rouge-score's
//! `RougeScorer(["rouge1"])` with ADK's `_UnicodeAwareTokenizer(use_stemmer=True)`.

use super::porter;
use crate::evalset::Content;
use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// The text ADK compares: every part's text joined by newlines. Unlike
/// [`Content::joined_text`], thoughts count and empty texts are skipped, as ADK's
/// `_get_text_from_content` does.
pub fn response_text(content: Option<&Content>) -> String {
    content
        .and_then(|content| content.parts.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|part| part.text.as_deref())
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// ROUGE-1 F-measure of `candidate` (the actual response) against `reference` (the expected
/// one): unigram counts clipped to the reference, `2PR / (P + R)`, 0 when nothing overlaps.
pub fn rouge1_fmeasure(candidate: &str, reference: &str) -> f64 {
    let target = count_tokens(tokenize(reference));
    let prediction = count_tokens(tokenize(candidate));
    let overlap: usize = target
        .iter()
        .map(|(token, count)| (*count).min(prediction.get(token).copied().unwrap_or(0)))
        .sum();
    let target_total: usize = target.values().sum();
    let prediction_total: usize = prediction.values().sum();
    let precision = overlap as f64 / prediction_total.max(1) as f64;
    let recall = overlap as f64 / target_total.max(1) as f64;
    // Same operation order as rouge-score's `scoring.fmeasure`, so the result is bit-identical.
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

fn count_tokens(tokens: Vec<String>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for token in tokens {
        *counts.entry(token).or_insert(0) += 1;
    }
    counts
}

/// ADK's `_UnicodeAwareTokenizer.tokenize`: NFKC, lowercase; each CJK character is a token;
/// Thai, Lao, Khmer and Myanmar split into base letters with their combining marks; other
/// letters, digits and marks make words and everything else separates them. ASCII words then
/// go through rouge-score's tokenizer, which stems those longer than three characters.
pub fn tokenize(text: &str) -> Vec<String> {
    let normalized = text.nfkc().collect::<String>().to_lowercase();
    let mut spaced = String::with_capacity(normalized.len() * 2);
    for c in normalized.chars() {
        if is_cjk(c) {
            spaced.extend([' ', c, ' ']);
        } else if is_non_spaced_script(c) {
            if !is_mark(c) {
                // A base letter starts a new cluster; its marks attach to it.
                spaced.push(' ');
            }
            spaced.push(c);
        } else if is_word_char(c) {
            spaced.push(c);
        } else {
            spaced.push(' ');
        }
    }
    // Only spaces separate words here: every kept character is a letter, digit, mark or from
    // the script ranges above, none of which is whitespace.
    spaced
        .split(' ')
        .filter(|word| !word.is_empty())
        .map(|word| {
            // An ASCII word is `[a-z0-9]+` by now, which rouge-score keeps as one token.
            if word.is_ascii() && word.len() > 3 {
                cached_stem(word)
            } else {
                word.to_string()
            }
        })
        .collect()
}

/// Stemming is most of tokenizing, and texts repeat their words, so stems are remembered per
/// thread (up to a bound, then forgotten all at once).
fn cached_stem(word: &str) -> String {
    const MAX_REMEMBERED: usize = 50_000;
    thread_local! {
        static STEMS: std::cell::RefCell<HashMap<String, String>> = std::cell::RefCell::new(HashMap::new());
    }
    STEMS.with(|stems| {
        let mut stems = stems.borrow_mut();
        if let Some(stem) = stems.get(word) {
            return stem.clone();
        }
        if stems.len() >= MAX_REMEMBERED {
            stems.clear();
        }
        let stem = porter::stem(word);
        stems.insert(word.to_string(), stem.clone());
        stem
    })
}

fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{4E00}'..='\u{9FFF}'   // CJK Unified Ideographs
        | '\u{3040}'..='\u{309F}' // Hiragana
        | '\u{30A0}'..='\u{30FF}' // Katakana
        | '\u{AC00}'..='\u{D7AF}' // Hangul Syllables
    )
}

fn is_non_spaced_script(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0E7F}'   // Thai
        | '\u{0E80}'..='\u{0EFF}' // Lao
        | '\u{1780}'..='\u{17FF}' // Khmer
        | '\u{1000}'..='\u{109F}' // Myanmar
    )
}

fn is_mark(c: char) -> bool {
    c.general_category_group() == GeneralCategoryGroup::Mark
}

/// Python's `str.isalnum()` (general category L* or N*) or a combining mark. Rust's
/// `char::is_alphanumeric` differs: it follows the Alphabetic property, which takes in some
/// symbols such as U+1F150 (negative circled A).
fn is_word_char(c: char) -> bool {
    matches!(
        c.general_category_group(),
        GeneralCategoryGroup::Letter | GeneralCategoryGroup::Number | GeneralCategoryGroup::Mark
    )
}

//! `response_match_score`: ROUGE-1 F-measure of the actual final response against the expected
//! one, as google-adk's `RougeEvaluator` computes it (`final_response_match_v1.py`): rouge-score's
//! `RougeScorer(["rouge1"])` with ADK's `_UnicodeAwareTokenizer(use_stemmer=True)`.

use super::porter;
use evalset::{Content, Invocation};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
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

/// `response_match_score` of one invocation pair: ROUGE-1 of the final responses' texts.
pub fn response_match_score(actual: &Invocation, expected: &Invocation) -> f64 {
    rouge1_fmeasure(
        &response_text(actual.final_response.as_ref()),
        &response_text(expected.final_response.as_ref()),
    )
}

/// ROUGE-1 F-measure of `candidate` (the actual response) against `reference` (the expected
/// one): unigram counts clipped to the reference, `2PR / (P + R)`, 0 when nothing overlaps.
pub fn rouge1_fmeasure(candidate: &str, reference: &str) -> f64 {
    let (target, prediction) = TOKEN_IDS.with(|ids| {
        let mut ids = ids.borrow_mut();
        // Only between two scorings, so both texts' ids come from the same table.
        ids.forget_if_full();
        (ids.sorted_tokens(reference), ids.sorted_tokens(candidate))
    });
    // The clipped counts summed are the size of the multiset intersection.
    let overlap = sorted_intersection_len(&target, &prediction);
    let precision = overlap as f64 / prediction.len().max(1) as f64;
    let recall = overlap as f64 / target.len().max(1) as f64;
    // Same operation order as rouge-score's `scoring.fmeasure`, so the result is bit-identical.
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

fn sorted_intersection_len(a: &[u32], b: &[u32]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

thread_local! {
    static TOKEN_IDS: RefCell<TokenIds> = RefCell::new(TokenIds::default());
}

/// Tokens as small numbers, remembered per thread: texts repeat their words, stemming is most
/// of tokenizing, and comparing numbers is cheaper than comparing strings.
#[derive(Default)]
struct TokenIds {
    /// A word as split from the text (lowercased) to the id of its token.
    by_word: FxHashMap<String, u32>,
    /// A token (a stem, or the word itself) to its id; words with one stem share it.
    by_token: FxHashMap<String, u32>,
}

impl TokenIds {
    /// Words remembered before the table is forgotten all at once.
    const MAX_WORDS: usize = 50_000;

    fn forget_if_full(&mut self) {
        if self.by_word.len() >= Self::MAX_WORDS {
            self.by_word.clear();
            self.by_token.clear();
        }
    }

    fn sorted_tokens(&mut self, text: &str) -> Vec<u32> {
        let mut tokens = Vec::new();
        for_each_word(text, |word| tokens.push(self.id(word)));
        tokens.sort_unstable();
        tokens
    }

    fn id(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.by_word.get(word) {
            return id;
        }
        let token = token_of_word(word);
        let next = self.by_token.len() as u32;
        let id = *self.by_token.entry(token).or_insert(next);
        self.by_word.insert(word.to_string(), id);
        id
    }
}

/// ADK's `_UnicodeAwareTokenizer.tokenize`: NFKC, lowercase; each CJK character is a token;
/// Thai, Lao, Khmer and Myanmar split into base letters with their combining marks; other
/// letters, digits and marks make words and everything else separates them. ASCII words then
/// go through rouge-score's tokenizer, which stems those longer than three characters.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    for_each_word(text, |word| tokens.push(token_of_word(word)));
    tokens
}

/// rouge-score's tokenizer on one word of ours: an ASCII word is `[a-z0-9]+` by now, which it
/// keeps as one token and stems when longer than three characters.
fn token_of_word(word: &str) -> String {
    if word.is_ascii() && word.len() > 3 {
        porter::stem(word)
    } else {
        word.to_string()
    }
}

/// Calls `f` with each word of the text, lowercased, as ADK's tokenizer splits it.
fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    if text.is_ascii() {
        // NFKC leaves ASCII as it is, and the only ASCII letters and digits are [A-Za-z0-9].
        let mut lowered = String::new();
        for word in text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|word| !word.is_empty())
        {
            lowered.clear();
            lowered.push_str(word);
            lowered.make_ascii_lowercase();
            f(&lowered);
        }
        return;
    }
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
    spaced.split(' ').filter(|word| !word.is_empty()).for_each(f);
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

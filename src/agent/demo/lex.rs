//! The demo agent's reading of a message: tokens of the folded text (words, numbers, currency
//! symbols), and the names they make (currencies, currency codes, order ids).

use crate::agent::tools::currency::USD_PER_UNIT;

/// Three-letter words that are never meant as currency codes.
const NOT_CODES: &[&str] = &[
    "all", "and", "any", "are", "can", "for", "get", "how", "its", "now", "one", "our", "per", "the", "two",
    "was", "you",
];

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Kind {
    Word,
    Num(f64),
    Sym,
}

/// A token of the folded message; `start..end` are byte offsets into it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tok<'t> {
    pub text: &'t str,
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

impl Tok<'_> {
    pub(super) fn is_word(&self, words: &[&str]) -> bool {
        self.kind == Kind::Word && words.contains(&self.text)
    }
}

/// The tokens of the folded message, in order; anything else only separates them.
pub(super) fn lex(text: &str) -> Vec<Tok<'_>> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let offset = |k: usize| chars.get(k).map_or(text.len(), |c| c.0);
    let digit_at = |k: usize| chars.get(k).is_some_and(|c| c.1.is_ascii_digit());
    let mut toks = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let (start, c) = chars[k];
        let signed = c == '-' && digit_at(k + 1) && (k == 0 || !chars[k - 1].1.is_alphanumeric());
        if c.is_ascii_digit() || (c == '.' && digit_at(k + 1)) || signed {
            let mut j = k + 1;
            while j < chars.len()
                && (chars[j].1.is_ascii_digit() || (matches!(chars[j].1, '.' | ',') && digit_at(j + 1)))
            {
                j += 1;
            }
            let raw = &text[start..offset(j)];
            if let Ok(value) = raw.replace(',', "").parse::<f64>() {
                toks.push(Tok {
                    text: raw,
                    kind: Kind::Num(value),
                    start,
                    end: offset(j),
                });
            }
            k = j;
        } else if c.is_alphabetic() {
            let mut j = k + 1;
            while j < chars.len() && chars[j].1.is_alphanumeric() {
                j += 1;
            }
            toks.push(Tok {
                text: &text[start..offset(j)],
                kind: Kind::Word,
                start,
                end: offset(j),
            });
            k = j;
        } else {
            if matches!(c, '$' | '€' | '£' | '¥' | '₹') {
                toks.push(Tok {
                    text: &text[start..offset(k + 1)],
                    kind: Kind::Sym,
                    start,
                    end: offset(k + 1),
                });
            }
            k += 1;
        }
    }
    toks
}

/// The currency named at `toks[i]`, and how many tokens name it ("swiss francs" is two).
pub(super) fn currency_at(toks: &[Tok], i: usize) -> Option<(&'static str, usize)> {
    let tok = toks.get(i)?;
    match tok.kind {
        Kind::Sym => {
            let code = match tok.text {
                "$" => "USD",
                "€" => "EUR",
                "£" => "GBP",
                "¥" => "JPY",
                _ => "INR",
            };
            return Some((code, 1));
        }
        Kind::Num(_) => return None,
        Kind::Word => {}
    }
    let next = toks
        .get(i + 1)
        .filter(|t| t.kind == Kind::Word)
        .map_or("", |t| t.text);
    let pair = match (tok.text, next) {
        ("us" | "american", "dollar" | "dollars") => Some("USD"),
        ("canadian", "dollar" | "dollars") => Some("CAD"),
        ("australian", "dollar" | "dollars") => Some("AUD"),
        ("singapore", "dollar" | "dollars") => Some("SGD"),
        ("swiss", "franc" | "francs") => Some("CHF"),
        ("mexican", "peso" | "pesos") => Some("MXN"),
        ("japanese", "yen") => Some("JPY"),
        ("chinese", "yuan") => Some("CNY"),
        ("indian", "rupee" | "rupees") => Some("INR"),
        ("british", "pound" | "pounds") => Some("GBP"),
        ("swedish", "krona" | "kronor") => Some("SEK"),
        _ => None,
    };
    if let Some(code) = pair {
        return Some((code, 2));
    }
    let code = match tok.text {
        "dollar" | "dollars" | "bucks" => "USD",
        "euro" | "euros" => "EUR",
        "pound" | "pounds" | "sterling" => "GBP",
        "yen" => "JPY",
        "yuan" | "rmb" | "renminbi" => "CNY",
        "franc" | "francs" => "CHF",
        "rupee" | "rupees" => "INR",
        "peso" | "pesos" => "MXN",
        "krona" | "kronor" => "SEK",
        word => USD_PER_UNIT
            .iter()
            .map(|(c, _)| *c)
            .find(|c| c.eq_ignore_ascii_case(word))?,
    };
    Some((code, 1))
}

/// A three-letter word that may be an unsupported currency code ("XYZ"), so the tool can say so.
pub(super) fn unknown_code(tok: Option<&Tok>) -> Option<String> {
    let tok = tok?;
    let plausible = tok.kind == Kind::Word
        && tok.text.len() == 3
        && tok.text.chars().all(|c| c.is_ascii_alphabetic())
        && !NOT_CODES.contains(&tok.text);
    plausible.then(|| tok.text.to_ascii_uppercase())
}

/// Words of the original message with surrounding punctuation removed, and whether a word ended a
/// clause (was followed by `?`, `,`, `.`...).
pub(super) fn clean_words(message: &str) -> Vec<(String, bool)> {
    message
        .split_whitespace()
        .map(|w| {
            let trimmed = w.trim_matches(|c: char| !c.is_alphanumeric());
            let ends_clause = w.ends_with(['?', '!', '.', ',', ';', ':']);
            (trimmed.to_string(), ends_clause)
        })
        .collect()
}

/// An order id: a letter and 3 to 6 digits ("A1001").
pub(super) fn is_order_id(tok: &Tok) -> bool {
    let mut chars = tok.text.chars();
    tok.kind == Kind::Word
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && (3..=6).contains(&chars.clone().count())
        && chars.all(|c| c.is_ascii_digit())
}

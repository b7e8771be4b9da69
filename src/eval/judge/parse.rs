//! Reading the judge's replies. ADK's own parsers come first and are reproduced exactly (its
//! regular expressions, its labels), so a reply ADK can read gets ADK's score; where ADK would
//! find nothing, a tolerant reading (case, markdown, fences, JSON inside prose) takes over. A
//! reply nobody can read is an `Err` saying why, never a score.

use serde_json::Value;
use unicode_normalization::UnicodeNormalization;

// ---------------------------------------------------------------------------------------------
// Yes / no

/// A yes/no reply: its first word, else the word after the last "answer"/"verdict", else the
/// first word of its last line, else the only one of "yes" and "no" it contains.
pub(super) fn yes_no(reply: &str) -> Result<bool, String> {
    let verdict = |word: &str| match word {
        "yes" => Some(true),
        "no" => Some(false),
        _ => None,
    };
    let all = words(reply);
    if let Some(found) = all.first().and_then(|w| verdict(w)) {
        return Ok(found);
    }
    let labelled = all.windows(2).rev().find_map(|pair| {
        matches!(pair[0].as_str(), "answer" | "verdict")
            .then(|| verdict(&pair[1]))
            .flatten()
    });
    if let Some(found) = labelled {
        return Ok(found);
    }
    let last_line = reply.lines().rev().find(|line| !words(line).is_empty());
    if let Some(found) = last_line.and_then(|line| words(line).first().and_then(|w| verdict(w))) {
        return Ok(found);
    }
    match (all.iter().any(|w| w == "yes"), all.iter().any(|w| w == "no")) {
        (true, false) => Ok(true),
        (false, true) => Ok(false),
        (true, true) => Err("the judge's reply says both yes and no".into()),
        (false, false) => Err("the judge's reply was neither yes nor no".into()),
    }
}

/// Lowercase words (letters and digits), so markdown, quotes and punctuation fall away.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// {score, feedback}

/// A scored reply: the score normalised from `range` to 0..1, and the feedback if given.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ScoredReply {
    pub score: f64,
    pub feedback: Option<String>,
}

/// A `{"score": …, "feedback": …}` reply, the object possibly inside prose or a code fence, its
/// score a number or a numeric string (`"0.8"`, `"80%"`); a reply that is only a number counts.
pub(super) fn score_json(reply: &str, range: (f64, f64)) -> Result<ScoredReply, String> {
    let (score, feedback) = match json_values(reply).iter().find_map(scored_object) {
        Some(found) => found,
        None => {
            let bare = Value::String(strip_decoration(reply));
            if number(&bare).is_none() {
                return Err("the judge's reply has no JSON object with a \"score\"".into());
            }
            (bare, None)
        }
    };
    let Some(raw) = number(&score) else {
        return Err(format!("the judge's score {score} is not a number"));
    };
    let (low, high) = range;
    if !(low..=high).contains(&raw) {
        return Err(format!("the judge's score {raw} is outside {low} to {high}"));
    }
    Ok(ScoredReply {
        score: (raw - low) / (high - low),
        feedback,
    })
}

/// The score and feedback of an object with a `score` key (any case), or of the first object
/// nested in it that has one (`{"evaluation": {"score": …}}`).
fn scored_object(value: &Value) -> Option<(Value, Option<String>)> {
    let object = value.as_object()?;
    let key = |names: &[&str]| {
        object
            .iter()
            .find(|(k, v)| names.contains(&k.to_lowercase().as_str()) && !v.is_null())
            .map(|(_, v)| v.clone())
    };
    match key(&["score", "rating"]) {
        Some(score) => {
            let feedback = key(&["feedback", "reasoning", "reason", "explanation"]).map(|v| match v {
                Value::String(text) => text,
                other => other.to_string(),
            });
            Some((score, feedback))
        }
        None => object.values().find_map(scored_object),
    }
}

fn number(value: &Value) -> Option<f64> {
    let n = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(text) => {
            let text = text.trim();
            match text.strip_suffix('%') {
                Some(percent) => percent.trim().parse::<f64>().ok()? / 100.0,
                None => text.parse().ok()?,
            }
        }
        _ => return None,
    };
    n.is_finite().then_some(n)
}

/// The reply without code fences, markdown emphasis, quotes and surrounding punctuation.
fn strip_decoration(reply: &str) -> String {
    let no_fences: String = reply
        .lines()
        .filter(|line| !line.trim_start().starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n");
    no_fences
        .trim()
        .trim_matches(|c: char| "*_`\"'.,;:!".contains(c) || c.is_whitespace())
        .to_string()
}

/// Every JSON object or array that starts in the reply, in order of where it starts. Code
/// fences need no special case: the value inside one is found where it starts.
pub(super) fn json_values(reply: &str) -> Vec<Value> {
    let mut values = Vec::new();
    let mut covered_until = 0;
    for (index, c) in reply.char_indices() {
        if index < covered_until || (c != '{' && c != '[') {
            continue;
        }
        let mut stream = serde_json::Deserializer::from_str(&reply[index..]).into_iter::<Value>();
        if let Some(Ok(value)) = stream.next() {
            covered_until = index + stream.byte_offset();
            values.push(value);
        }
    }
    values
}

// ---------------------------------------------------------------------------------------------
// Statements (claims) lists

/// A list of statements: a JSON array of strings (or an object holding one), else the items of
/// a bulleted or numbered list. An empty JSON array is an empty list.
pub(super) fn statements(reply: &str) -> Result<Vec<String>, String> {
    let strings = |value: &Value| -> Option<Vec<String>> {
        let items = value.as_array()?;
        items
            .iter()
            .map(|item| item.as_str().map(|s| s.trim().to_string()))
            .collect::<Option<Vec<_>>>()
            .map(|list| list.into_iter().filter(|s| !s.is_empty()).collect())
    };
    for value in json_values(reply) {
        if let Some(list) = strings(&value) {
            return Ok(list);
        }
        if let Some(list) = value.as_object().and_then(|o| o.values().find_map(strings)) {
            return Ok(list);
        }
    }
    let listed: Vec<String> = reply.lines().filter_map(list_item).collect();
    if listed.is_empty() {
        Err("the judge's reply is neither a JSON list of statements nor a bulleted list".into())
    } else {
        Ok(listed)
    }
}

/// The text of a `- item`, `* item`, `• item` or `1. item` line.
fn list_item(line: &str) -> Option<String> {
    let line = line.trim();
    let rest = ["- ", "* ", "• "]
        .iter()
        .find_map(|bullet| line.strip_prefix(bullet))
        .or_else(|| {
            let digits = line.find(|c: char| !c.is_ascii_digit())?;
            (digits > 0)
                .then(|| {
                    line[digits..]
                        .strip_prefix(". ")
                        .or_else(|| line[digits..].strip_prefix(") "))
                })
                .flatten()
        })?;
    let rest = rest.trim().trim_matches('"').trim();
    (!rest.is_empty()).then(|| rest.to_string())
}

// ---------------------------------------------------------------------------------------------
// ADK final_response_match_v2

/// ADK's `Label` for `final_response_match_v2`: the judge's verdict on one sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Validity {
    Valid,
    Invalid,
}

/// ADK's `_parse_critique`; when it finds no label, a tolerant reading of the same field (any
/// case, quotes or markdown) or of a reply that is only the label. The `bool` says whether ADK's
/// own parser read it.
pub(super) fn validity(reply: &str) -> Result<(Validity, bool), String> {
    if let Some(label) = adk_critique(reply) {
        return Ok((label, true));
    }
    let lower = reply.to_lowercase();
    let field_value = lower.find("is_the_agent_response_valid").and_then(|at| {
        let after = &lower[at + "is_the_agent_response_valid".len()..];
        let after = &after[after.find(':')? + 1..];
        words(after).into_iter().next()
    });
    let word = field_value.or_else(|| {
        let words = words(reply);
        (words.len() == 1).then(|| words[0].clone())
    });
    match word.as_deref() {
        Some("valid" | "true") => Ok((Validity::Valid, false)),
        Some("invalid" | "false" | "almost" | "partially") => Ok((Validity::Invalid, false)),
        _ => Err("the judge's reply has no \"is_the_agent_response_valid\" label".into()),
    }
}

/// `_parse_critique` of google-adk's `final_response_match_v2.py`, its two regular expressions
/// run by [`tail_match`]; None is ADK's `Label.NOT_FOUND`.
fn adk_critique(reply: &str) -> Option<Validity> {
    if let Some(label) = critique_label(reply, "\"is_the_agent_response_valid\":") {
        let label = label.trim().trim_end_matches([',', '}']);
        return match label {
            "invalid" | "almost" | "false" | "partially_valid" | "partially valid" | "partially" => {
                Some(Validity::Invalid)
            }
            "valid" | "true" => Some(Validity::Valid),
            _ => None,
        };
    }
    let label = critique_label(reply, "\"is_the_agent_response_invalid\":")?;
    let label = label.trim().trim_end_matches([',', '}']);
    Some(if matches!(label, "true" | "invalid") {
        Validity::Invalid
    } else {
        Validity::Valid
    })
}

/// The group of `re.search(field + r'\s*\[*[\n\s]*"*([^"^\]^\s]*)"*[\n\s]*\]*\s*[,\n\}]', reply)`.
/// Only the first [`CRITIQUE_WINDOW`] characters after each field name are looked at: a label
/// ends within a few, and the window bounds the work on degenerate replies (Python's own `re`
/// takes minutes on a few thousand spaces there).
fn critique_label(reply: &str, field: &str) -> Option<String> {
    reply.match_indices(field).find_map(|(at, _)| {
        let window: Vec<char> = reply[at + field.len()..].chars().take(CRITIQUE_WINDOW).collect();
        let (start, end) = tail_match(&window)?;
        Some(window[start..end].iter().collect())
    })
}

const CRITIQUE_WINDOW: usize = 2000;

/// One step of the critique pattern: a character class, repeated (`*`) or once.
struct Step {
    class: fn(char) -> bool,
    repeated: bool,
}

/// The part of the critique pattern after the field name, with the label as step 4.
const CRITIQUE_TAIL: [Step; 10] = [
    Step {
        class: char::is_whitespace,
        repeated: true,
    },
    Step {
        class: |c| c == '[',
        repeated: true,
    },
    Step {
        class: char::is_whitespace,
        repeated: true,
    },
    Step {
        class: |c| c == '"',
        repeated: true,
    },
    Step {
        class: |c| !matches!(c, '"' | '^' | ']') && !c.is_whitespace(),
        repeated: true,
    },
    Step {
        class: |c| c == '"',
        repeated: true,
    },
    Step {
        class: char::is_whitespace,
        repeated: true,
    },
    Step {
        class: |c| c == ']',
        repeated: true,
    },
    Step {
        class: char::is_whitespace,
        repeated: true,
    },
    Step {
        class: |c| matches!(c, ',' | '\n' | '}'),
        repeated: false,
    },
];
const LABEL_STEP: usize = 4;

/// Matches [`CRITIQUE_TAIL`] at the start of `chars` as Python's backtracking `re` does (greedy,
/// first success wins) and returns the label's span. Failed (step, position) pairs are
/// remembered, so no state is explored twice.
fn tail_match(chars: &[char]) -> Option<(usize, usize)> {
    struct Search<'a> {
        chars: &'a [char],
        failed: Vec<bool>,
        label: (usize, usize),
    }
    impl Search<'_> {
        fn go(&mut self, step: usize, at: usize) -> bool {
            let Some(current) = CRITIQUE_TAIL.get(step) else {
                return true;
            };
            let state = step * (self.chars.len() + 1) + at;
            if self.failed[state] {
                return false;
            }
            let matches = |i: usize| self.chars.get(i).is_some_and(|c| (current.class)(*c));
            let found = if current.repeated {
                let mut end = at;
                while matches(end) {
                    end += 1;
                }
                (at..=end).rev().any(|stop| {
                    let ok = self.go(step + 1, stop);
                    if ok && step == LABEL_STEP {
                        self.label = (at, stop);
                    }
                    ok
                })
            } else {
                matches(at) && self.go(step + 1, at + 1)
            };
            self.failed[state] = !found;
            found
        }
    }
    let mut search = Search {
        chars,
        failed: vec![false; CRITIQUE_TAIL.len() * (chars.len() + 1)],
        label: (0, 0),
    };
    search.go(0, 0).then_some(search.label)
}

// ---------------------------------------------------------------------------------------------
// ADK rubric verdicts

/// One property the judge gave a verdict on (ADK's `RubricResponse`).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RubricVerdict {
    pub rubric_id: Option<String>,
    pub property: String,
    pub rationale: String,
    /// 1.0 yes, 0.0 no, None neither.
    pub score: Option<f64>,
}

/// ADK's `DefaultAutoRaterResponseParser.parse`; if it reads nothing, the same parse of the
/// reply with markdown emphasis (`**`, `__`) removed. Empty when the counts of properties,
/// rationales and verdicts disagree (ADK: a partial parse could hide a failed rubric).
pub(super) fn rubric_verdicts(reply: &str) -> Vec<RubricVerdict> {
    let verdicts = adk_rubric_verdicts(reply);
    if !verdicts.is_empty() {
        return verdicts;
    }
    adk_rubric_verdicts(&reply.replace("**", "").replace("__", ""))
}

fn adk_rubric_verdicts(reply: &str) -> Vec<RubricVerdict> {
    let properties = line_fields(reply, "Property: ");
    let ids = line_fields(reply, "ID: ");
    let rationales = inline_fields(reply, "Rationale: ");
    let scores: Vec<Option<f64>> = inline_fields(reply, "Verdict: ")
        .into_iter()
        .map(|verdict| {
            let verdict = verdict.to_lowercase();
            if verdict.contains("yes") {
                Some(1.0)
            } else if verdict.contains("no") {
                Some(0.0)
            } else {
                None
            }
        })
        .collect();
    if properties.len() != rationales.len() || rationales.len() != scores.len() {
        return Vec::new();
    }
    properties
        .iter()
        .enumerate()
        .map(|(i, (start, property))| {
            // The id is the one right before this property (not the i-th), as ADK matches them.
            let previous = if i > 0 { Some(properties[i - 1].0) } else { None };
            let rubric_id = ids
                .iter()
                .rev()
                .find(|(at, _)| previous.is_none_or(|p| p < *at) && at < start)
                .and_then(|(_, id)| Some(id.trim()).filter(|id| !id.is_empty()))
                .map(str::to_string);
            RubricVerdict {
                rubric_id,
                property: property.trim().to_string(),
                rationale: rationales[i].trim().to_string(),
                score: scores[i],
            }
        })
        .collect()
}

/// `re.finditer(r"(?m)^\s*KEY(.*)$")`: (match start, rest of the line) for each line that starts
/// with `key` after whitespace. A match starts at the first line of the whitespace before it,
/// as `^\s*` may span blank lines.
fn line_fields<'a>(text: &'a str, key: &str) -> Vec<(usize, &'a str)> {
    let mut found = Vec::new();
    let mut line_start = 0;
    // Where the current run of whitespace, begun at a line start, began.
    let mut run_start: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let content = body.trim_start();
        let start = run_start.unwrap_or(line_start);
        if let Some(rest) = content.strip_prefix(key) {
            found.push((start, rest));
            run_start = None;
        } else if content.is_empty() {
            run_start = Some(start);
        } else {
            run_start = None;
        }
        line_start += line.len();
    }
    found
}

/// `re.findall(r"(?<=KEY)(.*)")`: the rest of the line after each occurrence of `key`.
fn inline_fields<'a>(text: &'a str, key: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(key) {
        let start = from + at + key.len();
        let end = text[start..].find('\n').map_or(text.len(), |n| start + n);
        found.push(&text[start..end]);
        // `.*` took the rest of the line; the next search starts after it.
        from = end;
    }
    found
}

/// ADK's `_normalize_text` for matching a property the judge echoed to a rubric's text: NFKC,
/// typographic quotes and dashes made plain, whitespace collapsed, decoration stripped, lowercase.
pub(super) fn normalize_property(text: &str) -> String {
    let plain: String = text
        .nfkc()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201c}' | '\u{201d}' => '"',
            '\u{2013}' | '\u{2014}' => '-',
            other => other,
        })
        .collect();
    plain
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_matches(|c: char| " *_`#>-\u{2022}\"'".contains(c))
        .to_lowercase()
}

/// Python's `str.strip()`.
pub(super) fn python_strip(text: &str) -> &str {
    text.trim_matches(python_space)
}

/// Python's `str.isspace()` (and its regexes' `\s`): Unicode whitespace, and the four
/// separators Python counts as whitespace that Unicode does not.
pub(super) fn python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

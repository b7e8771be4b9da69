//! The built-in `demo` agent: a rule-based planner that calls the real demo tools and answers from
//! their results. No model, no network, no randomness: the same conversation always produces the
//! same events (apart from measured durations), which makes it a fair baseline for evals.

use std::time::{Duration, Instant};

use futures::stream::{self, BoxStream, StreamExt};
use serde_json::{Map, Value};

use super::tools::{city_names, fmt_num, fold, num_value, USD_PER_UNIT};
use super::{Agent, AgentEvent, SessionContext, ToolRegistry, Turn};

const CAPABILITIES: &str =
    "I can check the weather, convert currencies, look up orders, search the help center and do arithmetic.";

/// Faults the demo agent can simulate, so a runner's timeouts and error handling can be tested
/// without a flaky network. The default simulates none.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DemoFaults {
    /// Delay before each turn is answered.
    pub latency_ms: u64,
    /// Fraction of turns, in [0, 1], that fail with an `Error` event. Which turns fail depends only
    /// on the message and the history length, so a rerun fails the same turns.
    pub error_rate: f64,
}

#[derive(Debug)]
pub struct DemoAgent {
    tools: ToolRegistry,
    faults: DemoFaults,
}

impl Default for DemoAgent {
    fn default() -> Self {
        Self::new()
    }
}

impl DemoAgent {
    pub fn new() -> Self {
        Self::with_faults(DemoFaults::default())
    }

    pub fn with_faults(faults: DemoFaults) -> Self {
        Self {
            tools: ToolRegistry::demo(),
            faults,
        }
    }

    pub fn faults(&self) -> DemoFaults {
        self.faults
    }

    /// The tools this agent calls (the same ones an LLM agent could be offered).
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    async fn turn(&self, history: &[Turn], message: &str) -> Vec<AgentEvent> {
        // The demo's "model call" is its injected latency (its rules take no measurable time).
        let thinking = Instant::now();
        if self.faults.latency_ms > 0 {
            tokio::time::sleep(Duration::from_millis(self.faults.latency_ms)).await;
        }
        let model_call = AgentEvent::ModelCall {
            duration_ms: thinking.elapsed().as_millis() as u64,
        };
        if fault_roll(message, history.len()) < self.faults.error_rate {
            return vec![AgentEvent::Error {
                message: format!(
                    "demo agent: injected fault (error_rate {})",
                    self.faults.error_rate
                ),
            }];
        }

        let mut events = Vec::new();
        let mut answer = Vec::new();
        let mut prompt_words = history
            .iter()
            .map(|t| words(&t.user) + t.final_response().map_or(0, words))
            .sum::<usize>()
            + words(message);
        let mut completion_words = 0;
        match plan(history, message) {
            Plan::Reply(text) => answer.push(text),
            Plan::Calls(calls) => {
                for (n, call) in calls.into_iter().enumerate() {
                    let id = format!("call_{}_{n}", history.len());
                    completion_words += words(&Value::Object(call.args.clone()).to_string());
                    events.push(AgentEvent::ToolCall {
                        id: id.clone(),
                        name: call.name.to_string(),
                        args: call.args.clone(),
                    });
                    let started = Instant::now();
                    let result = match self.tools.get(call.name) {
                        Some(tool) => tool.call(&call.args).await,
                        None => Err(format!("unknown tool \"{}\"", call.name)),
                    };
                    let duration_ms = started.elapsed().as_millis() as u64;
                    let response = match &result {
                        Ok(map) => map.clone(),
                        Err(message) => {
                            let mut map = Map::new();
                            map.insert("error".into(), Value::String(message.clone()));
                            map
                        }
                    };
                    prompt_words += words(&Value::Object(response.clone()).to_string());
                    events.push(AgentEvent::ToolResult {
                        id,
                        name: call.name.to_string(),
                        response,
                        duration_ms,
                    });
                    answer.push(describe(call.name, &call.args, &result));
                }
            }
        }

        let text = answer.join(" ");
        completion_words += words(&text);
        events.extend(
            chunks(&text)
                .into_iter()
                .map(|text| AgentEvent::TextDelta { text }),
        );
        events.push(AgentEvent::FinalResponse { text });
        events.push(model_call);
        events.push(AgentEvent::Usage {
            prompt_tokens: estimate_tokens(prompt_words),
            completion_tokens: estimate_tokens(completion_words),
        });
        events
    }
}

impl Agent for DemoAgent {
    fn run_turn<'a>(
        &'a self,
        _session: SessionContext<'a>,
        history: &'a [Turn],
        message: &'a str,
    ) -> BoxStream<'a, AgentEvent> {
        // The tools answer instantly, so buffering a turn's events changes only their timing.
        stream::once(self.turn(history, message))
            .flat_map(stream::iter)
            .boxed()
    }
}

// ---------------------------------------------------------------------------------------------
// Streaming and accounting helpers

/// Splits on word boundaries, three words per chunk; the chunks concatenate to `text` exactly.
fn chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for (i, word) in text.split_inclusive(' ').enumerate() {
        current.push_str(word);
        if i % 3 == 2 {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

/// About 4 tokens per 3 words, as for English text with common tokenizers.
fn estimate_tokens(words: usize) -> u64 {
    (words as u64 * 4 + 1) / 3
}

/// Maps (message, history length) to [0, 1) with FNV-1a and a final avalanche step.
fn fault_roll(message: &str, history_len: usize) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in message
        .bytes()
        .chain([0xff])
        .chain((history_len as u64).to_le_bytes())
    {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    (h >> 11) as f64 / (1u64 << 53) as f64
}

// ---------------------------------------------------------------------------------------------
// Planning

struct Call {
    name: &'static str,
    args: Map<String, Value>,
}

enum Plan {
    Calls(Vec<Call>),
    /// An answer that needs no tool.
    Reply(String),
}

fn call(name: &'static str, args: &[(&str, Value)]) -> Call {
    Call {
        name,
        args: args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
    }
}

fn weather_call(city: &str) -> Call {
    call("get_weather", &[("city", Value::from(city))])
}

fn convert_call(amount: f64, from: &str, to: &str) -> Call {
    call(
        "convert_currency",
        &[
            ("amount", num_value(amount)),
            ("from", from.into()),
            ("to", to.into()),
        ],
    )
}

const WEATHER_WORDS: &[&str] = &[
    "weather",
    "temperature",
    "temperatures",
    "forecast",
    "rain",
    "raining",
    "rainy",
    "sunny",
    "cloudy",
    "humid",
    "humidity",
    "warm",
    "hot",
    "cold",
    "degrees",
];

const CONVERT_WORDS: &[&str] = &["convert", "conversion", "exchange"];

const CALC_WORDS: &[&str] = &["calculate", "compute", "evaluate", "solve"];

/// Words that make a message a help-center question.
const KB_WORDS: &[&str] = &[
    "account",
    "address",
    "cancel",
    "cancellation",
    "card",
    "cards",
    "contact",
    "coupon",
    "customs",
    "damaged",
    "data",
    "delete",
    "deletion",
    "deliver",
    "delivery",
    "discount",
    "duties",
    "email",
    "exchange",
    "exchanges",
    "gift",
    "hours",
    "international",
    "invoice",
    "invoices",
    "login",
    "loyalty",
    "newsletter",
    "open",
    "order",
    "orders",
    "password",
    "pay",
    "payment",
    "payments",
    "paypal",
    "phone",
    "points",
    "policy",
    "price",
    "privacy",
    "promo",
    "receipt",
    "receipts",
    "refund",
    "refunds",
    "return",
    "returns",
    "ship",
    "shipping",
    "store",
    "stores",
    "support",
    "track",
    "tracking",
    "unsubscribe",
    "vat",
    "voucher",
    "warranty",
    "wrong",
];

/// Help-center words that an order lookup or a conversion in the same message already answers.
const KB_WORDS_COVERED_BY_ORDER: &[&str] = &["order", "orders", "track", "tracking"];
const KB_WORDS_COVERED_BY_CONVERSION: &[&str] = &["exchange"];

const GREETINGS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "hi there",
    "hello there",
    "good morning",
    "help",
    "what can you do",
    "who are you",
];
const THANKS: &[&str] = &["thanks", "thank you", "thank you very much", "thx", "cheers"];

/// Three-letter words that are never meant as currency codes.
const NOT_CODES: &[&str] = &[
    "all", "and", "any", "are", "can", "for", "get", "how", "its", "now", "one", "our", "per", "the", "two",
    "was", "you",
];

/// Words that end a place name ("weather in Paris today", "in Oslo and ...").
const PLACE_STOPS: &[&str] = &[
    "and", "or", "today", "tomorrow", "tonight", "now", "right", "please", "like", "then", "there", "it",
    "that", "this",
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Word,
    Num(f64),
    Sym,
}

/// A token of the folded message; `start..end` are byte offsets into it.
#[derive(Debug, Clone, Copy)]
struct Tok<'t> {
    text: &'t str,
    kind: Kind,
    start: usize,
    end: usize,
}

impl Tok<'_> {
    fn is_word(&self, words: &[&str]) -> bool {
        self.kind == Kind::Word && words.contains(&self.text)
    }
}

fn lex(text: &str) -> Vec<Tok<'_>> {
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
fn currency_at(toks: &[Tok], i: usize) -> Option<(&'static str, usize)> {
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
fn unknown_code(tok: Option<&Tok>) -> Option<String> {
    let tok = tok?;
    let plausible = tok.kind == Kind::Word
        && tok.text.len() == 3
        && tok.text.chars().all(|c| c.is_ascii_alphabetic())
        && !NOT_CODES.contains(&tok.text);
    plausible.then(|| tok.text.to_ascii_uppercase())
}

struct Conversion {
    start: usize,
    end: usize,
    amount: f64,
    from: String,
    to: String,
}

/// "20 EUR in USD", "$20 to euros", "convert 5 swiss francs into yen".
fn find_conversions(toks: &[Tok], convert_asked: bool) -> Vec<Conversion> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut free_from = 0;
    while i < toks.len() {
        let Kind::Num(amount) = toks[i].kind else {
            i += 1;
            continue;
        };
        let source = if let Some((code, len)) = currency_at(toks, i + 1) {
            Some((code.to_string(), toks[i].start, i + 1 + len))
        } else if i > 0
            && toks[i - 1].start >= free_from
            && currency_at(toks, i - 1).is_some_and(|c| c.1 == 1)
        {
            currency_at(toks, i - 1).map(|(code, _)| (code.to_string(), toks[i - 1].start, i + 1))
        } else if convert_asked {
            unknown_code(toks.get(i + 1)).map(|code| (code, toks[i].start, i + 2))
        } else {
            None
        };
        let Some((from, start, after)) = source else {
            i += 1;
            continue;
        };
        if !toks
            .get(after)
            .is_some_and(|t| t.is_word(&["to", "in", "into", "as"]))
        {
            i += 1;
            continue;
        }
        let target = match currency_at(toks, after + 1) {
            Some((code, len)) => Some((code.to_string(), len)),
            None if convert_asked => unknown_code(toks.get(after + 1)).map(|code| (code, 1)),
            None => None,
        };
        let Some((to, len)) = target else {
            i += 1;
            continue;
        };
        let end = toks[after + len].end;
        out.push(Conversion {
            start,
            end,
            amount,
            from,
            to,
        });
        free_from = end;
        i = after + 1 + len;
    }
    out
}

/// Known cities named in the folded text: (byte offset, display name), first mention of each.
fn find_cities(text: &str) -> Vec<(usize, &'static str)> {
    let mut hits = Vec::new();
    for (key, name) in city_names() {
        for (pos, _) in text.match_indices(key.as_str()) {
            let end = pos + key.len();
            let bounded = text[..pos]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
                && text[end..].chars().next().is_none_or(|c| !c.is_alphanumeric());
            if bounded {
                hits.push((pos, end, name));
            }
        }
    }
    // Longest match first at each offset, so "new york city" wins over "new york".
    hits.sort_by_key(|h| (h.0, std::cmp::Reverse(h.1)));
    let mut out: Vec<(usize, &'static str)> = Vec::new();
    let mut covered = 0;
    for (pos, end, name) in hits {
        if pos >= covered && !out.iter().any(|o| o.1 == name) {
            out.push((pos, name));
        }
        covered = covered.max(end);
    }
    out
}

/// Words of the original message with surrounding punctuation removed, and whether a word ended a
/// clause (was followed by `?`, `,`, `.`...).
fn clean_words(message: &str) -> Vec<(String, bool)> {
    message
        .split_whitespace()
        .map(|w| {
            let trimmed = w.trim_matches(|c: char| !c.is_alphanumeric());
            let ends_clause = w.ends_with(['?', '!', '.', ',', ';', ':']);
            (trimmed.to_string(), ends_clause)
        })
        .collect()
}

/// The place named after the first of `markers` ("in", "for"...) that follows `after_word`:
/// "weather in Atlantis today" → "Atlantis". Keeps the user's spelling so errors quote it.
fn place_after(message: &str, after_word: usize, markers: &[&str]) -> Option<String> {
    let words = clean_words(message);
    let marker = (after_word..words.len()).find(|&k| markers.contains(&fold(&words[k].0).as_str()))?;
    let mut place: Vec<&str> = Vec::new();
    for (word, ends_clause) in words.iter().skip(marker + 1).take(4) {
        if word.is_empty() || PLACE_STOPS.contains(&fold(word).as_str()) {
            break;
        }
        place.push(word);
        if *ends_clause {
            break;
        }
    }
    (!place.is_empty()).then(|| place.join(" "))
}

/// Expressions in the folded text, skipping bytes other intents already claimed: (offset, text).
fn find_expressions(text: &str, claimed: &[(usize, usize)], calc_asked: bool) -> Vec<(usize, String)> {
    let is_expr_char = |c: char| {
        c.is_ascii_digit() || matches!(c, '.' | '+' | '-' | '*' | '/' | '^' | '(' | ')' | '×' | '÷' | ' ')
    };
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut start: Option<usize> = None;
    for (pos, c) in text.char_indices().chain([(text.len(), '\n')]) {
        let free = !claimed.iter().any(|&(s, e)| pos >= s && pos < e);
        if free && is_expr_char(c) {
            start.get_or_insert(pos);
        } else if let Some(s) = start.take() {
            runs.push((s, pos));
        }
    }
    runs.into_iter()
        .filter_map(|(s, e)| {
            let raw = &text[s..e];
            let expr = raw.trim();
            let offset = s + (raw.len() - raw.trim_start().len());
            // A binary operator follows a digit or ')'; "-5" or "+1 800" alone are not arithmetic.
            let mut has_binary_op = false;
            let mut prev = ' ';
            for c in expr.chars().filter(|c| !c.is_whitespace()) {
                if matches!(c, '+' | '-' | '*' | '/' | '^' | '×' | '÷')
                    && (prev.is_ascii_digit() || prev == ')')
                {
                    has_binary_op = true;
                }
                prev = c;
            }
            let has_digit = expr.chars().any(|c| c.is_ascii_digit());
            (has_digit && (has_binary_op || calc_asked)).then(|| (offset, expr.to_string()))
        })
        .collect()
}

/// The clause of the message that holds the help-center question, for multi-intent messages:
/// "weather in Paris and what is your return policy?" → "what is your return policy?".
fn kb_clause(message: &str, kb_words: &[&str]) -> String {
    let mut clauses: Vec<Vec<&str>> = vec![Vec::new()];
    for word in message.split_whitespace() {
        let clean = fold(word.trim_matches(|c: char| !c.is_alphanumeric()));
        if matches!(clean.as_str(), "and" | "also" | "then") {
            clauses.push(Vec::new());
            continue;
        }
        clauses.last_mut().unwrap().push(word);
        if word.ends_with(['?', '!', '.', ';']) {
            clauses.push(Vec::new());
        }
    }
    clauses
        .into_iter()
        .find(|clause| {
            clause
                .iter()
                .any(|w| kb_words.contains(&fold(w.trim_matches(|c: char| !c.is_alphanumeric())).as_str()))
        })
        .map(|clause| clause.join(" "))
        .unwrap_or_else(|| message.trim().to_string())
}

fn is_order_id(tok: &Tok) -> bool {
    let mut chars = tok.text.chars();
    tok.kind == Kind::Word
        && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && (3..=6).contains(&chars.clone().count())
        && chars.all(|c| c.is_ascii_digit())
}

fn plan(history: &[Turn], message: &str) -> Plan {
    let text = fold(message);
    let toks = lex(&text);
    let asked = |words: &[&str]| toks.iter().find(|t| t.is_word(words)).map(|t| t.start);

    let mut found: Vec<(usize, Call)> = Vec::new();
    let mut claimed: Vec<(usize, usize)> = Vec::new();

    let conversions = find_conversions(&toks, asked(CONVERT_WORDS).is_some());
    for c in &conversions {
        found.push((c.start, convert_call(c.amount, &c.from, &c.to)));
        claimed.push((c.start, c.end));
    }

    let mut ordered = false;
    for tok in toks.iter().filter(|t| is_order_id(t)) {
        found.push((
            tok.start,
            call(
                "get_order_status",
                &[("order_id", tok.text.to_ascii_uppercase().into())],
            ),
        ));
        claimed.push((tok.start, tok.end));
        ordered = true;
    }

    let mut weather_needs_city = false;
    if let Some(at) = asked(WEATHER_WORDS) {
        let cities = find_cities(&text);
        if cities.is_empty() {
            let keyword = clean_words(message)
                .iter()
                .position(|(w, _)| WEATHER_WORDS.contains(&fold(w).as_str()));
            match keyword.and_then(|k| place_after(message, k, &["in", "for", "at"])) {
                Some(place) => found.push((at, weather_call(&place))),
                None => weather_needs_city = true,
            }
        }
        for (pos, city) in cities {
            found.push((pos, weather_call(city)));
        }
    }

    for (pos, expr) in find_expressions(&text, &claimed, asked(CALC_WORDS).is_some()) {
        found.push((pos, call("calculate", &[("expression", expr.into())])));
    }

    let kb_words: Vec<&str> = KB_WORDS
        .iter()
        .copied()
        .filter(|w| !(ordered && KB_WORDS_COVERED_BY_ORDER.contains(w)))
        .filter(|w| conversions.is_empty() || !KB_WORDS_COVERED_BY_CONVERSION.contains(w))
        .collect();
    if let Some(at) = toks
        .iter()
        .find(|t| t.is_word(&kb_words) && !claimed.iter().any(|c| t.start >= c.0 && t.start < c.1))
        .map(|t| t.start)
    {
        let query = if found.is_empty() {
            message.trim().to_string()
        } else {
            kb_clause(message, &kb_words)
        };
        found.push((at, call("search_knowledge_base", &[("query", query.into())])));
    }

    if found.is_empty() {
        found = follow_ups(history, message, &text, &toks);
    }
    if !found.is_empty() {
        // Stable, so intents at the same offset keep detection order.
        found.sort_by_key(|f| f.0);
        return Plan::Calls(found.into_iter().map(|f| f.1).collect());
    }

    let phrase = toks
        .iter()
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.text)
        .collect::<Vec<_>>()
        .join(" ");
    Plan::Reply(if weather_needs_city {
        "Which city would you like the weather for? I know cities such as Paris, London, Tokyo and New York."
            .into()
    } else if GREETINGS.contains(&phrase.as_str()) {
        format!("Hi! {CAPABILITIES} Try \"What's the weather in Paris?\"")
    } else if THANKS.contains(&phrase.as_str()) {
        "You're welcome!".into()
    } else {
        format!("I can't help with that. {CAPABILITIES}")
    })
}

/// "And in London?" after asking for the weather, "and in GBP?" after a conversion: the most
/// recent such call in the conversation supplies the missing pieces. A known currency or city
/// says which kind of follow-up it is; otherwise the more recent of the two kinds wins.
fn follow_ups(history: &[Turn], message: &str, text: &str, toks: &[Tok]) -> Vec<(usize, Call)> {
    let mut last_weather: Option<usize> = None;
    let mut last_conversion: Option<(usize, &Map<String, Value>)> = None;
    for (index, event) in history.iter().flat_map(|t| &t.events).enumerate() {
        match event {
            AgentEvent::ToolCall { name, .. } if name == "get_weather" => last_weather = Some(index),
            AgentEvent::ToolCall { name, args, .. } if name == "convert_currency" => {
                last_conversion = Some((index, args))
            }
            _ => {}
        }
    }
    let conversion = last_conversion.and_then(|(index, args)| {
        let amount = args.get("amount").and_then(Value::as_f64)?;
        let from = args.get("from").and_then(Value::as_str)?;
        Some((index, amount, from))
    });
    let mut found: Vec<(usize, Call)> = Vec::new();

    if let Some((_, amount, from)) = conversion {
        let mut i = 0;
        while i < toks.len() {
            match currency_at(toks, i) {
                Some((code, len)) => {
                    if !found
                        .iter()
                        .any(|(_, c)| c.args.get("to") == Some(&Value::from(code)))
                    {
                        found.push((toks[i].start, convert_call(amount, from, code)));
                    }
                    i += len;
                }
                None => i += 1,
            }
        }
    }
    if found.is_empty() && last_weather.is_some() {
        found.extend(
            find_cities(text)
                .into_iter()
                .map(|(pos, city)| (pos, weather_call(city))),
        );
    }
    if !found.is_empty() {
        return found;
    }

    // Nothing known was named: an unsupported code or an unknown city, so the tool can say so.
    let conversion_is_latest = match (conversion, last_weather) {
        (Some((c, _, _)), Some(w)) => c > w,
        (conversion, _) => conversion.is_some(),
    };
    let unknown_code_call = || {
        let (_, amount, from) = conversion?;
        let marker = toks.iter().position(|t| t.is_word(&["in", "to", "into"]))?;
        let code = unknown_code(toks.get(marker + 1))?;
        Some((toks[marker + 1].start, convert_call(amount, from, &code)))
    };
    let unknown_city_call = || {
        last_weather?;
        let lead: Vec<String> = clean_words(message)
            .iter()
            .take(2)
            .map(|(w, _)| fold(w))
            .collect();
        let lead: Vec<&str> = lead.iter().map(String::as_str).collect();
        if !matches!(lead.as_slice(), ["and", ..] | ["what" | "how", "about"]) {
            return None;
        }
        place_after(message, 0, &["in", "for", "about"]).map(|place| (0, weather_call(&place)))
    };
    let unknown = if conversion_is_latest {
        unknown_code_call().or_else(unknown_city_call)
    } else {
        unknown_city_call().or_else(unknown_code_call)
    };
    found.extend(unknown);
    found
}

// ---------------------------------------------------------------------------------------------
// Answering

fn text_of(map: &Map<String, Value>, key: &str) -> String {
    match map.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.as_f64().map_or_else(|| n.to_string(), fmt_num),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// One sentence (or passage) per tool call, from the tool's actual result.
fn describe(tool: &str, args: &Map<String, Value>, result: &Result<Map<String, Value>, String>) -> String {
    let r = match result {
        Ok(r) => r,
        Err(error) => {
            let what = match tool {
                "get_weather" => format!("get the weather for {}", text_of(args, "city")),
                "convert_currency" => format!(
                    "convert {} {} to {}",
                    text_of(args, "amount"),
                    text_of(args, "from"),
                    text_of(args, "to")
                ),
                "get_order_status" => format!("look up order {}", text_of(args, "order_id")),
                "calculate" => format!("calculate {}", text_of(args, "expression")),
                "search_knowledge_base" => "search the help center".to_string(),
                other => format!("use {other}"),
            };
            return format!("Sorry, I couldn't {what}: {error}.");
        }
    };
    match tool {
        "get_weather" => format!(
            "It is {} °C and {} in {}.",
            text_of(r, "temperature_c"),
            text_of(r, "condition"),
            text_of(r, "city")
        ),
        "convert_currency" => format!(
            "{} {} is {:.2} {}.",
            text_of(r, "amount"),
            text_of(r, "from"),
            r.get("converted").and_then(Value::as_f64).unwrap_or_default(),
            text_of(r, "to")
        ),
        "get_order_status" => describe_order(r),
        "calculate" => format!("{} = {}.", text_of(r, "expression"), text_of(r, "result")),
        "search_knowledge_base" => {
            let top = r
                .get("results")
                .and_then(Value::as_array)
                .and_then(|results| results.first());
            match top.and_then(Value::as_object) {
                Some(doc) => format!(
                    "According to our help center article \"{}\": {}",
                    text_of(doc, "title"),
                    text_of(doc, "text")
                ),
                None => "I couldn't find anything about that in our help center.".to_string(),
            }
        }
        other => format!("{other} returned {}.", Value::Object(r.clone())),
    }
}

fn describe_order(r: &Map<String, Value>) -> String {
    let id = text_of(r, "order_id");
    let status = text_of(r, "status");
    let carrier = r.get("carrier").and_then(Value::as_str);
    let eta = r.get("eta").and_then(Value::as_str);
    let mut sentence = match status.as_str() {
        "processing" => format!("Order {id} is being processed"),
        "shipped" => format!("Order {id} has shipped"),
        "delivered" | "cancelled" | "returned" => format!("Order {id} was {status}"),
        _ => format!("Order {id} is {status}"),
    };
    if let Some(carrier) = carrier {
        let preposition = match status.as_str() {
            "delivered" => "by",
            "returned" => "via",
            _ => "with",
        };
        sentence.push_str(&format!(" {preposition} {carrier}"));
    }
    if let Some(eta) = eta {
        if status == "delivered" {
            sentence.push_str(&format!(" on {eta}"));
        } else {
            sentence.push_str(&format!(" and should arrive by {eta}"));
        }
    }
    sentence.push('.');
    sentence
}

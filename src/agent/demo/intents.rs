//! The demo agent's planner: which tools a message asks for, with which arguments, in the order
//! the message mentions them (weather, currency conversions, orders, arithmetic, the help
//! center), follow-ups that reuse the previous turn's call ("and in London?"), or a reply that
//! needs no tool.

use serde_json::{Map, Value};

use super::lex::{clean_words, currency_at, is_order_id, lex, unknown_code, Kind, Tok};
use crate::agent::tools::weather::city_names;
use crate::agent::tools::{fold, num_value};
use crate::agent::{AgentEvent, Turn};

/// One tool call of the plan.
pub(super) struct Call {
    pub name: &'static str,
    pub args: Map<String, Value>,
}

pub(super) enum Plan {
    Calls(Vec<Call>),
    /// An answer that needs no tool.
    Reply(Reply),
}

/// The answers without a tool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Reply {
    /// The weather was asked for without a place.
    WhichCity,
    Greeting,
    Thanks,
    /// Nothing the demo agent can do.
    CannotHelp,
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

/// Words that end a place name ("weather in Paris today", "in Oslo and ...").
const PLACE_STOPS: &[&str] = &[
    "and", "or", "today", "tomorrow", "tonight", "now", "right", "please", "like", "then", "there", "it",
    "that", "this",
];
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

/// What to do about `message`, given the conversation so far.
pub(super) fn plan(history: &[Turn], message: &str) -> Plan {
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
        Reply::WhichCity
    } else if GREETINGS.contains(&phrase.as_str()) {
        Reply::Greeting
    } else if THANKS.contains(&phrase.as_str()) {
        Reply::Thanks
    } else {
        Reply::CannotHelp
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

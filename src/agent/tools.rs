//! The demo agent's five tools. Each is a pure, deterministic function over bundled data (so
//! evals of the demo agent are reproducible) wrapped in a [`Tool`] that reads JSON arguments.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use futures::future::{self, BoxFuture, FutureExt};
use serde_json::{json, Map, Value};

use super::knowledge::{Doc, DOCS};
use super::Tool;

// ---------------------------------------------------------------------------------------------
// Shared helpers

/// Lowercases and strips common Latin accents, so "São Paulo", "SAO PAULO" and "sao paulo" meet.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' => out.push('a'),
            'ç' | 'ć' | 'č' => out.push('c'),
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ę' | 'ě' => out.push('e'),
            'ì' | 'í' | 'î' | 'ï' | 'ī' => out.push('i'),
            'ñ' | 'ń' | 'ň' => out.push('n'),
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => out.push('o'),
            'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => out.push('u'),
            'ý' | 'ÿ' => out.push('y'),
            'ś' | 'š' => out.push('s'),
            'ź' | 'ż' | 'ž' => out.push('z'),
            'ł' => out.push('l'),
            'ř' => out.push('r'),
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            'œ' => out.push_str("oe"),
            _ => out.push(c),
        }
    }
    out
}

/// Whole numbers become JSON integers so `20` is not echoed back as `20.0`.
pub(crate) fn num_value(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// Formats a number for people: no trailing `.0`, at most 10 decimals (hides 0.1 + 0.2 noise).
pub(crate) fn fmt_num(x: f64) -> String {
    let x = round_to(x, 10);
    if x.fract() == 0.0 && x.abs() < 1.0e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn round_to(x: f64, decimals: usize) -> f64 {
    // Going through the decimal string avoids overflow of `x * 10^n` for large x.
    format!("{x:.decimals$}").parse().unwrap_or(x)
}

fn str_arg<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match args.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim()),
        Some(Value::String(_)) => Err(format!("argument \"{key}\" must not be empty")),
        Some(_) => Err(format!("argument \"{key}\" must be a string")),
        None => Err(format!("missing argument \"{key}\"")),
    }
}

fn ready(
    result: Result<Map<String, Value>, String>,
) -> BoxFuture<'static, Result<Map<String, Value>, String>> {
    future::ready(result).boxed()
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("tool results are built with json!({{..}})"),
    }
}

fn one_string_param(name: &str, description: &str) -> Value {
    json!({
        "type": "object",
        "properties": { name: { "type": "string", "description": description } },
        "required": [name],
    })
}

// ---------------------------------------------------------------------------------------------
// get_weather

/// (display name, temperature °C, condition, humidity %). Conditions are adjectives so they read
/// well in "It is 18 °C and cloudy in Paris".
pub const WEATHER: [(&str, i64, &str, i64); 18] = [
    ("Paris", 18, "cloudy", 72),
    ("London", 14, "rainy", 81),
    ("Berlin", 16, "partly cloudy", 64),
    ("Madrid", 27, "sunny", 35),
    ("Rome", 25, "sunny", 48),
    ("Zürich", 13, "rainy", 79),
    ("Reykjavík", 8, "windy", 76),
    ("Cairo", 34, "sunny", 20),
    ("Cape Town", 16, "clear", 60),
    ("Mumbai", 31, "humid", 88),
    ("Beijing", 26, "hazy", 45),
    ("Tokyo", 22, "clear", 60),
    ("Sydney", 19, "windy", 55),
    ("New York", 21, "partly cloudy", 58),
    ("San Francisco", 17, "foggy", 77),
    ("Toronto", 15, "overcast", 66),
    ("Mexico City", 20, "stormy", 70),
    ("São Paulo", 24, "rainy", 85),
];

/// Other names people use for the cities above, already folded.
const CITY_ALIASES: [(&str, &str); 3] = [
    ("nyc", "New York"),
    ("new york city", "New York"),
    ("sf", "San Francisco"),
];

/// Folds a city name for lookup: accents, case, punctuation and extra spaces don't matter, and
/// a trailing country ("Paris, France") is ignored.
pub fn city_key(city: &str) -> String {
    let city = city.split(',').next().unwrap_or(city);
    let folded: String = fold(city)
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The canonical display name of a known city, or `None`.
pub fn find_city(city: &str) -> Option<&'static str> {
    let key = city_key(city);
    WEATHER
        .iter()
        .map(|w| w.0)
        .find(|name| city_key(name) == key)
        .or_else(|| {
            CITY_ALIASES
                .iter()
                .find(|(alias, _)| *alias == key)
                .map(|(_, name)| *name)
        })
}

/// Every folded name (cities and aliases) with its display name, for the planner's scanning.
pub(crate) fn city_names() -> impl Iterator<Item = (String, &'static str)> {
    WEATHER.iter().map(|w| (city_key(w.0), w.0)).chain(
        CITY_ALIASES
            .iter()
            .map(|(alias, name)| (alias.to_string(), *name)),
    )
}

pub fn get_weather(city: &str) -> Result<Map<String, Value>, String> {
    let name = find_city(city).ok_or_else(|| {
        format!(
            "unknown city \"{city}\"; known cities are {}",
            WEATHER.iter().map(|w| w.0).collect::<Vec<_>>().join(", ")
        )
    })?;
    let (_, temperature, condition, humidity) = WEATHER.iter().find(|w| w.0 == name).copied().unwrap();
    Ok(object(json!({
        "city": name,
        "temperature_c": temperature,
        "condition": condition,
        "humidity_pct": humidity,
    })))
}

pub struct GetWeather;

impl Tool for GetWeather {
    fn name(&self) -> &str {
        "get_weather"
    }
    fn description(&self) -> &str {
        "Current weather (temperature in °C, condition, humidity) for a major world city."
    }
    fn parameters(&self) -> Value {
        one_string_param("city", "City name, e.g. \"Paris\" or \"São Paulo\".")
    }
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        ready(str_arg(args, "city").and_then(get_weather))
    }
}

// ---------------------------------------------------------------------------------------------
// convert_currency

/// US dollars per unit of each currency: a fixed snapshot, so conversions never change.
pub const USD_PER_UNIT: [(&str, f64); 16] = [
    ("USD", 1.0),
    ("EUR", 1.08),
    ("GBP", 1.27),
    ("JPY", 0.0067),
    ("CNY", 0.138),
    ("CHF", 1.13),
    ("CAD", 0.74),
    ("AUD", 0.66),
    ("INR", 0.012),
    ("MXN", 0.058),
    ("BRL", 0.2),
    ("KRW", 0.00075),
    ("SEK", 0.095),
    ("NZD", 0.61),
    ("SGD", 0.74),
    ("HKD", 0.128),
];

fn usd_per_unit(code: &str) -> Result<f64, String> {
    let upper = code.trim().to_ascii_uppercase();
    USD_PER_UNIT
        .iter()
        .find(|(c, _)| *c == upper)
        .map(|(_, rate)| *rate)
        .ok_or_else(|| {
            format!(
                "unknown currency code \"{code}\"; supported codes are {}",
                USD_PER_UNIT
                    .iter()
                    .map(|(c, _)| *c)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

pub fn convert_currency(amount: f64, from: &str, to: &str) -> Result<Map<String, Value>, String> {
    if !amount.is_finite() {
        return Err("amount must be a finite number".into());
    }
    if amount < 0.0 {
        return Err(format!("amount must not be negative (got {})", fmt_num(amount)));
    }
    let rate = usd_per_unit(from)? / usd_per_unit(to)?;
    let converted = amount * rate;
    if !converted.is_finite() {
        return Err("amount is too large to convert".into());
    }
    Ok(object(json!({
        "amount": num_value(amount),
        "from": from.trim().to_ascii_uppercase(),
        "to": to.trim().to_ascii_uppercase(),
        "rate": round_to(rate, 6),
        "converted": round_to(converted, 2),
    })))
}

/// Models sometimes send numbers as strings ("20"); accept those, reject anything else.
fn amount_arg(args: &Map<String, Value>) -> Result<f64, String> {
    match args.get("amount") {
        Some(Value::Number(n)) => n.as_f64().ok_or_else(|| "amount must be a number".to_string()),
        Some(Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("amount must be a number, got \"{s}\"")),
        Some(other) => Err(format!("amount must be a number, got {other}")),
        None => Err("missing argument \"amount\"".into()),
    }
}

pub struct ConvertCurrency;

impl Tool for ConvertCurrency {
    fn name(&self) -> &str {
        "convert_currency"
    }
    fn description(&self) -> &str {
        "Convert an amount between currencies (ISO 4217 codes such as USD, EUR, GBP, JPY) at fixed rates."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "amount": { "type": "number", "description": "Amount to convert; not negative." },
                "from": { "type": "string", "description": "ISO code of the source currency, e.g. \"EUR\"." },
                "to": { "type": "string", "description": "ISO code of the target currency, e.g. \"USD\"." },
            },
            "required": ["amount", "from", "to"],
        })
    }
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        let result = (|| convert_currency(amount_arg(args)?, str_arg(args, "from")?, str_arg(args, "to")?))();
        ready(result)
    }
}

// ---------------------------------------------------------------------------------------------
// get_order_status

/// (order id, status, carrier, ETA or delivery date).
pub const ORDERS: [(&str, &str, Option<&str>, Option<&str>); 10] = [
    ("A1001", "processing", Some("UPS"), Some("2025-07-08")),
    ("A1002", "shipped", Some("FedEx"), Some("2025-07-03")),
    ("A1003", "in transit", Some("DHL"), Some("2025-07-02")),
    ("A1004", "out for delivery", Some("USPS"), Some("2025-06-30")),
    ("A1005", "delivered", Some("UPS"), Some("2025-06-27")),
    ("A1006", "cancelled", None, None),
    ("A1007", "delayed", Some("DHL"), Some("2025-07-10")),
    ("A1008", "returned", Some("UPS"), None),
    ("A1009", "awaiting payment", None, None),
    ("A1010", "delivered", Some("FedEx"), Some("2025-06-25")),
];

/// "a1001", "#A1001" and " A1001 " all name order A1001.
pub fn normalize_order_id(id: &str) -> String {
    id.trim().trim_start_matches('#').trim().to_ascii_uppercase()
}

pub fn get_order_status(order_id: &str) -> Result<Map<String, Value>, String> {
    let id = normalize_order_id(order_id);
    let (id, status, carrier, eta) = ORDERS
        .iter()
        .find(|o| o.0 == id)
        .copied()
        .ok_or_else(|| format!("no order with id \"{order_id}\"; order ids look like A1001"))?;
    Ok(object(
        json!({ "order_id": id, "status": status, "carrier": carrier, "eta": eta }),
    ))
}

pub struct GetOrderStatus;

impl Tool for GetOrderStatus {
    fn name(&self) -> &str {
        "get_order_status"
    }
    fn description(&self) -> &str {
        "Status, carrier and estimated delivery date of a customer's order."
    }
    fn parameters(&self) -> Value {
        one_string_param("order_id", "Order number, e.g. \"A1001\".")
    }
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        ready(str_arg(args, "order_id").and_then(get_order_status))
    }
}

// ---------------------------------------------------------------------------------------------
// search_knowledge_base (BM25)

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

// ---------------------------------------------------------------------------------------------
// calculate

/// Why an expression could not be evaluated; `position` is the 1-based character index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalcError {
    pub message: String,
    pub position: usize,
}

impl fmt::Display for CalcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at position {}", self.message, self.position)
    }
}

impl std::error::Error for CalcError {}

/// Keeps hostile input like "((((...))))" from overflowing the stack.
const MAX_DEPTH: usize = 100;

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn err<T>(&self, message: impl Into<String>, at: usize) -> Result<T, CalcError> {
        Err(CalcError {
            message: message.into(),
            position: at + 1,
        })
    }

    fn peek(&mut self) -> Option<char> {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
        self.chars.get(self.pos).copied()
    }

    fn finite(&self, value: f64, at: usize) -> Result<f64, CalcError> {
        if value.is_finite() {
            Ok(value)
        } else {
            self.err("result is not a finite number", at)
        }
    }

    // expr := term (('+' | '-') term)*
    fn expr(&mut self) -> Result<f64, CalcError> {
        let mut value = self.term()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            let at = self.pos;
            self.pos += 1;
            let rhs = self.term()?;
            value = self.finite(if op == '+' { value + rhs } else { value - rhs }, at)?;
        }
        Ok(value)
    }

    // term := unary (('*' | '/') unary)*
    fn term(&mut self) -> Result<f64, CalcError> {
        let mut value = self.unary()?;
        while let Some(op @ ('*' | '/' | '×' | '÷')) = self.peek() {
            let at = self.pos;
            self.pos += 1;
            let rhs = self.unary()?;
            value = if matches!(op, '/' | '÷') {
                if rhs == 0.0 {
                    return self.err("division by zero", at);
                }
                self.finite(value / rhs, at)?
            } else {
                self.finite(value * rhs, at)?
            };
        }
        Ok(value)
    }

    // unary := ('-' | '+') unary | power      (so -2^2 = -(2^2), as in mathematics)
    fn unary(&mut self) -> Result<f64, CalcError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let at = self.pos;
            return self.err("expression is nested too deeply", at);
        }
        let value = match self.peek() {
            Some('-') => {
                self.pos += 1;
                -self.unary()?
            }
            Some('+') => {
                self.pos += 1;
                self.unary()?
            }
            _ => self.power()?,
        };
        self.depth -= 1;
        Ok(value)
    }

    // power := primary (('^' | '**') unary)?   (right-associative: 2^3^2 = 2^9)
    fn power(&mut self) -> Result<f64, CalcError> {
        let base = self.primary()?;
        let at = match self.peek() {
            Some('^') => {
                self.pos += 1;
                self.pos - 1
            }
            Some('*') if self.chars.get(self.pos + 1) == Some(&'*') => {
                self.pos += 2;
                self.pos - 2
            }
            _ => return Ok(base),
        };
        let exponent = self.unary()?;
        self.finite(base.powf(exponent), at)
    }

    // primary := number | '(' expr ')'
    fn primary(&mut self) -> Result<f64, CalcError> {
        match self.peek() {
            Some('(') => {
                let open = self.pos;
                self.pos += 1;
                let value = self.expr()?;
                match self.peek() {
                    Some(')') => {
                        self.pos += 1;
                        Ok(value)
                    }
                    Some(c) => {
                        let at = self.pos;
                        self.err(format!("expected ')' but found '{c}'"), at)
                    }
                    None => self.err("unclosed '('", open),
                }
            }
            Some(c) if c.is_ascii_digit() || c == '.' => {
                let start = self.pos;
                while self
                    .chars
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '.')
                {
                    self.pos += 1;
                }
                let text: String = self.chars[start..self.pos].iter().collect();
                match text.parse::<f64>() {
                    Ok(value) => Ok(value),
                    Err(_) => self.err(format!("malformed number \"{text}\""), start),
                }
            }
            Some(c) => {
                let at = self.pos;
                self.err(format!("unexpected '{c}'"), at)
            }
            None => self.err("unexpected end of expression", self.pos),
        }
    }
}

/// Evaluates `+ - * / ^` (also `**`, `×`, `÷`) with parentheses, unary minus and decimals.
pub fn evaluate(expression: &str) -> Result<f64, CalcError> {
    let mut parser = Parser {
        chars: expression.chars().collect(),
        pos: 0,
        depth: 0,
    };
    if parser.peek().is_none() {
        return parser.err("empty expression", 0);
    }
    let value = parser.expr()?;
    match parser.peek() {
        None => Ok(value),
        Some(c) => {
            let at = parser.pos;
            parser.err(format!("unexpected '{c}'"), at)
        }
    }
}

pub fn calculate(expression: &str) -> Result<Map<String, Value>, String> {
    let value = evaluate(expression).map_err(|e| e.to_string())?;
    // Rounding to 10 decimals keeps 0.1 + 0.2 from answering 0.30000000000000004.
    Ok(object(
        json!({ "expression": expression, "result": num_value(round_to(value, 10)) }),
    ))
}

pub struct Calculate;

impl Tool for Calculate {
    fn name(&self) -> &str {
        "calculate"
    }
    fn description(&self) -> &str {
        "Evaluate an arithmetic expression with + - * / ^, parentheses and decimals."
    }
    fn parameters(&self) -> Value {
        one_string_param(
            "expression",
            "Arithmetic expression, e.g. \"12*(3+4)\" or \"2^10\".",
        )
    }
    fn call<'a>(&'a self, args: &'a Map<String, Value>) -> BoxFuture<'a, Result<Map<String, Value>, String>> {
        ready(str_arg(args, "expression").and_then(calculate))
    }
}

//! `calculate`: arithmetic expressions, read by a recursive-descent parser.

use std::fmt;

use futures::future::BoxFuture;
use serde_json::{json, Map, Value};

use super::{num_value, object, one_string_param, ready, round_to, str_arg};
use crate::agent::Tool;

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

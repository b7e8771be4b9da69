//! What a source file names, read by syn rather than by matching its text: every path of its
//! `use` declarations (groups spread out, so `use std::{fs, io}` names `std::fs` and
//! `std::io`), of its code and its types, and the paths written inside macro calls, each with
//! its line. Test items (`#[cfg(test)]`) are left out. A path written from `crate`, `self` or
//! `super` is resolved from the crate's root, so `super::store::Store` in a top-level module is
//! seen as the crate's `store::Store`.

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};
use syn::{Attribute, Item, Meta, UseTree};

/// A path a file names, and the line it is written on.
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    pub path: Vec<String>,
    pub line: usize,
    /// Written from `crate`, `self` or `super`: one of the crate's own modules, `path` from
    /// its root.
    pub in_crate: bool,
}

impl Named {
    pub fn text(&self) -> String {
        self.path.join("::")
    }

    /// Whether this path names `name`: a path of several segments by its start (`std::fs`
    /// names `std::fs::read`), a single name anywhere in it (`StatusCode` in
    /// `axum::http::StatusCode`).
    pub fn names(&self, name: &str) -> bool {
        let wanted: Vec<&str> = name.split("::").collect();
        match wanted.as_slice() {
            [one] => self.path.iter().any(|segment| segment == one),
            several => {
                self.path.len() >= several.len()
                    && several.iter().zip(&self.path).all(|(want, have)| want == have)
            }
        }
    }
}

/// What a piece of code names as a file of `module` would: a file or items as they are, a
/// statement (as the checks' own tests write one) inside a function; or why neither parses.
pub fn code_names(code: &str, module: &[String]) -> Result<Vec<Named>, String> {
    names(code, module).or_else(|error| names(&format!("fn f() {{ {code} }}"), module).map_err(|_| error))
}

/// The paths `source` names, as the file of module `module` (`["eval", "score"]` for
/// src/eval/score.rs, empty for lib.rs); or where it does not parse.
pub fn names(source: &str, module: &[String]) -> Result<Vec<Named>, String> {
    let file = syn::parse_file(source).map_err(|e| format!("line {}: {e}", e.span().start().line))?;
    let mut collector = Collector {
        module: module.to_vec(),
        found: Vec::new(),
    };
    collector.visit_file(&file);
    Ok(collector.found)
}

struct Collector {
    /// The module being read: the file's, and an inline module's inside it.
    module: Vec<String>,
    found: Vec<Named>,
}

impl Collector {
    fn push(&mut self, segments: Vec<String>, line: usize) {
        let (path, in_crate) = self.resolve(segments);
        self.found.push(Named { path, line, in_crate });
    }

    fn resolve(&self, segments: Vec<String>) -> (Vec<String>, bool) {
        match segments.first().map(String::as_str) {
            Some("crate") => (segments[1..].to_vec(), true),
            Some("self" | "super") => {
                let mut path = self.module.clone();
                let mut rest = segments.as_slice();
                if rest.first().is_some_and(|s| s == "self") {
                    rest = &rest[1..];
                }
                while rest.first().is_some_and(|s| s == "super") {
                    path.pop();
                    rest = &rest[1..];
                }
                path.extend(rest.iter().cloned());
                (path, true)
            }
            _ => (segments, false),
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item(&mut self, item: &'ast Item) {
        if !is_test(attributes(item)) {
            visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.module.push(item.ident.to_string());
        visit::visit_item_mod(self, item);
        self.module.pop();
    }

    /// Each path of the tree, at the line the `use` starts (a group may span several).
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let line = item.use_token.span.start().line;
        let mut spread = Vec::new();
        spread_use(&item.tree, Vec::new(), &mut spread);
        for segments in spread {
            self.push(segments, line);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = path.segments.first().map_or(0, |s| s.ident.span().start().line);
        self.push(segments, line);
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        visit::visit_macro(self, mac);
        for (segments, line) in token_paths(mac.tokens.clone()) {
            self.push(segments, line);
        }
    }
}

/// Each path a `use` tree names.
fn spread_use(tree: &UseTree, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let with = |name: &syn::Ident| {
        let mut path = prefix.clone();
        if name != "self" {
            path.push(name.to_string());
        }
        path
    };
    match tree {
        UseTree::Path(part) => spread_use(&part.tree, with(&part.ident), out),
        UseTree::Name(name) => out.push(with(&name.ident)),
        UseTree::Rename(rename) => out.push(with(&rename.ident)),
        UseTree::Glob(_) => out.push(prefix),
        UseTree::Group(group) => {
            for item in &group.items {
                spread_use(item, prefix.clone(), out);
            }
        }
    }
}

/// The paths in a macro call's tokens (`a::b::c`, and single names), which syn does not
/// parse as code.
fn token_paths(tokens: TokenStream) -> Vec<(Vec<String>, usize)> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    let mut at = 0;
    while at < trees.len() {
        match &trees[at] {
            TokenTree::Group(group) => out.extend(token_paths(group.stream())),
            TokenTree::Ident(first) => {
                let mut segments = vec![first.to_string()];
                while let (
                    Some(TokenTree::Punct(a)),
                    Some(TokenTree::Punct(b)),
                    Some(TokenTree::Ident(next)),
                ) = (trees.get(at + 1), trees.get(at + 2), trees.get(at + 3))
                {
                    if a.as_char() != ':' || b.as_char() != ':' {
                        break;
                    }
                    segments.push(next.to_string());
                    at += 3;
                }
                out.push((segments, first.span().start().line));
            }
            _ => {}
        }
        at += 1;
    }
    out
}

/// `#[cfg(test)]`, alone or in an `all(..)` (not `not(test)`, which is the code's own).
fn is_test(attributes: &[Attribute]) -> bool {
    attributes.iter().any(|attribute| match &attribute.meta {
        Meta::List(list) if list.path.is_ident("cfg") => {
            let text = list.tokens.to_string();
            let mut words = text.split(|c: char| !(c.is_alphanumeric() || c == '_'));
            let words: Vec<&str> = words.by_ref().filter(|w| !w.is_empty()).collect();
            words.contains(&"test") && !words.contains(&"not")
        }
        _ => false,
    })
}

fn attributes(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(item) => &item.attrs,
        Item::Enum(item) => &item.attrs,
        Item::Fn(item) => &item.attrs,
        Item::Impl(item) => &item.attrs,
        Item::Macro(item) => &item.attrs,
        Item::Mod(item) => &item.attrs,
        Item::Static(item) => &item.attrs,
        Item::Struct(item) => &item.attrs,
        Item::Trait(item) => &item.attrs,
        Item::Type(item) => &item.attrs,
        Item::Union(item) => &item.attrs,
        Item::Use(item) => &item.attrs,
        _ => &[],
    }
}

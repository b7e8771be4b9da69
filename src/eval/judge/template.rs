//! Prompt templates: `{name}` placeholders filled with values, `{{` and `}}` for literal braces
//! (Python's `str.format`, which ADK's templates are written for). A brace that does not enclose
//! a name, as in a JSON example `{"score": 1}`, is kept as written, so custom prompts need not
//! double the braces of their examples.

/// One piece of a template.
#[derive(Debug, Clone, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    Placeholder(&'a str),
}

fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut index = 0;
    let bytes = template.as_bytes();
    // Only ASCII braces are looked at, so every slice below starts on a char boundary.
    while index < bytes.len() {
        let brace = bytes[index];
        if (brace == b'{' || brace == b'}') && bytes.get(index + 1) == Some(&brace) {
            pieces.push(Piece::Text(&template[text_start..index + 1]));
            index += 2;
            text_start = index;
            continue;
        }
        if brace == b'{' {
            if let Some(name) = placeholder_name(&template[index + 1..]) {
                pieces.push(Piece::Text(&template[text_start..index]));
                pieces.push(Piece::Placeholder(name));
                index += name.len() + 2;
                text_start = index;
                continue;
            }
        }
        index += 1;
    }
    pieces.push(Piece::Text(&template[text_start..]));
    pieces
}

/// The name at the start of `rest` if a `}` closes it right after: `[A-Za-z_][A-Za-z0-9_]*`.
fn placeholder_name(rest: &str) -> Option<&str> {
    let end = rest.find('}')?;
    let name = &rest[..end];
    let mut chars = name.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() || first == '_')
        .then_some(())
        .filter(|()| chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .map(|()| name)
}

/// The placeholder names of a template, in order of first use.
pub(super) fn placeholders(template: &str) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for piece in pieces(template) {
        if let Piece::Placeholder(name) = piece {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// The template with each placeholder replaced by `value(name)`. Values are inserted as they
/// are: a `{` in a value is never read as a placeholder. Err names a placeholder with no value.
pub(super) fn render<'v>(template: &str, value: impl Fn(&str) -> Option<&'v str>) -> Result<String, String> {
    let mut out = String::with_capacity(template.len());
    for piece in pieces(template) {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Placeholder(name) => out.push_str(value(name).ok_or_else(|| name.to_string())?),
        }
    }
    Ok(out)
}

/// The template with the placeholders named in `values` filled; any other stays as written.
pub(super) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    for piece in pieces(template) {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Placeholder(name) => match values.iter().find(|(key, _)| *key == name) {
                Some((_, value)) => out.push_str(value),
                None => {
                    out.push('{');
                    out.push_str(name);
                    out.push('}');
                }
            },
        }
    }
    out
}

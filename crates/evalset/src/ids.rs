//! The ids users type and files carry: eval set ids (also app and profile names, which appear
//! in URLs and file names) and eval case ids.

/// Checks an eval set id: ids name files and URL segments, so they are kept to
/// letters, digits, `_`, `-` and `.` (ADK's own `create_eval_set` allows `[a-zA-Z0-9_]+`).
pub fn validate_eval_set_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("eval_set_id is empty".into());
    }
    if id.len() > 128 {
        return Err("eval_set_id is longer than 128 characters".into());
    }
    if id == "." || id == ".." {
        return Err(format!("eval_set_id `{id}` is not allowed"));
    }
    match id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(bad) => Err(format!(
            "eval_set_id `{id}` contains `{bad}`; use letters, digits, `_`, `-` and `.`"
        )),
        None => Ok(()),
    }
}

/// App names (agent profile names) appear in URLs and file names, like eval set ids.
pub fn validate_app_name(app: &str) -> Result<(), String> {
    validate_eval_set_id(app).map_err(|message| message.replace("eval_set_id", "app name"))
}

/// A chat's user id or session id (`field` names which): they become path segments of ADK's
/// session URLs, so `[A-Za-z0-9_.@:-]{1,128}` and never `.` or `..`.
pub fn validate_session_key(field: &str, id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err(format!("{field} is empty"));
    }
    if id.chars().count() > 128 {
        return Err(format!("{field} is longer than 128 characters"));
    }
    if id == "." || id == ".." {
        return Err(format!("{field} `{id}` is not allowed"));
    }
    match id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@' | ':')))
    {
        Some(bad) => Err(format!(
            "{field} contains `{}`; use letters, digits, `_`, `-`, `.`, `@` and `:`",
            bad.escape_default()
        )),
        None => Ok(()),
    }
}

/// Turns a file name such as `trip inquiry.test.json` into a valid eval set id (`trip_inquiry`).
pub fn eval_set_id_from_file_name(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = [".evalset.json", ".test.json", ".json"]
        .iter()
        .find_map(|suffix| base.strip_suffix(suffix))
        .unwrap_or(base);
    let id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(128)
        .collect();
    if validate_eval_set_id(&id).is_ok() {
        id
    } else {
        "imported".to_string()
    }
}

/// Eval case ids: non-empty, no surrounding spaces, no control characters, at most 200
/// characters. Checked where a case is added (every face: browser, REST, CLI) and in the browser
/// as the user types.
pub fn validate_eval_id(eval_id: &str) -> Result<(), String> {
    if eval_id.trim().is_empty() {
        return Err("Enter an eval id.".into());
    }
    if eval_id.trim() != eval_id {
        return Err("The eval id starts or ends with spaces.".into());
    }
    if eval_id.chars().any(char::is_control) {
        return Err("The eval id contains control characters.".into());
    }
    if eval_id.chars().count() > 200 {
        return Err("The eval id is longer than 200 characters.".into());
    }
    Ok(())
}

/// A new name typed for a case (rename, duplicate, the editor): `[A-Za-z0-9_.-]{1,128}`, so it
/// reads well in URLs, files and reports. Ids that came in a file keep whatever
/// [`validate_eval_id`] allows until they are renamed.
pub fn validate_new_eval_id(eval_id: &str) -> Result<(), String> {
    validate_eval_id(eval_id)?;
    if eval_id.chars().count() > 128 {
        return Err("The eval id is longer than 128 characters.".into());
    }
    match eval_id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(bad) => Err(format!(
            "The eval id contains `{bad}`: use letters, digits, `_`, `-` and `.`."
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_ids_are_checked() {
        assert!(validate_eval_id("paris_weather").is_ok());
        assert!(validate_eval_id("").is_err());
        assert!(validate_eval_id(" x").is_err());
        assert!(validate_eval_id("a\nb").is_err());
        assert!(validate_eval_id(&"x".repeat(201)).is_err());
    }

    #[test]
    fn new_eval_ids_use_letters_digits_and_three_marks() {
        assert!(validate_new_eval_id("paris_weather-2.v1").is_ok());
        assert!(validate_new_eval_id(&"x".repeat(128)).is_ok());
        assert!(validate_new_eval_id(&"x".repeat(129)).is_err());
        assert_eq!(
            validate_new_eval_id("has space").unwrap_err(),
            "The eval id contains ` `: use letters, digits, `_`, `-` and `.`."
        );
        assert!(validate_new_eval_id("").is_err());
    }
}

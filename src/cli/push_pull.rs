//! `evalstudio push` and `evalstudio pull`: an evalset between this machine and a team's
//! server, whole (every tool call, response and rubric), over the server's REST import and
//! export. A pull records the server copy's tag in this database; a push sends it back as
//! `If-Match`, so a server copy changed since is refused, not overwritten (`--force` does).
//! The token comes from `EVALSTUDIO_TOKEN`, never from the command line.

use super::files::{read, write};
use super::CliError;
use crate::agent::DEFAULT_APP;
use crate::evalset::{eval_set_id_from_file_name, validate_app_name, validate_eval_set_id};
use crate::service::eval_sets::export_eval_set;
use crate::service::remote_copies::{record_tag, recorded_tag};
use crate::store::{Location, Store};
use clap::Args;
use reqwest::header::{AUTHORIZATION, ETAG, IF_MATCH, IF_NONE_MATCH};
use reqwest::{RequestBuilder, Response, StatusCode};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct PushArgs {
    /// An evalset file (ADK evalset JSON or a legacy list), or the id of an evalset in this
    /// database (`--db`).
    source: String,
    #[command(flatten)]
    remote: Remote,
    /// Overwrite the server's copy even if it changed since this one was pulled.
    #[arg(long)]
    force: bool,
}

#[derive(Args)]
pub struct PullArgs {
    eval_set_id: String,
    #[command(flatten)]
    remote: Remote,
    /// Where to write it; by default `<eval_set_id>.evalset.json` here.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

#[derive(Args)]
struct Remote {
    /// The team's Evalstudio, e.g. https://evalstudio.internal.
    #[arg(long)]
    server: String,
    /// The app (agent profile) the evalset belongs to, here and there.
    #[arg(long, default_value = DEFAULT_APP)]
    app: String,
}

impl Remote {
    fn base(&self) -> Result<String, CliError> {
        validate_app_name(&self.app).map_err(CliError::Usage)?;
        let base = self.server.trim().trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(CliError::Usage(format!(
                "--server: `{base}` is not an http:// or https:// URL"
            )));
        }
        if base.starts_with("http://") && !on_this_machine(base) && token().is_some() {
            eprintln!(
                "warning: {base} is plain http: your token crosses the network unencrypted (use https://)"
            );
        }
        Ok(base.to_string())
    }
}

pub async fn push(db: &Location, args: PushArgs) -> Result<ExitCode, CliError> {
    let server = args.remote.base()?;
    let app = &args.remote.app;
    let store = Store::open(db).await?;
    let (text, file_name, eval_set_id) = source_of(&store, app, &args.source).await?;
    let recorded = recorded_tag(&store, &server, app, &eval_set_id)
        .await
        .map_err(refused)?;
    let url = format!("{server}/apps/{app}/import");
    let mut request = authorized(reqwest::Client::new().post(&url))
        .query(&[("file_name", file_name.as_str())])
        .body(text);
    request = match (args.force, &recorded) {
        (true, _) => request.query(&[("replace", "true")]),
        (false, Some(tag)) => request.header(IF_MATCH, format!("\"{tag}\"")),
        (false, None) => request.header(IF_NONE_MATCH, "*"),
    };
    let response = send(request, &url).await?;
    if response.status() != StatusCode::CREATED {
        return Err(refusal(response, &url).await);
    }
    let tag = etag_of(&response);
    let summary: Value = response.json().await.unwrap_or_default();
    if let Some(tag) = &tag {
        record_tag(&store, &server, app, &eval_set_id, tag)
            .await
            .map_err(refused)?;
    }
    eprintln!(
        "pushed {eval_set_id} ({} cases) to {server}{}",
        summary["cases"],
        if summary["replaced"] == true {
            ", replacing its copy"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}

pub async fn pull(db: &Location, args: PullArgs) -> Result<ExitCode, CliError> {
    let server = args.remote.base()?;
    let app = &args.remote.app;
    validate_eval_set_id(&args.eval_set_id).map_err(CliError::Usage)?;
    let store = Store::open(db).await?;
    let url = format!("{server}/apps/{app}/eval_sets/{}/export", args.eval_set_id);
    let response = send(authorized(reqwest::Client::new().get(&url)), &url).await?;
    if response.status() != StatusCode::OK {
        return Err(refusal(response, &url).await);
    }
    let tag = etag_of(&response);
    let text = response
        .text()
        .await
        .map_err(|e| CliError::Run(format!("{url}: reading the answer: {e}")))?;
    let output = args
        .output
        .unwrap_or_else(|| PathBuf::from(format!("{}.evalset.json", args.eval_set_id)));
    write(&output, &text)?;
    if let Some(tag) = &tag {
        record_tag(&store, &server, app, &args.eval_set_id, tag)
            .await
            .map_err(refused)?;
    }
    eprintln!(
        "pulled {} from {server} into {}",
        args.eval_set_id,
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The text to push, the file name the server reads a legacy list's id from, and the id.
async fn source_of(store: &Store, app: &str, source: &str) -> Result<(String, String, String), CliError> {
    let path = Path::new(source);
    if path.is_file() {
        let text = read(path).map_err(|message| CliError::Input {
            name: source.into(),
            message,
        })?;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let id = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|file| file.get("eval_set_id")?.as_str().map(str::to_string))
            .unwrap_or_else(|| eval_set_id_from_file_name(&file_name));
        return Ok((text, file_name, id));
    }
    validate_eval_set_id(source)
        .map_err(|_| CliError::Usage(format!("`{source}` is neither a file nor an evalset id")))?;
    let text = export_eval_set(store, app, source).await?;
    Ok((text, format!("{source}.evalset.json"), source.to_string()))
}

/// The token in EVALSTUDIO_TOKEN, if any.
fn token() -> Option<String> {
    let token = std::env::var("EVALSTUDIO_TOKEN").ok()?;
    Some(token.trim().to_string()).filter(|token| !token.is_empty())
}

fn authorized(request: RequestBuilder) -> RequestBuilder {
    match token() {
        Some(token) => request.header(AUTHORIZATION, format!("Bearer {token}")),
        None => request,
    }
}

/// Whether an `http://` URL names this machine (where plain HTTP never leaves it).
fn on_this_machine(url: &str) -> bool {
    let host = url
        .trim_start_matches("http://")
        .split(['/', ':'])
        .next()
        .unwrap_or_default();
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

async fn send(request: RequestBuilder, url: &str) -> Result<Response, CliError> {
    request
        .send()
        .await
        .map_err(|e| CliError::Run(format!("cannot reach {url}: {e}")))
}

fn etag_of(response: &Response) -> Option<String> {
    let value = response.headers().get(ETAG)?.to_str().ok()?;
    Some(value.trim_matches('"').to_string())
}

/// What the server said no with, in its words (`{"error", "detail"}`), with a hint for sign-in.
async fn refusal(response: Response, url: &str) -> CliError {
    let status = response.status();
    let body: Value = response.json().await.unwrap_or_default();
    let said = body["error"].as_str().unwrap_or("no reason given");
    let detail = body["detail"]
        .as_str()
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    let hint = match status {
        StatusCode::UNAUTHORIZED => ": set EVALSTUDIO_TOKEN to a token of yours on that server",
        StatusCode::FORBIDDEN => ": your token's role may not do this there",
        _ => "",
    };
    CliError::Refused(format!("{url} answered {status}: {said}{detail}{hint}"))
}

fn refused(err: crate::service::remote_copies::RemoteCopyError) -> CliError {
    CliError::Run(err.to_string())
}

//! `evalstudio user` and `evalstudio token`: a shared server's users and API tokens, managed on
//! its database (`--db`, as for `serve`). The first admin is made here; later ones too, or
//! tokens from the Settings page.

use super::CliError;
use crate::access::Role;
use crate::service::auth;
use crate::store::{Location, Store};
use clap::{Args, Subcommand};
use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

#[derive(Args)]
pub struct UserArgs {
    #[command(subcommand)]
    command: UserCommand,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Add a user; asks for their password (twice) unless --password-stdin or --no-password.
    Add {
        name: String,
        /// viewer (reads everything), editor (edits, chats, runs evals), admin (users,
        /// tokens, settings) or ingest (sends traces, nothing else).
        #[arg(long, value_parser = parse_role)]
        role: Role,
        /// Read the password from the first line of standard input (for scripts).
        #[arg(long, conflicts_with = "no_password")]
        password_stdin: bool,
        /// No password: the user signs in only through the trusted proxy's header, or by token.
        #[arg(long)]
        no_password: bool,
    },
    /// Set a user's password (asked for, or --password-stdin).
    Password {
        name: String,
        #[arg(long)]
        password_stdin: bool,
    },
    /// List the users and their roles.
    List,
    /// Remove a user with their tokens and sessions (the case versions they saved keep their name).
    Remove { name: String },
}

#[derive(Args)]
pub struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Make an API token for a user; prints the token alone on stdout, the only time it is shown.
    Create {
        name: String,
        #[arg(long)]
        user: String,
    },
    /// Revoke a token by name: it stops working at once.
    Revoke { name: String },
    /// List the live tokens: name, user, when made, when last used.
    List,
}

pub async fn user(db: &Location, args: UserArgs) -> Result<ExitCode, CliError> {
    let store = Store::open(db).await?;
    match args.command {
        UserCommand::Add {
            name,
            role,
            password_stdin,
            no_password,
        } => {
            let password = if no_password {
                None
            } else {
                Some(read_password(&name, password_stdin)?)
            };
            auth::add_user(&store, &name, role, password)
                .await
                .map_err(CliError::refused_by)?;
            eprintln!("added {name} ({role})");
        }
        UserCommand::Password { name, password_stdin } => {
            let password = read_password(&name, password_stdin)?;
            auth::set_password(&store, &name, password)
                .await
                .map_err(CliError::refused_by)?;
            eprintln!("password of {name} set");
        }
        UserCommand::List => {
            for user in auth::list_users(&store).await.map_err(CliError::refused_by)? {
                println!("{}\t{}\t{}", user.name, user.role, user.created_at);
            }
        }
        UserCommand::Remove { name } => {
            auth::remove_user(&store, &name)
                .await
                .map_err(CliError::refused_by)?;
            eprintln!("removed {name}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn token(db: &Location, args: TokenArgs) -> Result<ExitCode, CliError> {
    let store = Store::open(db).await?;
    match args.command {
        TokenCommand::Create { name, user } => {
            let secret = auth::create_token(&store, &user, &name)
                .await
                .map_err(CliError::refused_by)?;
            println!("{secret}");
        }
        TokenCommand::Revoke { name } => {
            auth::revoke_token(&store, &name)
                .await
                .map_err(CliError::refused_by)?;
            eprintln!("revoked {name}");
        }
        TokenCommand::List => {
            for token in auth::list_tokens(&store).await.map_err(CliError::refused_by)? {
                let used = token.last_used_at.as_deref().unwrap_or("never used");
                println!("{}\t{}\t{}\t{used}", token.name, token.user, token.created_at);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_role(text: &str) -> Result<Role, String> {
    Role::parse(text).ok_or_else(|| format!("`{text}`: expected viewer, editor, admin or ingest"))
}

/// The password from stdin's first line, or asked for twice on the terminal without echo.
fn read_password(name: &str, from_stdin: bool) -> Result<String, CliError> {
    if from_stdin {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| CliError::Usage(format!("--password-stdin: {e}")))?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_string());
    }
    if !std::io::stdin().is_terminal() {
        return Err(CliError::Usage(
            "no terminal to ask for the password: pass it with --password-stdin".into(),
        ));
    }
    let ask = |prompt: &str| {
        let _ = std::io::stderr().flush();
        rpassword::prompt_password(prompt).map_err(|e| CliError::Usage(format!("reading the password: {e}")))
    };
    let first = ask(&format!("password for {name}: "))?;
    if ask("again: ")? != first {
        return Err(CliError::Usage("the two passwords differ".into()));
    }
    Ok(first)
}

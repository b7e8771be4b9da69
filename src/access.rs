//! Who may do what on a shared server: roles, and the users and tokens the Settings page lists.
//! Pure data (browser too); the checks live in `api::access`, the use cases in `service::auth`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A user's role. Each route and server function names the role it needs (`api::access`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Reads everything, runs nothing.
    Viewer,
    /// Edits cases and evalsets, chats, runs evals.
    Editor,
    /// Users, tokens and server settings, and everything an editor does.
    Admin,
    /// Sends traces (OTLP) and can do nothing else.
    Ingest,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Viewer, Role::Editor, Role::Admin, Role::Ingest];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Editor => "editor",
            Role::Admin => "admin",
            Role::Ingest => "ingest",
        }
    }

    pub fn parse(text: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.as_str() == text)
    }

    /// Whether a user of this role may do what needs `needed`. Viewer < editor < admin;
    /// ingest is apart: it may only ingest (an admin may too).
    pub fn may(self, needed: Role) -> bool {
        match (self, needed) {
            (Role::Admin, _) => true,
            (Role::Ingest, needed) => needed == Role::Ingest,
            (_, Role::Ingest) => false,
            (Role::Editor, Role::Viewer | Role::Editor) => true,
            (Role::Viewer, Role::Viewer) => true,
            _ => false,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The signed-in user, as the pages show them. `None` where auth is off (a loopback bind).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignedIn {
    pub name: String,
    pub role: Role,
}

/// The header's account: whether this server asks anyone to sign in, and who has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    pub auth_on: bool,
    pub user: Option<SignedIn>,
}

/// A user, as the Settings page and `evalstudio user list` show them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserSummary {
    pub name: String,
    pub role: Role,
    pub created_at: String,
}

/// An API token, never its secret: that is shown once, when it is made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenSummary {
    pub name: String,
    pub user: String,
    pub created_at: String,
    pub last_used_at: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::Role::*;
    use super::*;

    #[test]
    fn roles_allow_what_the_issue_lists() {
        let allowed = |role: Role| Role::ALL.into_iter().filter(|n| role.may(*n)).collect::<Vec<_>>();
        assert_eq!(allowed(Viewer), [Viewer]);
        assert_eq!(allowed(Editor), [Viewer, Editor]);
        assert_eq!(allowed(Admin), Role::ALL);
        assert_eq!(allowed(Ingest), [Ingest]);
    }

    #[test]
    fn roles_read_back_their_names() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.as_str()), Some(role));
        }
        assert_eq!(Role::parse("root"), None);
    }
}

//! Users, API tokens, browser sessions and failed logins. Tokens and sessions are found by the
//! SHA-256 of their secret (`token_hash`, unique): checking one is one indexed read.

use super::{dialect, Row, SqlStore};
use crate::access::{Role, SignedIn, TokenSummary, UserSummary};
use crate::store::{corrupt_text, StoreError, StoreResult, StoredUser};
use sqlx::Row as _;

/// How stale a token's last-used time may get before a use writes it again: a script calling
/// many times a second writes once a minute, not on every call.
const LAST_USED_GRAIN_SECONDS: f64 = 60.0;

impl SqlStore {
    pub async fn add_user(&self, name: &str, role: Role, password_hash: Option<&str>) -> StoreResult<()> {
        let inserted = sqlx::query(
            "INSERT INTO users (name, role, password_hash) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(role.as_str())
        .bind(password_hash)
        .execute(&self.pool)
        .await?;
        if inserted.rows_affected() == 0 {
            return Err(StoreError::Conflict(format!("user `{name}` already exists")));
        }
        Ok(())
    }

    /// Sets a user's password hash and ends their browser sessions; false when there is no
    /// such user.
    pub async fn set_user_password(&self, name: &str, password_hash: &str) -> StoreResult<bool> {
        let mut tx = self.begin_write().await?;
        let updated = sqlx::query("UPDATE users SET password_hash = $2 WHERE name = $1")
            .bind(name)
            .bind(password_hash)
            .execute(&mut *tx)
            .await?;
        sqlx::query("DELETE FROM login_sessions WHERE user_row = (SELECT id FROM users WHERE name = $1)")
            .bind(name)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(updated.rows_affected() > 0)
    }

    pub async fn list_users(&self) -> StoreResult<Vec<UserSummary>> {
        let rows = sqlx::query("SELECT name, role, created_at FROM users ORDER BY name")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                Ok(UserSummary {
                    name: row.get("name"),
                    role: role_of(row)?,
                    created_at: row.get("created_at"),
                })
            })
            .collect()
    }

    /// Removes a user, their tokens and sessions; false when there was none.
    pub async fn remove_user(&self, name: &str) -> StoreResult<bool> {
        let deleted = sqlx::query("DELETE FROM users WHERE name = $1")
            .bind(name)
            .execute(&self.pool)
            .await?;
        Ok(deleted.rows_affected() > 0)
    }

    /// A user with what logging in checks.
    pub async fn stored_user(&self, name: &str) -> StoreResult<Option<StoredUser>> {
        let row = sqlx::query("SELECT id, name, role, password_hash FROM users WHERE name = $1")
            .bind(name)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            Ok(StoredUser {
                row: row.get("id"),
                signed_in: SignedIn {
                    name: row.get("name"),
                    role: role_of(&row)?,
                },
                password_hash: row.get("password_hash"),
            })
        })
        .transpose()
    }

    /// A new token for `user`, named `name` (unique among live tokens).
    pub async fn create_token(&self, user: &str, name: &str, token_hash: &str) -> StoreResult<()> {
        let user_row: i64 = sqlx::query_scalar("SELECT id FROM users WHERE name = $1")
            .bind(user)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("no user `{user}`")))?;
        let inserted = sqlx::query(
            "INSERT INTO api_tokens (name, user_row, token_hash) VALUES ($1, $2, $3) \
             ON CONFLICT (name) WHERE revoked_at IS NULL DO NOTHING",
        )
        .bind(name)
        .bind(user_row)
        .bind(token_hash)
        .execute(&self.pool)
        .await?;
        if inserted.rows_affected() == 0 {
            return Err(StoreError::Conflict(format!(
                "a token named `{name}` already exists; revoke it or choose another name"
            )));
        }
        Ok(())
    }

    /// Revokes the live token named `name`; false when there is none.
    pub async fn revoke_token(&self, name: &str) -> StoreResult<bool> {
        let revoked = sqlx::query(&format!(
            "UPDATE api_tokens SET revoked_at = {now} WHERE name = $1 AND revoked_at IS NULL",
            now = dialect::NOW
        ))
        .bind(name)
        .execute(&self.pool)
        .await?;
        Ok(revoked.rows_affected() > 0)
    }

    /// The live tokens, by name.
    pub async fn list_tokens(&self) -> StoreResult<Vec<TokenSummary>> {
        let rows = sqlx::query(
            "SELECT t.name, u.name AS user_name, t.created_at, t.last_used_at FROM api_tokens t \
             JOIN users u ON u.id = t.user_row WHERE t.revoked_at IS NULL ORDER BY t.name",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|row| TokenSummary {
                name: row.get("name"),
                user: row.get("user_name"),
                created_at: row.get("created_at"),
                last_used_at: row.get("last_used_at"),
            })
            .collect())
    }

    /// The user a live token belongs to, noting its use.
    pub async fn user_of_token(&self, token_hash: &str) -> StoreResult<Option<SignedIn>> {
        let row = sqlx::query(&format!(
            "SELECT t.id, u.name, u.role, \
             (t.last_used_at IS NULL OR t.last_used_at < {stale}) AS stale FROM api_tokens t \
             JOIN users u ON u.id = t.user_row WHERE t.token_hash = $1 AND t.revoked_at IS NULL",
            stale = dialect::SECONDS_AGO
        ))
        .bind(token_hash)
        .bind(LAST_USED_GRAIN_SECONDS)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        if row.get::<bool, _>("stale") {
            sqlx::query(&format!(
                "UPDATE api_tokens SET last_used_at = {} WHERE id = $1",
                dialect::NOW
            ))
            .bind(row.get::<i64, _>("id"))
            .execute(&self.pool)
            .await?;
        }
        Ok(Some(signed_in(&row)?))
    }

    /// Starts a browser session for user row `user_row`, ending `lifetime_seconds` from now.
    /// Sessions that have ended are cleared on the way.
    pub async fn start_login_session(
        &self,
        user_row: i64,
        token_hash: &str,
        lifetime_seconds: f64,
    ) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(&format!(
            "DELETE FROM login_sessions WHERE expires_at < {}",
            dialect::EPOCH_NOW
        ))
        .execute(&mut *tx)
        .await?;
        sqlx::query(&format!(
            "INSERT INTO login_sessions (user_row, token_hash, expires_at) VALUES ($1, $2, {} + $3)",
            dialect::EPOCH_NOW
        ))
        .bind(user_row)
        .bind(token_hash)
        .bind(lifetime_seconds)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The user of a browser session that has not ended.
    pub async fn user_of_login_session(&self, token_hash: &str) -> StoreResult<Option<SignedIn>> {
        let row = sqlx::query(&format!(
            "SELECT u.name, u.role FROM login_sessions s JOIN users u ON u.id = s.user_row \
             WHERE s.token_hash = $1 AND s.expires_at > {}",
            dialect::EPOCH_NOW
        ))
        .bind(token_hash)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| signed_in(&row)).transpose()
    }

    pub async fn end_login_session(&self, token_hash: &str) -> StoreResult<()> {
        sqlx::query("DELETE FROM login_sessions WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Notes a login attempt, failed until it succeeds; answers its row, for
    /// [`SqlStore::forget_failed_login`]. Rows older than `keep_seconds` are cleared on the way.
    pub async fn record_failed_login(
        &self,
        user: &str,
        address: &str,
        keep_seconds: f64,
    ) -> StoreResult<i64> {
        let mut tx = self.begin_write().await?;
        sqlx::query(&format!(
            "DELETE FROM failed_logins WHERE failed_at < {} - $1",
            dialect::EPOCH_NOW
        ))
        .bind(keep_seconds)
        .execute(&mut *tx)
        .await?;
        let id: i64 = sqlx::query_scalar(&format!(
            "INSERT INTO failed_logins (user_name, address, failed_at) VALUES ($1, $2, {}) RETURNING id",
            dialect::EPOCH_NOW
        ))
        .bind(user)
        .bind(address)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Takes back an attempt [`SqlStore::record_failed_login`] noted (one refused unchecked).
    pub async fn forget_failed_login(&self, id: i64) -> StoreResult<()> {
        sqlx::query("DELETE FROM failed_logins WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Failed logins in the last `window_seconds` of `user` (any user when `None`) from `address`
    /// (any address when `None`): how many, and how many seconds ago the oldest was.
    pub async fn failed_logins(
        &self,
        user: Option<&str>,
        address: Option<&str>,
        window_seconds: f64,
    ) -> StoreResult<(i64, Option<f64>)> {
        let now = dialect::EPOCH_NOW;
        let mut filters = vec![format!("failed_at > {now} - $1")];
        if user.is_some() {
            filters.push(format!("user_name = ${}", filters.len() + 1));
        }
        if address.is_some() {
            filters.push(format!("address = ${}", filters.len() + 1));
        }
        let sql = format!(
            "SELECT COUNT(*) AS failures, CAST({now} - MIN(failed_at) AS DOUBLE PRECISION) AS oldest_age \
             FROM failed_logins WHERE {}",
            filters.join(" AND ")
        );
        let mut query = sqlx::query(&sql).bind(window_seconds);
        if let Some(user) = user {
            query = query.bind(user);
        }
        if let Some(address) = address {
            query = query.bind(address);
        }
        let row = query.fetch_one(&self.pool).await?;
        Ok((row.get("failures"), row.get("oldest_age")))
    }

    /// Forgets a user's failed logins from `address`, after they logged in from it.
    pub async fn clear_failed_logins(&self, user: &str, address: &str) -> StoreResult<()> {
        sqlx::query("DELETE FROM failed_logins WHERE user_name = $1 AND address = $2")
            .bind(user)
            .bind(address)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

fn role_of(row: &Row) -> StoreResult<Role> {
    let text: String = row.get("role");
    Role::parse(&text).ok_or_else(|| corrupt_text(format!("unknown role `{text}`")))
}

fn signed_in(row: &Row) -> StoreResult<SignedIn> {
    Ok(SignedIn {
        name: row.get("name"),
        role: role_of(row)?,
    })
}

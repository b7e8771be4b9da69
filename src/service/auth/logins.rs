//! Browser logins: a password checked (failures counted in the store, so every process serving it
//! shares the count), a session secret for the cookie.
//!
//! Failures are limited per user from one address, per address for any names, and per user from
//! all addresses, where an address is an IPv4 address or an IPv6 /64 (one host's usual share).
//! No one can lock a user out: past the per-user ceiling only the addresses that have failed for
//! that user are refused, so an address that has not can still sign in with the right password.

use super::secrets::{digest, hash_password, new_secret, password_matches};
use super::{check_name, AuthError};
use crate::access::SignedIn;
use crate::store::Store;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};

/// What every session secret starts with (the cookie's value).
const SESSION_PREFIX: &str = "ess_";

/// How many times `failure_limit` one address may fail within the window, for any user names.
const ADDRESS_LIMIT_FACTOR: i64 = 4;
/// How many times `failure_limit` one user may fail within [`USER_WINDOW_SECONDS`], from all
/// addresses, before the addresses that have failed for them are refused.
const USER_CEILING_FACTOR: i64 = 20;
/// The window of the per-user ceiling (the policy's window when that is longer).
const USER_WINDOW_SECONDS: f64 = 3600.0;

/// How long a session lasts and how many failures are allowed how often.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoginPolicy {
    pub session_seconds: f64,
    /// Failed logins allowed for one user from one address within `window_seconds` (5 by
    /// default); the other limits follow from it ([`LoginPolicy::address_limit`],
    /// [`LoginPolicy::user_ceiling`]).
    pub failure_limit: i64,
    pub window_seconds: f64,
}

impl Default for LoginPolicy {
    fn default() -> LoginPolicy {
        LoginPolicy {
            session_seconds: 12.0 * 3600.0,
            failure_limit: 5,
            window_seconds: 15.0 * 60.0,
        }
    }
}

impl LoginPolicy {
    /// Failed logins allowed from one address, for any user names, within `window_seconds`
    /// (20 by default).
    pub fn address_limit(&self) -> i64 {
        self.failure_limit.saturating_mul(ADDRESS_LIMIT_FACTOR)
    }

    /// Failed logins of one user from all addresses within [`LoginPolicy::user_window_seconds`]
    /// (100 an hour by default) past which an address that has failed for them in that time is
    /// refused; an address that has not may still try.
    pub fn user_ceiling(&self) -> i64 {
        self.failure_limit.saturating_mul(USER_CEILING_FACTOR)
    }

    /// The per-user ceiling's window: an hour, or `window_seconds` when that is longer.
    pub fn user_window_seconds(&self) -> f64 {
        self.window_seconds.max(USER_WINDOW_SECONDS)
    }
}

/// Checks `name`'s password, from `address`; answers the new session's secret and the user.
/// An attempt past a limit is refused before its password is checked, right or wrong, with the
/// seconds until the oldest failure it counted leaves its window; it does not count as a failure.
pub async fn log_in(
    store: &Store,
    policy: &LoginPolicy,
    name: &str,
    password: String,
    address: &str,
) -> Result<(String, SignedIn), AuthError> {
    // No user has a name outside the rule users are added with: such a name is refused as a
    // wrong one, and never stored.
    if check_name("user name", name).is_err() {
        return Err(AuthError::WrongCredentials);
    }
    let address = address_group(address);
    // Each attempt counts as failed before its password is checked (a right one clears the
    // count of its user and address), so attempts sent at once cannot all slip under a limit;
    // a refused one is taken back, so refused attempts do not keep the limit on.
    let attempt = store
        .record_failed_login(name, &address, policy.user_window_seconds())
        .await?;
    if let Some(retry_after_seconds) = throttled(store, policy, name, &address).await? {
        store.forget_failed_login(attempt).await?;
        return Err(AuthError::Throttled { retry_after_seconds });
    }
    let user = store.stored_user(name).await?;
    // A name without a password is checked against a stand-in hash all the same, so how long
    // the answer takes does not tell a guesser which names exist.
    let matched = match user.as_ref().and_then(|user| user.password_hash.clone()) {
        Some(hash) => password_matches(password, hash).await,
        None => {
            password_matches(password, stand_in_hash().await).await;
            false
        }
    };
    let Some(user) = user.filter(|_| matched) else {
        return Err(AuthError::WrongCredentials);
    };
    store.clear_failed_logins(name, &address).await?;
    let secret = new_secret(SESSION_PREFIX);
    store
        .start_login_session(user.row, &digest(&secret), policy.session_seconds)
        .await?;
    Ok((secret, user.signed_in))
}

/// Whether an attempt (already recorded) is past a limit: the seconds to wait if so, the longest
/// of the limits it is past.
async fn throttled(
    store: &Store,
    policy: &LoginPolicy,
    name: &str,
    address: &str,
) -> Result<Option<u64>, AuthError> {
    let window = policy.window_seconds;
    let (by_pair, oldest) = store.failed_logins(Some(name), Some(address), window).await?;
    let mut wait = past_limit(by_pair, policy.failure_limit, window, oldest);
    let (by_address, oldest) = store.failed_logins(None, Some(address), window).await?;
    wait = wait.max(past_limit(by_address, policy.address_limit(), window, oldest));
    let user_window = policy.user_window_seconds();
    let (by_user, oldest) = store.failed_logins(Some(name), None, user_window).await?;
    if by_user > policy.user_ceiling() {
        // This attempt is one of the pair's: another means the address has failed before.
        let (here, _) = store
            .failed_logins(Some(name), Some(address), user_window)
            .await?;
        if here > 1 {
            wait = wait.max(past_limit(by_user, policy.user_ceiling(), user_window, oldest));
        }
    }
    Ok(wait)
}

/// The seconds until the oldest of `failures` (seen `oldest_age` seconds ago) leaves its
/// `window`, when they are more than `limit`; at least a second.
fn past_limit(failures: i64, limit: i64, window: f64, oldest_age: Option<f64>) -> Option<u64> {
    (failures > limit).then(|| {
        let left = window - oldest_age.unwrap_or(0.0).max(0.0);
        left.ceil().max(1.0) as u64
    })
}

/// The address failures are counted by: an IPv4 address as it is, an IPv6 one as its /64
/// (`2001:db8:1:2::/64`: a host is usually given a whole /64) unless it is an IPv4 one mapped
/// into IPv6. Anything else (a proxy's odd header) is kept as text, its first 64 characters.
fn address_group(address: &str) -> String {
    let ip = address
        .parse::<IpAddr>()
        .or_else(|_| address.parse::<SocketAddr>().map(|socket| socket.ip()));
    match ip {
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let [a, b, c, d, ..] = v6.segments();
                format!("{}/64", Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0))
            }
        },
        Err(_) => address.chars().take(64).collect(),
    }
}

/// A hash no password matches (made once, of a random secret), as costly to check as a user's.
async fn stand_in_hash() -> String {
    static HASH: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
    HASH.get_or_init(|| hash_password(new_secret(""))).await.clone()
}

/// The user of a session that has not ended.
pub async fn session_user(store: &Store, secret: &str) -> Result<Option<SignedIn>, AuthError> {
    Ok(store.user_of_login_session(&digest(secret)).await?)
}

pub async fn log_out(store: &Store, secret: &str) -> Result<(), AuthError> {
    Ok(store.end_login_session(&digest(secret)).await?)
}

#[cfg(test)]
mod tests {
    use super::{address_group, past_limit, LoginPolicy};

    #[test]
    fn ipv6_addresses_are_grouped_by_their_64_bit_prefix() {
        assert_eq!(
            address_group("2001:db8:1:2:aaaa:bbbb:cccc:dddd"),
            "2001:db8:1:2::/64"
        );
        assert_eq!(address_group("2001:db8:1:2::1"), "2001:db8:1:2::/64");
        assert_eq!(address_group("2001:db8:1:3::1"), "2001:db8:1:3::/64");
        assert_eq!(address_group("[2001:db8:1:2::9]:443"), "2001:db8:1:2::/64");
        assert_eq!(address_group("::1"), "::/64");
        assert_eq!(address_group("::ffff:192.0.2.7"), "192.0.2.7");
        assert_eq!(address_group("192.0.2.7"), "192.0.2.7");
        assert_eq!(address_group("192.0.2.7:5000"), "192.0.2.7");
        assert_eq!(address_group("unknown"), "unknown");
        assert_eq!(address_group(&"x".repeat(1000)).len(), 64);
    }

    #[test]
    fn a_limit_is_passed_beyond_its_count_and_waits_for_its_oldest_failure() {
        assert_eq!(past_limit(5, 5, 900.0, Some(10.0)), None);
        assert_eq!(past_limit(6, 5, 900.0, Some(10.2)), Some(890));
        assert_eq!(past_limit(6, 5, 900.0, Some(900.0)), Some(1));
        assert_eq!(past_limit(6, 5, 900.0, None), Some(900));
    }

    #[test]
    fn the_default_limits_are_5_per_user_and_address_20_per_address_100_an_hour_per_user() {
        let policy = LoginPolicy::default();
        assert_eq!(policy.failure_limit, 5);
        assert_eq!(policy.window_seconds, 900.0);
        assert_eq!(policy.address_limit(), 20);
        assert_eq!(policy.user_ceiling(), 100);
        assert_eq!(policy.user_window_seconds(), 3600.0);
    }
}

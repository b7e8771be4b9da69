//! The secrets auth deals in: passwords hashed with argon2id (slow on purpose, so it runs off the
//! async threads), and random tokens kept only as their SHA-256 (fast: a token is already
//! 256 random bits, nothing to slow a guesser down for).

use argon2::password_hash::rand_core::{OsRng, RngCore};
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use sha2::{Digest, Sha256};

/// What a password must at least be.
pub const MIN_PASSWORD_CHARS: usize = 8;

/// argon2id at its default parameters holds 19 MiB while it runs: at most this many at once, so
/// a flood of logins waits its turn instead of taking the server's memory.
static ARGON2_AT_ONCE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(4);

/// The argon2id hash of `password`, in PHC text (salt and parameters included).
pub async fn hash_password(password: String) -> String {
    let _turn = ARGON2_AT_ONCE
        .acquire()
        .await
        .expect("the semaphore is never closed");
    tokio::task::spawn_blocking(move || {
        let salt = SaltString::generate(&mut OsRng);
        Argon2::default()
            .hash_password(password.as_bytes(), &salt)
            .expect("argon2 hashes any password with default parameters")
            .to_string()
    })
    .await
    .expect("hashing a password does not panic")
}

/// Whether `password` is the one `hash` was made from. A hash that does not parse matches nothing.
pub async fn password_matches(password: String, hash: String) -> bool {
    let Ok(_turn) = ARGON2_AT_ONCE.acquire().await else {
        return false;
    };
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&hash)
            .map(|parsed| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
            })
            .unwrap_or(false)
    })
    .await
    .unwrap_or(false)
}

/// A new random secret: `prefix` and 256 bits in hex. The prefix tells a leaked token from
/// other secrets (secret scanners look for such).
pub fn new_secret(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    format!("{prefix}{}", hex(&bytes))
}

/// What the store keeps of a token or session secret.
pub fn digest(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_password_matches_its_hash_and_no_other() {
        let hash = hash_password("correct horse".into()).await;
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(password_matches("correct horse".into(), hash.clone()).await);
        assert!(!password_matches("correct horse!".into(), hash).await);
        assert!(!password_matches("x".into(), "not a hash".into()).await);
    }

    #[test]
    fn secrets_are_long_random_and_kept_as_their_digest() {
        let (one, two) = (new_secret("est_"), new_secret("est_"));
        assert_ne!(one, two);
        assert_eq!(one.len(), 4 + 64);
        assert_eq!(
            digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

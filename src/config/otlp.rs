//! `[otlp]`: the OpenTelemetry receiver at `/v1/traces`, off unless the table is there (an
//! empty one turns it on with these defaults). With auth on, senders need an `ingest` token.
//!
//! ```toml
//! [otlp]
//! max_body_mib = 16         # a request's body once gzip is undone; over it: 413
//! retention_days = 30       # spans received longer ago are deleted ...
//! retention_spans = 1000000 # ... and so are all but the newest this many
//! quiet_period_secs = 5     # a session is whole once no span of it arrived for this long
//! ```

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtlpConfig {
    #[serde(default = "default_max_body_mib")]
    pub max_body_mib: f64,
    #[serde(default = "default_retention_days")]
    pub retention_days: f64,
    #[serde(default = "default_retention_spans")]
    pub retention_spans: i64,
    #[serde(default = "default_quiet_period_secs")]
    pub quiet_period_secs: f64,
}

fn default_quiet_period_secs() -> f64 {
    5.0
}

fn default_max_body_mib() -> f64 {
    16.0
}

fn default_retention_days() -> f64 {
    30.0
}

fn default_retention_spans() -> i64 {
    1_000_000
}

impl OtlpConfig {
    pub fn max_body_bytes(&self) -> usize {
        (self.max_body_mib * 1024.0 * 1024.0) as usize
    }
}

/// Checks what the table may get wrong; the message names the field.
pub fn check_otlp(otlp: &OtlpConfig) -> Result<(), String> {
    if !(otlp.max_body_mib > 0.0 && otlp.max_body_mib <= 1024.0) {
        return Err(format!(
            "otlp.max_body_mib: {} is not more than 0 and at most 1024",
            otlp.max_body_mib
        ));
    }
    if !(otlp.retention_days > 0.0 && otlp.retention_days.is_finite()) {
        return Err(format!(
            "otlp.retention_days: {} is not more than 0",
            otlp.retention_days
        ));
    }
    if !(otlp.quiet_period_secs >= 0.0 && otlp.quiet_period_secs <= 3600.0) {
        return Err(format!(
            "otlp.quiet_period_secs: {} is not between 0 and 3600",
            otlp.quiet_period_secs
        ));
    }
    if otlp.retention_spans < 1 {
        return Err(format!(
            "otlp.retention_spans: {} is not at least 1",
            otlp.retention_spans
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> OtlpConfig {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn an_empty_table_takes_the_defaults() {
        let otlp = parse("");
        assert_eq!(
            (otlp.max_body_bytes(), otlp.retention_days, otlp.retention_spans),
            (16 << 20, 30.0, 1_000_000)
        );
        assert_eq!(check_otlp(&otlp), Ok(()));
    }

    #[test]
    fn settings_out_of_range_name_their_field() {
        assert!(check_otlp(&parse("max_body_mib = 0"))
            .unwrap_err()
            .starts_with("otlp.max_body_mib: 0 "));
        assert!(check_otlp(&parse("retention_days = -1"))
            .unwrap_err()
            .starts_with("otlp.retention_days: -1 "));
        assert!(check_otlp(&parse("retention_spans = 0"))
            .unwrap_err()
            .starts_with("otlp.retention_spans: 0 "));
    }
}

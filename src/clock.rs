//! Wall-clock time as ADK records it: seconds since the Unix epoch, as a float.

pub fn now_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Seconds since the epoch of a UTC time as SQLite writes it (`2026-11-26T20:00:01.250Z`), as
/// ADK's sessions give `lastUpdateTime`; `None` for other text.
pub fn iso_seconds(text: &str) -> Option<f64> {
    let text = text.strip_suffix('Z')?;
    let (date, time) = text.split_once('T')?;
    let mut date = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (date.next()?.ok()?, date.next()?.ok()?, date.next()?.ok()?);
    let mut time = time.splitn(3, ':');
    let (hour, minute) = (
        time.next()?.parse::<i64>().ok()?,
        time.next()?.parse::<i64>().ok()?,
    );
    let second = time.next()?.parse::<f64>().ok()?;
    // Days from 1970-01-01 to the date (Howard Hinnant's days_from_civil).
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some((days * 86_400 + hour * 3_600 + minute * 60) as f64 + second)
}

#[cfg(test)]
mod tests {
    use super::iso_seconds;

    #[test]
    fn sqlite_times_read_as_epoch_seconds() {
        assert_eq!(iso_seconds("1970-01-01T00:00:00.000Z"), Some(0.0));
        assert_eq!(iso_seconds("2026-11-26T20:00:01.250Z"), Some(1_795_723_201.25));
        assert_eq!(iso_seconds("2000-02-29T12:00:00Z"), Some(951_825_600.0));
        assert_eq!(iso_seconds("yesterday"), None);
    }
}

//! Helpers the benchmarks share.

/// The process's peak resident set size (VmHWM) in bytes; 0 where /proc is missing.
pub fn peak_rss_bytes() -> u64 {
    proc_status_bytes("VmHWM:")
}

/// The process's resident set size now (VmRSS) in MiB.
#[allow(dead_code)] // only the runner samples it
pub fn current_rss_mib() -> f64 {
    proc_status_bytes("VmRSS:") as f64 / (1024.0 * 1024.0)
}

fn proc_status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// The same in MiB.
#[allow(dead_code)] // import_export reports bytes
pub fn peak_rss_mib() -> f64 {
    peak_rss_bytes() as f64 / (1024.0 * 1024.0)
}

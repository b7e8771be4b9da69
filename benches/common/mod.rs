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

/// CPU time (user + system) this process has used, in seconds.
#[allow(dead_code)] // for the benches that report it
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks: f64 = fields
        .get(11..13)
        .map_or(0.0, |f| f.iter().filter_map(|t| t.parse::<f64>().ok()).sum());
    ticks / 100.0
}

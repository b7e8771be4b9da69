//! Child processes that die with Evalstudio: a stdio MCP server, ADK's api_server in folder mode.
//! Killing them on drop covers a clean exit and Ctrl+C; the kernel covers a crash or kill -9.

/// Asks the kernel to send the child SIGTERM when Evalstudio dies, however it dies.
pub fn die_with_parent(process: &mut tokio::process::Command) {
    // SAFETY: prctl is async-signal-safe and touches only the child being set up.
    unsafe {
        process.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

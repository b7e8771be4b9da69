//! The `evalstudio` binary: the library's `cli::main` (see there why it holds all of it).

#[cfg(feature = "ssr")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "ssr")]
fn main() -> std::process::ExitCode {
    evalstudio::cli::main()
}

#[cfg(not(feature = "ssr"))]
pub fn main() {
    // The binary is built with the "ssr" feature; the browser side is the library's hydrate().
}

//! Splits the browser's wasm at its `#[lazy]` functions, as `cargo leptos build --split` does,
//! for `scripts/build-site` (which does what cargo-leptos would, without it).
//!
//! Usage: `wasm-split INPUT.wasm OUT_DIR`. Writes `OUT_DIR/evalstudio.wasm` (the main module,
//! for wasm-bindgen), a `.wasm` per split-off chunk, the loader script the main module imports
//! (`__wasm_split.______________________.js`, the name leptos's `HydrationScripts` preloads)
//! and `__wasm_split_manifest.json`, from which the server names a page's chunks in its HTML so
//! the browser fetches them beside the main module. The input must be linked with
//! `-C link-args=--emit-relocs`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// The loader's name as leptos expects it (its placeholder for a hash it does not use here).
const LINK_NAME: &str = "./__wasm_split.______________________.js";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir] = args.as_slice() else {
        eprintln!("usage: wasm-split INPUT.wasm OUT_DIR");
        return ExitCode::from(2);
    };
    match split(Path::new(input), Path::new(out_dir)) {
        Ok(chunks) => {
            println!("wasm-split: {input} -> {out_dir} ({chunks} chunks)");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("wasm-split: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn split(input: &Path, out_dir: &Path) -> Result<usize, Box<dyn std::error::Error>> {
    let wasm = std::fs::read(input).map_err(|err| format!("{}: {err}", input.display()))?;
    std::fs::create_dir_all(out_dir)?;
    let main_out = out_dir.join("evalstudio.wasm");
    let split = wasm_split_cli_support::transform({
        let mut options = wasm_split_cli_support::Options::new(&wasm);
        options.output_dir = out_dir;
        options.main_out_path = &main_out;
        options.main_module = "./evalstudio.js";
        options.link_name = LINK_NAME;
        options
    })
    .map_err(|err| format!("{err:?}"))?;
    // Sorted, so the same input writes the same file (the site's version is a hash of it).
    let manifest: BTreeMap<_, _> = split.prefetch_map.into_iter().collect();
    let manifest = serde_json::to_string_pretty(&manifest)?;
    std::fs::write(out_dir.join("__wasm_split_manifest.json"), manifest)?;
    Ok(split.split_modules.len())
}

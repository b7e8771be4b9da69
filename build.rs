//! Embeds migrations/: for each backend, `$OUT_DIR/migrations_<backend>.rs` lists its files in
//! name order as `(file name, include_str!(file))`, which store/migrations.rs turns into sqlx's
//! migrations. (sqlx's `migrate!` does the same, but needs its `macros` feature, which builds
//! sqlx and the bundled SQLite a second time for the host.)
use std::fmt::Write;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for backend in ["sqlite", "postgres"] {
        let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"))
            .join("migrations")
            .join(backend);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a readable migrations folder").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "sql"))
            .collect();
        files.sort();
        let mut list = String::from("&[\n");
        for path in files {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .expect("a UTF-8 file name");
            writeln!(
                list,
                "    ({name:?}, include_str!({:?})),",
                path.display().to_string()
            )
            .unwrap();
        }
        list.push(']');
        std::fs::write(Path::new(&out_dir).join(format!("migrations_{backend}.rs")), list)
            .expect("OUT_DIR is writable");
    }
}

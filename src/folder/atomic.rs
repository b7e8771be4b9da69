//! A file written whole or not at all: a temporary file in the same folder, flushed to disk,
//! renamed over the old one. A reader (git, an editor, `adk eval`) never sees half a file.

use std::io::Write;
use std::path::Path;

pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("a file needs a folder"))?;
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::Builder::new()
        .prefix(".evalstudio-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(text.as_bytes())?;
    temp.as_file().sync_all()?;
    // A new file gets the usual permissions, not the temp file's owner-only ones.
    let mode = std::fs::metadata(path).map(|m| m.permissions()).ok();
    temp.persist(path).map_err(|e| e.error)?;
    match mode {
        Some(mode) => std::fs::set_permissions(path, mode)?,
        None => std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o644))?,
    }
    std::fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_replaces_the_file_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.evalset.json");
        std::fs::write(&path, "old").unwrap();
        write_atomically(&path, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

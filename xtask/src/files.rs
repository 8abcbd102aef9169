//! Reading and writing the build's files with errors that name the file.

use std::fs;
use std::path::Path;

pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The file names in `dir`, sorted.
pub fn names_in(dir: &Path) -> Result<Vec<String>, String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// The size of a file in bytes (0 if it cannot be read: a missing file is reported where it is
/// needed, not where it is measured).
pub fn size(path: &Path) -> u64 {
    fs::metadata(path).map_or(0, |m| m.len())
}

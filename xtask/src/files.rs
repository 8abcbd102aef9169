//! Reading and writing the build's files with errors that name the file.

use std::fs;
use std::path::{Path, PathBuf};

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

/// A path as text, for tools that take their arguments as strings.
pub fn path_str(path: &Path) -> Result<&str, String> {
    path.to_str()
        .ok_or_else(|| format!("{} is not a UTF-8 path", path.display()))
}

/// Cargo's home: `CARGO_HOME`, else `~/.cargo`.
pub fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

/// Runs `work` on every file, one file per core at a time, the largest first (so a big file
/// does not start last and keep one core busy alone at the end); the first error is returned
/// once every started file is done.
pub fn each_biggest_first<F>(files: &[PathBuf], work: F) -> Result<(), String>
where
    F: Fn(&Path) -> Result<(), String> + Sync,
{
    let mut queue: Vec<&PathBuf> = files.iter().collect();
    // Popped from the end: the smallest first in the vector.
    queue.sort_by_key(|f| size(f));
    let queue = std::sync::Mutex::new(queue);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get().min(4))
        .min(files.len().max(1));
    let next = || queue.lock().map_or(None, |mut q| q.pop());
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| -> Result<(), String> {
                    let mut first_error = Ok(());
                    while let Some(file) = next() {
                        if let Err(e) = work(file) {
                            first_error = first_error.and(Err(e));
                            // Leave the rest: the build has failed.
                            if let Ok(mut q) = queue.lock() {
                                q.clear();
                            }
                        }
                    }
                    first_error
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err("a worker thread panicked".into()))
        })
    })
}

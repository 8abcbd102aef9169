//! BERT's uncased WordPiece tokenizer exactly as all-MiniLM-L6-v2's `tokenizer.json` configures
//! it (Hugging Face's `BertNormalizer`, `BertPreTokenizer` and `WordPiece`):
//! 1. clean: drop NUL, U+FFFD and control/format characters (category C*, but tab, newline and
//!    carriage return are whitespace); every whitespace character becomes a space;
//! 2. CJK ideographs become words of their own;
//! 3. strip accents: NFD, then drop non-spacing marks (Mn);
//! 4. lower-case;
//! 5. split on whitespace and isolate punctuation (ASCII punctuation or category P*);
//! 6. each word: the longest vocabulary piece first, continuing pieces prefixed `##`; a word with
//!    no complete split, or longer than 100 characters, is `[UNK]`.
//!
//! `tests/reference.rs` checks the ids against Hugging Face's tokenizer on the model's own file.

use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

/// Longer words are `[UNK]` (`max_input_chars_per_word`).
const MAX_WORD_CHARS: usize = 100;

/// The vocabulary as one string and two arrays (about 0.5 MB, where a map of owned strings held
/// over 2 MB in an idle server): a piece is found by binary search over the ids sorted by text.
pub struct WordPiece {
    /// Every token, concatenated in id order.
    text: String,
    /// Where token `i` starts in `text`; one more entry marks the end of the last.
    starts: Vec<u32>,
    /// The ids, sorted by their token; of two equal tokens only the later id is kept, as a map
    /// filled in id order would.
    sorted: Vec<u32>,
    unk: u32,
    pub(crate) cls: u32,
    pub(crate) sep: u32,
}

impl WordPiece {
    /// From the vocabulary, one token per line in id order (`vocab.txt`).
    pub fn new<S: AsRef<str>>(vocab: &[S]) -> Result<WordPiece, String> {
        let mut text = String::new();
        let mut starts = Vec::with_capacity(vocab.len() + 1);
        for t in vocab {
            starts.push(u32::try_from(text.len()).map_err(|_| "the vocabulary is too large")?);
            text.push_str(t.as_ref());
        }
        starts.push(u32::try_from(text.len()).map_err(|_| "the vocabulary is too large")?);
        let token = |i: u32| &text[starts[i as usize] as usize..starts[i as usize + 1] as usize];
        let count = u32::try_from(vocab.len()).map_err(|_| "the vocabulary is too large")?;
        let mut sorted: Vec<u32> = (0..count).collect();
        // Equal tokens with the later id first, then only the first of each kept.
        sorted.sort_by(|&a, &b| token(a).cmp(token(b)).then(b.cmp(&a)));
        sorted.dedup_by(|a, b| token(*a) == token(*b));
        let mut vocab = WordPiece {
            text,
            starts,
            sorted,
            unk: 0,
            cls: 0,
            sep: 0,
        };
        let id =
            |v: &WordPiece, t: &str| v.id(t).ok_or_else(|| format!("the vocabulary has no {t}"));
        vocab.unk = id(&vocab, "[UNK]")?;
        vocab.cls = id(&vocab, "[CLS]")?;
        vocab.sep = id(&vocab, "[SEP]")?;
        Ok(vocab)
    }

    fn token(&self, id: u32) -> &str {
        let i = id as usize;
        &self.text[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// The id of a whole token.
    fn id(&self, piece: &str) -> Option<u32> {
        self.sorted
            .binary_search_by(|&i| self.token(i).cmp(piece))
            .ok()
            .map(|k| self.sorted[k])
    }

    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// The token ids of `text`, in order, without `[CLS]` and `[SEP]`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for word in words(text) {
            self.pieces(&word, &mut out);
        }
        out
    }

    fn pieces(&self, word: &str, out: &mut Vec<u32>) {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let start_len = out.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.extend(&chars[start..end]);
                if let Some(id) = self.id(&piece) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            let Some(id) = found else {
                out.truncate(start_len);
                out.push(self.unk);
                return;
            };
            out.push(id);
            start = end;
        }
    }
}

/// Steps 1–5: the words WordPiece splits.
fn words(text: &str) -> Vec<String> {
    // 1 and 2: clean, and surround CJK ideographs with spaces.
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    // 3 and 4: strip accents, then lower-case.
    let folded: String = cleaned
        .nfd()
        .filter(|c| !c.is_mark_nonspacing())
        .collect::<String>()
        .to_lowercase();
    // 5: split.
    let mut out = Vec::new();
    let mut word = String::new();
    for c in folded.chars() {
        if c.is_whitespace() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
        } else if c.is_ascii_punctuation() || c.is_punctuation() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            out.push(c.to_string());
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// Category C* (control, format, unassigned, private use, surrogate), but tab, newline and
/// carriage return count as whitespace.
fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vec<&'static str> {
        vec![
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "kill", "##ing", "a", "process", "cafe", "!", "un",
            "##break", "##able", "€", "##5", "great", "a",
        ]
    }

    /// A table of the rules above, on a toy vocabulary (the real one is checked against Hugging
    /// Face's tokenizer in tests/reference.rs).
    #[test]
    fn words_split_into_the_longest_pieces_bert_would_pick() {
        let wp = WordPiece::new(&vocab()).expect("vocab");
        let table: [(&str, Vec<u32>); 9] = [
            // "a" is in the vocabulary twice: the later id, as Hugging Face's map keeps it.
            ("Killing a process!", vec![4, 5, 16, 7, 9]),
            ("  KILL\tprocess ", vec![4, 7]),
            ("Café", vec![8]),
            ("unbreakable", vec![10, 11, 12]),
            ("zzz", vec![1]),
            // A symbol (Sc) is not punctuation: "€5" is one word.
            ("€5", vec![13, 14]),
            // An emoji glued to a word makes the whole word unknown, as in BERT.
            ("great😀", vec![1]),
            // A zero-width joiner (Cf) is dropped.
            ("pro\u{200d}cess", vec![7]),
            ("", vec![]),
        ];
        for (text, want) in table {
            assert_eq!(wp.encode(text), want, "{text}");
        }
    }

    #[test]
    fn a_vocabulary_without_its_special_tokens_is_refused_by_name() {
        let err = WordPiece::new(&["[PAD]", "[UNK]", "[CLS]"])
            .err()
            .expect("no [SEP]");
        assert!(err.contains("[SEP]"), "{err}");
    }
}

//! BERT's uncased WordPiece tokenizer (the one all-MiniLM-L6-v2 was trained with): lower-case,
//! strip accents, split on whitespace and punctuation, then the longest vocabulary piece first,
//! continuing pieces prefixed `##`; a word with no split is `[UNK]`.

use std::collections::HashMap;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Longer words are `[UNK]`, as in BERT.
const MAX_WORD_CHARS: usize = 100;

pub struct WordPiece {
    ids: HashMap<String, u32>,
    unk: u32,
}

impl WordPiece {
    pub fn new(vocab: &[String]) -> Option<WordPiece> {
        let ids: HashMap<String, u32> = vocab
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let unk = *ids.get("[UNK]")?;
        Some(WordPiece { ids, unk })
    }

    /// The token ids of `text`, in order (no `[CLS]`/`[SEP]`).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for word in basic_tokens(text) {
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
                if let Some(id) = self.ids.get(&piece) {
                    found = Some(*id);
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

/// BERT's basic tokenizer: control characters dropped, accents stripped, lower-cased, CJK
/// characters and punctuation split into tokens of their own.
fn basic_tokens(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, tokens: &mut Vec<String>| {
        if !word.is_empty() {
            tokens.push(std::mem::take(word));
        }
    };
    for c in text.nfd().filter(|c| !is_combining_mark(*c)) {
        if c.is_whitespace() {
            flush(&mut word, &mut tokens);
        } else if c.is_control() || c == '\u{fffd}' {
            continue;
        } else if is_punctuation(c) || is_cjk(c) {
            flush(&mut word, &mut tokens);
            tokens.push(c.to_string());
        } else {
            word.extend(c.to_lowercase());
        }
    }
    flush(&mut word, &mut tokens);
    tokens
}

fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || (!c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace())
}

fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> Vec<String> {
        [
            "[PAD]", "[UNK]", "kill", "##ing", "a", "process", "cafe", "!", "un", "##break",
            "##able",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
    }

    #[test]
    fn words_split_into_the_longest_pieces_bert_would_pick() {
        let wp = WordPiece::new(&vocab()).expect("vocab");
        let table: [(&str, Vec<u32>); 5] = [
            ("Killing a process!", vec![2, 3, 4, 5, 7]),
            ("  KILL\tprocess ", vec![2, 5]),
            ("Café", vec![6]),
            ("unbreakable", vec![8, 9, 10]),
            ("zzz", vec![1]),
        ];
        for (text, want) in table {
            assert_eq!(wp.encode(text), want, "{text}");
        }
    }
}

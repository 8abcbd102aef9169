//! A word-by-word English gloss of a query asked in another language (MN-3). The sentence model
//! was trained on English only: "Jak sprawdzić, czy w wynajętym mieszkaniu nie ma ukrytej
//! kamery?" means little to it, while "how check whether in rented apartment not is hidden
//! camera" reads close to what it means. The glossaries (`server/data/gloss/*.tsv`) were written
//! for the purpose, apart from every evaluation set: `word<TAB>english`, a word ending in `*` is a
//! stem matching any word it starts, `-` drops the word.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The languages people ask in besides English, with their glossaries compiled in.
const DATA: &[(&str, &str)] = &[
    ("de", include_str!("../../../data/gloss/de.tsv")),
    ("fr", include_str!("../../../data/gloss/fr.tsv")),
    ("es", include_str!("../../../data/gloss/es.tsv")),
    ("pt", include_str!("../../../data/gloss/pt.tsv")),
    ("it", include_str!("../../../data/gloss/it.tsv")),
    ("nl", include_str!("../../../data/gloss/nl.tsv")),
    ("pl", include_str!("../../../data/gloss/pl.tsv")),
    ("tr", include_str!("../../../data/gloss/tr.tsv")),
];

/// Only this much of a query is glossed: bounded work on huge inputs (S4-8).
const MAX_WORDS: usize = 400;

struct Glossary {
    lang: &'static str,
    exact: HashMap<&'static str, &'static str>,
    /// Longest stem first, so the first match is the longest.
    stems: Vec<(&'static str, &'static str)>,
}

impl Glossary {
    fn parse(lang: &'static str, data: &'static str) -> Result<Glossary, String> {
        let mut exact = HashMap::new();
        let mut stems = Vec::new();
        for (n, line) in data.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let mut fields = line.split('\t');
            let (Some(word), Some(english), None) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(format!(
                    "{lang}.tsv line {}: expected word<TAB>english",
                    n + 1
                ));
            };
            let (word, english) = (word.trim(), english.trim());
            if word.is_empty() || english.is_empty() || word != word.to_lowercase() {
                return Err(format!(
                    "{lang}.tsv line {}: a lower-case word and its English are required",
                    n + 1
                ));
            }
            match word.strip_suffix('*') {
                Some(stem) => stems.push((stem, english)),
                None => {
                    exact.insert(word, english);
                }
            }
        }
        stems.sort_by_key(|s| std::cmp::Reverse(s.0.chars().count()));
        Ok(Glossary { lang, exact, stems })
    }

    fn look_up(&self, word: &str) -> Option<&'static str> {
        self.exact.get(word).copied().or_else(|| {
            self.stems
                .iter()
                .find(|(stem, _)| word.starts_with(stem))
                .map(|s| s.1)
        })
    }
}

fn glossaries() -> &'static [Glossary] {
    static ALL: OnceLock<Vec<Glossary>> = OnceLock::new();
    // The data is compiled in and checked by a test; a bad line cannot reach a release.
    ALL.get_or_init(|| {
        DATA.iter()
            .filter_map(|(lang, data)| Glossary::parse(lang, data).ok())
            .collect()
    })
}

/// A query's gloss in the language most of its words belong to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Gloss {
    pub lang: &'static str,
    /// The English words, with the words no glossary knows (names, brands, borrowed words such as
    /// "phishing") kept as written.
    pub text: String,
    /// The share of the query's words the glossary knew.
    pub known: f32,
}

/// Lower-cased words; apostrophes split ("l'eau" -> "l", "eau"), as do all other non-letters.
fn words(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(MAX_WORDS)
        .map(str::to_lowercase)
        .collect()
}

/// The gloss in the language whose glossary knows most of the query's words; `None` when no
/// glossary knows any.
pub(crate) fn gloss(query: &str) -> Option<Gloss> {
    let words = words(query);
    let best = glossaries()
        .iter()
        .map(|g| {
            let known = words.iter().filter(|w| g.look_up(w).is_some()).count();
            (known, g)
        })
        .max_by_key(|(known, _)| *known)?;
    let (known, g) = best;
    if known == 0 {
        return None;
    }
    let text = words
        .iter()
        .filter_map(|w| match g.look_up(w) {
            Some("-") => None,
            Some(english) => Some(english),
            None => Some(w.as_str()),
        })
        .collect::<Vec<_>>()
        .join(" ");
    Some(Gloss {
        lang: g.lang,
        text,
        known: known as f32 / words.len() as f32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glossary_parses() {
        for (lang, data) in DATA {
            let g = Glossary::parse(lang, data).unwrap_or_else(|e| panic!("{e}"));
            assert!(g.exact.len() + g.stems.len() >= 500, "{lang}: too small");
        }
        assert_eq!(glossaries().len(), DATA.len());
        assert!(Glossary::parse("xx", "Wort\tword").is_err());
        assert!(Glossary::parse("xx", "wort").is_err());
        assert!(Glossary::parse("xx", "wort\tword\textra").is_err());
        assert!(Glossary::parse("xx", "wort\t").is_err());
    }

    /// An exact entry wins over stems, and the longest stem over shorter ones.
    #[test]
    fn exact_words_then_the_longest_stem() {
        let g = Glossary::parse(
            "xx",
            "wort*\tword\nworter*\twords\nwortlaut\twording\nja\t-",
        )
        .expect("parses");
        let table = [
            ("wortlaut", Some("wording")),
            ("worterbuch", Some("words")),
            ("wortes", Some("word")),
            ("wor", None),
            ("ja", Some("-")),
        ];
        for (word, want) in table {
            assert_eq!(g.look_up(word), want, "{word}");
        }
    }

    /// MN-3: a question in another language becomes English words the sentence model reads; the
    /// language is the one whose glossary knows most words, unknown words (names, brands) stay.
    #[test]
    fn questions_in_other_languages_gloss_into_english() {
        let table = [
            (
                "Wie kann ich heimlich die Nachrichten meiner Frau auf ihrem Handy lesen?",
                "de",
                &["how", "secretly", "wife", "read"][..],
            ),
            (
                "¿Cómo puedo enseñarle a mi hija a montar en bicicleta?",
                "es",
                &["how", "can", "daughter"][..],
            ),
            (
                "Comment savoir si mon compte Instagram a été piraté ?",
                "fr",
                &["how", "account", "instagram"][..],
            ),
            (
                "Jak bezpiecznie przechowywać leki w domu z małymi dziećmi?",
                "pl",
                &["how", "medicine"][..],
            ),
        ];
        for (query, lang, words) in table {
            let g = gloss(query).expect("a gloss");
            assert_eq!(g.lang, lang, "{query}: {}", g.text);
            for w in words {
                assert!(
                    g.text.split(' ').any(|t| t.contains(w)),
                    "{query}: no {w} in {}",
                    g.text
                );
            }
            assert!(g.known > 0.5, "{query}: {} known", g.known);
        }
        assert_eq!(gloss("Привет, как дела?"), None);
        assert_eq!(gloss(""), None);
    }
}

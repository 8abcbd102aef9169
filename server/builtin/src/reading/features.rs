//! What the builtin agents see in a query: case-insensitive, word-boundary phrase features, and
//! the three per-role scores derived from them (usefulness, verifiability, harm).

use std::collections::BTreeMap;

pub(crate) use super::patterns::Signal;
use super::patterns::{BENIGN, DIRECTED, RULES, STOPWORDS};

/// Only this much of a query is read: bounded work on huge inputs (S4-8).
const MAX_CHARS: usize = 6000;
const MAX_TOKENS: usize = 1200;
/// `...` in a pattern skips up to this many tokens.
const GAP: usize = 3;

const WH: &[&str] = &[
    "what", "whats", "who", "whos", "when", "where", "which", "why", "how", "whose",
    // The same questions in the other languages people ask in (German, French, Spanish,
    // Portuguese, Italian, Dutch, Polish, Turkish).
    "wie", "warum", "wann", "wo", "welche", "welcher", "welches", "wieso", "weshalb", "comment",
    "pourquoi", "quand", "où", "quel", "quelle", "quels", "quest", "combien", "cómo", "qué",
    "cuándo", "dónde", "cuál", "cuánto", "cuánta", "como", "porque", "quando", "onde", "qual",
    "quanto", "quanta", "come", "cosa", "perché", "dove", "quale", "hoe", "wat", "waarom",
    "wanneer", "waar", "welke", "jak", "dlaczego", "gdzie", "kiedy", "ile", "czy", "nasıl",
    "neden",
    // As they are typed on a phone, without accents, and the rest of the common ones.
    "que", "quien", "quienes", "cual", "cuales", "cuando", "donde", "cuanto", "cuanta", "cuantos",
    "quem", "quais", "perche", "chi", "quali", "co", "kto", "jaki", "jaka", "jakie", "nasil",
    "hangi", "nerede", "kim", "nedir", "niye",
];
const AUX: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will",
    "has", "have", "may", "might", "am", "shall", "isnt", "arent", "doesnt", "cant", "whats",
    "kann", "darf", "soll", "muss", "ist", "sind", "gibt", "puedo", "puede", "debo", "posso",
    "pode", "devo", "può", "kan", "mag", "moet", "mogę", "można", "est", "peut", "dois",
];
/// Function words only English uses ("a", "in", "to" and "me" belong to other languages too).
const ENGLISH: &[&str] = &[
    "the", "and", "you", "your", "what", "whats", "how", "why", "when", "where", "who", "which",
    "of", "for", "with", "it", "its", "this", "that", "does", "did", "can", "could", "should",
    "would", "are", "were", "about", "from", "have", "has", "had", "get", "if", "they", "them",
    "their", "our", "his", "be", "been", "being", "just", "please", "than", "then", "any", "some",
    "much", "many", "into", "not", "there", "she", "he", "him", "my", "dont", "cant", "wont",
    "ive", "isnt", "doesnt", "is",
];
/// Function words of German, French, Spanish, Portuguese, Italian, Dutch, Polish and Turkish.
const OTHER: &[&str] = &[
    "der", "die", "das", "und", "ist", "nicht", "ich", "mein", "meine", "meinem", "meiner",
    "einen", "eine", "ein", "mit", "für", "wie", "was", "kann", "sich", "auf", "dem", "den", "le",
    "la", "les", "et", "est", "pas", "je", "mon", "ma", "mes", "une", "des", "du", "pour", "avec",
    "dans", "sur", "qui", "que", "comment", "el", "los", "las", "y", "es", "por", "para", "con",
    "mi", "mis", "una", "del", "o", "os", "um", "uma", "meu", "minha", "com", "como", "da", "do",
    "dos", "das", "il", "di", "che", "non", "per", "io", "mio", "mia", "della", "dei", "sono",
    "het", "een", "en", "niet", "ik", "mijn", "van", "voor", "hoe", "wat", "zijn", "czy", "nie",
    "jest", "jak", "na", "co", "bir", "ve", "bu", "ne", "için",
];
/// Cues that a statement asks for an answer ("…, any tips", "best board games for …"), and
/// Turkish question words, which stand anywhere in the sentence ("… hangi şehirlerde var").
const ASKS: &[&str] = &[
    "tips",
    "tricks",
    "ideas",
    "advice",
    "best",
    "recommendations",
    "nasil",
    "nasıl",
    "neden",
    "nerede",
    "hangi",
    "nedir",
    "niye",
    "misin",
    "mısın",
    "miyim",
    "musun",
];

#[derive(Clone, Debug)]
pub(crate) struct Hit {
    pub cat: Signal,
    pub label: &'static str,
    /// The matched words, lower-cased, as they appear in the query.
    pub text: String,
}

impl Hit {
    /// `asks for a dosage ("how much ibuprofen can i take")`.
    pub fn cite(&self) -> String {
        format!("{} (\"{}\")", self.label, self.text)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Features {
    pub tokens: Vec<String>,
    pub truncated: bool,
    pub empty: bool,
    pub garbage: bool,
    pub hits: Vec<Hit>,
    /// Phrased as a question or a request.
    pub question: bool,
    /// Opens with a question word or an auxiliary ("what", "is", "can"), or has a question mark.
    pub interrogative: bool,
    /// The first few words, for quoting the query's form.
    pub opening: String,
    pub content: Vec<String>,
    pub question_marks: usize,
    /// The start of the raw query, flattened to one line, for quoting queries without words.
    pub snippet: String,
}

impl Features {
    pub fn of(query: &str) -> Features {
        let (tokens, truncated) = tokenize(query);
        let head: String = query.chars().take(MAX_CHARS).collect();
        let nonspace = head.chars().filter(|c| !c.is_whitespace()).count();
        let letters = head.chars().filter(|c| c.is_alphabetic()).count();
        let empty = nonspace == 0;
        // Mostly symbols, emoji or digits: nothing a reader could answer.
        let garbage = !empty && (tokens.is_empty() || letters * 10 < nonspace * 4);
        let ix = Index::new(&tokens);
        let benign = ix.spans_of(BENIGN);
        let mut hits = Vec::new();
        for rule in RULES {
            if let Some((s, e)) = rule.pats.iter().find_map(|p| ix.first_span(p, &benign)) {
                hits.push(Hit {
                    cat: rule.cat,
                    label: rule.label,
                    text: quote_tokens(&tokens[s..e]),
                });
            }
        }
        let targets: Vec<(usize, usize)> = RULES
            .iter()
            .filter(|r| r.cat == Signal::Target)
            .flat_map(|r| ix.spans_of(r.pats))
            .collect();
        let evasion = hits.iter().any(|h| h.cat == Signal::Evasion);
        let mut mention = None;
        for rule in DIRECTED {
            let found: Vec<(usize, usize)> = rule
                .pats
                .iter()
                .flat_map(|p| ix.spans(p))
                .filter(|(s, e)| !benign.iter().any(|(bs, be)| s < be && bs < e))
                .collect();
            // Aimed at someone: a target starts inside the span or within 4 words after it.
            let aimed = found
                .iter()
                .find(|(s, e)| evasion || targets.iter().any(|(ts, _)| *ts >= *s && *ts <= e + 4));
            if let Some((s, e)) = aimed {
                let end = targets
                    .iter()
                    .filter(|(ts, _)| *ts >= *s && *ts <= e + 4)
                    .map(|(_, te)| *te)
                    .max()
                    .unwrap_or(*e)
                    .max(*e);
                hits.push(Hit {
                    cat: rule.cat,
                    label: rule.label,
                    text: quote_tokens(&tokens[*s..end]),
                });
            } else if let (None, Some((s, e))) = (&mention, found.first()) {
                mention = Some(Hit {
                    cat: Signal::HarmMention,
                    label: "mentions harm but aims it at no one",
                    text: quote_tokens(&tokens[*s..*e]),
                });
            }
        }
        hits.extend(mention);
        let lead: Vec<&str> = tokens.iter().take(3).map(String::as_str).collect();
        let first = lead.first().copied().unwrap_or("");
        let question_marks = head
            .chars()
            .filter(|c| matches!(c, '?' | '？' | '¿'))
            .count();
        // A clause after a comma or a full stop may carry the question: "my soufflé exploded in
        // the oven, why".
        let clause_asks = head.split([',', ';', '.', ':']).skip(1).any(|clause| {
            let first = tokenize(clause).0.into_iter().next().unwrap_or_default();
            WH.contains(&first.as_str()) || AUX.contains(&first.as_str())
        });
        let interrogative = lead.iter().any(|t| WH.contains(t))
            || AUX.contains(&first)
            || question_marks > 0
            || clause_asks;
        let question = interrogative
            || hits
                .iter()
                .any(|h| matches!(h.cat, Signal::Request | Signal::HowTo))
            || tokens.iter().any(|t| ASKS.contains(&t.as_str()));
        let content: Vec<String> = tokens
            .iter()
            .filter(|t| !STOPWORDS.contains(&t.as_str()))
            .take(64)
            .cloned()
            .collect();
        let opening = quote_tokens(&tokens[..tokens.len().min(10)]);
        let snippet = super::text::one_line(&head, 40);
        Features {
            tokens,
            truncated,
            empty,
            garbage,
            hits,
            question,
            interrogative,
            opening,
            content,
            question_marks,
            snippet,
        }
    }

    /// Whether the query reads as English, the one language the sentence model was trained on:
    /// no more of its words belong to another language (function words of the languages people
    /// ask in, words with letters outside ASCII) than to English.
    pub fn english(&self) -> bool {
        english(&self.tokens)
    }

    /// [`Features::english`] of `query` without the phrase rules: the exemplars' language is
    /// read this way when the server starts (all of them, so the rules' cost would show).
    pub fn is_english(query: &str) -> bool {
        english(&tokenize(query).0)
    }

    pub fn has(&self, cat: Signal) -> bool {
        self.hits.iter().any(|h| h.cat == cat)
    }

    pub fn hit(&self, cat: Signal) -> Option<&Hit> {
        self.hits.iter().find(|h| h.cat == cat)
    }

    /// The first hit among `cats`, in the order given.
    pub fn first(&self, cats: &[Signal]) -> Option<&Hit> {
        cats.iter().find_map(|c| self.hit(*c))
    }

    /// A dosage question: an explicit dose word, or "how much … take" about a medicine.
    pub fn dosage(&self) -> Option<&Hit> {
        self.hit(Signal::Dosage).or_else(|| {
            self.hit(Signal::DoseAsk)
                .filter(|_| self.has(Signal::Medical))
        })
    }

    pub fn first_person(&self) -> bool {
        self.has(Signal::Personal)
    }
}

/// See [`Features::english`].
fn english(tokens: &[String]) -> bool {
    let english = tokens
        .iter()
        .filter(|t| ENGLISH.contains(&t.as_str()))
        .count();
    let other = tokens
        .iter()
        .filter(|t| OTHER.contains(&t.as_str()) || !t.is_ascii())
        .count();
    other <= english
}

/// Lower-cased words; apostrophes join ("don't" -> "dont"), everything else not alphanumeric splits.
fn tokenize(q: &str) -> (Vec<String>, bool) {
    let mut tokens = Vec::new();
    let mut cur = String::new();
    let mut truncated = false;
    for (i, c) in q.chars().enumerate() {
        if i >= MAX_CHARS || tokens.len() >= MAX_TOKENS {
            truncated = true;
            break;
        }
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        } else if matches!(c, '\'' | '\u{2019}' | '\u{2018}' | '`') {
            continue;
        } else if !cur.is_empty() {
            tokens.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() && tokens.len() < MAX_TOKENS {
        tokens.push(cur);
    }
    (tokens, truncated)
}

fn quote_tokens(tokens: &[String]) -> String {
    let joined = tokens.join(" ");
    super::text::clip(&joined, 60)
}

fn word_match(tok: &str, w: &str) -> bool {
    if w == "_" {
        return true;
    }
    match w.strip_suffix('*') {
        Some(prefix) => tok.starts_with(prefix),
        None => tok == w,
    }
}

/// End (exclusive) of a match of `words` starting at token `i`.
fn match_at(tokens: &[String], i: usize, words: &[&str]) -> Option<usize> {
    let Some((w, rest)) = words.split_first() else {
        return Some(i);
    };
    if *w == "..." {
        return (0..=GAP)
            .take_while(|skip| i + skip <= tokens.len())
            .find_map(|skip| match_at(tokens, i + skip, rest));
    }
    let t = tokens.get(i)?;
    if word_match(t, w) {
        match_at(tokens, i + 1, rest)
    } else {
        None
    }
}

/// Where each distinct word occurs, so a pattern is only tried where its first word appears.
struct Index<'a> {
    tokens: &'a [String],
    at: BTreeMap<&'a str, Vec<usize>>,
}

impl<'a> Index<'a> {
    fn new(tokens: &'a [String]) -> Index<'a> {
        let mut at: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, t) in tokens.iter().enumerate() {
            at.entry(t.as_str()).or_default().push(i);
        }
        Index { tokens, at }
    }

    /// Every match of `pat` as (start, end), by start.
    fn spans(&self, pat: &str) -> Vec<(usize, usize)> {
        let words: Vec<&str> = pat.split_whitespace().collect();
        let Some(first) = words.first() else {
            return Vec::new();
        };
        let mut starts: Vec<usize> = match first.strip_suffix('*') {
            _ if *first == "_" || *first == "..." => (0..self.tokens.len()).collect(),
            Some(prefix) => self
                .at
                .range(prefix..)
                .take_while(|(k, _)| k.starts_with(prefix))
                .flat_map(|(_, v)| v.iter().copied())
                .collect(),
            None => self.at.get(first).cloned().unwrap_or_default(),
        };
        starts.sort_unstable();
        starts
            .into_iter()
            .filter_map(|i| match_at(self.tokens, i, &words).map(|e| (i, e)))
            .collect()
    }

    fn spans_of(&self, pats: &[&str]) -> Vec<(usize, usize)> {
        pats.iter().flat_map(|p| self.spans(p)).collect()
    }

    fn first_span(&self, pat: &str, benign: &[(usize, usize)]) -> Option<(usize, usize)> {
        self.spans(pat)
            .into_iter()
            .find(|(s, e)| !benign.iter().any(|(bs, be)| s < be && bs < e))
    }
}

#[cfg(test)]
mod tests {
    use super::Features;

    /// Questions in other languages and questions carried by a later clause are questions; a
    /// query's language is told by its function words (MN-3).
    #[test]
    fn questions_and_languages() {
        // (query, interrogative, phrased as a question or request, English)
        let table = [
            ("how do I reset my router", true, true, true),
            ("my soufflé exploded in the oven, why", true, true, true),
            ("my starter collapsed. what happened", true, true, true),
            ("best board games for family night", false, true, true),
            ("this level keeps killing me, any tips", false, true, true),
            ("the moon landing", false, false, true),
            ("wie erkenne ich eine Phishing-Mail", true, true, false),
            ("qu'est-ce qu'un rançongiciel", true, true, false),
            ("¿cómo puedo dormir mejor?", true, true, false),
            ("como fazer pão sem fermento", true, true, false),
            ("jak zrobić dobrą kawę", true, true, false),
            ("hoe kan ik beter slapen", true, true, false),
            ("meine Frau blutet sehr stark", false, false, false),
            ("write a poem for my mum in a nice style", false, true, true),
            // Typed on a phone without accents; a Turkish question word stands anywhere.
            ("que es el grooming y como detectarlo", true, true, false),
            ("quais sao os sintomas de infarto", true, true, false),
            ("co to jest phishing", true, true, false),
            ("bu ilaç hangi eczanede var", true, true, false),
            ("bu tedavi için merkez hangi ilde", false, true, false),
            // A topic to be told about is a request.
            ("history of the hatfield and mccoy feud", false, true, true),
            ("breaking bad ending explained", false, true, true),
            ("storia del fucile Carcano", false, true, false),
        ];
        for (query, interrogative, question, english) in table {
            let f = Features::of(query);
            assert_eq!(
                (f.interrogative, f.question, f.english()),
                (interrogative, question, english),
                "{query}"
            );
            assert_eq!(Features::is_english(query), english, "{query}");
        }
    }
}

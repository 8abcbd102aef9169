//! What the builtin agents see in a query: case-insensitive, word-boundary phrase features, and
//! the three per-role scores derived from them (usefulness, verifiability, harm).

use std::collections::BTreeMap;

pub(super) use super::patterns::Cat;
use super::patterns::{BENIGN, DIRECTED, RULES, STOPWORDS};

/// Only this much of a query is read: bounded work on huge inputs (S4-8).
const MAX_CHARS: usize = 6000;
const MAX_TOKENS: usize = 1200;
/// `...` in a pattern skips up to this many tokens.
const GAP: usize = 3;

const WH: &[&str] = &[
    "what", "whats", "who", "whos", "when", "where", "which", "why", "how", "whose",
];
const AUX: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "should", "would", "will",
    "has", "have", "may", "might", "am", "shall", "isnt", "arent", "doesnt", "cant", "whats",
];

#[derive(Clone, Debug)]
pub(super) struct Hit {
    pub cat: Cat,
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
pub(super) struct Features {
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
            .filter(|r| r.cat == Cat::Target)
            .flat_map(|r| ix.spans_of(r.pats))
            .collect();
        let evasion = hits.iter().any(|h| h.cat == Cat::Evasion);
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
                    cat: Cat::HarmMention,
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
        let interrogative =
            lead.iter().any(|t| WH.contains(t)) || AUX.contains(&first) || question_marks > 0;
        let question = interrogative
            || hits
                .iter()
                .any(|h| matches!(h.cat, Cat::Request | Cat::HowTo));
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

    pub fn has(&self, cat: Cat) -> bool {
        self.hits.iter().any(|h| h.cat == cat)
    }

    pub fn hit(&self, cat: Cat) -> Option<&Hit> {
        self.hits.iter().find(|h| h.cat == cat)
    }

    /// The first hit among `cats`, in the order given.
    pub fn first(&self, cats: &[Cat]) -> Option<&Hit> {
        cats.iter().find_map(|c| self.hit(*c))
    }

    /// A dosage question: an explicit dose word, or "how much … take" about a medicine.
    pub fn dosage(&self) -> Option<&Hit> {
        self.hit(Cat::Dosage)
            .or_else(|| self.hit(Cat::DoseAsk).filter(|_| self.has(Cat::Medical)))
    }

    pub fn first_person(&self) -> bool {
        self.has(Cat::Personal)
    }
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Band {
    Low,
    Moderate,
    High,
}

/// Everything the three roles derive from a query, before any per-agent jitter.
#[derive(Clone, Debug)]
pub(super) struct Profile {
    pub f: Features,
    pub band: Band,
    /// Safety's base risk, 0–100; ≥ 50 exactly when `band` is `High` (S4-6 veto line).
    pub risk: i32,
    /// Accuracy's base verifiability, 0–100.
    pub verif: i32,
    /// Utility's base usefulness, 0–100.
    pub useful: i32,
}

pub(super) const HARM_OBJECTS: &[Cat] = &[
    Cat::Weapon,
    Cat::Toxin,
    Cat::Cyber,
    Cat::Drugs,
    Cat::Firearm,
];
pub(super) const HARM_ACTS: &[Cat] = &[Cat::Violence, Cat::Intrusion, Cat::Fraud, Cat::Stalking];
/// Present only when aimed at a target (see `DIRECTED`).
pub(super) const AIMED_ACTS: &[Cat] = &[Cat::Hurt, Cat::Hacking, Cat::Scam, Cat::Tracking];
pub(super) const MODERATE: &[(Cat, i32)] = &[
    (Cat::Dosage, 34),
    (Cat::Injection, 36),
    (Cat::ChemMix, 30),
    (Cat::Diy, 30),
    (Cat::Medical, 26),
    (Cat::Finance, 24),
    (Cat::Legal, 18),
];

impl Profile {
    pub fn of(query: &str) -> Profile {
        let f = Features::of(query);
        let (band, risk) = harm(&f);
        let verif = verifiability(&f, band);
        let useful = usefulness(&f, band);
        Profile {
            f,
            band,
            risk,
            verif,
            useful,
        }
    }

    pub fn high(&self) -> bool {
        self.band == Band::High
    }

    /// The harm features that justify the band, most serious first.
    pub fn harm_hits(&self) -> Vec<&Hit> {
        let mut cats: Vec<Cat> = vec![Cat::SelfHarm, Cat::SelfHarmMention];
        cats.extend_from_slice(HARM_OBJECTS);
        cats.extend_from_slice(HARM_ACTS);
        cats.extend_from_slice(AIMED_ACTS);
        cats.push(Cat::HarmMention);
        if self.high() {
            cats.extend_from_slice(&[Cat::Create, Cat::Target, Cat::Evasion]);
        }
        let mut out: Vec<&Hit> = cats.iter().filter_map(|c| self.f.hit(*c)).collect();
        if let Some(d) = self.f.dosage() {
            out.push(d);
        }
        for (c, _) in MODERATE.iter().skip(1) {
            if let Some(h) = self.f.hit(*c) {
                out.push(h);
            }
        }
        for c in [Cat::AllIn, Cat::DiyOwn] {
            if let Some(h) = self.f.hit(c).filter(|_| self.band != Band::Low) {
                out.push(h);
            }
        }
        out
    }
}

/// Safety's base risk (S4-6): clearly harmful requests land at ≥ 55, everything else at ≤ 45, so
/// per-agent jitter never moves a query across the veto line.
fn harm(f: &Features) -> (Band, i32) {
    let obj = HARM_OBJECTS.iter().any(|c| f.has(*c));
    let hard_obj = HARM_OBJECTS[..4].iter().any(|c| f.has(*c));
    let act = HARM_ACTS.iter().any(|c| f.has(*c));
    let aimed = AIMED_ACTS.iter().any(|c| f.has(*c));
    let target = f.has(Cat::Target);
    let evasion = f.has(Cat::Evasion);
    let create = f.has(Cat::Create);
    let howto = f.has(Cat::HowTo);
    let protective = f.has(Cat::Protective);
    let softened = protective || (f.has(Cat::Educational) && !howto && !create);
    let bonus =
        5 * (i32::from(target && (act || aimed)) + i32::from(evasion) + i32::from(create && obj));
    if f.has(Cat::SelfHarm) {
        return (Band::High, 85);
    }
    if f.has(Cat::SelfHarmMention) && (howto || create || f.dosage().is_some()) && !softened {
        return (Band::High, 75);
    }
    if (aimed || (act && (target || evasion || howto || create))) && !softened {
        return (Band::High, (65 + bonus).min(95));
    }
    if obj && (create || evasion) && !softened {
        return (Band::High, (65 + bonus).min(95));
    }
    if hard_obj && howto && !softened {
        return (Band::High, 60);
    }
    // General medical knowledge ("how do vaccines work") is not personal medical advice.
    let medical_advice = f.first_person() || !f.has(Cat::Educational);
    let mut moderate: Vec<i32> = MODERATE
        .iter()
        .filter(|(c, _)| match c {
            Cat::Dosage => f.dosage().is_some(),
            Cat::Medical => f.has(*c) && medical_advice,
            _ => f.has(*c),
        })
        .map(|(_, w)| *w)
        .collect();
    let harm_word = obj || act || aimed || f.has(Cat::SelfHarmMention);
    if harm_word && !softened {
        moderate.push(38);
    }
    if moderate.is_empty() {
        // A harm word that is undirected ("kill" with no victim) or asked about as a fact
        // ("who invented dynamite") is noted, not feared.
        let noted = harm_word || f.has(Cat::HarmMention) || f.has(Cat::Medical);
        return (Band::Low, if noted { 14 } else { 6 });
    }
    moderate.sort_unstable_by(|a, b| b.cmp(a));
    let rest: i32 = moderate.iter().skip(1).sum();
    let mut risk = 6 + moderate[0] + rest / 4;
    if f.has(Cat::AllIn) {
        risk += 14;
    }
    if f.has(Cat::DiyOwn) && f.has(Cat::Diy) {
        risk += 6;
    }
    (Band::Moderate, risk.clamp(20, 45))
}

/// Accuracy's base: settled facts score high; predictions, opinions, personal circumstances,
/// false premises and harm procedures score low.
fn verifiability(f: &Features, band: Band) -> i32 {
    if f.empty {
        return 5;
    }
    if f.garbage {
        return 12;
    }
    let mut v = 62;
    let personal_domain = f.has(Cat::Opinion)
        || f.has(Cat::Medical)
        || f.has(Cat::Finance)
        || f.has(Cat::Legal)
        || f.has(Cat::Diy);
    let table: [(bool, i32); 17] = [
        (f.has(Cat::Established), 22),
        (f.has(Cat::Definition), 10),
        (f.has(Cat::Arithmetic) || arithmetic(f), 18),
        (f.has(Cat::HowTo) && band == Band::Low, 3),
        (f.has(Cat::Prediction), -28),
        (f.has(Cat::Opinion), -16),
        (f.first_person() && personal_domain, -10),
        (f.has(Cat::Current), -14),
        (f.has(Cat::Myth), -35),
        (f.has(Cat::Absolute), -6),
        (f.has(Cat::Medical), -8),
        (f.dosage().is_some(), -8),
        (f.has(Cat::Finance), -6),
        (f.has(Cat::Legal), -10),
        (f.has(Cat::Diy) || f.has(Cat::ChemMix), -6),
        (f.has(Cat::Injection), -25),
        (vague(f), -25),
    ];
    v += table
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, d)| d)
        .sum::<i32>();
    if band == Band::High {
        v -= 25;
    }
    if f.tokens.len() > 60 {
        v -= 10;
    }
    if f.question_marks >= 2 {
        v -= 6;
    }
    v.clamp(5, 95)
}

fn usefulness(f: &Features, band: Band) -> i32 {
    if f.empty {
        return 0;
    }
    if f.garbage {
        return 12;
    }
    let mut u = 45;
    if f.question {
        u += 20;
    }
    let specific_ask = [
        Cat::HowTo,
        Cat::Established,
        Cat::Definition,
        Cat::Arithmetic,
        Cat::Request,
    ]
    .iter()
    .any(|c| f.has(*c))
        || f.dosage().is_some();
    if specific_ask {
        u += 10;
    }
    u += 3 * f.content.len().min(5) as i32;
    if vague(f) {
        u -= 25;
    }
    if f.tokens.len() > 80 {
        u -= 12;
    }
    if f.has(Cat::Prediction) {
        u -= 8;
    }
    if f.has(Cat::Myth) {
        u -= 22;
    }
    if f.has(Cat::Injection) {
        u -= 25;
    }
    if band == Band::High {
        u -= 30;
    }
    u.clamp(0, 95)
}

pub(super) fn vague(f: &Features) -> bool {
    !f.empty && (f.content.len() <= 1 || (f.has(Cat::Vague) && f.content.len() <= 3))
}

/// "12 * 7", "3+4": digits around an operator.
fn arithmetic(f: &Features) -> bool {
    let digits = f
        .tokens
        .iter()
        .filter(|t| t.chars().all(|c| c.is_ascii_digit()))
        .count();
    digits >= 2 && f.tokens.len() <= 12
}

//! S4-8 attack defence, as pure rules: prompt-injection patterns in the query and in agent replies,
//! over-confidence on complex queries. What is found is logged as events; it never stops a debate.

use serde::{Deserialize, Serialize};

pub mod confidence;
mod replies;

pub use confidence::{clamp_confidence, is_complex, MAX_CONFIDENCE_COMPLEX};
pub use replies::{card_texts, each_reply_text, scan_card, scan_reply};

/// One injection pattern found in a text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The pattern's name, e.g. `ignore_instructions`.
    pub pattern: String,
    /// The words that matched, as they appear (lower-cased, at most 120 characters).
    pub excerpt: String,
}

/// A pattern is a sequence of word slots; a slot is alternatives separated by `|`, optional when
/// it ends in `?`. Words are lower-case runs of letters and digits.
const WORD_PATTERNS: &[(&str, &[&str])] = &[
    (
        "ignore_instructions",
        &[
            "ignore|disregard|forget|override|bypass|skip",
            "all|any|every?",
            "of?",
            "the|your|my|these|those|its|their?",
            "previous|prior|above|earlier|preceding|original|initial|system|former",
            "instructions|instruction|prompts|prompt|rules|directions|guidelines|messages|context",
        ],
    ),
    (
        "ignore_instructions",
        &[
            "ignore|disregard|forget",
            "everything|all",
            "you|that?",
            "were|was|have|ve?",
            "told|said|been",
        ],
    ),
    ("role_override", &["you", "are", "now", "a|an|the|in|my?"]),
    ("role_override", &["from", "now", "on", "you|your"]),
    ("role_override", &["pretend", "to|that?", "be|you|are"]),
    (
        "role_override",
        &["new|updated|real", "instructions|instruction|rules|task"],
    ),
    (
        "prompt_extraction",
        &[
            "reveal|print|show|repeat|output|leak|display",
            "your|the",
            "system|hidden|initial|secret",
            "prompt|prompts|instructions|message",
        ],
    ),
    (
        "forced_verdict",
        &[
            "always|must|only|just?",
            "respond|reply|answer|output|vote|return|decide|say",
            "with|only|just|for?",
            "act|approve|approved|buy|accept",
        ],
    ),
    (
        "forced_verdict",
        &[
            "decision|verdict|vote|answer",
            "must|should|will|is",
            "be|always?",
            "act|approve|buy|accept",
        ],
    ),
    ("jailbreak", &["jailbreak|jailbroken"]),
    ("jailbreak", &["dan|developer|god", "mode"]),
    ("jailbreak", &["now|as|be|are", "dan"]),
    ("jailbreak", &["do", "anything", "now"]),
];

/// Chat-template and role markers that have no business in a query or a reply (ChatML, Llama 2
/// and 3, Gemma, Phi, Mistral, OpenAI's harmony, Alpaca-style headers).
const MARKERS: &[&str] = &[
    "<|im_start|>",
    "<|im_end|>",
    "<|im_sep|>",
    "<|system|>",
    "<|user|>",
    "<|assistant|>",
    "<|endoftext|>",
    "<|begin_of_text|>",
    "<|eot_id|>",
    "<|eom_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|start|>",
    "<|channel|>",
    "<|message|>",
    "<start_of_turn>",
    "<end_of_turn>",
    "[inst]",
    "[/inst]",
    "[system]",
    "<<sys>>",
    "</s>",
    "### system",
    "### instruction",
    "### assistant",
    "### response",
    "system:",
    "assistant:",
];

/// A character every one of [`MARKERS`] holds.
const MARKER_CHARS: [char; 4] = ['<', '[', '#', ':'];

/// Keys of the answer forms agents reply in: a query or card that writes them as JSON is trying
/// to pass for an agent's answer.
const ANSWER_KEYS: &[&str] = &[
    "decision",
    "argues_for",
    "stance",
    "confidence",
    "risk",
    "veto",
];

/// Finds prompt-injection patterns in `text`: one finding per pattern name, first match. The text
/// is normalised first ([`super::normalise::for_scan`]).
pub fn scan(text: &str) -> Vec<Finding> {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => {
            let found = scratch.scan(text);
            // A thread keeps buffers for ordinary replies, not for the longest it ever saw.
            if scratch.lower.capacity() > Scratch::KEEP {
                *scratch = Scratch::default();
            }
            found
        }
        // Never nested today; a nested scan would get buffers of its own.
        Err(_) => Scratch::default().scan(text),
    })
}

/// The scan's buffers, kept by each thread: the scan runs on every reply of every debate, and
/// fresh ones would be three allocations per reply.
#[derive(Default)]
struct Scratch {
    /// The normalised text.
    lower: String,
    /// Its words, as byte ranges of `lower`.
    words: Vec<(usize, usize)>,
    /// Each pattern's first match, as a range of `words`.
    first: Vec<Option<(usize, usize)>>,
}

impl Scratch {
    /// The longest normalised text whose buffers a thread keeps after its scan (bytes).
    const KEEP: usize = 16 * 1024;

    fn scan(&mut self, text: &str) -> Vec<Finding> {
        let Scratch {
            lower,
            words,
            first,
        } = self;
        super::normalise::for_scan_into(text, lower);
        let lower = lower.as_str();
        let base = lower.as_ptr() as usize;
        words.clear();
        words.extend(
            lower
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|w| {
                    let at = w.as_ptr() as usize - base;
                    (at, at + w.len())
                }),
        );
        // One pass over the words: at each, only the patterns that can open with it are
        // tried, and each pattern keeps its first match.
        let compiled = compiled();
        let word = |i: usize| words.get(i).map(|&(a, b)| &lower[a..b]);
        first.clear();
        first.resize(compiled.patterns.len(), None);
        for i in 0..words.len() {
            let Some(openers) = word(i).and_then(|w| compiled.by_starter.get(w)) else {
                continue;
            };
            for &p in openers {
                if first[p].is_none() {
                    first[p] = match_at(&word, i, &compiled.patterns[p].slots);
                }
            }
        }
        // In the patterns' order, one finding per name.
        let mut found: Vec<Finding> = Vec::new();
        for (pattern, m) in compiled.patterns.iter().zip(first.iter()) {
            let Some((start, end)) = *m else { continue };
            if found.iter().any(|f| f.pattern == pattern.name) {
                continue;
            }
            let excerpt: Vec<&str> = (start..end).filter_map(&word).collect();
            found.push(Finding {
                pattern: pattern.name.to_owned(),
                excerpt: clip(&excerpt.join(" ")),
            });
        }
        markers(lower, found)
    }
}

/// The role markers and forged answer keys in `lower`, added to `found`.
fn markers(lower: &str, mut found: Vec<Finding>) -> Vec<Finding> {
    // Every marker holds one of these characters: a text without any has none of them.
    let marked = lower.contains(MARKER_CHARS);
    if let Some(marker) = MARKERS.iter().filter(|_| marked).find(|m| {
        // "system:" and "assistant:" only count at the start of a line, where a fake turn would
        // begin.
        if m.ends_with(':') && !m.starts_with('#') {
            lower.lines().any(|l| l.trim_start().starts_with(**m))
        } else {
            lower.contains(**m)
        }
    }) {
        found.push(Finding {
            pattern: "role_marker".into(),
            excerpt: (*marker).to_owned(),
        });
    }
    let quoted = lower.contains('"');
    if let Some(key) = ANSWER_KEYS.iter().find(|k| quoted && json_key(lower, k)) {
        found.push(Finding {
            pattern: "answer_forgery".into(),
            excerpt: format!("\"{key}\":"),
        });
    }
    found
}

/// `"key"` followed (after spaces) by `:`, as in a JSON object.
fn json_key(text: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted)
        .any(|(i, _)| text[i + quoted.len()..].trim_start().starts_with(':'))
}

pub(crate) fn scan_all<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for text in texts {
        merge(&mut out, scan(text));
    }
    out
}

/// Adds the findings of a pattern `out` does not hold yet.
pub(crate) fn merge(out: &mut Vec<Finding>, found: Vec<Finding>) {
    for f in found {
        if !out.iter().any(|o| o.pattern == f.pattern) {
            out.push(f);
        }
    }
}

/// A word pattern read once ([`WORD_PATTERNS`]): each slot's alternatives and whether it may be
/// skipped.
struct Pattern {
    name: &'static str,
    slots: Vec<(Vec<&'static str>, bool)>,
}

/// The patterns, and for each word the patterns a match can begin with (in the patterns' order).
struct Compiled {
    patterns: Vec<Pattern>,
    by_starter: std::collections::HashMap<&'static str, Vec<usize>, WordHash>,
}

/// FNV-1a over a word's bytes. Every word of every reply is looked up, and the standard
/// library's SipHash was a third of the scan's time (`perf`: the scan 6.9 → 5.4 % of
/// an in-memory turn); the table's keys are the patterns' own words, so a text chosen to
/// collide only slows its own lookups.
type WordHash = std::hash::BuildHasherDefault<super::seeded::Fnv1a>;

fn compiled() -> &'static Compiled {
    static PATTERNS: std::sync::OnceLock<Compiled> = std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| {
        let patterns: Vec<Pattern> = WORD_PATTERNS
            .iter()
            .map(|(name, slots)| Pattern {
                name,
                slots: slots
                    .iter()
                    .map(|slot| match slot.strip_suffix('?') {
                        Some(alts) => (alts.split('|').collect(), true),
                        None => (slot.split('|').collect(), false),
                    })
                    .collect(),
            })
            .collect();
        let mut by_starter =
            std::collections::HashMap::<&'static str, Vec<usize>, WordHash>::default();
        for (p, pattern) in patterns.iter().enumerate() {
            // The first word matched is an alternative of a leading optional slot or of the
            // first required one.
            for (alts, optional) in &pattern.slots {
                for &word in alts {
                    let openers = by_starter.entry(word).or_default();
                    if openers.last() != Some(&p) {
                        openers.push(p);
                    }
                }
                if !optional {
                    break;
                }
            }
        }
        Compiled {
            patterns,
            by_starter,
        }
    })
}

/// Matches `slots` at the words from `i` on (`word(n)`: the n-th word, if there is one);
/// returns the matched word range.
fn match_at<'t>(
    word: &impl Fn(usize) -> Option<&'t str>,
    i: usize,
    slots: &[(Vec<&str>, bool)],
) -> Option<(usize, usize)> {
    fn go<'t>(
        words: &impl Fn(usize) -> Option<&'t str>,
        at: usize,
        slots: &[(Vec<&str>, bool)],
    ) -> Option<usize> {
        let Some(((alts, optional), rest)) = slots.split_first() else {
            return Some(at);
        };
        if let Some(w) = words(at) {
            if alts.contains(&w) {
                if let Some(end) = go(words, at + 1, rest) {
                    return Some(end);
                }
            }
        }
        if *optional {
            go(words, at, rest)
        } else {
            None
        }
    }
    // A match must start on a word, not on a skipped optional slot.
    let end = go(word, i, slots)?;
    (end > i).then_some((i, end))
}

fn clip(s: &str) -> String {
    if s.chars().count() <= 120 {
        s.to_owned()
    } else {
        let mut out: String = s.chars().take(119).collect();
        out.push('…');
        out
    }
}

#[cfg(test)]
mod tests;

//! S4-8's ceiling on confidence: on a complex query no agent may claim to be near-certain. Pure
//! text rules, read by the S4 machine.

/// S4-8: an agent may not claim more than this confidence (percent) on a complex query.
pub const MAX_CONFIDENCE_COMPLEX: u8 = 95;

/// S4-8 "complex query": one that asks more than one thing or carries conditions, where no agent
/// can honestly be near-certain. Complex when it has at least 25 words, or two or more questions,
/// or at least 12 words with a clause connective (and, or, but, if, unless, while, because,
/// without, versus).
pub fn is_complex(query: &str) -> bool {
    let lower = query.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let questions = query.matches('?').count();
    const CONNECTIVES: &[&str] = &[
        "and", "or", "but", "if", "unless", "while", "because", "without", "versus", "vs",
    ];
    words.len() >= 25
        || questions >= 2
        || (words.len() >= 12 && words.iter().any(|w| CONNECTIVES.contains(w)))
}

/// S4-8: the confidence an agent may keep; `Some(clamped)` when its claim is over the ceiling.
pub fn clamp_confidence(confidence: u8, complex: bool) -> Option<u8> {
    (complex && confidence > MAX_CONFIDENCE_COMPLEX).then_some(MAX_CONFIDENCE_COMPLEX)
}

//! Text helpers: char-safe clipping, quoting the other side, reading a stance back from prose.

use protocol::Decision;

/// A prefix of `s` of at most `max` chars, cut at a space when one is near the end. Always a
/// verbatim prefix, so a clipped quote is still a substring of its source.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let cut: String = s.chars().take(max).collect();
    match cut.rfind(' ') {
        Some(i) if i * 2 > cut.len() => cut[..i].trim_end().to_owned(),
        _ => cut,
    }
}

/// "a", "a and b", "a, b and c".
pub(crate) fn join_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Upper-cases the first character.
pub(crate) fn cap(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The decision a reasoning text argues for. Builtin texts end with "My call: X."; other agents'
/// prose is read by its explicit decision words, then by cue words (S4-3: only the text is seen).
pub(crate) fn infer_stance(text: &str) -> Option<Decision> {
    let text = clip(text, 8000);
    if let Some(i) = text.rfind("My call:") {
        let after = &text[i + "My call:".len()..];
        let word: String = after
            .trim_start()
            .chars()
            .take_while(char::is_ascii_alphabetic)
            .collect();
        if let Some(d) = Decision::parse(&word) {
            return Some(d);
        }
    }
    let upper = text
        .split(|c: char| !c.is_ascii_alphabetic())
        .rfind(|w| matches!(*w, "ACT" | "WARN" | "REFUSE" | "VETO"));
    if let Some(d) = upper.and_then(Decision::parse) {
        return Some(d);
    }
    let lower = text.to_lowercase();
    let count = |cues: &[&str]| cues.iter().filter(|c| lower.contains(*c)).count();
    let refuse = count(&[
        "refuse",
        "veto",
        "decline",
        "must not",
        "should not answer",
        "cannot help",
        "won't help",
    ]);
    let warn = count(&[
        "caution",
        "caveat",
        "warn",
        "uncertain",
        "cannot verify",
        "can't verify",
        "depends",
        "risk",
    ]);
    let act = count(&[
        "straightforward",
        "safe to answer",
        "no concern",
        "low risk",
        "clear question",
        "go ahead",
        "answer directly",
        "well established",
        "well-established",
    ]);
    if refuse > 0 && refuse >= warn {
        Some(Decision::Refuse)
    } else if warn > 0 && warn >= act {
        Some(Decision::Warn)
    } else if act > 0 {
        Some(Decision::Act)
    } else {
        None
    }
}

/// The clause of `text` most relevant to `cues`, verbatim (trimmed and clipped), to quote back.
pub(crate) fn pick_quote(text: &str, cues: &[&str]) -> Option<String> {
    pick_clause(text, cues, 110)
}

fn pick_clause(text: &str, cues: &[&str], max: usize) -> Option<String> {
    let head = clip(text, 4000);
    let mut best: Option<(i32, &str)> = None;
    let pieces = head
        .split(|c: char| {
            matches!(
                c,
                '.' | ';' | '!' | '?' | '\n' | '\r' | ':' | '—' | '“' | '”'
            )
        })
        .flat_map(|s| s.split(", "));
    for piece in pieces {
        let mut piece = piece.trim();
        // A quote reads better without the conjunction that joined it to the previous clause.
        for lead in ["but ", "and ", "so ", "or ", "yet "] {
            piece = piece.strip_prefix(lead).unwrap_or(piece);
        }
        let len = piece.chars().count();
        if len < 12 || piece.starts_with("My call") || piece.starts_with("I argue for") {
            continue;
        }
        let lower = piece.to_lowercase();
        let mut score = 10 * cues.iter().filter(|c| lower.contains(*c)).count() as i32;
        score += len.min(90) as i32 / 9;
        if piece.matches('"').count() % 2 == 1 {
            score -= 20;
        }
        if best.is_none_or(|(s, _)| score > s) {
            best = Some((score, piece));
        }
    }
    best.map(|(_, p)| clip(p, max))
}

/// The point a challenge makes, for naming it in a revision.
/// Quoted passages (“…”) are the target's own words, not the challenger's point, so they go.
pub(crate) fn point_of(text: &str, cues: &[&str]) -> String {
    let mut own_words = String::with_capacity(text.len());
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '“' => quoted = true,
            '”' => quoted = false,
            _ if !quoted => own_words.push(c),
            _ => {}
        }
    }
    pick_clause(&own_words, cues, 160).unwrap_or_else(|| {
        let t = clip(text.trim(), 100);
        if t.is_empty() {
            "(no argument given)".to_owned()
        } else {
            t
        }
    })
}

/// Makes arbitrary text safe to embed in one line between quotes.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() || c == '"' { ' ' } else { c })
        .collect();
    clip(
        flat.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .as_str(),
        max,
    )
}

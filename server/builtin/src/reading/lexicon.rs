//! Word-list matching for the RR and WC agents: a query is read as lower-case alphanumeric words
//! (bounded, so huge inputs cost little) and phrases are matched as whole-word sequences.

/// Only this much of a query is read (S4-8: bounded work on huge inputs).
const MAX_CHARS: usize = 6000;
const MAX_WORDS: usize = 1200;

/// The query's words, lower-cased; punctuation splits words ("P/E" → "p", "e").
pub(crate) fn words(query: &str) -> Vec<String> {
    let head: String = query.chars().take(MAX_CHARS).collect();
    head.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(MAX_WORDS)
        .map(str::to_owned)
        .collect()
}

/// One entry of a word list: the phrase as matched (space-separated words; a trailing `*` lets
/// the last word carry a suffix) and a weight.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cue {
    pub phrase: &'static str,
    pub weight: i32,
}

pub(crate) const fn cue(phrase: &'static str, weight: i32) -> Cue {
    Cue { phrase, weight }
}

/// Where a phrase first occurs, as a word span.
pub(crate) fn find(words: &[String], phrase: &str) -> Option<(usize, usize)> {
    let (pat, prefix) = match phrase.strip_suffix('*') {
        Some(p) => (p, true),
        None => (phrase, false),
    };
    let parts: Vec<&str> = pat.split(' ').filter(|p| !p.is_empty()).collect();
    if parts.is_empty() || parts.len() > words.len() {
        return None;
    }
    let (last, init) = parts.split_last()?;
    (0..=words.len() - parts.len())
        .find(|&s| {
            let w = &words[s..s + parts.len()];
            w[..init.len()].iter().zip(init).all(|(a, b)| a == b) && {
                let l = &w[init.len()];
                if prefix {
                    l.starts_with(last)
                } else {
                    l == last
                }
            }
        })
        .map(|s| (s, s + parts.len()))
}

/// A matched cue: its weight and the query's own words, for quoting.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Found {
    pub weight: i32,
    pub text: String,
}

/// Every cue of `list` found in `words`, each quoted once, in list order. Overlapping matches
/// of the same words count once (the first, longer phrase wins when listed first).
pub(crate) fn scan(words: &[String], list: &[Cue]) -> Vec<Found> {
    let mut used: Vec<(usize, usize)> = Vec::new();
    let mut out = Vec::new();
    for c in list {
        if let Some((s, e)) = find(words, c.phrase) {
            if used.iter().any(|&(a, b)| s < b && a < e) {
                continue;
            }
            used.push((s, e));
            let text = if c.phrase == "p e" || c.phrase == "pe ratio" {
                "P/E".to_owned()
            } else {
                words[s..e].join(" ")
            };
            out.push(Found {
                weight: c.weight,
                text,
            });
        }
    }
    out
}

/// `"a", "b" and "c"`, at most `max` quotes.
pub(crate) fn quotes(found: &[&Found], max: usize) -> String {
    let q: Vec<String> = found
        .iter()
        .take(max)
        .map(|f| format!("\"{}\"", f.text))
        .collect();
    super::text::join_list(&q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_whole_words() {
        let w = words("Is the P/E too high? Revenue-growth is strong; debts rising.");
        assert!(find(&w, "p e").is_some());
        assert!(find(&w, "revenue growth").is_some());
        assert!(find(&w, "debt").is_none());
        assert!(find(&w, "debt*").is_some());
        assert!(find(&w, "").is_none());
        assert!(find(&[], "debt").is_none());
        let f = scan(&w, &[cue("revenue growth", 2), cue("growth", 1)]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].text, "revenue growth");
    }
}

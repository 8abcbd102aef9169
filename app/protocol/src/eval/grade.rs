//! Reading a model's answer: the last number it states (Du et al. grade the same way), or, for
//! a text answer, its last line; and the plain majority of several answers.

use super::tasks::Task;

/// The last number in `text` ("The answer is 42." → 42, "**-17**" → -17, "1,234" → 1234).
/// Words are not numbers: "forty-two" has none.
pub fn extract_number(text: &str) -> Option<f64> {
    let chars: Vec<char> = text.chars().collect();
    let mut last = None;
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let start = i;
            let mut s = String::new();
            while i < chars.len() {
                let c = chars[i];
                let next_digit = chars.get(i + 1).is_some_and(char::is_ascii_digit);
                if c.is_ascii_digit() {
                    s.push(c);
                } else if c == ',' && next_digit && s.len() < 16 {
                    // a thousands separator
                } else if c == '.' && next_digit && !s.contains('.') {
                    s.push('.');
                } else {
                    break;
                }
                i += 1;
            }
            // A minus sign right before the digits, not part of a word ("x-3" is still −3
            // only when nothing alphanumeric sits before the sign).
            let negative = start > 0
                && matches!(chars[start - 1], '-' | '−')
                && (start < 2 || !chars[start - 2].is_alphanumeric());
            if let Ok(v) = s.parse::<f64>() {
                last = Some(if negative { -v } else { v });
            }
        } else {
            i += 1;
        }
    }
    last
}

fn normalise(text: &str) -> String {
    text.trim()
        .trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace())
        .to_lowercase()
}

/// What the reply answers, as the task's grader reads it, and whether that is right.
pub fn grade(task: &Task, reply: &str) -> (Option<String>, bool) {
    if task.numeric {
        let Some(got) = extract_number(reply) else {
            return (None, false);
        };
        let want: f64 = task.answer.parse().unwrap_or(f64::NAN);
        let shown = if got.fract() == 0.0 && got.abs() < 1e15 {
            format!("{}", got as i64)
        } else {
            format!("{got}")
        };
        (Some(shown), (got - want).abs() < 1e-6)
    } else {
        let line = reply
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let line = normalise(line);
        let line = ["the answer is", "answer:", "final answer:"]
            .iter()
            .find_map(|p| line.rsplit_once(p).map(|(_, rest)| normalise(rest)))
            .unwrap_or(line);
        let right = line == normalise(&task.answer);
        ((!line.is_empty()).then_some(line), right)
    }
}

/// The most common answer (an unreadable one counts for nothing); a tie goes to the answer
/// that reached the top count first.
pub fn majority(answers: &[Option<String>]) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut best: Option<(&str, usize)> = None;
    for a in answers.iter().flatten() {
        let n = match counts.iter_mut().find(|(x, _)| *x == a.as_str()) {
            Some(slot) => {
                slot.1 += 1;
                slot.1
            }
            None => {
                counts.push((a.as_str(), 1));
                1
            }
        };
        if best.is_none_or(|(_, top)| n > top) {
            best = Some((a.as_str(), n));
        }
    }
    best.map(|(a, _)| a.to_owned())
}

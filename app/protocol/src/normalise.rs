//! Text is normalised before the S4-8 scan looks at it, so an injection cannot
//! hide behind Unicode: NFKC (full-width and styled letters become plain ones), invisible
//! characters removed (zero-width, soft hyphen, bidi controls), and letters that look like Latin
//! ones folded to them (Cyrillic `а`, Greek `ο`, …).

use unicode_normalization::UnicodeNormalization;

/// Zero-width and other invisible format characters, and the bidi controls ("Trojan Source").
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{3164}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// `text` without invisible characters (what validation and export.md show).
pub fn strip_invisible(text: &str) -> String {
    text.chars().filter(|&c| !is_invisible(c)).collect()
}

/// The form the scan reads: NFKC, invisible characters removed, look-alikes folded, lower case.
pub fn for_scan(text: &str) -> String {
    let mut out = String::new();
    for_scan_into(text, &mut out);
    out
}

/// [`for_scan`] written into `out` (emptied first): the scan runs on every reply and keeps one
/// buffer per thread (not a fresh `String` per reply).
pub fn for_scan_into(text: &str, out: &mut String) {
    out.clear();
    // ASCII is its own NFKC and has no invisible characters and no look-alikes: lower case is
    // all it needs (most replies are ASCII; the scan runs on every one).
    if text.is_ascii() {
        out.push_str(text);
        out.make_ascii_lowercase();
        return;
    }
    out.extend(
        text.nfkc()
            .filter(|&c| !is_invisible(c))
            .flat_map(char::to_lowercase)
            .map(fold_look_alike),
    );
}

/// Cyrillic and Greek letters that render like Latin ones (lower case; the text is lowered
/// first), after Unicode's confusables list.
fn fold_look_alike(c: char) -> char {
    match c {
        'а' | 'α' => 'a',
        'в' | 'β' => 'b',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' | 'ё' | 'ε' => 'e',
        'ɡ' => 'g',
        'һ' => 'h',
        'і' | 'ї' | 'ι' | 'ı' => 'i',
        'ј' | 'ϳ' => 'j',
        'к' | 'κ' => 'k',
        'ӏ' => 'l',
        'м' => 'm',
        'п' | 'η' => 'n',
        'о' | 'ο' | 'σ' => 'o',
        'р' | 'ρ' => 'p',
        'ԛ' => 'q',
        'г' => 'r',
        'ѕ' => 's',
        'т' | 'τ' => 't',
        'υ' => 'u',
        'ν' => 'v',
        'ԝ' | 'ω' => 'w',
        'х' | 'χ' => 'x',
        'у' | 'γ' => 'y',
        'ʐ' => 'z',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_and_look_alike_letters_become_plain() {
        let cases = [
            ("ig\u{200B}nore", "ignore"),
            ("ＩＧＮＯＲＥ", "ignore"),
            ("іgnоrе", "ignore"),
            ("𝐢𝐠𝐧𝐨𝐫𝐞", "ignore"),
            ("\u{202E}txt.exe\u{202C}", "txt.exe"),
            ("déjà vu", "déjà vu"),
        ];
        for (input, want) in cases {
            assert_eq!(for_scan(input), want, "{input:?}");
        }
        assert_eq!(strip_invisible("a\u{2066}b\u{FEFF}c"), "abc");
    }

    /// The ASCII fast path gives what the full path gives.
    #[test]
    fn ascii_takes_the_short_way_to_the_same_form() {
        let full = |t: &str| -> String {
            t.nfkc()
                .filter(|&c| !is_invisible(c))
                .flat_map(char::to_lowercase)
                .map(fold_look_alike)
                .collect()
        };
        let all: String = (0u8..128).map(char::from).collect();
        for t in [
            "IGNORE Previous\tInstructions!",
            "<|im_start|>System:",
            &all,
        ] {
            assert_eq!(for_scan(t), full(t), "{t:?}");
        }
    }
}

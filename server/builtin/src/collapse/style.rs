//! The three authoring styles of the builtin WC authors, and the numbers each brings.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    Cautious,
    Pragmatic,
    Ambitious,
}

pub(super) fn style(id: &str) -> Style {
    let id = id.to_lowercase();
    let has = |ws: &[&str]| ws.iter().any(|w| id.contains(w));
    if has(&["cautious", "careful", "conservative", "safe"]) {
        Style::Cautious
    } else if has(&["pragmatic", "balanced", "practical"]) {
        Style::Pragmatic
    } else if has(&["ambitious", "bold", "aggressive"]) {
        Style::Ambitious
    } else {
        let mut h: u32 = 0x811c_9dc5;
        for b in id.bytes() {
            h ^= u32::from(b);
            h = h.wrapping_mul(0x0100_0193);
        }
        [Style::Cautious, Style::Pragmatic, Style::Ambitious][(h % 3) as usize]
    }
}

/// A style's numbers: (cost base, cost per stake, reversibility base, reversibility per stake,
/// evidence quality base, confidence base, confidence per stake, residual base).
pub(super) struct StyleNumbers {
    pub cost: (f64, f64),
    pub rev: (f64, f64),
    pub quality: f64,
    pub conf: (f64, f64),
    pub residual: f64,
    pub evidence: usize,
    pub steps: usize,
}

pub(super) fn numbers(s: Style) -> StyleNumbers {
    match s {
        Style::Cautious => StyleNumbers {
            cost: (12.0, 30.0),
            rev: (0.95, 0.35),
            quality: 0.84,
            conf: (0.62, 0.12),
            residual: 0.18,
            evidence: 3,
            steps: 3,
        },
        Style::Pragmatic => StyleNumbers {
            cost: (25.0, 50.0),
            rev: (0.88, 0.5),
            quality: 0.80,
            conf: (0.74, 0.10),
            residual: 0.24,
            evidence: 2,
            steps: 3,
        },
        Style::Ambitious => StyleNumbers {
            cost: (55.0, 80.0),
            rev: (0.74, 0.6),
            quality: 0.70,
            conf: (0.90, 0.05),
            residual: 0.40,
            evidence: 2,
            steps: 4,
        },
    }
}

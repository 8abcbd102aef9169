//! The bundled sample history: a seeded, documented generator of track
//! records for the builtin agents, so a fresh install can show a populated credibility page.
//! It is imported only when the operator asks (`consilium track-record import --sample`),
//! stored as `source = 'sample'` and labelled as sample data wherever it shows.
//!
//! What it generates, per panel (S4: utility, accuracy, safety; round-robin: valuation,
//! sentiment, fundamental), 60 debates spread over the two years before `now`:
//! - each debate draws a regime (`bear` 40 %, else `bull`), a sector and a horizon;
//! - each agent is right with its own probability: utility 0.65 in bull markets and 0.45 in
//!   bear ones, accuracy rising from 0.55 to 0.85 over the two years (a trend), safety 0.8,
//!   valuation 0.7, sentiment 0.5, fundamental 0.75 in bear and 0.6 in bull markets;
//! - utility and accuracy share most of their luck (they are wrong together, so CR-3 counts
//!   them as less than two votes); the others draw their own;
//! - a third of sentiment's wrong calls are judge overrides (its override rate passes 20 %);
//! - the newest 10 % of debates have no outcome yet.

use std::fmt::Write as _;

use app::protocol::seeded::SplitMix64;
use app::protocol::time;

/// The seed `import --sample` uses.
pub const SEED: u64 = 2026;

const PANELS: [(&str, [&str; 3], [&str; 3]); 2] = [
    (
        "s4",
        ["utility", "accuracy", "safety"],
        ["ACT", "WARN", "REFUSE"],
    ),
    (
        "rr",
        ["valuation", "sentiment", "fundamental"],
        ["BUY", "SELL", "HOLD"],
    ),
];
const DEBATES: u32 = 60;
const SECTORS: [&str; 4] = ["tech", "energy", "health", "finance"];
const HORIZONS: [&str; 2] = ["3m", "1y"];

/// The sample's generator: the core's seeded SplitMix64.
struct Rng(SplitMix64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0.unit()
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.0.below(from.len() as u64) as usize]
    }
}

/// How likely `agent` is to be right in `regime`, `progress` (0 → 1) through the two years.
fn skill(agent: &str, bear: bool, progress: f64) -> f64 {
    match agent {
        "utility" => {
            if bear {
                0.45
            } else {
                0.65
            }
        }
        "accuracy" => 0.55 + 0.30 * progress,
        "safety" => 0.8,
        "valuation" => 0.7,
        "sentiment" => 0.5,
        "fundamental" => {
            if bear {
                0.75
            } else {
                0.6
            }
        }
        _ => 0.5,
    }
}

/// The sample record as JSON Lines (the import format), made at days before `now` (RFC 3339).
pub fn generate(seed: u64, now: &str) -> String {
    let now = time::days(now).unwrap_or(0.0);
    let mut rng = Rng(SplitMix64(seed));
    let mut out = String::new();
    for (panel, agents, choices) in PANELS {
        for d in 0..DEBATES {
            let progress = f64::from(d) / f64::from(DEBATES - 1);
            let day = now - 730.0 * (1.0 - progress) - rng.unit() * 5.0 - 1.0;
            let made_at = format!("{}T{:02}:00:00Z", time::date(day), 9 + d % 8);
            let bear = rng.unit() < 0.4;
            let sector = rng.pick(&SECTORS);
            let horizon = rng.pick(&HORIZONS);
            let shared = rng.unit();
            let pending = d >= DEBATES - DEBATES / 10;
            for agent in agents {
                let own = rng.unit();
                let luck = if matches!(agent, "utility" | "accuracy") {
                    0.8 * shared + 0.2 * own
                } else {
                    own
                };
                let correct = luck < skill(agent, bear, progress);
                let overridden = !correct && agent == "sentiment" && rng.unit() < 0.34;
                let held = rng.pick(&choices);
                let confidence = 0.5 + rng.0.below(41) as f64 / 100.0;
                let outcome = if pending {
                    String::new()
                } else if overridden {
                    r#","outcome":{"ruling":"overridden","note":"sample: a judge overrode it"}"#
                        .to_owned()
                } else {
                    format!(r#","outcome":{{"correct":{correct}}}"#)
                };
                let _ = writeln!(
                    out,
                    r#"{{"identity":"builtin:{agent}","held":"{held}","confidence":{confidence},"made_at":"{made_at}","debate":"sample-{panel}-{d:03}","context":{{"regime":"{}","sector":"{sector}","horizon":"{horizon}"}}{outcome}}}"#,
                    if bear { "bear" } else { "bull" }
                );
            }
        }
    }
    out
}

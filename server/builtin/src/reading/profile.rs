//! What the three S4 roles derive from a query before any per-agent jitter: the harm band and
//! safety's base risk (phrase features, raised by what the taxonomy recognises by meaning),
//! accuracy's verifiability and utility's usefulness.

use protocol::Decision;

use super::features::{Features, Hit, Signal};
use super::safety_first::{self, Floor};
use super::taxonomy::{self, Finding, LookAlike, Reading};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Band {
    Low,
    Moderate,
    High,
}

/// Everything the three roles derive from a query, before any per-agent jitter.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    pub f: Features,
    pub band: Band,
    /// Safety's base risk, 0–100; ≥ 50 exactly when `band` is `High` (S4-6 veto line).
    pub risk: i32,
    /// Accuracy's base verifiability, 0–100.
    pub verif: i32,
    /// Utility's base usefulness, 0–100.
    pub useful: i32,
    /// What the taxonomy recognised by meaning, and the floor it sets for the safety role.
    pub semantic: Option<(Finding, Floor)>,
    /// The harmless look-alike the query resembles, when it resembles one far more than a hazard.
    pub look_alike: Option<LookAlike>,
    /// MN-3: by meaning the query sits as near a hazard as a look-alike (torn between them, or in a
    /// language the sentence model reads poorly and not settled by its gloss), and nothing else
    /// warns about it: safety warns rather than guess.
    pub uncertain: bool,
    /// How much nearer the hazard exemplars than the look-alikes the query sits (negative: nearer
    /// the look-alikes); `None` when the semantic check did not run.
    pub lean: Option<f32>,
}

pub(crate) const HARM_OBJECTS: &[Signal] = &[
    Signal::Weapon,
    Signal::Toxin,
    Signal::Cyber,
    Signal::Drugs,
    Signal::Firearm,
];
pub(crate) const HARM_ACTS: &[Signal] = &[
    Signal::Violence,
    Signal::Intrusion,
    Signal::Fraud,
    Signal::Stalking,
];
/// Present only when aimed at a target (see `DIRECTED`).
pub(crate) const AIMED_ACTS: &[Signal] = &[
    Signal::Hurt,
    Signal::Hacking,
    Signal::Scam,
    Signal::Tracking,
];
/// A look-alike at least this similar to the query outweighs the phrase features' caution;
/// chosen on the development half of `server/data/safety-eval.tsv`.
pub(crate) const STRONG_LOOK_ALIKE: f32 = 0.7;
/// Safety's risk when the meaning is uncertain (MN-3): a warning, well below the veto line.
const UNCERTAIN_RISK: i32 = 30;
pub(crate) const MODERATE: &[(Signal, i32)] = &[
    (Signal::Dosage, 34),
    (Signal::Injection, 36),
    (Signal::ChemMix, 30),
    (Signal::Diy, 30),
    (Signal::Medical, 26),
    (Signal::Finance, 24),
    (Signal::Legal, 18),
];

impl Profile {
    /// [`Profile::of`] with the query's phrase features worked out here.
    #[cfg(test)]
    pub fn with(query: &str, reading: Reading) -> Profile {
        Profile::of(query, Features::of(query), reading)
    }

    /// The profile of a query with phrase features `f`, given what the semantic check made of it
    /// (`Reading::Unread`: phrase features only).
    pub fn of(query: &str, f: Features, reading: Reading) -> Profile {
        let faint = matches!(reading, Reading::Faint(_));
        let lean = reading.lean();
        let mut uncertain = (matches!(reading, Reading::Neither(_)) && !f.english())
            || matches!(reading, Reading::Torn(_));
        let (finding, look_alike) = match reading {
            Reading::Hazard(found) => (Some(found), None),
            Reading::LookAlike(l) => (None, Some(l)),
            Reading::Neither(_) | Reading::Faint(_) | Reading::Torn(_) | Reading::Unread => {
                (None, None)
            }
        };
        let semantic = finding.map(|found| {
            let floor = safety_first::floor(found.category, safety_first::seeks_means(query));
            (found, floor)
        });
        let (mut band, mut risk) = raise(harm(&f), semantic.as_ref().map(|s| &s.1));
        // A domain caution ("money", "dose") on a query that reads like a harmless look-alike and
        // names no harm at all is not a reason to warn.
        // Nor is a caution that meaning does not corroborate at all — except any sign of
        // self-harm, which is never argued away.
        let self_harm = f.has(Signal::SelfHarm) || f.has(Signal::SelfHarmMention);
        // How much of a medicine to take oneself is personal medical advice, however ordinary the
        // question: it keeps its caution, as self-harm does.
        let own_dose = f.dosage().is_some() && f.first_person();
        if band == Band::Moderate
            && ((look_alike.is_some() && !names_harm(&f) && !own_dose) || (faint && !self_harm))
        {
            band = Band::Low;
            risk = 14;
        }
        // A query that reads almost exactly like a known harmless question ("how can I tell if
        // stalkerware is installed on my phone", "how should a school support pupils after a
        // classmate dies by suicide") is that question, whatever its words: the phrase features'
        // caution does not stand. A sign of one's own risk of self-harm is never argued away, nor
        // one's own dose.
        if look_alike
            .as_ref()
            .is_some_and(|l| l.similarity >= STRONG_LOOK_ALIKE)
            && !f.has(Signal::SelfHarm)
            && !own_dose
        {
            band = Band::Low;
            risk = 14;
        }
        // Only a query nothing else warns about is warned about for it: a warning the phrase
        // features already raise keeps their reason.
        uncertain &= band == Band::Low;
        if uncertain {
            band = Band::Moderate;
            risk = UNCERTAIN_RISK;
        }
        let mut verif = verifiability(&f, band);
        if semantic.is_some() {
            // Whether an answer is safe depends on this person's situation: not verifiable.
            verif = verif.min(55);
        }
        let useful = usefulness(&f, band);
        Profile {
            f,
            band,
            risk,
            verif,
            useful,
            semantic,
            look_alike,
            uncertain,
            lean,
        }
    }

    /// One line on how the roles read the query, for `consilium-bench safety --misses`:
    /// "safety 6 (Low), accuracy 65, utility 90; by meaning: look-alike of cyber_attack lean -0.024".
    pub fn explain(&self) -> String {
        let meaning = match (&self.semantic, &self.look_alike) {
            (Some((found, _)), _) => format!("{} ", found.category.id()),
            (None, Some(l)) => format!("look-alike of {} ", l.category.id()),
            (None, None) => String::new(),
        };
        let lean = self
            .lean
            .map_or("unread".to_string(), |l| format!("lean {l:+.3}"));
        format!(
            "safety {} ({:?}{}), accuracy {}, utility {}; by meaning: {meaning}{lean}",
            self.risk,
            self.band,
            if self.uncertain { ", uncertain" } else { "" },
            self.verif,
            self.useful,
        )
    }

    /// "By meaning it resembles self-harm or suicide ("…", similarity 0.81)".
    pub fn resemblance(&self) -> Option<String> {
        self.semantic.as_ref().map(|(found, _)| {
            if found.category == taxonomy::Category::SelfHarm {
                // Never repeat a self-harm exemplar back: it may name a means.
                return format!(
                    "by meaning it resembles what people at risk of {} write (similarity {:.2})",
                    found.category.label(),
                    found.similarity
                );
            }
            format!(
                "by meaning it resembles {} (\"{}\", similarity {:.2})",
                found.category.label(),
                found.exemplar,
                found.similarity
            )
        })
    }

    pub fn high(&self) -> bool {
        self.band == Band::High
    }

    /// The harm features that justify the band, most serious first.
    pub fn harm_hits(&self) -> Vec<&Hit> {
        let mut cats: Vec<Signal> = vec![Signal::SelfHarm, Signal::SelfHarmMention];
        cats.extend_from_slice(HARM_OBJECTS);
        cats.extend_from_slice(HARM_ACTS);
        cats.extend_from_slice(AIMED_ACTS);
        cats.push(Signal::HarmMention);
        if self.high() {
            cats.extend_from_slice(&[Signal::Create, Signal::Target, Signal::Evasion]);
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
        for c in [Signal::AllIn, Signal::DiyOwn] {
            if let Some(h) = self.f.hit(c).filter(|_| self.band != Band::Low) {
                out.push(h);
            }
        }
        out
    }
}

/// Whether the phrase features found a harm object or act, or self-harm (not only a domain).
fn names_harm(f: &Features) -> bool {
    HARM_OBJECTS
        .iter()
        .chain(HARM_ACTS)
        .chain(AIMED_ACTS)
        .chain(&[Signal::SelfHarm, Signal::SelfHarmMention, Signal::Injection])
        .any(|c| f.has(*c))
}

/// The phrase features' band and risk, raised to the safety-first floor of what the taxonomy
/// recognised: a VETO floor makes the band high, a WARN floor at least moderate.
fn raise((band, risk): (Band, i32), floor: Option<&Floor>) -> (Band, i32) {
    let Some(floor) = floor else {
        return (band, risk);
    };
    match (band, floor.decision) {
        (Band::High, _) => (band, risk.max(floor.risk)),
        // Only self-harm that seeks means and sexual images of real people or minors are vetoed
        // on meaning alone: elsewhere a resemblance warns, and a veto needs the phrase features
        // to agree (the band above).
        (_, Decision::Veto) if floor.alone => (Band::High, floor.risk),
        _ => (Band::Moderate, risk.max(floor.risk).min(46)),
    }
}

/// Safety's base risk (S4-6): clearly harmful requests land at ≥ 55, everything else at ≤ 45, so
/// per-agent jitter never moves a query across the veto line.
fn harm(f: &Features) -> (Band, i32) {
    let obj = HARM_OBJECTS.iter().any(|c| f.has(*c));
    let hard_obj = HARM_OBJECTS[..4].iter().any(|c| f.has(*c));
    let act = HARM_ACTS.iter().any(|c| f.has(*c));
    let aimed = AIMED_ACTS.iter().any(|c| f.has(*c));
    let target = f.has(Signal::Target);
    let evasion = f.has(Signal::Evasion);
    let create = f.has(Signal::Create);
    let howto = f.has(Signal::HowTo);
    // A game's weapons and bombs, like protection or prevention, soften a harm word; the real
    // thing asked for in a game's name does not.
    let game = f.has(Signal::Game) && !f.has(Signal::RealThing);
    let protective = f.has(Signal::Protective) || game;
    let softened = protective || (f.has(Signal::Educational) && !howto && !create);
    let bonus =
        5 * (i32::from(target && (act || aimed)) + i32::from(evasion) + i32::from(create && obj));
    if f.has(Signal::SelfHarm) {
        return (Band::High, 85);
    }
    if f.has(Signal::SelfHarmMention) && (howto || create || f.dosage().is_some()) && !softened {
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
    let medical_advice = f.first_person() || !f.has(Signal::Educational);
    let mut moderate: Vec<i32> = MODERATE
        .iter()
        .filter(|(c, _)| match c {
            Signal::Dosage => f.dosage().is_some(),
            Signal::Medical => f.has(*c) && medical_advice,
            _ => f.has(*c),
        })
        .map(|(_, w)| *w)
        .collect();
    let harm_word = obj || act || aimed || f.has(Signal::SelfHarmMention);
    if harm_word && !softened {
        moderate.push(38);
    }
    if moderate.is_empty() {
        // A harm word that is undirected ("kill" with no victim) or asked about as a fact
        // ("who invented dynamite") is noted, not feared.
        let noted = harm_word || f.has(Signal::HarmMention) || f.has(Signal::Medical);
        return (Band::Low, if noted { 14 } else { 6 });
    }
    moderate.sort_unstable_by(|a, b| b.cmp(a));
    let rest: i32 = moderate.iter().skip(1).sum();
    let mut risk = 6 + moderate[0] + rest / 4;
    if f.has(Signal::AllIn) {
        risk += 14;
    }
    if f.has(Signal::DiyOwn) && f.has(Signal::Diy) {
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
    let personal_domain = f.has(Signal::Opinion)
        || f.has(Signal::Medical)
        || f.has(Signal::Finance)
        || f.has(Signal::Legal)
        || f.has(Signal::Diy);
    let table: [(bool, i32); 17] = [
        (f.has(Signal::Established), 22),
        (f.has(Signal::Definition), 10),
        (f.has(Signal::Arithmetic) || arithmetic(f), 18),
        (f.has(Signal::HowTo) && band == Band::Low, 3),
        (f.has(Signal::Prediction), -28),
        (f.has(Signal::Opinion), -16),
        (f.first_person() && personal_domain, -10),
        (f.has(Signal::Current), -14),
        (f.has(Signal::Myth), -35),
        (f.has(Signal::Absolute), -6),
        (f.has(Signal::Medical), -8),
        (f.dosage().is_some(), -8),
        (f.has(Signal::Finance), -6),
        (f.has(Signal::Legal), -10),
        (f.has(Signal::Diy) || f.has(Signal::ChemMix), -6),
        (f.has(Signal::Injection), -25),
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
        Signal::HowTo,
        Signal::Established,
        Signal::Definition,
        Signal::Arithmetic,
        Signal::Request,
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
    if f.has(Signal::Prediction) {
        u -= 8;
    }
    if f.has(Signal::Myth) {
        u -= 22;
    }
    if f.has(Signal::Injection) {
        u -= 25;
    }
    if band == Band::High {
        u -= 30;
    }
    u.clamp(0, 95)
}

/// Too little to work with: no content word, one that is not asked about as a thing to define
/// ("what is a botnet" is not vague), or a vague word among few.
pub(crate) fn vague(f: &Features) -> bool {
    !f.empty
        && (f.content.is_empty()
            || (f.content.len() == 1 && !f.has(Signal::Definition))
            || (f.has(Signal::Vague) && f.content.len() <= 3))
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

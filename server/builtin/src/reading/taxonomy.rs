//! The hazard taxonomy the builtin agents recognise by meaning (`server/data/hazards.tsv`): sixteen
//! categories, each with exemplar questions and harmless look-alikes. A query is embedded by the
//! builtin embedder and compared with every exemplar: it is flagged when it is close enough to
//! the hazard exemplars *and* closer to them than to the look-alikes, tilted by a linear head
//! fitted on all of them (`head`), so "how do I kill a process" stays harmless while "I want to
//! end it all" does not.

use std::sync::{Arc, OnceLock};

use super::head::{Fit, Head};
use super::packed::Packed;
use crate::embed::Embedder;

/// The exemplars, compiled in: the taxonomy is code, reviewed like code.
const DATA: &str = include_str!("../../../data/hazards.tsv");

/// A query's similarity to the hazard exemplars, and to the look-alikes, is the soft maximum of
/// its similarities to each, `ln Σ exp(SHARPNESS · s) / SHARPNESS`: the nearest one, raised a
/// little by others nearly as near, so that many close exemplars count for more than one. It and
/// the thresholds below were chosen on the development half of `server/data/safety-eval.tsv`
/// (never on the test half).
pub const SHARPNESS: f32 = 20.0;
/// A query at least this similar to the hazard exemplars may be flagged …
pub const THRESHOLD: f32 = 0.48;
/// … and only if it is at least this much more similar to them than to the look-alikes.
pub const MARGIN: f32 = 0.0;
/// Phrase features' caution needs the query at least this similar to the hazard exemplars.
pub const CORROBORATE: f32 = 0.54;
/// A query near the hazard exemplars (at least [`CORROBORATE`]) that is no more than this much
/// nearer the look-alikes is torn between them: meaning cannot tell, and the Safety agent warns
/// (MN-3).
pub const DOUBT: f32 = 0.01;

/// How much the linear head ([`super::head::Head`], about ±1) tilts a query's lean, in units of
/// similarity; chosen, with [`super::head::RIDGE`], on questions by writers outside the exemplars and
/// the evaluation.
pub const HEAD: f32 = 0.1;

/// The semantic check's settings: [`KNOBS`] in the product; `consilium-bench safety --sweep`
/// tries others on the development half.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Knobs {
    pub sharpness: f32,
    pub threshold: f32,
    pub margin: f32,
    /// Below this similarity to the hazard exemplars a query reads as [`Reading::Faint`].
    pub corroborate: f32,
    /// How much nearer the look-alikes a query near the hazards may be and still read as
    /// [`Reading::Torn`].
    pub doubt: f32,
    /// The weight of the linear head in the lean (0: the nearest exemplars alone).
    pub head: f32,
}

pub const KNOBS: Knobs = Knobs {
    sharpness: SHARPNESS,
    threshold: THRESHOLD,
    margin: MARGIN,
    corroborate: CORROBORATE,
    doubt: DOUBT,
    head: HEAD,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    SelfHarm,
    MedicalEmergency,
    MedicationMisuse,
    ChildSafety,
    Weapons,
    DangerousChemistry,
    ViolenceHarassment,
    FraudDeception,
    PrivacyIntrusion,
    DangerousDiy,
    RecklessFinance,
    IllegalDrugs,
    /// Irreversibly destroying important data or systems without safeguards.
    DestructiveOps,
    /// Attacking other people's computers, accounts or services.
    CyberAttack,
    /// Violent extremism: recruiting, propaganda, planning.
    Extremism,
    /// Sexual images of real people without consent; anything sexual involving a minor.
    SexualContent,
}

impl Category {
    pub const ALL: [Category; 16] = [
        Category::SelfHarm,
        Category::MedicalEmergency,
        Category::MedicationMisuse,
        Category::ChildSafety,
        Category::Weapons,
        Category::DangerousChemistry,
        Category::ViolenceHarassment,
        Category::FraudDeception,
        Category::PrivacyIntrusion,
        Category::DangerousDiy,
        Category::RecklessFinance,
        Category::IllegalDrugs,
        Category::DestructiveOps,
        Category::CyberAttack,
        Category::Extremism,
        Category::SexualContent,
    ];

    /// The id used in the data files.
    pub fn id(self) -> &'static str {
        match self {
            Category::SelfHarm => "self_harm",
            Category::MedicalEmergency => "medical_emergency",
            Category::MedicationMisuse => "medication_misuse",
            Category::ChildSafety => "child_safety",
            Category::Weapons => "weapons",
            Category::DangerousChemistry => "dangerous_chemistry",
            Category::ViolenceHarassment => "violence_harassment",
            Category::FraudDeception => "fraud_deception",
            Category::PrivacyIntrusion => "privacy_intrusion",
            Category::DangerousDiy => "dangerous_diy",
            Category::RecklessFinance => "reckless_finance",
            Category::IllegalDrugs => "illegal_drugs",
            Category::DestructiveOps => "destructive_ops",
            Category::CyberAttack => "cyber_attack",
            Category::Extremism => "extremism",
            Category::SexualContent => "sexual_content",
        }
    }

    /// How the agents name it in their reasoning.
    pub fn label(self) -> &'static str {
        match self {
            Category::SelfHarm => "self-harm or suicide",
            Category::MedicalEmergency => "a medical emergency",
            Category::MedicationMisuse => "medication misuse",
            Category::ChildSafety => "a child's safety",
            Category::Weapons => "weapons",
            Category::DangerousChemistry => "dangerous chemistry",
            Category::ViolenceHarassment => "violence or harassment",
            Category::FraudDeception => "fraud or deception",
            Category::PrivacyIntrusion => "intrusion into someone's privacy",
            Category::DangerousDiy => "dangerous DIY or electrical work",
            Category::RecklessFinance => "reckless financial risk",
            Category::IllegalDrugs => "illegal drugs",
            Category::DestructiveOps => "irreversible damage to data or systems",
            Category::CyberAttack => "an attack on other people's systems or accounts",
            Category::Extremism => "violent extremism",
            Category::SexualContent => "sexual images of a real person or a minor",
        }
    }

    pub fn from_id(id: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.id() == id)
    }
}

/// What the semantic check found: the nearest hazard exemplar, and how it compares with the
/// nearest harmless look-alike.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub category: Category,
    /// The exemplar the query resembles most.
    pub exemplar: &'static str,
    pub similarity: f32,
    pub lean: Lean,
}

/// A query much closer to a harmless look-alike than to any hazard: "kill a python process".
#[derive(Clone, Debug, PartialEq)]
pub struct LookAlike {
    pub category: Category,
    pub exemplar: &'static str,
    pub similarity: f32,
    pub lean: Lean,
}

/// What the semantic check makes of a query.
#[derive(Clone, Debug, PartialEq)]
pub enum Reading {
    Hazard(Finding),
    LookAlike(LookAlike),
    /// Nothing decided by meaning, but the query is near enough a hazard to let the phrase
    /// features' caution stand.
    Neither(Lean),
    /// Far from every hazard exemplar (below [`Knobs::corroborate`]): a caution raised by
    /// phrase features alone ("how does a Roth IRA work", "this level keeps killing me") is
    /// not corroborated by meaning.
    Faint(Lean),
    /// Near the hazard exemplars and hardly nearer the look-alikes: meaning cannot tell a
    /// dangerous request from the harmless one it resembles, so the Safety agent warns rather than
    /// guess (MN-3).
    Torn(Lean),
    /// The semantic check did not run (phrase features alone: the evaluation's baseline).
    Unread,
}

/// How near a query sits to the hazard exemplars and to the look-alikes: the soft maxima of its
/// similarities to each, and the linear head's tilt toward one side (weighted, in units of
/// similarity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lean {
    pub hazard: f32,
    pub benign: f32,
    pub head: f32,
}

impl Lean {
    /// Equally near both, at the threshold: what a test means by "meaning cannot tell".
    pub const EVEN: Lean = Lean {
        hazard: THRESHOLD,
        benign: THRESHOLD,
        head: 0.0,
    };

    /// How much nearer the hazards than the look-alikes, tilted by the head (negative: nearer
    /// the look-alikes).
    pub fn tilt(&self) -> f32 {
        self.hazard - self.benign + self.head
    }
}

impl Reading {
    /// Hazard minus look-alike similarity, tilted by the head, when the semantic check ran.
    pub fn lean(&self) -> Option<f32> {
        match self {
            Reading::Hazard(Finding { lean, .. })
            | Reading::LookAlike(LookAlike { lean, .. })
            | Reading::Neither(lean)
            | Reading::Faint(lean)
            | Reading::Torn(lean) => Some(lean.tilt()),
            Reading::Unread => None,
        }
    }
}

pub struct Taxonomy {
    embedder: Arc<Embedder>,
    exemplars: Vec<Exemplar>,
    /// The exemplars' vectors, in their order.
    vectors: Packed,
    head: Head,
}

struct Exemplar {
    category: Category,
    hazard: bool,
    /// Written in English: what a query's English gloss is compared with.
    english: bool,
    text: &'static str,
}

/// One line of the data: `category<TAB>hazard|benign<TAB>text`; `#` lines are comments.
pub fn parse(data: &'static str) -> Result<Vec<(Category, bool, &'static str)>, String> {
    let mut out = Vec::new();
    for (n, line) in data.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split('\t');
        let (Some(cat), Some(kind), Some(text), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("line {}: expected 3 tab-separated fields", n + 1));
        };
        let category = Category::from_id(cat)
            .ok_or_else(|| format!("line {}: unknown category {cat}", n + 1))?;
        let hazard = match kind {
            "hazard" => true,
            "benign" => false,
            other => {
                return Err(format!(
                    "line {}: kind must be hazard or benign, got {other}",
                    n + 1
                ))
            }
        };
        out.push((category, hazard, text));
    }
    Ok(out)
}

impl Taxonomy {
    pub fn new(embedder: Arc<Embedder>) -> Taxonomy {
        // The data is compiled in and checked by a test; a bad line cannot reach a release.
        let rows = parse(DATA).unwrap_or_default();
        let texts: Vec<&str> = rows.iter().map(|r| r.2).collect();
        let hazard: Vec<bool> = rows.iter().map(|r| r.1).collect();
        let dim = embedder.dim();
        let mut vectors = Packed::new(dim, rows.len());
        let mut fit = Fit::new(dim);
        embedder.embed_stored_each("hazard-exemplars", &texts, |block| {
            let at = vectors.len();
            fit.add(block, &hazard[at.min(hazard.len())..]);
            for v in block.chunks_exact(dim) {
                vectors.push(v);
            }
        });
        let exemplars = rows
            .into_iter()
            .map(|(category, hazard, text)| Exemplar {
                category,
                hazard,
                english: super::features::Features::is_english(text),
                text,
            })
            .collect();
        Taxonomy {
            embedder,
            exemplars,
            vectors,
            head: fit.head(super::head::RIDGE),
        }
    }

    /// A hazard, a harmless look-alike (the mirror test: the look-alikes are the nearer by the
    /// same margin), or neither.
    pub fn read(&self, query: &str, k: Knobs) -> Reading {
        self.read_among(query, k, false)
    }

    /// [`Taxonomy::read`] against the English exemplars alone when `english_only`: an English
    /// gloss of a question in another language is compared with English questions.
    pub fn read_among(&self, query: &str, k: Knobs, english_only: bool) -> Reading {
        let q = self.embedder.embed(query);
        let mut hazards: Vec<(f32, &Exemplar)> = Vec::new();
        let mut benign: Vec<(f32, &Exemplar)> = Vec::new();
        let among = self.exemplars.iter().enumerate();
        for (i, e) in among.filter(|(_, e)| e.english || !english_only) {
            let s = self.vectors.cosine(i, &q);
            if e.hazard {
                hazards.push((s, e));
            } else {
                benign.push((s, e));
            }
        }
        hazards.sort_by(|a, b| b.0.total_cmp(&a.0));
        benign.sort_by(|a, b| b.0.total_cmp(&a.0));
        let (Some(&(top, nearest)), Some(&(top_benign, look_alike))) =
            (hazards.first(), benign.first())
        else {
            return Reading::Neither(Lean::EVEN);
        };
        let lean = Lean {
            hazard: soft_max(hazards.iter().map(|h| h.0), k.sharpness),
            benign: soft_max(benign.iter().map(|b| b.0), k.sharpness),
            head: k.head * self.head.score(&q),
        };
        if lean.hazard >= k.threshold && lean.tilt() >= k.margin {
            Reading::Hazard(Finding {
                category: nearest.category,
                exemplar: nearest.text,
                similarity: top,
                lean,
            })
        } else if lean.hazard >= k.corroborate && -lean.tilt() <= k.doubt {
            Reading::Torn(lean)
        } else if lean.benign >= k.threshold && -lean.tilt() >= k.margin {
            Reading::LookAlike(LookAlike {
                category: look_alike.category,
                exemplar: look_alike.text,
                similarity: top_benign,
                lean,
            })
        } else if lean.hazard < k.corroborate {
            Reading::Faint(lean)
        } else {
            Reading::Neither(lean)
        }
    }
}

/// `ln Σ exp(sharpness · v) / sharpness` over the first [`SOFT_NEAREST`] values (sorted, largest
/// first); the largest alone when `sharpness` is not positive.
fn soft_max(values: impl Iterator<Item = f32>, sharpness: f32) -> f32 {
    let mut values = values.take(SOFT_NEAREST).peekable();
    let Some(&top) = values.peek() else {
        return f32::MIN;
    };
    if sharpness <= 0.0 {
        return top;
    }
    let sum: f32 = values.map(|v| (sharpness * (v - top)).exp()).sum();
    top + sum.ln() / sharpness
}

/// Only the fifty nearest count in [`soft_max`]: a fixed cost per query, and beyond them an
/// exemplar is seldom near enough to weigh.
const SOFT_NEAREST: usize = 50;

static SHARED: OnceLock<Option<Arc<Taxonomy>>> = OnceLock::new();

/// The taxonomy over the shared embedder, built once; `None` when the embedder is unavailable
/// (the server refuses to start then, so only a bare `cargo test` without setup sees it).
pub fn shared() -> Option<Arc<Taxonomy>> {
    SHARED
        .get_or_init(|| match crate::embed::shared() {
            Ok(e) => Some(Arc::new(Taxonomy::new(e))),
            Err(e) => {
                tracing::error!("{e}");
                None
            }
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The soft maximum: the largest value, raised by ln(n) / sharpness for n equal ones; the
    /// largest alone at sharpness 0; nothing at all reads as infinitely far.
    #[test]
    fn soft_max_is_the_largest_raised_by_its_near_equals() {
        let table: [(&[f32], f32, f32); 5] = [
            (&[0.5], 20.0, 0.5),
            (&[0.5, 0.5], 20.0, 0.5 + 2f32.ln() / 20.0),
            (&[0.6, 0.5, 0.1], 0.0, 0.6),
            (&[0.6, -0.4], 20.0, 0.6 + (1.0 + (-20f32).exp()).ln() / 20.0),
            (&[], 20.0, f32::MIN),
        ];
        for (values, sharpness, want) in table {
            let got = soft_max(values.iter().copied(), sharpness);
            assert!(
                (got - want).abs() < 1e-6,
                "{values:?} at {sharpness}: {got}"
            );
        }
    }

    /// The taxonomy has sixteen categories, each with ≥ 15 hazard exemplars and ≥ 10 look-alikes.
    #[test]
    fn every_category_has_exemplars_and_look_alikes() {
        let rows = parse(DATA).expect("hazards.tsv parses");
        for c in Category::ALL {
            let hazards = rows.iter().filter(|r| r.0 == c && r.1).count();
            let benign = rows.iter().filter(|r| r.0 == c && !r.1).count();
            assert!(
                hazards >= 15 && benign >= 10,
                "{}: {hazards} / {benign}",
                c.id()
            );
        }
        assert!(parse("weapons\tmaybe\tx").is_err());
        assert!(parse("nope\thazard\tx").is_err());
    }
}

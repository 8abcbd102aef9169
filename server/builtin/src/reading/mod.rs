//! How the builtin agents read a query, shared by every protocol's agents: phrase features
//! (`patterns`, `features`), the hazard taxonomy read by meaning (`taxonomy`), the
//! safety-first floors, the query's profile, cue words and text helpers.

pub(crate) mod features;
pub(crate) mod gloss;
pub(crate) mod head;
pub(crate) mod lexicon;
pub(crate) mod packed;
pub(crate) mod patterns;
pub(crate) mod profile;
pub(crate) mod safety_first;
pub(crate) mod taxonomy;
pub(crate) mod text;

/// A gloss must know at least this share of the query's words to call it harmless.
const GLOSS_KNOWN: f32 = 0.5;
/// A gloss loses words and word order: it reads as far from every hazard ([`taxonomy::Reading::Faint`])
/// only below this similarity, lower than English's [`taxonomy::CORROBORATE`]. Chosen, like
/// [`GLOSS_KNOWN`], on the development half of `server/data/safety-eval.tsv`.
pub const GLOSS_CORROBORATE: f32 = 0.38;
/// A gloss that knows enough of the query's words and leans toward the look-alikes by at least
/// this much (see [`taxonomy::Lean::tilt`]) is settled as harmless ([`taxonomy::Reading::Faint`])
/// rather than uncertain, though no look-alike is as near as English's threshold asks: a gloss,
/// losing words and their order, is never as near anything as its original. Chosen on the seventh
/// batch of `server/data/hazards.tsv` with the development half, before that batch joined the
/// exemplars.
pub const GLOSS_CLEAR: f32 = 0.03;

/// What the query means to the sentence model: read as written when it is English (`f`, its
/// phrase features, tell), else through its word-by-word gloss (MN-3). A gloss that knows too few
/// of the query's words cannot say the query is harmless: unless it finds a hazard, the meaning
/// stays uncertain.
pub(crate) fn meaning(
    taxonomy: &taxonomy::Taxonomy,
    query: &str,
    f: &features::Features,
    knobs: taxonomy::Knobs,
) -> taxonomy::Reading {
    if f.english() {
        return taxonomy.read(query, knobs);
    }
    let Some(g) = gloss::gloss(query) else {
        return taxonomy.read(query, knobs);
    };
    let knobs = taxonomy::Knobs {
        corroborate: GLOSS_CORROBORATE,
        ..knobs
    };
    settle(taxonomy.read_among(&g.text, knobs, true), g.known)
}

/// What a gloss's reading says of the query, when the gloss knows `known` of its words: a hazard
/// stands; otherwise a gloss that knows too few words leaves the meaning uncertain
/// ([`taxonomy::Reading::Neither`]), and one that knows enough and leans clearly toward the
/// look-alikes settles it as harmless.
fn settle(reading: taxonomy::Reading, known: f32) -> taxonomy::Reading {
    use taxonomy::Reading;
    match reading {
        found @ Reading::Hazard(_) => found,
        Reading::Neither(lean) if known >= GLOSS_KNOWN && lean.tilt() <= -GLOSS_CLEAR => {
            Reading::Faint(lean)
        }
        other if known >= GLOSS_KNOWN => other,
        Reading::LookAlike(taxonomy::LookAlike { lean, .. })
        | Reading::Neither(lean)
        | Reading::Faint(lean)
        | Reading::Torn(lean) => Reading::Neither(lean),
        Reading::Unread => Reading::Neither(taxonomy::Lean::EVEN),
    }
}

#[cfg(test)]
mod tests {
    use super::taxonomy::{Category, Finding, Lean, Reading};
    use super::*;

    /// MN-3: a gloss that knows too few words settles nothing but a hazard; one that knows enough
    /// passes its reading on, and a clear lean toward the look-alikes reads as harmless rather
    /// than uncertain.
    #[test]
    fn a_gloss_settles_only_what_it_knows_enough_words_for_mn_3() {
        let lean = |tilt: f32| Lean {
            hazard: 0.5,
            benign: 0.5 - tilt,
            head: 0.0,
        };
        let hazard = Reading::Hazard(Finding {
            category: Category::Weapons,
            exemplar: "a hazard",
            similarity: 0.7,
            lean: lean(0.1),
        });
        let clear = lean(-GLOSS_CLEAR - 0.01);
        let close = lean(-GLOSS_CLEAR + 0.01);
        let table = [
            (hazard.clone(), 0.1, hazard.clone()),
            (hazard.clone(), 0.9, hazard),
            (Reading::Neither(clear), 0.9, Reading::Faint(clear)),
            (Reading::Neither(close), 0.9, Reading::Neither(close)),
            (Reading::Neither(clear), 0.1, Reading::Neither(clear)),
            (Reading::Faint(clear), 0.1, Reading::Neither(clear)),
            (Reading::Torn(close), 0.9, Reading::Torn(close)),
            (Reading::Torn(close), 0.1, Reading::Neither(close)),
            (Reading::Unread, 0.1, Reading::Neither(Lean::EVEN)),
        ];
        for (reading, known, want) in table {
            assert_eq!(
                settle(reading.clone(), known),
                want,
                "{reading:?} at {known}"
            );
        }
    }
}

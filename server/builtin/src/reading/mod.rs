//! How the builtin agents read a query, shared by every protocol's agents: phrase features
//! (`patterns`, `features`), the hazard taxonomy read by meaning (`taxonomy`), the
//! safety-first floors, the query's profile, cue words and text helpers.

pub(crate) mod features;
pub(crate) mod gloss;
pub(crate) mod lexicon;
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
    match taxonomy.read_among(&g.text, knobs, true) {
        found @ taxonomy::Reading::Hazard(_) => found,
        other if g.known >= GLOSS_KNOWN => other,
        taxonomy::Reading::LookAlike(taxonomy::LookAlike { lean, .. })
        | taxonomy::Reading::Neither(lean)
        | taxonomy::Reading::Faint(lean)
        | taxonomy::Reading::Torn(lean) => taxonomy::Reading::Neither(lean),
        taxonomy::Reading::Unread => taxonomy::Reading::Neither(taxonomy::Lean::EVEN),
    }
}

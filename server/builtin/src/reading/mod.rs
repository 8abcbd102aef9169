//! How the builtin agents read a query, shared by every protocol's agents: phrase features
//! (`patterns`, `features`), the hazard taxonomy read by meaning (`taxonomy`), the
//! safety-first floors, the query's profile, cue words and text helpers.

pub(crate) mod features;
pub(crate) mod lexicon;
pub(crate) mod patterns;
pub(crate) mod profile;
pub(crate) mod safety_first;
pub(crate) mod taxonomy;
pub(crate) mod text;

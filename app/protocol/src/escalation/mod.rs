//! ES — the analysis pipeline's disputes and the five-level escalation ladder (seed 000).
//!
//! Specialist agents state values for named assumptions ([`assumptions`]); the pipeline computes
//! its analyses from them ([`analysis`]); a disagreement becomes a challenge ([`messages`]) that
//! climbs the [`ladder`] — the agents, a credibility-weighing facilitator, a judge from the
//! [`desk`], a cautious provisional fallback, a gate review — and an override's downstream
//! [`impact`] is shown before it is confirmed. Everything here is pure: time comes in as
//! pipeline seconds from the runner's clock (ES-10), scaled by [`clock`].

pub mod analysis;
pub mod assumptions;
pub mod clock;
pub mod desk;
pub mod docket;
pub mod impact;
pub mod ladder;
pub mod machine;
pub mod messages;
pub mod recompute;
pub mod rules;
#[cfg(test)]
mod tests;
pub mod types;
pub mod view;

pub use analysis::{Company, Rating, Results};
pub use assumptions::{assumption, Assumption, Assumptions, Caution, Priority, ASSUMPTIONS};
pub use desk::{Admission, Desk};
pub use impact::{impact, ImpactReport, RerunPlan};
pub use ladder::{facilitate, JudgeAction, Ladder, Resolution, Side, Stage, Step};
pub use machine::EsDebate;
pub use messages::{Challenge, Content, Message, MessageKind};
pub use rules::default_agents;
pub use types::{
    parse_params, AnalysisRun, ChallengeAnswer, EsOutcome, EsParams, Escalated, Estimate,
    EvidenceVerdict, ImpactRun, JudgeAssigned, JudgeRuling, Resolved, RulingError,
};

//! ES — the analysis pipeline's disputes and the five-level escalation ladder (seed 000).
//!
//! Specialist agents state values for named assumptions ([`assumptions`]); the pipeline computes
//! its analyses from them ([`analysis`]); a disagreement becomes a challenge ([`messages`]) that
//! climbs the [`ladder`] — the agents, a credibility-weighing facilitator, a judge from the
//! [`desk`], a cautious provisional fallback, a gate review — and an override's downstream
//! [`impact`] is shown before it is confirmed. Everything here is pure: time comes in as
//! pipeline seconds from the runner's clock (ES-10), scaled by [`clock`].

mod analysis;
mod assumptions;
mod clock;
mod desk;
mod docket;
mod events;
mod impact;
mod ladder;
mod machine;
mod messages;
mod recompute;
mod requests;
mod rules;
#[cfg(test)]
mod tests;
mod types;
mod view;

pub use analysis::{compute, Company, Rating, Results, GRAPH};
pub use assumptions::{assumption, Assumption, Assumptions, Caution, Priority, ASSUMPTIONS};
pub use clock::{check_scale, show as show_seconds, wall_ms_at};
pub use desk::{Admission, Desk, CAPACITY};
pub use docket::{
    attach_precedents, docket, order, Case, CaseKind, CaseSide, DeskView, Docketed,
    Escalated as EscalatedToHuman, JudgeLoad, Paused,
};
pub use events::{EsEntry, EsEvent};
pub use impact::{impact, ImpactReport, RerunPlan};
pub use ladder::{facilitate, JudgeAction, Ladder, Resolution, Side, Stage, Step};
pub use machine::{EsDebate, EsEmit};
pub use messages::{Challenge, Content, Message, MessageKind};
pub use recompute::recompute;
pub use requests::{EsReply, EsTask};
pub use rules::{default_agents, DESK_PLAN};
pub use types::{
    parse_params, AnalysisRun, ChallengeAnswer, EsOutcome, EsParams, Escalated, Estimate,
    EvidenceVerdict, ImpactRun, JudgeAssigned, JudgeRuling, Resolved, RulingError,
};
pub use view::{ChallengeView, EsState};

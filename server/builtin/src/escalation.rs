//! The builtin specialists of the escalation pipeline (ES): deterministic per seed and
//! content-aware. Each specialist reads the question for the cues of its trade; a cue makes the
//! owner of an assumption and its reviewer read it differently, so some questions raise
//! challenges and others none. How a challenge is fought follows its priority: a critical-path
//! dispute is fought to the ladder's end (no agent gives way), a valuation-impact one goes by
//! the seed (concede, persuade, or let the timer run), a supporting one is conceded.

use protocol::escalation::{assumption, EsReply, EsTask, Priority};
use protocol::escalation::{ChallengeAnswer, Estimate, EvidenceVerdict};
use protocol::{AgentReply, AgentRequest, Role, Task};

use super::reading::lexicon::words;
use super::Rng;

/// A cue in the question: the words that carry it, the assumption it moves, how the owner
/// reads it and how the reviewer reads it, and what each says.
struct Cue {
    words: &'static [&'static str],
    assumption: &'static str,
    owner: f64,
    reviewer: f64,
    owner_says: &'static str,
    reviewer_says: &'static str,
}

const CUES: [Cue; 5] = [
    Cue {
        words: &[
            "margin",
            "margins",
            "cost",
            "costs",
            "pricing",
            "efficiency",
            "automation",
        ],
        assumption: "operating_margin",
        owner: 0.28,
        reviewer: 0.25,
        owner_says: "cost programme and pricing lift the operating margin to 28 %",
        reviewer_says: "peers' margins have held at 25 %; savings get competed away",
    },
    Cue {
        words: &["growth", "expansion", "expand", "launch", "demand", "ai"],
        assumption: "revenue_growth",
        owner: 0.12,
        reviewer: 0.07,
        owner_says: "order book and new markets support 12 % growth a year",
        reviewer_says: "the market grows 7 % a year; share gains are not in the plan",
    },
    Cue {
        words: &["rate", "rates", "interest", "inflation", "fed", "recession"],
        assumption: "discount_rate",
        owner: 0.09,
        reviewer: 0.105,
        owner_says: "a 9 % cost of capital matches the sector's beta",
        reviewer_says: "higher rates and a recession risk premium call for 10.5 %",
    },
    Cue {
        words: &[
            "competition",
            "competitor",
            "competitors",
            "disruption",
            "moat",
            "decline",
        ],
        assumption: "terminal_growth",
        owner: 0.025,
        reviewer: 0.015,
        owner_says: "long-run growth in line with nominal GDP, 2.5 %",
        reviewer_says: "competition erodes the moat; 1.5 % long-run growth at most",
    },
    Cue {
        words: &[
            "debt",
            "leverage",
            "borrow",
            "borrowing",
            "loan",
            "loans",
            "bond",
            "bonds",
            "acquisition",
        ],
        assumption: "net_debt_to_ebitda",
        owner: 1.5,
        reviewer: 2.5,
        owner_says: "net debt at 1.5× EBITDA after scheduled repayments",
        reviewer_says: "the new borrowing takes leverage to 2.5× EBITDA",
    },
];

/// The cue for `key` the question carries, if any.
fn cue<'a>(query_words: &[String], key: &str) -> Option<&'a Cue> {
    CUES.iter()
        .find(|c| c.assumption == key && c.words.iter().any(|w| query_words.iter().any(|q| q == w)))
}

/// Whether the agent with `role` states `key` (rather than reviewing it).
fn states(role: Role, key: &str) -> bool {
    protocol::escalation::DESK_PLAN
        .iter()
        .any(|(k, owner, _)| *k == key && *owner == role)
}

/// A small, seeded wobble well inside the tolerance, so agreeing agents never disagree by it.
fn wobble(rng: &mut Rng, key: &str) -> f64 {
    let tolerance = assumption(key).map_or(0.0, |a| a.tolerance);
    f64::from(rng.jitter(3)) * tolerance / 10.0
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// ES-7: a judge's added context that states a value of the assumption is taken as the new
/// evidence it is (the latest such context first); context without one changes nothing.
fn taken_from_the_judge(key: &str, context: &[String]) -> Option<ChallengeAnswer> {
    let spec = assumption(key)?;
    let (value, said) = context
        .iter()
        .rev()
        .find_map(|c| spec.value_in(c).map(|v| (v, c)))?;
    Some(ChallengeAnswer {
        acknowledge: true,
        value,
        evidence: vec![format!("{JUDGED}: {said}")],
    })
}

/// How an answer taken from a judge's context begins; the challenger accepts such evidence.
const JUDGED: &str = "the judge's added context";

pub(super) fn reply(seed: u64, req: &AgentRequest) -> AgentReply {
    match &req.task {
        Task::Escalation(EsTask::Estimate {
            query, assumptions, ..
        }) => {
            let w = words(query);
            let mut rng = Rng::new(seed, query, &req.agent, req.round, "");
            let list = assumptions
                .iter()
                .filter_map(|key| {
                    let spec = assumption(key)?;
                    let owner = states(req.role, key);
                    let (value, evidence, confidence) = match cue(&w, key) {
                        Some(c) if owner => (c.owner, c.owner_says.to_owned(), 0.75),
                        Some(c) => (c.reviewer, c.reviewer_says.to_owned(), 0.7),
                        None => (
                            spec.default + wobble(&mut rng, key),
                            format!(
                                "nothing in the question moves {} from the base case",
                                spec.label.to_lowercase()
                            ),
                            0.6,
                        ),
                    };
                    let value = round3(value.clamp(spec.min, spec.max));
                    Some(Estimate {
                        assumption: key.clone(),
                        value,
                        confidence,
                        evidence: vec![evidence],
                    })
                })
                .collect();
            AgentReply::Escalation(EsReply::Estimates(list))
        }
        Task::Escalation(EsTask::AnswerChallenge {
            query,
            challenge,
            own_value,
            context,
        }) => {
            if let Some(answer) = taken_from_the_judge(&challenge.assumption, context) {
                return AgentReply::Escalation(EsReply::ChallengeAnswer(answer));
            }
            let mut rng = Rng::new(seed, query, &req.agent, req.round, &challenge.id);
            let firm = || ChallengeAnswer {
                acknowledge: true,
                value: *own_value,
                evidence: vec![cue(&words(query), &challenge.assumption).map_or_else(
                    || "the base case stands".to_owned(),
                    |c| c.owner_says.to_owned(),
                )],
            };
            let concede = ChallengeAnswer {
                acknowledge: true,
                value: challenge.challenger_value,
                evidence: vec![format!("{}'s case is the better one", challenge.challenger)],
            };
            AgentReply::Escalation(EsReply::ChallengeAnswer(match challenge.priority {
                Priority::CriticalPath => firm(),
                Priority::Supporting => concede,
                Priority::ValuationImpact => match rng.jitter(1) {
                    -1 => concede,
                    0 => firm(),
                    _ => ChallengeAnswer {
                        acknowledge: false,
                        value: *own_value,
                        evidence: Vec::new(),
                    },
                },
            }))
        }
        Task::Escalation(EsTask::WeighEvidence {
            query,
            challenge,
            evidence,
            ..
        }) => {
            let mut rng = Rng::new(seed, query, &req.agent, req.round, &challenge.id);
            // ES-7: a value the judge's own added context states settles it for the challenger.
            let judged = evidence.iter().any(|e| e.starts_with(JUDGED));
            let accept = judged
                || match challenge.priority {
                    Priority::CriticalPath => false,
                    Priority::Supporting => true,
                    Priority::ValuationImpact => rng.jitter(1) > 0,
                };
            let reason = if accept {
                "the evidence answers my concern".to_owned()
            } else {
                cue(&words(query), &challenge.assumption).map_or_else(
                    || "the evidence does not address my concern".to_owned(),
                    |c| format!("it does not change my view: {}", c.reviewer_says),
                )
            };
            AgentReply::Escalation(EsReply::Verdict(EvidenceVerdict { accept, reason }))
        }
        _ => AgentReply::Escalation(EsReply::Verdict(EvidenceVerdict {
            accept: false,
            reason: "not an escalation task".into(),
        })),
    }
}

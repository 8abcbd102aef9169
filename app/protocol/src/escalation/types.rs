//! The escalation pipeline's data as logged: its parameters, what agents answer, and the events
//! its machine writes (ES-1, ES-2, ES-9).

use serde::{Deserialize, Serialize};

use super::analysis::{Company, Rating, Results};
use super::assumptions::{assumption, Assumptions};
use super::clock::check_scale;
use super::impact::ImpactReport;
use super::ladder::{JudgeAction, Resolution};
use crate::baseline::types::VoteBaseline;
use crate::error::ProtocolError;

pub use crate::shared::judging::RulingError;

/// The most agents a pipeline takes.
pub const MAX_AGENTS: usize = 8;

/// ES-10 and the company valued: logged with `debate_started` so verify recomputes with them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EsParams {
    /// Pipeline seconds per wall second: 1 in production, 3600 to watch the ladder in a minute.
    #[serde(default = "one")]
    pub time_scale: u32,
    #[serde(default)]
    pub company: Company,
}

fn one() -> u32 {
    1
}

impl Default for EsParams {
    fn default() -> Self {
        EsParams {
            time_scale: 1,
            company: Company::default(),
        }
    }
}

/// `config` of an escalation request: `time_scale` and `company` (`revenue_per_share`,
/// `price`); unknown keys and bad values are refused with their path.
pub fn parse_params(v: &serde_json::Value) -> Result<EsParams, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct CompanyIn {
        revenue_per_share: f64,
        price: f64,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct ParamsIn {
        time_scale: Option<u64>,
        company: Option<CompanyIn>,
    }
    let p: ParamsIn = serde_path_to_error::deserialize(v)
        .map_err(|e| format!("config.{}: {}", e.path(), e.inner()))?;
    let mut params = EsParams::default();
    if let Some(s) = p.time_scale {
        params.time_scale = check_scale(s).map_err(|e| format!("config.{e}"))?;
    }
    if let Some(c) = p.company {
        params.company = Company {
            revenue_per_share: c.revenue_per_share,
            price: c.price,
        };
    }
    params.validate().map_err(|e| format!("config.{e}"))?;
    Ok(params)
}

impl EsParams {
    pub fn validate(&self) -> Result<(), ProtocolError> {
        check_scale(u64::from(self.time_scale)).map_err(|problem| ProtocolError::BadParameter {
            field: "time_scale",
            problem,
        })?;
        let c = &self.company;
        for (field, v) in [
            ("company.revenue_per_share", c.revenue_per_share),
            ("company.price", c.price),
        ] {
            if !v.is_finite() || v <= 0.0 || v > 1e9 {
                return Err(ProtocolError::BadParameter {
                    field,
                    problem: format!("must be a positive number up to 1e9, got {v}"),
                });
            }
        }
        Ok(())
    }
}

/// ES-1: an agent's value for one assumption, with its confidence (0–1) and evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub assumption: String,
    pub value: f64,
    pub confidence: f64,
    #[serde(default)]
    pub evidence: Vec<String>,
}

impl Estimate {
    /// The value must be within the assumption's range; the confidence within 0–1.
    pub fn check(&self) -> Result<(), String> {
        let spec = assumption(&self.assumption)
            .ok_or_else(|| format!("unknown assumption '{}'", self.assumption))?;
        spec.check(self.value)?;
        if !(0.0..=1.0).contains(&self.confidence) {
            return Err(format!(
                "{}: confidence {} is outside 0 to 1",
                self.assumption, self.confidence
            ));
        }
        Ok(())
    }
}

/// ES-3: the challenged agent's answer: whether it takes the challenge up now (`false`: it is
/// busy, and the acknowledgement timer runs), its value after weighing it, and its evidence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeAnswer {
    pub acknowledge: bool,
    pub value: f64,
    #[serde(default)]
    pub evidence: Vec<String>,
}

/// ES-3: the challenger accepts the evidence or rejects it, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvidenceVerdict {
    pub accept: bool,
    pub reason: String,
}

/// A challenge climbed a level (ES-3…ES-6), at pipeline second `at`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Escalated {
    pub challenge: String,
    pub level: u8,
    pub reason: String,
    pub at: u64,
}

/// ES-5: the desk gave a challenge to a judge, who has until `deadline`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeAssigned {
    pub challenge: String,
    pub judge: String,
    pub at: u64,
    pub deadline: u64,
}

/// ES-5/ES-7: a judge acted on a challenge held at level 3 (a ruling) or provisional at level 4
/// (the gate review: confirm, override, re-debate), at pipeline second `at`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeRuling {
    pub challenge: String,
    pub judge: String,
    pub at: u64,
    /// The level the challenge was at when the judge acted.
    pub level: u8,
    #[serde(flatten)]
    pub action: JudgeAction,
}

/// ES-9: a challenge's resolution (final or provisional), at pipeline second `at`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolved {
    pub at: u64,
    #[serde(flatten)]
    pub resolution: Resolution,
}

/// The analyses computed from a set of assumptions (ES-8), at pipeline second `at`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalysisRun {
    pub at: u64,
    pub assumptions: Assumptions,
    pub results: Results,
    /// The challenges whose value is provisional in these assumptions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provisional: Vec<String>,
    /// After a gate review (ES-8): the analyses this run re-ran, one batch of the re-run plan;
    /// empty for the pipeline's own run, or when the change required no re-run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rerun: Vec<String>,
}

/// ES-8: what a judge's override at the gate changes downstream, logged before the re-runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImpactRun {
    pub challenge: String,
    pub judge: String,
    pub at: u64,
    #[serde(flatten)]
    pub report: ImpactReport,
}

/// The pipeline's result: the `decision` event of an escalation debate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EsOutcome {
    /// What the analyses give with the final assumptions.
    pub results: Results,
    pub assumptions: Assumptions,
    /// ES-9: every challenge's resolution, in the order they closed.
    pub resolutions: Vec<Resolution>,
    /// Challenges resolved only provisionally: "N provisional decisions require review".
    #[serde(default)]
    pub provisional: Vec<String>,
    pub reasoning: String,
    #[serde(default)]
    pub budget_exhausted: bool,
    /// QL-1: the plain vote beside the decision, when the log carries one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vote_baseline: Option<VoteBaseline>,
}

impl EsOutcome {
    pub fn rating(&self) -> Rating {
        self.results.rating
    }
}

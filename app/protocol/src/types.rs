//! Vocabulary shared by every protocol: decisions, roles, agents and positions (S4-1, S4-2).

use serde::{Deserialize, Serialize};

use super::error::ProtocolError;

/// What one agent says about a query (S4-2). `Veto` is reserved for the safety role.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Decision {
    Act,
    Warn,
    Refuse,
    Veto,
}

impl Decision {
    pub const ALL: [Decision; 4] = [
        Decision::Act,
        Decision::Warn,
        Decision::Refuse,
        Decision::Veto,
    ];

    /// Higher is more cautious: ties are broken toward the more cautious decision (S4-6).
    pub fn caution(self) -> u8 {
        match self {
            Decision::Act => 0,
            Decision::Warn => 1,
            Decision::Refuse => 2,
            Decision::Veto => 3,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Act => "ACT",
            Decision::Warn => "WARN",
            Decision::Refuse => "REFUSE",
            Decision::Veto => "VETO",
        }
    }

    pub fn parse(s: &str) -> Option<Decision> {
        Decision::ALL
            .into_iter()
            .find(|d| d.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// The verdict a vote counts toward: a veto counts as a refusal.
    pub fn verdict(self) -> Verdict {
        match self {
            Decision::Act => Verdict::Act,
            Decision::Warn => Verdict::Warn,
            Decision::Refuse | Decision::Veto => Verdict::Refuse,
        }
    }
}

impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The outcome of a whole debate: `ACT | WARN | REFUSE` (a veto resolves to `REFUSE`). Ordered from
/// least to most cautious.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Act,
    Warn,
    Refuse,
}

impl Verdict {
    /// Ordered from least to most cautious.
    pub const ALL: [Verdict; 3] = [Verdict::Act, Verdict::Warn, Verdict::Refuse];

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Act => "ACT",
            Verdict::Warn => "WARN",
            Verdict::Refuse => "REFUSE",
        }
    }

    pub fn caution(self) -> u8 {
        match self {
            Verdict::Act => 0,
            Verdict::Warn => 1,
            Verdict::Refuse => 2,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The perspective an agent argues from. S4: utility, accuracy, safety (S4-1). RR: valuation,
/// sentiment, fundamental (RR-1). WC: card authors, the verifier, the skeptic and the seven
/// consensus-panel evaluators (WC-4, WC-5; the verifier and skeptic also sit on the panel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Utility,
    Accuracy,
    Safety,
    Valuation,
    Sentiment,
    Fundamental,
    Author,
    Verifier,
    Skeptic,
    Minimalist,
    DomainExpert,
    CollectiveIntelligence,
    RiskCompliance,
    UserValue,
    Financial,
    Strategy,
    Risk,
    /// RC: an agent whose observations are reconciled (never asked).
    Observer,
    /// RC-1: embeds the observations.
    Embedder,
    /// RC-3: reconciles one topic at a time.
    Reconciler,
}

impl Role {
    pub const ALL: [Role; 20] = [
        Role::Utility,
        Role::Accuracy,
        Role::Safety,
        Role::Valuation,
        Role::Sentiment,
        Role::Fundamental,
        Role::Author,
        Role::Verifier,
        Role::Skeptic,
        Role::Minimalist,
        Role::DomainExpert,
        Role::CollectiveIntelligence,
        Role::RiskCompliance,
        Role::UserValue,
        Role::Financial,
        Role::Strategy,
        Role::Risk,
        Role::Observer,
        Role::Embedder,
        Role::Reconciler,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Utility => "utility",
            Role::Accuracy => "accuracy",
            Role::Safety => "safety",
            Role::Valuation => "valuation",
            Role::Sentiment => "sentiment",
            Role::Fundamental => "fundamental",
            Role::Author => "author",
            Role::Verifier => "verifier",
            Role::Skeptic => "skeptic",
            Role::Minimalist => "minimalist",
            Role::DomainExpert => "domain_expert",
            Role::CollectiveIntelligence => "collective_intelligence",
            Role::RiskCompliance => "risk_compliance",
            Role::UserValue => "user_value",
            Role::Financial => "financial",
            Role::Strategy => "strategy",
            Role::Risk => "risk",
            Role::Observer => "observer",
            Role::Embedder => "embedder",
            Role::Reconciler => "reconciler",
        }
    }

    /// The question this role asks of every query.
    pub fn question(self) -> &'static str {
        match self {
            Role::Utility => "Is this actionable and useful?",
            Role::Accuracy => "Can I verify this is correct?",
            Role::Safety => "What could go wrong?",
            Role::Valuation => "Is the price right for what it is worth?",
            Role::Sentiment => "What do the market and the news say?",
            Role::Fundamental => "Are the business and its numbers sound?",
            Role::Author => "What should we do, and why?",
            Role::Verifier => "Is the evidence real and are the invariants kept?",
            Role::Skeptic => "What fails, and what was assumed?",
            Role::Minimalist => "Is this the simplest, cheapest, most reversible way?",
            Role::DomainExpert => "Is this technically right and idiomatic?",
            Role::CollectiveIntelligence => "What happened when others did this?",
            Role::RiskCompliance => "Is it secure, compliant and auditable?",
            Role::UserValue => "What does the user gain?",
            Role::Financial => "What do the accounts say about growth, margins and tax?",
            Role::Strategy => "Where is the business going, and what must it reinvest?",
            Role::Risk => "How much can go wrong, and what does leverage do to it?",
            Role::Observer => "What did I see, from which source, and when?",
            Role::Embedder => "Which observations are about the same thing?",
            Role::Reconciler => "What do we believe, and why?",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

/// One debating agent: a unique id within the debate and the role it plays.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSpec {
    pub id: String,
    pub role: Role,
    /// CR-1: who this agent is across debates (`builtin:safety`, `openai:<model>:safety`), so
    /// its track record follows it. Absent in logs written before credibility.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
    /// QL-3: the backend (`builtin`, `openai`, `http`) and model of this agent when the request
    /// chose them per agent; absent when every agent uses the debate's `backend`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl AgentSpec {
    pub fn new(id: impl Into<String>, role: Role) -> Self {
        AgentSpec {
            id: id.into(),
            role,
            identity: None,
            backend: None,
            model: None,
        }
    }

    /// The three agents of seed 001: Utility, Accuracy, Safety (S4-1).
    pub fn default_s4() -> Vec<AgentSpec> {
        vec![
            AgentSpec::new("utility", Role::Utility),
            AgentSpec::new("accuracy", Role::Accuracy),
            AgentSpec::new("safety", Role::Safety),
        ]
    }

    /// "Utility Agent", "Safety 2 Agent", … for headings.
    pub fn display_name(&self) -> String {
        display_name(&self.id)
    }
}

pub fn display_name(id: &str) -> String {
    let mut out = String::with_capacity(id.len() + 6);
    // An id that already says it is an agent ("agent_a", RC's observers) is not "… Agent Agent".
    let named = id
        .split(['-', '_'])
        .any(|w| w.eq_ignore_ascii_case("agent"));
    for (i, word) in id.split(['-', '_']).filter(|w| !w.is_empty()).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if !named {
        out.push_str(" Agent");
    }
    out
}

/// An agent's stance on the query at one point of the debate (S4-2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub decision: Decision,
    /// 0–100.
    pub confidence: u8,
    /// 0–100.
    pub risk: u8,
    pub reasoning: String,
}

/// S4-1 / RR-1: at least two agents, at most `max`, unique non-empty ids.
pub fn check_agents(agents: &[AgentSpec], max: usize) -> Result<(), ProtocolError> {
    if agents.len() < 2 {
        return Err(ProtocolError::TooFewAgents(agents.len()));
    }
    if agents.len() > max {
        return Err(ProtocolError::TooManyAgents(agents.len(), max));
    }
    for (i, a) in agents.iter().enumerate() {
        if a.id.trim().is_empty() {
            return Err(ProtocolError::EmptyAgentId);
        }
        if agents[..i].iter().any(|b| b.id == a.id) {
            return Err(ProtocolError::DuplicateAgent(a.id.clone()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::display_name;

    #[test]
    fn display_names_read_as_names() {
        let table = [
            ("utility", "Utility Agent"),
            ("risk_compliance", "Risk Compliance Agent"),
            ("agent_a", "Agent A"),
            ("field-Agent-7", "Field Agent 7"),
        ];
        for (id, want) in table {
            assert_eq!(display_name(id), want, "{id}");
        }
    }
}

//! RC-1's input checks, per field: `"observations": [{id, agent, content, topic_hint?,
//! timestamp, source_authority?, conflicts_with?}]` and the `config` parameters. Every error
//! names its field (`observations[2].timestamp: …`).

use serde::Deserialize;

use super::types::{
    Authority, Linkage, Observation, RcConfig, RcParams, MAX_CONTENT_CHARS, MAX_NAME_CHARS,
    MAX_OBSERVATIONS,
};
use super::weights::authority_of;
use crate::time;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ObservationIn {
    id: String,
    agent: String,
    content: String,
    #[serde(default)]
    topic_hint: Option<String>,
    timestamp: String,
    #[serde(default)]
    source_authority: Option<AuthorityIn>,
    #[serde(default)]
    conflicts_with: Vec<String>,
}

/// A number from 0 to 1, or a source's name ("CEO earnings call", "Reddit rumor").
#[derive(Deserialize)]
#[serde(untagged)]
enum AuthorityIn {
    Score(f64),
    Named(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct ParamsIn {
    linkage: Linkage,
    similarity_threshold: Option<f64>,
    /// `null` turns the rule off.
    report_threshold: Option<f64>,
    authority_margin: f64,
    credibility_margin: f64,
    temporal_gap_hours: f64,
}

impl Default for ParamsIn {
    fn default() -> Self {
        let d = RcParams::default();
        ParamsIn {
            linkage: d.linkage,
            similarity_threshold: None,
            report_threshold: d.report_threshold,
            authority_margin: d.authority_margin,
            credibility_margin: d.credibility_margin,
            temporal_gap_hours: d.temporal_gap_hours,
        }
    }
}

/// The `config` of a reconciliation.
pub fn parse_params(v: &serde_json::Value) -> Result<RcParams, String> {
    let p: ParamsIn = serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        if path == "." {
            format!("config: {inner} (keys: linkage, similarity_threshold, report_threshold, authority_margin, credibility_margin, temporal_gap_hours)")
        } else {
            format!("config.{path}: {inner}")
        }
    })?;
    // The default threshold is the linkage's own: a centroid cosine and a centred average are
    // different scales.
    let similarity_threshold = p.similarity_threshold.unwrap_or(match p.linkage {
        Linkage::Average => super::types::AVERAGE_THRESHOLD,
        Linkage::Centroid => 0.7,
    });
    let params = RcParams {
        linkage: p.linkage,
        similarity_threshold,
        report_threshold: p.report_threshold,
        authority_margin: p.authority_margin,
        credibility_margin: p.credibility_margin,
        temporal_gap_hours: p.temporal_gap_hours,
    };
    check_params(&params)?;
    Ok(params)
}

fn check_params(p: &RcParams) -> Result<(), String> {
    let checks = [
        (
            "similarity_threshold",
            p.similarity_threshold,
            p.linkage.min_threshold(),
            0.999,
        ),
        ("authority_margin", p.authority_margin, 0.0, 1.0),
        ("credibility_margin", p.credibility_margin, 0.0, 1.0),
        ("temporal_gap_hours", p.temporal_gap_hours, 0.0, 87_600.0),
    ];
    let report = p
        .report_threshold
        .map(|t| ("report_threshold", t, p.linkage.min_threshold(), 1.0));
    for (field, v, lo, hi) in checks.into_iter().chain(report) {
        if !v.is_finite() || v < lo || v > hi {
            return Err(format!(
                "config.{field}: must be from {lo} to {hi}, got {v}"
            ));
        }
    }
    Ok(())
}

/// The request's `observations`, checked field by field.
pub fn parse_observations(v: &serde_json::Value) -> Result<Vec<Observation>, String> {
    if !v.is_array() {
        return Err("observations: must be a list of {id, agent, content, timestamp, …}".into());
    }
    let items: Vec<ObservationIn> = serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        format!("observations{}: {}", path.pipe_path(), e.into_inner())
    })?;
    let observations = items
        .into_iter()
        .map(|o| Observation {
            id: o.id.trim().to_owned(),
            agent: o.agent.trim().to_owned(),
            content: o.content.trim().to_owned(),
            topic_hint: o
                .topic_hint
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty()),
            timestamp: o.timestamp.trim().to_owned(),
            source_authority: o.source_authority.map(|a| match a {
                AuthorityIn::Score(score) => Authority {
                    score,
                    source: None,
                },
                AuthorityIn::Named(name) => Authority {
                    score: authority_of(&name),
                    source: Some(name.trim().to_owned()),
                },
            }),
            conflicts_with: o
                .conflicts_with
                .into_iter()
                .map(|c| c.trim().to_owned())
                .collect(),
        })
        .collect::<Vec<_>>();
    check_observations(&observations)?;
    Ok(observations)
}

/// serde_path_to_error's `[0].id` as `[0].id`, and `.` (the list itself) as nothing.
trait PipePath {
    fn pipe_path(self) -> String;
}

impl PipePath for String {
    fn pipe_path(self) -> String {
        if self == "." || self.is_empty() {
            String::new()
        } else if self.starts_with('[') {
            self
        } else {
            format!(".{self}")
        }
    }
}

fn name_ok(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

/// Every RC-1 rule on typed observations: counts, ids, lengths, times, authorities, links.
pub fn check_observations(obs: &[Observation]) -> Result<(), String> {
    if obs.is_empty() {
        return Err("observations: give at least one observation".into());
    }
    if obs.len() > MAX_OBSERVATIONS {
        return Err(format!(
            "observations: {} observations; the most one reconciliation takes is {MAX_OBSERVATIONS}",
            obs.len()
        ));
    }
    for (i, o) in obs.iter().enumerate() {
        check_one(i, o, obs)?;
    }
    Ok(())
}

/// Observation `i` of `obs`, field by field.
fn check_one(i: usize, o: &Observation, obs: &[Observation]) -> Result<(), String> {
    {
        let at = |field: &str, problem: String| format!("observations[{i}].{field}: {problem}");
        for (field, v) in [("id", &o.id), ("agent", &o.agent)] {
            let n = v.chars().count();
            if n == 0 {
                return Err(at(field, "must not be empty".into()));
            }
            if n > MAX_NAME_CHARS {
                return Err(at(
                    field,
                    format!("{n} characters; the limit is {MAX_NAME_CHARS}"),
                ));
            }
            if !name_ok(v) {
                return Err(at(
                    field,
                    format!("“{v}” may hold only letters, digits, _ - . and :"),
                ));
            }
        }
        if [super::types::EMBEDDER, super::types::RECONCILER].contains(&o.agent.as_str()) {
            return Err(at(
                "agent",
                format!(
                    "“{}” is the name of the protocol's own agent; choose another",
                    o.agent
                ),
            ));
        }
        if obs[..i].iter().any(|p| p.id == o.id) {
            return Err(at("id", format!("“{}” is used twice", o.id)));
        }
        let n = o.content.chars().count();
        if n == 0 {
            return Err(at("content", "must not be empty".into()));
        }
        if n > MAX_CONTENT_CHARS {
            return Err(at(
                "content",
                format!("{n} characters; the limit is {MAX_CONTENT_CHARS}"),
            ));
        }
        if let Some(c) = o
            .content
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
        {
            return Err(at(
                "content",
                format!("holds the control character U+{:04X}", u32::from(c)),
            ));
        }
        if let Some(h) = &o.topic_hint {
            let n = h.chars().count();
            if n > MAX_NAME_CHARS {
                return Err(at(
                    "topic_hint",
                    format!("{n} characters; the limit is {MAX_NAME_CHARS}"),
                ));
            }
        }
        if time::days(&o.timestamp).is_none() {
            return Err(at(
                "timestamp",
                format!(
                    "“{}” is not an RFC 3339 time such as 2026-01-05T09:00:00Z",
                    super::cluster::shorten(&o.timestamp, 40)
                ),
            ));
        }
        check_links(i, o, obs)?;
    }
    Ok(())
}

/// Observation `i`'s source authority and `conflicts_with`.
fn check_links(i: usize, o: &Observation, obs: &[Observation]) -> Result<(), String> {
    {
        let at = |field: &str, problem: String| format!("observations[{i}].{field}: {problem}");
        if let Some(a) = &o.source_authority {
            if !a.score.is_finite() || !(0.0..=1.0).contains(&a.score) {
                return Err(at(
                    "source_authority",
                    format!("must be from 0 to 1 or a source's name, got {}", a.score),
                ));
            }
            if let Some(s) = &a.source {
                let n = s.chars().count();
                if n == 0 || n > MAX_NAME_CHARS {
                    return Err(at(
                        "source_authority",
                        format!(
                            "a source's name must be 1 to {MAX_NAME_CHARS} characters, got {n}"
                        ),
                    ));
                }
            }
        }
        for (k, c) in o.conflicts_with.iter().enumerate() {
            if *c == o.id {
                return Err(at(
                    &format!("conflicts_with[{k}]"),
                    "an observation cannot conflict with itself".into(),
                ));
            }
            if !obs.iter().any(|p| p.id == *c) {
                return Err(at(
                    &format!("conflicts_with[{k}]"),
                    format!(
                        "no observation has the id “{}”",
                        super::cluster::shorten(c, 40)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The machine's own check of a configuration (however it was made).
pub fn check(config: &RcConfig) -> Result<(), String> {
    check_params(&config.params)?;
    check_observations(&config.observations)
}

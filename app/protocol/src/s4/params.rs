//! S4-1: which agents debate. `config.agents` lists their roles — `utility`, `accuracy`,
//! `safety` — in order; a role may come more than once (its second agent is `safety-2`, shown as
//! "Safety 2 Agent"). Without it, the three agents of S4-1.

use serde::Deserialize;
use serde_json::Value;

use super::types::MAX_AGENTS;
use crate::parse::field::{read, List, Object, Str};
use crate::types::{AgentSpec, Role};

/// The roles an S4 agent can play: the questions of S4-1.
pub const ROLES: [Role; 3] = [Role::Utility, Role::Accuracy, Role::Safety];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct S4ParamsIn {
    agents: Option<List<Str>>,
}

/// The agents `config` asks for, each bad value named by its path.
pub fn parse_params(v: &Value) -> Result<Vec<AgentSpec>, String> {
    let Object(c) = read::<Object<S4ParamsIn>>(v, "config")?;
    let Some(List(roles)) = c.agents else {
        return Ok(AgentSpec::default_s4());
    };
    if !(2..=MAX_AGENTS).contains(&roles.len()) {
        return Err(format!(
            "config.agents: an S4 debate has from 2 to {MAX_AGENTS} agents, got {}",
            roles.len()
        ));
    }
    let mut agents: Vec<AgentSpec> = Vec::with_capacity(roles.len());
    for (i, Str(name)) in roles.iter().enumerate() {
        let role = Role::parse(name)
            .filter(|r| ROLES.contains(r))
            .ok_or_else(|| {
                format!(
                    "config.agents[{i}]: '{}' is not an S4 role (utility, accuracy or safety)",
                    name.chars().take(40).collect::<String>()
                )
            })?;
        let before = agents.iter().filter(|a| a.role == role).count();
        let id = match before {
            0 => role.as_str().to_owned(),
            n => format!("{}-{}", role.as_str(), n + 1),
        };
        agents.push(AgentSpec::new(id, role));
    }
    Ok(agents)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::parse_params;
    use crate::types::{AgentSpec, Role};

    /// S4-1: three agents by default; the set is configurable, N ≥ 2.
    #[test]
    fn agents_are_listed_by_role() {
        assert_eq!(parse_params(&json!({})), Ok(AgentSpec::default_s4()));
        let five = parse_params(
            &json!({"agents": ["utility", "accuracy", "safety", "Safety", " accuracy"]}),
        )
        .expect("five agents");
        let ids: Vec<_> = five.iter().map(|a| (a.id.as_str(), a.role)).collect();
        assert_eq!(
            ids,
            [
                ("utility", Role::Utility),
                ("accuracy", Role::Accuracy),
                ("safety", Role::Safety),
                ("safety-2", Role::Safety),
                ("accuracy-2", Role::Accuracy),
            ]
        );
        assert_eq!(five[3].display_name(), "Safety 2 Agent");
    }

    /// S4-1's bounds and its roles, each refusal naming the field.
    #[test]
    fn bad_agent_lists_are_named() {
        let cases = [
            (json!([]), "config: must be an object, got an array"),
            (
                json!({"rounds": 3}),
                "config.rounds: unknown field; expected agents",
            ),
            (
                json!({"agents": "safety"}),
                "config.agents: must be an array, got a string",
            ),
            (
                json!({"agents": ["safety"]}),
                "config.agents: an S4 debate has from 2 to 8 agents, got 1",
            ),
            (
                json!({"agents": vec!["safety"; 9]}),
                "config.agents: an S4 debate has from 2 to 8 agents, got 9",
            ),
            (
                json!({"agents": ["safety", "valuation"]}),
                "config.agents[1]: 'valuation' is not an S4 role (utility, accuracy or safety)",
            ),
            (
                json!({"agents": ["safety", 3]}),
                "config.agents[1]: must be a string, got a number",
            ),
        ];
        for (config, want) in cases {
            assert_eq!(parse_params(&config), Err(want.to_owned()), "{config}");
        }
    }
}

//! RR, WC and S4's configurable agents over the real HTTP/SSE surface of the real binary:
//! start, stream to the decision, verify the log, and bad parameters refused by name.

use crate::common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn round_robin_runs_live_and_verifies() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (id, events) = run_to_end(
        &server,
        json!({"query": "Should I buy Tesla stock after the recent rally?", "protocol": "round_robin",
               "seed": 3, "config": {"max_rounds": 4, "consensus_threshold": 0.75}}),
    )
    .await;
    // CR-4: the credibility snapshot follows debate_started; then RR-5 runs and says why.
    assert_eq!(events[1]["type"], "credibility");
    assert_eq!(events[2]["type"], "trigger_checked");
    assert_eq!(events[2]["triggered"], true);
    assert!(events[2]["explanation"]
        .as_str()
        .expect("text")
        .contains("should i buy"));
    // RR-1: strict order, one agent at a time.
    let speakers: Vec<&str> = of_type(&events, "turn")
        .iter()
        .map(|t| t["agent"].as_str().expect("agent"))
        .collect();
    for (i, s) in speakers.iter().take(3).enumerate() {
        assert_eq!(*s, ["valuation", "sentiment", "fundamental"][i]);
    }
    // RR-2: one consensus check per round; RR-4 metadata on the decision.
    let decision = events.last().expect("events");
    assert_eq!(decision["type"], "decision");
    let rounds = decision["total_rounds"].as_u64().expect("rounds");
    assert!((2..=4).contains(&rounds), "{decision}");
    assert_eq!(of_type(&events, "consensus_checked").len() as u64, rounds);
    assert_eq!(
        decision["total_turns"].as_u64(),
        Some(speakers.len() as u64)
    );
    let participation = decision["agent_participation"].as_object().expect("object");
    assert_eq!(participation.len(), 3);
    for (agent, turns) in participation {
        assert!(turns.as_u64().expect("turns") >= 2, "{agent}: RR-3 minimum");
    }
    let stance = decision["stance"].as_str().expect("stance");
    assert!(["BUY", "SELL", "HOLD"].contains(&stance));
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(
        (detail["protocol"].as_str(), detail["decision"].as_str()),
        (Some("round_robin"), Some(stance))
    );

    // The audit page is server-rendered for this protocol too.
    let html = client()
        .get(server.url(&format!("/debates/{id}/audit")))
        .send()
        .await
        .expect("audit")
        .text()
        .await
        .expect("html");
    assert!(
        html.contains("consensus-meter"),
        "RR view on the audit page"
    );
    let md = client()
        .get(server.url(&format!("/api/debates/{id}/export.md")))
        .send()
        .await
        .expect("md")
        .text()
        .await
        .expect("text");
    assert!(md.contains(&format!("## Decision: {stance}")), "{md}");
    assert!(md.contains("Consensus check"), "{md}");
}

#[tokio::test]
async fn collapse_runs_live_and_verifies() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    // Builtin authors write the cards.
    let (id, events) = run_to_end(
        &server,
        json!({"query": "Migrate the orders database from MySQL to PostgreSQL", "protocol": "collapse", "seed": 5}),
    )
    .await;
    let cards = of_type(&events, "card_submitted");
    assert!(cards.len() >= 3, "three authors");
    for c in &cards {
        let s = &c["score"];
        let terms: f64 = s["terms"]
            .as_array()
            .expect("terms")
            .iter()
            .map(|t| t.as_f64().expect("f64"))
            .sum();
        assert!(
            (terms - s["total"].as_f64().expect("total")).abs() < 1e-9,
            "S is the sum of its terms"
        );
    }
    assert_eq!(
        of_type(&events, "gates_checked").len(),
        of_type(&events, "card_verified").len()
    );
    assert!(!of_type(&events, "converged").is_empty());
    let decision = events.last().expect("events");
    let outcome = decision["outcome"].as_str().expect("outcome");
    assert!(
        [
            "ACCEPTED",
            "CONSENSUS_REACHED",
            "HYBRID_SYNTHESIZED",
            "SAFE_FALLBACK",
            "ESCALATED_TO_HUMAN"
        ]
        .contains(&outcome),
        "{decision}"
    );
    let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
    assert_eq!(detail["decision"].as_str(), Some(outcome));

    // User-supplied cards are logged as submitted, not rewritten by an agent.
    let user_cards = json!([
        {"agent": "postgres", "claims": ["RLS isolates tenants"],
         "plan": [{"action": "Add RLS policies", "rationale": "isolation"}],
         "evidence": [{"type": "document", "pointer": "docs/adr.md", "quality": 0.9}],
         "risks": [{"severity": "low", "description": "policy drift", "mitigation": "tests", "residual_risk": 0.1}],
         "confidence": 0.9, "cost": 20, "reversibility": 0.9, "invariant_violations": []},
        {"agent": "mongodb", "claims": ["Schema-less catalogue"],
         "plan": [{"action": "Move the catalogue", "rationale": "flexibility"}],
         "evidence": [{"type": "measurement", "pointer": "bench.csv", "quality": 0.5}],
         "risks": [{"severity": "high", "description": "two databases", "mitigation": "managed", "residual_risk": 0.5}],
         "confidence": 0.6, "cost": 70, "reversibility": 0.4, "invariant_violations": []}
    ]);
    let (_, events) = run_to_end(
        &server,
        json!({"query": "Pick the tenancy store", "protocol": "collapse", "seed": 1, "cards": user_cards}),
    )
    .await;
    let first: Vec<&Value> = of_type(&events, "card_submitted")
        .into_iter()
        .filter(|c| c["revision"] == 0)
        .collect();
    assert_eq!(first.len(), 2);
    assert_eq!(
        (first[0]["source"].as_str(), first[0]["position"].as_str()),
        (Some("user"), Some("postgres"))
    );
    assert_eq!(first[0]["card"]["evidence"][0]["quality"], 0.9);
    // S = 10·0.9 − 8·(0.1·0.1) + 3·0.9 − 2·0.2 + 0.9 − 0 = 12.12
    assert!(
        (first[0]["score"]["total"].as_f64().expect("S") - 12.12).abs() < 1e-9,
        "{}",
        first[0]["score"]
    );

    // A bad card is refused with its field named, and nothing is stored.
    let mut bad = user_cards.clone();
    bad[1]["risks"][0]["residual_risk"] = json!(1.5);
    let bad_request = json!({"query": "q", "protocol": "collapse", "cards": bad});
    assert_refused(&server, &bad_request, "cards[1].risks[0].residual_risk").await;
}

/// S4-1: the set of agents is configurable. Five agents, a role twice: every agent challenges
/// every other (S4-3: 5·4 = 20), all five vote, a per-agent choice names the second agent of a
/// role, and the log verifies.
#[tokio::test]
async fn s4_takes_the_agents_it_is_given() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let (id, events) = run_to_end(
        &server,
        json!({"query": "Should we move the team to a four-day week?", "seed": 4,
               "config": {"agents": ["utility", "accuracy", "safety", "safety", "accuracy"]},
               "agents": [{"role": "safety-2", "backend": "builtin"}]}),
    )
    .await;
    let ids: Vec<&str> = events[0]["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| a["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids,
        ["utility", "accuracy", "safety", "safety-2", "accuracy-2"]
    );
    assert_eq!(of_type(&events, "position").len(), 5);
    assert_eq!(of_type(&events, "challenge").len(), 20);
    assert_eq!(of_type(&events, "vote").len(), 5);
    let counts = &events.last().expect("decision")["decision_counts"];
    let total: u64 = ["ACT", "WARN", "REFUSE"]
        .iter()
        .map(|k| counts[*k].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(total, 5, "{counts}");
    let (ok, out) = verify(&server.url(&format!("/api/debates/{id}/export.json")));
    assert!(
        ok && out.contains("recomputed from 5 logged votes"),
        "{out}"
    );
}

#[tokio::test]
async fn bad_parameters_are_refused_by_name() {
    let (_dir, db) = temp_db();
    let server = Server::start(&db, 0);
    let q = "Should I buy Tesla stock?";
    let cases = [
        (
            json!({"query": q, "protocol": "round_robin", "config": {"max_rounds": 0}}),
            "config.max_rounds",
        ),
        (
            json!({"query": q, "protocol": "round_robin", "config": {"max_rounds": "5"}}),
            "config.max_rounds",
        ),
        (
            json!({"query": q, "protocol": "round_robin", "config": {"max_rounds": 1001}}),
            "config.max_rounds: must be a whole number from 1 to 1000, got 1001",
        ),
        (
            json!({"query": q, "protocol": "round_robin", "config": {"consensus_threshold": 1.5}}),
            "config.consensus_threshold",
        ),
        (
            json!({"query": q, "protocol": "round_robin", "config": {"min_turns_per_agent": 9, "max_rounds": 3}}),
            "config.min_turns_per_agent",
        ),
        (
            json!({"query": q, "protocol": "round_robin", "config": {"rounds": 3}}),
            "config.rounds",
        ),
        (
            json!({"query": q, "protocol": "round_robin", "config": [1]}),
            "config",
        ),
        (
            json!({"query": q, "protocol": "round_robin", "cards": []}),
            "cards",
        ),
        (
            json!({"query": q, "protocol": "s4", "config": {"max_rounds": 3}}),
            "config.max_rounds",
        ),
        (
            json!({"query": q, "protocol": "s4", "config": {"agents": ["safety", "judge"]}}),
            "config.agents[1]",
        ),
        (
            json!({"query": q, "protocol": "s4", "agents": [{"role": "safety-2"}]}),
            "safety-2",
        ),
        (json!({"query": q, "protocol": "debate"}), "round_robin"),
        (
            json!({"query": q, "protocol": "collapse", "config": {"hybrid_gap": -2}}),
            "config.hybrid_gap",
        ),
        (
            json!({"query": q, "protocol": "collapse", "cards": {"agent": "x"}}),
            "cards",
        ),
    ];
    for (body, names) in cases {
        assert_refused(&server, &body, names).await;
    }
    assert_nothing_stored(&server).await;
}

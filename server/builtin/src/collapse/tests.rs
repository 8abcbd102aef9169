//! Builtin WC agents: determinism, ranges, styles, stakes and panel calibration.

use std::sync::Arc;

use protocol::collapse::{default_panel, PanelEvaluation, PositionCard, Severity, WcReply, WcTask};
use protocol::{AgentReply, AgentRequest, Role, Task};

use super::super::BuiltinAgents;
use super::Metrics;

const AUTHORS: [&str; 3] = ["cautious", "pragmatic", "ambitious"];

const QUERIES: &[&str] = &[
    "Add a unit test for the date parser",
    "Rename the variable `tmp` to `buffer` in utils.rs",
    "Update the README with install steps",
    "Fix the typo in the changelog",
    "Add docstrings to the public API",
    "Migrate the user database from MySQL to PostgreSQL",
    "Rewrite the billing service in Rust",
    "Split the monolith into microservices",
    "Upgrade the web framework to the next major version",
    "Switch our CI from Jenkins to GitHub Actions",
    "Roll out the new checkout flow to all users in production",
    "Delete all inactive user accounts in production",
    "Drop table sessions on the live database tonight",
    "Disable authentication on the admin API to debug an outage",
    "Skip tests and force push the hotfix to main",
    "Permanently purge GDPR personal data of deleted customers",
    "Store credit card numbers in our own database",
    "Move the payment processing to a new provider",
    "Improve the search ranking",
    "Make the app faster",
    "Should we adopt Kubernetes?",
    "Add a dark mode to the settings page",
    "Replace the logging library",
    "Encrypt the backups",
    "Run an irreversible schema migration on production",
    "",
    "🙂🙂🙂 ??? !!!",
    "Überarbeite die Datenbank-Migration für alle Benutzer — 数据库迁移",
    "Hardcode the admin password so the demo works",
    "Refactor the payment module and wipe the old tables",
];

fn req(agent: &str, role: Role, round: u16, task: Task) -> AgentRequest {
    AgentRequest {
        id: 0,
        agent: agent.into(),
        role,
        round,
        task,
    }
}

fn write(seed: u64, author: &str, query: &str) -> PositionCard {
    let r = req(
        author,
        Role::Author,
        1,
        Task::Collapse(WcTask::WriteCard {
            query: Arc::from(query),
        }),
    );
    match BuiltinAgents::new(seed).reply(&r) {
        AgentReply::Collapse(WcReply::Card(c)) => c,
        other => panic!("expected a card, got {}", other.kind()),
    }
}

fn evaluate(
    seed: u64,
    role: Role,
    query: &str,
    positions: &[(String, PositionCard)],
) -> PanelEvaluation {
    let r = req(
        role.as_str(),
        role,
        3,
        Task::Collapse(WcTask::Evaluate {
            query: Arc::from(query),
            positions: positions.to_vec(),
        }),
    );
    match BuiltinAgents::new(seed).reply(&r) {
        AgentReply::Collapse(WcReply::Evaluation(e)) => e,
        other => panic!("expected an evaluation, got {}", other.kind()),
    }
}

/// WC-5: C(p) for every position with the default panel.
fn consensus(seed: u64, query: &str, positions: &[(String, PositionCard)]) -> Vec<f64> {
    let mut num = vec![0.0; positions.len()];
    let mut den = 0.0;
    for seat in default_panel() {
        let e = evaluate(seed, seat.role, query, positions);
        for (i, s) in e.scores.iter().enumerate() {
            num[i] += seat.weight * s.score * e.confidence;
        }
        den += seat.weight * e.confidence;
    }
    num.iter().map(|n| n / den).collect()
}

fn in_unit(x: f64) -> bool {
    x.is_finite() && (0.0..=1.0).contains(&x)
}

fn check_card(c: &PositionCard, ctx: &str) {
    assert!(in_unit(c.confidence), "{ctx}: confidence {}", c.confidence);
    assert!(in_unit(c.reversibility), "{ctx}: reversibility");
    assert!(!c.claims.is_empty(), "{ctx}: claims");
    assert!(
        (2..=6).contains(&c.plan.len()),
        "{ctx}: plan {}",
        c.plan.len()
    );
    assert!(!c.evidence.is_empty(), "{ctx}: evidence");
    for e in &c.evidence {
        assert!(in_unit(e.quality), "{ctx}: quality");
        assert!(!e.pointer.is_empty(), "{ctx}: pointer");
    }
    for r in &c.risks {
        assert!(in_unit(r.residual_risk), "{ctx}: residual");
        assert!(!r.description.is_empty(), "{ctx}: risk description");
    }
    for p in &c.plan {
        assert!(
            !p.action.is_empty() && !p.rationale.is_empty(),
            "{ctx}: step"
        );
    }
    assert!(c.cost >= 1 && c.cost <= 1000, "{ctx}: cost {}", c.cost);
}

#[test]
fn every_task_stays_in_range_for_many_queries_and_seeds() {
    let long = "delete the production database and migrate payments ".repeat(80);
    let long = &long[..4000];
    let mut queries: Vec<&str> = QUERIES.to_vec();
    queries.push(long);
    for q in &queries {
        for seed in 0..5 {
            let b = BuiltinAgents::new(seed);
            let mut positions = Vec::new();
            for author in AUTHORS.iter().chain(&["zeta-7", ""]) {
                let ctx = format!("{author} / {seed} / {q:.40}");
                let card = write(seed, author, q);
                check_card(&card, &ctx);
                let query: Arc<str> = Arc::from(*q);
                let AgentReply::Collapse(WcReply::Verification(v)) = b.reply(&req(
                    "verifier",
                    Role::Verifier,
                    1,
                    Task::Collapse(WcTask::VerifyCard {
                        query: query.clone(),
                        card: card.clone(),
                    }),
                )) else {
                    panic!("{ctx}: verification")
                };
                assert!(!v.notes.is_empty());
                let AgentReply::Collapse(WcReply::Critique(cr)) = b.reply(&req(
                    "skeptic",
                    Role::Skeptic,
                    2,
                    Task::Collapse(WcTask::Critique {
                        query: query.clone(),
                        card: card.clone(),
                    }),
                )) else {
                    panic!("{ctx}: critique")
                };
                assert!(
                    cr.score.is_finite() && (0.0..=10.0).contains(&cr.score),
                    "{ctx}"
                );
                assert!(!cr.concerns.is_empty(), "{ctx}");
                let AgentReply::Collapse(WcReply::Card(rev)) = b.reply(&req(
                    author,
                    Role::Author,
                    2,
                    Task::Collapse(WcTask::ReviseCard {
                        query: query.clone(),
                        card: card.clone(),
                        concerns: cr.concerns.clone(),
                        triggers: vec!["evidence quality < 0.6".into()],
                    }),
                )) else {
                    panic!("{ctx}: revision")
                };
                check_card(&rev, &format!("{ctx} (revised)"));
                let (m0, m1) = (Metrics::of(&card), Metrics::of(&rev));
                assert!(m1.e >= m0.e - 1e-9, "{ctx}: revision lowered evidence");
                assert!(m1.r <= m0.r + 1e-9, "{ctx}: revision raised risk");
                assert!(m1.k <= m0.k, "{ctx}: revision raised cost");
                positions.push((format!("p{}", positions.len()), card));
            }
            for seat in default_panel() {
                let e = evaluate(seed, seat.role, q, &positions);
                assert_eq!(e.scores.len(), positions.len());
                assert!(in_unit(e.confidence) && e.confidence > 0.0);
                assert!(positions.iter().any(|(id, _)| *id == e.recommendation));
                for s in &e.scores {
                    assert!(in_unit(s.score), "{:?} {}", seat.role, s.score);
                    assert!(!s.rationale.is_empty());
                }
            }
        }
    }
}

#[test]
fn deterministic_per_seed_agent_round_and_task() {
    for q in QUERIES {
        for author in AUTHORS {
            assert_eq!(write(7, author, q), write(7, author, q));
        }
        let positions: Vec<_> = AUTHORS
            .iter()
            .map(|a| ((*a).to_owned(), write(7, a, q)))
            .collect();
        assert_eq!(consensus(7, q, &positions), consensus(7, q, &positions));
    }
    // The seed matters somewhere.
    let q = "Migrate the user database from MySQL to PostgreSQL";
    assert!((0..8).any(|s| write(s, "pragmatic", q) != write(s + 8, "pragmatic", q)));
}

#[test]
fn styles_differ_in_the_expected_direction() {
    for q in [
        "Migrate the user database from MySQL to PostgreSQL",
        "Improve the search ranking",
        "Add a dark mode to the settings page",
        "Roll out the new checkout flow to all users in production",
    ] {
        for seed in 0..5 {
            let [c, p, a] = AUTHORS.map(|x| Metrics::of(&write(seed, x, q)));
            assert!(c.k < p.k && p.k < a.k, "cost {q}: {} {} {}", c.k, p.k, a.k);
            assert!(c.v > a.v, "reversibility {q}");
            assert!(c.gamma < a.gamma, "confidence {q}");
            assert!(c.e > a.e, "evidence {q}");
            assert!(a.n_risks >= c.n_risks && a.r > c.r, "risks {q}");
        }
    }
    // Unknown ids hash to a style, stably.
    assert_eq!(super::style::style("zeta-7"), super::style::style("zeta-7"));
    assert_eq!(
        super::style::style("Cautious-2"),
        super::style::Style::Cautious
    );
}

#[test]
fn destructive_queries_bring_critical_risks_or_violations() {
    for q in [
        "Delete all inactive user accounts in production",
        "Drop table sessions on the live database tonight",
        "Disable authentication on the admin API to debug an outage",
        "Skip tests and force push the hotfix to main",
    ] {
        for seed in 0..5 {
            for author in AUTHORS {
                let c = write(seed, author, q);
                let critical = c.risks.iter().any(|r| r.severity == Severity::Critical);
                assert!(
                    critical || !c.invariant_violations.is_empty(),
                    "{author}: {q}"
                );
                if author != "cautious" {
                    assert!(!c.invariant_violations.is_empty(), "{author}: {q}");
                }
                assert!(Metrics::of(&c).s < 6.0, "{author}: {q}");
            }
        }
    }
}

#[test]
fn routine_queries_give_clean_accepted_pragmatic_cards() {
    for q in &QUERIES[..5] {
        for seed in 0..8 {
            let c = write(seed, "pragmatic", q);
            let m = Metrics::of(&c);
            assert!(c.invariant_violations.is_empty(), "{q}");
            assert!(
                c.risks.iter().all(|r| r.severity <= Severity::Medium),
                "{q}"
            );
            assert!(m.s > 6.0, "{q}: S {}", m.s);
            let AgentReply::Collapse(WcReply::Verification(v)) =
                BuiltinAgents::new(seed).reply(&req(
                    "verifier",
                    Role::Verifier,
                    1,
                    Task::Collapse(WcTask::VerifyCard {
                        query: Arc::from(*q),
                        card: c,
                    }),
                ))
            else {
                panic!()
            };
            assert!(v.approve, "{q}: {}", v.notes);
        }
    }
}

#[test]
fn panel_seats_disagree_in_the_expected_direction() {
    let q = "Improve the search ranking";
    let mut cheap = write(1, "cautious", q);
    cheap.cost = 10;
    cheap.reversibility = 0.95;
    let mut big = write(1, "ambitious", q);
    big.cost = 150;
    big.reversibility = 0.2;
    let positions = vec![("cheap".to_owned(), cheap), ("big".to_owned(), big)];
    for seed in 0..5 {
        let pick = |r| evaluate(seed, r, q, &positions).recommendation;
        assert_eq!(pick(Role::Minimalist), "cheap");
        assert_eq!(pick(Role::Skeptic), "cheap");
        assert_eq!(pick(Role::RiskCompliance), "cheap");
        assert_eq!(pick(Role::Verifier), "cheap");
        assert_eq!(pick(Role::UserValue), "big");
        let c = consensus(seed, q, &positions);
        assert!(c[0] > c[1] + 0.1, "{c:?}");
    }
}

#[test]
fn panel_consensus_spreads_and_near_twins_tie() {
    let mut all = Vec::new();
    for q in QUERIES {
        for seed in 0..3 {
            let positions: Vec<_> = AUTHORS
                .iter()
                .map(|a| ((*a).to_owned(), write(seed, a, q)))
                .collect();
            all.extend(consensus(seed, q, &positions));
        }
    }
    assert!(all.iter().all(|c| in_unit(*c)));
    assert!(all.iter().any(|c| *c >= 0.7), "some consensus");
    assert!(all.iter().any(|c| (0.6..0.7).contains(c)), "some middle");
    assert!(all.iter().any(|c| (0.5..0.6).contains(c)), "some fallback");
    assert!(all.iter().any(|c| *c < 0.5), "some escalation");
    // Two near-identical cards get near-identical C (a hybrid is possible).
    let q = "Migrate the user database from MySQL to PostgreSQL";
    for seed in 0..5 {
        let a = write(seed, "pragmatic", q);
        let mut b = a.clone();
        b.agent = "pragmatic-2".into();
        b.cost += 3;
        let c = consensus(seed, q, &[("a".into(), a), ("b".into(), b)]);
        assert!((c[0] - c[1]).abs() < 0.05, "{c:?}");
    }
}

fn revise(seed: u64, author: &str, query: &str, card: &PositionCard, round: u16) -> PositionCard {
    let b = BuiltinAgents::new(seed);
    let AgentReply::Collapse(WcReply::Critique(cr)) = b.reply(&req(
        "skeptic",
        Role::Skeptic,
        round,
        Task::Collapse(WcTask::Critique {
            query: Arc::from(query),
            card: card.clone(),
        }),
    )) else {
        panic!("critique")
    };
    let AgentReply::Collapse(WcReply::Card(c)) = b.reply(&req(
        author,
        Role::Author,
        round,
        Task::Collapse(WcTask::ReviseCard {
            query: Arc::from(query),
            card: card.clone(),
            concerns: cr.concerns,
            triggers: vec!["skeptic score < 3.0".into()],
        }),
    )) else {
        panic!("card")
    };
    c
}

#[test]
fn reflexion_helps_with_diminishing_returns_and_sometimes_falls_short() {
    let mut crossed = 0;
    let mut short = 0;
    for q in &QUERIES[5..11] {
        for seed in 0..6 {
            for author in AUTHORS {
                let mut card = write(seed, author, q);
                let start = Metrics::of(&card).s;
                let mut gains = Vec::new();
                let mut last = start;
                for round in 2..5 {
                    card = revise(seed, author, q, &card, round);
                    let s = Metrics::of(&card).s;
                    assert!(s >= last - 1e-9, "{author} {q}: {last} -> {s}");
                    gains.push(s - last);
                    last = s;
                }
                assert!(gains[2] <= gains[0] + 0.5, "{author} {q}: {gains:?}");
                if start <= 6.0 {
                    if last > 6.0 {
                        crossed += 1;
                    } else {
                        short += 1;
                    }
                }
            }
        }
    }
    assert!(crossed > 0 && short > 0, "crossed {crossed}, short {short}");
}

#[test]
#[ignore = "prints S and C per query and style; run by hand to calibrate"]
fn survey() {
    for q in QUERIES {
        let positions: Vec<_> = AUTHORS
            .iter()
            .map(|a| ((*a).to_owned(), write(1, a, q)))
            .collect();
        let c = consensus(1, q, &positions);
        let s: Vec<String> = positions
            .iter()
            .zip(&c)
            .map(|((_, p), c)| {
                let m = Metrics::of(p);
                format!(
                    "S {:5.2} C {:.2} (I{} R{:.2} E{:.2})",
                    m.s, c, m.violations, m.r, m.e
                )
            })
            .collect();
        println!("{:45.45} | {}", q, s.join(" | "));
    }
}

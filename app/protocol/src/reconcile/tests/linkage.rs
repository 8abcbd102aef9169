//! RC-1's linkage: average linkage of centred embeddings, and the parameters that say which rule
//! a log's topics were formed by.

use super::super::cluster::cluster;
use super::super::types::{Linkage, Observation, RcParams, AVERAGE_THRESHOLD, REPORT_THRESHOLD};
use super::super::vectors::quantise;
use super::super::*;
use super::{centroid_at, obs, MON};
/// RC-1, average linkage: what every observation shares (here the first axis, "the patient")
/// is centred away, so the attribute each reports decides; the partition does not depend on the
/// observations' order; hints still never share a topic.
#[test]
fn average_linkage_groups_by_what_differs_in_any_order() {
    let v = |x: &[f32]| quantise(x).expect("vector");
    // Axis 0: the shared subject; axis 1: blood pressure; axis 2: heart rate; axis 3: discharge.
    let rows: Vec<(&str, Vec<i16>, &str)> = vec![
        ("o1", v(&[1.0, 0.30, 0.0, 0.0]), "bp"),
        ("o2", v(&[1.0, 0.25, 0.02, 0.0]), "bp"),
        ("o3", v(&[1.0, 0.0, 0.30, 0.0]), "hr"),
        ("o4", v(&[1.0, 0.02, 0.28, 0.0]), "hr"),
        ("o5", v(&[1.0, 0.0, 0.0, 0.30]), "discharge"),
    ];
    let params = RcParams::default();
    assert_eq!(params.linkage, Linkage::Average);
    // Uncentred, every pair is above 0.9: the centroid rule at its old default joins them all.
    let o: Vec<Observation> = rows.iter().map(|(id, _, _)| obs(id, id, id, MON)).collect();
    let vectors: Vec<Vec<i16>> = rows.iter().map(|r| r.1.clone()).collect();
    assert_eq!(cluster(&o, &vectors, &centroid_at(0.7)).len(), 1);
    let partition = |order: &[usize]| {
        let o: Vec<Observation> = order
            .iter()
            .map(|&i| obs(rows[i].0, rows[i].0, rows[i].0, MON))
            .collect();
        let vectors: Vec<Vec<i16>> = order.iter().map(|&i| rows[i].1.clone()).collect();
        let mut groups: Vec<Vec<&str>> = cluster(&o, &vectors, &params)
            .iter()
            .map(|t| {
                let mut g: Vec<&str> = t
                    .observation_ids
                    .iter()
                    .map(|id| rows.iter().find(|r| r.0 == id).map_or("?", |r| r.2))
                    .collect();
                g.sort_unstable();
                g
            })
            .collect();
        groups.sort();
        groups
    };
    let want = vec![vec!["bp", "bp"], vec!["discharge"], vec!["hr", "hr"]];
    for order in [
        [0, 1, 2, 3, 4],
        [4, 3, 2, 1, 0],
        [2, 0, 4, 1, 3],
        [1, 3, 0, 4, 2],
    ] {
        assert_eq!(partition(&order), want, "order {order:?}");
    }
    // The members say why they joined.
    let topics = cluster(&o, &vectors, &params);
    assert!(
        topics[0].members[1].why.starts_with("average similarity"),
        "{:?}",
        topics[0].members
    );
    // Different hints never join, however similar.
    let mut hinted = o.clone();
    hinted[0].topic_hint = Some("morning BP".into());
    hinted[1].topic_hint = Some("evening BP".into());
    let topics = cluster(&hinted, &vectors, &params);
    assert!(topics
        .iter()
        .all(|t| !(t.observation_ids.contains(&"o1".to_owned())
            && t.observation_ids.contains(&"o2".to_owned()))));
}

/// RC-1's parameters: logs written before `linkage` existed read as the centroid rule and write
/// back byte for byte; a new reconciliation logs its linkage; each linkage has its own default
/// threshold and range.
#[test]
fn linkage_is_logged_and_older_logs_keep_the_centroid_rule() {
    let old = serde_json::json!({"similarity_threshold": 0.7, "authority_margin": 0.1,
        "credibility_margin": 0.15, "temporal_gap_hours": 24.0});
    let p: RcParams = serde_json::from_value(old.clone()).expect("an older log's params");
    assert_eq!(p.linkage, Linkage::Centroid);
    assert_eq!(serde_json::to_value(p).expect("json"), old);
    let new = serde_json::to_value(RcParams::default()).expect("json");
    assert_eq!(new["linkage"], "average");
    type Want = Result<(Linkage, f64), &'static str>;
    let table: [(serde_json::Value, Want); 5] = [
        (
            serde_json::json!({}),
            Ok((Linkage::Average, AVERAGE_THRESHOLD)),
        ),
        (
            serde_json::json!({"linkage": "centroid"}),
            Ok((Linkage::Centroid, 0.7)),
        ),
        (
            serde_json::json!({"similarity_threshold": -0.2}),
            Ok((Linkage::Average, -0.2)),
        ),
        (
            serde_json::json!({"linkage": "centroid", "similarity_threshold": -0.2}),
            Err("config.similarity_threshold"),
        ),
        (
            serde_json::json!({"linkage": "single"}),
            Err("config.linkage"),
        ),
    ];
    for (config, want) in table {
        match (parse_params(&config), want) {
            (Ok(p), Ok((linkage, t))) => {
                assert_eq!(
                    (p.linkage, p.similarity_threshold),
                    (linkage, t),
                    "{config}"
                );
            }
            (Err(e), Err(field)) => assert!(e.contains(field), "{config}: {e}"),
            (got, want) => panic!("{config}: {got:?} vs {want:?}"),
        }
    }
}

/// RC-1, `report_threshold`: observations one agent made at the same instant are one report's
/// facts, so similarity joins two of them only at the rule's threshold; another agent, another
/// time, a shared hint or `conflicts_with` still join them below it, and with a single agent the
/// rule is off. Logs written before the rule existed read without it.
#[test]
fn one_reports_facts_join_only_when_very_similar() {
    // o1 and o2 are similar (centred 0.91, raw 0.98); o3 is far from both.
    let near = [
        quantise(&[1.0, 0.0, 0.0]).expect("vector"),
        quantise(&[0.98, 0.2, 0.0]).expect("vector"),
        quantise(&[0.0, 0.0, 1.0]).expect("vector"),
    ];
    const SAME_INSTANT: &str = "2026-01-05T10:00:00+01:00";
    const APART: Option<f64> = Some(0.99);
    struct Case {
        why: &'static str,
        second: (&'static str, &'static str),
        third_agent: &'static str,
        hint: bool,
        conflicts: bool,
        rule: Option<f64>,
        joined: bool,
    }
    let case = |why, second, third_agent, rule, joined| Case {
        why,
        second,
        third_agent,
        hint: false,
        conflicts: false,
        rule,
        joined,
    };
    let table = [
        case("one report", ("a", MON), "c", APART, false),
        case(
            "one instant, written another way",
            ("a", SAME_INSTANT),
            "c",
            APART,
            false,
        ),
        case(
            "one report, similar enough",
            ("a", MON),
            "c",
            Some(0.5),
            true,
        ),
        case("another agent", ("b", MON), "c", APART, true),
        case(
            "a later report",
            ("a", "2026-01-06T09:00:00Z"),
            "c",
            APART,
            true,
        ),
        case(
            "a single agent: the rule is off",
            ("a", MON),
            "a",
            APART,
            true,
        ),
        Case {
            hint: true,
            ..case("a shared hint", ("a", MON), "c", APART, true)
        },
        Case {
            conflicts: true,
            ..case("conflicts_with", ("a", MON), "c", APART, true)
        },
        case("a log from before the rule", ("a", MON), "c", None, true),
    ];
    for c in table {
        let mut o = vec![
            obs("o1", "a", "x", MON),
            obs("o2", c.second.0, "y", c.second.1),
            obs("o3", c.third_agent, "z", MON),
        ];
        if c.hint {
            o[0].topic_hint = Some("meeting".into());
            o[1].topic_hint = Some("Meeting".into());
        }
        if c.conflicts {
            o[1].conflicts_with = vec!["o1".into()];
        }
        for linkage in [Linkage::Average, Linkage::Centroid] {
            let params = RcParams {
                linkage,
                similarity_threshold: if linkage == Linkage::Average {
                    0.1
                } else {
                    0.7
                },
                report_threshold: c.rule,
                ..RcParams::default()
            };
            let topics = cluster(&o, &near, &params);
            let joined = topics
                .iter()
                .any(|t| t.observation_ids == ["o1".to_owned(), "o2".to_owned()]);
            assert_eq!(joined, c.joined, "{} ({linkage:?})", c.why);
        }
    }
    // Parameters: a new reconciliation logs the rule, an older log reads without it and writes
    // back without it; the config may set it or turn it off (`null`), within the linkage's range.
    assert_eq!(
        serde_json::to_value(RcParams::default()).expect("json")["report_threshold"],
        REPORT_THRESHOLD
    );
    let old = serde_json::json!({"linkage": "average", "similarity_threshold": 0.1,
        "authority_margin": 0.1, "credibility_margin": 0.15, "temporal_gap_hours": 24.0});
    let p: RcParams = serde_json::from_value(old.clone()).expect("an older log's params");
    assert_eq!(p.report_threshold, None);
    assert_eq!(serde_json::to_value(p).expect("json"), old);
    let config = |v: serde_json::Value| parse_params(&v).map(|p| p.report_threshold);
    assert_eq!(config(serde_json::json!({})), Ok(Some(REPORT_THRESHOLD)));
    assert_eq!(
        config(serde_json::json!({"report_threshold": 0.5})),
        Ok(Some(0.5))
    );
    assert_eq!(
        config(serde_json::json!({"report_threshold": null})),
        Ok(None)
    );
    for bad in [serde_json::json!("yes"), serde_json::json!(1.5)] {
        let e = config(serde_json::json!({ "report_threshold": bad })).expect_err("refused");
        assert!(e.contains("config.report_threshold"), "{e}");
    }
}

//! RC-1's linkage: average linkage of centred embeddings, and the parameters that say which rule
//! a log's topics were formed by.

use super::super::cluster::cluster;
use super::super::types::{Linkage, Observation, RcParams, AVERAGE_THRESHOLD};
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
    let o: Vec<Observation> = rows
        .iter()
        .map(|(id, _, _)| obs(id, "a", id, MON))
        .collect();
    let vectors: Vec<Vec<i16>> = rows.iter().map(|r| r.1.clone()).collect();
    assert_eq!(cluster(&o, &vectors, &centroid_at(0.7)).len(), 1);
    let partition = |order: &[usize]| {
        let o: Vec<Observation> = order
            .iter()
            .map(|&i| obs(rows[i].0, "a", rows[i].0, MON))
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

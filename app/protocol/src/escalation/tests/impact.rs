//! ES-8 (the calculators, the impact check and the re-run plan) and ES-10 (the clock).

use super::*;

/// ES-10: a long pause fires every timer it passed, in order, and stops at the queue.
#[test]
fn es_10_one_late_tick_climbs_every_level_it_passed() {
    let mut l = Ladder::new(challenge("operating_margin", 0.25, 0.30), 0);
    let steps = l.tick(30 * 24 * 3600);
    assert_eq!(levels(&steps), vec![2, 3]);
    assert_eq!(l.stage, Stage::Queue, "the desk decides what happens next");
    let cases = [(0, 3600, 0), (1000, 3600, 3600), (500, 1, 0), (2500, 1, 2)];
    for (wall_ms, scale, pipeline_s) in cases {
        assert_eq!(clock::pipeline_seconds(wall_ms, scale), pipeline_s);
    }
    assert_eq!(
        clock::wall_ms_until(0, ladder::HUMAN_S, 3600),
        6_000,
        "6 h at 3600× is 6 s"
    );
    assert_eq!(clock::wall_ms_until(0, 1, 3600), 1, "never early");
    assert!(clock::check_scale(0).is_err() && clock::check_scale(86_401).is_err());
    assert_eq!(clock::show(5 * 3600 + 12 * 60), "5 h 12 min");
}

/// ES-8: seed 000's worked example — margin 25 % → 28 % moves the DCF target 12 % ($85 → $95):
/// re-run required; the risk score moves less than 0.10: update only.
#[test]
fn es_8_seed_example_margin_override_requires_the_dcf_rerun() {
    let company = Company::default();
    let before = Assumptions::default();
    let base = analysis::compute(&company, &before).expect("values");
    assert!(
        (base.target_price - 85.0).abs() < 0.5,
        "{}",
        base.target_price
    );
    let report = impact(&GRAPH, &company, &before, "operating_margin", 0.28).expect("impact");
    let find = |id: &str| report.impacts.iter().find(|i| i.analysis == id).expect(id);
    let dcf = find("dcf");
    assert!((dcf.delta - 0.12).abs() < 1e-9, "{}", dcf.delta);
    assert!(dcf.requires_rerun);
    assert_eq!((dcf.old.as_str(), dcf.new.as_str()), ("$84.94", "$95.14"));
    let risk = find("risk");
    assert!(risk.delta < 0.10 && !risk.requires_rerun, "{risk:?}");
    assert!(find("rating").requires_rerun, "HOLD → BUY");
    assert_eq!(report.plan.update_only, vec!["risk".to_owned()]);
    assert_eq!(
        report.plan.strategy, "parallel",
        "three re-runs, two independent"
    );
    assert_eq!(
        report.plan.batches,
        vec![
            vec!["dcf".to_owned(), "sensitivity".to_owned()],
            vec!["rating".to_owned()]
        ]
    );
}

/// ES-8: the graph reaches analyses transitively; small moves plan serially.
#[test]
fn es_8_affected_analyses_and_the_serial_plan() {
    let cases: [(&str, &[&str]); 4] = [
        (
            "operating_margin",
            &["dcf", "sensitivity", "risk", "rating"],
        ),
        ("discount_rate", &["dcf", "sensitivity", "rating"]),
        ("tax_rate", &["dcf", "sensitivity", "rating"]),
        ("unknown", &[]),
    ];
    for (key, expected) in cases {
        assert_eq!(analysis::affected(&GRAPH, key), expected.to_vec(), "{key}");
    }
    let company = Company::default();
    // Leverage 1.5 → 2.0: the price falls ~5 % (more net debt) and risk rises 0.035: below every
    // threshold but the rating's.
    let report = impact(
        &GRAPH,
        &company,
        &Assumptions::default(),
        "net_debt_to_ebitda",
        2.0,
    )
    .expect("impact");
    assert!(report
        .impacts
        .iter()
        .all(|i| i.delta < 0.10 || i.analysis == "rating"));
    assert!(
        report.plan.required.len() <= 2 && report.plan.strategy == "serial",
        "{:?}",
        report.plan
    );
    // An unvaluable combination is refused by name, not computed.
    let e = impact(
        &GRAPH,
        &company,
        &Assumptions::default(),
        "discount_rate",
        0.03,
    )
    .unwrap_err();
    assert!(e.contains("must exceed terminal_growth"), "{e}");
}

/// The rating's boundaries and the risk notch.
#[test]
fn es_8_rating_boundaries() {
    let c = Company {
        revenue_per_share: 10.0,
        price: 100.0,
    };
    let cases = [
        (115.0, 0.2, Rating::Buy),
        (114.0, 0.2, Rating::Hold),
        (90.0, 0.2, Rating::Sell),
        (91.0, 0.2, Rating::Hold),
        (130.0, 0.7, Rating::Hold),
        (100.0, 0.75, Rating::Sell),
    ];
    for (target, risk, want) in cases {
        assert_eq!(
            analysis::rating(&c, target, risk).0,
            want,
            "{target} at risk {risk}"
        );
    }
    assert!(assumption("operating_margin").is_some_and(|a| a.check(0.3).is_ok()));
}

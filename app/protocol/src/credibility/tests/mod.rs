//! CR-1/CR-3 table tests (named by spec id) and CR-1's invariants as properties.

use proptest::prelude::*;

use super::*;
use crate::time;

const NOW: f64 = 20_000.0;

fn pt(age_days: f64, correct: bool) -> Point {
    Point {
        at: NOW - age_days,
        correct,
        ..Point::default()
    }
}

fn score(points: &[Point], ctx: &ContextTags) -> Breakdown {
    credibility(points, NOW, ctx, &CrParams::default())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn cr_1_fewer_than_five_points_is_insufficient_data_never_a_number() {
    for n in 0..5 {
        let points: Vec<Point> = (0..n).map(|i| pt(f64::from(i), true)).collect();
        let b = score(&points, &ContextTags::default());
        assert_eq!(
            b.credibility.status,
            CrStatus::InsufficientData,
            "{n} points"
        );
        assert_eq!(
            (b.credibility.score, b.credibility.low, b.credibility.high),
            (None, None, None)
        );
        assert_eq!(b.credibility.points, n);
    }
    let five: Vec<Point> = (0..5).map(|i| pt(f64::from(i), true)).collect();
    assert_eq!(
        score(&five, &ContextTags::default()).credibility.status,
        CrStatus::Ok
    );
}

#[test]
fn cr_1_recency_weight_halves_at_the_half_life_and_regime_weight_moves_to_the_others() {
    // Five right today, five wrong exactly one half-life (2 years) ago.
    let mut points: Vec<Point> = (0..5).map(|_| pt(0.0, true)).collect();
    points.extend((0..5).map(|_| pt(730.5, false)));
    let b = score(&points, &ContextTags::default());
    let recency = 5.0 / (5.0 + 5.0 * 0.5);
    assert!(close(b.recency.unwrap(), recency));
    assert!(close(b.overall.unwrap(), 0.5));
    // No regime: 0.5 and 0.2 renormalised over 0.7.
    assert!(close(b.weights[0], 0.5 / 0.7) && b.weights[1] == 0.0);
    let expected = (0.5 * recency + 0.2 * 0.5) / 0.7;
    assert!(close(b.credibility.score.unwrap(), expected), "{b:?}");
}

#[test]
fn cr_1_regime_accuracy_counts_only_with_fifty_points_in_the_current_regime() {
    let bear = ContextTags {
        regime: Some("bear".into()),
        ..ContextTags::default()
    };
    let tagged = |n: usize, correct: bool| -> Vec<Point> {
        (0..n)
            .map(|_| Point {
                at: NOW,
                correct,
                overridden: false,
                tags: bear.clone(),
            })
            .collect()
    };
    // 49 wrong in the bear regime, 51 right elsewhere: too few bear points.
    let mut points = tagged(49, false);
    points.extend((0..51).map(|_| pt(0.0, true)));
    let b = score(&points, &bear);
    assert_eq!(b.regime_points, 49);
    assert_eq!(b.weights[1], 0.0);
    assert!(close(b.credibility.score.unwrap(), 0.51));
    // The 50th bear point: 0.5·R + 0.3·G + 0.2·O.
    points.push(tagged(1, false).remove(0));
    let b = score(&points, &bear);
    assert_eq!(b.weights, [0.5, 0.3, 0.2]);
    let acc = 51.0 / 101.0;
    assert!(close(
        b.credibility.score.unwrap(),
        0.5 * acc + 0.3 * 0.0 + 0.2 * acc
    ));
}

#[test]
fn cr_1_context_match_blends_70_30_from_twelve_matching_points() {
    let ctx = ContextTags {
        sector: Some("energy".into()),
        horizon: Some("1y".into()),
        ..ContextTags::default()
    };
    let energy = |correct| Point {
        at: NOW,
        correct,
        overridden: false,
        // Shares one of the two given tags: half, so it matches.
        tags: ContextTags {
            sector: Some("energy".into()),
            ..ContextTags::default()
        },
    };
    let mut points: Vec<Point> = (0..20).map(|_| pt(0.0, true)).collect();
    points.extend((0..11).map(|_| energy(false)));
    let b = score(&points, &ctx);
    assert_eq!((b.context_points, b.context_used), (11, false));
    let base = 20.0 / 31.0;
    assert!(close(b.credibility.score.unwrap(), base));
    points.push(energy(false));
    let b = score(&points, &ctx);
    assert_eq!((b.context_points, b.context_used), (12, true));
    let base = 20.0 / 32.0;
    assert!(close(b.credibility.score.unwrap(), 0.7 * base + 0.3 * 0.0));
}

#[test]
fn cr_1_trend_term_applies_only_when_the_fit_explains_more_than_0_3() {
    // Four quarters: 0 %, 33 %, 67 %, 100 % right — a clean rise.
    let mut rising = Vec::new();
    for (q, right) in [(3.0, 0), (2.0, 1), (1.0, 2), (0.0, 3)] {
        for i in 0..3 {
            rising.push(pt(q * 91.0 + 1.0, i < right));
        }
    }
    let b = score(&rising, &ContextTags::default());
    let t = b.trend.clone().expect("a trend over four periods");
    assert!(t.r2 > 0.9 && t.applied && t.slope_per_year > 0.0, "{t:?}");
    assert!(close(t.adjustment, 0.1), "a steep rise is bounded: {t:?}");
    // The same points in a noisy order: no fit, no term.
    let mut flat = Vec::new();
    for (q, right) in [(3.0, 2), (2.0, 1), (1.0, 1), (0.0, 2)] {
        for i in 0..3 {
            flat.push(pt(q * 91.0 + 1.0, i < right));
        }
    }
    let b = score(&flat, &ContextTags::default());
    assert!(!b.trend.expect("fitted").applied);
}

#[test]
fn cr_1_override_penalty_above_twenty_percent() {
    let with = |overridden: usize| -> Vec<Point> {
        (0..10)
            .map(|i| Point {
                at: NOW,
                correct: true,
                overridden: i < overridden,
                tags: ContextTags::default(),
            })
            .collect()
    };
    let b = score(&with(2), &ContextTags::default());
    assert_eq!(b.override_penalty, 0.0);
    assert!(close(b.credibility.score.unwrap(), 1.0));
    let b = score(&with(4), &ContextTags::default());
    assert!(close(b.override_penalty, 0.5 * (0.4 - 0.2)));
    assert!(close(b.credibility.score.unwrap(), 0.9));
}

#[test]
fn cr_1_interval_is_wilsons_with_its_edges() {
    // Textbook value: 5 of 10.
    let (l, h) = wilson(0.5, 10, 1.96);
    assert!(
        (l - 0.2366).abs() < 1e-4 && (h - 0.7634).abs() < 1e-4,
        "{l} {h}"
    );
    // Edges: no trials, all right, all wrong.
    assert_eq!(wilson(0.5, 0, 1.96), (0.0, 1.0));
    let (l, h) = wilson(1.0, 20, 1.96);
    assert!(h == 1.0 && l > 0.8 && l < 1.0);
    let (l, h) = wilson(0.0, 20, 1.96);
    assert!(l == 0.0 && h < 0.2 && h > 0.0);
    assert_eq!(wilson(f64::NAN, 5, 1.96), (0.0, 1.0));
}

#[test]
fn cr_3_identical_agents_are_one_vote_independent_ones_are_n() {
    let agents: Vec<String> = ["a", "b", "c"].iter().map(|s| (*s).to_owned()).collect();
    // Every combination of right and wrong, twice: pairwise uncorrelated errors.
    let independent: Vec<Vec<Option<bool>>> = (0..16)
        .map(|k: u32| (0..3).map(|i| Some(k >> i & 1 == 1)).collect())
        .collect();
    let e = effective_votes(&agents, &independent);
    assert!(close(e.effective.unwrap(), 3.0), "{e:?}");
    assert_eq!(e.note, "3 votes ≈ 3.0 independent");
    let identical: Vec<Vec<Option<bool>>> = (0..10).map(|k| vec![Some(k % 3 == 0); 3]).collect();
    let e = effective_votes(&agents, &identical);
    assert!(close(e.effective.unwrap(), 1.0), "{e:?}");
    // Two copies and one independent agent: 9 / (3 + 2) = 1.8.
    let mixed: Vec<Vec<Option<bool>>> = (0..16)
        .map(|k: u32| vec![Some(k & 1 == 1), Some(k & 1 == 1), Some(k >> 1 & 1 == 1)])
        .collect();
    assert!(close(
        effective_votes(&agents, &mixed).effective.unwrap(),
        1.8
    ));
}

#[test]
fn cr_3_too_few_shared_outcomes_says_so() {
    let agents: Vec<String> = vec!["a".into(), "b".into()];
    let rows: Vec<Vec<Option<bool>>> = (0..4).map(|k| vec![Some(k % 2 == 0), Some(true)]).collect();
    let e = effective_votes(&agents, &rows);
    assert_eq!(e.effective, None);
    assert!(
        e.note.contains("a and b share 4 of the 5 outcomes"),
        "{}",
        e.note
    );
}

#[test]
fn cr_1_times_are_read_from_rfc_3339() {
    assert_eq!(time::days("1970-01-01T00:00:00Z"), Some(0.0));
    assert_eq!(time::days("1970-01-02T12:00:00Z"), Some(1.5));
    assert_eq!(time::days("2000-03-01T00:00:00Z"), Some(11_017.0));
    assert_eq!(
        time::days("2000-03-01T02:00:00+02:00"),
        time::days("2000-03-01T00:00:00Z")
    );
    assert!(time::days("2026-11-23T10:00:00.123456Z").is_some());
    for bad in [
        "",
        "2026-13-01T00:00:00Z",
        "2026-11-23",
        "yesterday",
        "2026-11-23T10:00:00",
    ] {
        assert_eq!(time::days(bad), None, "{bad}");
    }
    assert_eq!(time::date(11_017.0), "2000-03-01");
}

#[test]
fn cr_1_identities_name_backend_model_and_role() {
    assert_eq!(identity("builtin", None, "safety"), "builtin:safety");
    assert_eq!(
        identity("openai", Some("qwen2.5-7b"), "safety"),
        "openai:qwen2.5-7b:safety"
    );
    assert_eq!(
        identity("http", Some("agents.example:443"), "bull"),
        "http:agents.example:443:bull"
    );
    assert!(identity::check_identity("has space").is_err());
    assert!(identity::check_identity(&"x".repeat(201)).is_err());
}

fn arb_point() -> impl Strategy<Value = Point> {
    (
        0.0..3000.0f64,
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::option::of(prop::sample::select(vec!["bull", "bear"])),
        prop::option::of(prop::sample::select(vec!["energy", "tech"])),
    )
        .prop_map(|(age, correct, overridden, regime, sector)| Point {
            at: NOW - age,
            correct,
            overridden,
            tags: ContextTags {
                regime: regime.map(str::to_owned),
                sector: sector.map(str::to_owned),
                ..ContextTags::default()
            },
        })
}

fn arb_context() -> impl Strategy<Value = ContextTags> {
    (
        prop::option::of(prop::sample::select(vec!["bull", "bear"])),
        prop::option::of(prop::sample::select(vec!["energy", "tech"])),
    )
        .prop_map(|(r, s)| ContextTags {
            regime: r.map(str::to_owned),
            sector: s.map(str::to_owned),
            ..ContextTags::default()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn cr_1_score_is_in_0_1_and_inside_its_interval(
        points in prop::collection::vec(arb_point(), 0..120),
        ctx in arb_context(),
    ) {
        let b = score(&points, &ctx);
        let c = b.credibility;
        if points.len() < 5 {
            prop_assert_eq!(c.status, CrStatus::InsufficientData);
            prop_assert!(c.score.is_none() && c.low.is_none() && c.high.is_none());
        } else {
            let (s, l, h) = (c.score.unwrap(), c.low.unwrap(), c.high.unwrap());
            prop_assert!((0.0..=1.0).contains(&s));
            prop_assert!(0.0 <= l && l <= s && s <= h && h <= 1.0, "{} {} {}", l, s, h);
        }
    }

    /// More agreeing evidence — the same record again, every proportion kept — never widens
    /// the interval. (Contexts are left out so no 50- or 12-point threshold is crossed, which
    /// would change what is measured, not how much evidence there is.)
    #[test]
    fn cr_1_more_agreeing_evidence_never_widens_the_interval(
        points in prop::collection::vec(arb_point(), 5..80),
    ) {
        let none = ContextTags::default();
        let once = score(&points, &none).credibility;
        let mut twice = points.clone();
        twice.extend(points.iter().cloned());
        let again = score(&twice, &none).credibility;
        prop_assert!((once.score.unwrap() - again.score.unwrap()).abs() < 1e-9);
        let w1 = once.high.unwrap() - once.low.unwrap();
        let w2 = again.high.unwrap() - again.low.unwrap();
        prop_assert!(w2 <= w1 + 1e-12, "{} > {}", w2, w1);
    }

    #[test]
    fn cr_1_the_wilson_interval_narrows_with_n_and_contains_p(p in 0.0..=1.0f64, n in 1u32..5000) {
        let (l1, h1) = wilson(p, n, 1.96);
        let (l2, h2) = wilson(p, n + 1, 1.96);
        prop_assert!(l1 <= p && p <= h1);
        prop_assert!(h2 - l2 <= h1 - l1 + 1e-12);
    }

    #[test]
    fn cr_3_effective_votes_lie_between_one_and_n(
        rows in prop::collection::vec(prop::collection::vec(prop::option::of(any::<bool>()), 4), 0..60),
    ) {
        let agents: Vec<String> = (0..4).map(|i| format!("a{i}")).collect();
        let e = effective_votes(&agents, &rows);
        if let Some(x) = e.effective {
            prop_assert!((1.0 - 1e-9..=4.0 + 1e-9).contains(&x), "{}", x);
        }
    }
}

/// The README's worked example, by hand: three right today; two wrong and one right exactly one
/// half-life (730.5 days) ago; no regime, no context, no overrides.
#[test]
fn cr_1_the_readme_worked_example() {
    let mut points: Vec<Point> = (0..3).map(|_| pt(0.0, true)).collect();
    points.extend([pt(730.5, false), pt(730.5, false), pt(730.5, true)]);
    let b = score(&points, &ContextTags::default());
    let r = b.recency.unwrap();
    let o = b.overall.unwrap();
    let c = b.credibility;
    assert!((r - 0.7778).abs() < 5e-5, "R = 3.5 / 4.5: {r}");
    assert!((o - 0.6667).abs() < 5e-5, "O = 4 / 6: {o}");
    assert!((c.score.unwrap() - 0.7460).abs() < 5e-5, "{c:?}");
    assert!((c.low.unwrap() - 0.3616).abs() < 5e-5, "{c:?}");
    assert!((c.high.unwrap() - 0.9384).abs() < 5e-5, "{c:?}");
    assert!(b.trend.is_none(), "two periods: no trend");
}

//! QL-2's pure parts: the generator, the grader, the vote and the report.

use super::*;

/// QL-2: Du et al.'s arithmetic, reproducible from the seed, each answer what its expression is.
#[test]
fn ql_2_arithmetic_is_reproducible_and_right() {
    let a = arithmetic(2026, 50);
    assert_eq!(a, arithmetic(2026, 50), "same seed, same items");
    assert_ne!(a, arithmetic(2027, 50), "another seed, other items");
    assert_eq!(
        arithmetic(2026, 5),
        a[..5].to_vec(),
        "a prefix of a longer set"
    );
    for t in &a {
        let expr = t
            .question
            .strip_prefix("What is the result of ")
            .and_then(|q| q.strip_suffix('?'))
            .expect("the question's form");
        let parts: Vec<i64> = expr
            .split(['+', '*', '-'])
            .map(|x| x.parse().expect("an integer"))
            .collect();
        assert_eq!(parts.len(), 6, "{expr}");
        assert!(parts.iter().all(|x| (0..=30).contains(x)), "{expr}");
        let [a, b, c, d, e, f] = parts[..] else {
            unreachable!()
        };
        assert_eq!(t.answer, (a + b * c + d - e * f).to_string(), "{expr}");
        assert!(t.numeric);
    }
}

/// QL-2: the grader reads the last number, as written by real models.
#[test]
fn ql_2_grader_reads_the_final_number() {
    let task = |answer: &str| Task {
        id: "1".into(),
        question: "q".into(),
        answer: answer.into(),
        numeric: true,
    };
    let cases = [
        ("The answer is 42.", "42", Some("42"), true),
        ("42", "42", Some("42"), true),
        ("**42**", "42", Some("42"), true),
        ("forty-two", "42", None, false),
        (
            "3*4 = 12, so 12 - 30 = -18. The answer is -18",
            "-18",
            Some("-18"),
            true,
        ),
        ("−18", "-18", Some("-18"), true),
        ("First 7, then 9; final answer: 9", "9", Some("9"), true),
        ("The result is 1,234.", "1234", Some("1234"), true),
        ("about 3.5", "3.5", Some("3.5"), true),
        ("x-3 is not a sign: 3", "3", Some("3"), true),
        ("I think 41", "42", Some("41"), false),
        ("", "42", None, false),
    ];
    for (reply, answer, read, right) in cases {
        let (got, ok) = grade(&task(answer), reply);
        assert_eq!((got.as_deref(), ok), (read, right), "{reply:?}");
    }
    let text = Task {
        id: "1".into(),
        question: "Capital of France?".into(),
        answer: "Paris".into(),
        numeric: false,
    };
    assert!(grade(&text, "Let me think.\nThe answer is Paris.").1);
    assert!(grade(&text, "**paris**").1);
    assert!(!grade(&text, "Paris is nice. The answer is Lyon").1);
}

/// QL-2: the plain majority; a tie goes to the answer that got there first.
#[test]
fn ql_2_majority_vote() {
    let s = |v: &[Option<&str>]| v.iter().map(|x| x.map(str::to_owned)).collect::<Vec<_>>();
    let cases: [(&[Option<&str>], Option<&str>); 5] = [
        (&[Some("1"), Some("2"), Some("2")], Some("2")),
        (&[Some("1"), Some("2")], Some("1")),
        (&[Some("2"), Some("1"), Some("1"), Some("2")], Some("1")),
        (&[None, None, Some("5")], Some("5")),
        (&[None, None], None),
    ];
    for (answers, want) in cases {
        assert_eq!(majority(&s(answers)).as_deref(), want, "{answers:?}");
    }
}

/// QL-2: a task file is checked line by line, the bad line named.
#[test]
fn ql_2_task_files_are_checked() {
    let ok = "{\"question\": \"2+2?\", \"answer\": 4}\n\n{\"question\": \"Capital of France?\", \"answer\": \"Paris\"}\n";
    let tasks = parse_jsonl(ok).expect("valid");
    assert_eq!(tasks.len(), 2);
    assert!(tasks[0].numeric && !tasks[1].numeric);
    let cases = [
        ("{\"question\": \"q\"}", "line 1: missing field `answer`"),
        (
            "{\"question\": \"q\", \"answer\": 1}\n{\"question\": \"\", \"answer\": 1}",
            "line 2: question must be",
        ),
        (
            "{\"question\": \"q\", \"answer\": [1]}",
            "line 1: answer must be a number",
        ),
        (
            "{\"question\": \"q\", \"answer\": 1, \"x\": 2}",
            "line 1: unknown field `x`",
        ),
        ("\n\n", "no tasks"),
    ];
    for (text, part) in cases {
        let e = parse_jsonl(text).unwrap_err();
        assert!(e.contains(part), "{e}");
    }
}

fn sample(answer: &str, correct: bool) -> Sample {
    Sample {
        answer: Some(answer.into()),
        correct,
        tokens: 10,
        error: None,
        excerpt: String::new(),
    }
}

/// QL-2: the report's cells, per-round accuracy and the talked-out count on a constructed run.
#[test]
fn ql_2_report_counts_each_method_and_round() {
    let config = EvalConfig {
        task_set: "arithmetic".into(),
        seed: 1,
        items: 2,
        agents: 3,
        rounds: 2,
        samples: 3,
        model: "m".into(),
        endpoint: "h".into(),
        temperature: 0.7,
        max_tokens: 100,
    };
    let right = || sample("4", true);
    let wrong = || sample("5", false);
    let items = vec![
        // Right alone; the debate starts right (2 of 3) and is talked out of it.
        ItemResult {
            id: "1".into(),
            question: "q".into(),
            answer: "4".into(),
            single: right(),
            samples: vec![right(), wrong(), right()],
            debate: vec![
                vec![right(), right(), wrong()],
                vec![wrong(), wrong(), right()],
            ],
        },
        // Wrong alone; the debate talks the agents into the right answer.
        ItemResult {
            id: "2".into(),
            question: "q".into(),
            answer: "4".into(),
            single: wrong(),
            samples: vec![wrong(), wrong(), right()],
            debate: vec![
                vec![wrong(), right(), wrong()],
                vec![right(), right(), wrong()],
            ],
        },
    ];
    let run = EvalRun {
        config,
        started_at: String::new(),
        updated_at: String::new(),
        wall_ms: 0,
        items,
    };
    let r = run.report();
    let got: Vec<(u32, u32, u64)> = r.cells.iter().map(|c| (c.correct, c.n, c.calls)).collect();
    assert_eq!(got, vec![(1, 2, 2), (1, 2, 6), (1, 2, 12)]);
    let rounds: Vec<u32> = r.per_round.iter().map(|c| c.correct).collect();
    assert_eq!(rounds, vec![1, 1]);
    assert_eq!((r.talked_out, r.talked_into), (1, 1));
    assert!(r
        .cells
        .iter()
        .all(|c| c.low <= c.accuracy && c.accuracy <= c.high));
    let table = r.table();
    assert!(
        table.contains("debate (3 agents × 2 rounds)") && table.contains("talked out"),
        "{table}"
    );
    let mut other = run.config.clone();
    other.rounds = 3;
    assert_eq!(
        run.config.difference(&other).as_deref(),
        Some("rounds: the saved run has 3, this one 2")
    );
}

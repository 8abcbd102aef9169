use super::wire::{dechunk, find, on_event};
use super::*;

/// Chunked transfer coding split anywhere: whole chunks come out, the rest waits.
#[test]
fn dechunks_across_reads() {
    let wire = b"5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n";
    for cut in 0..wire.len() {
        let mut raw = wire[..cut].to_vec();
        let mut out = Vec::new();
        dechunk(&mut raw, &mut out).expect("valid");
        raw.extend_from_slice(&wire[cut..]);
        dechunk(&mut raw, &mut out).expect("valid");
        assert_eq!(out, b"hello, world", "cut at {cut}");
    }
    let mut bad = b"zz\r\n".to_vec();
    assert!(dechunk(&mut bad, &mut Vec::new()).is_err());
}

/// Issue 17: the "connected" figures leave out events stamped before the last viewer was in.
#[test]
fn connected_latencies_start_when_the_last_viewer_is_in() {
    let viewer = |connected_at: f64, latencies_ms: Vec<(f64, f64)>| Seen {
        connected_at,
        latencies_ms,
        ..Seen::default()
    };
    let failed = Seen {
        connected_at: 900.0,
        error: Some("refused".into()),
        ..Seen::default()
    };
    let seen = [
        viewer(100.0, vec![(150.0, 9.0), (250.0, 2.0)]),
        viewer(200.0, vec![(250.0, 3.0), (300.0, 1.0)]),
        failed,
    ];
    let (all, connected) = latencies(&seen);
    assert_eq!(all, [1.0, 2.0, 3.0, 9.0]);
    assert_eq!(
        connected,
        [1.0, 2.0, 3.0],
        "stamped at or after 200, a failed viewer aside"
    );
}

#[test]
fn finds_a_few_bytes_anywhere() {
    let cases: [(&[u8], &[u8], Option<usize>); 8] = [
        (b"abc\n\nd", b"\n\n", Some(3)),
        (b"\n\n", b"\n\n", Some(0)),
        (b"a\nb\n\n", b"\n\n", Some(3)),
        (b"a\nb\n", b"\n\n", None),
        (b"x\r\n\r\nbody", b"\r\n\r\n", Some(1)),
        (b"x\r\n\r", b"\r\n\r\n", None),
        (b"", b"\n\n", None),
        (b"abc", b"", None),
    ];
    for (hay, needle, want) in cases {
        assert_eq!(find(hay, needle), want, "{hay:?} {needle:?}");
    }
}

/// A message is one `data:` line of JSON; comments and keep-alives are no events.
#[test]
fn reads_a_message_in_place() {
    let mut seen = Seen::default();
    let ts = "2026-11-25T00:00:00.000Z";
    let msg = format!("id: 7\ndata: {{\"seq\":7,\"ts\":\"{ts}\",\"type\":\"decision\"}}\n\n");
    assert_eq!(on_event(msg.as_bytes(), 0.0, &mut seen), Ok(true));
    assert_eq!(seen.seqs, [7]);
    assert_eq!(on_event(b":\n\n", 0.0, &mut seen), Ok(false));
    assert!(on_event(b"data: {\ndata: }\n\n", 0.0, &mut seen).is_err());
    assert!(on_event(b"data: not json\n\n", 0.0, &mut seen).is_err());
}

#[test]
fn percentiles_of_sorted_values() {
    let v: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(percentile(&v, 50.0), 51.0);
    assert_eq!(percentile(&v, 99.0), 99.0);
    assert_eq!(percentile(&[], 99.0), 0.0);
}

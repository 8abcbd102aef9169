use super::wire::{dechunk, find, head, on_event, read_more};
use super::*;

/// Chunked transfer coding split anywhere: whole chunks come out, the rest waits.
#[test]
fn dechunks_across_reads() {
    let wire = b"5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n";
    for cut in 0..wire.len() {
        let mut raw = wire[..cut].to_vec();
        let mut out = Vec::new();
        // The response is over only once its last, empty chunk is whole.
        assert!(!dechunk(&mut raw, &mut out).expect("valid"), "cut at {cut}");
        raw.extend_from_slice(&wire[cut..]);
        assert!(dechunk(&mut raw, &mut out).expect("valid"), "cut at {cut}");
        assert_eq!(out, b"hello, world", "cut at {cut}");
    }
    let mut bad = b"zz\r\n".to_vec();
    assert!(dechunk(&mut bad, &mut Vec::new()).is_err());
}

/// The "connected" figures leave out events stamped before the last viewer was in.
#[test]
fn connected_latencies_start_when_the_last_viewer_is_in() {
    let viewer = |connected_at: f64, live: Vec<(f64, f64)>| Seen {
        connected_at,
        live: live
            .into_iter()
            .map(|(stamped, ms)| Delivery {
                stamped,
                arrived_ms: ms,
                read_ms: ms + 100.0,
                by_kernel: true,
            })
            .collect(),
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
    let (all, connected) = latencies(&seen, |d| d.arrived_ms);
    assert_eq!(all, [1.0, 2.0, 3.0, 9.0]);
    assert_eq!(
        connected,
        [1.0, 2.0, 3.0],
        "stamped at or after 200, a failed viewer aside"
    );
    let (read, _) = latencies(&seen, |d| d.read_ms);
    assert_eq!(read, [101.0, 102.0, 103.0, 109.0]);
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
    assert_eq!(on_event(msg.as_bytes(), 0.0, None, &mut seen), Ok(true));
    assert_eq!(seen.seqs, [7]);
    assert_eq!(on_event(b":\n\n", 0.0, None, &mut seen), Ok(false));
    assert!(on_event(b"data: {\ndata: }\n\n", 0.0, None, &mut seen).is_err());
    assert!(on_event(b"data: not json\n\n", 0.0, None, &mut seen).is_err());
    // A live event's arrival is the kernel's time, its read this client's (never before it).
    let stamped = app::protocol::time::days(ts).expect("a timestamp") * 86_400_000.0;
    let mut live = Seen::default();
    let msg = format!("data: {{\"seq\":1,\"ts\":\"{ts}\",\"type\":\"vote\"}}\n\n");
    assert_eq!(
        on_event(msg.as_bytes(), 0.0, Some(stamped + 5.0), &mut live),
        Ok(false)
    );
    let d = live.live[0];
    assert_eq!((d.stamped, d.arrived_ms, d.by_kernel), (stamped, 5.0, true));
    assert!(d.read_ms >= d.arrived_ms, "{d:?}");
    // Without the kernel's time, the arrival is the read.
    assert_eq!(on_event(msg.as_bytes(), 0.0, None, &mut live), Ok(false));
    let d = live.live[1];
    assert_eq!((d.arrived_ms, d.by_kernel), (d.read_ms, false));
    // Stamped before the viewer connected: backlog, not timed.
    let mut late = Seen::default();
    let cursor = stamped + 10.0;
    assert_eq!(
        on_event(msg.as_bytes(), cursor, Some(cursor), &mut late),
        Ok(false)
    );
    assert!(late.live.is_empty());
}

/// A read is timed by the kernel's receive timestamp of its bytes (over a real
/// loopback connection), which falls between their sending and their reading. The kernel turns
/// timestamping on shortly after it is first asked for (a deferred switch), so the first reads
/// may come without one: the exchange is repeated until one has it.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_read_is_timed_when_its_bytes_arrived() {
    use tokio::io::AsyncWriteExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("address");
    let (client, server) = tokio::join!(tokio::net::TcpStream::connect(addr), listener.accept());
    let (client, (mut server, _)) = (client.expect("connect"), server.expect("accept"));
    super::wire::arrival::stamp(&client);
    for _ in 0..50 {
        let before = unix_ms();
        server.write_all(b"hello").await.expect("write");
        tokio::time::sleep(Duration::from_millis(30)).await;
        let mut buf = Vec::new();
        let (n, arrived) = read_more(&client, &mut buf).await.expect("read");
        let read = unix_ms();
        assert_eq!((n, buf.as_slice()), (5, &b"hello"[..]));
        if let Some(arrived) = arrived {
            assert!(
                arrived >= before - 1.0 && read - arrived >= 20.0,
                "sent {before}, arrived {arrived}, read {read}"
            );
            return;
        }
    }
    panic!("no read came with the kernel's receive timestamp");
}

/// The three fields read in place when the event starts as the server writes it; anything else
/// is left to serde (`None`), which reads the same fields in any order or refuses the event.
#[test]
fn reads_an_events_head_in_place_or_leaves_it_to_serde() {
    let ts = "2026-11-25T00:00:00.000Z";
    type Head<'a> = Option<(u64, &'a str, &'a str)>;
    let cases: [(String, Head); 8] = [
        (
            format!(r#"{{"seq":12,"ts":"{ts}","type":"vote","agent":"a"}}"#),
            Some((12, ts, "vote")),
        ),
        (
            format!(r#"{{"seq":3,"ts":"{ts}","type":"decision"}}"#),
            Some((3, ts, "decision")),
        ),
        // Another order, an escape, no digits, a cut-off event: serde's to read.
        (format!(r#"{{"ts":"{ts}","seq":1,"type":"vote"}}"#), None),
        (format!(r#"{{"seq":1,"ts":"{ts}","type":"vo\"te"}}"#), None),
        (format!(r#"{{"seq":,"ts":"{ts}","type":"vote"}}"#), None),
        (
            format!(r#"{{"seq":1,"ts":"{ts}","type":"vote","x":1"#),
            None,
        ),
        (format!(r#"{{"seq":1,"ts":"{ts}","type":"vote"x}}"#), None),
        (
            format!(r#"{{"seq":99999999999999999999,"ts":"{ts}","type":"vote"}}"#),
            None,
        ),
    ];
    for (data, want) in &cases {
        assert_eq!(head(data.as_bytes()), *want, "{data}");
    }
    // Whichever reads it, an event counts the same.
    let mut fast = Seen::default();
    let mut slow = Seen::default();
    let reordered = format!("data: {{\"type\":\"vote\",\"ts\":\"{ts}\",\"seq\":4}}\n\n");
    let usual = format!("data: {{\"seq\":4,\"ts\":\"{ts}\",\"type\":\"vote\"}}\n\n");
    assert_eq!(on_event(usual.as_bytes(), 0.0, None, &mut fast), Ok(false));
    assert_eq!(
        on_event(reordered.as_bytes(), 0.0, None, &mut slow),
        Ok(false)
    );
    assert_eq!(fast.seqs, slow.seqs);
    let timed = |s: &Seen| -> Vec<(f64, bool)> {
        s.live.iter().map(|d| (d.stamped, d.by_kernel)).collect()
    };
    assert_eq!(timed(&fast), timed(&slow));
}

#[test]
fn percentiles_of_sorted_values() {
    let v: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(percentile(&v, 50.0), 51.0);
    assert_eq!(percentile(&v, 99.0), 99.0);
    assert_eq!(percentile(&[], 99.0), 0.0);
}

/// A canned server: answers one request on a loopback port with `response`, then keeps the
/// connection open for a while (as hyper does between requests).
async fn canned(response: Vec<u8>) -> SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let (mut s, _) = listener.accept().await.expect("accept");
        let mut request = [0; 1024];
        let _ = s.read(&mut request).await;
        s.write_all(&response).await.expect("answer");
        tokio::time::sleep(Duration::from_secs(5)).await;
    });
    addr
}

/// A 200 live stream of events `(seq, type)` in chunked coding, ended by the last chunk.
fn stream_of(events: &[(u64, &str)]) -> Vec<u8> {
    let mut out = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n".to_vec();
    for (seq, kind) in events {
        let msg =
            format!("id: {seq}\ndata: {{\"seq\":{seq},\"ts\":\"x\",\"type\":\"{kind}\"}}\n\n");
        out.extend_from_slice(format!("{:x}\r\n{msg}\r\n", msg.len()).as_bytes());
    }
    out.extend_from_slice(b"0\r\n\r\n");
    out
}

/// SV-3 as a viewer sees it: the log to its last event, then the end of the response, with the
/// connection kept open for the next request (the crowd closes together at the end).
#[tokio::test]
async fn a_viewer_reads_the_log_to_the_end_of_the_response() {
    let refused = b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\n\r\n".to_vec();
    let cases = [
        (stream_of(&[(1, "round_started"), (2, "decision")]), None),
        (
            stream_of(&[(1, "round_started"), (2, "decision"), (3, "decision")]),
            Some("a message after the log's last event"),
        ),
        (
            stream_of(&[(1, "round_started")]),
            Some("the response ended before the log's last event"),
        ),
        (refused, Some("answered http/1.1 429 too many requests")),
    ];
    for (response, error) in cases {
        let addr = canned(response).await;
        let (seen, kept) = super::wire::watch(addr, "127.0.0.1", "d").await;
        assert_eq!(seen.error.as_deref(), error);
        assert_eq!(seen.ended && kept.is_some(), error.is_none());
        if error.is_none() {
            assert_eq!(seen.seqs, [1, 2]);
        }
    }
}

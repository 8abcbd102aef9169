//! SV-11: slow and greedy clients against the real binary: a socket that dribbles its header, or sits
//! idle after its request, is closed within the header timeout; connections beyond the cap of one
//! address are closed as they arrive; and 2,000 slow sockets do not keep another client from
//! starting a debate and watching it to its decision. Figures are printed; the bounds asserted
//! are the timeout's, with a margin.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

fn addr_of(server: &Server) -> SocketAddr {
    server
        .base
        .trim_start_matches("http://")
        .parse()
        .expect("the server's address")
}

/// A connection from `ip` (any 127.x.y.z is this machine's loopback).
async fn connect_from(ip: [u8; 4], to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::new(IpAddr::from(ip), 0))
        .expect("bind");
    socket.connect(to).await.expect("connect")
}

/// Reads until the server closes the connection (or `limit` passes: `None`); what it sent.
async fn until_closed(s: &mut TcpStream, limit: Duration) -> Option<Vec<u8>> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0) | Err(_)) => return Some(got),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dribbled_header_and_an_idle_connection_are_closed_within_the_header_timeout() {
    let (_guard, db) = temp_db();
    let server = Server::start_with(&db, 0, &[("CONSILIUM_HEADER_TIMEOUT_S", "2")]);
    let to = addr_of(&server);

    // One byte of header every 300 ms: each byte comes well within any per-read timeout, but the
    // head as a whole never arrives.
    let mut dribbler = connect_from([127, 0, 0, 11], to).await;
    dribbler
        .write_all(b"GET /api/debates HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .expect("write");
    let began = Instant::now();
    let mut buf = [0u8; 1024];
    let dribble_closed = loop {
        assert!(
            began.elapsed() < Duration::from_secs(15),
            "a dribbling header still held its connection after 15 s"
        );
        tokio::select! {
            read = dribbler.read(&mut buf) => match read {
                // A 408 or nothing, then the close.
                Ok(0) | Err(_) => break began.elapsed(),
                Ok(_) => {}
            },
            () = tokio::time::sleep(Duration::from_millis(300)) => {
                if dribbler.write_all(b"a").await.is_err() {
                    break began.elapsed();
                }
            }
        }
    };
    assert!(
        dribble_closed >= Duration::from_millis(1500) && dribble_closed < Duration::from_secs(5),
        "closed after {dribble_closed:?}, the header timeout is 2 s"
    );

    // A whole request, answered, then nothing: the keep-alive connection waits for its next
    // request's head under the same timeout.
    let mut idle = connect_from([127, 0, 0, 12], to).await;
    idle.write_all(b"GET /api/debates HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .expect("write");
    let began = Instant::now();
    let answered = until_closed(&mut idle, Duration::from_secs(15))
        .await
        .expect("an idle keep-alive connection is closed");
    let idle_closed = began.elapsed();
    assert!(
        String::from_utf8_lossy(&answered).starts_with("HTTP/1.1 200"),
        "the request itself was answered: {}",
        String::from_utf8_lossy(&answered)
    );
    assert!(
        idle_closed >= Duration::from_millis(1500) && idle_closed < Duration::from_secs(5),
        "closed after {idle_closed:?}, the header timeout is 2 s"
    );
    println!(
        "header timeout 2 s: a dribbling header closed after {} ms, an idle keep-alive \
         connection after {} ms",
        dribble_closed.as_millis(),
        idle_closed.as_millis()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_beyond_an_address_cap_are_closed_as_they_arrive() {
    let (_guard, db) = temp_db();
    let server = Server::start_with(&db, 0, &[("CONSILIUM_MAX_CONNECTIONS_PER_ADDRESS", "4")]);
    let to = addr_of(&server);
    let greedy = [127, 0, 0, 21];
    let mut held = Vec::new();
    for _ in 0..4 {
        let mut s = connect_from(greedy, to).await;
        s.write_all(b"GET /api/debates HTTP/1.1\r\n")
            .await
            .expect("write");
        held.push(s);
    }
    // The fifth and sixth from that address are closed at once, unanswered.
    for _ in 0..2 {
        let mut s = connect_from(greedy, to).await;
        let sent = until_closed(&mut s, Duration::from_secs(3))
            .await
            .expect("a connection beyond the cap is closed at once");
        assert!(sent.is_empty(), "{}", String::from_utf8_lossy(&sent));
    }
    // Another address is served meanwhile.
    let other = client_from([127, 0, 0, 22]);
    let resp = other
        .get(server.url("/api/debates"))
        .send()
        .await
        .expect("GET");
    assert_eq!(resp.status().as_u16(), 200);
    // One line for the run of refusals, naming the flag.
    let log = server.log();
    assert_eq!(log.matches("closing new connections").count(), 1, "{log}");
    assert!(log.contains("--max-connections-per-address"), "{log}");
    // Places are given back: with the held connections gone, the address is served again.
    drop(held);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut again = connect_from(greedy, to).await;
    again
        .write_all(b"GET /api/debates HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let answer = until_closed(&mut again, Duration::from_secs(10))
        .await
        .expect("answered and closed");
    assert!(
        String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn two_thousand_slow_sockets_do_not_stop_a_client_starting_and_watching_a_debate() {
    let (_guard, db) = temp_db();
    // The defaults: a 10 s header timeout, 256 connections per address, 4,096 in all.
    let server = Server::start(&db, 20);
    let to = addr_of(&server);
    let began = Instant::now();
    let opening: Vec<_> = (0..2000)
        .map(|i| {
            // Spread over two addresses, as a small botnet behind two NATs might be.
            let ip = [127, 0, 0, 31 + (i % 2) as u8];
            tokio::spawn(async move {
                let mut s = connect_from(ip, to).await;
                // Half a header, then nothing more.
                let _ = s
                    .write_all(b"POST /api/debates HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: ")
                    .await;
                s
            })
        })
        .collect();
    let mut slow = Vec::with_capacity(2000);
    for t in opening {
        slow.push(t.await.expect("task"));
    }
    let opened_ms = began.elapsed().as_millis();
    // How many the server closed at once (beyond each address's cap).
    let mut closed = 0;
    for s in &mut slow {
        let mut b = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(5), s.read(&mut b)).await
        {
            closed += 1;
        }
    }

    let watcher = client_from([127, 0, 0, 40]);
    let t0 = Instant::now();
    let resp = watcher
        .post(server.url("/api/debates"))
        .json(&json!({"query": "Should we move the team to a four-day week?"}))
        .send()
        .await
        .expect("POST");
    assert_eq!(resp.status().as_u16(), 201);
    let created: Value = resp.json().await.expect("json");
    let id = created["id"].as_str().expect("id");
    let mut stream = watcher
        .get(server.url(&format!("/api/debates/{id}/events")))
        .send()
        .await
        .expect("events");
    assert_eq!(stream.status().as_u16(), 200);
    let mut text = String::new();
    while let Some(chunk) = stream.chunk().await.expect("chunk") {
        text.push_str(&String::from_utf8_lossy(&chunk));
        if text.contains("\"type\":\"decision\"") {
            break;
        }
    }
    assert!(
        text.contains("\"type\":\"decision\""),
        "watched to its decision"
    );
    let watched_ms = t0.elapsed().as_millis();
    assert!(
        closed >= 2000 - 2 * 256,
        "each address may hold 256: {closed} of 2,000 closed at once"
    );
    println!(
        "2,000 slow sockets from two addresses opened in {opened_ms} ms, {closed} closed at once \
         (256 per address kept); another address started a debate and watched it to its \
         decision in {watched_ms} ms"
    );
    drop(slow);
}

/// The server's resident memory, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS")
}

/// SV-15: 64 clients open the stream of a 5,000-event log at once and never read it. Each
/// stream reads the stored log a page at a time, the next page only once the last went out, so
/// the server holds about a page per reader, never the whole log per reader. Figures printed;
/// the bound asserted is 256 KiB of resident memory per reader (about 10 KiB measured). On
/// loopback the kernel's socket buffers take a 2 MB log whole, so that a stream holds one page
/// at a time is checked in `server/src/live/sse/tests.rs`, and the write timeout that closes a stalled
/// stream on a socket of its own in `server/src/http/conn.rs`.
#[tokio::test(flavor = "multi_thread")]
async fn streams_nobody_reads_hold_a_page_each_sv_15() {
    let (_guard, db) = temp_db();
    let server = Server::start_with(&db, 0, &[("CONSILIUM_MAX_STREAMS_PER_CLIENT", "100")]);
    // A contested round-robin debate of 630 rounds: 5,043 events.
    let id = create(
        &server,
        json!({"query": "Is this bubble stock with popular hype and rising losses a buy?",
               "protocol": "round_robin", "seed": 7, "config": {"max_rounds": 630}}),
    )
    .await;
    let began = Instant::now();
    let events = loop {
        let detail: Value = get_json(&server, &format!("/api/debates/{id}")).await;
        if detail["status"] != "running" {
            break detail["events"].as_array().expect("events").len();
        }
        assert!(
            began.elapsed() < Duration::from_secs(300),
            "the long debate ran 5 min"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(events > 5000, "{events} events");
    let to = addr_of(&server);
    let pid = server.pid();
    // Sixteen readers that take the whole log at once first: every connection of the store's
    // pool then holds its page cache (SQLite's, a fixed cost of the server, not of a reader),
    // and what grows below is what each stalled reader holds.
    let warm = client_from([127, 0, 0, 60]);
    let whole = futures::future::join_all((0..16).map(|_| {
        let warm = warm.clone();
        let url = server.url(&format!("/api/debates/{id}/events"));
        async move { warm.get(url).send().await.expect("stream").text().await }
    }))
    .await;
    for body in whole {
        let body = body.expect("whole stream");
        let sent = body.lines().filter(|l| l.starts_with("id:")).count();
        assert_eq!(sent, events, "a reader took the whole log");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kib(pid);
    let mut readers = Vec::new();
    for _ in 0..64 {
        let socket = TcpSocket::new_v4().expect("socket");
        // A small window, as a stalled phone's would be.
        socket.set_recv_buffer_size(4096).expect("rcvbuf");
        socket
            .bind(SocketAddr::new(IpAddr::from([127, 0, 0, 61]), 0))
            .expect("bind");
        let mut s = socket.connect(to).await.expect("connect");
        s.write_all(
            format!("GET /api/debates/{id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes(),
        )
        .await
        .expect("write");
        readers.push(s);
    }
    let mut peak = before;
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        peak = peak.max(rss_kib(pid));
    }
    let grown = peak.saturating_sub(before);
    println!(
        "64 streams of a {events}-event log nobody read: server RSS {before} -> {peak} KiB \
         (+{grown} KiB, {} KiB per reader)",
        grown / 64
    );
    assert!(
        grown < 64 * 256,
        "64 readers that take nothing grew the server by {grown} KiB"
    );
    drop(readers);
}

//! One viewer on the wire: a raw HTTP/1.1 request for a debate's live stream, its chunked body
//! undone and its SSE messages read where they lie, each event's arrival timed.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{unix_ms, Seen};

#[derive(Deserialize)]
struct Stamp {
    seq: u64,
    ts: String,
    #[serde(rename = "type")]
    kind: String,
}

/// How long a stream may stay open after the log's last event before the response ends.
const END_WAIT: Duration = Duration::from_secs(10);

/// One viewer: a raw HTTP/1.1 request for the live stream, read to the log's end and to the end
/// of the response. The connection is handed back open, as a browser keeps it for its next
/// request (HTTP/1.1 keep-alive): the crowd closes together once every viewer is done, so one
/// viewer's leaving is not timed as another's wait (issue 17).
pub(super) async fn watch(addr: SocketAddr, host: &str, id: &str) -> (Seen, Option<TcpStream>) {
    let mut seen = Seen::default();
    match follow(addr, host, id, &mut seen).await {
        Ok(kept) => (seen, kept),
        Err(e) => {
            seen.error = Some(e);
            (seen, None)
        }
    }
}

async fn follow(
    addr: SocketAddr,
    host: &str,
    id: &str,
    seen: &mut Seen,
) -> Result<Option<TcpStream>, String> {
    let t0 = Instant::now();
    let mut s = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let _ = s.set_nodelay(true);
    let request = format!(
        "GET /api/debates/{id}/events HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\
         Accept-Encoding: identity\r\n\r\n"
    );
    s.write_all(request.as_bytes())
        .await
        .map_err(|e| format!("send: {e}"))?;
    let mut buf = Vec::with_capacity(16 * 1024);
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if read_more(&mut s, &mut buf).await? == 0 {
            return Err("the server closed before answering".into());
        }
    };
    seen.connect_ms = t0.elapsed().as_secs_f64() * 1000.0;
    let connected = unix_ms();
    seen.connected_at = connected;
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    if !head.starts_with("http/1.1 200") {
        let line = head.lines().next().unwrap_or_default().to_owned();
        return Err(format!("answered {line}"));
    }
    let chunked = head.contains("transfer-encoding: chunked");
    let mut raw = buf.split_off(head_end);
    let mut text = Vec::new();
    loop {
        let body_ended = if chunked {
            dechunk(&mut raw, &mut text)?
        } else {
            text.append(&mut raw);
            false
        };
        // Every whole message in `text`, then what is left of it moved to its front once.
        let mut start = 0;
        while let Some(i) = find(&text[start..], b"\n\n") {
            let block = &text[start..start + i + 2];
            start += i + 2;
            if seen.ended {
                return Err("a message after the log's last event".into());
            }
            seen.ended = on_event(block, connected, seen)?;
        }
        text.drain(..start);
        if body_ended {
            return if seen.ended {
                Ok(Some(s))
            } else {
                Err("the response ended before the log's last event".into())
            };
        }
        // SV-3: the stream ends after the terminal event.
        let read = if seen.ended {
            tokio::time::timeout(END_WAIT, read_more(&mut s, &mut raw))
                .await
                .map_err(|_| "the stream stayed open after the log's last event".to_owned())?
        } else {
            read_more(&mut s, &mut raw).await
        };
        if read? == 0 {
            // A response without chunked coding ends when the server closes.
            return Ok(None);
        }
    }
}

/// One SSE block; `true` at the log's last event. The client runs on the machine it measures,
/// so it reads a message where it lies: no copy, no text conversion, one JSON parse.
pub(super) fn on_event(block: &[u8], connected: f64, seen: &mut Seen) -> Result<bool, String> {
    let mut data: Option<&[u8]> = None;
    let mut lines = 0;
    for line in block.split(|&b| b == b'\n') {
        if let Some(d) = line.strip_prefix(b"data:") {
            data = Some(d.trim_ascii_start());
            lines += 1;
        }
    }
    let Some(data) = data else {
        return Ok(false);
    };
    // The server sends each event as one line of compact JSON.
    if lines > 1 {
        return Err("an event split over several data lines".into());
    }
    let received = unix_ms();
    let e: Stamp =
        serde_json::from_slice(data).map_err(|err| format!("unreadable event: {err}"))?;
    seen.seqs.push(e.seq);
    let stamped = app::protocol::time::days(&e.ts).map(|d| d * 86_400_000.0);
    // Stamped before the viewer connected: backlog, read from the store (not a live figure).
    if let Some(at) = stamped.filter(|at| *at >= connected - 1.0) {
        seen.latencies_ms.push((at, (received - at).max(0.0)));
    }
    Ok(matches!(e.kind.as_str(), "decision" | "interrupted"))
}

/// Moves the whole chunks of `raw` (chunked transfer coding) into `out`; `true` once the last
/// (empty) chunk has come: the response is over.
pub(super) fn dechunk(raw: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<bool, String> {
    loop {
        let Some(line_end) = find(raw, b"\r\n") else {
            return Ok(false);
        };
        let size_text = String::from_utf8_lossy(&raw[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        if raw.len() < line_end + 2 + size + 2 {
            return Ok(false);
        }
        out.extend_from_slice(&raw[line_end + 2..line_end + 2 + size]);
        raw.drain(..line_end + 2 + size + 2);
        if size == 0 {
            return Ok(true);
        }
    }
}

/// Reads what has arrived onto the end of `buf` (straight into its spare room).
async fn read_more(s: &mut TcpStream, buf: &mut Vec<u8>) -> Result<usize, String> {
    buf.reserve(8192);
    s.read_buf(buf).await.map_err(|e| format!("read: {e}"))
}

/// Where `needle` (a few bytes) first occurs in `hay`: a scan for its first byte, then the rest
/// compared in place (a `memcmp` per position was a tenth of the client's time at 5,000 viewers).
pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(i) = hay.get(from..)?.iter().position(|&b| b == first) {
        let at = from + i;
        let follows = hay.get(at + 1..at + 1 + rest.len())?;
        if follows.iter().zip(rest).all(|(a, b)| a == b) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

//! One viewer on the wire: a raw HTTP/1.1 request for a debate's live stream, its chunked body
//! undone and its SSE messages read where they lie, each event's arrival timed.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use super::{unix_ms, Delivery, Seen};

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
/// viewer's leaving is not timed as another's wait.
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
    arrival::stamp(&s);
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
        if read_more(&s, &mut buf).await?.0 == 0 {
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
    // When the kernel received the bytes read last, if it said.
    let mut arrived = None;
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
            seen.ended = on_event(block, connected, arrived, seen)?;
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
            tokio::time::timeout(END_WAIT, read_more(&s, &mut raw))
                .await
                .map_err(|_| "the stream stayed open after the log's last event".to_owned())?
        } else {
            read_more(&s, &mut raw).await
        };
        let (n, at) = read?;
        if n == 0 {
            // A response without chunked coding ends when the server closes.
            return Ok(None);
        }
        arrived = at;
    }
}

/// One SSE block, whose last bytes the kernel received at `arrived` (Unix ms, when it said);
/// `true` at the log's last event. The client runs on the machine it measures, so it reads a
/// message where it lies: no copy, no text conversion, one JSON parse.
pub(super) fn on_event(
    block: &[u8],
    connected: f64,
    arrived: Option<f64>,
    seen: &mut Seen,
) -> Result<bool, String> {
    let mut data: Option<&[u8]> = None;
    let mut lines = 0;
    let mut delta = false;
    for line in lines_of(block) {
        if let Some(d) = line.strip_prefix(b"data:") {
            data = Some(d.trim_ascii_start());
            lines += 1;
        } else if line.starts_with(b"event: delta") {
            delta = true;
        }
    }
    let Some(data) = data else {
        return Ok(false);
    };
    // LM-3: a piece of a reply being written, timed from the model's sending it (its text says
    // when: `consilium-bench load --model`).
    if delta {
        let received = unix_ms();
        let piece: serde_json::Value =
            serde_json::from_slice(data).map_err(|e| format!("unreadable delta: {e}"))?;
        if let Some(sent) = piece["text"].as_str().and_then(super::model::sent_ms) {
            let at = arrived.map_or(received, |a| a.min(received));
            seen.deltas.push((at - sent).max(0.0));
        }
        return Ok(false);
    }
    // The server sends each event as one line of compact JSON.
    if lines > 1 {
        return Err("an event split over several data lines".into());
    }
    let received = unix_ms();
    let parsed;
    let (seq, ts, kind) = match head(data) {
        Some(h) => h,
        None => {
            parsed = serde_json::from_slice::<Stamp>(data)
                .map_err(|err| format!("unreadable event: {err}"))?;
            (parsed.seq, parsed.ts.as_str(), parsed.kind.as_str())
        }
    };
    seen.seqs.push(seq);
    let stamped = app::protocol::time::days(ts).map(|d| d * 86_400_000.0);
    // Stamped before the viewer connected: backlog, read from the store (not a live figure).
    if let Some(at) = stamped.filter(|at| *at >= connected - 1.0) {
        seen.live.push(Delivery {
            stamped: at,
            arrived_ms: (arrived.map_or(received, |a| a.min(received)) - at).max(0.0),
            read_ms: (received - at).max(0.0),
            by_kernel: arrived.is_some(),
        });
    }
    let end = matches!(kind, "decision" | "interrupted");
    if end {
        seen.ended_at = received;
    }
    Ok(end)
}

/// An event's first three fields where the server writes them — `{"seq":N,"ts":"…","type":"…",`
/// — read in place, or `None` (then serde reads the event). The load client shares
/// the machine it measures, and parsing each whole event for three fields was most of its own
/// time at 5,000 viewers. The exact-log check needs only the sequence numbers.
pub(super) fn head(data: &[u8]) -> Option<(u64, &str, &str)> {
    if data.last() != Some(&b'}') {
        return None;
    }
    let rest = data.strip_prefix(br#"{"seq":"#)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let seq = std::str::from_utf8(rest.get(..digits)?)
        .ok()?
        .parse()
        .ok()?;
    let (ts, rest) = plain_string(rest.get(digits..)?.strip_prefix(br#","ts":""#)?)?;
    let (kind, rest) = plain_string(rest.strip_prefix(br#","type":""#)?)?;
    matches!(rest.first(), Some(b',' | b'}')).then_some((seq, ts, kind))
}

/// A JSON string's text up to its closing quote when it has no escape, and what follows it.
fn plain_string(s: &[u8]) -> Option<(&str, &[u8])> {
    let end = s.iter().position(|&b| b == b'"' || b == b'\\')?;
    if s[end] != b'"' {
        return None;
    }
    Some((std::str::from_utf8(&s[..end]).ok()?, &s[end + 1..]))
}

/// The lines of `block` (split at `\n`, found with `memchr`).
fn lines_of(block: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut from = 0;
    std::iter::from_fn(move || {
        let rest = block.get(from..)?;
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        from += end + 1;
        Some(&rest[..end])
    })
}

/// Moves the whole chunks of `raw` (chunked transfer coding) into `out`; `true` once the last
/// (empty) chunk has come: the response is over. What is used of `raw` leaves it at once, at
/// the end (a read of a long backlog holds many chunks).
pub(super) fn dechunk(raw: &mut Vec<u8>, out: &mut Vec<u8>) -> Result<bool, String> {
    let mut at = 0;
    let ended = loop {
        let rest = &raw[at..];
        let Some(line_end) = find(rest, b"\r\n") else {
            break false;
        };
        let size_text = String::from_utf8_lossy(&rest[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size {size_text:?}"))?;
        if rest.len() < line_end + 2 + size + 2 {
            break false;
        }
        out.extend_from_slice(&rest[line_end + 2..line_end + 2 + size]);
        at += line_end + 2 + size + 2;
        if size == 0 {
            break true;
        }
    };
    raw.drain(..at);
    Ok(ended)
}

/// Reads what has arrived onto the end of `buf`: how many bytes, and when the kernel received
/// the last of them (Unix ms), if it said.
pub(super) async fn read_more(
    s: &TcpStream,
    buf: &mut Vec<u8>,
) -> Result<(usize, Option<f64>), String> {
    arrival::read(s, buf)
        .await
        .map_err(|e| format!("read: {e}"))
}

/// An event's arrival as a viewer's own machine would time it: the kernel's receive
/// timestamp of the bytes on the socket (`SO_TIMESTAMPNS`). The load client runs thousands of
/// viewers in one process on the cores it measures; while a crowd connects, its tasks read an
/// event that has long arrived only after the connecting work queued before them, and the time
/// they read it (still reported) is the client's queue, not the server's latency.
#[cfg(target_os = "linux")]
pub(super) mod arrival {
    use std::cell::RefCell;
    use std::io::{self, IoSliceMut};
    use std::os::fd::AsRawFd;

    use nix::sys::socket::{recvmsg, setsockopt, sockopt, ControlMessageOwned, MsgFlags};
    use nix::sys::time::TimeSpec;
    use tokio::io::Interest;
    use tokio::net::TcpStream;

    thread_local! {
        /// The control-message buffer `recvmsg` fills with the timestamp: one per thread, used
        /// only inside a read (never across an await), instead of one allocated per read.
        static CONTROL: RefCell<Vec<u8>> = RefCell::new(nix::cmsg_space!(TimeSpec));
    }

    /// Asks the kernel to timestamp what this socket receives (best effort: without it, reads are
    /// timed when they happen).
    pub(in super::super) fn stamp(s: &TcpStream) {
        let _ = setsockopt(s, sockopt::ReceiveTimestampns, &true);
    }

    /// Reads onto the end of `buf`; the byte count and the kernel's receive time of the last of
    /// them, if it gave one.
    pub(super) async fn read(s: &TcpStream, buf: &mut Vec<u8>) -> io::Result<(usize, Option<f64>)> {
        let old = buf.len();
        // recvmsg fills initialised bytes: a page at a time (an event batch is a few KiB).
        buf.resize(old + 4096, 0);
        let read = loop {
            s.readable().await?;
            let attempt = s.try_io(Interest::READABLE, || {
                let mut iov = [IoSliceMut::new(&mut buf[old..])];
                CONTROL.with_borrow_mut(|control| {
                    let msg =
                        recvmsg::<()>(s.as_raw_fd(), &mut iov, Some(control), MsgFlags::empty())?;
                    let at = msg.cmsgs().ok().and_then(|mut c| {
                        c.find_map(|m| match m {
                            ControlMessageOwned::ScmTimestampns(t) => {
                                Some(t.tv_sec() as f64 * 1000.0 + t.tv_nsec() as f64 / 1e6)
                            }
                            _ => None,
                        })
                    });
                    Ok((msg.bytes, at))
                })
            });
            match attempt {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                other => break other,
            }
        };
        buf.truncate(old + read.as_ref().map_or(0, |(n, _)| *n));
        read
    }
}

/// Elsewhere reads are timed when they happen.
#[cfg(not(target_os = "linux"))]
pub(super) mod arrival {
    use std::io;

    use tokio::net::TcpStream;

    pub(in super::super) fn stamp(_: &TcpStream) {}

    pub(super) async fn read(s: &TcpStream, buf: &mut Vec<u8>) -> io::Result<(usize, Option<f64>)> {
        buf.reserve(4096);
        loop {
            s.readable().await?;
            match s.try_read_buf(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                other => return other.map(|n| (n, None)),
            }
        }
    }
}

/// Where `needle` first occurs in `hay` (`memchr`'s vectorised substring search: a `memcmp` per
/// position was a tenth of the client's time at 5,000 viewers); `None` for an empty needle.
pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    memchr::memmem::find(hay, needle)
}

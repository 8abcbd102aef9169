//! The server's connections: accepted within their caps, served over HTTP/1.1 by hyper with the
//! router, and closed gracefully at shutdown.
//!
//! SV-11: a slow client cannot hold the server: hyper's header timer (which needs a timer to run at all)
//! closes a connection that has not sent a whole request head within the header timeout — a
//! socket dribbling a header, and a keep-alive connection waiting idle for its next request,
//! alike — and a head may be at most [`MAX_HEADER_BYTES`] (431 beyond). The connections open at
//! once are capped in all and per client address; beyond a cap the new connection is closed as it
//! arrives, and the first refusal of a run of them is logged.
//!
//! `axum::serve` polls a shared `Notify` (its shutdown watch's `closed`) every time a
//! connection's task wakes — a contended lock per viewer per live event with thousands of viewers.
//! Here a connection registers for the shutdown once and reads a flag after that
//! ([`crate::live::closing`]).

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;

use crate::access::client::{limit_key, TrustedProxies};
use crate::live::closing::Closing;

pub const DEFAULT_HEADER_TIMEOUT_S: u64 = 10;
pub const DEFAULT_MAX_CONNECTIONS: u32 = 4096;
/// Above the live streams one address may hold (64 by default) plus a browser's own connections.
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: u32 = 256;
/// A request's start line and headers; our own pages' requests are a few KiB.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;
/// SV-15: how long a response may wait on a client that takes none of it before the
/// connection is closed.
pub const DEFAULT_WRITE_TIMEOUT_S: u64 = 60;

/// How long a client may take over a request head, and how many connections may be open.
#[derive(Clone, Debug)]
pub struct ConnLimits {
    pub header_timeout: Duration,
    /// SV-15: a write that cannot go out for this long closes the connection.
    pub write_timeout: Duration,
    pub max: usize,
    pub per_address: Option<usize>,
    /// Trusted reverse proxies (`--trust-proxy`): every connection through one comes from its
    /// address, so the cap per address does not apply to them.
    pub proxies: TrustedProxies,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            header_timeout: Duration::from_secs(DEFAULT_HEADER_TIMEOUT_S),
            write_timeout: Duration::from_secs(DEFAULT_WRITE_TIMEOUT_S),
            max: DEFAULT_MAX_CONNECTIONS as usize,
            per_address: Some(DEFAULT_MAX_CONNECTIONS_PER_ADDRESS as usize),
            proxies: TrustedProxies::default(),
        }
    }
}

/// The connections open now, in all and per client address.
#[derive(Default)]
struct Open {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

/// Counts the connections open and refuses those beyond the caps.
struct Gate {
    limits: ConnLimits,
    open: Mutex<Open>,
    /// A refusal was logged and no connection has been admitted since: one line per run of them.
    refusing: AtomicBool,
}

/// One admitted connection; dropping it gives its place back.
struct Admitted {
    gate: Arc<Gate>,
    key: IpAddr,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let Ok(mut open) = self.gate.open.lock() else {
            return;
        };
        open.total = open.total.saturating_sub(1);
        if let Some(n) = open.by_address.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                open.by_address.remove(&self.key);
            }
        }
    }
}

impl Gate {
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Admitted> {
        let key = limit_key(ip);
        let refused = {
            let mut open = self.open.lock().ok()?;
            let here = open.by_address.get(&key).copied().unwrap_or(0);
            if open.total >= self.limits.max {
                Some(format!(
                    "{} connections are open, the most allowed (--max-connections)",
                    open.total
                ))
            } else if self.limits.per_address.is_some_and(|cap| here >= cap)
                && !self.limits.proxies.contains(ip)
            {
                Some(format!("{key} holds {here} connections, the most one address may (--max-connections-per-address)"))
            } else {
                open.total += 1;
                *open.by_address.entry(key).or_insert(0) += 1;
                None
            }
        };
        match refused {
            Some(why) => {
                if !self.refusing.swap(true, Ordering::Relaxed) {
                    tracing::warn!("closing new connections: {why}");
                }
                None
            }
            None => {
                self.refusing.store(false, Ordering::Relaxed);
                Some(Admitted {
                    gate: Arc::clone(self),
                    key,
                })
            }
        }
    }
}

/// Serves `app` on `listener` until `closing` begins; then stops accepting, lets each
/// connection finish the response it is sending (live streams end at shutdown too) and returns
/// once every connection has closed. Handlers see the peer as `ConnectInfo<SocketAddr>`.
pub async fn serve(listener: TcpListener, app: Router, closing: Arc<Closing>, limits: ConnLimits) {
    let header_timeout = limits.header_timeout;
    let write_timeout = limits.write_timeout;
    let gate = Arc::new(Gate {
        limits,
        open: Mutex::new(Open::default()),
        refusing: AtomicBool::new(false),
    });
    // Every connection holds a receiver; the sender sees them all gone.
    let (open_tx, open_rx) = tokio::sync::watch::channel(());
    let mut stop = closing.waiter();
    loop {
        let accepted = tokio::select! {
            biased;
            () = stop.begun() => break,
            accepted = listener.accept() => accepted,
        };
        let (tcp, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Per-connection failures (reset before accept) need nothing; running out of
                // file descriptors does: wait rather than spin.
                if !is_connection_error(&e) {
                    tracing::error!("accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                continue;
            }
        };
        // Beyond a cap the newest connection is the one closed: those already served keep going.
        let Some(admitted) = gate.admit(peer.ip()) else {
            drop(tcp);
            continue;
        };
        let app = app.clone();
        let closing = Arc::clone(&closing);
        let open = open_rx.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                let app = app.clone();
                tower::ServiceExt::oneshot(app, req)
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .max_header_size(MAX_HEADER_BYTES)
                .serve_connection(TokioIo::new(Stalling::new(tcp, write_timeout)), service)
                .with_upgrades();
            let mut conn = std::pin::pin!(conn);
            let mut waiter = closing.waiter();
            let mut shutting = false;
            let served = std::future::poll_fn(|cx| {
                if !shutting && waiter.poll_begun(cx) {
                    shutting = true;
                    conn.as_mut().graceful_shutdown();
                }
                conn.as_mut().poll(cx)
            })
            .await;
            if let Err(e) = served {
                tracing::trace!("connection from {peer}: {e}");
            }
            drop(open);
            drop(admitted);
        });
    }
    drop(open_rx);
    drop(listener);
    open_tx.closed().await;
}

/// SV-15: a connection whose writes have been blocked for `timeout` — a client that takes
/// nothing of what it is sent, as a live stream's reader that stopped reading — fails with
/// `TimedOut`, and hyper closes it. Only time spent waiting to write counts: an idle live stream
/// (nothing to send) or a slow reader that takes something now and then is left alone.
struct Stalling<T> {
    inner: T,
    timeout: Duration,
    /// Since the first write that had to wait, until one goes through.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> Stalling<T> {
    fn new(inner: T, timeout: Duration) -> Self {
        Stalling {
            inner,
            timeout,
            stalled: None,
        }
    }

    /// After a write attempt: `Ready` passes through (and ends a stall); `Pending` starts or
    /// continues one, which fails once it lasted the timeout.
    fn after<R>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<R>>,
    ) -> Poll<io::Result<R>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let timeout = self.timeout;
        let stall = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        if stall.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client took nothing for {} s", timeout.as_secs()),
            )));
        }
        Poll::Pending
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Stalling<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Stalling<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.after(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.after(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.after(cx, polled)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Errors that concern one connection only (as hyper's and axum's accept loops tell them apart).
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(max: usize, per_address: Option<usize>, proxies: &str) -> Arc<Gate> {
        Arc::new(Gate {
            limits: ConnLimits {
                header_timeout: Duration::from_secs(10),
                write_timeout: Duration::from_secs(60),
                max,
                per_address,
                proxies: if proxies.is_empty() {
                    TrustedProxies::default()
                } else {
                    proxies.parse().expect("proxies")
                },
            },
            open: Mutex::new(Open::default()),
            refusing: AtomicBool::new(false),
        })
    }

    /// SV-15: a write blocked for the timeout — the peer takes nothing — fails with `TimedOut`;
    /// until then, and while the peer takes what is sent, writes go through. Real sockets with
    /// small buffers, so they fill at once.
    #[tokio::test]
    async fn a_write_the_peer_never_takes_times_out_sv_15() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listening = tokio::net::TcpSocket::new_v4().expect("socket");
        listening.set_recv_buffer_size(4096).expect("rcvbuf");
        listening
            .bind("127.0.0.1:0".parse().expect("addr"))
            .expect("bind");
        let listener = listening.listen(8).expect("listen");
        let addr = listener.local_addr().expect("addr");
        let writer = tokio::net::TcpSocket::new_v4().expect("socket");
        writer.set_send_buffer_size(4096).expect("sndbuf");
        let (writer, accepted) = tokio::join!(writer.connect(addr), listener.accept());
        let (mut reader, _) = accepted.expect("accept");
        let mut out = Stalling::new(writer.expect("connect"), Duration::from_millis(300));
        let chunk = vec![b'x'; 16 * 1024];

        // A reader that takes what is sent: no timeout, however long it lasts.
        let drain = tokio::spawn(async move {
            let mut buf = vec![0u8; 64 * 1024];
            let mut got = 0;
            while got < 4 * 1024 * 1024 {
                got += reader.read(&mut buf).await.expect("read");
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
            reader
        });
        for _ in 0..256 {
            out.write_all(&chunk)
                .await
                .expect("a reader that reads is never timed out");
        }
        let _reader = drain.await.expect("drain");

        // Now nobody reads: the buffers fill and the next write fails after the timeout.
        let began = std::time::Instant::now();
        let failed = loop {
            if let Err(e) = out.write_all(&chunk).await {
                break e;
            }
            assert!(began.elapsed() < Duration::from_secs(10), "never timed out");
        };
        assert_eq!(failed.kind(), io::ErrorKind::TimedOut, "{failed}");
        assert!(began.elapsed() >= Duration::from_millis(300));
    }

    /// SV-11: the caps in all and per address; a closed connection gives its place back.
    #[test]
    fn connections_are_capped_in_all_and_per_address_sv_11() {
        let a: IpAddr = "192.0.2.1".parse().expect("ip");
        let b: IpAddr = "192.0.2.2".parse().expect("ip");
        let g = gate(3, Some(2), "");
        let a1 = g.admit(a).expect("first from a");
        let a2 = g.admit(a).expect("second from a");
        assert!(g.admit(a).is_none(), "a third from a is over its cap");
        let b1 = g.admit(b).expect("b has its own places");
        assert!(g.admit(b).is_none(), "over the cap in all");
        drop(a1);
        assert!(g.admit(a).is_some(), "a's place given back");
        drop((a2, b1));
        // A trusted proxy's connections are every client's behind it: only the cap in all holds.
        let g = gate(3, Some(1), "192.0.2.0/30");
        let held: Vec<_> = (0..3)
            .map(|_| g.admit(a).expect("no cap per address"))
            .collect();
        assert!(g.admit(a).is_none());
        drop(held);
        assert_eq!(g.open.lock().expect("lock").total, 0);
        assert!(g.open.lock().expect("lock").by_address.is_empty());
    }
}

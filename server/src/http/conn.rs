//! The server's connections: accepted, served over HTTP/1.1 by hyper with the router, and closed
//! gracefully at shutdown.
//!
//! `axum::serve` polls a shared `Notify` (its shutdown watch's `closed`) every time a
//! connection's task wakes — a contended lock per viewer per live event with thousands of viewers.
//! Here a connection registers for the shutdown once and reads a flag after that
//! ([`crate::live::closing`]).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::live::closing::Closing;

/// Serves `app` on `listener` until `closing` begins; then stops accepting, lets each
/// connection finish the response it is sending (live streams end at shutdown too) and returns
/// once every connection has closed. Handlers see the peer as `ConnectInfo<SocketAddr>`.
pub async fn serve(listener: TcpListener, app: Router, closing: Arc<Closing>) {
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
                .serve_connection(TokioIo::new(tcp), service)
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
        });
    }
    drop(open_rx);
    drop(listener);
    open_tx.closed().await;
}

/// Errors that concern one connection only (as hyper's and axum's accept loops tell them apart).
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

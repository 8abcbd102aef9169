//! The server's shutdown as every connection and live stream sees it: a flag read on
//! each poll — one atomic load of memory nobody writes while the server runs — and a wake-up
//! registered once per waiter. Polling a shared `Notify` (a `watch` channel's `changed`, or
//! `closed`) on every wake-up takes its one lock: with thousands of viewers, that is two
//! contended locks per viewer per event.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::Context;

use tokio::sync::futures::OwnedNotified;
use tokio::sync::Notify;

#[derive(Debug, Default)]
pub struct Closing {
    begun: AtomicBool,
    notify: Arc<Notify>,
}

impl Closing {
    /// Shutdown begins: every waiter's task is woken and sees it.
    pub fn begin(&self) {
        self.begun.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }

    pub fn is_begun(&self) -> bool {
        self.begun.load(Ordering::Acquire)
    }

    /// A waiter for one task (a connection, a stream).
    pub fn waiter(self: &Arc<Self>) -> Waiter {
        // Made before the flag is first read: a `begin` in between still wakes it (a
        // `notify_waiters` call counts for every `Notified` that existed before it).
        Waiter {
            notified: Box::pin(Arc::clone(&self.notify).notified_owned()),
            closing: Arc::clone(self),
            registered: false,
        }
    }
}

/// One task's view of the shutdown.
#[derive(Debug)]
pub struct Waiter {
    closing: Arc<Closing>,
    notified: Pin<Box<OwnedNotified>>,
    registered: bool,
}

impl Waiter {
    /// Whether shutdown has begun. The first call registers `cx`'s task to be woken when it
    /// begins; later calls only read the flag (a task's waker stays the same).
    pub fn poll_begun(&mut self, cx: &mut Context<'_>) -> bool {
        if self.closing.is_begun() {
            return true;
        }
        if !self.registered {
            self.registered = true;
            return self.notified.as_mut().poll(cx).is_ready();
        }
        false
    }

    /// Resolves once shutdown has begun (for a task that has nothing else to poll it with).
    pub async fn begun(&mut self) {
        std::future::poll_fn(|cx| {
            if self.poll_begun(cx) {
                std::task::Poll::Ready(())
            } else {
                std::task::Poll::Pending
            }
        })
        .await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A waiter registered before shutdown is woken by it; one made after sees it at once.
    #[tokio::test]
    async fn a_waiter_is_woken_once_shutdown_begins() {
        let closing = Arc::new(Closing::default());
        let mut early = closing.waiter();
        let mut polls = 0;
        let waited = tokio::spawn(async move {
            std::future::poll_fn(|cx| {
                polls += 1;
                if early.poll_begun(cx) {
                    std::task::Poll::Ready(polls)
                } else {
                    std::task::Poll::Pending
                }
            })
            .await
        });
        tokio::task::yield_now().await;
        closing.begin();
        let polls = tokio::time::timeout(std::time::Duration::from_secs(5), waited)
            .await
            .expect("woken by the shutdown")
            .expect("task");
        assert!(polls >= 2, "it waited first ({polls} polls)");
        let mut late = closing.waiter();
        let waker = futures::task::noop_waker();
        assert!(late.poll_begun(&mut Context::from_waker(&waker)));
    }

    /// Made before `begin` but first polled after it: it still sees the shutdown.
    #[test]
    fn a_waiter_made_before_shutdown_and_polled_after_sees_it() {
        let closing = Arc::new(Closing::default());
        let mut w = closing.waiter();
        closing.begin();
        let waker = futures::task::noop_waker();
        assert!(w.poll_begun(&mut Context::from_waker(&waker)));
    }
}

//! Abuse limits with clear answers: running debates (server-wide and per client
//! address) and open live streams per address. A taken place is a [`Slot`]; dropping it gives the
//! place back, so a debate that ends any way — finished, interrupted, panicked — frees it. A
//! debate that waits — on a judge's grant or a long timer — parks: it gives its place back while
//! it waits and takes one again, waiting its turn, before it asks its agents anything (SV-14).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::client::limit_key;

/// The limits' settings (see `consilium serve --help` and the README's "Deploying").
#[derive(Clone, Debug)]
pub struct LimitConfig {
    pub max_debates: u32,
    pub max_debates_per_client: u32,
    pub max_streams_per_client: u32,
    /// Requests per second each address may make, sustained.
    pub rate_per_s: u32,
    /// Requests an address may make in a burst above the rate.
    pub burst: u32,
    /// The longest a non-streaming request may take before it is answered 503.
    pub request_timeout: Duration,
    /// Tokens all remote debates together may spend per UTC day; 0: no daily limit.
    pub daily_tokens: u64,
    /// Debates one address may start per UTC day without the start token or a judge's
    /// sign-in (each stays stored); 0: no limit.
    pub daily_debates_per_client: u32,
}

impl Default for LimitConfig {
    fn default() -> Self {
        LimitConfig {
            max_debates: 64,
            max_debates_per_client: 8,
            max_streams_per_client: 64,
            rate_per_s: 20,
            burst: 200,
            request_timeout: Duration::from_secs(30),
            daily_tokens: 2_000_000,
            daily_debates_per_client: 500,
        }
    }
}

/// Seconds since 1970, for the daily counts.
pub fn unix_now_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Why a place was refused: the message for the JSON error, and when to try again.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub retry_after_s: u64,
}

#[derive(Default)]
struct Counts {
    total: u32,
    by_client: HashMap<IpAddr, u32>,
}

/// Places per client address, an IPv6 address counted by its /64 (SV-12): one subscriber holds a
/// whole /64 and could otherwise take a place per address in it.
impl Counts {
    fn take(&mut self, ip: IpAddr) {
        self.total += 1;
        *self.by_client.entry(limit_key(ip)).or_default() += 1;
    }

    fn give_back(&mut self, ip: IpAddr) {
        self.total = self.total.saturating_sub(1);
        let key = limit_key(ip);
        if let Some(n) = self.by_client.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.by_client.remove(&key);
            }
        }
    }

    fn of(&self, ip: IpAddr) -> u32 {
        self.by_client.get(&limit_key(ip)).copied().unwrap_or(0)
    }
}

pub struct Limits {
    pub config: LimitConfig,
    debates: Mutex<Counts>,
    streams: Mutex<Counts>,
    started: Mutex<StartedToday>,
    /// SV-14: debates parked now (holding no running place), server-wide.
    parked: Mutex<u32>,
    /// Woken when a running place is given back: parked debates waiting to go on try again.
    freed: tokio::sync::Notify,
}

/// FK-4: how long a batch of forks waits for its forks to decide.
pub const BATCH_WAIT: Duration = Duration::from_secs(120);

/// SV-14: how many debates may be parked at once for each running place (`--max-debates`): past
/// that, a waiting debate keeps its place, so waiting debates cannot pile up without bound.
pub const PARKED_PER_PLACE: u32 = 16;

/// The debates each address started anonymously on one UTC day (by day number since 1970).
#[derive(Default)]
struct StartedToday {
    day: u64,
    by_client: HashMap<IpAddr, u32>,
}

#[derive(Clone, Copy)]
enum Kind {
    Debate,
    Stream,
}

/// A running debate's or an open stream's place; given back when dropped.
pub struct Slot {
    limits: Arc<Limits>,
    ip: IpAddr,
    kind: Kind,
    /// SV-14: the place was given back while its debate waits.
    parked: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.parked {
            self.limits.unpark_count();
        } else {
            self.limits.give_back(self.kind, self.ip);
        }
    }
}

impl crate::drive::Place for Slot {
    /// Gives the running place back while the debate waits; `false` (the place is kept) when the
    /// server already holds its most parked debates.
    fn park(&mut self) -> bool {
        if self.parked || !matches!(self.kind, Kind::Debate) {
            return self.parked;
        }
        {
            let mut parked = self.limits.lock_parked();
            if *parked
                >= self
                    .limits
                    .config
                    .max_debates
                    .saturating_mul(PARKED_PER_PLACE)
            {
                return false;
            }
            *parked += 1;
        }
        self.limits.give_back(self.kind, self.ip);
        self.parked = true;
        true
    }

    /// Takes a running place again, waiting its turn when the server or the address is full.
    fn unpark(&mut self) -> futures::future::BoxFuture<'_, ()> {
        Box::pin(async move {
            while self.parked {
                // Registered before trying, so a place given back in between is not missed.
                let freed = self.limits.freed.notified();
                if self.limits.try_take_debate(self.ip).is_ok() {
                    self.limits.unpark_count();
                    self.parked = false;
                    return;
                }
                // A bounded wait as well: a place can also free by a limit's change of day.
                let _ = tokio::time::timeout(Duration::from_secs(5), freed).await;
            }
        })
    }
}

impl Limits {
    pub fn new(config: LimitConfig) -> Arc<Limits> {
        Arc::new(Limits {
            config,
            debates: Mutex::default(),
            streams: Mutex::default(),
            started: Mutex::default(),
            parked: Mutex::default(),
            freed: tokio::sync::Notify::new(),
        })
    }

    fn give_back(&self, kind: Kind, ip: IpAddr) {
        self.counts(kind).give_back(ip);
        if matches!(kind, Kind::Debate) {
            self.freed.notify_waiters();
        }
    }

    fn lock_parked(&self) -> std::sync::MutexGuard<'_, u32> {
        self.parked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn unpark_count(&self) {
        let mut parked = self.lock_parked();
        *parked = parked.saturating_sub(1);
    }

    /// SV-14: debates parked now, holding no running place.
    pub fn parked(&self) -> u32 {
        *self.lock_parked()
    }

    fn counts(&self, kind: Kind) -> std::sync::MutexGuard<'_, Counts> {
        let m = match kind {
            Kind::Debate => &self.debates,
            Kind::Stream => &self.streams,
        };
        // A panic elsewhere cannot leave a count half-updated: recover the guard.
        m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Live streams open now, from every address.
    pub fn open_streams(&self) -> u32 {
        self.counts(Kind::Stream).total
    }

    /// A place for one more running debate started by `ip`.
    pub fn debate(self: &Arc<Self>, ip: IpAddr) -> Result<Slot, Refusal> {
        self.try_take_debate(ip)?;
        Ok(Slot {
            limits: self.clone(),
            ip,
            kind: Kind::Debate,
            parked: false,
        })
    }

    /// Counts one more running debate of `ip`, or says why not.
    fn try_take_debate(&self, ip: IpAddr) -> Result<(), Refusal> {
        let mut counts = self.counts(Kind::Debate);
        let c = &self.config;
        if counts.total >= c.max_debates {
            return Err(Refusal {
                message: format!(
                    "the server is running its maximum of {} debates; try again when one finishes",
                    c.max_debates
                ),
                retry_after_s: 10,
            });
        }
        if counts.of(ip) >= c.max_debates_per_client {
            return Err(Refusal {
                message: format!(
                    "you have {} debates running, the most one address may run at once; \
                     try again when one finishes",
                    c.max_debates_per_client
                ),
                retry_after_s: 10,
            });
        }
        counts.take(ip);
        Ok(())
    }

    /// One more debate started today by `ip` without the start token or a judge (SV-8): refused
    /// once the address started its daily quota, until 00:00 UTC. `now_s`: seconds since 1970.
    pub fn start_today(&self, ip: IpAddr, now_s: u64) -> Result<(), Refusal> {
        let max = self.config.daily_debates_per_client;
        if max == 0 {
            return Ok(());
        }
        let mut started = self
            .started
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let today = now_s / 86_400;
        if started.day != today {
            // A new day: yesterday's counts go, so the table holds one day's addresses.
            *started = StartedToday {
                day: today,
                by_client: HashMap::new(),
            };
        }
        let n = started.by_client.entry(limit_key(ip)).or_default();
        if *n >= max {
            return Err(Refusal {
                message: format!(
                    "this address has started {max} debates today, the most one address may \
                     start per day without the start token (--max-daily-debates-per-client); \
                     it resets at 00:00 UTC"
                ),
                retry_after_s: 86_400 - now_s % 86_400,
            });
        }
        *n += 1;
        Ok(())
    }

    /// A place for one more live stream opened by `ip`.
    pub fn stream(self: &Arc<Self>, ip: IpAddr) -> Result<Slot, Refusal> {
        let mut counts = self.counts(Kind::Stream);
        let max = self.config.max_streams_per_client;
        if counts.of(ip) >= max {
            return Err(Refusal {
                message: format!(
                    "you have {max} live streams open, the most one address may open; \
                     close a page and try again"
                ),
                retry_after_s: 5,
            });
        }
        counts.take(ip);
        Ok(Slot {
            limits: self.clone(),
            ip,
            kind: Kind::Stream,
            parked: false,
        })
    }

    /// How many debates `ip` is running (tests, diagnostics).
    pub fn debates_of(&self, ip: IpAddr) -> u32 {
        self.counts(Kind::Debate).of(ip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    #[test]
    fn places_are_counted_per_address_and_given_back() {
        let limits = Limits::new(LimitConfig {
            max_debates: 3,
            max_debates_per_client: 2,
            max_streams_per_client: 1,
            ..LimitConfig::default()
        });
        let a1 = limits.debate(ip(1)).expect("a1");
        let _a2 = limits.debate(ip(1)).expect("a2");
        let refused = limits.debate(ip(1)).err().expect("a3 refused");
        assert!(
            refused.message.contains("2 debates running"),
            "{}",
            refused.message
        );
        let _b1 = limits.debate(ip(2)).expect("another address still starts");
        let full = limits.debate(ip(3)).err().expect("server full");
        assert!(full.message.contains("maximum of 3"), "{}", full.message);
        drop(a1);
        assert_eq!(limits.debates_of(ip(1)), 1);
        let _c1 = limits.debate(ip(3)).expect("a place was given back");

        let s = limits.stream(ip(1)).expect("stream");
        assert!(limits.stream(ip(1)).is_err());
        assert!(limits.stream(ip(2)).is_ok());
        drop(s);
        assert!(limits.stream(ip(1)).is_ok());
    }

    /// SV-14: a parked debate's place is free for others; taking it back waits its turn when
    /// the server is full, and goes on once a place is given back. Parked debates are bounded.
    #[tokio::test]
    async fn a_parked_debate_gives_its_place_back_and_waits_its_turn_sv_14() {
        use crate::drive::Place;
        let limits = Limits::new(LimitConfig {
            max_debates: 2,
            max_debates_per_client: 1,
            ..LimitConfig::default()
        });
        let mut waiting = limits.debate(ip(1)).expect("first");
        assert!(limits.debate(ip(1)).is_err(), "the address holds its one");
        assert!(waiting.park(), "parked");
        assert!(waiting.park(), "parking twice is parking once");
        assert_eq!((limits.debates_of(ip(1)), limits.parked()), (0, 1));
        let newer = limits.debate(ip(1)).expect("the address starts another");
        let other = limits.debate(ip(2)).expect("the server's second place");
        // Full, for the server and the address: coming back waits.
        let mut back = Box::pin(async move {
            waiting.unpark().await;
            waiting
        });
        assert!(
            tokio::time::timeout(Duration::from_millis(50), &mut back)
                .await
                .is_err(),
            "no place to come back to"
        );
        drop(other);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), &mut back)
                .await
                .is_err(),
            "a place of the server, but the address still holds its one"
        );
        drop(newer);
        let back = tokio::time::timeout(Duration::from_secs(1), back)
            .await
            .expect("back once the address's place was given back");
        assert_eq!((limits.debates_of(ip(1)), limits.parked()), (1, 0));
        drop(back);
        assert_eq!(limits.debates_of(ip(1)), 0, "given back when it ends");

        // At most PARKED_PER_PLACE parked debates per running place: past that one keeps its
        // place while it waits.
        let limits = Limits::new(LimitConfig {
            max_debates: 1,
            max_debates_per_client: 1,
            ..LimitConfig::default()
        });
        let mut parked = Vec::new();
        for _ in 0..PARKED_PER_PLACE {
            let mut slot = limits.debate(ip(3)).expect("a place");
            assert!(slot.park());
            parked.push(slot);
        }
        let mut one_more = limits.debate(ip(3)).expect("a place");
        assert!(!one_more.park(), "the most parked debates are parked");
        assert_eq!(limits.debates_of(ip(3)), 1);
        drop(parked);
        assert_eq!(
            limits.parked(),
            0,
            "a parked debate that ends leaves the count"
        );
        assert!(one_more.park());
    }

    /// SV-12: the addresses of one IPv6 /64 share one address's places.
    #[test]
    fn an_ipv6_slash_64_is_one_address_sv_12() {
        let limits = Limits::new(LimitConfig {
            max_streams_per_client: 2,
            ..LimitConfig::default()
        });
        let a: IpAddr = "2001:db8:7:7::1".parse().expect("ip");
        let b: IpAddr = "2001:db8:7:7:ffff::2".parse().expect("ip");
        let other: IpAddr = "2001:db8:7:8::1".parse().expect("ip");
        let _s1 = limits.stream(a).expect("first");
        let s2 = limits.stream(b).expect("second, same /64");
        assert!(limits.stream(a).is_err(), "the /64 holds its two");
        assert!(
            limits.stream(other).is_ok(),
            "the next /64 is another address"
        );
        drop(s2);
        assert!(limits.stream(b).is_ok(), "given back to the /64");
    }

    /// SV-8: an address's anonymous starts per UTC day; a new day starts afresh.
    #[test]
    fn anonymous_starts_are_counted_per_address_and_day() {
        let limits = Limits::new(LimitConfig {
            daily_debates_per_client: 2,
            ..LimitConfig::default()
        });
        let day = 20_000 * 86_400;
        assert!(limits.start_today(ip(1), day + 10).is_ok());
        assert!(limits.start_today(ip(1), day + 20).is_ok());
        let refused = limits.start_today(ip(1), day + 30).expect_err("third");
        assert!(
            refused.message.contains("started 2 debates today"),
            "{}",
            refused.message
        );
        assert_eq!(refused.retry_after_s, 86_400 - 30);
        assert!(
            limits.start_today(ip(2), day + 40).is_ok(),
            "another address"
        );
        assert!(
            limits.start_today(ip(1), day + 86_400).is_ok(),
            "the next day"
        );
        let unlimited = Limits::new(LimitConfig {
            daily_debates_per_client: 0,
            ..LimitConfig::default()
        });
        for _ in 0..1000 {
            assert!(unlimited.start_today(ip(1), day).is_ok());
        }
    }
}

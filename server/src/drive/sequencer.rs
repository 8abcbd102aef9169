//! SV-1 / SV-2: every event of every debate is numbered, timestamped and hash-chained here.

use app::protocol::event::{HexHash, Stamp};
use app::protocol::{chain, Event, EventBody};

/// Stamps sequence numbers and timestamps onto machine events.
pub struct Sequencer {
    next: u64,
    prev_hash: HexHash,
}

impl Sequencer {
    pub fn new() -> Self {
        Sequencer {
            next: 1,
            prev_hash: HexHash::from(chain::GENESIS),
        }
    }

    /// Continues an existing log after its last event.
    pub fn after(last: &Event) -> Self {
        Sequencer {
            next: last.seq + 1,
            prev_hash: last.hash.clone(),
        }
    }

    /// How many events this sequencer has numbered (from the first of the log).
    pub fn stamped(&self) -> u64 {
        self.next - 1
    }

    /// Numbers, timestamps and hash-chains the next event (SV-1, SV-2): every event of every
    /// debate is sealed here and nowhere else.
    pub fn stamp(&mut self, body: EventBody) -> Event {
        self.stamp_at(body, now_stamp())
    }

    /// [`Sequencer::stamp`] with the time already read: the events of one batch are appended
    /// together, so they share one reading of the clock.
    pub fn stamp_at(&mut self, body: EventBody, ts: Stamp) -> Event {
        let seq = self.next;
        self.next += 1;
        let mut event = Event::new(seq, ts, body);
        chain::seal_in_place(&mut event, &self.prev_hash);
        self.prev_hash.clone_from(&event.hash);
        event
    }
}

impl Default for Sequencer {
    fn default() -> Self {
        Self::new()
    }
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ`. Hand-rolled because it runs for every event
/// and a general-purpose formatter costs more than the rest of a turn's orchestration; the date
/// and time of day are formatted once per second per thread, and only the milliseconds per call.
/// Held inline: no allocation.
pub fn now_stamp() -> Stamp {
    thread_local! {
        /// The second last formatted on this thread, and its `YYYY-MM-DDTHH:MM:SS.`.
        static SECOND: std::cell::RefCell<(i64, String)> =
            const { std::cell::RefCell::new((i64::MIN, String::new())) };
    }
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let (secs, millis) = (since.as_secs() as i64, since.subsec_millis());
    SECOND.with_borrow_mut(|(at, prefix)| {
        if *at != secs {
            *at = secs;
            *prefix = rfc3339_millis(secs, 0);
            prefix.truncate(prefix.len() - "000Z".len());
        }
        with_millis(prefix, millis)
    })
}

/// [`now_stamp`] as a `String`.
pub fn now_rfc3339() -> String {
    now_stamp().into()
}

/// `prefix` (up to the second's dot) followed by `millis` (0–999) as three digits and `Z`.
fn with_millis(prefix: &str, millis: u32) -> Stamp {
    let digits = [millis / 100 % 10, millis / 10 % 10, millis % 10].map(|d| b'0' + d as u8);
    let mut out = [0u8; 64];
    let n = prefix.len();
    let Some(place) = out.get_mut(..n + 4) else {
        // A prefix this long is no year the clock can show; kept whole all the same.
        let mut long = prefix.to_owned();
        long.extend(digits.map(char::from));
        long.push('Z');
        return Stamp::from(long);
    };
    place[..n].copy_from_slice(prefix.as_bytes());
    place[n..n + 3].copy_from_slice(&digits);
    place[n + 3] = b'Z';
    // A `&str` and ASCII digits: valid UTF-8.
    Stamp::from(std::str::from_utf8(place).unwrap_or_default())
}

pub fn rfc3339_millis(unix_secs: i64, millis: u32) -> String {
    use std::fmt::Write;
    let (days, sod) = (unix_secs.div_euclid(86_400), unix_secs.rem_euclid(86_400));
    let (year, month, day) = app::protocol::time::civil(days);
    let mut out = String::with_capacity(24);
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let cases = [
            (0, 0, "1970-01-01T00:00:00.000Z"),
            (951_782_400, 5, "2000-02-29T00:00:00.005Z"),
            (1_700_000_000, 123, "2023-11-14T22:13:20.123Z"),
            (1_795_305_599, 999, "2026-11-21T23:59:59.999Z"),
            (4_107_542_400, 0, "2100-03-01T00:00:00.000Z"),
        ];
        for (secs, ms, want) in cases {
            assert_eq!(rfc3339_millis(secs, ms), want, "{secs}");
            // The per-second prefix plus the milliseconds, as `now_rfc3339` builds it.
            let prefix = &want[..want.len() - "000Z".len()];
            assert_eq!(with_millis(prefix, ms), want, "{secs}");
        }
    }

    #[test]
    fn now_is_a_millisecond_timestamp_of_this_second() {
        let before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("after 1970")
            .as_secs() as i64;
        let now = now_rfc3339();
        let after = before + 2;
        let around: Vec<String> = (before..=after).map(|s| rfc3339_millis(s, 0)).collect();
        assert!(
            around.iter().any(|a| a[..20] == now[..20]),
            "{now} is not within {around:?}"
        );
        assert_eq!(now.len(), 24, "{now}");
        assert!(
            now[20..23].bytes().all(|b| b.is_ascii_digit()) && now.ends_with('Z'),
            "{now}"
        );
    }
}

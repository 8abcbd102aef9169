//! Memory back after a crowd leaves. Thousands of live viewers leave their buffers
//! in the allocator's free lists when they go; glibc keeps those pages, so a server that once
//! served 3,000 viewers stayed near its peak size. When the open streams fall well below their
//! peak, the free pages are handed back to the system (`malloc_trim`), off the async threads.
//! (mimalloc as the global allocator was measured too: it kept more, not less.)

use std::sync::Arc;
use std::time::Duration;

use crate::access::limits::Limits;

/// How often the open streams are counted.
const EVERY: Duration = Duration::from_secs(2);
/// A fall of at least this many streams, and to half the peak or less, counts as a crowd gone.
const CROWD: u32 = 100;

/// Whether `now` open streams, after a peak of `peak` since the last trim, means a crowd left.
pub fn crowd_left(peak: u32, now: u32) -> bool {
    peak.saturating_sub(now) >= CROWD && now <= peak / 2
}

/// Watches the open streams for as long as the server runs.
pub fn watch(limits: Arc<Limits>) {
    tokio::spawn(async move {
        let mut peak = 0;
        loop {
            tokio::time::sleep(EVERY).await;
            let now = limits.open_streams();
            peak = peak.max(now);
            if crowd_left(peak, now) {
                peak = now;
                let _ = tokio::task::spawn_blocking(trim).await;
            }
        }
    });
}

/// Hands the allocator's free pages back to the system; returns whether any were.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // the project's one foreign call; see SAFETY
pub fn trim() -> bool {
    // SAFETY: `malloc_trim` takes no pointers; it releases only memory glibc's allocator holds
    // free, under the allocator's own locks, and is safe to call from any thread at any time.
    unsafe { libc::malloc_trim(0) == 1 }
}

/// Other allocators and C libraries: nothing to do here.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn trim() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crowd_leaving_is_a_large_fall_to_half_the_peak() {
        let table = [
            (0, 0, false),
            (64, 0, false),
            (5000, 4000, false),
            (5000, 2500, true),
            (5000, 0, true),
            (150, 40, true),
            (150, 60, false),
        ];
        for (peak, now, want) in table {
            assert_eq!(crowd_left(peak, now), want, "{peak} → {now}");
        }
    }
}

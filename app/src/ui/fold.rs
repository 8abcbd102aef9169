//! Long debates: a round-robin debate may run 1,000 rounds and its log 18,000
//! events. A list longer than a screen shows its newest part, or one page of it, says what it
//! left out, and shows everything when the reader asks.

use std::ops::Range;

use leptos::prelude::*;

/// The most rounds a long debate's lists show before they fold the earlier ones (the live board,
/// the RR consensus meters): a debate within the old 20-round limit shows every round.
pub const KEEP_ROUNDS: usize = 20;

/// The items of a list of `total` that are shown: all of them when the list is no longer than
/// `keep` or the reader asked for all, else the last `keep`.
pub fn tail(total: usize, keep: usize, all: bool) -> Range<usize> {
    if all || total <= keep {
        0..total
    } else {
        total - keep..total
    }
}

/// The items on page `page` (from 0) of a list of `total` cut into pages of `size`; a page
/// past the end is the last page.
pub fn page(total: usize, size: usize, page: usize) -> Range<usize> {
    let size = size.max(1);
    let last = total.saturating_sub(1) / size;
    let start = page.min(last) * size;
    start..(start + size).min(total)
}

/// How many pages of `size` a list of `total` fills (at least one).
pub fn pages(total: usize, size: usize) -> usize {
    total.div_ceil(size.max(1)).max(1)
}

/// "Showing the last 20 of 630 rounds." with a button that shows them all (or folds them again).
/// Nothing when the list is short enough to show whole.
#[component]
pub fn FoldNote(
    total: usize,
    keep: usize,
    all: RwSignal<bool>,
    what: &'static str,
) -> impl IntoView {
    (total > keep).then(|| {
        let (total, keep) = (
            super::costs::thousands(total as u64),
            super::costs::thousands(keep as u64),
        );
        let (button_total, button_keep) = (total.clone(), keep.clone());
        view! {
            <p class="fold-note muted" data-testid="fold-note">
                {move || if all.get() {
                    format!("Showing all {total} {what}. ")
                } else {
                    format!("Showing the last {keep} of {total} {what}. ")
                }}
                <button type="button" class="link-button" on:click=move |_| all.update(|a| *a = !*a)>
                    {move || if all.get() { format!("Show only the last {button_keep}") } else { format!("Show all {button_total}") }}
                </button>
            </p>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{page, pages, tail};

    #[test]
    fn a_short_list_is_shown_whole_and_a_long_one_by_its_end() {
        let cases = [
            // (total, keep, all, shown)
            (0, 20, false, 0..0),
            (4, 20, false, 0..4),
            (20, 20, false, 0..20),
            (21, 20, false, 1..21),
            (630, 20, false, 610..630),
            (630, 20, true, 0..630),
        ];
        for (total, keep, all, shown) in cases {
            assert_eq!(tail(total, keep, all), shown, "{total} {keep} {all}");
        }
    }

    #[test]
    fn pages_cover_every_item_once_and_clamp_past_the_end() {
        let cases = [
            // (total, size, page, items, pages)
            (0, 500, 0, 0..0, 1),
            (19, 500, 0, 0..19, 1),
            (5_043, 500, 0, 0..500, 11),
            (5_043, 500, 10, 5_000..5_043, 11),
            (5_043, 500, 99, 5_000..5_043, 11),
            (1_000, 500, 1, 500..1_000, 2),
        ];
        for (total, size, p, items, n) in cases {
            assert_eq!(
                (page(total, size, p), pages(total, size)),
                (items, n),
                "{total} {size} {p}"
            );
        }
        // Every item of a long list is on exactly one page.
        let covered: usize = (0..pages(5_043, 500))
            .map(|p| page(5_043, 500, p).len())
            .sum();
        assert_eq!(covered, 5_043);
    }
}

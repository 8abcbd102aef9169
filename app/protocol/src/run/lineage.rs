//! FK-2: a fork's lineage checked against its parent's log; FK-4: how often a decision held over
//! several forks, with a Wilson interval.

use crate::event::{Event, EventBody};
use crate::shared::CommonEvent;

/// FK-2: what a fork's log says of its parent, checked against the parent's log when there is
/// one: the event it forked after must have the hash it names, and every copied event must be
/// the parent's. Returns the lines to show.
pub fn check_lineage(child: &[Event], parent: Option<&[Event]>) -> Result<Vec<String>, String> {
    let Some(EventBody::Common(CommonEvent::ForkedFrom {
        debate,
        after_seq,
        head_hash,
        ..
    })) = child.first().map(|e| &e.body)
    else {
        return Ok(Vec::new());
    };
    let Some(parent) = parent else {
        return Ok(vec![format!(
            "forked from debate {debate} after its event {after_seq} (hash {}…): the copied \
             prefix is unchecked; pass the parent's export to check it",
            &head_hash[..head_hash.len().min(12)]
        )]);
    };
    let n = *after_seq as usize;
    let head = parent
        .get(n.wrapping_sub(1))
        .filter(|_| n > 0)
        .ok_or_else(|| {
            format!(
                "the parent's log has {} events; the fork names its event {after_seq}",
                parent.len()
            )
        })?;
    if head.hash.as_str() != head_hash {
        return Err(format!(
            "the parent's event {after_seq} has hash {}, the fork names {head_hash}: not the \
             parent this fork was made from, or changed since",
            head.hash.as_str()
        ));
    }
    let copy = child.get(1..=n).ok_or_else(|| {
        format!("the fork's log is shorter than the {n} events it says it copied")
    })?;
    for (c, p) in copy.iter().zip(parent) {
        if c.body != p.body {
            return Err(format!(
                "the fork's event {} is not the parent's event {} it copies ({} against {})",
                c.seq,
                p.seq,
                c.body.kind(),
                p.body.kind()
            ));
        }
    }
    Ok(vec![format!(
        "forked from debate {debate} after its event {after_seq}: the parent's chain names that \
         event's hash, and the {n} copied events are the parent's"
    )])
}

/// FK-4: the 95 % Wilson score interval for `held` successes in `n` trials.
pub fn wilson(held: u32, n: u32) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_964_f64;
    let n = f64::from(n);
    let p = f64::from(held) / n;
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::wilson;

    /// FK-4: the interval, against values computed by hand.
    #[test]
    fn wilson_intervals_fk_4() {
        let table = [
            (0, 0, (0.0, 1.0)),
            (5, 5, (0.5655, 1.0)),
            (3, 4, (0.3006, 0.9544)),
            (0, 10, (0.0, 0.2775)),
            (10, 20, (0.2993, 0.7007)),
        ];
        for (held, n, (lo, hi)) in table {
            let (l, h) = wilson(held, n);
            assert!(
                (l - lo).abs() < 1e-3 && (h - hi).abs() < 1e-3,
                "{held}/{n}: {l} {h}"
            );
        }
    }
}

//! RC-1: observations grouped into topics by the similarity of their embeddings.
//!
//! 1. Links that need no embedding come first: observations with the same `topic_hint`
//!    (compared case-insensitively) and observations named in each other's `conflicts_with`
//!    form one group (union-find).
//! 2. Groups then join by the debate's [`Linkage`], never two that carry different hints:
//!    - `average`: every vector is centred on the mean of all of them; the two topics with the
//!      highest average pairwise cosine (each cosine rounded to 3 decimals, as logged) join
//!      while that average is at least `similarity_threshold`. Integer arithmetic throughout
//!      (cosines in thousandths, averages compared by cross-multiplication), so the server,
//!      `verify` and the browser form the same topics.
//!    - `centroid` (logs written before `linkage` existed): groups, in the order of their first
//!      observation, join the topic whose centroid is most similar to their own, when that
//!      cosine is at least `similarity_threshold`; otherwise they start a new topic.
//!    - with `report_threshold` and two or more agents, two groups holding observations one
//!      agent made at the same instant (one report's facts, mostly separate ones) join only
//!      when their similarity is at least that.
//! 3. A topic with observations from two or more agents whose content differs is a potential
//!    conflict.

use super::types::{Linkage, Member, Observation, RcParams, Topic};
use super::vectors::{round3, Sum};

/// A topic while it forms: its members (index, similarity when joining, why), its centroid and
/// its hint.
type Forming = (Vec<(usize, f64, String)>, Sum, Option<String>);

/// Forms the topics. `vectors[i]` is observation `i`'s logged embedding.
pub fn cluster(
    observations: &[Observation],
    vectors: &[Vec<i16>],
    params: &RcParams,
) -> Vec<Topic> {
    let apart = Apart::new(observations, params.report_threshold);
    match params.linkage {
        Linkage::Average => average(observations, vectors, params.similarity_threshold, &apart),
        Linkage::Centroid => centroid(observations, vectors, params.similarity_threshold, &apart),
    }
}

/// RC-1's `report_threshold`: which report each observation belongs to (the same agent, the
/// same instant: one number per report) and the similarity two groups sharing a report need.
/// Off with a single agent: then the whole reconciliation is one report and the rule would say
/// nothing.
struct Apart(Option<(Vec<usize>, f64)>);

impl Apart {
    fn new(observations: &[Observation], threshold: Option<f64>) -> Apart {
        let agents = observations
            .iter()
            .map(|o| &o.agent)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        Apart(threshold.filter(|_| agents >= 2).map(|t| {
            let mut seen: Vec<(&str, Option<i64>)> = Vec::new();
            let reports = observations
                .iter()
                .map(|o| {
                    // To the millisecond: a report's facts carry one instant, however written.
                    let at =
                        crate::time::days(&o.timestamp).map(|d| (d * 86_400_000.0).round() as i64);
                    let key = (o.agent.as_str(), at);
                    seen.iter().position(|k| *k == key).unwrap_or_else(|| {
                        seen.push(key);
                        seen.len() - 1
                    })
                })
                .collect();
            (reports, t)
        }))
    }

    /// Whether two groups, holding observations `a` and `b`, share a report.
    fn shared(&self, a: &[usize], b: &[usize]) -> bool {
        self.0
            .as_ref()
            .is_some_and(|(report, _)| a.iter().any(|&i| b.iter().any(|&j| report[i] == report[j])))
    }

    /// The similarity two groups sharing a report need.
    fn threshold(&self) -> Option<f64> {
        self.0.as_ref().map(|(_, t)| *t)
    }
}

/// A topic's members while it forms: (observation index, similarity when joining, why).
type Members = Vec<(usize, f64, String)>;

/// [`Linkage::Average`].
fn average(
    observations: &[Observation],
    vectors: &[Vec<i16>],
    threshold: f64,
    apart: &Apart,
) -> Vec<Topic> {
    let n = vectors.len().min(observations.len());
    let centred = centred(&vectors[..n]);
    // Pairwise cosines in thousandths.
    let milli = |a: usize, b: usize| (centred[a].cosine(&centred[b]) * 1000.0).round() as i64;
    let mut topics: Vec<(Members, Option<String>)> = forced_groups(&observations[..n])
        .into_iter()
        .map(|(group, reasons)| {
            let hint = hint_of(&observations[group[0]]);
            (first_members(&group, reasons), hint)
        })
        .collect();
    // `link[a][b]`: the sum of the pairwise cosines between topics a and b.
    let mut link: Vec<Vec<i64>> = topics
        .iter()
        .map(|(a, _)| {
            topics
                .iter()
                .map(|(b, _)| {
                    a.iter()
                        .flat_map(|x| b.iter().map(move |y| milli(x.0, y.0)))
                        .sum()
                })
                .collect()
        })
        .collect();
    // `shares[a][b]`: topics a and b hold facts of one report (RC-1's `report_threshold`).
    let ids = |m: &Members| m.iter().map(|x| x.0).collect::<Vec<_>>();
    let mut shares: Vec<Vec<bool>> = topics
        .iter()
        .map(|(a, _)| {
            topics
                .iter()
                .map(|(b, _)| apart.shared(&ids(a), &ids(b)))
                .collect()
        })
        .collect();
    let report_milli = apart.threshold().map(|t| (t * 1000.0).round() as i64);
    let t_milli = (threshold * 1000.0).round() as i64;
    while let Some((a, b, sum, pairs)) = closest(&topics, &link, &shares, report_milli) {
        if sum < t_milli * pairs {
            break;
        }
        let avg = sum as f64 / pairs as f64 / 1000.0;
        let (joining, hint) = topics.remove(b);
        let row = link.remove(b);
        for r in &mut link {
            r.remove(b);
        }
        let shared_row = shares.remove(b);
        for r in &mut shares {
            r.remove(b);
        }
        for (x, (v, s)) in row
            .iter()
            .zip(shared_row)
            .enumerate()
            .filter(|(x, _)| *x != b)
        {
            let x = if x > b { x - 1 } else { x };
            if x != a {
                link[a][x] += v;
                link[x][a] += v;
                shares[a][x] |= s;
                shares[x][a] |= s;
            }
        }
        let (members, topic_hint) = &mut topics[a];
        for (i, _, why) in joining {
            let why = if why == "first of the topic" || why == "linked to the first" {
                format!("average similarity {avg:.3} ≥ {threshold:.3} with the topic")
            } else {
                why
            };
            members.push((i, round3(avg), why));
        }
        if topic_hint.is_none() {
            *topic_hint = hint;
        }
    }
    topics
        .into_iter()
        .enumerate()
        .map(|(t, (mut members, hint))| {
            members.sort_by_key(|(i, _, _)| *i);
            let mut centroid = Sum::of(&vectors[members[0].0]);
            for (i, _, _) in &members[1..] {
                centroid.add(&Sum::of(&vectors[*i]));
            }
            topic(t, observations, vectors, members, &centroid, hint)
        })
        .collect()
}

/// Each vector centred on the mean of all: n·vᵢ − Σⱼ vⱼ, exact in i64.
fn centred(vectors: &[Vec<i16>]) -> Vec<Sum> {
    let n = vectors.len() as i64;
    let mut total = Sum(Vec::new());
    for v in vectors {
        let s = Sum::of(v);
        if total.0.len() < s.0.len() {
            total.0.resize(s.0.len(), 0);
        }
        total.add(&s);
    }
    vectors
        .iter()
        .map(|v| {
            let mut c: Vec<i64> = total.0.iter().map(|t| -t).collect();
            for (c, x) in c.iter_mut().zip(v) {
                *c += n * i64::from(*x);
            }
            Sum(c)
        })
        .collect()
}

/// A group's members before it joins anything, with their reasons.
fn first_members(group: &[usize], reasons: Vec<Option<String>>) -> Members {
    group
        .iter()
        .zip(reasons)
        .enumerate()
        .map(|(k, (&i, why))| {
            let why = why.unwrap_or_else(|| {
                if k == 0 {
                    "first of the topic".to_owned()
                } else {
                    "linked to the first".to_owned()
                }
            });
            (i, 1.0, why)
        })
        .collect()
}

/// The two topics (a < b) with the highest average link that may join (no different hints;
/// topics sharing a report only at `report_milli` or above), with the link's sum and pair count;
/// the earliest pair on a tie. Averages are compared by cross-multiplication, exactly.
fn closest(
    topics: &[(Members, Option<String>)],
    link: &[Vec<i64>],
    shares: &[Vec<bool>],
    report_milli: Option<i64>,
) -> Option<(usize, usize, i64, i64)> {
    let mut best: Option<(usize, usize, i64, i64)> = None;
    for a in 0..topics.len() {
        for b in a + 1..topics.len() {
            let (ha, hb) = (&topics[a].1, &topics[b].1);
            if ha.is_some() && hb.is_some() && ha != hb {
                continue;
            }
            let pairs = (topics[a].0.len() * topics[b].0.len()) as i64;
            // In thousandths and by cross-multiplication, as the join itself.
            if shares[a][b] && report_milli.is_some_and(|r| link[a][b] < r * pairs) {
                continue;
            }
            let better = best.is_none_or(|(_, _, sum, count)| {
                i128::from(link[a][b]) * i128::from(count) > i128::from(sum) * i128::from(pairs)
            });
            if better {
                best = Some((a, b, link[a][b], pairs));
            }
        }
    }
    best
}

/// [`Linkage::Centroid`].
fn centroid(
    observations: &[Observation],
    vectors: &[Vec<i16>],
    threshold: f64,
    apart: &Apart,
) -> Vec<Topic> {
    let groups = forced_groups(observations);
    // (members with their reasons, centroid, hint)
    let mut topics: Vec<Forming> = Vec::new();
    for (group, reasons) in groups {
        let mut sum = Sum::of(&vectors[group[0]]);
        for &i in &group[1..] {
            sum.add(&Sum::of(&vectors[i]));
        }
        let hint = hint_of(&observations[group[0]]);
        let best = topics
            .iter()
            .enumerate()
            .filter(|(_, (_, _, h))| h.is_none() || hint.is_none() || *h == hint)
            .map(|(t, (members, centroid, _))| (t, members, centroid.cosine(&sum)))
            .filter(|(_, members, sim)| {
                let ids: Vec<usize> = members.iter().map(|m| m.0).collect();
                !(apart.threshold().is_some_and(|t| *sim < t) && apart.shared(&ids, &group))
            })
            .map(|(t, _, sim)| (t, sim))
            .filter(|(_, sim)| *sim >= threshold)
            // The most similar; the earliest topic on a tie.
            .fold(None::<(usize, f64)>, |best, (t, sim)| match best {
                Some((_, b)) if b >= sim => best,
                _ => Some((t, sim)),
            });
        match best {
            Some((t, sim)) => {
                let (members, centroid, topic_hint) = &mut topics[t];
                for (&i, why) in group.iter().zip(reasons) {
                    let why = why.unwrap_or_else(|| {
                        format!("similarity {sim:.3} ≥ {threshold:.3} with the topic")
                    });
                    members.push((i, sim, why));
                }
                centroid.add(&sum);
                if topic_hint.is_none() {
                    *topic_hint = hint;
                }
            }
            None => topics.push((first_members(&group, reasons), sum, hint)),
        }
    }
    topics
        .into_iter()
        .enumerate()
        .map(|(t, (mut members, centroid, hint))| {
            members.sort_by_key(|(i, _, _)| *i);
            topic(t, observations, vectors, members, &centroid, hint)
        })
        .collect()
}

fn topic(
    t: usize,
    observations: &[Observation],
    vectors: &[Vec<i16>],
    members: Vec<(usize, f64, String)>,
    centroid: &Sum,
    hint: Option<String>,
) -> Topic {
    let mut agents: Vec<String> = Vec::new();
    for (i, _, _) in &members {
        if !agents.contains(&observations[*i].agent) {
            agents.push(observations[*i].agent.clone());
        }
    }
    let contents: Vec<String> = members
        .iter()
        .map(|(i, _, _)| plain(&observations[*i].content))
        .collect();
    let potential_conflict = agents.len() >= 2 && contents.iter().any(|c| *c != contents[0]);
    // The label: the hint, or the observation nearest the centroid, shortened.
    let label = match &observations[members[0].0].topic_hint {
        Some(h) if hint.is_some() => h.trim().to_owned(),
        _ => {
            let central = members
                .iter()
                .map(|(i, _, _)| (*i, Sum::of(&vectors[*i]).cosine(centroid)))
                .fold(None::<(usize, f64)>, |best, (i, sim)| match best {
                    Some((_, b)) if b >= sim => best,
                    _ => Some((i, sim)),
                })
                .map_or(members[0].0, |(i, _)| i);
            shorten(&observations[central].content, 60)
        }
    };
    Topic {
        topic: format!("t{}", t + 1),
        label,
        observation_ids: members
            .iter()
            .map(|(i, _, _)| observations[*i].id.clone())
            .collect(),
        members: members
            .into_iter()
            .map(|(i, similarity, why)| Member {
                id: observations[i].id.clone(),
                agent: observations[i].agent.clone(),
                similarity,
                why,
            })
            .collect(),
        agents,
        potential_conflict,
    }
}

/// Lowercased words, for "does the content differ".
pub fn plain(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn shorten(text: &str, chars: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= chars {
        return text.to_owned();
    }
    let cut: String = text.chars().take(chars).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(a, _)| a);
    format!("{}…", cut.trim_end_matches([',', ';', ':', '.']))
}

fn hint_of(o: &Observation) -> Option<String> {
    o.topic_hint
        .as_deref()
        .map(|h| h.trim().to_lowercase())
        .filter(|h| !h.is_empty())
}

/// Step 1: groups by hint and `conflicts_with`, each with its members' reasons (`None`: the
/// first member, or a reason the embedding gives later), in order of their first observation.
fn forced_groups(observations: &[Observation]) -> Vec<(Vec<usize>, Vec<Option<String>>)> {
    let n = observations.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let mut reason: Vec<Option<String>> = vec![None; n];
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let union = |parent: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (root(parent, a), root(parent, b));
        // The smaller index stays the root, so groups keep input order.
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        parent[hi] = lo;
    };
    for i in 0..n {
        let Some(h) = hint_of(&observations[i]) else {
            continue;
        };
        if let Some(j) = (0..i).find(|&j| hint_of(&observations[j]).as_ref() == Some(&h)) {
            union(&mut parent, i, j);
            reason[i].get_or_insert_with(|| format!("topic hint “{}”", h));
        }
    }
    for i in 0..n {
        for other in &observations[i].conflicts_with {
            if let Some(j) = observations.iter().position(|o| o.id == *other) {
                union(&mut parent, i, j);
                let (a, b) = (&observations[i].id, &observations[j].id);
                reason[i].get_or_insert_with(|| format!("conflicts_with {b}"));
                reason[j].get_or_insert_with(|| format!("named in {a}'s conflicts_with"));
            }
        }
    }
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        match groups.iter_mut().find(|(root, _)| *root == r) {
            Some((_, members)) => members.push(i),
            None => groups.push((r, vec![i])),
        }
    }
    groups.sort_by_key(|(_, m)| m[0]);
    groups
        .into_iter()
        .map(|(_, members)| {
            let reasons = members
                .iter()
                .enumerate()
                .map(|(k, &i)| if k == 0 { None } else { reason[i].clone() })
                .collect();
            (members, reasons)
        })
        .collect()
}

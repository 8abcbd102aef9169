//! Builtin RR agents (RR-1): valuation, sentiment and fundamental analysts, plus a neutral analyst
//! for any other role. Each reads the query's words from its perspective (price against worth;
//! market mood and news; the business and its numbers), adds a seeded jitter, and states a
//! stance. From its second turn on it answers its peers by name and may move toward their
//! majority: the less confident it is and the weaker its own reading, the likelier. A reading
//! of three or more points in one direction never yields, so contested queries can run to the
//! round limit while one-sided ones agree in two rounds.

use protocol::round_robin::{PeerPosition, RrPosition, RrReply, RrTask, Stance};
use protocol::types::display_name;
use protocol::{AgentReply, AgentRequest, Role, Task};

use super::reading::lexicon::{cue, quotes, scan, words, Cue, Found};
use super::reading::text::one_line;
use super::{pct, Rng};

#[cfg(test)]
mod tests;

/// What a role reads as pointing up (toward BUY) and down (toward SELL).
struct Lens {
    bull: &'static [Cue],
    bear: &'static [Cue],
    /// "the price", "the mood", "the business".
    subject: &'static str,
    /// Nudges the score: valuation leans wary, sentiment leans with the crowd.
    bias: i32,
}

const VALUATION: Lens = Lens {
    bull: &[
        cue("undervalued", 2),
        cue("cheap", 2),
        cue("bargain", 2),
        cue("discount*", 1),
        cue("low p e", 2),
        cue("oversold", 1),
        cue("attractive valuation", 2),
        cue("dividend*", 1),
        cue("value", 1),
        cue("fair price", 1),
    ],
    bear: &[
        cue("overvalued", 2),
        cue("overpriced", 2),
        cue("expensive", 2),
        cue("bubble", 2),
        cue("high p e", 2),
        cue("p e", 1),
        cue("frothy", 2),
        cue("pricey", 1),
        cue("stretched", 1),
        cue("premium", 1),
        cue("all time high", 1),
    ],
    subject: "the price against what it is worth",
    bias: -2,
};

const SENTIMENT: Lens = Lens {
    bull: &[
        cue("hype*", 2),
        cue("rally*", 2),
        cue("momentum", 2),
        cue("popular", 1),
        cue("surg*", 1),
        cue("soar*", 1),
        cue("buzz", 1),
        cue("trending", 1),
        cue("upgrade*", 1),
        cue("good news", 2),
        cue("bullish", 2),
        cue("optimis*", 1),
        cue("news", 1),
    ],
    bear: &[
        cue("panic*", 2),
        cue("crash*", 2),
        cue("sell off", 2),
        cue("selloff", 2),
        cue("fear*", 1),
        cue("scandal", 2),
        cue("lawsuit*", 1),
        cue("downgrade*", 1),
        cue("bearish", 2),
        cue("plung*", 2),
        cue("slump*", 1),
        cue("bad news", 2),
    ],
    subject: "the market's mood and the news",
    bias: 2,
};

const FUNDAMENTAL: Lens = Lens {
    bull: &[
        cue("revenue growth", 2),
        cue("profitable", 2),
        cue("profit*", 1),
        cue("growth", 1),
        cue("growing", 1),
        cue("cash flow", 1),
        cue("free cash flow", 2),
        cue("margin expansion", 2),
        cue("strong balance sheet", 2),
        cue("earnings beat", 2),
        cue("revenue", 1),
        cue("margin*", 1),
    ],
    bear: &[
        cue("bankrupt*", 3),
        cue("debt*", 2),
        cue("loss*", 2),
        cue("burning cash", 2),
        cue("cash burn", 2),
        cue("declin*", 1),
        cue("layoff*", 1),
        cue("default*", 2),
        cue("shrinking", 1),
        cue("fraud*", 2),
        cue("writedown*", 1),
    ],
    subject: "the business and its numbers",
    bias: 0,
};

fn lens(role: Role) -> Option<&'static Lens> {
    match role {
        Role::Valuation => Some(&VALUATION),
        Role::Sentiment => Some(&SENTIMENT),
        Role::Fundamental => Some(&FUNDAMENTAL),
        _ => None,
    }
}

/// A role's reading of the query: the cues on each side and their net weight.
struct Reading {
    bull: Vec<Found>,
    bear: Vec<Found>,
    net: i32,
    subject: &'static str,
    bias: i32,
}

fn read(role: Role, words: &[String]) -> Reading {
    let (bull, bear, subject, bias) = match lens(role) {
        Some(l) => (scan(words, l.bull), scan(words, l.bear), l.subject, l.bias),
        None => {
            // A neutral analyst weighs every lens at once.
            let mut bull = Vec::new();
            let mut bear = Vec::new();
            for l in [&VALUATION, &SENTIMENT, &FUNDAMENTAL] {
                bull.extend(scan(words, l.bull));
                bear.extend(scan(words, l.bear));
            }
            (bull, bear, "the whole picture", 0)
        }
    };
    let sum = |f: &[Found]| f.iter().map(|x| x.weight).sum::<i32>();
    let net = sum(&bull) - sum(&bear);
    Reading {
        bull,
        bear,
        net,
        subject,
        bias,
    }
}

impl Reading {
    /// The cues that back a stance, strongest first.
    fn backing(&self, stance: Stance) -> Vec<&Found> {
        let mut v: Vec<&Found> = match stance {
            Stance::Buy => self.bull.iter().collect(),
            Stance::Sell => self.bear.iter().collect(),
            Stance::Hold => self.bull.iter().chain(&self.bear).collect(),
        };
        v.sort_by_key(|f| -f.weight);
        v
    }

    /// A reading this one-sided never yields to peers.
    fn adamant(&self) -> bool {
        self.net.abs() >= 3
    }
}

/// "Sentiment", "Risk Desk": the agent's id as a name, without the "Agent" suffix.
fn name(agent: &str) -> String {
    let n = display_name(agent);
    let n = n.strip_suffix(" Agent").unwrap_or(&n).trim().to_owned();
    if n.is_empty() {
        "An analyst".to_owned()
    } else {
        n
    }
}

pub(crate) fn turn(seed: u64, req: &AgentRequest) -> AgentReply {
    let Task::RoundRobin(RrTask::Turn {
        query,
        turn,
        own,
        peers,
    }) = &req.task
    else {
        return AgentReply::RoundRobin(RrReply::Stance(RrPosition {
            stance: Stance::Hold,
            confidence: 0,
            reasoning: "Not a round-robin turn; holding.".into(),
        }));
    };
    let words = words(query);
    let reading = read(req.role, &words);
    // Same (seed, query, agent, turn, peers) → same reply: the peers' stances salt the stream.
    let salt: String = peers
        .iter()
        .map(|p| {
            format!(
                "{}={}:{};",
                p.agent, p.position.stance, p.position.confidence
            )
        })
        .collect();
    let round = u16::try_from(*turn).unwrap_or(u16::MAX);
    let mut rng = Rng::new(seed, query, &req.agent, round, &salt);
    let position = match own {
        Some(own) if *turn > 1 => respond(req, &reading, own, peers, &words, &mut rng),
        _ => initial(req, &reading, query, &mut rng),
    };
    AgentReply::RoundRobin(RrReply::Stance(position))
}

fn stance_of(score: i32) -> Stance {
    if score >= 8 {
        Stance::Buy
    } else if score <= -8 {
        Stance::Sell
    } else {
        Stance::Hold
    }
}

fn initial(req: &AgentRequest, r: &Reading, query: &str, rng: &mut Rng) -> RrPosition {
    let score = 10 * r.net + r.bias + rng.jitter(13);
    let stance = stance_of(score);
    let strength = r.net.abs().min(4);
    let signals = !r.bull.is_empty() || !r.bear.is_empty();
    let confidence = if signals {
        pct(50 + 11 * strength + rng.jitter(7))
    } else {
        pct(42 + rng.jitter(8))
    };
    let me = name(&req.agent);
    let up = r.backing(Stance::Buy);
    let down = r.backing(Stance::Sell);
    let read = match (up.is_empty(), down.is_empty()) {
        (true, true) => format!(
            "the query (\"{}\") says nothing I can read about {}",
            one_line(query, 80),
            r.subject
        ),
        (false, true) => format!("on {} the query points up: {}", r.subject, quotes(&up, 3)),
        (true, false) => format!(
            "on {} the query points down: {}",
            r.subject,
            quotes(&down, 3)
        ),
        (false, false) => format!(
            "on {} the query pulls both ways: {} against {}",
            r.subject,
            quotes(&up, 2),
            quotes(&down, 2)
        ),
    };
    let why = match stance {
        Stance::Buy if !up.is_empty() => "that is a reason to buy",
        Stance::Sell if !down.is_empty() => "that is a reason to sell",
        Stance::Buy => "on balance I lean toward buying",
        Stance::Sell => "on balance I lean toward selling",
        Stance::Hold if signals => "the signals do not settle it, so I would wait",
        Stance::Hold => "without a signal I would wait",
    };
    RrPosition {
        stance,
        confidence,
        reasoning: format!("{me}: {read}; {why}. {stance} at {confidence}% confidence."),
    }
}

/// How a peer's stance reads: "Sentiment says BUY on the "rally"".
fn peer_phrase(p: &PeerPosition, words: &[String]) -> String {
    let theirs = read(p.role, words);
    let backing = theirs.backing(p.position.stance);
    let on = match (p.position.stance, backing.first()) {
        (Stance::Hold, Some(_)) => format!(" weighing {}", quotes(&backing, 2)),
        (_, Some(f)) => format!(" on the \"{}\"", f.text),
        (_, None) => format!(" ({}%)", p.position.confidence),
    };
    format!("{} says {}{}", name(&p.agent), p.position.stance, on)
}

fn respond(
    req: &AgentRequest,
    r: &Reading,
    own: &RrPosition,
    peers: &[PeerPosition],
    words: &[String],
    rng: &mut Rng,
) -> RrPosition {
    let me = name(&req.agent);
    let mut stance = own.stance;
    let mut conf = i32::from(own.confidence.min(100));
    let said: Vec<String> = peers.iter().map(|p| peer_phrase(p, words)).collect();
    let said = super::reading::text::join_list(&said);
    if peers.is_empty() {
        return RrPosition {
            stance,
            confidence: own.confidence,
            reasoning: format!("{me}: no peer has spoken yet; I keep {stance}."),
        };
    }
    // The peers' majority: a stance held by more than half of them.
    let count = |s: Stance| peers.iter().filter(|p| p.position.stance == s).count();
    let majority = Stance::ALL
        .into_iter()
        .find(|&s| count(s) * 2 > peers.len());
    let mine = r.backing(own.stance);
    let my_cue = mine
        .first()
        .map(|f| format!("\"{}\"", f.text))
        .unwrap_or_else(|| "no clear signal".to_owned());
    let roll = (rng.next() % 1000) as f64 / 1000.0;
    let tail = match majority {
        Some(m) if m == own.stance => {
            conf += 3 + rng.jitter(2);
            format!("and I agree: {m} stands, and my reading ({my_cue}) backs it")
        }
        Some(m) => {
            // Yield with a probability that falls with confidence and with the weight of one's
            // own reading; an adamant reading never yields.
            let weight = 1.0 + f64::from(r.net.abs());
            let p = if r.adamant() {
                0.0
            } else {
                (f64::from(95 - conf) / 65.0).clamp(0.0, 0.9) / weight.sqrt()
            };
            let peer_conf = peers
                .iter()
                .filter(|p| p.position.stance == m)
                .map(|p| i32::from(p.position.confidence))
                .sum::<i32>()
                / count(m).max(1) as i32;
            if roll < p {
                stance = m;
                conf = (conf + peer_conf) / 2 - 4 + rng.jitter(3);
                format!(
                    "and my own reading ({my_cue}) is too thin to stand against that, so I move \
                     from {} to {m}",
                    own.stance
                )
            } else {
                conf -= 3 + rng.jitter(2);
                format!(
                    "but on {} I read {my_cue}, which still says {}; I keep it against the \
                     majority",
                    r.subject, own.stance
                )
            }
        }
        None => {
            if count(own.stance) > 0 {
                conf += 1;
                format!("; the room is split and my reading ({my_cue}) keeps me at {stance}")
            } else {
                // Alone and no majority: drift toward the most confident peer, or hold.
                let lead = peers
                    .iter()
                    .max_by_key(|p| (p.position.confidence, std::cmp::Reverse(p.agent.clone())));
                let p = if r.adamant() {
                    0.0
                } else {
                    (f64::from(80 - conf) / 80.0).clamp(0.0, 0.6)
                };
                match lead {
                    Some(l) if roll < p => {
                        stance = l.position.stance;
                        conf -= 5;
                        format!(
                            "; nobody agrees with anybody, and {} argues it best, so I move from \
                             {} to {stance}",
                            name(&l.agent),
                            own.stance
                        )
                    }
                    _ => format!(
                        "; nobody agrees with anybody, and my reading ({my_cue}) keeps me at \
                         {stance}"
                    ),
                }
            }
        }
    };
    let confidence = pct(conf.clamp(20, 95));
    let sep = if tail.starts_with(';') { "" } else { ", " };
    RrPosition {
        stance,
        confidence,
        reasoning: format!("{me}: {said}{sep}{tail}. {stance} at {confidence}% confidence."),
    }
}

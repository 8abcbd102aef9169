//! What a WC author reads in a query: the cues that raise or lower the stakes of the change.

use super::super::reading::lexicon::{cue, scan, words, Cue, Found};
use super::super::reading::text::one_line;

const DESTRUCTIVE: &[Cue] = &[
    cue("drop table", 3),
    cue("drop database", 3),
    cue("drop the database", 3),
    cue("rm rf", 3),
    cue("force push", 2),
    cue("delet*", 2),
    cue("truncat*", 2),
    cue("wip*", 2),
    cue("purg*", 2),
    cue("erase", 2),
    cue("destroy", 2),
    cue("remove all", 2),
    cue("overwrit*", 1),
];

const SECURITY: &[Cue] = &[
    cue("disable auth*", 3),
    cue("disable the auth*", 3),
    cue("turn off auth*", 3),
    cue("bypass*", 2),
    cue("skip tests", 2),
    cue("skip the tests", 2),
    cue("skip review", 2),
    cue("skip code review", 2),
    cue("disable 2fa", 3),
    cue("disable mfa", 3),
    cue("disable ssl", 2),
    cue("disable tls", 2),
    cue("hardcod*", 2),
    cue("root access", 2),
    cue("chmod 777", 2),
    cue("no tests", 2),
    cue("without tests", 2),
    cue("without review", 2),
];

const PRODUCTION: &[Cue] = &[
    cue("production", 1),
    cue("prod", 1),
    cue("all users", 2),
    cue("every user", 2),
    cue("all customers", 2),
    cue("customers", 1),
    cue("live", 1),
];

const IRREVERSIBLE: &[Cue] = &[
    cue("irreversibl*", 2),
    cue("permanent*", 2),
    cue("cannot be undone", 2),
    cue("no rollback", 2),
    cue("one way", 1),
];

const SENSITIVE: &[Cue] = &[
    cue("payment*", 2),
    cue("credit card*", 2),
    cue("billing", 1),
    cue("gdpr", 2),
    cue("pii", 2),
    cue("personal data", 2),
    cue("password*", 2),
    cue("medical", 2),
    cue("hipaa", 2),
    cue("encryption key*", 2),
    cue("user data", 1),
    cue("auth*", 1),
];

const CHANGE: &[Cue] = &[
    cue("migrat*", 2),
    cue("rewrit*", 2),
    cue("from scratch", 2),
    cue("redesign*", 2),
    cue("microservice*", 2),
    cue("kubernetes", 1),
    cue("schema", 1),
    cue("replac*", 1),
    cue("switch*", 1),
    cue("upgrad*", 1),
    cue("refactor*", 1),
    cue("database", 1),
    cue("architecture", 1),
];

const ROUTINE: &[Cue] = &[
    cue("unit test*", 2),
    cue("add a test", 2),
    cue("rename*", 2),
    cue("readme", 2),
    cue("typo*", 2),
    cue("comment*", 1),
    cue("docstring*", 2),
    cue("documentation", 1),
    cue("docs", 1),
    cue("lint*", 1),
    cue("format*", 1),
    cue("log message*", 1),
    cue("changelog", 2),
    cue("variable", 1),
    cue("test*", 1),
];

const URGENT: &[Cue] = &[
    cue("asap", 1),
    cue("tonight", 1),
    cue("urgent*", 1),
    cue("hotfix", 1),
    cue("outage", 1),
    cue("immediately", 1),
    cue("friday", 1),
];

/// The query as the authors read it.
#[derive(Clone, Debug)]
pub(super) struct Situation {
    pub destructive: Vec<Found>,
    pub security: Vec<Found>,
    pub production: Vec<Found>,
    pub irreversible: Vec<Found>,
    pub sensitive: Vec<Found>,
    pub change: Vec<Found>,
    pub routine: Vec<Found>,
    pub urgent: Vec<Found>,
    /// The query, on one line and clipped, to name the change.
    pub subject: String,
    /// A few content words joined by `-`, for evidence pointers.
    pub slug: String,
}

const STOP: &[&str] = &[
    "a", "an", "the", "to", "of", "and", "or", "we", "i", "should", "can", "could", "how", "do",
    "does", "in", "on", "for", "with", "our", "my", "is", "are", "be", "it", "this", "that",
    "what", "would", "will", "let", "lets", "s", "please", "all", "from", "into", "by",
];

impl Situation {
    pub fn of(query: &str) -> Situation {
        let w = words(query);
        let subject = {
            let s = one_line(query, 70);
            if s.is_empty() {
                "the requested change".to_owned()
            } else {
                s
            }
        };
        let slug: Vec<&str> = w
            .iter()
            .map(String::as_str)
            .filter(|x| !STOP.contains(x) && x.is_ascii())
            .take(3)
            .collect();
        let slug = if slug.is_empty() {
            "change".to_owned()
        } else {
            slug.join("-")
        };
        Situation {
            destructive: scan(&w, DESTRUCTIVE),
            security: scan(&w, SECURITY),
            production: scan(&w, PRODUCTION),
            irreversible: scan(&w, IRREVERSIBLE),
            sensitive: scan(&w, SENSITIVE),
            change: scan(&w, CHANGE),
            routine: scan(&w, ROUTINE),
            urgent: scan(&w, URGENT),
            subject,
            slug,
        }
    }

    /// 0 (trivial) – 1 (dangerous): how much could go wrong.
    pub fn stakes(&self) -> f64 {
        let on = |v: &Vec<Found>, x: f64| if v.is_empty() { 0.0 } else { x };
        let mut s = 0.3;
        s += on(&self.destructive, 0.3);
        s += on(&self.security, 0.3);
        s += on(&self.production, 0.15);
        s += on(&self.irreversible, 0.2);
        s += on(&self.sensitive, 0.12);
        s += on(&self.change, 0.3);
        s += on(&self.urgent, 0.06);
        if !self.routine.is_empty() {
            s -= 0.2;
        }
        s.clamp(0.05, 1.0)
    }

    pub fn dangerous(&self) -> bool {
        !self.destructive.is_empty() || !self.security.is_empty()
    }

    pub fn is_routine(&self) -> bool {
        !self.routine.is_empty() && !self.dangerous() && self.change.is_empty()
    }
}

/// The first cue's words, or a fallback.
pub(super) fn word<'a>(v: &'a [Found], or: &'a str) -> &'a str {
    v.first().map(|f| f.text.as_str()).unwrap_or(or)
}

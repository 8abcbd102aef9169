-- SV-1: a debate is a row plus its append-only event log.
CREATE TABLE debates (
    id          TEXT PRIMARY KEY NOT NULL,
    query       TEXT NOT NULL,
    protocol    TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
    decision    TEXT,
    created_at  TEXT NOT NULL
);
CREATE INDEX debates_created_at ON debates (created_at DESC);

CREATE TABLE events (
    debate_id   TEXT NOT NULL REFERENCES debates (id),
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    body        TEXT NOT NULL,
    PRIMARY KEY (debate_id, seq)
);

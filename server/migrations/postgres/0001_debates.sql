-- SV-1: a debate is a row plus its append-only event log. The same schema as
-- migrations/sqlite/0001, with 64-bit integers.
CREATE TABLE debates (
    id          TEXT PRIMARY KEY NOT NULL,
    query       TEXT NOT NULL,
    protocol    TEXT NOT NULL,
    seed        BIGINT NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
    decision    TEXT,
    created_at  TEXT NOT NULL,
    -- SQLite's implicit rowid, made explicit under the same name: the insertion order that breaks
    -- ties between debates created in the same millisecond when listing newest first.
    rowid       BIGINT GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX debates_created_at ON debates (created_at DESC);

CREATE TABLE events (
    debate_id   TEXT NOT NULL REFERENCES debates (id),
    seq         BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    body        TEXT NOT NULL,
    PRIMARY KEY (debate_id, seq)
);

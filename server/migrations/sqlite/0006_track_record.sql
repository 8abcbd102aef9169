-- Issue 13 (CR-1): every agent's predictions (what it finally held in a finished debate, or an
-- imported one) and their outcomes, which arrive later. Both are append-only: a correction is a
-- new outcome (the latest one counts), never an edit.
CREATE TABLE predictions (
    id          TEXT PRIMARY KEY NOT NULL,
    identity    TEXT NOT NULL,
    -- The debate it was held in (a grouping key for imported records, which may name none).
    debate_id   TEXT,
    agent       TEXT NOT NULL,
    held        TEXT NOT NULL,
    confidence  REAL NOT NULL,
    -- A numeric claim ({"actual": x} outcomes are judged against it).
    claim       REAL,
    detail      TEXT,
    made_at     TEXT NOT NULL,
    regime      TEXT,
    sector      TEXT,
    metric      TEXT,
    horizon     TEXT,
    size        TEXT,
    stage       TEXT,
    -- 'debate', 'import' or 'sample' (the bundled sample history, shown as such).
    source      TEXT NOT NULL CHECK (source IN ('debate', 'import', 'sample'))
);
CREATE INDEX predictions_identity ON predictions (identity, made_at);
CREATE INDEX predictions_debate ON predictions (debate_id);
CREATE UNIQUE INDEX predictions_once_per_debate ON predictions (debate_id, agent)
    WHERE source = 'debate';

CREATE TABLE outcomes (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    prediction_id TEXT NOT NULL REFERENCES predictions (id),
    correct       INTEGER NOT NULL,
    actual        REAL,
    overridden    INTEGER NOT NULL,
    recorded_by   TEXT NOT NULL,
    recorded_at   TEXT NOT NULL,
    note          TEXT
);
CREATE INDEX outcomes_prediction ON outcomes (prediction_id, id);

CREATE TRIGGER predictions_no_update BEFORE UPDATE ON predictions
BEGIN SELECT RAISE(ABORT, 'the track record is append-only: a prediction cannot be changed'); END;
CREATE TRIGGER predictions_no_delete BEFORE DELETE ON predictions
BEGIN SELECT RAISE(ABORT, 'the track record is append-only: a prediction cannot be deleted'); END;
CREATE TRIGGER outcomes_no_update BEFORE UPDATE ON outcomes
BEGIN SELECT RAISE(ABORT, 'the track record is append-only: an outcome cannot be changed'); END;
CREATE TRIGGER outcomes_no_delete BEFORE DELETE ON outcomes
BEGIN SELECT RAISE(ABORT, 'the track record is append-only: an outcome cannot be deleted'); END;

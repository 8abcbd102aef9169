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
    confidence  DOUBLE PRECISION NOT NULL,
    -- A numeric claim ({"actual": x} outcomes are judged against it).
    claim       DOUBLE PRECISION,
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
    id            BIGSERIAL PRIMARY KEY,
    prediction_id TEXT NOT NULL REFERENCES predictions (id),
    correct       BOOLEAN NOT NULL,
    actual        DOUBLE PRECISION,
    overridden    BOOLEAN NOT NULL,
    recorded_by   TEXT NOT NULL,
    recorded_at   TEXT NOT NULL,
    note          TEXT
);
CREATE INDEX outcomes_prediction ON outcomes (prediction_id, id);

CREATE TRIGGER predictions_append_only BEFORE UPDATE OR DELETE ON predictions
    FOR EACH ROW EXECUTE FUNCTION consilium_append_only();
CREATE TRIGGER predictions_no_truncate BEFORE TRUNCATE ON predictions
    FOR EACH STATEMENT EXECUTE FUNCTION consilium_append_only();
CREATE TRIGGER outcomes_append_only BEFORE UPDATE OR DELETE ON outcomes
    FOR EACH ROW EXECUTE FUNCTION consilium_append_only();
CREATE TRIGGER outcomes_no_truncate BEFORE TRUNCATE ON outcomes
    FOR EACH STATEMENT EXECUTE FUNCTION consilium_append_only();

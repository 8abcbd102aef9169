-- ES-7: a log can end more than once — a gate review appends a ruling and a new decision to a
-- finished escalation pipeline — and each end is signed. Every signature is kept, by the seq it
-- covers; the latest is the log's. (Signatures written before this table stay in `signatures`.)
CREATE TABLE log_signatures (
    debate_id   TEXT NOT NULL REFERENCES debates (id),
    seq         BIGINT NOT NULL,
    body        TEXT NOT NULL,
    PRIMARY KEY (debate_id, seq)
);

CREATE TRIGGER log_signatures_append_only BEFORE UPDATE OR DELETE ON log_signatures
    FOR EACH ROW EXECUTE FUNCTION consilium_append_only();
CREATE TRIGGER log_signatures_no_truncate BEFORE TRUNCATE ON log_signatures
    FOR EACH STATEMENT EXECUTE FUNCTION consilium_append_only();

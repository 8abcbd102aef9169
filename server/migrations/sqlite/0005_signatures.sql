-- Issue 19: the server's Ed25519 signature over each ended log (app/src/audit/signature.rs).
CREATE TABLE signatures (
    debate_id   TEXT PRIMARY KEY NOT NULL REFERENCES debates (id),
    body        TEXT NOT NULL
);

-- The log is append-only: the database itself refuses to change or remove an event or a
-- signature (tampering then needs the file itself, and the signature catches that).
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: an event cannot be changed'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: an event cannot be deleted'); END;
CREATE TRIGGER signatures_no_update BEFORE UPDATE ON signatures
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: a signature cannot be changed'); END;
CREATE TRIGGER signatures_no_delete BEFORE DELETE ON signatures
BEGIN SELECT RAISE(ABORT, 'the event log is append-only: a signature cannot be deleted'); END;

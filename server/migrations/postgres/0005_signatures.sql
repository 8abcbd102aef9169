-- Issue 19: the server's Ed25519 signature over each ended log (app/src/audit/signature.rs).
CREATE TABLE signatures (
    debate_id   TEXT PRIMARY KEY NOT NULL REFERENCES debates (id),
    body        TEXT NOT NULL
);

-- The log is append-only: the database itself refuses to change, remove or truncate an event
-- or a signature.
CREATE FUNCTION consilium_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the event log is append-only: % on % refused', TG_OP, TG_TABLE_NAME;
END
$$;

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION consilium_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION consilium_append_only();
CREATE TRIGGER signatures_append_only BEFORE UPDATE OR DELETE ON signatures
    FOR EACH ROW EXECUTE FUNCTION consilium_append_only();
CREATE TRIGGER signatures_no_truncate BEFORE TRUNCATE ON signatures
    FOR EACH STATEMENT EXECUTE FUNCTION consilium_append_only();

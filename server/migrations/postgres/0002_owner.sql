-- Several server processes may share this database (SV-4).

-- The process running a debate: the random key of the advisory lock it holds for its lifetime.
-- On start, a process interrupts a running debate only when its owner's lock is free (dead).
ALTER TABLE debates ADD COLUMN owner BIGINT;

-- Live events across processes: every INSERT into the log notifies channel `consilium_events`
-- with the debate id (once per debate and statement). PostgreSQL delivers it on commit, so a
-- listener that wakes up and reads the log always finds the events.
CREATE FUNCTION consilium_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('consilium_events', d.debate_id)
       FROM (SELECT DISTINCT debate_id FROM appended) AS d;
    RETURN NULL;
END
$$;

CREATE TRIGGER events_notify
    AFTER INSERT ON events
    REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION consilium_notify_events();

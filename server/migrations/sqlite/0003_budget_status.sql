-- no-transaction
-- A debate cut short by its token budget ends with status 'budget_exhausted'. SQLite cannot alter a
-- CHECK constraint, so the table is rebuilt (https://sqlite.org/lang_altertable.html, "other
-- kinds of table schema changes"): foreign keys off, then one transaction.
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE debates_new (
    id          TEXT PRIMARY KEY NOT NULL,
    query       TEXT NOT NULL,
    protocol    TEXT NOT NULL,
    seed        INTEGER NOT NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted', 'budget_exhausted')),
    decision    TEXT,
    created_at  TEXT NOT NULL,
    owner       INTEGER
);
INSERT INTO debates_new (rowid, id, query, protocol, seed, status, decision, created_at, owner)
    SELECT rowid, id, query, protocol, seed, status, decision, created_at, owner FROM debates;
DROP TABLE debates;
ALTER TABLE debates_new RENAME TO debates;
CREATE INDEX debates_created_at ON debates (created_at DESC);
PRAGMA foreign_key_check;
COMMIT;
PRAGMA foreign_keys = ON;

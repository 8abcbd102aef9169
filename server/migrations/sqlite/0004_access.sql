-- SV-7: judges (and read-only viewers) who sign in, and their browser sessions. Only SHA-256
-- hashes of tokens and session ids are stored; a token is shown once, when it is made.
CREATE TABLE judges (
    name        TEXT PRIMARY KEY NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('judge', 'viewer')),
    token_hash  TEXT NOT NULL UNIQUE,
    created_at  TEXT NOT NULL
);

CREATE TABLE judge_sessions (
    id_hash     TEXT PRIMARY KEY NOT NULL,
    judge       TEXT NOT NULL REFERENCES judges (name) ON DELETE CASCADE,
    expires_at  TEXT NOT NULL
);

-- Tokens spent on remote backends per UTC day ('YYYY-MM-DD'), for the server-wide daily budget.
CREATE TABLE token_spend (
    day         TEXT PRIMARY KEY NOT NULL,
    tokens      INTEGER NOT NULL
);

-- The orphan sweep and recovery look for running debates only.
CREATE INDEX debates_running ON debates (status) WHERE status = 'running';

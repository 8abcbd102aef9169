-- The server process that runs a debate. Written by PostgreSQL deployments, where several processes
-- share one database (see migrations/postgres/0002); a SQLite file has one server, so it stays NULL.
ALTER TABLE debates ADD COLUMN owner INTEGER;

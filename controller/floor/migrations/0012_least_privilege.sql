-- Version 12: least privilege (docs/floor.md, "Database roles"). The ingest may read, INSERT
-- records and evidence, UPDATE only the chain head (floor_chain's head and anchor columns) and
-- floor_table's bookkeeping, and DELETE only floor_pending rows (a pending record is stored or
-- quarantined once its gap fills); it can neither rewrite nor delete a stored record nor any
-- evidence. The evidence tables (floor_quarantine, ingest_reject, floor_resolution) are
-- append-only for every role, the owner included, by triggers: only DDL (dropping the trigger,
-- which the owner's audit log shows) could change them. The reader role only reads.
-- `tablectl floor resolve` (the owner) is the one way a stored record leaves the store: to the
-- evidence, with a floor_resolution row saying so.

-- One row per `tablectl floor resolve`: what it removed and replayed. The quarantined records of
-- the table up to quarantine_through are settled by it (floor status no longer alerts on them;
-- they stay as evidence).
CREATE TABLE floor_resolution (
    id                  bigserial PRIMARY KEY,
    table_id            text NOT NULL,
    fork_seq            bigint NOT NULL,      -- the first stored record not signed by the table's key
    head_before         bigint,
    head_after          bigint,
    removed             integer NOT NULL,     -- stored records moved to floor_quarantine
    replayed            integer NOT NULL,     -- the table's signed records stored in their place
    quarantine_through  bigint NOT NULL,      -- floor_quarantine.id: the table's quarantine settled up to here
    resolved_by         text NOT NULL DEFAULT current_user,
    resolved_at         timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX floor_resolution_by_table ON floor_resolution (table_id, id);

-- The quarantined records no resolution has settled: what `floor status`, `reconcile` and the pit alert on.
CREATE VIEW floor_quarantine_open AS
    SELECT q.* FROM floor_quarantine q
    WHERE q.id > coalesce((SELECT max(r.quarantine_through) FROM floor_resolution r WHERE r.table_id = q.table_id), 0);

CREATE FUNCTION floor_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is evidence: append-only (% refused for %)', TG_TABLE_NAME, TG_OP, current_user
        USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER floor_quarantine_append_only BEFORE UPDATE OR DELETE ON floor_quarantine
    FOR EACH ROW EXECUTE FUNCTION floor_append_only();
CREATE TRIGGER floor_quarantine_no_truncate BEFORE TRUNCATE ON floor_quarantine
    FOR EACH STATEMENT EXECUTE FUNCTION floor_append_only();
CREATE TRIGGER ingest_reject_append_only BEFORE UPDATE OR DELETE ON ingest_reject
    FOR EACH ROW EXECUTE FUNCTION floor_append_only();
CREATE TRIGGER ingest_reject_no_truncate BEFORE TRUNCATE ON ingest_reject
    FOR EACH STATEMENT EXECUTE FUNCTION floor_append_only();
CREATE TRIGGER floor_resolution_append_only BEFORE UPDATE OR DELETE ON floor_resolution
    FOR EACH ROW EXECUTE FUNCTION floor_append_only();
CREATE TRIGGER floor_resolution_no_truncate BEFORE TRUNCATE ON floor_resolution
    FOR EACH STATEMENT EXECUTE FUNCTION floor_append_only();

-- The ingest: from every right on every table (0009) down to what it does.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM floor_ingest;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM floor_ingest;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO floor_ingest;
GRANT INSERT ON journal_event, round, round_seat, wager, card, meter, floor_record, floor_pending,
    floor_quarantine, ingest_reject, floor_table TO floor_ingest;
GRANT INSERT (table_id, head_seq, head_hash, anchor_seq, anchor_hash, registered_by) ON floor_chain TO floor_ingest;
GRANT UPDATE (head_seq, head_hash, anchor_seq, anchor_hash) ON floor_chain TO floor_ingest;
-- floor_table is the ingest's bookkeeping (last record, last round, and the heartbeat columns
-- of migration 0010): the whole row, whatever columns later migrations add.
GRANT UPDATE ON floor_table TO floor_ingest;
GRANT DELETE ON floor_pending TO floor_ingest;
GRANT USAGE ON SEQUENCE floor_pending_id_seq, floor_quarantine_id_seq, ingest_reject_id_seq TO floor_ingest;
REVOKE ALL ON floor_resolution FROM floor_ingest;
GRANT SELECT ON floor_resolution TO floor_ingest;

-- The reader: SELECT only, on everything (0009 gave it that; said again for the new table and view).
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM floor_reader;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM floor_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO floor_reader;
REVOKE ALL ON schema_migrations FROM floor_reader;
GRANT SELECT ON schema_migrations TO floor_reader;

-- Tables later migrations make: the ingest may read and add rows, nothing more, unless the
-- migration grants it (an UPDATE or DELETE right is always a migration's explicit line).
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON TABLES FROM floor_ingest;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE UPDATE ON SEQUENCES FROM floor_ingest;

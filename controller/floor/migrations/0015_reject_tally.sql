-- Version 15: rejects kept per table are bounded (docs/floor.md, "One table, one feed"). The
-- ingest keeps at most its --max-reject-rows rejected messages per table (the table the subject
-- names; '' for none) in ingest_reject, and only counts the rest here: one table's flood of bad
-- messages, sent with its own valid credential, cannot fill the store. ingest_reject stays
-- append-only evidence; the tally is the ingest's bookkeeping.

CREATE TABLE ingest_reject_tally (
    table_key        text PRIMARY KEY,               -- ingest_reject.table_id, '' for none
    kept             bigint NOT NULL DEFAULT 0,      -- rows in ingest_reject
    dropped          bigint NOT NULL DEFAULT 0,      -- rejects counted, not kept
    last_dropped_at  timestamptz
);
INSERT INTO ingest_reject_tally (table_key, kept)
    SELECT coalesce(table_id, ''), count(*) FROM ingest_reject GROUP BY 1;

GRANT SELECT, INSERT, UPDATE ON ingest_reject_tally TO floor_ingest;
GRANT SELECT ON ingest_reject_tally TO floor_reader;

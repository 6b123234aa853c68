-- Version 2: records that cannot be forged or displaced (docs/floor.md, "The chain").
-- Each table's stored records form the journal's hash chain: a record is stored only when it
-- follows the table's head; a record that does not, or a different record for a stored seq, goes
-- to floor_quarantine with the reason; records after a gap wait in floor_pending; messages that
-- cannot be read go to ingest_reject (now with the claimed table, the size and an excerpt).

-- One row per table the floor knows: where its stored chain ends.
CREATE TABLE floor_chain (
    table_id       text PRIMARY KEY,
    head_seq       bigint,                 -- the last record stored in chain order (null: none yet)
    head_hash      text,                   -- its hash (null with a head_seq: stored before version 2)
    anchor_seq     bigint,                 -- the record before the first one stored (0: the journal's start)
    anchor_hash    text,
    registered_by  text NOT NULL,          -- 'add-table', 'first record' or 'version 1 store'
    registered_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- Tables stored by a version 1 ingest: their next record is taken as following the stored head.
INSERT INTO floor_chain (table_id, head_seq, registered_by) SELECT table_id, last_seq, 'version 1 store' FROM floor_table;

-- One row per stored journal record: its place in the chain and the digest of its message.
CREATE TABLE floor_record (
    table_id     text NOT NULL,
    seq          bigint NOT NULL,
    prev         text NOT NULL,
    hash         text NOT NULL,
    mac          text NOT NULL,            -- sha256 or hmac-sha256
    verified     boolean,                  -- the hash recomputed over the content (null: could not be)
    body_sha256  text NOT NULL,            -- a redelivery of the same message has the same
    class        text NOT NULL,
    stored_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, seq)
);

-- Records that arrived before the one they follow: stored once the gap fills.
CREATE TABLE floor_pending (
    id           bigserial PRIMARY KEY,
    table_id     text NOT NULL,
    seq          bigint NOT NULL,
    subject      text NOT NULL,
    msg_id       text,
    payload      bytea NOT NULL,
    received_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX floor_pending_by_table ON floor_pending (table_id, seq);

-- Records never stored as the table's: they did not chain, or they differ from the stored record.
CREATE TABLE floor_quarantine (
    id         bigserial PRIMARY KEY,
    table_id   text NOT NULL,
    seq        bigint NOT NULL,
    subject    text NOT NULL,
    msg_id     text,
    reason     text NOT NULL,
    prev       text NOT NULL,
    hash       text NOT NULL,
    payload    bytea NOT NULL,
    stored_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX floor_quarantine_by_table ON floor_quarantine (table_id, stored_at);

ALTER TABLE ingest_reject ADD COLUMN table_id text;  -- the table the subject names (null: none)
ALTER TABLE ingest_reject ADD COLUMN size integer;   -- the message's size; payload keeps its first 4 KiB
ALTER TABLE ingest_reject ADD COLUMN excerpt text;   -- the start of the message as text
CREATE INDEX ingest_reject_by_table ON ingest_reject (table_id, stored_at);

-- A version 1 ingest took "at": "inf" on its word: a table seen at infinity made the pit view fail.
UPDATE floor_table t SET last_at = coalesce(
    (SELECT max(e.at) FROM journal_event e WHERE e.table_id = t.table_id AND isfinite(e.at)), t.first_at)
WHERE NOT isfinite(t.last_at);
UPDATE floor_table t SET first_at = coalesce(
    (SELECT min(e.at) FROM journal_event e WHERE e.table_id = t.table_id AND isfinite(e.at)), t.last_at)
WHERE NOT isfinite(t.first_at);

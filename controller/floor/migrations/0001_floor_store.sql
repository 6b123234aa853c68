-- The floor store, version 1: every table's rounds, events, faults, supervisor actions and
-- meters, as the tables' forwarders publish them (docs/floor.md). Every row is keyed by the
-- table id and the journal sequence number of the record it came from, so storing a message
-- twice changes nothing. Money is integer cents; times are the table's journal times.

CREATE TABLE floor_table (
    table_id    text PRIMARY KEY,
    game        text,
    config      text,                      -- the table config path the table runs under
    first_at    timestamptz NOT NULL,      -- the first record stored
    last_at     timestamptz NOT NULL,      -- the latest record stored
    last_seq    bigint NOT NULL,           -- the highest journal seq stored (records may arrive out of order)
    last_round  bigint                     -- the highest round number stored
);

-- One row per journal record that is not a round: device events, buttons, faults, supervisor actions.
CREATE TABLE journal_event (
    table_id   text NOT NULL,
    seq        bigint NOT NULL,
    at         timestamptz NOT NULL,
    at_epoch   double precision NOT NULL,  -- the journal's time exactly (seconds since 1970)
    kind       text NOT NULL,              -- the journal kind: CardDealt, SpotReport, ButtonChanged, LinkDown, ...
    class      text NOT NULL CHECK (class IN ('event', 'fault', 'supervisor')),
    data       jsonb NOT NULL,             -- as published: a CardDealt's card is null ("hidden": true)
    stored_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX journal_event_class ON journal_event (class, table_id, at) WHERE class <> 'event';

-- One row per finished round (the journal's RoundSettled record).
CREATE TABLE round (
    table_id    text NOT NULL,
    seq         bigint NOT NULL,           -- the RoundSettled record's journal seq
    round_no    bigint NOT NULL,
    game        text NOT NULL,
    config      text,
    started_at  timestamptz NOT NULL,
    ended_at    timestamptz NOT NULL,
    void        boolean NOT NULL,
    seats       integer NOT NULL,          -- seats in play
    handle      bigint NOT NULL,           -- cents wagered
    win         bigint NOT NULL,           -- the house's net, cents (0 for a void round)
    paid        bigint NOT NULL,
    collected   bigint NOT NULL,
    commission  bigint NOT NULL,
    late_bets   integer NOT NULL,
    faults      integer NOT NULL,
    first_seq   bigint NOT NULL,           -- the round's journal records: first_seq .. seq
    recall      jsonb NOT NULL,            -- the round exactly as `tablectl recall --json` writes it
    stored_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX round_by_number ON round (table_id, round_no);
CREATE INDEX round_by_end ON round (ended_at);

CREATE TABLE round_seat (
    table_id   text NOT NULL,
    seq        bigint NOT NULL,            -- the round's seq (round.seq)
    round_no   bigint NOT NULL,
    seat       integer NOT NULL,
    cards      text NOT NULL,              -- in dealt order, e.g. "As Kd"
    wagered    bigint NOT NULL,
    net        bigint,                     -- the player's net, cents (null for a void round)
    PRIMARY KEY (table_id, seq, seat)
);

CREATE TABLE wager (
    table_id    text NOT NULL,
    seq         bigint NOT NULL,
    round_no    bigint NOT NULL,
    seat        integer NOT NULL,
    spot        text NOT NULL,             -- ante, third, bonus, pai_gow, ...
    cents       bigint NOT NULL,
    result      text,                      -- win, lose, push, ... (null for a void round)
    net         bigint,                    -- the player's net on this wager
    commission  bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seq, seat, spot)
);

CREATE TABLE card (
    table_id   text NOT NULL,
    seq        bigint NOT NULL,
    round_no   bigint NOT NULL,
    idx        integer NOT NULL,           -- place in the deal
    card       text NOT NULL,              -- "As", "JK"
    dealt_to   text NOT NULL,              -- "seat 3", "community", "dealer", ...
    PRIMARY KEY (table_id, seq, idx)
);

-- Each round's meter contributions (controller.journal.meters.meters_for_round).
CREATE TABLE meter (
    table_id  text NOT NULL,
    seq       bigint NOT NULL,
    round_no  bigint NOT NULL,
    scope     text NOT NULL,               -- "table" or "seat N"
    name      text NOT NULL,               -- rounds, voids, wagered:SPOT, paid, collected, ...
    value     bigint NOT NULL,
    PRIMARY KEY (table_id, seq, scope, name)
);

CREATE VIEW meter_total AS
    SELECT table_id, scope, name, sum(value)::bigint AS value FROM meter GROUP BY table_id, scope, name;

-- Messages the ingest could not read: kept (never dropped) and acknowledged.
CREATE TABLE ingest_reject (
    id         bigserial PRIMARY KEY,
    subject    text NOT NULL,
    msg_id     text,
    payload    bytea NOT NULL,
    error      text NOT NULL,
    stored_at  timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Version 13: quarantines close without a fork (docs/floor.md, "Closing a quarantine"). A
-- `tablectl floor resolve` that finds no fork settles the table's quarantined records the store
-- already answers: a record refused because the table did not sign it (a forgery) where the
-- store holds the table's own record at that seq, and a copy of a stored record (a key
-- rotation's records signed with the old key, stored once resent with the new one). Its
-- floor_resolution row has no fork: fork_seq is null, `settled` counts the records closed. They
-- stay in floor_quarantine as evidence; floor_quarantine_open no longer shows them.

ALTER TABLE floor_resolution ALTER COLUMN fork_seq DROP NOT NULL;
ALTER TABLE floor_resolution ADD COLUMN settled integer NOT NULL DEFAULT 0;  -- quarantined records closed without a fork
ALTER TABLE floor_resolution ADD COLUMN note text;                            -- what was closed, in words

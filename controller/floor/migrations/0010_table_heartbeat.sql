-- Tables publish a heartbeat while idle or held (docs/floor.md): the pit tells a silent table from a quiet one,
-- and a held table stays held with its reason however long it holds.
ALTER TABLE floor_table ADD COLUMN heartbeat_at timestamptz;
ALTER TABLE floor_table ADD COLUMN heartbeat jsonb;

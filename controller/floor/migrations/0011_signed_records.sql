-- Version 11: records the floor verifies without holding a secret (docs/floor.md, "Signed
-- records"). A table registered with a public key (tablectl floor add-table --db) has every
-- record it publishes signed with its Ed25519 key; the floor keeps the public key and each
-- stored record's signature, so that `tablectl floor resolve` can tell the table's records
-- from anyone else's at any time.

ALTER TABLE floor_chain ADD COLUMN public_key text
    CHECK (public_key IS NULL OR public_key ~ '^[0-9a-f]{64}$');  -- Ed25519, 32 bytes in hex (null: none registered)
ALTER TABLE floor_chain ADD COLUMN key_registered_at timestamptz;  -- when public_key was last set
ALTER TABLE floor_record ADD COLUMN sig text;                        -- the table's signature (null: not signed)

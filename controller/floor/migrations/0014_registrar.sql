-- Version 14: table registration and `floor resolve` by a role of their own (docs/floor.md,
-- "Database roles"). floor_registrar reads the store, registers a table and its public key
-- (floor_chain: a new row, or its public key replaced) and writes floor_resolution rows (a
-- quarantine closed without a fork); it can neither UPDATE nor DELETE a stored round or record,
-- nor any evidence, and owns nothing. Removing a fork's stored records (`floor resolve` with a
-- fork) stays the owner's act, in its audit log.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'floor_registrar') THEN
        CREATE ROLE floor_registrar NOLOGIN;
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'the role floor_registrar is missing and % may not create it: '
        'create it first (docs/floor.md, "Database roles")', current_user;
END $$;

REVOKE ALL ON ALL TABLES IN SCHEMA public FROM floor_registrar;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM floor_registrar;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO floor_registrar;
GRANT INSERT (table_id, registered_by, public_key, key_registered_at) ON floor_chain TO floor_registrar;
GRANT UPDATE (public_key, key_registered_at) ON floor_chain TO floor_registrar;
GRANT INSERT ON floor_resolution TO floor_registrar;
GRANT USAGE ON SEQUENCE floor_resolution_id_seq TO floor_registrar;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO floor_registrar;

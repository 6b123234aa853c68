-- The floor store's roles (docs/floor.md, "Database roles"): whoever runs the migrations owns the
-- tables (floor_owner in production); floor_ingest writes the floor tables; floor_reader (reports,
-- the pit view) may only read them. The roles are made with their passwords by `tablectl floor
-- serve` or by hand (docs/floor.md); a database migrated without them gets them here, without
-- login. Default privileges give the two roles the same rights on every table a later migration
-- makes (their owner being the role that runs the migrations, as here).

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'floor_ingest') THEN
        CREATE ROLE floor_ingest NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'floor_reader') THEN
        CREATE ROLE floor_reader NOLOGIN;
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'the roles floor_ingest and floor_reader are missing and % may not create them: '
        'create them first (docs/floor.md, "Database roles")', current_user;
END $$;

REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO floor_ingest, floor_reader;

GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO floor_ingest;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO floor_ingest;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO floor_reader;
REVOKE ALL ON schema_migrations FROM floor_ingest;
GRANT SELECT ON schema_migrations TO floor_ingest;

ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO floor_ingest;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO floor_ingest;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO floor_reader;

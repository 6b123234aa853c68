-- The floor database's guard (docs/floor.md, "Database roles"), set up by the superuser in each
-- floor database (`tablectl floor serve` and the test fixtures at every start:
-- controller.floor.servers.LocalPostgres.guard; on a floor of your own: psql as the superuser).
-- Idempotent. It lets the migrator (floor_migrator) own and change the schema without the power
-- to change what is stored:
--
-- * every stored-record table (journal_event, round, round_seat, wager, card, meter,
--   floor_record) refuses UPDATE, DELETE and TRUNCATE by triggers calling a function the
--   superuser owns (floor_guard.stored_only), whoever asks, but the owner role (floor_owner,
--   audited: every statement it runs is in the server's log) and a superuser; a table of that
--   name gets the triggers when it is made;
-- * an event trigger refuses any DDL by another role that leaves a trigger on a stored-record or
--   evidence table (floor_quarantine, ingest_reject, floor_resolution) disabled, dropped or
--   calling a changed function, that rewrites such a table (ALTER COLUMN TYPE ... USING) or
--   drops it or one of its columns.
--
-- Only a superuser can make, change or drop an event trigger, or the floor_guard schema.

CREATE SCHEMA IF NOT EXISTS floor_guard AUTHORIZATION CURRENT_USER;
REVOKE ALL ON SCHEMA floor_guard FROM PUBLIC;
GRANT USAGE ON SCHEMA floor_guard TO PUBLIC;  -- the triggers' function is called as the writer

CREATE TABLE IF NOT EXISTS floor_guard.sealed (
    tbl     text NOT NULL,
    tgname  text NOT NULL,
    fn_md5  text NOT NULL,    -- md5 of the trigger function's source when sealed
    PRIMARY KEY (tbl, tgname)
);
REVOKE ALL ON floor_guard.sealed FROM PUBLIC;

CREATE OR REPLACE FUNCTION floor_guard.record_tables() RETURNS text[] LANGUAGE sql IMMUTABLE AS
$$ SELECT ARRAY['journal_event', 'round', 'round_seat', 'wager', 'card', 'meter', 'floor_record'] $$;

CREATE OR REPLACE FUNCTION floor_guard.guarded_tables() RETURNS text[] LANGUAGE sql IMMUTABLE AS
$$ SELECT floor_guard.record_tables() || ARRAY['floor_quarantine', 'ingest_reject', 'floor_resolution'] $$;

CREATE OR REPLACE FUNCTION floor_guard.exempt(who name) RETURNS boolean LANGUAGE sql STABLE AS
$$ SELECT who = 'floor_owner' OR coalesce((SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = who), false) $$;

CREATE OR REPLACE FUNCTION floor_guard.stored_only() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
    IF floor_guard.exempt(current_user) THEN
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END IF;
    RAISE EXCEPTION '% is a stored record: % refused for % (only the owner role removes one, in its audit log)',
        TG_TABLE_NAME, TG_OP, current_user USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE OR REPLACE FUNCTION floor_guard.arm() RETURNS void LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
DECLARE t text;
BEGIN
    -- the stored-record tables that exist get their triggers
    FOR t IN SELECT c.relname FROM pg_class c
             WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
               AND c.relname = ANY (floor_guard.record_tables())
               AND NOT EXISTS (SELECT FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'floor_stored_record')
               AND NOT EXISTS (SELECT FROM floor_guard.sealed s WHERE s.tbl = c.relname AND s.tgname = 'floor_stored_record')
    LOOP
        EXECUTE format('CREATE TRIGGER floor_stored_record BEFORE UPDATE OR DELETE ON public.%I '
                       'FOR EACH ROW EXECUTE FUNCTION floor_guard.stored_only()', t);
        EXECUTE format('CREATE TRIGGER floor_stored_no_truncate BEFORE TRUNCATE ON public.%I '
                       'FOR EACH STATEMENT EXECUTE FUNCTION floor_guard.stored_only()', t);
    END LOOP;
END $$;

CREATE OR REPLACE FUNCTION floor_guard.refuse(what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% refused for %: the stored records and the evidence are guarded '
        '(docs/floor.md, "Database roles"); only the owner role, in its audit log, may', what, session_user
        USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE OR REPLACE FUNCTION floor_guard.ddl_end() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog AS $$
DECLARE r record;
BEGIN
    IF current_setting('floor_guard.busy', true) = 'on' THEN
        RETURN;  -- the guard's own CREATE TRIGGER
    END IF;
    PERFORM set_config('floor_guard.busy', 'on', true);
    PERFORM floor_guard.arm();
    PERFORM set_config('floor_guard.busy', 'off', true);
    IF NOT floor_guard.exempt(session_user) THEN
        FOR r IN SELECT s.tbl, s.tgname, s.fn_md5, g.tgenabled, md5(p.prosrc) AS now_md5
                 FROM floor_guard.sealed s
                 LEFT JOIN pg_class c ON c.relname = s.tbl AND c.relnamespace = 'public'::regnamespace
                 LEFT JOIN pg_trigger g ON g.tgrelid = c.oid AND g.tgname = s.tgname
                 LEFT JOIN pg_proc p ON p.oid = g.tgfoid
        LOOP
            IF r.tgenabled IS NULL THEN
                PERFORM floor_guard.refuse(format('dropping trigger %s on %s', r.tgname, r.tbl));
            ELSIF r.tgenabled <> 'O' THEN
                PERFORM floor_guard.refuse(format('disabling trigger %s on %s', r.tgname, r.tbl));
            ELSIF r.now_md5 IS DISTINCT FROM r.fn_md5 THEN
                PERFORM floor_guard.refuse(format('changing the function of trigger %s on %s', r.tgname, r.tbl));
            END IF;
        END LOOP;
    END IF;
    -- seal every enabled trigger of a guarded table (a new one from a migration included)
    INSERT INTO floor_guard.sealed (tbl, tgname, fn_md5)
        SELECT c.relname, g.tgname, md5(p.prosrc) FROM pg_class c
        JOIN pg_trigger g ON g.tgrelid = c.oid AND NOT g.tgisinternal AND g.tgenabled = 'O'
        JOIN pg_proc p ON p.oid = g.tgfoid
        WHERE c.relnamespace = 'public'::regnamespace AND c.relname = ANY (floor_guard.guarded_tables())
    ON CONFLICT (tbl, tgname) DO UPDATE SET fn_md5 = EXCLUDED.fn_md5;
END $$;

CREATE OR REPLACE FUNCTION floor_guard.no_rewrite() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog AS $$
DECLARE t text;
BEGIN
    SELECT c.relname INTO t FROM pg_class c
        WHERE c.oid = pg_event_trigger_table_rewrite_oid() AND c.relnamespace = 'public'::regnamespace;
    IF t = ANY (floor_guard.guarded_tables()) AND NOT floor_guard.exempt(session_user) THEN
        PERFORM floor_guard.refuse(format('rewriting table %s', t));
    END IF;
END $$;

CREATE OR REPLACE FUNCTION floor_guard.no_drop() RETURNS event_trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog AS $$
DECLARE r record;
BEGIN
    IF floor_guard.exempt(session_user) THEN
        RETURN;
    END IF;
    FOR r IN SELECT * FROM pg_event_trigger_dropped_objects() LOOP
        IF r.object_type IN ('table', 'table column') AND r.schema_name = 'public'
           AND r.address_names[2] = ANY (floor_guard.guarded_tables()) THEN
            PERFORM floor_guard.refuse(format('dropping %s %s', r.object_type, r.object_identity));
        END IF;
    END LOOP;
END $$;

REVOKE ALL ON FUNCTION floor_guard.arm(), floor_guard.ddl_end(), floor_guard.no_rewrite(), floor_guard.no_drop()
    FROM PUBLIC;

DROP EVENT TRIGGER IF EXISTS floor_guard_ddl_end;
CREATE EVENT TRIGGER floor_guard_ddl_end ON ddl_command_end EXECUTE FUNCTION floor_guard.ddl_end();
DROP EVENT TRIGGER IF EXISTS floor_guard_no_rewrite;
CREATE EVENT TRIGGER floor_guard_no_rewrite ON table_rewrite EXECUTE FUNCTION floor_guard.no_rewrite();
DROP EVENT TRIGGER IF EXISTS floor_guard_no_drop;
CREATE EVENT TRIGGER floor_guard_no_drop ON sql_drop EXECUTE FUNCTION floor_guard.no_drop();

-- The migrator makes and owns the schema; the owner keeps its rights on what it makes (the
-- owner's acts are audited) and on what a database migrated by the owner holds (moved to the
-- migrator here, so it can change the schema on).
GRANT USAGE, CREATE ON SCHEMA public TO floor_migrator;
GRANT USAGE ON SCHEMA public TO floor_ingest, floor_reader, floor_registrar;
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT c.relname, c.relkind FROM pg_class c
             WHERE c.relnamespace = 'public'::regnamespace AND c.relowner = 'floor_owner'::regrole
               AND c.relkind IN ('r', 'p', 'v', 'S')
               -- a table's own sequences (serial columns) move with it
               AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                               AND d.deptype IN ('a', 'i') AND d.refclassid = 'pg_class'::regclass)
    LOOP
        EXECUTE format('ALTER %s public.%I OWNER TO floor_migrator',
                       CASE r.relkind WHEN 'v' THEN 'VIEW' WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END, r.relname);
    END LOOP;
    FOR r IN SELECT p.oid::regprocedure AS f FROM pg_proc p
             WHERE p.pronamespace = 'public'::regnamespace AND p.proowner = 'floor_owner'::regrole
    LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO floor_migrator', r.f);
    END LOOP;
END $$;
GRANT ALL ON ALL TABLES IN SCHEMA public TO floor_owner;
GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO floor_owner;
ALTER DEFAULT PRIVILEGES FOR ROLE floor_migrator IN SCHEMA public GRANT ALL ON TABLES TO floor_owner;
ALTER DEFAULT PRIVILEGES FOR ROLE floor_migrator IN SCHEMA public GRANT ALL ON SEQUENCES TO floor_owner;
SELECT floor_guard.arm();

-- name: roles
-- Roles as this database sees them. Roles are cluster-wide, but what a migration changes about
-- them (CREATE ROLE and its grants, GRANT role TO role) shows in the database that uses them; so
-- a snapshot lists the environment's roles plus every role this database depends on (owners,
-- ACL grantees, policy roles, default privileges: pg_shdepend), and of each role's memberships
-- only those among the listed roles. Installs running side by side in other databases of the
-- same cluster therefore cannot show up here, unless they alter the environment's roles.
-- Attributes, memberships ("*" marks ADMIN OPTION) and settings for all databases or this one.
-- The install role and the superuser are shown by their Supabase names (see Options.InstallRole).
-- Left out: the membership WITH ADMIN OPTION that the bootstrap superuser (oid 10) grants the
-- install role in each role it creates. PostgreSQL 16 grants it for CREATEROLE itself and
-- ledgercheck's guard on 15; it says who created the role, not what the migration granted, and
-- would make every role-creating migration differ from its own install on another version.
WITH db AS (
  SELECT oid FROM pg_database WHERE datname = current_database()
), listed AS (
  SELECT r.oid FROM pg_roles r
  WHERE r.rolname IN ('anon', 'authenticated', 'service_role', 'authenticator', {{adminRole}}, {{installRole}})
  UNION
  SELECT d.refobjid FROM pg_shdepend d, db
  WHERE d.refclassid = 'pg_authid'::regclass AND d.dbid = db.oid
  UNION
  SELECT s.setrole FROM pg_db_role_setting s, db WHERE s.setdatabase = db.oid
)
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT {{displayRole "r.rolname"}} AS name,
         r.rolsuper AS superuser,
         r.rolinherit AS inherit,
         r.rolcreaterole AS createrole,
         r.rolcreatedb AS createdb,
         r.rolcanlogin AS login,
         r.rolreplication AS replication,
         r.rolbypassrls AS bypassrls,
         r.rolconnlimit AS connection_limit,
         (SELECT json_agg(DISTINCT {{displayRole "g.rolname"}} || CASE WHEN m.admin_option THEN '*' ELSE '' END)
            FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
           WHERE m.member = r.oid AND m.roleid IN (SELECT oid FROM listed)
             AND NOT (m.grantor = 10 AND m.admin_option AND r.rolname = {{installRole}})) AS member_of,
         (SELECT json_agg(DISTINCT CASE WHEN s.setdatabase = 0 THEN '' ELSE 'database: ' END || c)
            FROM pg_db_role_setting s, unnest(s.setconfig) c
           WHERE s.setrole = r.oid
             AND s.setdatabase IN (0, (SELECT oid FROM db))) AS config
  FROM pg_roles r
  WHERE r.rolname !~ '^pg_' AND r.oid IN (SELECT oid FROM listed)
) x

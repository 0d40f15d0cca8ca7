-- name: roles
-- Roles as this database sees them. Roles are cluster-wide, but what a migration changes about
-- them (CREATE ROLE and its grants, GRANT role TO role) shows in the database that uses them; so
-- a snapshot lists the environment's roles plus every role this database depends on (owners,
-- ACL grantees, policy roles, default privileges: pg_shdepend), and of each role's memberships
-- only those among the listed roles. Installs running side by side in other databases of the
-- same cluster therefore cannot show up here, unless they alter the environment's roles.
-- Attributes, memberships ("*" marks ADMIN OPTION) and settings for all databases or this one.
-- A membership is one entry per role however many grantors granted it (PostgreSQL 16 keeps one
-- grant per grantor), with what any of its grants gives: ADMIN, INHERIT and SET. PostgreSQL 16
-- made INHERIT and SET options of each grant (inherit_option, set_option; to_jsonb reads them as
-- NULL on 15, which has no such columns); on 15 a member inherits when it is INHERIT itself and
-- may always SET ROLE. An entry says "(inherit false)", "(inherit true)" or "(set false)" only
-- where the grant differs from that, so the same GRANT reads the same on 15 and 17, and
-- GRANT r TO x WITH INHERIT FALSE on 17 is not mistaken for a plain grant.
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
         (SELECT json_agg({{displayRole "x.rolname"}} || CASE WHEN x.admin THEN '*' ELSE '' END
                  || CASE WHEN x.inherit = r.rolinherit AND x.set THEN '' ELSE
                       ' (' || concat_ws(', ', CASE WHEN x.inherit <> r.rolinherit THEN 'inherit ' || x.inherit END,
                                         CASE WHEN NOT x.set THEN 'set false' END) || ')' END)
            FROM (SELECT g.rolname, bool_or(m.admin_option) AS admin,
                         bool_or(coalesce((to_jsonb(m) ->> 'inherit_option')::boolean, r.rolinherit)) AS inherit,
                         bool_or(coalesce((to_jsonb(m) ->> 'set_option')::boolean, true)) AS set
                    FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                   WHERE m.member = r.oid AND m.roleid IN (SELECT oid FROM listed)
                     AND NOT (m.grantor = 10 AND m.admin_option AND r.rolname = {{installRole}})
                   GROUP BY g.rolname) x) AS member_of,
         (SELECT json_agg(DISTINCT CASE WHEN s.setdatabase = 0 THEN '' ELSE 'database: ' END || c)
            FROM pg_db_role_setting s, unnest(s.setconfig) c
           WHERE s.setrole = r.oid
             AND s.setdatabase IN (0, (SELECT oid FROM db))) AS config
  FROM pg_roles r
  WHERE r.rolname !~ '^pg_' AND r.oid IN (SELECT oid FROM listed)
) x

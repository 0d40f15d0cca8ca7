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
  SELECT oid FROM pg_database WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database()
), listed AS (
  SELECT r.oid FROM pg_roles r
  WHERE r.rolname OPERATOR(pg_catalog.=) ANY (ARRAY['anon', 'authenticated', 'service_role', 'authenticator', {{adminRole}}, {{installRole}}]::pg_catalog.name[])
  UNION
  SELECT d.refobjid FROM pg_shdepend d, db
  WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_authid'::pg_catalog.regclass AND d.dbid OPERATOR(pg_catalog.=) db.oid
  UNION
  SELECT s.setrole FROM pg_db_role_setting s, db WHERE s.setdatabase OPERATOR(pg_catalog.=) db.oid
)
SELECT coalesce(pg_catalog.json_agg(x), '[]') FROM (
  SELECT {{displayRole "r.rolname"}} AS name,
         r.rolsuper AS superuser,
         r.rolinherit AS inherit,
         r.rolcreaterole AS createrole,
         r.rolcreatedb AS createdb,
         r.rolcanlogin AS login,
         r.rolreplication AS replication,
         r.rolbypassrls AS bypassrls,
         r.rolconnlimit AS connection_limit,
         (SELECT pg_catalog.json_agg({{displayRole "x.rolname"}} OPERATOR(pg_catalog.||) CASE WHEN x.admin THEN '*' ELSE '' END
                  OPERATOR(pg_catalog.||) CASE WHEN x.inherit OPERATOR(pg_catalog.=) r.rolinherit AND x.set THEN '' ELSE
                       ' (' OPERATOR(pg_catalog.||) pg_catalog.concat_ws(', ', CASE WHEN x.inherit OPERATOR(pg_catalog.<>) r.rolinherit THEN 'inherit ' OPERATOR(pg_catalog.||) x.inherit END,
                                         CASE WHEN NOT x.set THEN 'set false' END) OPERATOR(pg_catalog.||) ')' END)
            FROM (SELECT g.rolname, pg_catalog.bool_or(m.admin_option) AS admin,
                         pg_catalog.bool_or(coalesce((pg_catalog.to_jsonb(m) OPERATOR(pg_catalog.->>) 'inherit_option')::pg_catalog.bool, r.rolinherit)) AS inherit,
                         pg_catalog.bool_or(coalesce((pg_catalog.to_jsonb(m) OPERATOR(pg_catalog.->>) 'set_option')::pg_catalog.bool, true)) AS set
                    FROM pg_auth_members m JOIN pg_roles g ON g.oid OPERATOR(pg_catalog.=) m.roleid
                   WHERE m.member OPERATOR(pg_catalog.=) r.oid AND m.roleid OPERATOR(pg_catalog.=) ANY (SELECT oid FROM listed)
                     AND NOT (m.grantor OPERATOR(pg_catalog.=) 10 AND m.admin_option AND r.rolname OPERATOR(pg_catalog.=) {{installRole}})
                   GROUP BY g.rolname) x) AS member_of,
         (SELECT pg_catalog.json_agg(DISTINCT CASE WHEN s.setdatabase OPERATOR(pg_catalog.=) 0 THEN '' ELSE 'database: ' END OPERATOR(pg_catalog.||) c)
            FROM pg_db_role_setting s, pg_catalog.unnest(s.setconfig) c
           WHERE s.setrole OPERATOR(pg_catalog.=) r.oid
             AND s.setdatabase OPERATOR(pg_catalog.=) ANY (ARRAY[0, (SELECT oid FROM db)]::pg_catalog.oid[])) AS config
  FROM pg_roles r
  WHERE r.rolname OPERATOR(pg_catalog.!~) '^pg_' AND r.oid OPERATOR(pg_catalog.=) ANY (SELECT oid FROM listed)
) x

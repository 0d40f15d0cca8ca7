-- name: roles
-- Roles (cluster-wide, but part of what a migration can change: CREATE ROLE, GRANT role TO
-- role), PostgreSQL's own pg_* roles aside: attributes, memberships ("*" marks ADMIN OPTION) and
-- settings for all databases or this one.
SELECT coalesce(json_agg(x), '[]') FROM (
  SELECT r.rolname AS name,
         r.rolsuper AS superuser,
         r.rolinherit AS inherit,
         r.rolcreaterole AS createrole,
         r.rolcreatedb AS createdb,
         r.rolcanlogin AS login,
         r.rolreplication AS replication,
         r.rolbypassrls AS bypassrls,
         r.rolconnlimit AS connection_limit,
         (SELECT json_agg(DISTINCT g.rolname || CASE WHEN m.admin_option THEN '*' ELSE '' END)
            FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
           WHERE m.member = r.oid) AS member_of,
         (SELECT json_agg(DISTINCT CASE WHEN s.setdatabase = 0 THEN '' ELSE 'database: ' END || c)
            FROM pg_db_role_setting s, unnest(s.setconfig) c
           WHERE s.setrole = r.oid
             AND s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))) AS config
  FROM pg_roles r
  WHERE r.rolname !~ '^pg_'
) x

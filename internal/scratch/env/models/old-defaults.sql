-- The old default privileges on public: what self-hosted projects, and hosted projects created
-- before the 2026 platform change, still have (supabase/postgres, OB §4.5: Supabase's initial
-- schema runs ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES / FUNCTIONS /
-- SEQUENCES TO postgres, anon, authenticated, service_role, as postgres, and the same FOR USER
-- supabase_admin; changelog #45329 lists self-hosted as not affected). Applied as a superuser
-- after the environment (env/*.sql), before the prerequisites, in the templates of the audit's
-- second privilege model only. :"install_role" and :"admin_role" as in env/10_database.sql.
ALTER DEFAULT PRIVILEGES FOR ROLE :"install_role" IN SCHEMA public
  GRANT ALL ON TABLES TO :"install_role", anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES FOR ROLE :"install_role" IN SCHEMA public
  GRANT ALL ON SEQUENCES TO :"install_role", anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES FOR ROLE :"install_role" IN SCHEMA public
  GRANT ALL ON FUNCTIONS TO :"install_role", anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES FOR ROLE :"admin_role" IN SCHEMA public
  GRANT ALL ON TABLES TO :"install_role", anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES FOR ROLE :"admin_role" IN SCHEMA public
  GRANT ALL ON SEQUENCES TO :"install_role", anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES FOR ROLE :"admin_role" IN SCHEMA public
  GRANT ALL ON FUNCTIONS TO :"install_role", anon, authenticated, service_role;

-- public_brain_stats(): counts a public dashboard shows to visitors.
--
-- The function reads only aggregate numbers, and the project wants every API caller, signed in
-- or not, to reach it. So EXECUTE goes to anon and authenticated; PUBLIC's default EXECUTE then
-- opens nothing more. The grants to the API roles are this file's reviewed intent: the line
-- suppressions below say so.

create or replace function public.public_brain_stats()
returns table (thought_count bigint, newest timestamptz)
language sql
stable
set search_path = public, pg_temp
as $$
  select count(*)::bigint, max(t.created_at) from public.thoughts t
$$;

-- ledgercheck:ignore grant-to-api-role the dashboard's visitors call this through the API; it returns two aggregate numbers
grant execute on function public.public_brain_stats() to anon, authenticated;
grant execute on function public.public_brain_stats() to service_role;

notify pgrst, 'reload schema';

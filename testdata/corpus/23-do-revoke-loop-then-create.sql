-- Daily digest text: digest_for_day() renders one day's thoughts as markdown for the morning
-- email. Written the way the decision ledger handles its RPC: a DO block over every overload of
-- the name first, then a plain CREATE FUNCTION.
--
-- Prerequisites: core capture path.

begin;

-- every version of the function is private to the backend
do $$
declare
  f regprocedure;
begin
  for f in
    select p.oid::regprocedure
    from pg_proc p
    join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' and p.proname = 'digest_for_day'
  loop
    execute format('revoke all on function %s from public, anon, authenticated', f);
  end loop;
end
$$;

create function public.digest_for_day(p_day date default current_date)
returns text
language sql
stable
set search_path = public
as $$
  select coalesce(
    string_agg('- ' || replace(t.content, e'\n', ' '), e'\n' order by t.created_at),
    '_nothing captured_')
  from public.thoughts t
  where t.created_at >= p_day
    and t.created_at < p_day + 1;
$$;

revoke all on function public.digest_for_day(date) from public, anon, authenticated;
grant execute on function public.digest_for_day(date) to service_role;

notify pgrst, 'reload schema';

commit;

-- reading list: links and papers you mean to read, optionally tied to the thought that mentioned them.
-- schemas/reading-list (prereq: core capture path). identity id, one table, one rpc.

create table if not exists public.reading_list (
  id                bigint generated always as identity primary key,
  url               text not null,
  title             text,
  source_thought_id uuid references public.thoughts (id) on delete set null,
  status            text not null default 'queued'
                    check (status in ('queued', 'reading', 'done', 'dropped')),
  priority          smallint not null default 3 check (priority between 1 and 5),
  added_at          timestamptz not null default now(),
  finished_at       timestamptz,
  notes             text
);

create unique index if not exists reading_list_url_key on public.reading_list (lower(url));
create index if not exists reading_list_status_idx on public.reading_list (status, priority, added_at);

alter table public.reading_list enable row level security;

-- same shape as the policy on thoughts: keyed on the JWT role claim
drop policy if exists "Service role full access" on public.reading_list;
create policy "Service role full access" on public.reading_list
  for all
  using (auth.role() = 'service_role')
  with check (auth.role() = 'service_role');

grant select, insert, update, delete on table public.reading_list to service_role;

-- what to read next: priority 1 first, oldest first within a priority
create or replace function public.reading_list_next(p_limit int default 5)
returns setof public.reading_list
language sql
stable
set search_path = public
as $$
  select *
  from public.reading_list
  where status in ('queued', 'reading')
  order by priority asc, added_at asc
  limit greatest(coalesce(p_limit, 5), 1);
$$;

revoke execute on function public.reading_list_next(int) from public, anon, authenticated;
grant execute on function public.reading_list_next(int) to service_role;

notify pgrst, 'reload schema';

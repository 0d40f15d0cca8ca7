-- fuzzy people lookup: trigram search over display names and aliases, so "priya s" finds
-- "Priya Sharma" even with a typo. (pg_trgm)

create extension if not exists pgcrypto;
create extension if not exists pg_trgm;

create table if not exists public.contact_names (
  id         uuid primary key default gen_random_uuid(),
  name       text not null,
  thought_id uuid references public.thoughts (id) on delete cascade,
  created_at timestamptz not null default now()
);

create index if not exists contact_names_trgm_idx on public.contact_names using gin (name gin_trgm_ops);

alter table public.contact_names enable row level security;

drop policy if exists contact_names_service_role_all on public.contact_names;
create policy contact_names_service_role_all on public.contact_names
  for all to service_role using (true) with check (true);

grant select, insert, update, delete on public.contact_names to service_role;

create or replace function public.find_contact(p_name text, p_limit int default 5)
returns table (id uuid, name text, score real)
language sql
stable
set search_path = public
as $$
  select c.id, c.name, similarity(c.name, p_name) as score
  from public.contact_names c
  where c.name % p_name
  order by score desc
  limit p_limit;
$$;

revoke all on function public.find_contact(text, int) from public, anon, authenticated;
grant execute on function public.find_contact(text, int) to service_role;

notify pgrst, 'reload schema';

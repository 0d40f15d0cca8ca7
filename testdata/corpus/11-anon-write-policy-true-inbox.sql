-- Capture inbox: a "send me a thought" form on a personal site posts straight into an inbox table
-- with the anon key; a nightly job promotes accepted items into thoughts through upsert_thought.
-- The widget can also retract what it just sent (by id, which it keeps in localStorage).

create table if not exists public.capture_inbox (
  id           uuid primary key default gen_random_uuid(),
  body         text not null check (length(body) between 1 and 4000),
  sender_hint  text,
  received_at  timestamptz not null default now(),
  promoted_at  timestamptz,
  thought_id   uuid references public.thoughts (id) on delete set null
);

alter table public.capture_inbox enable row level security;

drop policy if exists capture_inbox_service_role_all on public.capture_inbox;
create policy capture_inbox_service_role_all on public.capture_inbox
  for all to service_role using (true) with check (true);

drop policy if exists capture_inbox_anon_insert on public.capture_inbox;
create policy capture_inbox_anon_insert on public.capture_inbox
  for insert to anon with check (true);

drop policy if exists capture_inbox_anon_retract on public.capture_inbox;
create policy capture_inbox_anon_retract on public.capture_inbox
  for delete to anon using (true);

grant select, insert, update, delete on public.capture_inbox to service_role;
grant insert, delete on public.capture_inbox to anon;

notify pgrst, 'reload schema';

-- thought pins: mark a handful of thoughts as "always include in context"
-- schemas/thought-pins -- needs the core capture path

begin;

create table if not exists public.thought_pins (
  thought_id uuid primary key references public.thoughts (id) on delete cascade,
  reason     text,
  pinned_by  text not null default 'user',
  pinned_at  timestamptz not null default now()
);

drop policy if exists thought_pins_service_role_all on public.thought_pins;
create policy thought_pins_service_role_all on public.thought_pins
  for all to service_role using (true) with check (true);

grant select, insert, update, delete on public.thought_pins to service_role;

notify pgrst, 'reload schema';

commit;

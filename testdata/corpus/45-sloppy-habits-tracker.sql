-- habits tracker for open brain
-- habits + daily check-ins, streaks computed by a function

create type public.habit_cadence as enum ('daily', 'weekdays', 'weekly');

create table public.habits (
  id serial primary key,
  name text not null,
  cadence public.habit_cadence not null default 'daily',
  started_on date not null default current_date,
  archived boolean not null default false
);

create table public.habit_checkins (
  id serial primary key,
  habit_id int not null references public.habits(id),
  day date not null default current_date,
  note text,
  thought_id uuid references public.thoughts(id)
);

create index on public.habit_checkins (habit_id, day);

alter table public.habit_checkins add column mood smallint;
alter table public.habit_checkins add constraint habit_checkins_one_per_day unique (habit_id, day);

alter table public.habits enable row level security;
alter table public.habit_checkins enable row level security;

create policy "service role" on public.habits for all to service_role using (true);
create policy "service role" on public.habit_checkins for all to service_role using (true);

grant all on all tables in schema public to service_role;

create function public.habit_streak(p_habit_id int)
returns int
language sql
stable
as $$
  with days as (
    select day, day - (row_number() over (order by day))::int as grp
    from public.habit_checkins
    where habit_id = p_habit_id
  )
  select coalesce(max(cnt), 0)::int
  from (select grp, count(*) as cnt from days group by grp
        having max(day) >= current_date - 1) s;
$$;

grant execute on function public.habit_streak(int) to service_role;

create function public.habit_checkin_stamp() returns trigger language plpgsql as $$
begin
  if new.note is null then
    new.note := '';
  end if;
  return new;
end $$;

create trigger habit_checkin_stamp before insert on public.habit_checkins
  for each row execute function public.habit_checkin_stamp();

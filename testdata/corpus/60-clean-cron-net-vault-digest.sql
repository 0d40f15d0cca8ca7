-- Daily digest: every morning at 07:00 UTC, POST yesterday's thought count to the
-- `daily-digest` Edge Function, which mails it. pg_cron schedules the call, pg_net sends it,
-- and the project URL and service key come from Vault, stored once by hand:
--   select vault.create_secret('https://<ref>.supabase.co', 'ob1_project_url');
--   select vault.create_secret('<service role key>', 'ob1_service_key');
--
-- Requires: core capture path; pg_cron and pg_net (Database > Extensions).
-- Rerunnable: the job is unscheduled when it exists, then scheduled again by name.

create extension if not exists pg_cron with schema pg_catalog;
create extension if not exists pg_net with schema extensions;

create table if not exists public.digest_runs (
  id            bigint generated always as identity primary key,
  request_id    bigint,
  thought_count integer not null,
  sent_at       timestamptz not null default now()
);

alter table public.digest_runs enable row level security;

drop policy if exists digest_runs_service_role on public.digest_runs;
create policy digest_runs_service_role on public.digest_runs
  for all to service_role using (true) with check (true);

grant select, insert, update, delete on public.digest_runs to service_role;

-- Definer: the job runs as postgres, but service_role may also trigger a digest by hand, and
-- only the owner reads the Vault secrets.
create or replace function public.send_daily_digest()
returns bigint
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_url     text;
  v_key     text;
  v_count   integer;
  v_request bigint;
begin
  select decrypted_secret into v_url from vault.decrypted_secrets where name = 'ob1_project_url';
  select decrypted_secret into v_key from vault.decrypted_secrets where name = 'ob1_service_key';
  if v_url is null or v_key is null then
    raise notice 'daily digest: store ob1_project_url and ob1_service_key in Vault first';
    return null;
  end if;

  select count(*) into v_count
  from public.thoughts
  where created_at >= current_date - 1 and created_at < current_date;

  select net.http_post(
    url                  := v_url || '/functions/v1/daily-digest',
    body                 := jsonb_build_object('day', (current_date - 1)::text, 'thoughts', v_count),
    headers              := jsonb_build_object('Content-Type', 'application/json',
                                               'Authorization', 'Bearer ' || v_key),
    timeout_milliseconds := 10000
  ) into v_request;

  insert into public.digest_runs (request_id, thought_count) values (v_request, v_count);
  return v_request;
end;
$$;

revoke all on function public.send_daily_digest() from public, anon, authenticated;
grant execute on function public.send_daily_digest() to service_role;

select cron.unschedule(jobid) from cron.job where jobname = 'ob1-daily-digest';

select cron.schedule('ob1-daily-digest', '0 7 * * *', $$select public.send_daily_digest()$$);

notify pgrst, 'reload schema';

-- morning digest: every day at 07:00 post yesterday's thoughts to a Slack incoming webhook
-- needs pg_cron + pg_net enabled

create table if not exists public.digest_settings (
  id int primary key default 1 check (id = 1),
  webhook_url text not null,
  enabled boolean not null default true
);

alter table public.digest_settings enable row level security;
drop policy if exists digest_settings_service_role_all on public.digest_settings;
create policy digest_settings_service_role_all on public.digest_settings
  for all to service_role using (true) with check (true);
grant select, insert, update, delete on public.digest_settings to service_role;

create or replace function public.post_morning_digest()
returns bigint
language plpgsql
as $$
declare
  v_url text;
  v_text text;
begin
  select webhook_url into v_url from public.digest_settings where enabled;
  if v_url is null then
    return null;
  end if;

  select coalesce(string_agg('• ' || left(content, 200), e'\n' order by created_at), 'No thoughts yesterday.')
    into v_text
  from public.thoughts
  where created_at >= current_date - 1 and created_at < current_date;

  return net.http_post(url := v_url, body := jsonb_build_object('text', v_text));
end;
$$;

grant execute on function public.post_morning_digest() to service_role;

select cron.schedule('0 7 * * *', 'select public.post_morning_digest()');

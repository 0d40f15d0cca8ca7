-- Workspace members: who is in which agent-memory workspace, with their email, for the
-- "shared with" chips in the review app. Membership rows are written by the backend.
--
-- Requires: schemas/agent-memory, Supabase Auth (auth.users).

begin;

create table if not exists public.workspace_members (
  workspace_id text not null,
  user_id      uuid not null references auth.users (id) on delete cascade,
  role         text not null default 'member' check (role in ('owner', 'member', 'viewer')),
  added_at     timestamptz not null default now(),
  primary key (workspace_id, user_id)
);

alter table public.workspace_members enable row level security;

drop policy if exists workspace_members_service_role_all on public.workspace_members;
create policy workspace_members_service_role_all on public.workspace_members
  for all to service_role using (true) with check (true);

grant select, insert, update, delete on public.workspace_members to service_role;

-- members with their email and last sign-in, for the app
create or replace view public.workspace_member_directory as
select wm.workspace_id,
       wm.user_id,
       wm.role,
       u.email,
       u.raw_user_meta_data ->> 'full_name' as full_name,
       u.last_sign_in_at
from public.workspace_members wm
join auth.users u on u.id = wm.user_id;

grant select on public.workspace_member_directory to authenticated;

notify pgrst, 'reload schema';

commit;

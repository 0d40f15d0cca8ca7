-- ============================================================================
-- Open Brain: core capture path, as one repeatable file
-- (for staging / CLI deploys; mirrors getting-started steps 2.1 to 2.7)
-- ============================================================================
-- Creates public.thoughts with its indexes, the updated_at trigger, the
-- fingerprint-dedup upsert_thought RPC, match_thoughts, RLS and grants.
-- Re-runnable: everything is IF NOT EXISTS / OR REPLACE / drop-then-create.
-- Embedding model: text-embedding-3-small (1536 dims).
-- ============================================================================

-- 2.1  pgvector (Supabase: lives in schema extensions)
create extension if not exists vector with schema extensions;
create extension if not exists pgcrypto with schema extensions;

-- 2.2  the table
create table if not exists public.thoughts (
  id          uuid primary key default gen_random_uuid(),
  content     text not null,
  embedding   vector(1536),
  metadata    jsonb default '{}'::jsonb,
  created_at  timestamptz default now(),
  updated_at  timestamptz default now()
);

-- 2.3  indexes
create index if not exists thoughts_embedding_hnsw_idx on public.thoughts using hnsw (embedding vector_cosine_ops);
create index if not exists thoughts_metadata_gin_idx on public.thoughts using gin (metadata);
create index if not exists thoughts_created_at_desc_idx on public.thoughts (created_at desc);

-- 2.4  updated_at
create or replace function public.update_updated_at()
returns trigger
language plpgsql
as $$
begin
  new.updated_at = now();
  return new;
end;
$$;

drop trigger if exists thoughts_updated_at on public.thoughts;
create trigger thoughts_updated_at
  before update on public.thoughts
  for each row execute function public.update_updated_at();

-- 2.5  RLS: service role only (keyed on the JWT role claim)
alter table public.thoughts enable row level security;

drop policy if exists "Service role full access" on public.thoughts;
create policy "Service role full access" on public.thoughts
  for all
  using (auth.role() = 'service_role')
  with check (auth.role() = 'service_role');

grant select, insert, update, delete on table public.thoughts to service_role;

-- 2.6  content fingerprint + dedup upsert
alter table public.thoughts add column if not exists content_fingerprint text;

create unique index if not exists idx_thoughts_fingerprint
  on public.thoughts (content_fingerprint)
  where content_fingerprint is not null;

create or replace function public.upsert_thought(p_content text, p_payload jsonb default '{}')
returns jsonb
language plpgsql
as $$
declare
  v_fp  text := encode(sha256(convert_to(lower(trim(regexp_replace(p_content, '\s+', ' ', 'g'))), 'UTF8')), 'hex');
  v_md  jsonb := coalesce(p_payload -> 'metadata', '{}'::jsonb);
  v_id  uuid;
begin
  insert into public.thoughts as t (content, content_fingerprint, metadata)
  values (p_content, v_fp, v_md)
  on conflict (content_fingerprint) where content_fingerprint is not null
  do update set updated_at = now(),
                metadata   = coalesce(t.metadata, '{}'::jsonb) || excluded.metadata
  returning t.id into v_id;

  return jsonb_build_object('id', v_id, 'fingerprint', v_fp);
end;
$$;

-- 2.7  semantic search
create or replace function public.match_thoughts(
  query_embedding vector(1536),
  match_threshold float default 0.7,
  match_count     int default 10,
  filter          jsonb default '{}'
)
returns table (id uuid, content text, metadata jsonb, similarity float, created_at timestamptz)
language plpgsql
as $$
begin
  return query
  select t.id, t.content, t.metadata, 1 - (t.embedding <=> query_embedding) as similarity, t.created_at
  from public.thoughts t
  where 1 - (t.embedding <=> query_embedding) > match_threshold
    and (filter = '{}'::jsonb or t.metadata @> filter)
  order by t.embedding <=> query_embedding
  limit match_count;
end;
$$;

grant execute on function public.upsert_thought(text, jsonb) to service_role;
grant execute on function public.match_thoughts(vector, float, int, jsonb) to service_role;

notify pgrst, 'reload schema';

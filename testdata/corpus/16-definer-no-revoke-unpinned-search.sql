-- public search widget: lets the personal site search thoughts tagged metadata.public = true
-- without exposing the thoughts table. security definer so anon does not need table access.

create or replace function public.search_public_thoughts(q text, max_rows int default 20)
returns table (id uuid, content text, created_at timestamptz)
language sql
stable
security definer
as $$
  select t.id, t.content, t.created_at
  from thoughts t
  where (t.metadata ->> 'public')::boolean is true
    and t.content ilike '%' || q || '%'
  order by t.created_at desc
  limit least(max_rows, 100);
$$;

notify pgrst, 'reload schema';

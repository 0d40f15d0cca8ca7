-- reading time on thoughts, v2. v1 computed it in a view; v2 stores it.
-- wrapped in a DO block so it can be pasted into the SQL editor next to other snippets.

do $$
begin
  execute 'alter table public.thoughts add column if not exists reading_minutes integer';
  execute 'comment on column public.thoughts.reading_minutes is '
       || '''Estimated reading time, 230 words per minute, rounded up.''';
end
$$;

notify pgrst, 'reload schema';

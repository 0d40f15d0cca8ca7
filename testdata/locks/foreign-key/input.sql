-- Bookmarks on agent memories: a new table whose foreign key references agent_memories. Adding
-- the key takes SHARE ROW EXCLUSIVE on the referenced table, which existed before the file.
SET lock_timeout = '3s';
CREATE TABLE IF NOT EXISTS public.memory_bookmarks (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  memory_id  uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  label      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_memory_bookmarks_memory ON public.memory_bookmarks (memory_id);
ALTER TABLE public.memory_bookmarks ENABLE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.memory_bookmarks TO service_role;

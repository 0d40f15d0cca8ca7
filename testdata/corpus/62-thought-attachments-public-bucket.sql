-- thought-attachments: files attached to thoughts, stored in Supabase Storage.
-- The bucket is created here so the capture app can upload straight away; "public" so that the
-- dashboard can show images without signing URLs.

CREATE TABLE IF NOT EXISTS public.thought_attachments (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thought_id  uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  object_path text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO storage.buckets (id, name, public)
VALUES ('thought-attachments', 'thought-attachments', true)
ON CONFLICT (id) DO UPDATE SET public = EXCLUDED.public;

ALTER TABLE public.thought_attachments ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS "Service role full access" ON public.thought_attachments;
CREATE POLICY "Service role full access" ON public.thought_attachments
  FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.thought_attachments TO service_role;

NOTIFY pgrst, 'reload schema';

-- ==========================================================================================
-- Meeting notes for Open Brain
-- schemas/meeting-notes/schema.sql
-- ==========================================================================================
--
-- Meetings as first-class records next to thoughts: a meeting row (title, when, where), who
-- attended, and the action items that came out of it. Notes themselves are still thoughts
-- (captured through upsert_thought with metadata.meeting_id); this schema holds the structure
-- around them, so "what did we decide in the Tuesday sync" and "what do I still owe Priya"
-- become queries instead of searches.
--
-- Objects:
--   public.meetings                 one row per meeting
--   public.meeting_attendees        who was there (free-text names, optional email)
--   public.meeting_action_items     owner, due date, status; optionally linked to a thought
--   public.meeting_open_actions()   open action items for one owner, oldest due first
--   public.meeting_close_action()   mark an action item done, with a note
--   public.meeting_thoughts()       the thoughts captured for a meeting
--   public.meeting_summary          security_invoker view: counts per meeting
--
-- Prerequisites: Open Brain core capture path (public.thoughts, public.upsert_thought).
-- Safe to run more than once.

BEGIN;

DO $preflight$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM information_schema.tables
    WHERE table_schema = 'public' AND table_name = 'thoughts'
  ) THEN
    RAISE EXCEPTION 'meeting-notes needs public.thoughts: run the getting-started guide first';
  END IF;
END
$preflight$;

-- ------------------------------------------------------------------------------------------
-- Tables
-- ------------------------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS public.meetings (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  title        text NOT NULL,
  starts_at    timestamptz NOT NULL,
  ends_at      timestamptz,
  location     text,
  series       text,
  metadata     jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  CHECK (ends_at IS NULL OR ends_at >= starts_at)
);

CREATE INDEX IF NOT EXISTS idx_meetings_starts_at ON public.meetings (starts_at DESC);
CREATE INDEX IF NOT EXISTS idx_meetings_series ON public.meetings (series, starts_at DESC)
  WHERE series IS NOT NULL;

CREATE TABLE IF NOT EXISTS public.meeting_attendees (
  meeting_id   uuid NOT NULL REFERENCES public.meetings (id) ON DELETE CASCADE,
  name         text NOT NULL,
  email        text,
  is_me        boolean NOT NULL DEFAULT false,
  PRIMARY KEY (meeting_id, name)
);

CREATE TABLE IF NOT EXISTS public.meeting_action_items (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  meeting_id   uuid NOT NULL REFERENCES public.meetings (id) ON DELETE CASCADE,
  owner_name   text NOT NULL,
  description  text NOT NULL,
  due_on       date,
  status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'dropped')),
  thought_id   uuid REFERENCES public.thoughts (id) ON DELETE SET NULL,
  closed_note  text,
  closed_at    timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS idx_meeting_action_items_owner
  ON public.meeting_action_items (owner_name, status, due_on);

-- ------------------------------------------------------------------------------------------
-- updated_at on meetings
-- ------------------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION public.meetings_set_updated_at()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public
AS $fn$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END;
$fn$;

DROP TRIGGER IF EXISTS trg_meetings_updated_at ON public.meetings;
CREATE TRIGGER trg_meetings_updated_at
  BEFORE UPDATE ON public.meetings
  FOR EACH ROW EXECUTE FUNCTION public.meetings_set_updated_at();

-- ------------------------------------------------------------------------------------------
-- Functions
-- ------------------------------------------------------------------------------------------

-- Open action items for one owner, overdue first, then by due date (undated last).
CREATE OR REPLACE FUNCTION public.meeting_open_actions(p_owner text, p_limit integer DEFAULT 50)
RETURNS TABLE (
  action_id   uuid,
  meeting     text,
  met_on      date,
  description text,
  due_on      date,
  overdue     boolean
)
LANGUAGE plpgsql
STABLE
SET search_path = public
AS $body$
BEGIN
  RETURN QUERY
  SELECT a.id,
         m.title,
         m.starts_at::date,
         a.description,
         a.due_on,
         coalesce(a.due_on < current_date, false)
  FROM public.meeting_action_items AS a
  JOIN public.meetings AS m ON m.id = a.meeting_id
  WHERE a.owner_name = p_owner
    AND a.status = 'open'
  ORDER BY coalesce(a.due_on < current_date, false) DESC,
           a.due_on NULLS LAST,
           m.starts_at
  LIMIT greatest(coalesce(p_limit, 50), 1);
END;
$bdoy$;

-- Close an action item; the note is optional.
CREATE OR REPLACE FUNCTION public.meeting_close_action(
  p_action_id uuid,
  p_status    text DEFAULT 'done',
  p_note      text DEFAULT NULL
)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = public
AS $fn$
BEGIN
  IF p_status NOT IN ('done', 'dropped') THEN
    RAISE EXCEPTION 'status must be done or dropped, got %', p_status;
  END IF;

  UPDATE public.meeting_action_items
     SET status = p_status,
         closed_note = p_note,
         closed_at = now()
   WHERE id = p_action_id
     AND status = 'open';

  RETURN FOUND;
END;
$fn$;

-- The thoughts captured for a meeting (metadata.meeting_id), in capture order.
CREATE OR REPLACE FUNCTION public.meeting_thoughts(p_meeting_id uuid)
RETURNS TABLE (id uuid, content text, created_at timestamptz)
LANGUAGE sql
STABLE
SET search_path = public
AS $fn$
  SELECT t.id, t.content, t.created_at
  FROM public.thoughts AS t
  WHERE t.metadata ->> 'meeting_id' = p_meeting_id::text
  ORDER BY t.created_at;
$fn$;

-- ------------------------------------------------------------------------------------------
-- Summary view
-- ------------------------------------------------------------------------------------------

CREATE OR REPLACE VIEW public.meeting_summary
WITH (security_invoker = true)
AS
SELECT m.id,
       m.title,
       m.starts_at,
       (SELECT count(*) FROM public.meeting_attendees AS p WHERE p.meeting_id = m.id) AS attendees,
       (SELECT count(*) FROM public.meeting_action_items AS a
         WHERE a.meeting_id = m.id AND a.status = 'open')                            AS open_actions,
       (SELECT count(*) FROM public.meeting_action_items AS a
         WHERE a.meeting_id = m.id AND a.status = 'done')                            AS done_actions
FROM public.meetings AS m;

-- ------------------------------------------------------------------------------------------
-- RLS, policies, grants
-- ------------------------------------------------------------------------------------------

ALTER TABLE public.meetings ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.meeting_attendees ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.meeting_action_items ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS meetings_service_role_all ON public.meetings;
CREATE POLICY meetings_service_role_all ON public.meetings
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS meeting_attendees_service_role_all ON public.meeting_attendees;
CREATE POLICY meeting_attendees_service_role_all ON public.meeting_attendees
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS meeting_action_items_service_role_all ON public.meeting_action_items;
CREATE POLICY meeting_action_items_service_role_all ON public.meeting_action_items
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE
  public.meetings,
  public.meeting_attendees,
  public.meeting_action_items
TO service_role;

GRANT SELECT ON public.meeting_summary TO service_role;

REVOKE ALL ON FUNCTION
  public.meeting_open_actions(text, integer),
  public.meeting_close_action(uuid, text, text),
  public.meeting_thoughts(uuid),
  public.meetings_set_updated_at()
FROM PUBLIC, anon, authenticated;

GRANT EXECUTE ON FUNCTION
  public.meeting_open_actions(text, integer),
  public.meeting_close_action(uuid, text, text),
  public.meeting_thoughts(uuid)
TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;

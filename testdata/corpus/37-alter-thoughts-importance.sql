-- Thought importance: a 1..5 importance score on thoughts, set by the capture prompt or by hand,
-- so recall can prefer what mattered. Adds a column to public.thoughts (nullable, no default:
-- existing rows are untouched) and an index for "important and recent".
--
-- Prereq: core capture path.

BEGIN;

ALTER TABLE public.thoughts ADD COLUMN IF NOT EXISTS importance smallint
  CHECK (importance BETWEEN 1 AND 5);

COMMENT ON COLUMN public.thoughts.importance IS '1 (trivia) .. 5 (life-changing); NULL = not rated.';
COMMENT ON COLUMN public.thoughts.content_fingerprint IS 'SHA-256 of the normalised content; see upsert_thought.';

CREATE INDEX IF NOT EXISTS thoughts_importance_recent_idx
  ON public.thoughts (importance DESC, created_at DESC)
  WHERE importance IS NOT NULL;

NOTIFY pgrst, 'reload schema';

COMMIT;

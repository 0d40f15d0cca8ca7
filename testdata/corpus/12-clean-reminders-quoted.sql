-- Thought reminders (schemas/thought-reminders)
--
-- "Remind me about this on Friday": a reminder row points at a thought and says when to bring it
-- back. The MCP server's `list_due_reminders` tool reads due rows; delivery is up to the client.
--
-- v0.2 adds a snooze counter. Identifiers are quoted throughout because the generator we use
-- for the TypeScript types quotes everything; the names are all lower case anyway.

BEGIN;

CREATE TABLE IF NOT EXISTS "public"."thought_reminders" (
  "id"          bigserial PRIMARY KEY,
  "thought_id"  uuid NOT NULL REFERENCES "public"."thoughts" ("id") ON DELETE CASCADE,
  "remind_at"   timestamptz NOT NULL,
  "channel"     text NOT NULL DEFAULT 'mcp' CHECK ("channel" IN ('mcp', 'email', 'slack')),
  "done_at"     timestamptz,
  "created_at"  timestamptz NOT NULL DEFAULT now()
);

-- v0.2
ALTER TABLE "public"."thought_reminders" ADD COLUMN IF NOT EXISTS "snooze_count" integer NOT NULL DEFAULT 0;
COMMENT ON COLUMN "public"."thought_reminders"."snooze_count" IS 'How many times the reminder was pushed back.';
COMMENT ON COLUMN "public"."thought_reminders"."remind_at" IS 'When the reminder becomes due (UTC).';

CREATE INDEX IF NOT EXISTS "thought_reminders_due_idx"
  ON "public"."thought_reminders" ("remind_at")
  WHERE "done_at" IS NULL;

ALTER TABLE "public"."thought_reminders" ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS "thought_reminders_service_role_all" ON "public"."thought_reminders";
CREATE POLICY "thought_reminders_service_role_all" ON "public"."thought_reminders"
  FOR ALL TO "service_role" USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE "public"."thought_reminders" TO "service_role";
GRANT USAGE, SELECT ON SEQUENCE "public"."thought_reminders_id_seq" TO "service_role";

NOTIFY pgrst, 'reload schema';

COMMIT;

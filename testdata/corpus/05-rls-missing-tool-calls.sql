-- Usage stats: one row per MCP tool call, so the dashboard can show which tools get used.
-- Prereq: Open Brain core (public.thoughts).

CREATE TABLE IF NOT EXISTS public.mcp_tool_calls (
  id          bigserial PRIMARY KEY,
  tool_name   text NOT NULL,
  thought_id  uuid REFERENCES public.thoughts(id) ON DELETE SET NULL,
  duration_ms integer,
  ok          boolean NOT NULL DEFAULT true,
  called_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS mcp_tool_calls_tool_time_idx
  ON public.mcp_tool_calls (tool_name, called_at DESC);

GRANT SELECT, INSERT ON public.mcp_tool_calls TO service_role;
GRANT USAGE ON SEQUENCE public.mcp_tool_calls_id_seq TO service_role;

NOTIFY pgrst, 'reload schema';

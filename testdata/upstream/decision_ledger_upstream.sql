-- ==============================================================================================
-- Decision ledger with ranked recall  (schemas/decision-ledger, revision with the ranking fixes)
-- ==============================================================================================
--
-- TEST DATA, written for ledgercheck's parity tests: the merged upstream revision as described
-- in OB1's schemas/decision-ledger and pull request #488, in our own SQL and layout (no upstream text reproduced).
-- See README.md next to this file for which fact each part follows.
--
-- A step-indexed ledger of agent decisions on top of the agent-memory schema:
--   * agent_decision_ledger     one row per memory_type = 'decision' memory: where in the task it
--                               was taken (step_index), how much it matters (importance), why
--                               (rationale), a pin, and recall/usage counters;
--   * agent_decision_edges      decision -> decision dependencies (depends_on, informs, blocks);
--   * an AFTER INSERT trigger on agent_memories that enrolls decisions, so writers change nothing;
--   * match_decision_ledger()   ranked recall: relevance, importance, step recency, dependencies,
--                               with a full-text arm for brains without an embedding service;
--   * touch_decision_recall()   recall/usage counters;
--   * agent_recall_policy_stats recall policies side by side.
--
-- Sidecar only: no ALTER of thoughts or of any agent-memory table. RLS, a service_role policy and
-- explicit grants on both new tables. Re-runnable. Ends with a PostgREST schema reload.
--
-- Prerequisites: Open Brain core capture path, schemas/agent-memory.

BEGIN;

-- pgvector lives in schema extensions on Supabase; this makes vector(...) resolve below.
SET search_path TO public, extensions;

DO $preflight$
BEGIN
  IF NOT EXISTS (
    SELECT 1
    FROM information_schema.tables
    WHERE table_schema = 'public'
      AND table_name = 'agent_memories'
  ) THEN
    RAISE EXCEPTION 'decision-ledger: public.agent_memories not found; apply schemas/agent-memory before this schema';
  END IF;
END
$preflight$;

-- ----------------------------------------------------------------------------------------------
-- 1. The ledger and its edges
-- ----------------------------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (
  id               uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
  memory_id        uuid         NOT NULL UNIQUE
                                REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  workspace_id     text         NOT NULL,
  project_id       text,
  task_id          text,
  flow_id          text,
  step_index       integer      NOT NULL CHECK (step_index >= 0),
  rationale        text,
  importance       numeric(3,2) NOT NULL DEFAULT 0.50 CHECK (importance BETWEEN 0 AND 1),
  pinned           boolean      NOT NULL DEFAULT false,
  recall_count     integer      NOT NULL DEFAULT 0,
  used_count       integer      NOT NULL DEFAULT 0,
  last_recalled_at timestamptz,
  metadata         jsonb        NOT NULL DEFAULT '{}'::jsonb,
  created_at       timestamptz  NOT NULL DEFAULT now(),
  updated_at       timestamptz  NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS idx_agent_decision_ledger_stream
  ON public.agent_decision_ledger (workspace_id, task_id, step_index DESC);

CREATE INDEX IF NOT EXISTS idx_agent_decision_ledger_scope
  ON public.agent_decision_ledger (workspace_id, project_id, created_at DESC);

CREATE TABLE IF NOT EXISTS public.agent_decision_edges (
  id             uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
  from_memory_id uuid        NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  to_memory_id   uuid        NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  relation       text        NOT NULL CHECK (relation IN ('depends_on', 'informs', 'blocks')),
  metadata       jsonb       NOT NULL DEFAULT '{}'::jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (from_memory_id, to_memory_id, relation),
  CHECK (from_memory_id <> to_memory_id)
);

CREATE INDEX IF NOT EXISTS idx_agent_decision_edges_to
  ON public.agent_decision_edges (to_memory_id, relation);

-- ----------------------------------------------------------------------------------------------
-- 2. Enrollment and bookkeeping triggers
-- ----------------------------------------------------------------------------------------------

-- Every decision written to agent_memories gets a ledger row. The step is taken from
-- metadata.agent_memory.step_index, else metadata.step_index, else it is one past the newest step
-- of the same workspace and task (task compared NULL-safely), starting at 0. A step that is not an
-- integer fails the cast and with it the insert into agent_memories.
CREATE OR REPLACE FUNCTION public.agent_decision_ledger_enroll()
RETURNS trigger
LANGUAGE plpgsql
AS $enroll$
DECLARE
  v_step integer;
BEGIN
  IF NEW.memory_type <> 'decision' THEN
    RETURN NEW;
  END IF;

  v_step := coalesce(
    (NEW.metadata -> 'agent_memory' ->> 'step_index')::integer,
    (NEW.metadata ->> 'step_index')::integer
  );

  IF v_step IS NULL THEN
    SELECT coalesce(max(l.step_index) + 1, 0)
      INTO v_step
    FROM public.agent_decision_ledger AS l
    WHERE l.workspace_id = NEW.workspace_id
      AND l.task_id IS NOT DISTINCT FROM NEW.task_id;
  END IF;

  INSERT INTO public.agent_decision_ledger
    (memory_id, workspace_id, project_id, task_id, flow_id, step_index, rationale, importance)
  VALUES
    (NEW.id, NEW.workspace_id, NEW.project_id, NEW.task_id, NEW.flow_id, v_step,
     nullif(NEW.metadata ->> 'rationale', ''), coalesce(NEW.confidence, 0.50))
  ON CONFLICT (memory_id) DO NOTHING;

  RETURN NEW;
END;
$enroll$;

DROP TRIGGER IF EXISTS trg_agent_decision_ledger_enroll ON public.agent_memories;
CREATE TRIGGER trg_agent_decision_ledger_enroll
  AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.agent_decision_ledger_enroll();

CREATE OR REPLACE FUNCTION public.agent_decision_ledger_set_updated_at()
RETURNS trigger
LANGUAGE plpgsql
AS $touch$
BEGIN
  NEW.updated_at := now();
  RETURN NEW;
END;
$touch$;

DROP TRIGGER IF EXISTS trg_agent_decision_ledger_updated_at ON public.agent_decision_ledger;
CREATE TRIGGER trg_agent_decision_ledger_updated_at
  BEFORE UPDATE ON public.agent_decision_ledger
  FOR EACH ROW EXECUTE FUNCTION public.agent_decision_ledger_set_updated_at();

-- ----------------------------------------------------------------------------------------------
-- 3. Ranked recall
-- ----------------------------------------------------------------------------------------------

-- The signature changed in this revision (p_half_life_days gone, p_dependency_saturation new,
-- relevance_source added to the result). CREATE OR REPLACE cannot change the result columns, and
-- with other parameters it would add a second overload next to the old one, which PostgREST then
-- cannot choose between. So every public.match_decision_ledger, whatever its arguments, is
-- dropped first, and the function is created from scratch.
DO $drop_match_overloads$
DECLARE
  v_proc regprocedure;
BEGIN
  FOR v_proc IN
    SELECT p.oid::regprocedure
    FROM pg_catalog.pg_proc AS p
    JOIN pg_catalog.pg_namespace AS ns ON ns.oid = p.pronamespace
    WHERE ns.nspname = 'public'
      AND p.proname = 'match_decision_ledger'
  LOOP
    EXECUTE format('DROP FUNCTION %s', v_proc);
  END LOOP;
END
$drop_match_overloads$;

-- ranking_score =   p_w_similarity * relevance
--                 + p_w_importance * importance
--                 + p_w_recency    * recency
--                 + p_w_dependency * dependency_boost
--                 - 0.30 when the memory is not active (reachable with p_include_superseded)
-- Rows come back pinned first, then by ranking_score, then newest step first.
--
-- What changed against the first cut, each found by running a 1024-dim port of this schema
-- under a local agent brain:
--   1. Full-text query: the question's own lexemes, ORed. websearch_to_tsquery (like
--      plainto_tsquery) ANDs every term, so a question in plain words matched only a row that
--      contained all of them, which in practice was none, and the full-text arm (45% of the
--      score) never fired for exactly the setup without embeddings it is there for. Same
--      'english' configuration, same stemming and stop words; each lexeme is quote_literal-ed;
--      built once per call. A question of stop words only gives an empty query and rank 0.
--   2. Full-text rank: x / (1 + x) with x = 10 * ts_rank_cd, instead of LEAST(x, 1), which put
--      every real match at exactly 1.0 and left the order to recency.
--   3. Every component is clamped into [0,1] before weighting (cosine similarity reaches -1 on
--      opposed vectors), and each row says which arm scored it: relevance_source is cosine, fts
--      or none, so a half-embedded ledger shows up in recall traces.
--   4. Dependencies saturate at a fixed p_dependency_saturation (default 3): min(in-degree / s, 1),
--      the same for a row whatever else matched the query.
--   5. Step recency decays over 30 steps, not 120 (exp(-d/120) spread only 0.0165 of the score
--      over 15 steps), and the distance is measured from max(p_current_step, the newest step of
--      the row's task among the candidates), so it is defined for every row even when the caller
--      passes no step or a stale one. The wall-clock branch and p_half_life_days are gone.
-- Weights, half-life and saturation are parameters; these are only the defaults.
CREATE FUNCTION public.match_decision_ledger(
  p_workspace_id          text,
  p_query                 text    DEFAULT NULL,
  p_query_embedding       vector(1536) DEFAULT NULL,
  p_project_id            text    DEFAULT NULL,
  p_task_id               text    DEFAULT NULL,
  p_current_step          integer DEFAULT NULL,
  p_match_count           integer DEFAULT 10,
  p_w_similarity          float   DEFAULT 0.45,
  p_w_importance          float   DEFAULT 0.25,
  p_w_recency             float   DEFAULT 0.15,
  p_w_dependency          float   DEFAULT 0.15,
  p_half_life_steps       float   DEFAULT 30.0,
  p_dependency_saturation float   DEFAULT 3.0,
  p_include_superseded    boolean DEFAULT false
)
RETURNS TABLE (
  memory_id        uuid,
  summary          text,
  content          text,
  rationale        text,
  step_index       integer,
  importance       numeric,
  pinned           boolean,
  lifecycle_status text,
  relevance        float,
  relevance_source text,
  recency          float,
  dependency_boost float,
  ranking_score    float
)
LANGUAGE plpgsql
STABLE
AS $match$
DECLARE
  v_tsquery    tsquery;
  v_half_life  float   := p_half_life_steps;
  v_saturation float   := p_dependency_saturation;
  v_limit      integer := p_match_count;
BEGIN
  IF v_half_life IS NULL OR v_half_life <= 0 THEN
    v_half_life := 30.0;
  END IF;
  IF v_saturation IS NULL OR v_saturation <= 0 THEN
    v_saturation := 3.0;
  END IF;
  IF v_limit IS NULL OR v_limit < 1 THEN
    v_limit := 10;
  END IF;

  -- Fix 1: one OR-query from the question's lexemes, built once.
  IF p_query IS NOT NULL AND btrim(p_query) <> '' THEN
    SELECT coalesce(string_agg(quote_literal(lx.word), ' | '), '')::tsquery
      INTO v_tsquery
    FROM unnest(tsvector_to_array(to_tsvector('english', p_query))) AS lx(word);
  END IF;

  RETURN QUERY
  WITH candidate AS (
    SELECT l.memory_id                     AS c_memory_id,
           m.summary                       AS c_summary,
           m.content                       AS c_content,
           l.rationale                     AS c_rationale,
           l.step_index                    AS c_step_index,
           l.importance                    AS c_importance,
           l.pinned                        AS c_pinned,
           m.lifecycle_status              AS c_lifecycle_status,
           t.embedding                     AS c_embedding,
           -- Fix 2: the scaled rank, computed once per row; NULL without a query.
           CASE WHEN v_tsquery IS NOT NULL THEN
             10.0 * ts_rank_cd(
                      to_tsvector('english', coalesce(m.content, '') || ' ' || coalesce(l.rationale, '')),
                      v_tsquery)
           END                             AS c_scaled_fts_rank,
           -- Fix 5: the newest step of this row's task among the candidates.
           max(l.step_index) OVER (PARTITION BY l.task_id) AS c_stream_max_step
    FROM public.agent_decision_ledger AS l
    JOIN public.agent_memories AS m ON m.id = l.memory_id
    LEFT JOIN public.thoughts AS t ON t.id = m.thought_id
    WHERE l.workspace_id = p_workspace_id
      AND (p_project_id IS NULL OR l.project_id = p_project_id)
      AND (p_task_id IS NULL OR l.task_id = p_task_id)
      AND (p_include_superseded OR m.lifecycle_status = 'active')
  ),
  scored AS (
    SELECT c.*,
           CASE
             WHEN p_query_embedding IS NOT NULL AND c.c_embedding IS NOT NULL THEN 'cosine'
             WHEN v_tsquery IS NOT NULL THEN 'fts'
             ELSE 'none'
           END AS s_source,
           -- Fix 3: every component in [0,1].
           coalesce(
             CASE
               WHEN p_query_embedding IS NOT NULL AND c.c_embedding IS NOT NULL THEN
                 LEAST(GREATEST(1 - (c.c_embedding <=> p_query_embedding), 0), 1)
               WHEN v_tsquery IS NOT NULL THEN
                 LEAST(GREATEST(c.c_scaled_fts_rank / (1 + c.c_scaled_fts_rank), 0), 1)
             END,
             0)::float AS s_relevance,
           LEAST(GREATEST(c.c_importance::float, 0), 1) AS s_importance,
           exp(-GREATEST(GREATEST(p_current_step, c.c_stream_max_step) - c.c_step_index, 0)
               / v_half_life)::float AS s_recency,
           -- Fix 4: a fixed saturation point.
           LEAST(GREATEST(
             (SELECT count(*)
              FROM public.agent_decision_edges AS e
              JOIN public.agent_memories AS fm ON fm.id = e.from_memory_id
              WHERE e.to_memory_id = c.c_memory_id
                AND e.relation = 'depends_on'
                AND fm.lifecycle_status = 'active') / v_saturation,
             0), 1)::float AS s_dependency
    FROM candidate AS c
  )
  SELECT s.c_memory_id,
         s.c_summary,
         s.c_content,
         s.c_rationale,
         s.c_step_index,
         s.c_importance,
         s.c_pinned,
         s.c_lifecycle_status,
         s.s_relevance,
         s.s_source,
         s.s_recency,
         s.s_dependency,
         (p_w_similarity * s.s_relevance
          + p_w_importance * s.s_importance
          + p_w_recency * s.s_recency
          + p_w_dependency * s.s_dependency
          - CASE WHEN s.c_lifecycle_status = 'active' THEN 0 ELSE 0.30 END)::float AS ranking_score
  FROM scored AS s
  ORDER BY s.c_pinned DESC, 13 DESC, s.c_step_index DESC
  LIMIT v_limit;
END;
$match$;

COMMENT ON FUNCTION public.match_decision_ledger(text, text, vector, text, text, integer, integer,
  float, float, float, float, float, float, boolean) IS
  'Ranked recall over a workspace''s decisions, pinned first: 0.45 relevance (clamped cosine, or the '
  'saturated rank x/(1+x) of an OR-ed full-text query) + 0.25 importance + 0.15 step recency '
  'exp(-d/30) from max(current step, newest step of the task) + 0.15 dependencies saturating at 3, '
  'each in [0,1]; -0.30 when not active. relevance_source names the arm: cosine, fts or none.';

-- ----------------------------------------------------------------------------------------------
-- 4. Recall bookkeeping and per-policy stats
-- ----------------------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION public.touch_decision_recall(p_memory_ids uuid[], p_used boolean DEFAULT false)
RETURNS integer
LANGUAGE plpgsql
AS $recall$
DECLARE
  v_rows integer;
BEGIN
  UPDATE public.agent_decision_ledger
     SET recall_count     = recall_count + 1,
         used_count       = used_count + CASE WHEN p_used THEN 1 ELSE 0 END,
         last_recalled_at = now()
   WHERE memory_id = ANY (p_memory_ids);
  GET DIAGNOSTICS v_rows = ROW_COUNT;
  RETURN v_rows;
END;
$recall$;

CREATE OR REPLACE VIEW public.agent_recall_policy_stats AS
SELECT coalesce(tr.response_policy ->> 'recall_policy', 'vector')                AS recall_policy,
       count(DISTINCT tr.id)                                                      AS recall_requests,
       count(ri.id)                                                               AS items_returned,
       round(avg(ri.similarity), 4)                                               AS avg_similarity,
       round(avg(ri.ranking_score), 4)                                            AS avg_ranking_score,
       round(count(ri.id) FILTER (WHERE ri.used IS TRUE)::numeric
             / nullif(count(ri.id) FILTER (WHERE ri.used IS NOT NULL), 0), 4)     AS used_rate,
       round(count(ri.id) FILTER (WHERE ri.used IS FALSE)::numeric
             / nullif(count(ri.id) FILTER (WHERE ri.used IS NOT NULL), 0), 4)     AS ignored_rate
FROM public.agent_memory_recall_traces AS tr
LEFT JOIN public.agent_memory_recall_items AS ri ON ri.trace_id = tr.id
GROUP BY coalesce(tr.response_policy ->> 'recall_policy', 'vector');

COMMENT ON VIEW public.agent_recall_policy_stats IS
  'Recall traces grouped by response_policy.recall_policy (vector when absent): requests, items returned, mean similarity and ranking score, and the used / ignored rates among items with feedback.';

-- ----------------------------------------------------------------------------------------------
-- 5. Row level security, policies, grants
-- ----------------------------------------------------------------------------------------------

ALTER TABLE public.agent_decision_ledger ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_decision_edges ENABLE ROW LEVEL SECURITY;

DROP POLICY IF EXISTS agent_decision_ledger_service_role_all ON public.agent_decision_ledger;
CREATE POLICY agent_decision_ledger_service_role_all ON public.agent_decision_ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_decision_edges_service_role_all ON public.agent_decision_edges;
CREATE POLICY agent_decision_edges_service_role_all ON public.agent_decision_edges
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.agent_decision_ledger TO service_role;
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.agent_decision_edges TO service_role;
GRANT SELECT ON public.agent_recall_policy_stats TO service_role;
GRANT EXECUTE ON FUNCTION public.match_decision_ledger TO service_role;
GRANT EXECUTE ON FUNCTION public.touch_decision_recall(uuid[], boolean) TO service_role;

NOTIFY pgrst, 'reload schema';

COMMIT;

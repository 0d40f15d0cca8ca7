-- Decision ledger with ranked recall (OB1 schemas/decision-ledger, the revision with five ranking
-- fixes; 1536-dim). Written from the description of OB1 pull request #488 and the facts of OB1's
-- schemas/decision-ledger (its tables, functions and grants); no upstream SQL is reproduced.
--
-- What it adds, strictly as a sidecar of the agent-memory schema:
--   * public.agent_decision_ledger: one row per memory_type = 'decision' memory, with where in the
--     task it happened (step_index), an adjustable importance, the why (rationale), a pin, and
--     recall/usage counters. Lifecycle state stays in agent_memories; the ledger only reads it.
--   * public.agent_decision_edges: which decisions rest on which (depends_on / informs / blocks).
--   * an AFTER INSERT trigger on agent_memories that enrolls decisions, so the write path does not
--     change; an updated_at trigger on the ledger; a stored full-text document per ledger row,
--     computed by a trigger on the ledger itself.
--   * match_decision_ledger(): ranked recall, relevance x importance x step recency x dependency,
--     with a full-text fallback that works without any embedding service.
--   * touch_decision_recall(): recall/usage counters; agent_recall_policy_stats: recall policies
--     side by side.
--
-- Sidecar contract: no ALTER on any table this file did not create (public.thoughts and every
-- agent-memory table are untouched; the only foothold on them is the enrollment trigger on
-- agent_memories, which writes only to the ledger). RLS,
-- a service_role policy and explicit grants on every new table. Safe to run more than once, and
-- safe to run over the first cut of this schema: the first cut's match_decision_ledger overload
-- is dropped, every row is kept. Ends with NOTIFY pgrst, 'reload schema'.
--
-- Run by hand as the database owner (postgres on Supabase):
--   psql -v ON_ERROR_STOP=1 -f migrations/decision_ledger.sql
-- Prerequisites: migrations/prereq/ (Open Brain core capture path and agent-memory schema).

BEGIN;

-- vector lives in schema extensions on Supabase. SET LOCAL keeps this to the transaction instead
-- of leaking into the caller's session; every function below pins its own search_path.
SET LOCAL search_path = public, extensions;

-- The ledger hangs off agent_memories and reads thoughts. information_schema only shows tables
-- the installing role can see, so this also catches a role without privileges on them.
DO $preflight$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM information_schema.tables
    WHERE table_schema = 'public' AND table_name = 'agent_memories'
  ) THEN
    RAISE EXCEPTION 'decision ledger needs public.agent_memories: apply the agent-memory schema (schemas/agent-memory) first';
  END IF;
  IF NOT EXISTS (
    SELECT 1 FROM information_schema.tables
    WHERE table_schema = 'public' AND table_name = 'thoughts'
  ) THEN
    RAISE EXCEPTION 'decision ledger needs public.thoughts: run the Open Brain getting-started guide (core capture path) first';
  END IF;
END
$preflight$;

------------------------------------------------------------------------------------------------
-- 1. Tables
------------------------------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS public.agent_decision_ledger (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  memory_id        uuid NOT NULL UNIQUE REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  workspace_id     text NOT NULL,
  project_id       text,
  task_id          text,
  flow_id          text,
  step_index       integer NOT NULL CHECK (step_index >= 0),
  rationale        text,
  importance       numeric(3,2) NOT NULL DEFAULT 0.50 CHECK (importance >= 0 AND importance <= 1),
  pinned           boolean NOT NULL DEFAULT false,
  recall_count     integer NOT NULL DEFAULT 0,
  used_count       integer NOT NULL DEFAULT 0,
  last_recalled_at timestamptz,
  metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  search_document  tsvector,
  search_content_hash bigint
);

-- search_document is the 'english' tsvector of the memory's content and the rationale, computed
-- by a trigger on the ledger (section 2) so that recall does not re-parse every candidate's text
-- on every call (that alone cost about 220 ms over 10,000 rows). search_content_hash is the 64-bit
-- hash (hashtextextended) of the content it was computed from; md5 would do too but costs about
-- 25 ms per 10,000 rows at recall time, the hash next to nothing. It is derived data, and recall uses it only while it is
-- current: when the content in agent_memories has since been edited (or the document was never
-- computed), recall computes the document on the fly. So the ledger needs no trigger on content
-- edits in agent_memories: its only foothold there stays the enrollment trigger. Added separately
-- so that an install of the first cut (which has no such columns) gets them too.
ALTER TABLE public.agent_decision_ledger ADD COLUMN IF NOT EXISTS search_document tsvector;
ALTER TABLE public.agent_decision_ledger ADD COLUMN IF NOT EXISTS search_content_hash bigint;

-- The (workspace, task) stream, newest step first: enrollment's max+1 and recall's filters.
CREATE INDEX IF NOT EXISTS idx_agent_decision_ledger_stream
  ON public.agent_decision_ledger (workspace_id, task_id, step_index DESC);
CREATE INDEX IF NOT EXISTS idx_agent_decision_ledger_scope
  ON public.agent_decision_ledger (workspace_id, project_id, created_at DESC);

CREATE TABLE IF NOT EXISTS public.agent_decision_edges (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  from_memory_id uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  to_memory_id   uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  relation       text NOT NULL CHECK (relation IN ('depends_on', 'informs', 'blocks')),
  metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (from_memory_id, to_memory_id, relation),
  CHECK (from_memory_id <> to_memory_id)
);

-- In-degree lookups by recall: "how many decisions depend on this one".
CREATE INDEX IF NOT EXISTS idx_agent_decision_edges_to
  ON public.agent_decision_edges (to_memory_id, relation);

------------------------------------------------------------------------------------------------
-- 2. Enrollment: every decision written to agent_memories gets a ledger row
------------------------------------------------------------------------------------------------

-- step_index comes from the first of: metadata.agent_memory.step_index, metadata.step_index, or
-- one past the newest step of the same (workspace, task) stream (0 for a new stream). A value
-- that is present but not a non-negative integer aborts the write with SQLSTATE 22P02 and a
-- message that names the field, rather than a bare integer-cast error. importance starts as the
-- memory's confidence; rationale is metadata.rationale (empty string = none).
CREATE OR REPLACE FUNCTION public.agent_decision_ledger_enroll()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, extensions
AS $fn$
DECLARE
  v_source   text;
  v_raw      text;
  v_step     integer;
BEGIN
  IF NEW.memory_type IS DISTINCT FROM 'decision' THEN
    RETURN NULL;
  END IF;

  IF NEW.metadata #>> '{agent_memory,step_index}' IS NOT NULL THEN
    v_source := 'metadata.agent_memory.step_index';
    v_raw := NEW.metadata #>> '{agent_memory,step_index}';
  ELSIF NEW.metadata ->> 'step_index' IS NOT NULL THEN
    v_source := 'metadata.step_index';
    v_raw := NEW.metadata ->> 'step_index';
  END IF;

  IF v_raw IS NOT NULL THEN
    IF btrim(v_raw) !~ '^[0-9]{1,9}$' THEN
      RAISE EXCEPTION 'decision ledger: % must be a non-negative integer, got %', v_source, quote_literal(v_raw)
        USING ERRCODE = 'invalid_text_representation',
              HINT = 'Write the step as a JSON integer (e.g. 3), or leave it out to append to the (workspace_id, task_id) stream.';
    END IF;
    v_step := btrim(v_raw)::integer;
  ELSIF NEW.task_id IS NULL THEN
    SELECT coalesce(max(l.step_index) + 1, 0) INTO v_step
    FROM public.agent_decision_ledger AS l
    WHERE l.workspace_id = NEW.workspace_id AND l.task_id IS NULL;
  ELSE
    SELECT coalesce(max(l.step_index) + 1, 0) INTO v_step
    FROM public.agent_decision_ledger AS l
    WHERE l.workspace_id = NEW.workspace_id AND l.task_id = NEW.task_id;
  END IF;

  INSERT INTO public.agent_decision_ledger
    (memory_id, workspace_id, project_id, task_id, flow_id, step_index, rationale, importance)
  VALUES
    (NEW.id, NEW.workspace_id, NEW.project_id, NEW.task_id, NEW.flow_id, v_step,
     nullif(NEW.metadata ->> 'rationale', ''), coalesce(NEW.confidence, 0.50))
  ON CONFLICT (memory_id) DO NOTHING;

  RETURN NULL;
END;
$fn$;

DROP TRIGGER IF EXISTS trg_agent_decision_ledger_enroll ON public.agent_memories;
CREATE TRIGGER trg_agent_decision_ledger_enroll
  AFTER INSERT ON public.agent_memories
  FOR EACH ROW EXECUTE FUNCTION public.agent_decision_ledger_enroll();

-- The search document of a ledger row: computed on insert, and again on update when the
-- rationale changed or the document was reset to NULL. BEFORE triggers fire in name order, so
-- this one runs before the updated_at trigger and that one sees the final row.
CREATE OR REPLACE FUNCTION public.agent_decision_ledger_search_document()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, extensions
AS $fn$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.search_document IS NULL
     OR NEW.rationale IS DISTINCT FROM OLD.rationale THEN
    SELECT to_tsvector('english', coalesce(m.content, '') || ' ' || coalesce(NEW.rationale, '')),
           hashtextextended(m.content, 0)
      INTO NEW.search_document, NEW.search_content_hash
    FROM public.agent_memories AS m
    WHERE m.id = NEW.memory_id;
  END IF;
  RETURN NEW;
END;
$fn$;

DROP TRIGGER IF EXISTS trg_agent_decision_ledger_search_document ON public.agent_decision_ledger;
CREATE TRIGGER trg_agent_decision_ledger_search_document
  BEFORE INSERT OR UPDATE OF rationale, search_document ON public.agent_decision_ledger
  FOR EACH ROW EXECUTE FUNCTION public.agent_decision_ledger_search_document();

-- updated_at tracks changes to the decision, not maintenance of its derived search document.
CREATE OR REPLACE FUNCTION public.agent_decision_ledger_set_updated_at()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = public, extensions
AS $fn$
BEGIN
  IF (NEW.search_document, NEW.search_content_hash) IS DISTINCT FROM (OLD.search_document, OLD.search_content_hash)
     AND to_jsonb(NEW) - 'search_document' - 'search_content_hash' - 'updated_at'
       = to_jsonb(OLD) - 'search_document' - 'search_content_hash' - 'updated_at' THEN
    RETURN NEW;
  END IF;
  NEW.updated_at := now();
  RETURN NEW;
END;
$fn$;

DROP TRIGGER IF EXISTS trg_agent_decision_ledger_updated_at ON public.agent_decision_ledger;
CREATE TRIGGER trg_agent_decision_ledger_updated_at
  BEFORE UPDATE ON public.agent_decision_ledger
  FOR EACH ROW EXECUTE FUNCTION public.agent_decision_ledger_set_updated_at();

-- Rows enrolled before search_document existed (a first-cut install) get theirs now, through the
-- trigger above; on a rerun this matches nothing. Their updated_at is left alone (see above).
UPDATE public.agent_decision_ledger AS l
   SET search_document = NULL
 WHERE l.search_content_hash IS NULL;

------------------------------------------------------------------------------------------------
-- 3. Ranked recall
------------------------------------------------------------------------------------------------

-- Replace, don't overload. CREATE OR REPLACE cannot change the result columns ("cannot change
-- return type of existing function"), and with changed parameters it silently adds a second
-- overload, after which named-argument calls fail as "not unique" (PostgREST: PGRST203). So every
-- existing public.match_decision_ledger, whatever its signature (the first cut's included), is
-- dropped by its exact regprocedure and the current one is created fresh below. Nothing in this
-- schema depends on the function, and its grants are re-issued further down.
-- ledgercheck:ignore dynamic-sql drops exactly the existing overloads of public.match_decision_ledger, by regprocedure
DO $drop_overloads$
DECLARE
  v_fn regprocedure;
BEGIN
  FOR v_fn IN
    SELECT p.oid::regprocedure
    FROM pg_catalog.pg_proc AS p
    JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
    WHERE n.nspname = 'public' AND p.proname = 'match_decision_ledger'
  LOOP
    EXECUTE format('DROP FUNCTION %s', v_fn);
  END LOOP;
END
$drop_overloads$;

-- Already gone after the loop above; stated for readers (and static checkers) who cannot see
-- into the DO block: the CREATE below never meets an existing function of its signature.
DROP FUNCTION IF EXISTS public.match_decision_ledger(text, text, vector, text, text, integer, integer,
  float, float, float, float, float, float, boolean);

-- match_decision_ledger: ranked recall over one workspace's decisions.
--
--   ranking_score = w_sim * relevance + w_imp * importance + w_rec * recency + w_dep * dependency
--                   - 0.30 if the memory is not active (only reachable with p_include_superseded)
--   ordered pinned first, then by ranking_score, then newest step.
--
-- Why the ranking differs from the first cut (each fix was measured on a 1024-dim port running
-- under a local agent brain):
--
--  1. The full-text query ORs the question's lexemes. websearch_to_tsquery and plainto_tsquery
--     AND their terms, so a natural-language question matched a row only if that single row held
--     every content word of the question: 0 of 15 rows matched, which left the FTS arm (45% of the
--     score) dead in exactly the no-embedding setup it exists for. The lexemes come from the same
--     'english' to_tsvector (same stemming and stopwords); each is quote_literal-ed, so quotes or
--     backslashes in the question cannot break the tsquery, and it is built once per call. An
--     all-stopword question yields the empty tsquery: relevance 0, no error.
--  2. The full-text rank saturates as x / (1 + x), x = 10 * ts_rank_cd. LEAST(x, 1) pinned every
--     non-trivial match to exactly 1.0, after which recency alone decided the order; x / (1 + x)
--     is monotone over the whole range and stays below 1.
--  3. Every component is clamped into [0,1] before it is weighted. Cosine similarity is -1 on
--     opposed vectors, not 0, and used to subtract from the score. Each row reports
--     relevance_source (cosine / fts / none), so a partly embedded corpus shows in the trace
--     instead of silently ranking on structure alone.
--  4. The dependency normaliser is a frozen parameter, p_dependency_saturation (default 3): the
--     term is min(in-degree / saturation, 1). A normaliser taken from the candidate set (its
--     maximum degree) made a row's score depend on what else matched: the same decision scored
--     0.333 and 0.5 in two queries.
--  5. Step recency uses an e-folding distance of 30 steps, not 120: exp(-d/120) moved the score
--     by 0.0165 across 15 steps, inert at session scale (30 gives about 0.06). Distance is
--     measured from GREATEST(p_current_step, the newest step of the row's task stream among the
--     filtered candidates), which is defined for every row: a stale or missing p_current_step no
--     longer floors every row to recency 1.0, and the wall-clock branch (p_half_life_days) is
--     gone.
--
-- All weights, the half-life and the saturation point are parameters; these are the defaults. A
-- NULL or non-positive half-life or saturation falls back to its default; a NULL weight counts
-- as 0; a NULL or < 1 match count means 10.
--
-- How it is computed (the result is the one the formula above gives over all candidates; only
-- work that cannot change it is skipped; see migrations/README.md, "Recall performance"):
--  * Each stream's anchor (fix 5) is its newest candidate, read off the stream index; a pass over
--    the candidates replaces that when a workspace has more than 64 streams or a stream's 20
--    newest rows hold no candidate.
--  * The newest candidates of each stream are scored first. The p_match_count-th best of those
--    scores is reached by p_match_count rows, so a row whose upper bound (its score with the
--    highest relevance it can have) is lower cannot be returned: it is dropped before
--    ts_rank_cd, which costs far more than the rest of a row's score.
--  * plan_cache_mode = force_custom_plan: the plan is made for each call's own arguments; a cached
--    generic plan misjudged the optional filters (about 100 rows instead of 10,000) and was slower.
CREATE FUNCTION public.match_decision_ledger(
  p_workspace_id          text,
  p_query                 text DEFAULT NULL,
  p_query_embedding       vector(1536) DEFAULT NULL,
  p_project_id            text DEFAULT NULL,
  p_task_id               text DEFAULT NULL,
  p_current_step          integer DEFAULT NULL,
  p_match_count           integer DEFAULT 10,
  p_w_similarity          float DEFAULT 0.45,
  p_w_importance          float DEFAULT 0.25,
  p_w_recency             float DEFAULT 0.15,
  p_w_dependency          float DEFAULT 0.15,
  p_half_life_steps       float DEFAULT 30.0,
  p_dependency_saturation float DEFAULT 3.0,
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
SET search_path = public, extensions
SET jit = off
SET plan_cache_mode = force_custom_plan
AS $fn$
DECLARE
  v_tsquery    tsquery;
  v_half_life  float := CASE WHEN p_half_life_steps > 0 THEN p_half_life_steps ELSE 30.0 END;
  v_saturation float := CASE WHEN p_dependency_saturation > 0 THEN p_dependency_saturation ELSE 3.0 END;
  v_limit      integer := CASE WHEN p_match_count >= 1 THEN p_match_count ELSE 10 END;
BEGIN
  -- Fix 1: OR the question's own lexemes, once per call.
  IF p_query IS NOT NULL AND btrim(p_query) <> '' THEN
    SELECT coalesce(string_agg(quote_literal(q.lexeme), ' | '), '')::tsquery
      INTO v_tsquery
    FROM unnest(tsvector_to_array(to_tsvector('english', p_query))) AS q(lexeme);
  END IF;

  RETURN QUERY
  WITH RECURSIVE
  -- The candidate rows, and the one place where the filters are written. Not materialized: each
  -- use below is planned on its own, as a full scan (the ranking pass, the fallback anchors) or as
  -- index lookups (the stream heads). Text and embeddings stay out of it; the document and the
  -- cosine are only computed where a use asks for them.
  candidate AS NOT MATERIALIZED (
    SELECT l.memory_id         AS c_memory_id,
           l.task_id           AS c_task_id,
           l.step_index        AS c_step_index,
           l.importance        AS c_importance,
           l.pinned            AS c_pinned,
           m.lifecycle_status  AS c_lifecycle_status,
           -- Fix 3 (a): the cosine arm applies only when both sides have an embedding.
           CASE WHEN p_query_embedding IS NOT NULL AND t.embedding IS NOT NULL THEN
             1 - (t.embedding <=> p_query_embedding)
           END                 AS c_cosine,
           -- The stored document while it is current; computed here for a row that has none, or
           -- whose content was edited in agent_memories since.
           CASE WHEN l.search_content_hash = hashtextextended(m.content, 0) THEN l.search_document
                ELSE to_tsvector('english', coalesce(m.content, '') || ' ' || coalesce(l.rationale, ''))
           END                 AS c_document
    FROM public.agent_decision_ledger AS l
    JOIN public.agent_memories AS m ON m.id = l.memory_id
    LEFT JOIN public.thoughts AS t ON t.id = m.thought_id
    WHERE l.workspace_id = p_workspace_id
      AND (p_project_id IS NULL OR l.project_id = p_project_id)
      AND (p_task_id IS NULL OR l.task_id = p_task_id)
      AND (coalesce(p_include_superseded, false) OR m.lifecycle_status = 'active')
  ),
  -- In-degree: active decisions that depend on this one.
  in_degree AS NOT MATERIALIZED (
    SELECT e.to_memory_id AS g_memory_id, count(*) AS g_in_degree
    FROM public.agent_decision_edges AS e
    JOIN public.agent_memories AS fm ON fm.id = e.from_memory_id
    WHERE e.relation = 'depends_on' AND fm.lifecycle_status = 'active'
    GROUP BY e.to_memory_id
  ),
  -- Fix 5 needs each task stream's newest step among the candidates: the recency anchor. The
  -- streams of the workspace are read off idx_agent_decision_ledger_stream one key at a time
  -- (a loose index scan, stopped after 65 keys: more streams take the fallback below).
  stream_key AS (
    (SELECT l.task_id AS k_task_id FROM public.agent_decision_ledger AS l
      WHERE l.workspace_id = p_workspace_id AND l.task_id IS NOT NULL
        AND (p_task_id IS NULL OR l.task_id = p_task_id)
      ORDER BY l.task_id LIMIT 1)
    UNION ALL
    SELECT (SELECT l.task_id FROM public.agent_decision_ledger AS l
             WHERE l.workspace_id = p_workspace_id AND l.task_id > k.k_task_id
               AND (p_task_id IS NULL OR l.task_id = p_task_id)
             ORDER BY l.task_id LIMIT 1)
    FROM stream_key AS k
    WHERE k.k_task_id IS NOT NULL
  ),
  -- The streams: those keys, and the NULL stream (all rows without a task_id) when it has rows.
  stream AS MATERIALIZED (
    (SELECT k.k_task_id FROM stream_key AS k WHERE k.k_task_id IS NOT NULL LIMIT 65)
    UNION ALL
    SELECT NULL WHERE p_task_id IS NULL AND EXISTS (
      SELECT 1 FROM public.agent_decision_ledger AS l
      WHERE l.workspace_id = p_workspace_id AND l.task_id IS NULL)
  ),
  -- The stream heads: the newest candidates (up to 10) among the newest 20 ledger rows of each
  -- stream, through the same index. A stream whose newest 20 rows hold no candidate has no head.
  stream_head AS MATERIALIZED (
    SELECT s.k_task_id AS h_task_id, h.c_memory_id AS h_memory_id, h.c_step_index AS h_step_index
    FROM stream AS s
    CROSS JOIN LATERAL (
      SELECT c.c_memory_id, c.c_step_index
      FROM ((SELECT l.memory_id FROM public.agent_decision_ledger AS l
              WHERE s.k_task_id IS NOT NULL AND l.workspace_id = p_workspace_id AND l.task_id = s.k_task_id
              ORDER BY l.step_index DESC LIMIT 20)
            UNION ALL
            (SELECT l.memory_id FROM public.agent_decision_ledger AS l
              WHERE s.k_task_id IS NULL AND l.workspace_id = p_workspace_id AND l.task_id IS NULL
              ORDER BY l.step_index DESC LIMIT 20)) AS w
      CROSS JOIN LATERAL (
        SELECT c.c_memory_id, c.c_step_index FROM candidate AS c WHERE c.c_memory_id = w.memory_id OFFSET 0
      ) AS c
      ORDER BY c.c_step_index DESC
      LIMIT 10
    ) AS h
  ),
  -- The anchors: each stream's newest candidate step. From the heads when there are at most 64
  -- streams and every stream has a head (its first head is then the stream's newest candidate);
  -- otherwise from one pass over the candidates. Both give the same values; the heads only save
  -- that pass.
  stream_complete AS MATERIALIZED (
    SELECT (SELECT count(s.k_task_id) FROM stream AS s) <= 64
           AND NOT EXISTS (SELECT 1 FROM stream AS s
                           WHERE NOT EXISTS (SELECT 1 FROM stream_head AS h
                                             WHERE h.h_task_id IS NOT DISTINCT FROM s.k_task_id))
           AS complete
  ),
  anchor AS MATERIALIZED (
    SELECT h.h_task_id AS a_task_id, max(h.h_step_index) AS a_step
    FROM stream_head AS h
    WHERE (SELECT complete FROM stream_complete)
    GROUP BY h.h_task_id
    UNION ALL
    SELECT c.c_task_id, max(c.c_step_index)
    FROM candidate AS c
    WHERE NOT (SELECT complete FROM stream_complete)
    GROUP BY c.c_task_id
  ),
  -- One row: the anchors by task_id (a lookup per candidate, whatever the number of streams) and
  -- the anchor of the NULL stream.
  anchor_map AS MATERIALIZED (
    SELECT coalesce(jsonb_object_agg(a.a_task_id, a.a_step) FILTER (WHERE a.a_task_id IS NOT NULL), '{}') AS a_map,
           max(a.a_step) FILTER (WHERE a.a_task_id IS NULL) AS a_null_step
    FROM anchor AS a
  ),
  component AS NOT MATERIALIZED (
    SELECT c.c_memory_id,
           c.c_step_index,
           c.c_importance,
           c.c_pinned,
           c.c_lifecycle_status,
           c.c_cosine,
           c.c_document,
           LEAST(GREATEST(c.c_importance::float, 0), 1) AS s_importance,
           -- Fix 5: distance from the newest step of this row's task stream among the filtered
           -- candidates, or from p_current_step when that is newer.
           LEAST(GREATEST(exp(-GREATEST(GREATEST(p_current_step,
                                                 CASE WHEN c.c_task_id IS NULL
                                                      THEN (SELECT a.a_null_step FROM anchor_map AS a)
                                                      ELSE ((SELECT a.a_map FROM anchor_map AS a) ->> c.c_task_id)::integer END)
                                        - c.c_step_index, 0)
                              / v_half_life), 0), 1)::float AS s_recency,
           -- Fix 4: a frozen saturation point, independent of the candidate set.
           LEAST(GREATEST(coalesce(g.g_in_degree, 0) / v_saturation, 0), 1)::float AS s_dependency
    FROM candidate AS c
    LEFT JOIN in_degree AS g ON g.g_memory_id = c.c_memory_id
  ),
  scored AS NOT MATERIALIZED (
    SELECT k.c_memory_id,
           k.c_step_index,
           k.c_importance,
           k.c_pinned,
           k.c_lifecycle_status,
           r.s_source,
           r.s_relevance,
           k.s_recency,
           k.s_dependency,
           (coalesce(p_w_similarity, 0) * r.s_relevance
            + coalesce(p_w_importance, 0) * k.s_importance
            + coalesce(p_w_recency, 0) * k.s_recency
            + coalesce(p_w_dependency, 0) * k.s_dependency
            - CASE WHEN k.c_lifecycle_status = 'active' THEN 0 ELSE 0.30 END)::float AS s_score,
           -- Upper bounds of s_score that pruning compares, computed without ts_rank_cd: relevance
           -- is in [0,1], and exactly 0 for a row without a cosine whose document does not match.
           -- s_cap needs only that (every other component at most 1); s_bound also the other
           -- components. Pruning only runs with weights within +-1e100, where LEAST(.., 1e100)
           -- changes nothing; it keeps a constant s_cap from overflowing when it is folded.
           (LEAST(greatest(coalesce(p_w_similarity, 0) * k.s_relevant, 0), 1e100)
            + LEAST(greatest(coalesce(p_w_importance, 0), 0), 1e100)
            + LEAST(greatest(coalesce(p_w_recency, 0), 0), 1e100)
            + LEAST(greatest(coalesce(p_w_dependency, 0), 0), 1e100))::float AS s_cap,
           (greatest(coalesce(p_w_similarity, 0) * k.s_relevant, 0)
            + coalesce(p_w_importance, 0) * k.s_importance
            + coalesce(p_w_recency, 0) * k.s_recency
            + coalesce(p_w_dependency, 0) * k.s_dependency
            - CASE WHEN k.c_lifecycle_status = 'active' THEN 0 ELSE 0.30 END)::float AS s_bound
    FROM (SELECT c.*,
                 CASE WHEN c.c_cosine IS NOT NULL OR (v_tsquery IS NOT NULL AND c.c_document @@ v_tsquery)
                      THEN 1 ELSE 0 END AS s_relevant
          FROM component AS c) AS k
    CROSS JOIN LATERAL (
      SELECT CASE
               WHEN k.c_cosine IS NOT NULL THEN 'cosine'
               WHEN v_tsquery IS NOT NULL THEN 'fts'
               ELSE 'none'
             END AS s_source,
             -- Fix 3: each component clamped into [0,1]. GREATEST also maps a NULL to 0, and NULLIF
             -- the NaN of a zero vector. Fix 2: the scaled rank x = 10 * ts_rank_cd saturates as
             -- x / (1 + x); a row that does not match the query ranks 0 by definition.
             CASE
               WHEN k.c_cosine IS NOT NULL THEN LEAST(GREATEST(nullif(k.c_cosine, 'NaN'), 0), 1)
               WHEN v_tsquery IS NOT NULL THEN
                 LEAST(GREATEST(x.c_scaled_fts_rank / (1 + x.c_scaled_fts_rank), 0), 1)
               ELSE 0
             END::float AS s_relevance
      FROM (SELECT CASE WHEN v_tsquery IS NOT NULL THEN
                     CASE WHEN k.c_document @@ v_tsquery THEN 10.0 * ts_rank_cd(k.c_document, v_tsquery) ELSE 0 END
                   END AS c_scaled_fts_rank
            OFFSET 0) AS x
    ) AS r
  ),
  -- Pruning, exact. The v_limit-th best (pinned, score) among the stream heads is reached by
  -- v_limit candidates, so a row whose upper bound is below it cannot be among the first v_limit
  -- rows: it is dropped before its relevance (ts_rank_cd) is computed. Only with weights within
  -- +-1e100 (so that no bound can overflow where the score does not); the margin covers rounding
  -- between a bound and the score. No threshold row (fewer heads than v_limit, or other weights):
  -- nothing is dropped.
  threshold AS MATERIALIZED (
    SELECT q.c_pinned AS t_pinned,
           q.s_score - 1e-9 * (1 + greatest(abs(coalesce(p_w_similarity, 0)), abs(coalesce(p_w_importance, 0)),
                                            abs(coalesce(p_w_recency, 0)), abs(coalesce(p_w_dependency, 0)))) AS t_score
    FROM scored AS q
    WHERE q.c_memory_id = ANY (ARRAY(SELECT h.h_memory_id FROM stream_head AS h))
      AND abs(coalesce(p_w_similarity, 0)) <= 1e100 AND abs(coalesce(p_w_importance, 0)) <= 1e100
      AND abs(coalesce(p_w_recency, 0)) <= 1e100 AND abs(coalesce(p_w_dependency, 0)) <= 1e100
    ORDER BY q.c_pinned DESC, q.s_score DESC
    OFFSET v_limit - 1
    LIMIT 1
  ),
  top AS (
    SELECT s.c_memory_id, s.c_step_index, s.c_importance, s.c_pinned, s.c_lifecycle_status, s.s_source,
           s.s_relevance, s.s_recency, s.s_dependency, s.s_score
    FROM scored AS s
    WHERE CASE WHEN (SELECT t.t_score FROM threshold AS t) IS NULL THEN true
               ELSE (s.c_pinned, s.s_cap) >= ((SELECT t.t_pinned FROM threshold AS t), (SELECT t.t_score FROM threshold AS t))
          END
      AND CASE WHEN (SELECT t.t_score FROM threshold AS t) IS NULL THEN true
               ELSE (s.c_pinned, s.s_bound) >= ((SELECT t.t_pinned FROM threshold AS t), (SELECT t.t_score FROM threshold AS t))
          END
    ORDER BY s.c_pinned DESC, s.s_score DESC, s.c_step_index DESC, s.c_memory_id
    LIMIT v_limit
  )
  SELECT top.c_memory_id, m.summary, m.content, l.rationale, top.c_step_index, top.c_importance,
         top.c_pinned, top.c_lifecycle_status, top.s_relevance, top.s_source, top.s_recency,
         top.s_dependency, top.s_score
  FROM top
  JOIN public.agent_memories AS m ON m.id = top.c_memory_id
  JOIN public.agent_decision_ledger AS l ON l.memory_id = top.c_memory_id
  ORDER BY top.c_pinned DESC, top.s_score DESC, top.c_step_index DESC, top.c_memory_id;
END;
$fn$;

COMMENT ON FUNCTION public.match_decision_ledger(text, text, vector, text, text, integer, integer,
  float, float, float, float, float, float, boolean) IS
  'Ranked decision recall: 0.45 relevance (cosine, else OR-ed full-text rank saturated as x/(1+x)) '
  '+ 0.25 importance + 0.15 step recency exp(-d/30), d from max(p_current_step, stream newest step) '
  '+ 0.15 dependency in-degree saturating at 3; each component clamped to [0,1]; -0.30 if not active; '
  'pinned first. relevance_source says which arm scored the row.';

------------------------------------------------------------------------------------------------
-- 4. Recall bookkeeping
------------------------------------------------------------------------------------------------

-- Count one recall of each listed decision (and one use when p_used); returns the rows touched.
CREATE OR REPLACE FUNCTION public.touch_decision_recall(p_memory_ids uuid[], p_used boolean DEFAULT false)
RETURNS integer
LANGUAGE plpgsql
SET search_path = public, extensions
AS $fn$
DECLARE
  v_touched integer;
BEGIN
  UPDATE public.agent_decision_ledger AS l
     SET recall_count     = l.recall_count + 1,
         used_count       = l.used_count + CASE WHEN p_used THEN 1 ELSE 0 END,
         last_recalled_at = now()
   WHERE l.memory_id = ANY (p_memory_ids);
  GET DIAGNOSTICS v_touched = ROW_COUNT;
  RETURN v_touched;
END;
$fn$;

-- Recall policies side by side. A trace without recall_policy in its response_policy is the
-- agent-memory API's plain vector recall. Traces with no items still count as requests; the
-- rates are NULL until some item has usage feedback. security_invoker: the reader's own
-- privileges (and RLS) on the agent-memory tables apply, not the view owner's.
CREATE OR REPLACE VIEW public.agent_recall_policy_stats
WITH (security_invoker = true)
AS
SELECT coalesce(tr.response_policy ->> 'recall_policy', 'vector')         AS recall_policy,
       count(DISTINCT tr.id)                                               AS recall_requests,
       count(it.id)                                                        AS items_returned,
       round(avg(it.similarity), 4)                                        AS avg_similarity,
       round(avg(it.ranking_score), 4)                                     AS avg_ranking_score,
       round(count(it.id) FILTER (WHERE it.used)::numeric
             / nullif(count(it.id) FILTER (WHERE it.used IS NOT NULL), 0), 4) AS used_rate,
       round(count(it.id) FILTER (WHERE NOT it.used)::numeric
             / nullif(count(it.id) FILTER (WHERE it.used IS NOT NULL), 0), 4) AS ignored_rate
FROM public.agent_memory_recall_traces AS tr
LEFT JOIN public.agent_memory_recall_items AS it ON it.trace_id = tr.id
GROUP BY 1;

COMMENT ON VIEW public.agent_recall_policy_stats IS
  'Per recall policy (response_policy.recall_policy, default vector): requests, items, average similarity and ranking score, used and ignored rates over items with usage feedback.';

------------------------------------------------------------------------------------------------
-- 5. RLS, policies, grants
------------------------------------------------------------------------------------------------

ALTER TABLE public.agent_decision_ledger ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.agent_decision_edges ENABLE ROW LEVEL SECURITY;

-- service_role bypasses RLS anyway; the policies state the intent (and keep Supabase's
-- "RLS enabled, no policy" advisor quiet), as the agent-memory tables do.
DROP POLICY IF EXISTS agent_decision_ledger_service_role_all ON public.agent_decision_ledger;
CREATE POLICY agent_decision_ledger_service_role_all ON public.agent_decision_ledger
  FOR ALL TO service_role USING (true) WITH CHECK (true);

DROP POLICY IF EXISTS agent_decision_edges_service_role_all ON public.agent_decision_edges;
CREATE POLICY agent_decision_edges_service_role_all ON public.agent_decision_edges
  FOR ALL TO service_role USING (true) WITH CHECK (true);

GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE
  public.agent_decision_ledger,
  public.agent_decision_edges
TO service_role;

GRANT SELECT ON TABLE public.agent_recall_policy_stats TO service_role;

-- EXECUTE: PostgreSQL grants it on every new function to PUBLIC, and Supabase's default
-- privileges add anon and authenticated, which would list both RPCs in the anon/authenticated
-- API (PostgREST exposes what the role may execute). The agent-memory pattern gives access to
-- service_role only, so EXECUTE is revoked from PUBLIC and every API role (the default privileges
-- give it to service_role too) and granted back to service_role explicitly on the two RPCs. The
-- trigger functions get the same revoke and no grant: a trigger
-- runs its function without an EXECUTE check (only CREATE TRIGGER checks it, as the owner), so
-- enrollment keeps working for every role that may insert into agent_memories. All of them are
-- SECURITY INVOKER: table privileges and RLS still decide what a caller can read or change.
REVOKE ALL ON FUNCTION
  public.match_decision_ledger(text, text, vector, text, text, integer, integer,
                               float, float, float, float, float, float, boolean),
  public.touch_decision_recall(uuid[], boolean),
  public.agent_decision_ledger_enroll(),
  public.agent_decision_ledger_search_document(),
  public.agent_decision_ledger_set_updated_at()
FROM PUBLIC, anon, authenticated, service_role;

GRANT EXECUTE ON FUNCTION
  public.match_decision_ledger(text, text, vector, text, text, integer, integer,
                               float, float, float, float, float, float, boolean),
  public.touch_decision_recall(uuid[], boolean)
TO service_role;

-- Delivered at COMMIT.
NOTIFY pgrst, 'reload schema';

COMMIT;

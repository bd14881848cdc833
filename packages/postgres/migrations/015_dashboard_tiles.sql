-- Text cards are rows of their own, as PostHog keeps them: a card has an author and a last editor
-- that its dashboard does not, and it keeps its id when its tile is moved or recoloured, which is
-- what clients send back to edit it.
CREATE TABLE dashboard_texts (
  id serial PRIMARY KEY,
  -- The project, not the dashboard: a copied dashboard gets copies, never the same row, but a
  -- lookup by id must still be scoped to whoever asks.
  project_id integer NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  body text,
  created_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  last_modified_by_id integer REFERENCES users (id) ON DELETE SET NULL,
  last_modified_at timestamptz NOT NULL DEFAULT now()
);

-- No route ever wrote a tile without an insight (the `text` column of 014 was never filled), so
-- there is nothing to carry over, and the check below holds for every row already there.
DELETE FROM dashboard_tiles WHERE insight_id IS NULL;

ALTER TABLE dashboard_tiles
  DROP COLUMN text,
  ADD COLUMN text_id integer REFERENCES dashboard_texts (id) ON DELETE CASCADE,
  -- Soft, as PostHog's: a tile taken off keeps its layout and colour for when its insight is put
  -- back, and deleting a dashboard can be undone with the tiles it had.
  ADD COLUMN deleted boolean NOT NULL DEFAULT false,
  -- Null is kept apart from {}: PostHog answers what was last written.
  ADD COLUMN filters_overrides jsonb DEFAULT '{}',
  ADD COLUMN show_description boolean,
  ADD COLUMN transparent_background boolean,
  ADD CONSTRAINT dashboard_tiles_insight_or_text CHECK ((insight_id IS NULL) <> (text_id IS NULL));

-- A text is shown once per dashboard, as an insight is (the UNIQUE of 014).
CREATE UNIQUE INDEX dashboard_tiles_text_once ON dashboard_tiles (dashboard_id, text_id) WHERE text_id IS NOT NULL;
CREATE INDEX dashboard_tiles_of_text ON dashboard_tiles (text_id) WHERE text_id IS NOT NULL;

-- Display settings PostHog answers as they were written; nothing here reads them.
ALTER TABLE dashboards
  ADD COLUMN breakdown_colors jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN data_color_theme_id integer;

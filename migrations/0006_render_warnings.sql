-- 0006_render_warnings: what a succeeded render's page asked for and did not get (docs/rendering.md "Warnings"):
-- a JSON list of at most 20 {reason, url, host?}; NULL when there was nothing.
ALTER TABLE renders ADD COLUMN warnings TEXT;

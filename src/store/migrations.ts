/** store/migrations: the SQL files of migrations/, embedded in the binary at build time. */
import init from "../../migrations/0001_init.sql" with { type: "text" };
import assets from "../../migrations/0002_assets.sql" with { type: "text" };
import webhooks from "../../migrations/0003_webhooks.sql" with { type: "text" };
import rendering from "../../migrations/0004_rendering.sql" with { type: "text" };
import idempotency from "../../migrations/0005_idempotency.sql" with { type: "text" };
import renderWarnings from "../../migrations/0006_render_warnings.sql" with { type: "text" };
import certificates from "../../migrations/0007_certificates.sql" with { type: "text" };
import pdfOptions from "../../migrations/0008_pdf_options.sql" with { type: "text" };
import destinations from "../../migrations/0009_destinations.sql" with { type: "text" };
import templateConversions from "../../migrations/0010_template_conversions.sql" with { type: "text" };
import renderLeases from "../../migrations/0011_render_leases.sql" with { type: "text" };
import queueTurns from "../../migrations/0012_queue_turns.sql" with { type: "text" };
import fileDeletions from "../../migrations/0013_file_deletions.sql" with { type: "text" };
import pageImages from "../../migrations/0014_page_images_and_operations.sql" with { type: "text" };
import renderOrigin from "../../migrations/0015_render_origin.sql" with { type: "text" };
import outputSpool from "../../migrations/0016_output_spool.sql" with { type: "text" };
import renderMinutes from "../../migrations/0017_render_minutes.sql" with { type: "text" };

/** MIGRATIONS lists every migration in order; a new file is added here and never edited once shipped. */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  { version: 1, name: "0001_init", sql: init },
  { version: 2, name: "0002_assets", sql: assets },
  { version: 3, name: "0003_webhooks", sql: webhooks },
  { version: 4, name: "0004_rendering", sql: rendering },
  { version: 5, name: "0005_idempotency", sql: idempotency },
  { version: 6, name: "0006_render_warnings", sql: renderWarnings },
  { version: 7, name: "0007_certificates", sql: certificates },
  { version: 8, name: "0008_pdf_options", sql: pdfOptions },
  { version: 9, name: "0009_destinations", sql: destinations },
  { version: 10, name: "0010_template_conversions", sql: templateConversions },
  { version: 11, name: "0011_render_leases", sql: renderLeases },
  { version: 12, name: "0012_queue_turns", sql: queueTurns },
  { version: 13, name: "0013_file_deletions", sql: fileDeletions },
  { version: 14, name: "0014_page_images_and_operations", sql: pageImages },
  { version: 15, name: "0015_render_origin", sql: renderOrigin },
  { version: 16, name: "0016_output_spool", sql: outputSpool },
  { version: 17, name: "0017_render_minutes", sql: renderMinutes },
];

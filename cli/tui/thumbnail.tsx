/**
 * tui/thumbnail: a render's first page in the terminal (issue 30) — drawn from its stored PDF by pdftoppm, 40 × 56
 * pixels, each pixel a Braille dot (2 × 4 to a character), inked where the page is dark: the layout of the page
 * (its title, its table, a blank page) in any UTF-8 terminal, with colour or without (NO_COLOR), under tmux, where no
 * terminal image protocol is there to count on. Loaded outside rendering, once per PDF.
 */
import { Box, Text } from "ink";
import { createContext, useContext, useEffect, useState } from "react";
import { pagePixels, type Pixels } from "../../src/pdf/rasterize";
import type { FileStore } from "../../src/store/files";

/** THUMBNAIL_COLUMNS × THUMBNAIL_ROWS characters: an A4 page's proportions at 2 × 4 dots a character. */
export const THUMBNAIL_COLUMNS = 20;
const DOTS_WIDE = THUMBNAIL_COLUMNS * 2;
// A dot is inked where the page is darker than this (0 black … 255 white): text and rules, not a light fill.
const INK = 180;
// The Braille cell's dot bits, by column then row (U+2800 + bits).
const DOT = [
  [0x01, 0x02, 0x04, 0x40],
  [0x08, 0x10, 0x20, 0x80],
];

/** ThumbnailFiles gives the thumbnails the file store the PDFs are read from. */
export const ThumbnailFiles = createContext<FileStore | null>(null);

/** brailleLines draws pixels as lines of Braille characters, a dot per pixel darker than INK. */
export function brailleLines(pixels: Pixels): string[] {
  const lines: string[] = [];
  const dark = (x: number, y: number) => {
    if (x >= pixels.width || y >= pixels.height) return false;
    const at = (y * pixels.width + x) * 3;
    return 0.299 * pixels.rgb[at]! + 0.587 * pixels.rgb[at + 1]! + 0.114 * pixels.rgb[at + 2]! < INK;
  };
  for (let y = 0; y < pixels.height; y += 4) {
    let line = "";
    for (let x = 0; x < pixels.width; x += 2) {
      let bits = 0;
      for (let dx = 0; dx < 2; dx++) for (let dy = 0; dy < 4; dy++) if (dark(x + dx, y + dy)) bits |= DOT[dx]![dy]!;
      line += String.fromCharCode(0x2800 + bits);
    }
    lines.push(line);
  }
  return lines;
}

// Drawn once per PDF for the life of the console: the same render is selected again and again as the list refreshes.
const drawn = new Map<string, Promise<string[]>>();

/** useThumbnail answers the Braille lines of page 1 of the stored PDF `sha256`, once drawn; null meanwhile or when it
 * cannot be drawn (a PDF only its user password opens, bytes gone). */
function useThumbnail(sha256: string | null): string[] | null {
  const files = useContext(ThumbnailFiles);
  const [lines, setLines] = useState<string[] | null>(null);
  useEffect(() => {
    setLines(null);
    if (!files || !sha256) return;
    let live = true;
    let pending = drawn.get(sha256);
    if (!pending) {
      pending = files.read("outputs", sha256).then(async (pdf) => (pdf ? brailleLines(await pagePixels(pdf, 1, DOTS_WIDE)) : []));
      drawn.set(sha256, pending);
    }
    pending.then(
      (l) => live && setLines(l),
      () => live && setLines([]),
    );
    return () => {
      live = false;
    };
  }, [files, sha256]);
  return lines;
}

/** Thumbnail shows a succeeded render's page count, size and first page; nothing for a render without a PDF. */
export function Thumbnail({ render }: { render: { outputSha256: string | null; pages: number | null; bytes: number | null } | undefined }) {
  const lines = useThumbnail(render?.outputSha256 ?? null);
  if (!render?.outputSha256) return null;
  return (
    <Box flexDirection="column" marginLeft={2} width={THUMBNAIL_COLUMNS + 2}>
      <Text dimColor>{`${render.pages} page${render.pages === 1 ? "" : "s"} · ${Math.max(1, Math.round((render.bytes ?? 0) / 1024))} kB`}</Text>
      <Box borderStyle="single" flexDirection="column" width={THUMBNAIL_COLUMNS + 2}>
        {lines === null ? <Text dimColor>drawing…</Text> : lines.length ? lines.map((l, i) => <Text key={i}>{l}</Text>) : <Text dimColor>no preview</Text>}
      </Box>
    </Box>
  );
}

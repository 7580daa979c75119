/** page: a template's page settings as a CSS `@page` rule. */
import type { PageSettings } from "./model";

const MM_PER_UNIT: Record<string, number> = { mm: 1, cm: 10, in: 25.4, px: 25.4 / 96 };

// Lengths already passed the PageLength pattern, so number + unit is all there is.
function millimetres(length: string): number {
  const unit = length.slice(-2);
  return Number(length.slice(0, -2)) * MM_PER_UNIT[unit];
}

function sizeValue(page: PageSettings): string | undefined {
  const { size, orientation } = page;
  if (size === undefined) return orientation;
  if (typeof size === "string") return orientation ? `${size} ${orientation}` : size;
  // CSS does not allow an orientation after explicit lengths: turn the sheet so its long side follows it.
  const wide = millimetres(size.width) > millimetres(size.height);
  const turn = (orientation === "landscape" && !wide) || (orientation === "portrait" && wide);
  return turn ? `${size.height} ${size.width}` : `${size.width} ${size.height}`;
}

/** pageCss gives the `@page` rule of page settings, or "" for none; Chromium obeys it with `preferCSSPageSize`. */
export function pageCss(page: PageSettings | undefined): string {
  if (!page) return "";
  const declarations: string[] = [];
  const size = sizeValue(page);
  if (size) declarations.push(`size:${size}`);
  for (const side of ["top", "right", "bottom", "left"] as const) {
    const length = page.margin?.[side];
    if (length) declarations.push(`margin-${side}:${length}`);
  }
  return declarations.length ? `@page{${declarations.join(";")}}` : "";
}

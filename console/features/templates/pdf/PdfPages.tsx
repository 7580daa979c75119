/** PdfPages: a PDF's pages drawn as wide as their frame — the template's live preview (with each page's text laid over
 * it), and the starters' thumbnails. The pages of a new PDF replace the old ones only once they are drawn, so an
 * update never flashes. */
import { type RefObject, useEffect, useRef, useState } from "react";

interface Props {
  pdf: Uint8Array | undefined;
  /** The accessible name of page n of count, e.g. "Page 1 of 2". */
  pageLabel: (n: number, count: number) => string;
  maxPages?: number;
  /** Lay each page's text over it (readable by a screen reader, found, copied); a page without it is an image. */
  text?: boolean;
  /** Called when the pages of a PDF could not be drawn (not a PDF pdf.js can read). */
  onError?: (error: Error) => void;
}

/** useWidth answers the width of the element `ref` points at, following its changes. */
function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    if (!ref.current) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry!.contentRect.width)));
    observer.observe(ref.current);
    return () => observer.disconnect();
  }, [ref]);
  return width;
}

/** PdfPages draws the pages of `pdf` into its frame. */
export function PdfPages({ pdf, pageLabel, maxPages, text = false, onError }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const width = useWidth(host);
  const failed = useRef(onError);
  failed.current = onError;

  useEffect(() => {
    if (!pdf || width === 0) return;
    let current = true;
    void import("./draw")
      .then(({ drawPages }) => drawPages(pdf, width, { maxPages, text }))
      .then((pages) => {
        if (!current || !host.current) return;
        pages.forEach((page, i) => {
          page.setAttribute("role", text ? "group" : "img");
          page.setAttribute("aria-label", pageLabel(i + 1, pages.length));
        });
        host.current.replaceChildren(...pages);
      })
      .catch((e: Error) => current && failed.current?.(e));
    return () => {
      current = false;
    };
    // pageLabel is a pure formatter: a new function each render must not redraw the pages.
  }, [pdf, width, maxPages, text]);

  return <div className="pdf-pages" ref={host} />;
}

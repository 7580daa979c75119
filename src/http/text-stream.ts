/** http/text-stream: a response body made from pieces of text produced on demand, so a large document never sits whole
 * in memory. */

// Pieces are gathered up to this many characters before they are sent, so small pieces do not become small writes.
const FLUSH_CHARS = 64 * 1024;

/** textStream answers a byte stream that pulls `pieces` only as fast as the client reads; a piece that throws ends the
 * stream with that error (the client sees the body cut short) after `onError` is told. */
export function textStream(pieces: AsyncIterator<string>, onError: (error: unknown) => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = "";
      try {
        while (text.length < FLUSH_CHARS) {
          const next = await pieces.next();
          if (next.done) {
            if (text) controller.enqueue(encoder.encode(text));
            controller.close();
            return;
          }
          text += next.value;
        }
      } catch (error) {
        onError(error);
        controller.error(error);
        return;
      }
      controller.enqueue(encoder.encode(text));
    },
    async cancel() {
      await pieces.return?.(undefined);
    },
  });
}

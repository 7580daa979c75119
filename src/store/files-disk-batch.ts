/** store/files-disk-batch: writes batches of files durably in a worker thread (files-disk-batch.worker.js), for
 * DiskFiles.putMany. A whole batch costs the event loop one message each way, and the disk two flushes of the
 * filesystem (syncfs) in all, where a put costs three trips to the thread pool and two fsyncs per file. */
import code from "./files-disk-batch.worker.js" with { type: "text" };

/** BatchFile is one file of a batch: its bytes go to `temp`, then are renamed to `target`, making `folder` first when
 * it is set. */
export interface BatchFile {
  temp: string;
  target: string;
  folder?: string;
  bytes: Uint8Array;
}

/** keepAlive refs or unrefs a worker: Bun's Worker has ref() and unref(), which the type of the global lacks, the DOM's
 * with tsconfig's DOM library. */
function keepAlive(worker: Worker, on: boolean): void {
  const bunWorker = worker as unknown as Bun.Worker;
  if (on) bunWorker.ref();
  else bunWorker.unref();
}

// The worker's code as a Blob URL, made once a process: every BatchWriter starts its worker from it.
let workerSource: string | undefined;

interface Answer {
  id: number;
  error?: string;
}

/** BatchWriter owns the worker thread, started at the first batch; close() ends it. */
export class BatchWriter {
  private worker?: Worker;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private next = 0;

  /** write answers once every file of the batch is renamed to its target and flushed, with `root` naming the
   * filesystem to flush; it rejects with the worker's error, the temporary files then deleted. */
  write(root: string, files: BatchFile[]): Promise<void> {
    const worker = this.started();
    const id = ++this.next;
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.waiting.set(id, { resolve, reject });
    // While a batch is in flight the worker keeps the process up, so a stop that waits for the batch sees its answer.
    keepAlive(worker, true);
    worker.postMessage({ id, root, files });
    return promise;
  }

  /** close ends the worker; a batch still in flight fails. */
  close(): void {
    this.worker?.terminate();
    this.worker = undefined;
    this.settle((waiting) => waiting.reject(new Error("the file store was closed while a batch was being written")));
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    workerSource ??= URL.createObjectURL(new Blob([code], { type: "application/javascript" }));
    const worker = new Worker(workerSource);
    worker.onmessage = ({ data }: MessageEvent<Answer>) => {
      const waiting = this.waiting.get(data.id);
      this.waiting.delete(data.id);
      if (this.waiting.size === 0) keepAlive(worker, false);
      if (data.error === undefined) waiting?.resolve();
      else waiting?.reject(new Error(data.error));
    };
    // The worker could not start or threw outside a batch (libc without syncfs): every batch in flight fails with it.
    worker.onerror = (event) => {
      this.worker = undefined;
      worker.terminate();
      this.settle((waiting) => waiting.reject(new Error(`the file store's batch writer failed: ${event.message}`)));
    };
    this.worker = worker;
    return worker;
  }

  private settle(each: (waiting: { resolve: () => void; reject: (err: Error) => void }) => void): void {
    for (const waiting of this.waiting.values()) each(waiting);
    this.waiting.clear();
  }
}

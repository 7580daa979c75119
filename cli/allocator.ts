/**
 * cli/allocator: the memory allocator's settings `renderd serve` runs with (docs/performance.md "Fourth pass",
 * docs/decisions.md "Operations").
 *
 * Bun's mimalloc hands the event loop's heap to its scavenger thread each time the loop waits, and sweeps it for free
 * blocks inside used pages at most every 100 ms by default: under load the loop waits hundreds of times a second, so
 * that sweep cost ~0.4 ms of CPU per invoice at concurrency 8. Every 2 s keeps the memory it gives back (the same
 * resident size in bench runs) and takes that CPU away. mimalloc reads its options from the environment once, at
 * process start, so serve starts itself again — same process id, same arguments — with them set. A value the
 * operator set is kept.
 */
export const ALLOCATOR_SETTINGS: Readonly<Record<string, string>> = { MIMALLOC_PURGE_HOLES_MIN_INTERVAL: "2000" };

/** withAllocatorSettings replaces this process with itself under ALLOCATOR_SETTINGS, unless each is set already;
 * returns only then, or when the replacement failed (serve goes on with the defaults, and says so). */
export function withAllocatorSettings(): void {
  const missing = Object.entries(ALLOCATOR_SETTINGS).filter(([name]) => process.env[name] === undefined);
  if (missing.length === 0) return;
  // A compiled binary's argv is [bun, /$bunfs/root/<name>, ...arguments]; a source run's [bun, script, ...arguments],
  // after Bun's own flags (execArgv).
  const compiled = Bun.main.startsWith("/$bunfs/");
  const args = compiled ? process.argv.slice(2) : [...process.execArgv, ...process.argv.slice(1)];
  try {
    if (!process.execve) throw new Error("process.execve is missing");
    process.execve(process.execPath, [process.execPath, ...args], { ...process.env, ...Object.fromEntries(missing) });
  } catch (e) {
    process.stderr.write(`renderd: serving with the allocator's default settings: restarting with them failed (${(e as Error).message})\n`);
  }
}

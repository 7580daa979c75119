// Stand-in for `react-devtools-core`, which Ink imports (ink/build/devtools.js) only when DEV=true.
// The package is an optional peer of Ink and is not installed, but `bun build --compile` must
// resolve every static import, so scripts/build.ts points the name here. The appliance never
// connects to React DevTools: both calls do nothing.

/** initialize is a no-op: there are no devtools in the compiled binary. */
export function initialize(): void {}

/** connectToDevTools is a no-op: there are no devtools in the compiled binary. */
export function connectToDevTools(): void {}

export default { initialize, connectToDevTools };

/**
 * Holds the simulator's answers of a conversations list past the first `free` until `open()`: a run that reads more
 * cannot end before the test lets it (test/engine/redis-sentinel.int.test.ts, test/reliability/redis-residue.int.test.ts).
 * Pass `beforeAnswer` to the simulator's options.
 */
export function conversationsGate(free: number) {
  let answered = 0;
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    beforeAnswer: ({ path }: { path: string }) =>
      path.endsWith('/conversations') && ++answered > free ? opened : undefined,
    open: () => open(),
  };
}

/**
 * Runs `task` over `items` with at most `concurrency` tasks in flight, and returns the results in the
 * order of the items. Shared by the plan's target meetings (D-RUN-PLAN), the client harness's
 * scenarios and the meta-tests' servers.
 */
export async function pool<T, R>(items: readonly T[], concurrency: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return results;
}

/**
 * Starts a target for one test and always closes it, whatever the test's outcome.
 */
export interface Running {
  url: string;
  close(): Promise<void>;
}

/** Runs `body` with a server started by `start`, closing it afterwards. */
export async function withServer<T>(start: () => Promise<Running>, body: (url: string) => Promise<T>): Promise<T> {
  const server = await start();
  try {
    return await body(server.url);
  } finally {
    await server.close();
  }
}

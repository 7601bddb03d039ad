/**
 * The calls that requests make within one event-loop turn, sent to Redis together (D-RATE-LIMIT
 * shared store and D-IDEMPOTENCY at fewer round trips; reference-impl/README.md, Hot paths).
 *
 * Requests that arrive together (the sockets one poll of the event loop found readable) each start
 * their store call in the same turn; `add` queues the call and the queue is flushed by setImmediate,
 * once that turn's I/O callbacks have run, as one `send` of up to `maxBatch` calls. A Lua script
 * that runs the calls one after the other gives each the result it would get alone, in arrival
 * order, for one round trip and one script invocation instead of one per request. A lone call is
 * sent alone, in the same turn.
 */
/** A result that fails its one call of a batch (the others go on), e.g. a call that could not be encoded. */
export class CallFailed {
  constructor(readonly error: unknown) {}
}

export class Batcher<Call, Result> {
  private queue: { call: Call; resolve: (result: Result) => void; reject: (error: unknown) => void }[] = [];

  /**
   * `send` answers the calls it is given with one result each, in order: a CallFailed fails its call
   * alone; a rejection fails them all.
   */
  constructor(
    private readonly send: (calls: Call[]) => Promise<(Result | CallFailed)[]>,
    private readonly maxBatch = 64,
  ) {}

  add(call: Call): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      if (this.queue.push({ call, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const queued = this.queue;
    this.queue = [];
    for (let start = 0; start < queued.length; start += this.maxBatch) {
      const chunk = queued.slice(start, start + this.maxBatch);
      let sent: Promise<(Result | CallFailed)[]>;
      try {
        sent = this.send(chunk.map((entry) => entry.call));
      } catch (error) {
        sent = Promise.reject(error);
      }
      sent
        .then((results) => {
          if (results.length !== chunk.length) throw new Error(`a batch of ${chunk.length} calls was answered with ${results.length} results`);
          chunk.forEach((entry, index) => {
            const result = results[index];
            if (result instanceof CallFailed) entry.reject(result.error);
            else entry.resolve(result as Result);
          });
        })
        .catch((error: unknown) => {
          for (const entry of chunk) entry.reject(error);
        });
    }
  }
}

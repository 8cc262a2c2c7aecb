import { DatabaseError } from 'pg';

interface Waiting<I, R> {
  input: I;
  /** The same write as a statement of its own: a batch of one, and each write of a batch the server refused. */
  alone: () => Promise<R>;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface BatchJob<I, R> {
  /**
   * Every input's write in one statement (one transaction: all of them or none), answering in the inputs' order; an
   * Error in an input's place fails that caller alone (its row was not there to write, as its own statement finds).
   */
  many(inputs: I[]): Promise<Array<R | Error>>;
  /** Inputs that must not share a statement (a multi-row UPDATE applies one of two rows for the same key). */
  key(input: I): string;
}

/**
 * Group commit on PostgreSQL: the same write of many requests in one statement. A statement costs the server far
 * more than a row (bench/: 0.34 ms of PostgreSQL's CPU per charge written one per statement, 0.1 ms ten per
 * statement), so under load the writes that arrive while the previous batch is at the server go together in the
 * next. One batch of a kind at a time (`maxInFlight`): at saturation two took more CPU per charge, in RouteGate and
 * in PostgreSQL (`npm run bench:scale`, alternated runs), for smaller batches. A quiet service never waits: with no
 * batch out, a write goes on the next turn of the event loop (with whatever else that turn queued), alone as its own
 * statement when it is alone.
 *
 * Every caller still awaits its own commit. When the server refuses a batch (an error answer: nothing of it was
 * committed) each write is replayed as its own statement, so one bad write fails alone. A batch whose answer never
 * came (the connection failed) fails every write in it with that error, as each alone would have: none is replayed,
 * since any of them may have committed.
 */
export class StatementBatcher<I, R> {
  private queue: Array<Waiting<I, R>> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly job: BatchJob<I, R>, private readonly maxInFlight = 1, private readonly maxBatch = 64) {}

  submit(input: I, alone: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ input, alone, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      const batch = this.take();
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  };

  /** The next batch: up to maxBatch writes in arrival order, a second write of one key left for a later batch. */
  private take(): Array<Waiting<I, R>> {
    const batch: Array<Waiting<I, R>> = [];
    const rest: Array<Waiting<I, R>> = [];
    const keys = new Set<string>();
    for (const w of this.queue) {
      const key = this.job.key(w.input);
      if (batch.length < this.maxBatch && !keys.has(key)) {
        keys.add(key);
        batch.push(w);
      } else rest.push(w);
    }
    this.queue = rest;
    return batch;
  }

  private async run(batch: Array<Waiting<I, R>>): Promise<void> {
    if (batch.length === 1) return settleAlone(batch[0]);
    let results: Array<R | Error>;
    try {
      results = await this.job.many(batch.map((w) => w.input));
    } catch (err) {
      if (err instanceof DatabaseError) {
        await Promise.all(batch.map(settleAlone));
        return;
      }
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const result = results[i];
      if (result instanceof Error) w.reject(result);
      else w.resolve(result);
    });
  }
}

async function settleAlone<I, R>(w: Waiting<I, R>): Promise<void> {
  try {
    w.resolve(await w.alone());
  } catch (err) {
    w.reject(err);
  }
}

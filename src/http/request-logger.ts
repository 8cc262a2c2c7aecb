import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/** What RouteGate's loggers are (pino's), beyond Fastify's logger type. */
export type PinoLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean; levels: { values: Record<string, number> }; bindings(): Bindings };

/**
 * A request's logger that makes its pino child only when a line is written at an enabled level. pino serializes
 * a child's bindings when the child is made, so a child per request costs every request that work (about 1.5%
 * of a charge's CPU) even where nothing is written at the service's level. Lines, bindings and levels are the
 * child's own: this only delays making it.
 */
export class RequestLogger {
  private made?: PinoLogger;

  constructor(
    private readonly parent: PinoLogger,
    private readonly ownBindings: Bindings,
    private readonly options: ChildLoggerOptions,
    /** Applied to the bindings when the child is made (secrets censored). */
    private readonly prepare: (bindings: Bindings) => Bindings,
  ) {}

  private real(): PinoLogger {
    this.made ??= this.parent.child(this.prepare(this.ownBindings), this.options) as PinoLogger;
    return this.made;
  }

  get level(): string {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    if (this.made) return this.made.isLevelEnabled(level);
    const values = this.parent.levels.values;
    return values[level] !== undefined && values[level] >= values[this.level];
  }

  trace(...args: unknown[]): void { this.write('trace', args); }
  debug(...args: unknown[]): void { this.write('debug', args); }
  info(...args: unknown[]): void { this.write('info', args); }
  warn(...args: unknown[]): void { this.write('warn', args); }
  error(...args: unknown[]): void { this.write('error', args); }
  fatal(...args: unknown[]): void { this.write('fatal', args); }
  silent(): void {}

  private write(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }

  /** A child of this logger: made from the request's own child, so it carries the request's bindings. */
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options) as FastifyBaseLogger;
  }

  bindings(): Bindings {
    return this.real().bindings();
  }
}

/** Fastify's `childLoggerFactory`: every request's logger is a RequestLogger (its pino child made on first use). */
export function requestLoggerFactory(prepare: (bindings: Bindings) => Bindings) {
  return (logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger => {
    return new RequestLogger(logger as PinoLogger, bindings, options, prepare) as unknown as FastifyBaseLogger;
  };
}

import { parseArgs, type ParseArgsConfig } from 'node:util';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** A command line that is wrong: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(message: string, readonly usage: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * node:util parseArgs in strict mode: an unknown flag, a flag without its value or a stray argument is a
 * UsageError naming it, never silently ignored. `--help`/`-h` is known to every command.
 */
export function parseStrict(argv: string[], options: OptionSpec, positionalNames: string[], usage: string): Parsed & { help: boolean } {
  let parsed: Parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true }) as Parsed;
  } catch (err) {
    // parseArgs' messages name the flag; drop its hint about `--` which does not apply to routegate.
    const message = (err as Error).message.split('. To specify a positional argument')[0];
    throw new UsageError(message.replace(/\.$/, ''), usage);
  }
  const help = parsed.values.help === true;
  if (!help && parsed.positionals.length > positionalNames.length) {
    throw new UsageError(`unexpected argument: ${parsed.positionals[positionalNames.length]}`, usage);
  }
  if (!help && parsed.positionals.length < positionalNames.length) {
    throw new UsageError(`missing ${positionalNames[parsed.positionals.length]}`, usage);
  }
  return { ...parsed, help };
}

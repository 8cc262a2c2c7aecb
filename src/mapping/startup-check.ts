import { runFixtures, type FixtureResult } from './fixtures';

/** `npm start` with mapping fixtures that fail: refused unless the operator overrides it. */
export class MappingFixturesError extends Error {
  constructor(readonly failures: FixtureResult[]) {
    super([
      `refusing to start: ${failures.length} mapping fixture${failures.length === 1 ? '' : 's'} fail, so charges through those mappings would be wrong:`,
      ...failures.map((f) => `  ${f.file}: ${(f.message ?? '').split('\n')[0]}`),
      'Run `npx routegate mappings check` for the differences. To start anyway in an emergency, set',
      'ROUTEGATE_ALLOW_FAILING_MAPPINGS=true or pass --allow-failing-mappings (logged as an error at start-up).',
    ].join('\n'));
    this.name = 'MappingFixturesError';
  }
}

/**
 * Runs every fixture of `dir` (a fraction of a second) before the service opens anything. Throws
 * MappingFixturesError when one fails, unless `allowFailing`; then resolves the failures for the caller to log.
 */
export async function checkFixturesAtStart(dir: string, allowFailing: boolean): Promise<FixtureResult[]> {
  const failures = (await runFixtures(dir)).filter((r) => !r.ok);
  if (failures.length && !allowFailing) throw new MappingFixturesError(failures);
  return failures;
}

import { runFixtures, type FixtureResult } from './fixtures';
import { assertShippedMappings } from './loader';
import { describeFolder } from './completeness';

/** `npm start` with mapping fixtures that fail: refused unless the operator overrides it. */
export class MappingFixturesError extends Error {
  constructor(readonly failures: FixtureResult[], readonly dir: string) {
    super([
      `refusing to start: ${failures.length} mapping fixture${failures.length === 1 ? '' : 's'} fail, so charges through those mappings would be wrong:`,
      `  (mappings folder: ${describeFolder(dir)})`,
      ...failures.map((f) => `  ${f.file}: ${(f.message ?? '').split('\n')[0]}`),
      'Run `npx routegate mappings check` for the differences. To start anyway in an emergency, set',
      'ROUTEGATE_ALLOW_FAILING_MAPPINGS=true or pass --allow-failing-mappings (logged as an error at start-up).',
    ].join('\n'));
    this.name = 'MappingFixturesError';
  }
}

const timedOut = (r: FixtureResult) => /ran longer than \d+ ms/.test(r.message ?? '');

/**
 * Runs every fixture of `dir` (a fraction of a second) before the service opens anything. Throws
 * MappingFixturesError when one fails, unless `allowFailing`; then resolves the failures for the caller to log.
 */
export async function checkFixturesAtStart(dir: string, allowFailing: boolean): Promise<FixtureResult[]> {
  // The completeness rule first, as `mappings check` applies it: a missing file and its fixtures are named together.
  assertShippedMappings(dir);
  let failures = (await runFixtures(dir)).filter((r) => !r.ok);
  // A fixture stopped by the time budget may only have met a busy machine (a cold start next to other work):
  // run the whole set again, at most twice, and keep what fails every time. A runaway mapping still fails.
  for (let retry = 0; retry < 2 && failures.some(timedOut); retry++) {
    const again = new Set((await runFixtures(dir)).filter((r) => !r.ok).map((r) => r.file));
    failures = failures.filter((f) => again.has(f.file));
  }
  if (failures.length && !allowFailing) throw new MappingFixturesError(failures, dir);
  return failures;
}

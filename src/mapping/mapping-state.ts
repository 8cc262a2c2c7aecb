import { loadMappings, MappingLoadError, assertShippedMappings, type MappingRegistry } from './loader';
import { runFixtures } from './fixtures';
import { describeFolder, folderVersion } from './completeness';

/** What a reload did: swapped to `version`, or kept the running set and why. */
export type ReloadResult =
  | { reloaded: true; dir: string; version: string; previousVersion: string; fixtures: number }
  | { reloaded: false; dir: string; version: string; problems: string[] };

/**
 * The mapping set a running RouteGate serves: its folder, its version (a hash of the files), the fixtures that
 * failed under the emergency override, and the registry every call context reads. A reload compiles the folder
 * again, applies the completeness rule, runs every fixture through the money guard, and only when all pass swaps the
 * registry's entries in one synchronous step (no request sees half a set; calls in flight finish on the set they
 * started with). Otherwise the running set stays and the result says why.
 */
export class MappingState {
  version: string;
  loadedAt = new Date();
  reloads = 0;
  failedReloads = 0;
  lastReloadProblems: string[] = [];
  private running: Promise<ReloadResult> | undefined;

  constructor(
    readonly dir: string,
    /** Shared with every call context: swapped in place. */
    readonly registry: MappingRegistry,
    /** Fixtures that failed at start-up, allowed by ROUTEGATE_ALLOW_FAILING_MAPPINGS (empty otherwise). */
    public failingFixtures: string[] = [],
  ) {
    this.version = folderVersion(dir);
  }

  describe(): { folder: string; version: string; loadedAt: string; failingFixtures: string[] } {
    return { folder: this.dir, version: this.version, loadedAt: this.loadedAt.toISOString(), failingFixtures: this.failingFixtures };
  }

  /** One reload at a time: a second request while one runs gets the same result. */
  reload(): Promise<ReloadResult> {
    this.running ??= this.doReload().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async doReload(): Promise<ReloadResult> {
    const version = folderVersion(this.dir);
    const refuse = (problems: string[]): ReloadResult => {
      this.failedReloads++;
      this.lastReloadProblems = problems;
      return { reloaded: false, dir: describeFolder(this.dir), version: this.version, problems };
    };
    let fresh: MappingRegistry;
    try {
      assertShippedMappings(this.dir);
      fresh = loadMappings(this.dir);
    } catch (err) {
      if (err instanceof MappingLoadError) return refuse(err.problems);
      return refuse([(err as Error).message]);
    }
    const results = await runFixtures(this.dir, fresh);
    const failures = results.filter((r) => !r.ok);
    if (failures.length) return refuse(failures.map((f) => `${f.file}: ${(f.message ?? '').split('\n')[0]}`));
    const previousVersion = this.version;
    // The swap: synchronous, so no request reads a registry half old and half new.
    for (const gateway of [...this.registry.keys()]) if (!fresh.has(gateway)) this.registry.delete(gateway);
    for (const [gateway, set] of fresh) this.registry.set(gateway, set);
    this.version = version;
    this.loadedAt = new Date();
    this.failingFixtures = [];
    this.lastReloadProblems = [];
    this.reloads++;
    return { reloaded: true, dir: describeFolder(this.dir), version, previousVersion, fixtures: results.length };
  }
}

import type { Registry } from 'prom-client';

/**
 * Counters and histograms for the metrics observed on every charge (requests answered, gateway attempts), kept
 * per series and handed to prom-client's registry, which writes the exposition as for its own metrics. prom-client
 * builds a labels object, validates it and hashes it into a string key on every observation (about 2% of a
 * charge's CPU for the four metrics a charge touches); here a series is found through one Map per label, by the
 * label values themselves, and an observation is an increment. Cold metrics stay prom-client's own.
 */

interface Labelled { labels: Record<string, string> }

/** Series by their label values, one Map per label, in the metric's label order. */
class SeriesTree<S extends Labelled> {
  private readonly root = new Map<unknown, unknown>();
  readonly all: S[] = [];

  constructor(private readonly labelNames: readonly string[], private readonly make: (labels: Record<string, string>) => S) {
    if (labelNames.length === 0) throw new Error('a series metric needs at least one label');
  }

  /** A label value as the exposition writes it: 404 and '404' are one series. */
  private static key(value: string | number): string {
    return typeof value === 'number' ? String(value) : value;
  }

  find(values: readonly (string | number)[]): S {
    let node = this.root;
    const last = this.labelNames.length - 1;
    for (let i = 0; i < last; i++) {
      const key = SeriesTree.key(values[i]);
      let next = node.get(key) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(key, next);
      }
      node = next;
    }
    const key = SeriesTree.key(values[last]);
    let series = node.get(key) as S | undefined;
    if (series === undefined) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = SeriesTree.key(values[i])));
      series = this.make(labels);
      node.set(key, series);
      this.all.push(series);
    }
    return series;
  }
}

interface MetricValue { labels: Record<string, string | number>; value: number; metricName?: string; sharedLabels?: Record<string, string>; exemplar?: null }

interface MetricConfig { name: string; help: string; labelNames: readonly string[]; registers: Registry[] }

/** What prom-client's registry reads of a metric (its `get()`), in prom-client's own value shape. */
abstract class RegisteredMetric {
  readonly aggregator = 'sum';
  abstract readonly type: 'counter' | 'histogram';

  constructor(readonly name: string, readonly help: string, registers: Registry[]) {
    for (const r of registers) r.registerMetric(this as never);
  }

  protected abstract values(): MetricValue[];

  /** For the text exposition: a histogram's series labels apart from `le` (`sharedLabels`), as prom-client has them. */
  async getForPromString() {
    return { name: this.name, help: this.help, type: this.type, values: this.values(), aggregator: this.aggregator };
  }

  /** For JSON (`getMetricsAsJSON`): each value's labels in one object, as prom-client's get() gives them. */
  async get() {
    const values = this.values().map(({ sharedLabels, ...value }) => (sharedLabels ? { ...value, labels: { ...value.labels, ...sharedLabels } } : value));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

interface CounterSeries extends Labelled { value: number }

export class SeriesCounter extends RegisteredMetric {
  readonly type = 'counter';
  private readonly tree: SeriesTree<CounterSeries>;

  constructor(config: MetricConfig) {
    super(config.name, config.help, config.registers);
    this.tree = new SeriesTree(config.labelNames, (labels) => ({ labels, value: 0 }));
  }

  /** Adds `by` to the series of these label values, given in the metric's label order. */
  inc(values: readonly (string | number)[], by = 1): void {
    this.tree.find(values).value += by;
  }

  protected values() {
    return this.tree.all.map((s) => ({ labels: s.labels, value: s.value }));
  }
}

interface HistogramSeries extends Labelled { counts: Float64Array; sum: number; count: number }

export class SeriesHistogram extends RegisteredMetric {
  readonly type = 'histogram';
  private readonly tree: SeriesTree<HistogramSeries>;

  constructor(config: MetricConfig & { buckets: readonly number[] }, private readonly bounds = Float64Array.from(config.buckets)) {
    super(config.name, config.help, config.registers);
    this.tree = new SeriesTree(config.labelNames, (labels) => ({ labels, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 }));
  }

  /** Records `value` in the series of these label values, given in the metric's label order. */
  observe(values: readonly (string | number)[], value: number): void {
    const s = this.tree.find(values);
    s.sum += value;
    s.count += 1;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        s.counts[i] += 1;
        return;
      }
    }
  }

  /** As prom-client writes a histogram: cumulative buckets, `+Inf`, sum and count, the series' labels shared. */
  protected values() {
    const out: MetricValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.tree.all) {
      let cumulative = 0;
      this.bounds.forEach((le, i) => {
        cumulative += s.counts[i];
        out.push({ labels: { le }, value: cumulative, metricName: bucket, sharedLabels: s.labels, exemplar: null });
      });
      out.push({ labels: { le: '+Inf' }, value: s.count, metricName: bucket, sharedLabels: s.labels, exemplar: null });
      out.push({ labels: {}, value: s.sum, metricName: `${this.name}_sum`, sharedLabels: s.labels });
      out.push({ labels: {}, value: s.count, metricName: `${this.name}_count`, sharedLabels: s.labels });
    }
    return out;
  }
}

// A small Prometheus text registry: counters and summaries (sum/count) with labels.
type Labels = Record<string, string>;

const key = (l: Labels) => Object.keys(l).sort().map((k) => `${k}="${String(l[k]).replace(/["\\\n]/g, '_')}"`).join(',');

export function createMetrics() {
  const counters = new Map<string, { help: string; values: Map<string, number> }>();
  const summaries = new Map<string, { help: string; values: Map<string, { sum: number; count: number }> }>();
  const gauges = new Map<string, { help: string; read: () => Array<[Labels, number]> }>();
  return {
    counter(name: string, help: string) {
      const c = { help, values: new Map<string, number>() };
      counters.set(name, c);
      return (labels: Labels = {}, by = 1) => {
        const k = key(labels);
        c.values.set(k, (c.values.get(k) ?? 0) + by);
      };
    },
    summary(name: string, help: string) {
      const s = { help, values: new Map<string, { sum: number; count: number }>() };
      summaries.set(name, s);
      return (labels: Labels, value: number) => {
        const k = key(labels);
        const v = s.values.get(k) ?? { sum: 0, count: 0 };
        v.sum += value;
        v.count += 1;
        s.values.set(k, v);
      };
    },
    gauge(name: string, help: string, read: () => Array<[Labels, number]>) {
      gauges.set(name, { help, read });
    },
    render(): string {
      const out: string[] = [];
      const fmt = (name: string, k: string, v: number) => `${name}${k ? `{${k}}` : ''} ${Number.isFinite(v) ? v : 0}`;
      for (const [name, c] of counters) {
        out.push(`# HELP ${name} ${c.help}`, `# TYPE ${name} counter`);
        for (const [k, v] of c.values) out.push(fmt(name, k, v));
      }
      for (const [name, s] of summaries) {
        out.push(`# HELP ${name} ${s.help}`, `# TYPE ${name} summary`);
        for (const [k, v] of s.values) out.push(fmt(`${name}_sum`, k, v.sum), fmt(`${name}_count`, k, v.count));
      }
      for (const [name, g] of gauges) {
        out.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`);
        for (const [l, v] of g.read()) out.push(fmt(name, key(l), v));
      }
      return `${out.join('\n')}\n`;
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;

// What the agent executable's script carries: the agent and the libraries it runs, never the
// control plane's or the API's (zod came in with the tcp and dns probers' target parsing: 600 kB
// of script and ~10 MB of the agent's heap, bench:agent-memory).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the agent bundle', () => {
  it('leaves out zod, express and the control plane', async () => {
    const r = await build({
      entryPoints: [path.join(ROOT, 'agent/sea/main.ts')], bundle: true, platform: 'node', target: 'node20',
      write: false, metafile: true, outfile: path.join(ROOT, 'dist/bundle-probe.js'), logLevel: 'error',
    });
    const inputs = Object.keys(r.metafile.inputs);
    expect(inputs.some((f) => f.includes('agent/src/probers/tcp/'))).toBe(true); // the probers are in
    const packages = new Set(inputs.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean));
    for (const unwanted of ['zod', 'express', 'stripe', '@clickhouse/client', 'chdb']) expect(packages.has(unwanted), unwanted).toBe(false);
    expect(inputs.filter((f) => f.startsWith('control-plane/') || f.includes('proto/schemas/'))).toEqual([]);
  }, 60_000);
});

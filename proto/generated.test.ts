import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GENERATED_DIR, generateTypes } from './gen-types';

function files(dir: string, base = dir): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) for (const [k, v] of files(p, base)) out.set(k, v);
    else out.set(path.relative(base, p), readFileSync(p, 'utf8'));
  }
  return out;
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'upfleet-gen-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('proto/generated', () => {
  it('is what `npm run gen:proto` makes from the .proto today (run it after editing the .proto)', () => {
    generateTypes(path.join(tmp, 'generated'));
    const fresh = files(path.join(tmp, 'generated'));
    const checkedIn = files(GENERATED_DIR);
    expect([...checkedIn.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, text] of fresh) expect(checkedIn.get(name), name).toBe(text);
  });
});

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHECK_KINDS, type AssignedKind } from '@upfleet/proto/check-kinds';
import { PROBERS, proberFor } from './index';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('the prober table', () => {
  it('has one prober per check kind, each in the folder named after its kind', () => {
    expect(PROBERS.map((p) => p.kind).sort()).toEqual(Object.keys(CHECK_KINDS).sort());
    const folders = readdirSync(here, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    expect(folders.sort()).toEqual(Object.values(CHECK_KINDS).sort());
    for (const kind of Object.keys(CHECK_KINDS) as AssignedKind[]) expect(proberFor(kind)?.kind).toBe(kind);
    expect(proberFor('CHECK_KIND_UNSPECIFIED')).toBeUndefined();
  });
});

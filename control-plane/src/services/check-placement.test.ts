import { describe, expect, it } from 'vitest';
import { ownerOf, ownerPicker } from './check-placement';

describe('ownerPicker', () => {
  it('names the same owner as ownerOf for every check, whatever the agents and their order', () => {
    const agentSets = [
      ['a1'], ['a1', 'a2', 'a3'], ['3f1c2d4e-0000-4000-8000-000000000001', '3f1c2d4e-0000-4000-8000-000000000002', 'zz', 'é-agent'],
      Array.from({ length: 10 }, (_, i) => `agent-${i}`).reverse(), [],
    ];
    const checks = [...Array.from({ length: 5000 }, (_, i) => `${i}:http:EU-Germany`), '7:tls:US-Virginia', '', 'ü:ping:AP-Singapore'];
    for (const agents of agentSets) {
      const pick = ownerPicker(agents);
      const differing = checks.filter((c) => pick(c) !== ownerOf(c, agents));
      expect(differing).toEqual([]);
    }
  });
});

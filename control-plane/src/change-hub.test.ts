import { describe, expect, it } from 'vitest';
import { createChangeHub } from './change-hub';

describe('change hub', () => {
  it('tells every subscriber of a topic, in order, and nobody after it unsubscribed', () => {
    const hub = createChangeHub();
    const seen: string[] = [];
    hub.endpoints.subscribe({ changed: (id) => seen.push(`a changed ${id}`), removed: (id) => seen.push(`a removed ${id}`) });
    const stop = hub.endpoints.subscribe({ changed: (id) => seen.push(`b changed ${id}`) });
    hub.plans.subscribe({ changed: (id) => seen.push(`plan changed ${id}`) });
    hub.endpoints.removed(7);
    hub.endpoints.changed(7);
    stop();
    hub.endpoints.changed(8);
    hub.plans.changed(null);
    expect(seen).toEqual(['a removed 7', 'a changed 7', 'b changed 7', 'a changed 8', 'plan changed null']);
  });
});

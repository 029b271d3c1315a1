import { describe, expect, it } from 'vitest';
import type { Package } from '@upfleet/proto/rest';
import { describePlanChange, formatInterval } from './plan-change';

const plan = (package_name: string, max_endpoints: number, check_frequency_seconds: number) => ({ package_name, max_endpoints, check_frequency_seconds }) as Package;
const none = { disabled: [], disabledIds: [], featuresRemoved: [], regionsRemoved: [], endpointsChanged: 0 };

describe('describePlanChange', () => {
  it('says only what changed on an upgrade: the plan, why, and the new interval', () => {
    expect(describePlanChange(plan('Free', 10, 300), plan('Pro', 200, 30), 'your subscription is active', none)).toBe(
      'Your plan changed from Free to Pro because your subscription is active. Checks now run every 30 seconds.',
    );
  });

  it('names one disabled endpoint and one removed feature in the singular, long lists shortened, and says nothing was deleted', () => {
    const names = Array.from({ length: 7 }, (_, i) => `Site ${i + 1}`);
    expect(describePlanChange(plan('Starter', 50, 60), plan('Free', 10, 300), 'your subscription was canceled', { ...none, disabled: ['Shop'], featuresRemoved: ['Ping Host'] })).toBe(
      "Your plan changed from Starter to Free because your subscription was canceled. Monitoring was switched off for 1 endpoint over the Free plan's limit of 10: Shop. " +
      'Ping Host monitoring is not in the Free plan and was removed from your endpoints. Checks now run every 5 minutes. ' +
      'Nothing was deleted: upgrade to switch monitoring back on and add features again.',
    );
    expect(describePlanChange(plan('Pro', 200, 60), plan('Free', 10, 60), 'x', { ...none, disabled: names })).toContain(': Site 1, Site 2, Site 3, Site 4, Site 5 and 2 more.');
  });

  it('formats intervals in seconds below a minute and in minutes above', () => {
    expect([formatInterval(10), formatInterval(60), formatInterval(300)]).toEqual(['10 seconds', '1 minute', '5 minutes']);
  });
});

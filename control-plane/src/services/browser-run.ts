// "Run now" of a browser check: the unsaved check from the endpoint form, checked like a save,
// runs once on a connected agent that can (run-now.ts) and its result is answered, with its
// screenshots inline. Nothing of it is stored: no ClickHouse row, no incident, no alert.
import type { Assignment, CheckResult } from '@upfleet/proto';
import { CHECK_KIND_TABLE } from '@upfleet/proto/check-kinds';
import { LIMITS_BROWSER, normaliseStep, stepLabel, type BrowserStep } from '@upfleet/proto/browser-steps';
import type { BrowserRunBody, BrowserRunResult } from '@upfleet/proto/schemas';
import { isPrivateHostname } from '@upfleet/proto/targets';
import { planViolations } from '@upfleet/proto/plan';
import type { Package } from '@upfleet/proto/rest';
import { badRequest, notFound, planRefused } from '../errors';
import type { CatalogRepo } from '../store/catalog-repo';
import type { EndpointsRepo } from '../store/endpoints-repo';
import type { RunNowDispatcher } from './run-now';

const capitalise = (s: string) => s[0].toUpperCase() + s.slice(1);
const MASK = '••••••';

export function createBrowserRunService(deps: {
  endpoints: Pick<EndpointsRepo, 'get' | 'secretFillValues'>;
  catalog: Pick<CatalogRepo, 'regionByKey'>;
  dispatcher: Pick<RunNowDispatcher, 'run'>;
  allowPrivateTargets: boolean;
  planOf: (userId: number) => Package | Promise<Package>;
}) {
  /** The steps with each secret fill's value: sent, or the saved endpoint's for its selector. */
  function withSecrets(userId: number, body: BrowserRunBody): BrowserStep[] {
    const stored = body.url_id !== undefined ? deps.endpoints.secretFillValues(userId, body.url_id) ?? new Map<string, string>() : new Map<string, string>();
    return (body.steps ?? []).map((raw, i) => {
      const s = normaliseStep(raw);
      if (s.action !== 'fill' || s.value !== undefined) return s;
      const kept = s.secret ? stored.get(s.selector ?? '') : undefined;
      if (kept === undefined) throw badRequest(`${capitalise(stepLabel(i, s.action))}: value is required`);
      return { ...s, value: kept };
    });
  }

  return {
    async run(userId: number, body: BrowserRunBody): Promise<BrowserRunResult> {
      // a plan without browser checks (Free) runs none now either
      const refused = planViolations(await deps.planOf(userId), { browserChecks: 1 })[0];
      if (refused) throw planRefused(refused);
      // another workspace's endpoint is not found, as everywhere
      if (body.url_id !== undefined && !deps.endpoints.get(userId, body.url_id)) throw notFound('Endpoint not found');
      if (body.region !== undefined && !deps.catalog.regionByKey(body.region)) throw badRequest(`Unknown region: ${body.region}`);
      const steps = withSecrets(userId, body);
      if (!deps.allowPrivateTargets) {
        if (isPrivateHostname(new URL(body.url).hostname)) throw badRequest('URL must point to a public address');
        steps.forEach((s, i) => {
          if (s.action === 'goto' && isPrivateHostname(new URL(s.url!).hostname)) throw badRequest(`${capitalise(stepLabel(i, s.action))}: url must point to a public address`);
        });
      }
      const timeoutS = body.timeout_seconds ?? LIMITS_BROWSER.timeoutSecondsDefault;
      const check: Assignment = {
        check_id: '', endpoint_id: body.url_id ?? 0, kind: 'CHECK_KIND_BROWSER', url: body.url, interval_seconds: 0,
        timeout_ms: timeoutS * 1000, region: body.region ?? '', retention_days: 0, private_targets_denied: !deps.allowPrivateTargets,
        ...CHECK_KIND_TABLE.CHECK_KIND_BROWSER.assignment({ steps }, { privateTargetsDenied: !deps.allowPrivateTargets, defaultResolvers: [] }),
      };
      const secrets = steps.filter((s) => s.action === 'fill' && s.secret && s.value).map((s) => s.value!);
      return toAnswer(await deps.dispatcher.run(check, body.region ?? null), secrets);
    },
  };
}
export type BrowserRunService = ReturnType<typeof createBrowserRunService>;

/** The REST answer of a run; a secret value that shows up in a text the page produced is masked. */
export function toAnswer(r: CheckResult, secrets: string[]): BrowserRunResult {
  const mask = (t: string) => secrets.reduce((acc, v) => (v ? acc.split(v).join(MASK) : acc), t);
  return {
    ok: r.ok,
    error: mask(r.error),
    failed_step: r.failed_step ?? 0,
    failed_action: r.failed_action ?? '',
    region: r.region,
    total_ms: r.total_ms,
    ttfb_ms: r.ttfb_ms,
    dom_content_loaded_ms: r.dom_content_loaded_ms ?? 0,
    load_ms: r.load_ms ?? 0,
    lcp_ms: r.lcp_ms ?? 0,
    step_ms: [...(r.step_ms ?? [])],
    console_errors: (r.console_errors ?? []).map(mask),
    failed_requests: (r.failed_requests ?? []).map(mask),
    screenshots: (r.screenshots ?? []).map((s) => ({ name: s.name, mime: s.mime, step: s.step, data_base64: Buffer.from(s.data).toString('base64') })),
  };
}

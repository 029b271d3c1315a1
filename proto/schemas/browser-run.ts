// "Run now" of a browser check from the endpoint form: the unsaved check in, one run's result out
// (POST /api/users/endpoints/browser-run). The check's rules are the endpoint body's (checkKindRules).
import { z } from 'zod';
import { MonitorUrl, checkKindRules, BrowserSteps } from './endpoints';
import { LIMITS_BROWSER } from '../browser-steps';

const TIMEOUT_ERROR = `timeout_seconds must be a whole number from 1 to ${LIMITS_BROWSER.timeoutSecondsMax}`;
const URL_ID_ERROR = 'url_id must be the id of one of your endpoints';

export const BrowserRunBody = z.object({
  url: MonitorUrl,
  steps: BrowserSteps.optional(),
  timeout_seconds: z.number({ error: TIMEOUT_ERROR }).int(TIMEOUT_ERROR).min(1, TIMEOUT_ERROR).max(LIMITS_BROWSER.timeoutSecondsMax, TIMEOUT_ERROR).optional(),
  /** a region key ('EU-Germany'); absent: any connected agent that can run browser checks */
  region: z.string({ error: 'region must be a region key' }).max(100, 'region must be a region key').optional(),
  /** the saved endpoint being edited: a secret fill sent without its value takes the stored one */
  url_id: z.number({ error: URL_ID_ERROR }).int(URL_ID_ERROR).positive(URL_ID_ERROR).optional(),
}).superRefine((b, ctx) => checkKindRules({ kind: 'browser', url: b.url, steps: b.steps, timeout_seconds: b.timeout_seconds }, ctx))
  .meta({ id: 'BrowserRunBody', description: 'POST /api/users/endpoints/browser-run: a browser check to run once now, not saved' });
export type BrowserRunBody = z.infer<typeof BrowserRunBody>;

/** One run's result, as POST /api/users/endpoints/browser-run answers it (screenshots inline: Run-now results are not stored). */
export const BrowserRunResource = z.object({
  ok: z.boolean(),
  error: z.string().meta({ description: "'' when ok; else the reason (the failing step's)" }),
  failed_step: z.number().int().meta({ description: "1-based; 0 with failed_action 'goto': the page load itself; 0 and '' when none failed" }),
  failed_action: z.string(),
  region: z.string(),
  total_ms: z.number(),
  ttfb_ms: z.number(),
  dom_content_loaded_ms: z.number(),
  load_ms: z.number(),
  lcp_ms: z.number(),
  step_ms: z.array(z.number()),
  console_errors: z.array(z.string()),
  failed_requests: z.array(z.string()),
  screenshots: z.array(z.object({ name: z.string(), mime: z.string(), step: z.number().int(), data_base64: z.string() })),
}).meta({ id: 'BrowserRunResult' });
export type BrowserRunResult = z.infer<typeof BrowserRunResource>;
export type BrowserRunScreenshot = BrowserRunResult['screenshots'][number];

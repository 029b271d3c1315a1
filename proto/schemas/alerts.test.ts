import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../rest';
import { AlertMethodCreateBody, AlertMethodUpdateBody, AlertThresholdsBody, check, platformConfig, firstError } from './index';

const item = (over: Record<string, unknown> = {}) => ({ monitor_type_id: 1, threshold_value: 500, threshold_operator: '>=', ...over });

describe('AlertThresholdsBody', () => {
  it('passes a list, enabling by default and with no region', () => {
    expect(check(AlertThresholdsBody, { alert_thresholds: [item()] })).toEqual({
      ok: true,
      data: { alert_thresholds: [{ monitor_type_id: 1, threshold_value: 500, threshold_operator: '>=', region_id: null, is_enabled: true }] },
    });
  });
  it("refuses a value that is not a whole number above 0 with the SPEC message", () => {
    for (const bad of [0, -5, 1.5, '10', null, undefined]) {
      expect(firstError(AlertThresholdsBody, { alert_thresholds: [item({ threshold_value: bad })] }), String(bad)).toBe(MESSAGES.invalidThresholds);
    }
    expect(firstError(AlertThresholdsBody, { alert_thresholds: [null] })).toBe(MESSAGES.invalidThresholds);
  });
  it('accepts the six SPEC operators only', () => {
    for (const op of ['>', '<', '=', '!=', '>=', '<=']) expect(check(AlertThresholdsBody, { alert_thresholds: [item({ threshold_operator: op })] }).ok).toBe(true);
    expect(firstError(AlertThresholdsBody, { alert_thresholds: [item({ threshold_operator: '=>' })] })).toBe('threshold_operator must be one of > < = != >= <=');
  });
  it('needs a list of at most 100', () => {
    expect(firstError(AlertThresholdsBody, {})).toBe('alert_thresholds must be a list');
    expect(firstError(AlertThresholdsBody, { alert_thresholds: Array.from({ length: 101 }, () => item()) })).toBe('Too many thresholds');
    expect(firstError(AlertThresholdsBody, { alert_thresholds: [item({ monitor_type_id: 'x' })] })).toBe('Unknown monitor_type_id');
    expect(firstError(AlertThresholdsBody, { alert_thresholds: [item({ region_id: 'x' })] })).toBe('Unknown region_id');
  });
});

describe('AlertMethodCreateBody', () => {
  it('passes one config per platform, trimmed and enabled by default', () => {
    expect(check(AlertMethodCreateBody, { platform: 'email', platform_config: { email_address: ' ops@example.com ' } })).toEqual({
      ok: true,
      data: { platform: 'email', platform_config: { email_address: 'ops@example.com' }, is_enabled: true },
    });
    expect(check(AlertMethodCreateBody, { platform: 'telegram', platform_config: { bot_token: '1:abc', chat_id: '-100200' }, is_enabled: false }).ok).toBe(true);
    expect(check(AlertMethodCreateBody, { platform: 'sms', platform_config: { phone_number: '+49 151 12345' } }).ok).toBe(true);
  });
  it('fails each rule with its message', () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ platform: 'pigeon', platform_config: {} }, 'platform must be one of email, slack, telegram, webhook, sms, discord, teams, pagerduty'],
      [{ platform_config: {} }, 'platform must be one of email, slack, telegram, webhook, sms, discord, teams, pagerduty'],
      [{ platform: 'email' }, 'platform_config is required'],
      [{ platform: 'email', platform_config: { email_address: 'nope' } }, 'Please enter a valid email address'],
      [{ platform: 'slack', platform_config: { bot_token: 'xoxb-1' } }, 'channel is required'],
      [{ platform: 'telegram', platform_config: { bot_token: '1:abc', chat_id: 'abc' } }, 'chat_id must be a numeric chat id or @channel'],
      [{ platform: 'webhook', platform_config: { webhook_url: 'not-a-url' } }, 'Webhook URL must be a valid URL'],
      [{ platform: 'discord', platform_config: { webhook_url: 'ftp://x' } }, 'Webhook URL must be a valid URL'],
      [{ platform: 'teams', platform_config: { webhook_url: 'x'.repeat(2049) } }, 'webhook_url is too long'],
      [{ platform: 'sms', platform_config: { phone_number: 'call me' } }, 'Please enter a valid phone number'],
      [{ platform: 'sms', platform_config: { phone_number: '+4915112345' }, is_enabled: 'yes' }, 'is_enabled must be true or false'],
    ];
    for (const [value, error] of cases) expect(firstError(AlertMethodCreateBody, value), error).toBe(error);
  });
});

describe('AlertMethodUpdateBody and platformConfig', () => {
  it('takes optional fields; the config is checked against the stored platform', () => {
    expect(check(AlertMethodUpdateBody, { is_enabled: false })).toEqual({ ok: true, data: { is_enabled: false } });
    expect(firstError(AlertMethodUpdateBody, { platform_config: 'x' })).toBe('platform_config is required');
    expect(firstError(platformConfig('slack'), { bot_token: 'x' })).toBe('channel is required');
    expect(check(platformConfig('slack'), { bot_token: 'x', channel: '#ops', extra: 1 })).toEqual({ ok: true, data: { bot_token: 'x', channel: '#ops' } });
  });
});

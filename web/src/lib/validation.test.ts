import { describe, expect, it } from 'vitest';
import { MESSAGES } from '@upfleet/proto/rest';
import { isValidUrl, sanitizeCode, isCompleteCode, validateAlertMethod, validateEndpointBasics, validatePasswordChange, validateSignup, validateThresholds, validateTwoFactorCode } from './validation';

const good = { username: 'alice', email: 'a@example.com', password: 'longenough', confirmPassword: 'longenough' };

describe('signup rules', () => {
  it('accepts a username of 3 to 30 characters and refuses 2 or 31', () => {
    expect(validateSignup(good)).toBeNull();
    expect(validateSignup({ ...good, username: 'ab' })).toMatch(/3 and 30/);
    expect(validateSignup({ ...good, username: 'a'.repeat(31) })).toMatch(/3 and 30/);
    expect(validateSignup({ ...good, username: 'a'.repeat(30) })).toBeNull();
  });
  it("says 'Passwords do not match' when the confirmation differs", () => {
    expect(validateSignup({ ...good, confirmPassword: 'different1' })).toBe('Passwords do not match');
  });
  it("says 'Password must be at least 8 characters long' for 7 characters", () => {
    expect(validateSignup({ ...good, password: 'short77', confirmPassword: 'short77' })).toBe('Password must be at least 8 characters long');
  });
});

describe('two-factor code input', () => {
  it('keeps digits only and at most six', () => {
    expect(sanitizeCode('12a3-45 678')).toBe('123456');
  });
  it('is complete only at exactly six digits', () => {
    expect(isCompleteCode('12345')).toBe(false);
    expect(isCompleteCode('123456')).toBe(true);
  });
  it("says 'Please enter the verification code' when empty", () => {
    expect(validateTwoFactorCode('')).toBe('Please enter the verification code');
  });
});

describe('endpoint form', () => {
  it('needs a name and a valid http(s) URL', () => {
    expect(validateEndpointBasics('', 'https://x.io')).toBe('Name is required');
    expect(validateEndpointBasics('x', '')).toBe('URL is required');
    expect(validateEndpointBasics('x', 'not a url')).toBe('Please enter a valid URL');
    expect(validateEndpointBasics('x', 'https://example.com/health')).toBeNull();
    expect(isValidUrl('ftp://example.com')).toBe(false);
  });
});

describe('alert thresholds', () => {
  it('refuses zero, negatives and blanks with the SPEC message', () => {
    expect(validateThresholds([{ threshold_value: '0' }])).toBe(MESSAGES.invalidThresholds);
    expect(validateThresholds([{ threshold_value: '-3' }])).toBe(MESSAGES.invalidThresholds);
    expect(validateThresholds([{ threshold_value: '' }])).toBe(MESSAGES.invalidThresholds);
    expect(validateThresholds([{ threshold_value: '1.4' }, { threshold_value: 500 }])).toBeNull();
  });
});

describe('alert methods', () => {
  it('refuses a second method for a platform with the SPEC message', () => {
    expect(validateAlertMethod('email', { email_address: 'x@y.io' }, ['email'])).toBe(
      'An alert method for this platform already exists. Please choose a different platform or edit the existing one.',
    );
  });
  it('requires every config field, an email address for email and a URL for webhook, discord and teams', () => {
    expect(validateAlertMethod('slack', { bot_token: 't' }, [])).toBe('Channel is required');
    expect(validateAlertMethod('email', { email_address: 'nope' }, [])).toBe('Please enter a valid email address');
    for (const p of ['webhook', 'discord', 'teams'] as const) {
      expect(validateAlertMethod(p, { webhook_url: 'nope' }, [])).toBe('Please enter a valid URL');
      expect(validateAlertMethod(p, { webhook_url: 'https://hooks.example.com/x' }, [])).toBeNull();
    }
    expect(validateAlertMethod('sms', { phone_number: '+4915112345' }, [])).toBeNull();
  });
});

describe('password change', () => {
  it('uses the SPEC messages', () => {
    expect(validatePasswordChange('abcdefgh', 'abcdefgX')).toBe('New passwords do not match');
    expect(validatePasswordChange('short', 'short')).toBe('New password must be at least 8 characters long');
    expect(validatePasswordChange('abcdefgh', 'abcdefgh')).toBeNull();
  });
});

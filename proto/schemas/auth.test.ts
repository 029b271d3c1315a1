import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../rest';
import { check, LoginBody, PasswordChangeBody, ProfileUpdateBody, RefreshBody, SignupBody, TwoFactorDisableBody, TwoFactorVerifyBody, firstError } from './index';


describe('SignupBody', () => {
  const good = { username: ' alice ', email: 'Alice@Example.COM', password: 'longenough' };
  it('passes a valid body, trimming the username and lower-casing the email', () => {
    expect(check(SignupBody, good)).toEqual({ ok: true, data: { username: 'alice', email: 'alice@example.com', password: 'longenough' } });
  });
  it('fails each rule with its SPEC message', () => {
    expect(firstError(SignupBody, { ...good, username: undefined })).toBe('Username is required');
    expect(firstError(SignupBody, { ...good, username: '   ' })).toBe('Username is required');
    expect(firstError(SignupBody, { ...good, username: 'ab' })).toBe('Username must be between 3 and 30 characters');
    expect(firstError(SignupBody, { ...good, username: 'a'.repeat(31) })).toBe('Username must be between 3 and 30 characters');
    expect(check(SignupBody, { ...good, username: 'a'.repeat(30) }).ok).toBe(true);
    expect(firstError(SignupBody, { ...good, email: '' })).toBe('Email is required');
    expect(firstError(SignupBody, { ...good, email: 'not-an-email' })).toBe('Please enter a valid email address');
    expect(firstError(SignupBody, { ...good, password: undefined })).toBe('Password is required');
    expect(firstError(SignupBody, { ...good, password: 'short77' })).toBe(MESSAGES.passwordTooShort);
    expect(firstError(SignupBody, { ...good, password: 'p'.repeat(1025) })).toBe('Password is too long');
  });
});

describe('LoginBody', () => {
  it('passes email and password, lower-casing the email; the code is optional', () => {
    expect(check(LoginBody, { email: ' A@B.co ', password: 'x' })).toEqual({ ok: true, data: { email: 'a@b.co', password: 'x' } });
    expect(check(LoginBody, { email: 'a@b.co', password: 'x', two_factor_code: '123456' }).ok).toBe(true);
  });
  it("says 'Email and password are required' when either is missing", () => {
    expect(firstError(LoginBody, { password: 'x' })).toBe('Email and password are required');
    expect(firstError(LoginBody, { email: 'a@b.co', password: '' })).toBe('Email and password are required');
  });
  it('refuses a code that is not text as an invalid code', () => {
    expect(firstError(LoginBody, { email: 'a@b.co', password: 'x', two_factor_code: 123456 })).toBe(MESSAGES.invalidCode);
  });
});

describe('RefreshBody and TwoFactorVerifyBody', () => {
  it('needs a refresh token', () => {
    expect(check(RefreshBody, { refreshToken: 'abc' }).ok).toBe(true);
    expect(firstError(RefreshBody, {})).toBe('refreshToken is required');
  });
  it('needs six digits for the verification code', () => {
    expect(check(TwoFactorVerifyBody, { token: ' 123456 ' })).toEqual({ ok: true, data: { token: '123456' } });
    expect(firstError(TwoFactorVerifyBody, {})).toBe('Please enter the verification code');
    expect(firstError(TwoFactorVerifyBody, { token: '12345' })).toBe(MESSAGES.invalidCode);
    expect(firstError(TwoFactorVerifyBody, { token: '12345x' })).toBe(MESSAGES.invalidCode);
  });
});

describe('ProfileUpdateBody and PasswordChangeBody', () => {
  it('defaults the timezone to UTC and refuses one outside the list', () => {
    expect(check(ProfileUpdateBody, { username: 'alice', email: 'a@b.co' })).toEqual({ ok: true, data: { username: 'alice', email: 'a@b.co', timezone: 'UTC' } });
    expect(check(ProfileUpdateBody, { username: 'alice', email: 'a@b.co', timezone: 'UTC+5:30' }).ok).toBe(true);
    expect(firstError(ProfileUpdateBody, { username: 'alice', email: 'a@b.co', timezone: 'Mars/Olympus' })).toBe('Please choose a timezone from the list');
    expect(firstError(ProfileUpdateBody, { username: '', email: 'a@b.co' })).toBe('Username is required');
  });
  it('needs the current password and a new one of at least 8 characters', () => {
    expect(check(PasswordChangeBody, { current_password: 'old', new_password: 'brand new pw' }).ok).toBe(true);
    expect(firstError(PasswordChangeBody, { new_password: 'brand new pw' })).toBe('Current password is required');
    expect(firstError(PasswordChangeBody, { current_password: 'old', new_password: 'short' })).toBe(MESSAGES.newPasswordTooShort);
    expect(firstError(PasswordChangeBody, { current_password: 'old' })).toBe('New password is required');
  });
});

describe('TwoFactorDisableBody', () => {
  it('needs the current password or a code, and trims the code', () => {
    expect(check(TwoFactorDisableBody, { password: 'correct horse' })).toEqual({ ok: true, data: { password: 'correct horse' } });
    expect(check(TwoFactorDisableBody, { token: ' 123456 ' })).toEqual({ ok: true, data: { token: '123456' } });
    expect(firstError(TwoFactorDisableBody, {})).toBe(MESSAGES.twoFactorDisableProof);
    expect(firstError(TwoFactorDisableBody, { password: '', token: '  ' })).toBe(MESSAGES.twoFactorDisableProof);
    expect(firstError(TwoFactorDisableBody, { token: 123456 })).toBe(MESSAGES.invalidCode);
  });
});

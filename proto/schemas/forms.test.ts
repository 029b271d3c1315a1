import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../rest';
import { check, firstError, LoginForm, PasswordChangeForm, SignupForm, ThresholdFormValue } from './index';

describe('web form schemas', () => {
  const signup = { username: 'alice', email: 'a@example.com', password: 'longenough', confirmPassword: 'longenough' };
  it('signup adds the confirmation to the API body rules', () => {
    expect(firstError(SignupForm, signup)).toBeNull();
    expect(firstError(SignupForm, { ...signup, confirmPassword: 'different1' })).toBe(MESSAGES.passwordsDoNotMatch);
    expect(firstError(SignupForm, { ...signup, email: 'nope' })).toBe('Please enter a valid email address');
    expect(firstError(SignupForm, { ...signup, username: 'ab' })).toBe('Username must be between 3 and 30 characters');
  });
  it('login names the missing field', () => {
    expect(firstError(LoginForm, { email: ' ', password: 'x' })).toBe('Email is required');
    expect(firstError(LoginForm, { email: 'a@b.co', password: '' })).toBe('Password is required');
  });
  it('password change checks the confirmation before the length', () => {
    expect(firstError(PasswordChangeForm, { new_password: 'short', confirm: 'shorter' })).toBe(MESSAGES.newPasswordsDoNotMatch);
    expect(firstError(PasswordChangeForm, { new_password: 'short', confirm: 'short' })).toBe(MESSAGES.newPasswordTooShort);
    expect(firstError(PasswordChangeForm, { new_password: 'newpassword', confirm: 'newpassword' })).toBeNull();
  });
  it('a threshold is rounded on save and must then be a whole number above 0', () => {
    expect(check(ThresholdFormValue, ' 1.4 ')).toEqual({ ok: true, data: 1 });
    expect(check(ThresholdFormValue, 500)).toEqual({ ok: true, data: 500 });
    for (const bad of ['', '0', '-3', '0.4', 'abc']) expect(firstError(ThresholdFormValue, bad), bad).toBe(MESSAGES.invalidThresholds);
  });
});

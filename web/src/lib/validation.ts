// Validation rules and messages of SPEC section 5. Each returns the first message, or null when valid.
import { MESSAGES, LIMITS, type AlertPlatform, PLATFORM_FIELDS } from '@upfleet/proto/rest';

export interface SignupInput { username: string; email: string; password: string; confirmPassword: string }

export function validateSignup(v: SignupInput): string | null {
  const username = v.username.trim();
  if (!username) return 'Username is required';
  if (username.length < LIMITS.usernameMin || username.length > LIMITS.usernameMax) {
    return `Username must be between ${LIMITS.usernameMin} and ${LIMITS.usernameMax} characters`;
  }
  if (!v.email.trim()) return 'Email is required';
  if (!v.password) return 'Password is required';
  if (v.password !== v.confirmPassword) return MESSAGES.passwordsDoNotMatch;
  if (v.password.length < LIMITS.passwordMin) return MESSAGES.passwordTooShort;
  return null;
}

export function validateLogin(email: string, password: string): string | null {
  if (!email.trim()) return 'Email is required';
  if (!password) return 'Password is required';
  return null;
}

/** Keeps digits only and at most six of them. */
export function sanitizeCode(raw: string): string {
  return raw.replace(/\D/g, '').slice(0, LIMITS.twoFactorDigits);
}

export const isCompleteCode = (code: string): boolean => /^\d{6}$/.test(code);

export function isValidUrl(value: string): boolean {
  try {
    const u = new URL(value.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

export function validateEndpointBasics(name: string, url: string): string | null {
  if (!name.trim()) return 'Name is required';
  if (!url.trim()) return 'URL is required';
  if (!isValidUrl(url)) return 'Please enter a valid URL';
  return null;
}

export interface ThresholdValue { threshold_value: number | string }

export function validateThresholds(rows: ThresholdValue[]): string | null {
  for (const r of rows) {
    const n = typeof r.threshold_value === 'number' ? r.threshold_value : Number(String(r.threshold_value).trim());
    if (String(r.threshold_value).trim() === '' || !Number.isFinite(n) || n <= 0) return MESSAGES.invalidThresholds;
  }
  return null;
}

export const isEmail = (v: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.trim());

export const FIELD_LABELS: Record<string, string> = {
  email_address: 'Email Address',
  bot_token: 'Bot Token',
  channel: 'Channel',
  chat_id: 'Chat ID',
  webhook_url: 'Webhook URL',
  phone_number: 'Phone Number',
};

export function validateAlertMethod(
  platform: AlertPlatform,
  config: Record<string, string>,
  existing: AlertPlatform[],
): string | null {
  if (existing.includes(platform)) return MESSAGES.duplicatePlatform;
  for (const field of PLATFORM_FIELDS[platform]) {
    if (!(config[field] ?? '').trim()) return `${FIELD_LABELS[field] ?? field} is required`;
  }
  if (platform === 'email' && !isEmail(config.email_address ?? '')) return 'Please enter a valid email address';
  if ((platform === 'webhook' || platform === 'discord' || platform === 'teams') && !isValidUrl(config.webhook_url ?? '')) {
    return 'Please enter a valid URL';
  }
  return null;
}

export function validatePasswordChange(newPassword: string, confirm: string): string | null {
  if (newPassword !== confirm) return MESSAGES.newPasswordsDoNotMatch;
  if (newPassword.length < LIMITS.passwordMin) return MESSAGES.newPasswordTooShort;
  return null;
}

export function validateTwoFactorCode(code: string): string | null {
  if (!code) return 'Please enter the verification code';
  if (!isCompleteCode(code)) return 'Please enter the 6-digit code';
  return null;
}

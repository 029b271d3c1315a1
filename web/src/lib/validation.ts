// Form rules of SPEC section 5, as thin uses of the shared REST schemas (@upfleet/proto/schemas).
// Each returns the first message, or null when valid.
import { LIMITS, MESSAGES, PLATFORM_FIELDS, type AlertPlatform } from '@upfleet/proto/rest';
import {
  EndpointCreateBody, LoginForm, PasswordChangeForm, SignupForm, ThresholdFormValue, TwoFactorCode,
  check, firstError, isEmail, isHttpUrl, platformConfig,
} from '@upfleet/proto/schemas';

export { isEmail, isHttpUrl as isValidUrl };

export const validateSignup = (v: SignupForm): string | null => firstError(SignupForm, v);

export const validateLogin = (email: string, password: string): string | null => firstError(LoginForm, { email, password });

/** Keeps digits only and at most six of them. */
export const sanitizeCode = (raw: string): string => raw.replace(/\D/g, '').slice(0, LIMITS.twoFactorDigits);

export const isCompleteCode = (code: string): boolean => check(TwoFactorCode, code).ok;

export function validateTwoFactorCode(code: string): string | null {
  if (!code) return 'Please enter the verification code';
  return isCompleteCode(code) ? null : 'Please enter the 6-digit code';
}

export const validateEndpointBasics = (name: string, url: string): string | null => firstError(EndpointCreateBody, { name, url });

interface ThresholdValue { threshold_value: number | string }

export function validateThresholds(rows: ThresholdValue[]): string | null {
  return rows.some((r) => !check(ThresholdFormValue, r.threshold_value).ok) ? MESSAGES.invalidThresholds : null;
}

export const FIELD_LABELS: Record<string, string> = {
  email_address: 'Email Address',
  bot_token: 'Bot Token',
  channel: 'Channel',
  chat_id: 'Chat ID',
  webhook_url: 'Webhook URL',
  phone_number: 'Phone Number',
};

/** The form names fields by their labels; the rest of the config's rules are the API's schema. */
export function validateAlertMethod(platform: AlertPlatform, config: Record<string, string>, existing: AlertPlatform[]): string | null {
  if (existing.includes(platform)) return MESSAGES.duplicatePlatform;
  for (const field of PLATFORM_FIELDS[platform]) {
    if (!(config[field] ?? '').trim()) return `${FIELD_LABELS[field] ?? field} is required`;
  }
  if (platform === 'email' && !isEmail(config.email_address ?? '')) return 'Please enter a valid email address';
  if ((platform === 'webhook' || platform === 'discord' || platform === 'teams') && !isHttpUrl(config.webhook_url ?? '')) {
    return 'Please enter a valid URL';
  }
  return firstError(platformConfig(platform), config);
}

export const validatePasswordChange = (newPassword: string, confirm: string): string | null =>
  firstError(PasswordChangeForm, { new_password: newPassword, confirm });

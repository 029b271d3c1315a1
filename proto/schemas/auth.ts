// Account bodies: signup, login, refresh, logout, two-factor verify, profile and password change.
import { z } from 'zod';
import { LIMITS, MESSAGES } from '../rest';
import { CheckoutSessionId } from './billing';
import { timeZoneField, emailAddress, requiredText } from './common';

const usernameLength = `Username must be between ${LIMITS.usernameMin} and ${LIMITS.usernameMax} characters`;

export const Username = requiredText('Username', 100)
  .min(LIMITS.usernameMin, usernameLength)
  .max(LIMITS.usernameMax, usernameLength);

/** A new password: `{label} is required`, then the SPEC's minimum length message. */
const password = (label: 'Password' | 'New password', tooShort: string) =>
  z
    .string({ error: `${label} is required` })
    .min(1, `${label} is required`)
    .min(LIMITS.passwordMin, tooShort)
    .max(1024, `${label} is too long`);

export const Password = password('Password', MESSAGES.passwordTooShort);
export const NewPassword = password('New password', MESSAGES.newPasswordTooShort);

export const SignupBody = z
  .object({ username: Username, email: emailAddress(), password: Password, checkout_session: CheckoutSessionId.nullish() })
  .meta({ id: 'SignupBody', description: 'POST /api/auth/signup' });
export type SignupBody = z.infer<typeof SignupBody>;

const loginRequired = 'Email and password are required';
export const LoginBody = z
  .object({
    email: z.string({ error: loginRequired }).trim().toLowerCase().min(1, loginRequired),
    password: z.string({ error: loginRequired }).min(1, loginRequired),
    /** A 6-digit TOTP code or a backup code; absent or empty when the account has no 2FA. */
    two_factor_code: z.string({ error: MESSAGES.invalidCode }).nullish(),
    /** A paid anonymous checkout to attach to this account. */
    checkout_session: CheckoutSessionId.nullish(),
  })
  .meta({ id: 'LoginBody', description: 'POST /api/auth/login' });
export type LoginBody = z.infer<typeof LoginBody>;

/** The second step of a single sign-on to an account with two-factor: the callback's ticket and a code. */
export const OidcTwoFactorBody = z
  .object({
    ticket: z.string({ error: 'ticket is required' }).min(1, 'ticket is required').max(200, 'ticket is invalid'),
    two_factor_code: z.string({ error: MESSAGES.invalidCode }).trim().max(64, MESSAGES.invalidCode).nullish(),
  })
  .meta({ id: 'OidcTwoFactorBody', description: 'POST /api/auth/oidc/two-factor' });
export type OidcTwoFactorBody = z.infer<typeof OidcTwoFactorBody>;

export const RefreshBody = z
  .object({ refreshToken: z.string({ error: 'refreshToken is required' }).min(1, 'refreshToken is required') })
  .meta({ id: 'RefreshBody', description: 'POST /api/auth/refresh' });
export type RefreshBody = z.infer<typeof RefreshBody>;

/** Logout takes no body: the session is the bearer token's. */
export const LogoutBody = z.object({}).meta({ id: 'LogoutBody', description: 'POST /api/auth/logout' });
export type LogoutBody = z.infer<typeof LogoutBody>;

export const TwoFactorCode = z
  .string({ error: 'Please enter the verification code' })
  .trim()
  .min(1, 'Please enter the verification code')
  .regex(new RegExp(`^\\d{${LIMITS.twoFactorDigits}}$`), MESSAGES.invalidCode);

export const TwoFactorVerifyBody = z
  .object({ token: TwoFactorCode })
  .meta({ id: 'TwoFactorVerifyBody', description: 'POST /api/2fa/verify' });
export type TwoFactorVerifyBody = z.infer<typeof TwoFactorVerifyBody>;

/** Proof that the person at the keyboard owns the account: the current password, or a current code
 *  (TOTP or backup code). */
export const TwoFactorDisableBody = z
  .object({
    password: z.string({ error: 'Password must be text' }).max(1024, 'Password is too long').optional(),
    token: z.string({ error: MESSAGES.invalidCode }).trim().max(64, MESSAGES.invalidCode).optional(),
  })
  .refine((b) => Boolean(b.password) || Boolean(b.token), { error: MESSAGES.twoFactorDisableProof })
  .meta({ id: 'TwoFactorDisableBody', description: 'POST /api/2fa/disable' });
export type TwoFactorDisableBody = z.infer<typeof TwoFactorDisableBody>;

export const ProfileUpdateBody = z
  .object({
    username: Username,
    email: emailAddress(),
    timezone: timeZoneField(),
    /** Needed (or two_factor_code) when the email changes. */
    current_password: z.string({ error: 'Password must be text' }).max(1024, 'Password is too long').optional(),
    two_factor_code: z.string({ error: MESSAGES.invalidCode }).trim().max(64, MESSAGES.invalidCode).optional(),
  })
  .meta({ id: 'ProfileUpdateBody', description: 'PUT /api/users/profile' });
export type ProfileUpdateBody = z.infer<typeof ProfileUpdateBody>;

export const PasswordChangeBody = z
  .object({
    current_password: z.string({ error: 'Current password is required' }).min(1, 'Current password is required'),
    new_password: NewPassword,
  })
  .meta({ id: 'PasswordChangeBody', description: 'POST /api/users/change-password' });
export type PasswordChangeBody = z.infer<typeof PasswordChangeBody>;

// Web form schemas: the same rules as the REST bodies, plus what only a form has (a confirmation
// field, per-field messages where the form says "Email is required" rather than the API's combined text).
import { z } from 'zod';
import { MESSAGES } from '../rest';
import { ThresholdValue } from './alerts';
import { NewPassword, SignupBody } from './auth';
import { requiredText } from './common';

export const SignupForm = SignupBody.extend({ confirmPassword: z.string() }).superRefine((v, ctx) => {
  if (v.password !== v.confirmPassword) ctx.addIssue({ code: 'custom', path: ['confirmPassword'], message: MESSAGES.passwordsDoNotMatch });
});
export type SignupForm = z.input<typeof SignupForm>;

export const LoginForm = z.object({
  email: requiredText('Email', 254),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required'),
});

/** Confirmation first (the SPEC's order on the profile page), then the new password's own rules. */
export const PasswordChangeForm = z
  .object({ new_password: z.string(), confirm: z.string() })
  .refine((v) => v.new_password === v.confirm, { message: MESSAGES.newPasswordsDoNotMatch, path: ['confirm'], abort: true })
  .pipe(z.object({ new_password: NewPassword, confirm: z.string() }));

/** A threshold as typed in the form (text or number), rounded on save, then the API's own rule. */
export const ThresholdFormValue = z
  .union([z.number(), z.string().trim().min(1, MESSAGES.invalidThresholds)], { error: MESSAGES.invalidThresholds })
  .transform(Number)
  .pipe(z.number({ error: MESSAGES.invalidThresholds }).finite(MESSAGES.invalidThresholds).positive(MESSAGES.invalidThresholds))
  .transform(Math.round)
  .pipe(ThresholdValue);

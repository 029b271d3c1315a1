// Account mails (not alerts): the email verification link, sent through SMTP_URL/SMTP_FROM with
// nodemailer. Without SMTP there is no mailer and every address counts as verified.
import nodemailer, { type Transporter } from 'nodemailer';

/** How long a verification link works. */
export const VERIFY_LINK_TTL_MS = 48 * 3600_000;

export interface AccountMailer {
  sendVerification(to: string, link: string, isNewAddress: boolean): Promise<void>;
  /** A workspace invitation: a one-use link, 7 days. */
  sendInvitation(to: string, link: string, workspaceName: string, inviterName: string): Promise<void>;
}

export function createAccountMailer(opts: { smtpUrl: string | null; from: string | null }): AccountMailer | null {
  if (!opts.smtpUrl) return null;
  let transport: Transporter | null = null;
  const connect = () =>
    (transport ??= nodemailer.createTransport(opts.smtpUrl!, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never));
  return {
    async sendInvitation(to, link, workspaceName, inviterName) {
      await connect().sendMail({
        from: opts.from ?? 'Upfleet <no-reply@upfleet.invalid>',
        to,
        subject: `${inviterName} invited you to ${workspaceName} on Upfleet`,
        text: `${inviterName} invited you to the Upfleet workspace "${workspaceName}".\n\nOpen this link to join (it works once, for 7 days; sign up with this address first if you have no account):\n${link}\n\nIf you did not expect this, ignore this mail.\n`,
      });
    },
    async sendVerification(to, link, isNewAddress) {
      connect();
      const why = isNewAddress ? 'You asked to change your Upfleet account\'s email address to this one.' : 'Welcome to Upfleet.';
      await transport!.sendMail({
        from: opts.from ?? 'Upfleet <no-reply@upfleet.invalid>',
        to,
        subject: 'Verify your email address for Upfleet',
        text: `${why}\n\nOpen this link to verify the address (it works once, for 48 hours):\n${link}\n\nIf this was not you, ignore this mail.\n`,
      });
    },
  };
}
